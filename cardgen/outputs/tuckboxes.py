"""`tuckboxes-<paper>.pdf`: a tuck box for each deck of cards, sized from its cards, as a net to
cut out and fold (docs/components.md#tuck-boxes).

The box's inside is the card plus `clearance` each way, and as deep as the deck's copies times
`caliper` plus `clearance`.  The net (a reverse tuck end box) is, across its middle: a glue tab,
the back, a side, the front, a side; above the back the lid and its tuck flap, above each side
a dust flap; below the front the bottom lid and its tuck flap, below the sides their dust
flaps (as deep as the box, never longer than the box is wide).  Cut lines are solid, fold lines
dashed.  The faces are laid out by a template (`basic/tuckbox`, or the game's own: `template`),
one panel at a time, over the deck's back design on the front and back.  One box a page,
turned landscape when only that fits; a box too large for the paper in one piece is cut in two
(`Net.halves`: the front and its side apart, with a second glue tab), both on one page when
they fit, else a page each; only a box whose halves do not fit either is left out, and said.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field, replace
from typing import Any

from cardgen.core.errors import plural
from cardgen.core.words import ENGLISH, Words
from cardgen.outputs.base import Job, Output
from cardgen.schema.core import Bool, Decl, Length, Text, opt

Seg = tuple[float, float, float, float]     # x1, y1, x2, y2 in mm from the part's top-left
Rect = tuple[float, float, float, float]    # x, y, w, h in mm
PAGE_MARGIN = 6.0                           # mm: the net stays this far inside the paper
GAP = 6.0                                   # mm between the two halves of a box on one page
TEMPLATE = "basic/tuckbox"
# the faces laid out by the template, and the panel each lies on ("lying": laid out with the
# box's height across, turned a quarter on the net)
FACES = {"front": "front", "back": "back", "side": "side", "side2": "side", "lid": "lid", "bottom": "bottom"}
LYING = ("side", "side2")
# what to do with each piece of a box in two pieces (`cardgen.core.words` has them in other languages)
PIECE_1 = "piece 1 of 2: glue its right tab inside the front's left edge (piece 2)"
PIECE_2 = "piece 2 of 2: the front; glue piece 1's left tab inside this side's free edge"


@dataclass(frozen=True, kw_only=True)
class TuckboxOptions(Decl):
    """game.yaml's `tuckboxes:` section."""

    __what__ = "tuck box options"

    caliper: float = opt(Length(min=0.1, max=2, to="mm"), "one card's thickness: 0.33 mm unsleeved, about 0.40 mm "
                                                          "in thin sleeves, 0.53 mm in thick ones", 0.33,
                         default_doc="0.33 mm")
    clearance: float = opt(Length(min=0, max=10, to="mm"), "room added to the card's width, height and the stack's "
                                                           "depth", 2.0, default_doc="2 mm")
    tuck: float = opt(Length(min=5, max=40, to="mm"), "the tuck flap folded into the box under each lid", 15.0,
                      default_doc="15 mm")
    glue: float = opt(Length(min=5, max=20, to="mm"), "the glue tab", 8.0, default_doc="8 mm")
    thumb_notch: float = opt(Length(min=0, max=40, to="mm"), "the diameter of the half-round notch cut into the "
                                                             "front's top edge to pull the cards out by (0: none; "
                                                             "never wider than half the box)", 12.5,
                             default_doc="12.5 mm")
    tokens: bool = opt(Bool(), "also a box for each token and tile file, its pieces standing on edge in a row like "
                               "cards (a pool of counters)", False)
    token_thickness: float = opt(Length(min=0.1, max=10, to="mm"), "one token's or tile's thickness, for `tokens`: "
                                                                   "about 2 mm for card glued on 1.5 mm board", 2.0,
                                 default_doc="2 mm")
    template: str = opt(Text(nonempty=True), "the template that lays out the box's faces (front, back, sides, lid, "
                                             "bottom: `card.panel`)", TEMPLATE)


@dataclass(frozen=True)
class Part:
    """One piece of card of a net: its size, its faces (x, y, w, h), its folds and cuts, in mm
    from its top-left."""

    width: float
    height: float
    panels: dict[str, Rect]
    folds: list[Seg]
    cuts: list[Seg]
    label: str = ""          # what to do with it, for a box in two pieces


