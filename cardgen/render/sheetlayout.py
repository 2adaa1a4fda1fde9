"""Sheet layouts as data: a YAML file names the paper, where the cards go (an automatic grid or
listed positions), how cut lines are marked, whether the sheet folds over, and registration
marks for a cutting machine (declared in `cardgen.schema.layouts`).

A layout is found by name in the game's `layouts/`, then the project's `layouts/`, then the
presets that ship with cardgen (`cardgen/data/layouts/`), always through the confinement of
`cardgen.core.paths`.  `SheetLayout.frame()` turns it into the geometry of one card size's
pages (`impose.Grid` or `impose.Spots`), which the print sheets (`render/pdf.py`) and the
fold-over sheets (`render/foldover.py`) draw.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cardgen.core.data import DATA
from cardgen.core.errors import CardgenError, Diagnostic, Loc
from cardgen.core.paths import PathRefused
from cardgen.core.units import MM
from cardgen.load import refs
from cardgen.load.yamlsrc import YDict, YList, load_file
from cardgen.model.game import Game
from cardgen.render import impose
from cardgen.schema.core import suggest
from cardgen.schema.layouts import CardPosition, SheetLayoutFile

if TYPE_CHECKING:    # (drawn on by the print sheets; `cardgen validate` checks layouts without ReportLab)
    from reportlab.pdfgen.canvas import Canvas

KIND = "layouts"                  # the folder layouts live in (game, project, cardgen's presets)
PRESETS: Path = DATA / KIND
SUFFIXES = (".yaml", ".yml")
EPS = 1e-6
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,79}$")


def preset_names() -> list[str]:
    """The layouts that ship with cardgen."""
    return sorted(p.stem for p in PRESETS.glob("*.yaml"))


def _overlap(a: impose.Rect, b: impose.Rect) -> bool:
    return a[0] < b[0] + b[2] - EPS and b[0] < a[0] + a[2] - EPS and a[1] < b[1] + b[3] - EPS and \
        b[1] < a[1] + a[3] - EPS


def _touch(a: impose.Rect, b: impose.Rect) -> bool:
    """True when the two trims are butted as `impose.slots` takes it (and so clips the bleed
    between them): side by side with their tops level, or one above the other with their left
    edges level."""
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    side = abs(ay - by) < EPS and (abs(ax + aw - bx) < EPS or abs(bx + bw - ax) < EPS)
    stacked = abs(ax - bx) < EPS and (abs(ay + ah - by) < EPS or abs(by + bh - ay) < EPS)
    return side or stacked


def _grow(r: impose.Rect, d: float) -> impose.Rect:
    return (r[0] - d, r[1] - d, r[2] + 2 * d, r[3] + 2 * d)


class LayoutProblem(Exception):
    """A layout that cannot hold the cards given it: one located message."""

    def __init__(self, loc: Loc, message: str) -> None:
        super().__init__(message)
        self.loc = loc
        self.message = message

    def error(self) -> CardgenError:
        return CardgenError(self.loc, self.message, code="layout")


@dataclass(frozen=True)
class Zone:
    """Where a registration mark is: the square of side `length` its corner mark sits in."""

    name: str
    rect: impose.Rect


@dataclass(frozen=True)
class SheetLayout:
    """A loaded, checked layout file."""

    name: str
    file: Path
    spec: SheetLayoutFile
    data: YDict

    # -- what it says -------------------------------------------------------------------------
    @property
    def paper_w(self) -> float:
        return self.spec.paper.width

    @property
    def paper_h(self) -> float:
        return self.spec.paper.height

    @property
    def foldover(self) -> bool:
        return self.spec.fold != "none"

    @property
    def fold_at(self) -> float:
        """The fold line: x (vertical fold) or y (horizontal fold), mm; the paper's middle."""
        return self.paper_w / 2 if self.spec.fold == "vertical" else self.paper_h / 2

    @property
    def fold_flip(self) -> str:
        """Folding over a vertical line turns the backs as a long-edge duplex flip does on a
        portrait page (mirrored left-right); over a horizontal line as a short-edge flip."""
        return "long" if self.spec.fold == "vertical" else "short"

    def loc(self, key: str | None = None) -> Loc:
        if key is None or key not in self.data:
            return self.data.loc
        return self.data.value_loc(key)

    # -- registration marks -------------------------------------------------------------------
    def zones(self) -> list[Zone]:
        """The three registration marks' squares (empty without registration marks)."""
        reg = self.spec.registration
        if reg is None:
            return []
        i, n, w, h = reg.inset, reg.length, self.paper_w, self.paper_h
        return [Zone("top-left", (i, i, n, n)), Zone("top-right", (w - i - n, i, n, n)),
                Zone("bottom-left", (i, h - i - n, n, n))]

    def scan_area(self) -> impose.Rect | None:
        """Inside the registration marks, clear of their squares (by `clearance`): the rectangle
        an automatic grid fills on a cutting-machine layout."""
        reg = self.spec.registration
        if reg is None:
            return None
        top = reg.inset + reg.length + reg.clearance
        left = reg.inset + reg.clearance
        return (left, top, self.paper_w - 2 * left, self.paper_h - 2 * top)

    # -- geometry -----------------------------------------------------------------------------
    def grid_area(self, bleed: float) -> impose.Rect | None:
        """Where an automatic grid's cards, bleed included, go: `area`, or inside the registration
        marks, or the front half of a fold-over sheet; None: the paper less `margin` (the plain
        grid)."""
        s = self.spec
        area: impose.Rect | None = None
        if s.area is not None:
            area = (s.area.x, s.area.y, s.area.width, s.area.height)
        elif s.registration is not None:
            area = self.scan_area()
        if not self.foldover or s.area is not None:
            return area
        # the front half: the trims `margin` inside the paper and `fold_gap` from the fold, so the
        # bled block may reach `bleed` further
        m, f, g = s.margin - bleed, self.fold_at, s.fold_gap - bleed
        half = (m, m, f - g - m, self.paper_h - 2 * m) if s.fold == "vertical" else \
            (m, m, self.paper_w - 2 * m, f - g - m)
        if area is None:
            return half
        x0, y0 = max(area[0], half[0]), max(area[1], half[1])
        x1 = min(area[0] + area[2], half[0] + half[2])
        y1 = min(area[1] + area[3], half[1] + half[3])
        return (x0, y0, max(x1 - x0, 0.0), max(y1 - y0, 0.0))

    def frame(self, card_w: float, card_h: float, bleed: float, gutter: bool, who: str) -> impose.Frame:
        """Where the cards of one size (`who`, for messages) go on each page.  Raises
        `LayoutProblem` (at the layout file) or `impose.DoesNotFit`."""
        s = self.spec
        if s.card is not None and (abs(s.card.width - card_w) > 0.01 or abs(s.card.height - card_h) > 0.01):
            raise LayoutProblem(self.loc("card"), f"layout '{self.name}' is for {s.card.label} cards, but {who} "
                                                  f"is {card_w:g}x{card_h:g} mm; use a layout for that size or "
                                                  f"one with `card: any`")
        if self.foldover and s.fold_gap < bleed - EPS:
            raise LayoutProblem(self.loc("fold_gap"), f"layout '{self.name}': `fold_gap` ({s.fold_gap:g} mm) is "
                                                      f"less than the bleed of {who} ({bleed:g} mm); the fronts' "
                                                      f"and backs' bleeds would overlap at the fold")
        frame: impose.Frame
        if s.cards == "grid":
            frame = impose.plan_grid(self.paper_w, self.paper_h, card_w, card_h, bleed,
                                     gutter or s.spacing == "gutter", s.margin, self.grid_area(bleed))
            if s.registration is not None:      # one arrangement on every page: one cut file fits all
                frame = _fixed(frame)
        else:
            frame = self._spots(card_w, card_h, bleed, who)
        self._check_clear(frame, who)
        return frame

    def _spots(self, card_w: float, card_h: float, bleed: float, who: str) -> impose.Spots:
        places = tuple((p.x, p.y, p.rotate) for p in self.spec.cards)
        spots = impose.Spots(self.paper_w, self.paper_h, card_w, card_h, bleed, places)
        rects = [spots.rect(i) for i in range(spots.per_page)]
        touching = False
        for i, a in enumerate(rects):
            for j in range(i):
                b = rects[j]
                if _touch(a, b):
                    touching = True
                elif _overlap(_grow(a, bleed), b) or _overlap(_grow(b, bleed), a) or \
                        _overlap(_grow(a, bleed), _grow(b, bleed)):
                    raise LayoutProblem(self._item_loc(i), f"layout '{self.name}': card position {i + 1} is closer "
                                                           f"to position {j + 1} than two bleeds of {who} "
                                                           f"({2 * bleed:g} mm): butt them or space them further "
                                                           f"apart, so no card's bleed lies on another")
        return impose.Spots(self.paper_w, self.paper_h, card_w, card_h, bleed, places, gutter=not touching)

    def _item_loc(self, i: int) -> Loc:
        cards = self.data.get("cards")
        return cards.item_loc(i) if isinstance(cards, YList) else self.loc("cards")

    def _check_clear(self, frame: impose.Frame, who: str) -> None:
        """Every card, bleed included, inside the registration marks and clear of their squares."""
        reg = self.spec.registration
        if reg is None:
            return
        c = reg.clearance
        left, top = reg.inset + c, reg.inset + c
        right, bottom = self.paper_w - reg.inset - c, self.paper_h - reg.inset - c
        where = "area" if self.spec.area is not None else "cards" if self.spec.cards != "grid" else "registration"
        for slot in impose.slots(frame, frame.per_page):
            bx, by, bw, bh = _grow((slot.x, slot.y, slot.w, slot.h), frame.bleed)
            if bx < left - EPS or by < top - EPS or bx + bw > right + EPS or by + bh > bottom + EPS:
                raise LayoutProblem(self.loc(where), f"layout '{self.name}': a card of {who} at {slot.x:g},{slot.y:g} "
                                                     f"mm reaches outside the registration marks (with its bleed and "
                                                     f"the {c:g} mm clearance); the machine cannot cut it there")
            for z in self.zones():
                if _overlap(_grow(z.rect, c), (bx, by, bw, bh)):
                    raise LayoutProblem(self.loc(where), f"layout '{self.name}': a card of {who} at "
                                                         f"{slot.x:g},{slot.y:g} mm comes within {c:g} mm of the "
                                                         f"{z.name} registration mark; the sensor would misread it")


