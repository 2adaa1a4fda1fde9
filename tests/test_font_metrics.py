"""Fonts are measured without ReportLab: their metrics are ReportLab's, kept in the user's
cache by the font file's content, so `cardgen validate` neither imports ReportLab nor parses a
font it measured before (`cardgen.resources.fonts`)."""
from __future__ import annotations

import hashlib
import json
import marshal
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

from cardgen.core.data import DATA
from cardgen.core.digest import read_payload, seal
from cardgen.resources.fonts import FontBook, FontError, use_in_reportlab
from cardgen.resources.shaping import PSEUDO

FONTS = DATA / "fonts"


def _faces(book: FontBook) -> list[tuple[str, str]]:
    return [(family, style) for family, files in sorted(book.families.items()) for style in sorted(files)]


def test_widths_characters_and_heights_are_reportlabs_to_the_last_bit():
    from reportlab.pdfbase import pdfmetrics

    book = FontBook([FONTS])
    faces = _faces(book)
    assert len(faces) == 13                       # every bundled font file
    named = [book.face(family, style) for family, style in faces]
    assert len({face.name for face in named}) == 13
    use_in_reportlab()
    rng = random.Random(15)
    compared = 0
    for face in named:
        rl = pdfmetrics.getFont(face.name).face
        # (the font's own characters: not the code points drawing gives shaped glyphs, `render.glyphs`)
        own = {c: g for c, g in rl.charToGlyph.items() if c < PSEUDO}
        assert set(book.cmap(face.name)) == {c for c, g in own.items() if g}, face.name  # (.notdef: none)
        assert face.ascent == min(rl.capHeight / 1000 + 0.06, 0.9)
        assert face.descent == min(abs(rl.descent) / 1000, 0.3)
        chars = [chr(c) for c in own] + ["\u4e2d", "\U0001F600", "\u2605", "\u00a0"]
        for _ in range(400):
            text = "".join(rng.choice(chars) for _ in range(rng.randint(1, 30)))
            fresh = FontBook([FONTS])            # (a book remembers the widths it measured)
            assert fresh.width(text, face.name, 13.5) == pdfmetrics.stringWidth(text, face.name, 1.0) * 13.5
            compared += 1
    assert compared == 13 * 400


MEASURE = """
import json, sys
from pathlib import Path
from cardgen.resources.fonts import FontBook, font_files
book = FontBook([Path(sys.argv[1])])
out = {}
for family, style in (("Lato", "regular"), ("Lato", "bold"), ("DejaVuSans", "regular")):
    face = book.face(family, style)
    out[face.name] = [book.width("Quick brown fox \\u2605 \\u00e9t\\u00e9", face.name, 10.0), face.ascent, face.descent,
                      len(book.cmap(face.name))]
print(json.dumps({"measured": out, "reportlab": "reportlab" in sys.modules, "fontTools": "fontTools" in sys.modules,
                  "files": {n: str(p) for n, p in font_files().items()}}))
"""


def _measure(cache: Path) -> dict:
    env = dict(os.environ, XDG_CACHE_HOME=str(cache), PYTHONPATH=str(REPO))
    run = subprocess.run([sys.executable, "-c", MEASURE, str(FONTS)], env=env, capture_output=True, text=True,
                         check=True, cwd=REPO)
    return json.loads(run.stdout)


def _entry(cache: Path, file: str) -> Path:
    """The cache entry of the metrics of a font file (as drawn: `files` of `_measure`), made by this
    installation (its name: the file's sha256, then the hash of what the entry is stamped with)."""
    key = hashlib.sha256(Path(file).read_bytes()).hexdigest()
    (entry,) = (cache / "cardgen" / "fonts").glob(f"{key}-*.bin")
    return entry