@dataclass(frozen=True)
class Net:
    """A tuck box's net: the box's inside (`w` x `h` x `d`), the flaps, and every line."""

    w: float
    h: float
    d: float
    glue: float
    tuck: float
    notch: float = 0.0      # the thumb notch's diameter (0: none)

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
    def flap(self) -> float:
        """A dust flap's length: the box's depth, but no longer than the box is wide (folded in
        across the opening, it must not reach the far wall)."""
        return min(self.d, self.w)

    @property
    def width(self) -> float:
        return self.xs[-1]

    @property
    def height(self) -> float:
        return self.ys[-1]

    def _taper(self) -> float:
        return min(3.0, self.h / 4)

    def _front_top(self, x: float, y: float) -> list[Seg]:
        """The front's top edge from (x, y), `w` long: a straight cut, or with the thumb notch in
        its middle, a half circle cut down into the front (in 24 chords; no wider than half the
        box and never deeper than a quarter of its height)."""
        r = min(self.notch, self.w / 2, self.h / 2) / 2
        if r <= 0:
            return [(x, y, x + self.w, y)]
        cx, n = x + self.w / 2, 24
        arc = [(cx - r * math.cos(math.pi * i / n), y + r * math.sin(math.pi * i / n)) for i in range(n + 1)]
        chords = [(a[0], a[1], b[0], b[1]) for a, b in itertools.pairwise(arc)]
        return [(x, y, cx - r, y), *chords, (cx + r, y, x + self.w, y)]

    def whole(self) -> Part:
        """The net in one piece."""
        x0, x1, x2, x3, x4, x5 = self.xs
        y0, y1, y2, y3, y4, y5 = self.ys
        yt, yb, tp = y2 - self.flap, y3 + self.flap, self._taper()
        panels = {"glue": (x0, y2, x1 - x0, y3 - y2), "back": (x1, y2, x2 - x1, y3 - y2),
                  "side": (x2, y2, x3 - x2, y3 - y2), "front": (x3, y2, x4 - x3, y3 - y2),
                  "side2": (x4, y2, x5 - x4, y3 - y2), "lid": (x1, y1, x2 - x1, y2 - y1),
                  "tuck": (x1, y0, x2 - x1, y1 - y0), "bottom": (x3, y3, x4 - x3, y4 - y3),
                  "bottom-tuck": (x3, y4, x4 - x3, y5 - y4)}
        folds = [(x1, y2, x1, y3), (x2, y2, x2, y3), (x3, y2, x3, y3), (x4, y2, x4, y3),     # the body's corners
                 (x1, y2, x2, y2), (x1, y1, x2, y1),                                      # lid, tuck flap
                 (x2, y2, x3, y2), (x4, y2, x5, y2), (x2, y3, x3, y3), (x4, y3, x5, y3),  # dust flaps
                 (x3, y3, x4, y3), (x3, y4, x4, y4)]                                      # bottom lid, tuck
        cuts = [(x1, y2, x0, y2 + tp), (x0, y2 + tp, x0, y3 - tp), (x0, y3 - tp, x1, y3),  # glue tab
                (x1, y2, x1, y0), (x1, y0, x2, y0), (x2, y0, x2, y2),                  # lid and tuck
                (x2, yt, x3, yt), (x3, yt, x3, y2), *self._front_top(x3, y2),          # dust flap, front's top
                (x4, y2, x4, yt), (x4, yt, x5, yt), (x5, yt, x5, yb),                  # dust flap, free side
                (x5, yb, x4, yb),                                                      # its lower dust flap
                (x4, y3, x4, y5), (x4, y5, x3, y5), (x3, y5, x3, y3),                  # bottom lid and tuck (apart
                #                                                                        from the flaps beside it)
                (x3, yb, x2, yb), (x2, yb, x2, y3), (x1, y3, x2, y3)]                  # dust flap, back's foot
        return Part(self.width, self.height, panels, folds, cuts)

    def halves(self) -> tuple[Part, Part]:
        """The net in two pieces, cut apart between the first side and the front: (1) the glue
        tab, the back with its lid, the first side and a second glue tab; (2) the front with
        its bottom lid and the second side.  Tab 1 glues inside the second side's free edge,
        tab 2 inside the front's left edge."""
        g, w, d, t, h, f = self.glue, self.w, self.d, self.tuck, self.h, self.flap
        x0, x1, x2, x3, x4 = 0.0, g, g + w, g + w + d, g + w + d + g
        y0, y1, y2, y3 = 0.0, t, t + d, t + d + h
        yt, yb, tp = y2 - f, y3 + f, self._taper()
        one = Part(x4, yb, {"glue": (x0, y2, g, h), "back": (x1, y2, w, h), "side": (x2, y2, d, h),
                            "glue2": (x3, y2, g, h), "lid": (x1, y1, w, d), "tuck": (x1, y0, w, t)},
                   [(x1, y2, x1, y3), (x2, y2, x2, y3), (x3, y2, x3, y3), (x1, y2, x2, y2), (x1, y1, x2, y1),
                    (x2, y2, x3, y2), (x2, y3, x3, y3)],
                   [(x1, y2, x0, y2 + tp), (x0, y2 + tp, x0, y3 - tp), (x0, y3 - tp, x1, y3),
                    (x1, y2, x1, y0), (x1, y0, x2, y0), (x2, y0, x2, y2),
                    (x2, yt, x3, yt), (x3, yt, x3, y2),
                    (x3, y2, x4, y2 + tp), (x4, y2 + tp, x4, y3 - tp), (x4, y3 - tp, x3, y3),
                    (x3, y3, x3, yb), (x3, yb, x2, yb), (x2, yb, x2, y3), (x1, y3, x2, y3)],
                   PIECE_1)
        v1, v2, v3, v4 = f, f + h, f + h + d, f + h + d + t     # piece 2's rows: flap, front, bottom lid, tuck
        two = Part(w + d, v4, {"front": (0.0, v1, w, h), "side2": (w, v1, d, h), "bottom": (0.0, v2, w, d),
                               "bottom-tuck": (0.0, v3, w, t)},
                   [(w, v1, w, v2), (w, v1, w + d, v1), (w, v2, w + d, v2), (0.0, v2, w, v2), (0.0, v3, w, v3)],
                   [(0.0, v1, 0.0, v4), *self._front_top(0.0, v1),
                    (w, v1, w, 0.0), (w, 0.0, w + d, 0.0), (w + d, 0.0, w + d, v2 + f),
                    (w + d, v2 + f, w, v2 + f), (w, v2, w, v4), (w, v4, 0.0, v4)],
                   PIECE_2)
        return one, two