def _fixed(grid: impose.Grid) -> impose.Spots:
    """A grid's places as fixed positions: different backs then go on pages of their own rather
    than onto a gutter grid (`render.backs`), so every page of a size has the same arrangement."""
    turn = 90 if grid.rotated else 0
    w, h = (grid.card_h, grid.card_w) if grid.rotated else (grid.card_w, grid.card_h)
    places = tuple((*grid.cell(i), turn) for i in range(grid.per_page))
    return impose.Spots(grid.paper_w, grid.paper_h, w, h, grid.bleed, places, gutter=grid.gutter)


# -- finding and loading ----------------------------------------------------------------------

def find_layout(name: str, game: Game) -> Path:
    """The file of layout `name`: the game's `layouts/`, the project's, then the presets.
    Raises LayoutProblem (at game.yaml) when there is none."""
    where = Loc(str(game.file), 1)
    if not _NAME.match(name):
        raise LayoutProblem(where, f"layout '{name[:80]}' is not a layout name: a layout is named by its file in "
                                   f"layouts/, without .yaml (presets: {', '.join(preset_names())})")
    try:
        path = refs.find(name, game.search_dirs(KIND), game.roots, "layout", suffixes=SUFFIXES).path
    except PathRefused as exc:
        raise LayoutProblem(where, str(exc)) from None
    if path is None:
        known = sorted({p.stem for d in game.search_dirs(KIND) if d.is_dir() for p in d.iterdir()
                        if p.suffix in SUFFIXES})
        raise LayoutProblem(where, f"no layout '{name}'{suggest(name, known)}: none in {game.root.name}/layouts/, "
                                   f"the project's layouts/ or the presets ({', '.join(preset_names())})")
    return path