def test_a_font_is_parsed_once_then_measured_from_the_cache_without_reportlab(tmp_path):
    cache = tmp_path / "cache"
    first = _measure(cache)
    assert first["reportlab"] is True                     # nothing cached: ReportLab parsed the three files
    assert first["fontTools"] is True                     # and fontTools froze lining figures in where they change
    entries = sorted(p.name for p in (cache / "cardgen" / "fonts").iterdir())
    # one entry per file drawn, by its content: Lato's `lnum` changes its currency signs, DejaVu's has none;
    # and one for each file a drawn font was derived from (checked itself: deriving can mend damage)
    drawn = [Path(f) for f in first["files"].values()]
    assert [f.name for f in drawn if f.parent == FONTS] == ["DejaVuSans.ttf"]
    originals = [FONTS / f"{name}.ttf" for name, f in first["files"].items() if Path(f).parent != FONTS]
    assert sorted(f.name for f in originals) == ["Lato-Bold.ttf", "Lato-Regular.ttf"]
    assert entries == sorted({_entry(cache, str(f)).name for f in [*drawn, *originals]})
    second = _measure(cache)
    assert second == dict(first, reportlab=False, fontTools=False)      # neither is imported again
    assert len(first["measured"]) == 3 and all(v[3] > 2000 for v in first["measured"].values())


def test_a_damaged_or_foreign_cache_entry_is_not_used(tmp_path):
    cache = tmp_path / "cache"
    made = _measure(cache)
    files = made["files"]
    damaged = _entry(cache, files["Lato-Regular"])
    blob = bytearray(damaged.read_bytes())
    blob[-5] ^= 0x01
    damaged.write_bytes(bytes(blob))
    # an entry made by another installation (ReportLab installed at another time): well sealed,
    # the stamp as long as this one's, and metrics that would measure every text as 0 wide
    foreign = _entry(cache, files["Lato-Bold"])
    fmt, version, stamp, _ = read_payload(foreign).split(b"\n", 3)
    other = stamp[:-1] + (b"1" if stamp[-1:] != b"1" else b"2")
    foreign.write_bytes(seal(b"\n".join((fmt, version, other, marshal.dumps((700, -200, 0, {}, []))))))
    again = _measure(cache)
    assert again == dict(made, fontTools=False)     # parsed again, measured alike (the derived fonts kept)
    read_payload(damaged)                                     # both remade, sealed and current
    assert _measure(cache) == dict(made, reportlab=False, fontTools=False)


def test_two_installations_keep_an_entry_each_and_neither_parses_again(tmp_path, monkeypatch):
    # two virtual environments (another ReportLab, another Python) measuring the same font file
    # used to overwrite one entry by turns, so each parsed the font again on every run
    from cardgen.resources import fonts

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = (FONTS / "Lato-Regular.ttf").resolve()
    key = hashlib.sha256(path.read_bytes()).hexdigest()
    ours = fonts._cache_head()
    monkeypatch.setattr(fonts, "_parse", _counted(fonts._parse, parses := []))
    for head in (ours, ours.replace(b"reportlab:", b"reportlab:/elsewhere"), ours):
        monkeypatch.setattr(fonts, "_cache_head", lambda head=head: head)
        fonts._measure("cardgen-two-installs", path)
        fonts._parsed.pop("cardgen-two-installs", None)
    assert len(parses) == 2                       # each installation parsed it once; ours found its entry again
    assert len(list((tmp_path / "cache" / "cardgen" / "fonts").glob(f"{key}-*.bin"))) == 2


def _counted(function, calls: list):
    def counted(*args, **kwargs):
        calls.append(args)
        return function(*args, **kwargs)
    return counted


def test_a_damaged_font_file_is_refused_every_time_and_never_cached(tmp_path, monkeypatch):
    import struct

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    data = bytearray((FONTS / "LeckerliOne-Regular.ttf").read_bytes())
    count = struct.unpack_from(">H", data, 4)[0]
    glyf = next(struct.unpack_from(">4sIII", data, 12 + 16 * i) for i in range(count)
                if data[12 + 16 * i:16 + 16 * i] == b"glyf")
    data[glyf[2] + 10] ^= 0x01
    folder = tmp_path / "fonts"
    folder.mkdir()
    (folder / "Broken-Regular.ttf").write_bytes(bytes(data))
    for _ in range(2):
        with pytest.raises(FontError, match=r"^font file Broken-Regular\.ttf is damaged \(table checksum mismatch "
                                            r"in 'glyf'\); download or copy it again$"):
            FontBook([folder]).face("Broken")
    assert not (tmp_path / "cache" / "cardgen" / "fonts").exists()


