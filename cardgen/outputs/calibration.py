"""`calibration-<paper>.pdf`: one duplex sheet that measures a printer's front-to-back drift.

The front has five targets (the centre and near each corner): a vertical and a horizontal
line, each along a plain millimetre scale.  The back has, behind each target, two offset
scales whose tick `0` lies exactly behind the front's line when the printer does not drift
(as the print sheets place backs: same `--flip`, same `--back-offset`).  Held against the
light, the front's line falls on the back's scale at the number to *add* to the
`--back-offset` the sheet was built with: the X scale (horizontal, numbers across) gives X,
the Y scale (vertical) gives Y.
"""
from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

from cardgen.core.sizes import PAPER_SIZES_MM
from cardgen.core.units import MM
from cardgen.core.words import ENGLISH, Words
from cardgen.outputs.base import Job, NoOptions, Output
from cardgen.outputs.print_sheets import PrintSheets

RANGE = 5.0          # the scales read -RANGE..+RANGE mm
STEP = 0.5           # one tick per STEP mm
ARM = 14.0           # half-length of a target's lines, mm
INSET = 35.0         # corner targets' distance from the paper's edges, mm
TARGET_W = 0.2       # pt: the front's target lines
ZERO_W = 0.6         # pt: the back's 0 tick
WHOLE_W = 0.3        # pt: ticks at whole millimetres
HALF_W = 0.12        # pt: ticks at half millimetres


@dataclass(frozen=True)
class Site:
    """A place on the calibration sheet."""

    x: float     # mm from the left of the front page
    y: float     # mm from the top of the front page


def sites(paper_w: float, paper_h: float) -> list[Site]:
    """The centre first, then the four corners (top-left, top-right, bottom-left, bottom-right)."""
    return [Site(paper_w / 2, paper_h / 2), Site(INSET, INSET), Site(paper_w - INSET, INSET),
            Site(INSET, paper_h - INSET), Site(paper_w - INSET, paper_h - INSET)]


def behind(site: Site, paper_w: float, paper_h: float, flip: str, offset: tuple[float, float]) -> Site:
    """Where `site` of the front lands on the back page (mm from the back page's top-left), as
    `cardgen.render.impose.back_slots` places backs, `offset` included."""
    x, y = (paper_w - site.x, site.y) if flip == "long" else (site.x, paper_h - site.y)
    return Site(x + offset[0], y + offset[1])


def _ticks(c: Any, along_x: bool, x0: float, y0: float, paper_h: float, labels: bool, font: str) -> None:
    """A scale centred on (x0, y0) mm (from the top-left): ticks every STEP mm across -RANGE..RANGE.
    `along_x`: ticks are vertical lines spread along x (they read an x position)."""
    n = round(RANGE / STEP)
    for k in range(-n, n + 1):
        v = k * STEP
        whole = abs(v - round(v)) < 1e-9
        length = 4.0 if k == 0 else 3.0 if whole else 1.8
        c.setLineWidth(ZERO_W if (labels and k == 0) else WHOLE_W if whole else HALF_W)
        if along_x:
            x = x0 + v
            c.line(x * MM, (paper_h - y0) * MM, x * MM, (paper_h - y0 - length) * MM)
            if labels and k % 4 == 0:
                c.drawCentredString(x * MM, (paper_h - y0 - length - 2.2) * MM, f"{v:+g}" if k else "0")
        else:
            y = y0 + v
            c.line(x0 * MM, (paper_h - y) * MM, (x0 + length) * MM, (paper_h - y) * MM)
            if labels and k % 4 == 0:
                c.drawString((x0 + length + 0.8) * MM, (paper_h - y - 0.6) * MM, f"{v:+g}" if k else "0")


def calibration_pdf(paper: str, flip: str, offset: tuple[float, float], fonts: Any, title: str,
                    words: Words = ENGLISH) -> bytes:
    from cardgen.render.draw import draw_line, new_canvas
    from cardgen.resources.fonts import DEFAULT_FAMILY

    pw, ph = PAPER_SIZES_MM[paper]
    buf = io.BytesIO()
    c = new_canvas(buf, fonts, pagesize=(pw * MM, ph * MM))
    c.setTitle(f"{title}: {words('duplex calibration ({paper})', paper=paper)}")
    font = fonts.face(DEFAULT_FAMILY if fonts.has(DEFAULT_FAMILY) else None, "regular").name
    c.setFont(font, 5)
    c.setStrokeColorRGB(0, 0, 0)
    for s in sites(pw, ph):                      # front: the targets, on plain mm scales
        c.setLineWidth(TARGET_W)
        c.line(s.x * MM, (ph - s.y + ARM) * MM, s.x * MM, (ph - s.y - ARM) * MM)          # reads X
        c.line((s.x - ARM) * MM, (ph - s.y) * MM, (s.x + ARM) * MM, (ph - s.y) * MM)      # reads Y
        _ticks(c, True, s.x, s.y + ARM - 4, ph, False, font)
        _ticks(c, False, s.x - ARM, s.y, ph, False, font)
    c.setFont(font, 8)
    head = words("duplex calibration, {paper}. Print at 100 % (Actual size), double-sided, {flip}.", paper=paper,
                 flip=words(f"flip on the {flip} edge"))
    draw_line(c, fonts, f"{title}: {head}", 8, pw / 2 * MM, (ph - 12) * MM, centred=True)
    c.setFont(font, 8)
    draw_line(c, fonts, words("Hold to the light; read the back's scales where this side's lines fall "
                              "(see docs/printing.md)."), 8, pw / 2 * MM, (ph - 17) * MM, centred=True)
    c.showPage()
    c.setFont(font, 5)
    c.setStrokeColorRGB(0, 0, 0)
    for s in sites(pw, ph):                      # back: offset scales, 0 behind each target
        b = behind(s, pw, ph, flip, offset)
        _ticks(c, True, b.x, b.y - ARM + 2, ph, True, font)      # X scale, across the vertical line
        _ticks(c, False, b.x + 2, b.y, ph, True, font)           # Y scale, across the horizontal line
        c.drawString((b.x + 9) * MM, (ph - b.y + ARM - 6) * MM, "X")
        c.drawString((b.x + 9) * MM, (ph - b.y - 8) * MM, "Y")
    c.setFont(font, 8)
    draw_line(c, fonts, words("back page, built with --back-offset {offset}: add the centre's X,Y readings to it "
                              "and build again", offset=f"{offset[0]:g},{offset[1]:g}"), 8, pw / 2 * MM, 12 * MM,
              centred=True)
    c.showPage()
    c.save()
    return buf.getvalue()


class Calibration(Output[NoOptions]):
    summary = ("A duplex calibration sheet: scales whose read-out gives the --back-offset to use "
               "(uses print's --flip and --back-offset).")
    files = "calibration-<paper>.pdf"

    def make(self, job: Job[NoOptions]) -> None:
        from cardgen.outputs.incremental import fonts_digest

        o = job.options_of(PrintSheets)
        r = job.rendered
        for paper in job.build.papers:
            part = job.part(paper, o.flip, tuple(o.back_offset), r.game.title, fonts_digest(r.res.fonts))
            if part.keep():
                continue
            with part:
                job.staging.add(job.out_dir / f"calibration-{paper}.pdf",
                                calibration_pdf(paper, o.flip, tuple(o.back_offset), r.res.fonts, r.game.title,
                                                r.game.words))