def load_layout(path: Path, name: str | None = None) -> SheetLayout:
    """Read and check a layout file; raises CardgenError with every problem, each at its
    file:line:col."""
    name = name or path.stem
    data = load_file(path)
    fallback = Loc(str(path), 1)
    if data is None or not isinstance(data, YDict):
        raise CardgenError(getattr(data, "loc", fallback), f"layout '{name}' must be a mapping with at least "
                                                           f"`paper:` (see docs/printing.md)", code="layout")
    diags = SheetLayoutFile.diagnostics(data, f"layout '{name}'", fallback)
    if diags:
        raise CardgenError(None, diagnostics=diags)
    layout = SheetLayout(name, path, SheetLayoutFile.load_unchecked(data), data)
    problems = _problems(layout)
    if problems:
        raise CardgenError(None, diagnostics=problems)
    return layout


def resolve(name: str, game: Game) -> SheetLayout:
    """Find and load layout `name` for `game`; CardgenError when it is missing or broken."""
    try:
        return load_layout(find_layout(name, game), name)
    except LayoutProblem as exc:
        raise exc.error() from None


def _problems(layout: SheetLayout) -> list[Diagnostic]:
    """What the declaration alone cannot see: positions on the paper, in the fold's front half,
    not overlapping; an area on the paper."""
    s, name = layout.spec, layout.name
    out: list[Diagnostic] = []
    w, h = layout.paper_w, layout.paper_h

    def err(loc: Loc, message: str) -> None:
        out.append(Diagnostic(loc, f"layout '{name}': {message}", "error", "layout"))

    limit_w, limit_h = w, h
    half = ""
    if layout.foldover:
        edge = layout.fold_at - s.fold_gap
        if s.fold == "vertical":
            limit_w, half = edge, f"left of the fold less `fold_gap`: x + width <= {edge:g} mm"
        else:
            limit_h, half = edge, f"above the fold less `fold_gap`: y + height <= {edge:g} mm"
    if s.area is not None:
        a = s.area
        if a.x + a.width > limit_w + EPS or a.y + a.height > limit_h + EPS:
            err(layout.loc("area"), f"`area` reaches past the {'front half' if half else 'paper'} "
                                    f"({half or f'{w:g}x{h:g} mm'})")
    if isinstance(s.cards, tuple):
        if s.card is None:
            err(layout.loc("cards"), "`cards:` lists positions, which need `card:` to name the card size they are "
                                     "for (not any)")
            return out
        cw, ch = s.card.width, s.card.height
        rects: list[impose.Rect] = []
        for i, p in enumerate(s.cards):
            assert isinstance(p, CardPosition)
            pw, ph = (ch, cw) if p.rotate in (90, -90) else (cw, ch)
            r = (p.x, p.y, pw, ph)
            loc = layout._item_loc(i)
            if p.x + pw > limit_w + EPS or p.y + ph > limit_h + EPS:
                err(loc, f"card position {i + 1} ({p.x:g},{p.y:g} mm, {pw:g}x{ph:g} mm as placed) reaches past the "
                         f"{'front half' if half else 'paper'} ({half or f'{w:g}x{h:g} mm'})")
            for j, other in enumerate(rects):
                if _overlap(r, other):
                    err(loc, f"card position {i + 1} overlaps position {j + 1}")
                    break
            rects.append(r)
    return out


