"""Dice nets on paper: each die of a game's die files as a cross to cut out, fold and glue
(`cardgen.model.dice` has the net's geometry; docs/components.md, "Dice").

Each face's side (laid out at the sticker's size) is drawn scaled to fill its square of the
net, upright as the net lies; the glue tabs are tinted grey; cut lines are solid (0.6 pt),
fold lines dashed (0.5 pt, over a white line so that they show on dark faces).  Nets are packed
in rows, a few millimetres apart, as many to a page as fit.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reportlab.lib.colors import white
from reportlab.pdfgen.canvas import Canvas

from cardgen.core.sizes import PAPER_SIZES_MM
from cardgen.core.units import MM
from cardgen.core.words import ENGLISH, Words
from cardgen.model.dice import DieNet
from cardgen.model.ops import CardLayout
from cardgen.render import impose
from cardgen.render.draw import Drawer, draw_line, new_canvas
from cardgen.render.formcache import FormCache
from cardgen.resources.fonts import FontBook

PAGE_MARGIN = 5.0           # mm: the nets stay this far inside the paper (impose.PRINTER_MARGIN)
FOOT = 6.0                  # mm more at the page's foot, for the note
NET_GAP = 2.0               # mm between two nets
CUT_WIDTH = 0.6             # pt
FOLD_WIDTH = 0.5            # pt
FOLD_DASH = (3, 2)          # pt on, pt off
TAB_GREY = 0.88


@dataclass(frozen=True)
class Die:
    """One die file's dice: its name, edge (mm), its six faces in order, and how many."""

    name: str
    edge: float
    faces: Sequence[CardLayout]
    count: int


def dice_pdf(fonts: FontBook, cache: FormCache | None, title: str, dice: Sequence[Die],
             paper: str, words: Words = ENGLISH) -> tuple[bytes, int]:
    """(the PDF, its pages) of one net per die on `paper`."""
    pw, ph = PAPER_SIZES_MM[paper]
    c = new_canvas(None, fonts, pagesize=(pw * MM, ph * MM))
    c.setTitle(f"{title}: {words('dice')} ({paper})")
    drawer = Drawer(c, fonts, cache)
    drawer.prepare([f for d in dice for f in d.faces])
    nets = [(d, DieNet.for_edge(d.edge)) for d in dice for _ in range(d.count)]
    pieces = [(net.width, net.height, NET_GAP / 2) for _, net in nets]
    pages = impose.pack_shelves(pw, ph - FOOT, pieces, PAGE_MARGIN) if nets else []
    k = 0
    note = (f"{title} · {', '.join(f'{d.name} ({d.count})' for d in dice)}: "
            + words("cut the solid lines, fold the dashed ones away from you, glue each grey tab under the face it "
                    "meets · print at 100 %"))
    for page in pages:
        for x, y, _, _, _ in page.places:
            die, net = nets[k]
            k += 1
            _draw_net(c, drawer, die, net, x, y, ph)
        c.setFillColorRGB(0.35, 0.35, 0.35)
        draw_line(c, fonts, note, 6, PAGE_MARGIN * MM, PAGE_MARGIN * MM)
        c.showPage()
    if not pages:
        c.showPage()            # a PDF has at least one page
    return c.getpdfdata(), len(pages)


def _draw_net(c: Canvas, drawer: Drawer, die: Die, net: DieNet, ox: float, oy: float, ph: float) -> None:
    """One net with its top-left at (ox, oy) mm on a page `ph` mm high."""

    def at(x: float, y: float) -> tuple[float, float]:
        return (ox + x) * MM, (ph - oy - y) * MM

    for n, face in enumerate(die.faces, 1):
        x, y, a, _ = net.square(n)
        s = a * MM / face.width             # the face's trim fills the square
        c.saveState()
        p = c.beginPath()
        p.rect(*at(x, y + a), a * MM, a * MM)
        c.clipPath(p, stroke=0, fill=0)
        left, foot = at(x, y + a)
        c.translate(left - face.bleed * s, foot - face.bleed * s)
        c.scale(s, s)
        c.doForm(drawer.card_form(face))
        c.restoreState()
    c.setFillGray(TAB_GREY)
    for tab in net.tabs():
        p = c.beginPath()
        p.moveTo(*at(*tab.points[0]))
        for pt in tab.points[1:]:
            p.lineTo(*at(*pt))
        p.close()
        c.drawPath(p, stroke=0, fill=1)
    c.setStrokeColor(white)
    c.setLineWidth(FOLD_WIDTH + 0.4)
    for seg in net.folds():
        c.line(*at(seg[0], seg[1]), *at(seg[2], seg[3]))
    c.setStrokeColorRGB(0, 0, 0)
    c.setLineWidth(FOLD_WIDTH)
    c.setDash(*FOLD_DASH)
    for seg in net.folds():
        c.line(*at(seg[0], seg[1]), *at(seg[2], seg[3]))
    c.setDash()
    c.setLineWidth(CUT_WIDTH)
    for seg in net.cuts():
        c.line(*at(seg[0], seg[1]), *at(seg[2], seg[3]))