def net_for(card_w: float, card_h: float, copies: int, o: TuckboxOptions, thickness: float | None = None) -> Net:
    """The net of a box for `copies` cards of card_w x card_h mm (each `thickness` thick, else
    `o.caliper`)."""
    each = o.caliper if thickness is None else thickness
    return Net(card_w + o.clearance, card_h + o.clearance, copies * each + o.clearance, o.glue, o.tuck,
               o.thumb_notch)


def deck_net(deck: Any, o: TuckboxOptions) -> Net:
    """The net of a deck's box: cards at `caliper`, tokens and tiles at `token_thickness`."""
    return net_for(deck.size.width, deck.size.height, deck.count, o,
                   None if deck.kind == "card" else o.token_thickness)


def boxed(decks: list, o: TuckboxOptions) -> list:
    """The decks that get a box: every deck of cards; with `tokens`, every token and tile file."""
    kinds = ("card", "token", "tile") if o.tokens else ("card",)
    return [d for d in decks if d.kind in kinds and d.count > 0]


@dataclass
class Sheet:
    """A page of the tuck box file: its size (mm, as it lies) and the parts on it, each at
    (x, y) from the page's top-left."""

    width: float
    height: float
    parts: list[tuple[Part, float, float]] = field(default_factory=list)


def sheets_for(net: Net, pw: float, ph: float) -> list[Sheet]:
    """How a box goes on paper pw x ph mm: the whole net on one page (portrait, else landscape),
    else its two halves side by side on one page, else one a page; [] when a half does not fit."""
    room = [(pw, ph), (ph, pw)]

    def fits(w: float, h: float, page: tuple[float, float]) -> bool:
        return w <= page[0] - 2 * PAGE_MARGIN + 1e-9 and h <= page[1] - 2 * PAGE_MARGIN + 1e-9

    whole = net.whole()
    for page in room:
        if fits(whole.width, whole.height, page):
            return [Sheet(*page, [(whole, (page[0] - whole.width) / 2, (page[1] - whole.height) / 2)])]
    one, two = net.halves()
    side_by_side = one.width + GAP + two.width
    for page in room:
        if fits(side_by_side, max(one.height, two.height), page):
            x = (page[0] - side_by_side) / 2
            return [Sheet(*page, [(one, x, (page[1] - one.height) / 2),
                                  (two, x + one.width + GAP, (page[1] - two.height) / 2)])]
    out = []
    for part in (one, two):
        found = next((p for p in room if fits(part.width, part.height, p)), None)
        if found is None:
            return []
        out.append(Sheet(*found, [(part, (found[0] - part.width) / 2, (found[1] - part.height) / 2)]))
    return out