def layout_diagnostics(names: list[tuple[str, Loc]], game: Game, what: str) -> list[Diagnostic]:
    """Every problem of the named layouts (missing, broken), for `cardgen validate`; `what`
    says which kind the output wants (fold-over or not)."""
    out: list[Diagnostic] = []
    for name, loc in names:
        try:
            layout = load_layout(find_layout(name, game), name)
        except LayoutProblem as exc:
            out.append(Diagnostic(loc, exc.message, "error", "layout"))
            continue
        except CardgenError as exc:
            out.extend(exc.diagnostics)
            continue
        problem = kind_problem(layout, what)
        if problem:
            out.append(Diagnostic(loc, problem, "error", "layout"))
    return out


def kind_problem(layout: SheetLayout, what: str) -> str | None:
    """Why `layout` does not suit an output that makes `what` sheets ("foldover" or "duplex")."""
    if what == "foldover" and not layout.foldover:
        return (f"layout '{layout.name}' has no fold (`fold: none`): it makes duplex sheets; name it under "
                f"`print: layout:` instead")
    if what == "duplex" and layout.foldover:
        return (f"layout '{layout.name}' is a fold-over layout (`fold: {layout.spec.fold}`); name it under "
                f"`foldover: layout:` instead")
    return None


# -- drawing what a layout adds to a page ------------------------------------------------------

