"""Process-wide memos stay bounded (core/memo.py): a long `serve` or `--watch` session
cannot grow them without end."""

import pytest

from cardgen.core import digest, memo
from cardgen.render import raster, rlcompat
from cardgen.resources import features, fonts, icons
from cardgen.text import markup


def test_a_bounded_memo_forgets_its_oldest_entries():
    m = memo.Bounded(3)
    for k in "abcd":
        m[k] = k.upper()
    assert list(m) == ["b", "c", "d"] and m["d"] == "D"
    m["b"] = "again"                   # set again: now the newest
    m["e"] = "E"
    assert list(m) == ["d", "b", "e"]
    assert m.setdefault("f", 1) == 1 and list(m) == ["b", "e", "f"]
    m.update({"g": 2, "h": 3})
    assert list(m) == ["f", "g", "h"]


def test_a_memo_bounded_by_size_counts_what_it_holds():
    m = memo.Bounded(100, 10, len)
    m["a"] = b"12345"
    m["b"] = b"1234"
    assert m.held == 9
    m["c"] = b"123"                    # 12 > 10: the oldest goes
    assert list(m) == ["b", "c"] and m.held == 7
    m["big"] = b"x" * 11               # larger than the whole bound: not kept, nothing forgotten
    assert "big" not in m and list(m) == ["b", "c"] and m.held == 7
    assert m.pop("b") == b"1234" and m.held == 3
    assert m.pop("nothing", None) is None
    m.clear()
    assert m.held == 0 and not m
    with pytest.raises(ValueError):
        memo.Bounded(0)
    with pytest.raises(ValueError):
        memo.Bounded(5, 10)


@pytest.mark.parametrize("cache", [rlcompat._zipped, icons._svg_cache, icons._raster_sizes, icons._own_names,
                                   markup._plain_frags, fonts._verified, digest._file_digests,
                                   raster._worker_fonts, features._effective])
def test_every_process_wide_memo_is_bounded(cache):
    assert isinstance(cache, memo.Bounded) and cache.entries <= 20_000


def test_the_compression_memo_keeps_at_most_its_bytes(monkeypatch):
    small = memo.Bounded(20_000, 4096, len)
    monkeypatch.setattr(rlcompat, "_zipped", small)
    import os

    for i in range(200):
        rlcompat._compressed(os.urandom(100) + bytes([i]))
    assert small.held <= 4096 and 0 < len(small) < 200
