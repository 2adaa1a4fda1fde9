"""`tuckboxes-<paper>.pdf`: a tuck box for each deck of cards, sized from its cards, as a net to
cut out and fold (docs/components.md).

The box's inside is the card plus `clearance` each way, and as deep as the deck's copies times
`caliper` plus `clearance`.  The net (a reverse tuck end box) is, across its middle: a glue tab,
the back, a side, the front, a side; above the back the lid and its tuck flap, above each side
a dust flap as deep as the box; below the front the bottom lid and its tuck flap, below the
sides their dust flaps.  Cut lines are solid, fold lines dashed.  The front and back panels show
the deck's back design, the sides and the lid the deck's name.  One box a page, turned
landscape when only that fits; a box larger than the paper is left out and said.
"""
from __future__ import annotations

from dataclasses import dataclass

from cardgen.core.errors import plural
from cardgen.outputs.base import Job, Output
from cardgen.schema.core import Decl, Length, opt

Seg = tuple[float, float, float, float]     # x1, y1, x2, y2 in mm from the net's top-left
PAGE_MARGIN = 6.0                           # mm: the net stays this far inside the paper


@dataclass(frozen=True, kw_only=True)
class TuckboxOptions(Decl):
    __what__ = "tuck box options"

    caliper: float = opt(Length(min=0.1, max=2, to="mm"), "one card's thickness: 0.33 mm unsleeved, about 0.40 mm "
                                                          "in thin sleeves, 0.53 mm in thick ones", 0.33,
                         default_doc="0.33 mm")
    clearance: float = opt(Length(min=0, max=10, to="mm"), "room added to the card's width, height and the stack's "
                                                           "depth", 2.0, default_doc="2 mm")
    tuck: float = opt(Length(min=5, max=40, to="mm"), "the tuck flap folded into the box under each lid", 15.0,
                      default_doc="15 mm")
    glue: float = opt(Length(min=5, max=20, to="mm"), "the glue tab", 8.0, default_doc="8 mm")


@dataclass(frozen=True)
class Net:
    """A tuck box's net: the box's inside (`w` x `h` x `d`), the flaps, and every line."""

    w: float
    h: float
    d: float
    glue: float
    tuck: float

    @property
    def xs(self) -> tuple[float, ...]:
        """The columns' edges: glue | back | side | front | side."""
        g, w, d = self.glue, self.w, self.d
        return (0.0, g, g + w, g + w + d, g + 2 * w + d, g + 2 * w + 2 * d)

    @property
    def ys(self) -> tuple[float, ...]:
        """The rows' edges: tuck | lid | body | bottom lid | bottom tuck."""
        t, d, h = self.tuck, self.d, self.h
        return (0.0, t, t + d, t + d + h, t + 2 * d + h, 2 * t + 2 * d + h)

    @property
    def width(self) -> float:
        return self.xs[-1]

    @property
    def height(self) -> float:
        return self.ys[-1]

    def panels(self) -> dict[str, tuple[float, float, float, float]]:
        """The faces of the box as (x, y, w, h)."""
        x0, x1, x2, x3, x4, x5 = self.xs
        y0, y1, y2, y3, y4, y5 = self.ys
        return {"glue": (x0, y2, x1 - x0, y3 - y2), "back": (x1, y2, x2 - x1, y3 - y2),
                "side": (x2, y2, x3 - x2, y3 - y2), "front": (x3, y2, x4 - x3, y3 - y2),
                "side2": (x4, y2, x5 - x4, y3 - y2), "lid": (x1, y1, x2 - x1, y2 - y1),
                "tuck": (x1, y0, x2 - x1, y1 - y0), "bottom": (x3, y3, x4 - x3, y4 - y3),
                "bottom-tuck": (x3, y4, x4 - x3, y5 - y4)}

    def folds(self) -> list[Seg]:
        _, x1, x2, x3, x4, x5 = self.xs
        _, y1, y2, y3, y4, _ = self.ys
        return [(x1, y2, x1, y3), (x2, y2, x2, y3), (x3, y2, x3, y3), (x4, y2, x4, y3),     # the body's corners
                (x1, y2, x2, y2), (x1, y1, x2, y1),                                      # lid, tuck flap
                (x2, y2, x3, y2), (x4, y2, x5, y2), (x2, y3, x3, y3), (x4, y3, x5, y3),  # dust flaps
                (x3, y3, x4, y3), (x3, y4, x4, y4)]                                      # bottom lid, tuck

    def cuts(self) -> list[Seg]:
        x0, x1, x2, x3, x4, x5 = self.xs
        y0, y1, y2, y3, y4, y5 = self.ys
        taper = min(3.0, (y3 - y2) / 4)
        return [(x1, y2, x0, y2 + taper), (x0, y2 + taper, x0, y3 - taper), (x0, y3 - taper, x1, y3),  # glue tab
                (x1, y2, x1, y0), (x1, y0, x2, y0), (x2, y0, x2, y2),                  # lid and tuck
                (x2, y1, x3, y1), (x3, y1, x3, y2), (x3, y2, x4, y2),                  # dust flap, front's top
                (x4, y2, x4, y1), (x4, y1, x5, y1), (x5, y1, x5, y4),                  # dust flap, free side
                (x5, y4, x4, y4), (x4, y4, x4, y5), (x4, y5, x3, y5), (x3, y5, x3, y3),  # bottom lid and tuck
                (x3, y4, x2, y4), (x2, y4, x2, y3), (x1, y3, x2, y3)]                  # dust flap, back's foot