def draw_registration(c: Canvas, layout: SheetLayout) -> None:
    """The marks a cutting machine's sensor finds: a filled square at the top-left, and L-shaped
    corner marks (two bars of `thickness`) at the top-right and bottom-left, each mark's outer
    edges `inset` from the paper's edges."""
    reg = layout.spec.registration
    if reg is None:
        return
    w, h = layout.paper_w, layout.paper_h
    i, n, t, q = reg.inset, reg.length, reg.thickness, reg.square
    bars = [(i, i, q, q),                                        # the square
            (w - i - n, i, n, t), (w - i - t, i, t, n),          # top-right: along the top, down the right
            (i, h - i - t, n, t), (i, h - i - n, t, n)]          # bottom-left: along the bottom, up the left
    c.saveState()
    c.setFillColorRGB(0, 0, 0)
    for x, y, bw, bh in bars:
        c.rect(x * MM, (h - y - bh) * MM, bw * MM, bh * MM, stroke=0, fill=1)
    c.restoreState()


def draw_cut_lines(c: Canvas, paper_w: float, paper_h: float, page_slots: list[impose.Slot]) -> None:
    """`crop_marks: lines`: every cut line across the printable sheet, drawn before the cards
    so they show only between and around them."""
    xs = sorted({round(v, 4) for s in page_slots for v in (s.x, s.x + s.w)})
    ys = sorted({round(v, 4) for s in page_slots for v in (s.y, s.y + s.h)})
    lo = impose.UNPRINTABLE
    c.saveState()
    c.setStrokeColorRGB(0, 0, 0)
    c.setLineWidth(0.3)
    for x in xs:
        c.line(x * MM, (paper_h - lo) * MM, x * MM, lo * MM)
    for y in ys:
        c.line(lo * MM, (paper_h - y) * MM, (paper_w - lo) * MM, (paper_h - y) * MM)
    c.restoreState()


FOLD_DASH = (3.0, 2.0)      # mm on, mm off
FOLD_LABEL = "fold"


def fold_segments(layout: SheetLayout, page_slots: list[impose.Slot], bleed: float) -> list[tuple[float, float]]:
    """The stretches (from, to along the line, mm) of the fold line drawn on a page: from the
    printable edge to the printable edge, never over a card or its bleed."""
    lo, vertical = impose.UNPRINTABLE, layout.spec.fold == "vertical"
    end = (layout.paper_h if vertical else layout.paper_w) - lo
    f = layout.fold_at
    blocked = []
    for s in page_slots:
        x, y, w, h = _grow((s.x, s.y, s.w, s.h), bleed)
        if vertical and x - EPS <= f <= x + w + EPS:
            blocked.append((y, y + h))
        elif not vertical and y - EPS <= f <= y + h + EPS:
            blocked.append((x, x + w))
    out, at = [], lo
    for a, b in sorted(blocked):
        if a > at:
            out.append((at, a))
        at = max(at, b)
    if at < end:
        out.append((at, end))
    return out


