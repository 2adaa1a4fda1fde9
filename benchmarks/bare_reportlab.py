"""The yardstick for `cardgen build --only print`: a bare ReportLab script that draws the
same synthetic cards (`synthetic.py`) the way a careful hand-written script would, each card
once as a PDF form placed on duplex sheets (Letter and A4, 3 x 3 poker cards, crop marks,
backs turned for a long-edge flip), with the same fonts and icons embedded.

    python benchmarks/bare_reportlab.py GAME_FOLDER OUT_FOLDER

It does less than cardgen (no validation, no templates, no confinement, no atomic output,
fixed layout, icons in one colour); `bench_incremental.py` times both as whole processes.

Its drawing functions are the TTS benchmark's floor too (`bench_tts.py`: the same functions
draw that benchmark's own cards, `Face` and `Back` saying where and in what colours).
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml
from reportlab.graphics import renderPDF
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas
from svglib.svglib import svg2rlg

DATA = Path(__file__).resolve().parent.parent / "cardgen" / "data"
MM = 72 / 25.4
W, H, B = 63.5 * MM, 88.9 * MM, 3 * MM           # poker, 3 mm bleed
PAPERS = {"letter": (215.9 * MM, 279.4 * MM), "a4": (210 * MM, 297 * MM)}


@dataclass(frozen=True)
class Face:
    """Where and in what colours `card_form` draws a face: mm from the trim's top edge, as in
    the templates; a colour None is the card's own, an icon None the card's `icon`."""

    panel: str = "#faf6ec"
    title: str | None = "#000000"
    title_size: float = 12.0
    title_base: float = 11.0            # the title's baseline
    kind: str = "type"                  # the card's field of the type line
    kind_base: float = 17.0
    kind_colour: str | None = None
    art: str | None = "crystal-ball"
    art_top: float = 21.0
    box: tuple[float, float, float, float] | None = None     # a white box outlined in the card's colour
    text_box: tuple[float, float, float, float] = (6.0, 46.0, 51.5, 34.0)
    text: str = "#000000"
    text_least: float = 6.5


@dataclass(frozen=True)
class Back:
    """What `back_form` draws: a background, an icon (name, mm from the left and top, size)
    or none, a white rounded frame (mm inset) or none, a white title in Vollkorn bold or none."""

    colour: str = "#2d3a5a"
    icon: tuple[str, float, float, float] | None = ("crystal-ball", 16.75, 29.45, 30.0)
    frame: float | None = None
    title: str | None = None
    title_size: float = 20.0


SYNTHETIC = Face(), Back()          # the cards of `synthetic.py`
ICON = re.compile(r":([a-z0-9-]+):")


def rgb(hex_colour: str) -> tuple[float, float, float]:
    h = hex_colour.lstrip("#")
    return int(h[0:2], 16) / 255, int(h[2:4], 16) / 255, int(h[4:6], 16) / 255


def icon_form(c: Canvas, name: str) -> tuple[str, float, float]:
    drawing = svg2rlg(str(DATA / "art" / "icons" / f"{name}.svg"))
    c.beginForm(name, 0, 0, drawing.width, drawing.height)
    renderPDF.draw(drawing, c, 0, 0)
    c.endForm()
    return name, drawing.width, drawing.height


class Icons(dict):
    """The icons drawn into one canvas, each once as a form (`icon_form`), by name."""

    def __init__(self, c: Canvas):
        super().__init__()
        self.c = c

    def __missing__(self, name: str) -> tuple[str, float, float]:
        self[name] = icon_form(self.c, name)
        return self[name]


def place_icon(c: Canvas, icon: tuple[str, float, float], x: float, y: float, size: float) -> None:
    c.saveState()
    c.translate(x, y)
    c.scale(size / icon[1], size / icon[2])
    c.doForm(icon[0])
    c.restoreState()


def wrap(words: list[str], font: str, size: float, width: float) -> list[list[str]]:
    lines: list[list[str]] = [[]]
    used = 0.0
    space = pdfmetrics.stringWidth(" ", font, size)
    for word in words:
        w = size if ICON.fullmatch(word) else pdfmetrics.stringWidth(word, font, size)
        if lines[-1] and used + space + w > width:
            lines.append([])
            used = 0.0
        used += (space if lines[-1] else 0.0) + w
        lines[-1].append(word)
    return lines


def card_form(c: Canvas, n: int, card: dict, face: Face, icons: Icons) -> str:
    name = f"card{n}"
    art = icons[face.art or card["icon"]]
    for inline in ICON.findall(card["text"]):
        icons[inline]                       # (a form is made outside the card's form)
    c.beginForm(name, 0, 0, W + 2 * B, H + 2 * B)
    colour = rgb(card["color"])
    c.setFillColorRGB(*colour)
    c.rect(0, 0, W + 2 * B, H + 2 * B, stroke=0, fill=1)
    c.setFillColorRGB(*rgb(face.panel))
    c.roundRect(B + 3 * MM, B + H - 3 * MM - 82.9 * MM, 57.5 * MM, 82.9 * MM, 2.5 * MM, stroke=0, fill=1)
    c.setFillColorRGB(*(rgb(face.title) if face.title else colour))
    size = face.title_size
    while size > 8 and pdfmetrics.stringWidth(card["name"], "Vollkorn-Bold", size) > 53.5 * MM:
        size -= 0.5
    c.setFont("Vollkorn-Bold", size)
    c.drawCentredString(B + W / 2, B + H - face.title_base * MM, card["name"])
    c.setFillColorRGB(*(rgb(face.kind_colour) if face.kind_colour else colour))
    c.setFont("Lato-Bold", 7)
    c.drawCentredString(B + W / 2, B + H - face.kind_base * MM, card[face.kind].upper())
    place_icon(c, art, B + 21.75 * MM, B + H - (face.art_top + 20) * MM, 20 * MM)
    if face.box:
        x, top, w, h = face.box
        c.setFillColorRGB(1, 1, 1)
        c.setStrokeColorRGB(*colour)
        c.setLineWidth(0.6)
        c.roundRect(B + x * MM, B + H - (top + h) * MM, w * MM, h * MM, 1.5 * MM, stroke=1, fill=1)
    c.setFillColorRGB(*rgb(face.text))
    tx, ty, tw, th = (v * MM for v in face.text_box)
    words, size = card["text"].split(), 9.0
    while True:
        lines = wrap(words, "Lato-Regular", size, tw)
        if len(lines) * size * 1.2 <= th or size <= face.text_least:
            break
        size -= 0.5
    y = B + H - ty - (th - len(lines) * size * 1.2) / 2 - size
    for line in lines:
        parts = ICON.split(" ".join(line))     # text, an icon's name, text, ...
        texts = parts[::2]
        width = sum(pdfmetrics.stringWidth(p, "Lato-Regular", size) for p in texts) + size * (len(texts) - 1)
        x = B + tx + (tw - width) / 2
        t = c.beginText(x, y)
        t.setFont("Lato-Regular", size)
        for i, part in enumerate(texts):
            if i:
                place_icon(c, icons[parts[2 * i - 1]], x, y - size * 0.2, size)
                x += size
                t.setTextOrigin(x, y)
            t.textOut(part)
            x += pdfmetrics.stringWidth(part, "Lato-Regular", size)
        c.drawText(t)
        y -= size * 1.2
    c.endForm()
    return name


def back_form(c: Canvas, back: Back, icons: Icons, title: str = "") -> str:
    icon = icons[back.icon[0]] if back.icon else None
    c.beginForm("back", 0, 0, W + 2 * B, H + 2 * B)
    c.setFillColorRGB(*rgb(back.colour))
    c.rect(0, 0, W + 2 * B, H + 2 * B, stroke=0, fill=1)
    if icon and back.icon:
        _, x, top, size = back.icon
        place_icon(c, icon, B + x * MM, B + H - (top + size) * MM, size * MM)
    if back.frame is not None:
        c.setStrokeColorRGB(1, 1, 1)
        c.setLineWidth(1)
        f = back.frame * MM
        c.roundRect(B + f, B + f, W - 2 * f, H - 2 * f, 2.5 * MM, stroke=1, fill=0)
    if title:
        c.setFillColorRGB(1, 1, 1)
        c.setFont("Vollkorn-Bold", back.title_size)
        c.drawCentredString(B + W / 2, B + H / 2 - back.title_size * 0.35, title)
    c.endForm()
    return "back"


def sheets(cards: list[dict], paper: str, out: Path) -> None:
    pw, ph = PAPERS[paper]
    c = Canvas(str(out / f"print-{paper}.pdf"), pagesize=(pw, ph), invariant=1, pageCompression=1)
    icons = Icons(c)
    face, back_design = SYNTHETIC
    forms = [card_form(c, n, card, face, icons) for n, card in enumerate(cards)]
    back = back_form(c, back_design, icons)
    x0, y0 = (pw - 3 * W) / 2, (ph - 3 * H) / 2
    for start in range(0, len(forms), 9):
        page = forms[start:start + 9]
        for side in ("face", "back"):
            for i, form in enumerate(page):
                row, col = divmod(i, 3)
                if side == "back":
                    col = 2 - col                     # long-edge flip: columns mirrored
                x, y = x0 + col * W, ph - y0 - (row + 1) * H
                c.saveState()
                p = c.beginPath()
                p.rect(x, y, W, H)
                c.clipPath(p, stroke=0, fill=0)
                c.translate(x - B, y - B)
                c.doForm(form if side == "face" else back)
                c.restoreState()
            c.setLineWidth(0.3)
            for k in range(4):                        # crop marks in the margins
                for xx in (x0 + k * W,):
                    c.line(xx, ph - y0 + 2 * MM, xx, ph - y0 + 7 * MM)
                    c.line(xx, y0 - 7 * MM, xx, y0 - 2 * MM)
                for yy in (y0 + k * H,):
                    c.line(x0 - 7 * MM, yy, x0 - 2 * MM, yy)
                    c.line(pw - x0 + 2 * MM, yy, pw - x0 + 7 * MM, yy)
            c.showPage()
    c.save()


def register_fonts() -> None:
    for name in ("Vollkorn-Bold", "Lato-Regular", "Lato-Bold"):
        pdfmetrics.registerFont(TTFont(name, str(DATA / "fonts" / f"{name}.ttf")))


def read_cards(deck: Path) -> list[dict]:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(deck.read_text(encoding="utf-8"), Loader=loader)["cards"]


def main() -> None:
    game, out = Path(sys.argv[1]), Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    register_fonts()
    cards = read_cards(game / "deck.yaml")
    for paper in PAPERS:
        sheets(cards, paper, out)


if __name__ == "__main__":
    main()
