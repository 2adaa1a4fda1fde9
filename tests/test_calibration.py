"""The duplex calibration sheet, read back in mm: each back scale's 0 tick lies behind its front
target line (as the print sheets place backs), ticks every 0.5 mm, and --back-offset/--flip move
the back's scales as they move the print sheets' backs."""
from __future__ import annotations

import pytest
from conftest import REPO
from pdfgeom import page_items
from pypdf import PdfReader

from cardgen.core.errors import Report
from cardgen.outputs import OUTPUTS
from cardgen.outputs.calibration import HALF_W, TARGET_W, WHOLE_W, ZERO_W
from cardgen.pipeline.build import BuildOptions, build_game

SIZES = {"letter": (215.9, 279.4), "a4": (210.0, 297.0)}
INSET = 35.0


def _build(tmp_path, paper, **print_opts):
    opts = BuildOptions(out=tmp_path, only=("calibration",), papers=(paper,), outputs={"print": print_opts})
    build_game(REPO / "cards" / "game-601", REPO, opts, Report())
    return PdfReader(tmp_path / "game-601" / "en" / f"calibration-{paper}.pdf")


def _lines(reader, page, width):
    return [s for s in page_items(reader, page)[1] if abs(s.width - width) < 1e-3]


def test_calibration_is_an_output_made_by_default():
    assert OUTPUTS["calibration"].default and OUTPUTS["calibration"].files == "calibration-<paper>.pdf"


@pytest.mark.parametrize(("paper", "flip", "offset"), [("letter", "long", (0.0, 0.0)), ("a4", "long", (1.5, -0.5)),
                                                      ("letter", "short", (-1.0, 2.0))])
def test_back_zero_ticks_lie_behind_the_front_targets(tmp_path, paper, flip, offset):
    pw, ph = SIZES[paper]
    reader = _build(tmp_path, paper, flip=flip, back_offset=offset)
    assert len(reader.pages) == 2
    # front targets (mm from the bottom-left): vertical lines read X, horizontal lines read Y
    targets = _lines(reader, 0, TARGET_W)
    xs = sorted(round(s.x1, 2) for s in targets if abs(s.x1 - s.x2) < 1e-6)
    ys = sorted(round(s.y1, 2) for s in targets if abs(s.y1 - s.y2) < 1e-6)
    assert xs == pytest.approx(sorted([INSET, INSET, pw / 2, pw - INSET, pw - INSET]), abs=0.01)
    assert ys == pytest.approx(sorted([INSET, INSET, ph / 2, ph - INSET, ph - INSET]), abs=0.01)
    # where the back page (x right, y down from its top-left) puts what is behind each front line
    dx, dy = offset
    if flip == "long":
        want_x = sorted(pw - x + dx for x in xs)
        want_y = sorted(y - dy for y in ys)                # y from the bottom: down is minus
    else:
        want_x = sorted(x + dx for x in xs)
        want_y = sorted(ph - y - dy for y in ys)
    zeros = _lines(reader, 1, ZERO_W)
    zx = sorted(s.x1 for s in zeros if abs(s.x1 - s.x2) < 1e-6)       # vertical 0 ticks: X scales
    zy = sorted(s.y1 for s in zeros if abs(s.y1 - s.y2) < 1e-6)       # horizontal 0 ticks: Y scales
    assert zx == pytest.approx(want_x, abs=0.01)
    assert zy == pytest.approx(want_y, abs=0.01)
    # each scale: 21 ticks 0.5 mm apart, -5..+5 mm about its 0
    ticks = _lines(reader, 1, WHOLE_W) + _lines(reader, 1, HALF_W)
    z0 = next(z for z in zeros if abs(z.x1 - z.x2) < 1e-6)
    x0 = z0.x1
    near = sorted(s.x1 for s in ticks if abs(s.x1 - s.x2) < 1e-6 and abs(s.x1 - x0) <= 5.01
                  and abs(s.y1 - z0.y1) < 1e-6)
    assert len(near) == 20
    assert [round(v - x0, 2) for v in near] == [k / 2 for k in range(-10, 11) if k]