class Tuckboxes(Output[TuckboxOptions]):
    summary = "A tuck box for each deck of cards, sized from its cards: a net to cut out and fold."
    files = "tuckboxes-<paper>.pdf"

    def make(self, job: Job[TuckboxOptions]) -> None:
        from cardgen.model.ops import layout_digest
        from cardgen.outputs.incremental import fonts_digest
        from cardgen.resources.fonts import font_files

        r = job.rendered
        decks = boxed(r.game.decks, job.options)
        if not decks:
            return
        backs = [r.backs.get((d.slug, None)) for d in decks]
        faces = panel_faces(job, decks)
        files = font_files()
        for paper in job.build.papers:
            part = job.part(paper, [(d.name, d.size, d.count) for d in decks],
                            [layout_digest(b, files) if b is not None else "" for b in backs],
                            [{k: layout_digest(v, files) for k, v in f.items()} for f in faces],
                            r.game.title, fonts_digest(r.res.fonts))
            if part.keep():
                continue
            with part:
                data, made, halved, left = tuckboxes_pdf(job, decks, faces, paper)
                job.staging.add(job.out_dir / f"tuckboxes-{paper}.pdf", data)
                job.report.note(f"tuckboxes-{paper}.pdf: {plural(made, 'box', 'boxes')}"
                                + (f"; in two pieces: {', '.join(halved)}" if halved else "")
                                + (f"; left out, larger than the paper: {', '.join(left)}" if left else ""))


def panel_faces(job: Job[TuckboxOptions], decks: list) -> list[dict[str, Any]]:
    """Each deck's box faces laid out by the tuck box template: {panel: CardLayout}."""
    from cardgen.core.sizes import CardSize
    from cardgen.layout.engine import Layouter
    from cardgen.model.game import Card

    r, o = job.rendered, job.options
    lay = Layouter(r.res, job.report)
    loc = job.option_loc("template")
    keep: list = []             # the panels' decks live as long as the layouter (it keys them by id)
    out = []
    for deck in decks:
        net = deck_net(deck, o)
        sizes = {"front": (net.w, net.h), "back": (net.w, net.h), "side": (net.h, net.d),
                 "lid": (net.w, net.d), "bottom": (net.w, net.d)}
        art = r.backs.get((deck.slug, None)) is not None
        faces = {}
        for i, (panel, (w, h)) in enumerate(sizes.items()):
            fields = {"name": f"{deck.name} box {panel}", "panel": panel, "copies": deck.count, "art": art,
                      "unit": r.game.words.noun(deck.count, deck.kind)}
            card = Card(fields["name"], deck.count, fields, deck.loc, i, deck.data)
            pdeck = replace(deck, size=CardSize(w, h), template=o.template, template_loc=loc, back=None, backs=None,
                            back_loc=None, bleed=0.0, cards=[card], slug=f"{deck.slug}-box-{panel}")
            keep.append(pdeck)
            faces[panel] = lay.card_side(pdeck, card, "face")
        out.append(faces)
    return out


def tuckboxes_pdf(job: Job[TuckboxOptions], decks: list, faces: list[dict[str, Any]],
                  paper: str) -> tuple[bytes, int, list[str], list[str]]:
    """(the PDF, the boxes in it, the decks whose box is in two pieces, the decks left out) on
    `paper`: each box on a page of its own (or two)."""
    from cardgen.core.sizes import PAPER_SIZES_MM
    from cardgen.core.units import MM
    from cardgen.render.draw import Drawer, new_canvas
    from cardgen.render.formcache import FormCache

    r = job.rendered
    fonts = r.res.fonts
    pw, ph = PAPER_SIZES_MM[paper]
    c = new_canvas(None, fonts, pagesize=(pw * MM, ph * MM))
    words = r.game.words
    c.setTitle(f"{r.game.title}: {words('tuck boxes')} ({paper})")
    drawer = Drawer(c, fonts, FormCache.of(job.out_dir))
    sides = [s for s in (r.backs.get((d.slug, None)) for d in decks) if s is not None]
    drawer.prepare(sides + [f for box in faces for f in box.values()])
    made, halved, left = 0, [], []
    for deck, box in zip(decks, faces):
        net = deck_net(deck, job.options)
        pages = sheets_for(net, pw, ph)
        if not pages:
            left.append(deck.name)
            continue
        if len(pages) > 1 or len(pages[0].parts) > 1:
            halved.append(deck.name)
        for sheet in pages:
            c.setPageSize((sheet.width * MM, sheet.height * MM))
            for part, ox, oy in sheet.parts:
                _draw_part(c, drawer, part, ox, oy, sheet.height, r.backs.get((deck.slug, None)), box, words)
            box_for = words("a box for {count}, inside {w} x {h} x {d} mm", count=words.count(deck.count, deck.kind),
                            w=f"{net.w:g}", h=f"{net.h:g}", d=f"{net.d:.1f}")
            _note(c, fonts, sheet, f"{r.game.title} · {deck.title}: {box_for} · "
                                   f"{words('cut the solid lines, fold the dashed ones')} · {words('print at 100 %')}")
            c.showPage()
        made += 1
    if not made:
        c.showPage()            # a PDF has at least one page
    return c.getpdfdata(), made, halved, left