def draw_fold(c: Canvas, layout: SheetLayout, page_slots: list[impose.Slot], bleed: float, font: str,
              label: str = FOLD_LABEL) -> None:
    """The fold line, dashed, and the word `fold` (`label`) on it in the margins at both ends."""
    vertical, f = layout.spec.fold == "vertical", layout.fold_at
    w, h = layout.paper_w, layout.paper_h
    size = 6.0
    half_label = c.stringWidth(label, font, size) / MM / 2 + 1.0
    label_at = [impose.UNPRINTABLE + 2.5, (h if vertical else w) - impose.UNPRINTABLE - 2.5]
    c.saveState()
    c.setStrokeColorRGB(0.35, 0.35, 0.35)
    c.setFillColorRGB(0.35, 0.35, 0.35)
    c.setLineWidth(0.5)
    c.setDash([d * MM for d in FOLD_DASH])
    for a, b in fold_segments(layout, page_slots, bleed):
        pieces = [(a, b)]
        for at in label_at:                 # the line stops around each label
            pieces = [p for lo, hi in pieces for p in ((lo, min(hi, at - half_label)), (max(lo, at + half_label), hi))
                      if p[1] - p[0] > 0.5]
        for lo, hi in pieces:
            if vertical:
                c.line(f * MM, (h - lo) * MM, f * MM, (h - hi) * MM)
            else:
                c.line(lo * MM, (h - f) * MM, hi * MM, (h - f) * MM)
    c.setFont(font, size)
    for at in label_at:
        c.saveState()
        if vertical:
            c.translate(f * MM, (h - at) * MM)
        else:
            c.translate(at * MM, (h - f) * MM)
            c.rotate(90)
        c.drawCentredString(0, -size * 0.35, label)
        c.restoreState()
    c.restoreState()


# -- cut lines for a cutting machine ---------------------------------------------------------

def cut_svg(layout: SheetLayout, frame: impose.Frame, round_cards: bool | str = False, path: tuple = ()) -> bytes:
    """The cut lines of one page arrangement as an SVG the size of the paper, in mm from its
    top-left: every card's trim (a circle for round tokens, a hexagon for hex pieces, a path
    piece's `path` outline: pass the shape), and nothing else (the cutting software makes its
    own registration marks).  Same input, same bytes."""
    from cardgen.model import svgpath
    from cardgen.model.components import HEXES, outline
    from cardgen.render.outlines import placed

    shape = "round" if round_cards is True else (round_cards or "rect")
    w, h = layout.paper_w, layout.paper_h
    shapes = []
    for i, s in enumerate(impose.slots(frame, frame.per_page), 1):
        if shape == "round":
            shapes.append(f'  <circle id="card-{i}" cx="{s.x + s.w / 2:.3f}" cy="{s.y + s.h / 2:.3f}" '
                          f'r="{min(s.w, s.h) / 2:.3f}"/>')
        elif shape in HEXES:
            turned = {"hex-flat": "hex-pointy", "hex-pointy": "hex-flat"}[shape] if s.rotation in (90, -90) \
                else shape
            points = " ".join(f"{x:.3f},{y:.3f}" for x, y in outline(turned, s.x, s.y, s.w, s.h))
            shapes.append(f'  <polygon id="card-{i}" points="{points}"/>')
        elif shape == "path":
            d = svgpath.to_d(svgpath.mapped(path, placed(s.x, s.y, s.w, s.h, s.rotation)))
            shapes.append(f'  <path id="card-{i}" d="{d}"/>')
        else:
            shapes.append(f'  <rect id="card-{i}" x="{s.x:.3f}" y="{s.y:.3f}" width="{s.w:.3f}" height="{s.h:.3f}"/>')
    return ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{w:g}mm" height="{h:g}mm" viewBox="0 0 {w:g} {h:g}">\n'
            f"  <title>cut lines: layout {_xml(layout.name)}, {frame.per_page} cards of "
            f"{frame.card_w:g}x{frame.card_h:g} mm</title>\n"
            '  <g fill="none" stroke="#ff0000" stroke-width="0.1">\n'
            + "\n".join("  " + s for s in shapes) + "\n  </g>\n</svg>\n").encode("utf-8")


def _xml(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