def test_a_font_files_hash_is_kept_between_processes_while_the_file_is_unchanged(tmp_path, monkeypatch):
    """Every process that measures text hashed its font files (5 MB for a new game: a tenth of
    its `cardgen validate`); their hashes are kept in the user cache by size, times and inode
    (`digest.kept_digest`), a file that changed is hashed again, and one that changed just
    before it was hashed is not kept (`RACY_NS`, as a build's hashes)."""
    from cardgen.core import digest, memo

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    hashed: list = []          # files read and hashed
    monkeypatch.setattr(hashlib, "file_digest", _counted(hashlib.file_digest, hashed))

    def new_process() -> None:
        monkeypatch.setattr(digest, "_kept", {})
        monkeypatch.setattr(digest, "_file_digests", memo.Bounded(20_000))

    font = tmp_path / "Font-Regular.ttf"
    font.write_bytes((FONTS / "Lato-Regular.ttf").read_bytes())
    sha = hashlib.sha256(font.read_bytes()).hexdigest()
    assert digest.kept_digest(font, "fonts") == sha and len(hashed) == 1
    new_process()
    assert digest.kept_digest(font, "fonts") == sha and len(hashed) == 2     # (written just now: not kept)
    monkeypatch.setattr(digest, "RACY_NS", 0)          # (as if written long before it was hashed)
    new_process()
    assert digest.kept_digest(font, "fonts") == sha and len(hashed) == 3
    new_process()
    assert digest.kept_digest(font, "fonts") == sha and digest.file_digest(font) == sha and len(hashed) == 3
    assert (tmp_path / "cache" / "cardgen" / "hashes" / "fonts.bin").is_file()
    data = bytearray(font.read_bytes())
    data[-1] ^= 0x01                                   # the same size, another content
    font.write_bytes(bytes(data))
    new_process()
    assert digest.kept_digest(font, "fonts") == hashlib.sha256(bytes(data)).hexdigest() and len(hashed) == 4


def test_the_kept_hashes_are_bounded(tmp_path, monkeypatch):
    from cardgen.core import digest

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(digest, "_kept", {})
    monkeypatch.setattr(digest, "RACY_NS", 0)
    monkeypatch.setattr(digest, "KEPT_MAX", 3)
    for i in range(5):
        (tmp_path / f"f{i}.ttf").write_bytes(b"x" * i)
        digest.kept_digest(tmp_path / f"f{i}.ttf", "fonts")
    assert len(digest._kept["fonts"]) == 3            # the last hashed, in this process and in the file
    monkeypatch.setattr(digest, "_kept", {})
    assert sorted(Path(p).name for p in digest._kept_entries("fonts")) == ["f2.ttf", "f3.ttf", "f4.ttf"]


def test_a_face_asked_again_is_the_one_found_and_recorded_as_before():
    """`FontBook.face` keeps what it found by its arguments as given: asked again (any family,
    style and features, as a style's suffix or not), it gives the face a fresh book finds and
    records in `uses` what that book records, in order; an unknown font or style is refused
    every time."""
    asks = [(None, "regular", None), ("Lato", "bold", None), ("Vollkorn", "regular", ("smcp",)),
            ("Lato", "regular+smcp", None), ("Lato", "regular", ("lnum",)), ("", "italic", None),
            ("Lato", "regular", ()), ("Nope", "regular", None), ("Lato", "heavy-ish", None)]
    kept = FontBook([DATA / "fonts"])
    for _ in range(2):
        for k in range(len(asks)):
            order = asks[k:] + asks[:k]
            fresh = FontBook([DATA / "fonts"])
            kept.uses, fresh.uses = {}, {}
            for ask in order:
                try:
                    want = fresh.face(*ask)
                except FontError as exc:
                    with pytest.raises(FontError, match=str(exc)[:20]):
                        kept.face(*ask)
                    continue
                assert kept.face(*ask) == want, ask
            assert list(kept.uses) == list(fresh.uses)
    kept.uses = None