def _draw_part(c: Any, drawer: Any, part: Part, ox: float, oy: float, page_h: float, back: Any,
               faces: dict[str, Any], words: Words = ENGLISH) -> None:
    """One piece of a net at (ox, oy) mm from the page's top-left: the deck's back design on
    the front and back, the template's faces, then the folds (dashed) and the cuts."""
    from reportlab.lib.colors import white

    from cardgen.core.units import MM
    from cardgen.render.draw import draw_line

    def at(x: float, y: float) -> tuple[float, float]:
        return (ox + x) * MM, (page_h - oy - y) * MM

    for name, (x, y, w, h) in part.panels.items():
        if name in ("front", "back") and back is not None:       # the deck's back design, fitted to the panel
            s = min(w * MM / back.width, h * MM / back.height)
            bx, by = at(x + w / 2, y + h / 2)
            c.saveState()
            p = c.beginPath()
            p.rect(*at(x, y + h), w * MM, h * MM)
            c.clipPath(p, stroke=0, fill=0)
            c.translate(bx - back.width * s / 2 - back.bleed * s, by - back.height * s / 2 - back.bleed * s)
            c.scale(s, s)
            c.doForm(drawer.card_form(back))
            c.restoreState()
        face = faces.get(FACES.get(name, ""))
        if face is None:
            continue
        c.saveState()
        if name in LYING:                # laid out with the box's height across: turned a quarter
            c.translate(*at(x + w, y + h))
            c.rotate(90)
        elif name == "lid":              # folded forward over the top: upright to one facing the front
            c.translate(*at(x + w, y))
            c.rotate(180)
        else:
            c.translate(*at(x, y + h))
        c.doForm(drawer.card_form(face))
        c.restoreState()
    c.setFillColorRGB(0.35, 0.35, 0.35)
    for tab in ("glue", "glue2"):       # (a box in two pieces: which tab goes where)
        if part.label and tab in part.panels:
            gx, gy, gw, gh = part.panels[tab]
            c.saveState()
            c.translate(*at(gx + gw / 2, gy + gh / 2))
            c.rotate(90)
            draw_line(c, drawer.fonts, words("glue: inside the side's edge" if tab == "glue" else
                                             "glue: inside the front"), 5, 0, -1.75, centred=True)
            c.restoreState()
    if part.label:
        draw_line(c, drawer.fonts, words(part.label), 5, *at(0, part.height + 3))
    c.setStrokeColor(white)
    c.setLineWidth(0.9)
    for seg in part.folds:          # a white line under each fold so the dashes show on the art
        c.line(*at(seg[0], seg[1]), *at(seg[2], seg[3]))
    c.setStrokeColorRGB(0, 0, 0)
    c.setLineWidth(0.5)
    c.setDash(3, 2)
    for seg in part.folds:
        c.line(*at(seg[0], seg[1]), *at(seg[2], seg[3]))
    c.setDash()
    c.setLineWidth(0.6)
    for seg in part.cuts:
        c.line(*at(seg[0], seg[1]), *at(seg[2], seg[3]))


def _note(c: Any, fonts: Any, sheet: Sheet, text: str) -> None:
    from cardgen.core.units import MM
    from cardgen.render.draw import draw_line

    c.setFillColorRGB(0.35, 0.35, 0.35)
    draw_line(c, fonts, text, 6, PAGE_MARGIN * MM, PAGE_MARGIN * MM / 2)