def net_for(card_w: float, card_h: float, copies: int, o: TuckboxOptions) -> Net:
    """The net of a box for `copies` cards of card_w x card_h mm."""
    return Net(card_w + o.clearance, card_h + o.clearance, copies * o.caliper + o.clearance, o.glue, o.tuck)


class Tuckboxes(Output[TuckboxOptions]):
    name = "tuckboxes"
    summary = "A tuck box for each deck of cards, sized from its cards: a net to cut out and fold."
    files = "tuckboxes-<paper>.pdf"
    default = False
    section = "tuckboxes"

    def make(self, job: Job[TuckboxOptions]) -> None:
        from cardgen.outputs.incremental import fonts_digest

        r = job.rendered
        decks = [d for d in r.game.decks if d.kind == "card" and d.count > 0]
        backs = [r.backs.get((d.slug, None)) for d in decks]
        for paper in job.build.papers:
            part = job.part(paper, [(d.name, d.size, d.count) for d in decks], backs, r.game.title,
                            fonts_digest(r.res.fonts))
            if part.keep():
                continue
            with part:
                data, made, left = tuckboxes_pdf(job, decks, paper)
                job.staging.add(job.out_dir / f"tuckboxes-{paper}.pdf", data)
                job.report.note(f"tuckboxes-{paper}.pdf: {plural(made, 'box', 'boxes')}"
                                + (f"; left out, larger than the paper: {', '.join(left)}" if left else ""))


def tuckboxes_pdf(job: Job[TuckboxOptions], decks: list, paper: str) -> tuple[bytes, int, list[str]]:
    """(the PDF, the boxes in it, the decks left out) of one box a page on `paper`."""
    from reportlab.lib.colors import white

    from cardgen.core.sizes import PAPER_SIZES_MM
    from cardgen.core.units import MM
    from cardgen.render.draw import Drawer, draw_line, new_canvas
    from cardgen.render.formcache import FormCache

    r = job.rendered
    fonts = r.res.fonts
    pw, ph = PAPER_SIZES_MM[paper]
    c = new_canvas(None, fonts, pagesize=(pw * MM, ph * MM))
    c.setTitle(f"{r.game.title}: tuck boxes ({paper})")
    drawer = Drawer(c, fonts, FormCache.of(job.out_dir))
    sides = [s for s in (r.backs.get((d.slug, None)) for d in decks) if s is not None]
    drawer.prepare(sides)
    made, left = 0, []
    for deck in decks:
        net = net_for(deck.size.width, deck.size.height, deck.count, job.options)
        fits = [(w, h) for w, h in ((pw, ph), (ph, pw))
                if net.width <= w - 2 * PAGE_MARGIN and net.height <= h - 2 * PAGE_MARGIN]
        if not fits:
            left.append(deck.name)
            continue
        w, h = fits[0]
        c.setPageSize((w * MM, h * MM))
        ox, oy = (w - net.width) / 2, (h - net.height) / 2        # the net's top-left on the page

        def at(x: float, y: float, ox=ox, oy=oy, h=h) -> tuple[float, float]:
            return (ox + x) * MM, (h - oy - y) * MM

        panels = net.panels()
        back = r.backs.get((deck.slug, None))
        for name in ("front", "back"):
            x, y, pw_, ph_ = panels[name]
            if back is not None:        # the deck's back design, fitted to the panel
                s = min(pw_ * MM / back.width, ph_ * MM / back.height)
                bx, by = at(x + pw_ / 2, y + ph_ / 2)
                c.saveState()
                p = c.beginPath()
                p.rect(*at(x, y + ph_), pw_ * MM, ph_ * MM)
                c.clipPath(p, stroke=0, fill=0)
                c.translate(bx - back.width * s / 2 - back.bleed * s, by - back.height * s / 2 - back.bleed * s)
                c.scale(s, s)
                c.doForm(drawer.card_form(back))
                c.restoreState()
        c.setFillColorRGB(0.1, 0.1, 0.1)
        for name in ("side", "side2", "lid", "bottom"):         # the deck's name, along each narrow face
            x, y, pw_, ph_ = panels[name]
            size = max(5.0, min(12.0, min(pw_, ph_) * MM * 0.45))
            c.saveState()
            c.translate(*at(x + pw_ / 2, y + ph_ / 2))
            if ph_ > pw_:
                c.rotate(90)
            draw_line(c, fonts, deck.name, size, 0, -size * 0.35, centred=True, style="bold")
            c.restoreState()
        c.setStrokeColor(white)
        c.setLineWidth(0.9)
        for seg in net.folds():          # a white line under each fold so the dashes show on the art
            c.line(*at(seg[0], seg[1]), *at(seg[2], seg[3]))
        c.setStrokeColorRGB(0, 0, 0)
        c.setLineWidth(0.5)
        c.setDash(3, 2)
        for seg in net.folds():
            c.line(*at(seg[0], seg[1]), *at(seg[2], seg[3]))
        c.setDash()
        c.setLineWidth(0.6)
        for seg in net.cuts():
            c.line(*at(seg[0], seg[1]), *at(seg[2], seg[3]))
        c.setFillColorRGB(0.35, 0.35, 0.35)
        draw_line(c, fonts, f"{r.game.title} · {deck.name}: a box for {deck.count} cards, inside {net.w:g} x "
                            f"{net.h:g} x {net.d:.1f} mm · cut the solid lines, fold the dashed ones · print at 100 %",
                  6, PAGE_MARGIN * MM, PAGE_MARGIN * MM / 2)
        c.showPage()
        made += 1
    if not made:
        c.showPage()            # a PDF has at least one page
    return c.getpdfdata(), made, left
