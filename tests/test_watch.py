"""`cardgen build --watch`: what changed is noticed, and only that triggers a rebuild."""
from __future__ import annotations

import time

from cardgen.cli import watch as w
from cardgen.resources.icons import load_svg


def test_snapshot_leaves_out_build_output(tmp_path):
    (tmp_path / "deck.yaml").write_text("a")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "out.pdf").write_text("x")
    assert list(w.snapshot([tmp_path])) == [tmp_path / "deck.yaml"]


def test_watch_rebuilds_once_per_change_with_the_changed_file(tmp_path):
    deck = tmp_path / "deck.yaml"
    deck.write_text("count: 1\n")
    calls, ticks = [], []

    def fake_sleep(_):
        ticks.append(1)
        if len(ticks) == 3:                 # the designer saves an edit between two polls
            deck.write_text("count: 12\n")

    w.watch(lambda: [tmp_path], calls.append, stop=lambda: len(ticks) >= 8, sleep=fake_sleep)
    assert calls == [[deck]]


def test_caches_notice_an_edited_svg(tmp_path):
    svg = tmp_path / "i.svg"
    svg.write_text('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>')
    first = load_svg(svg).width
    time.sleep(0.01)
    svg.write_text('<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"/>')
    assert load_svg(svg).width == 2 * first
