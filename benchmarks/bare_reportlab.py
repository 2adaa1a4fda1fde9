"""The yardstick for `cardgen build --only print`: a bare ReportLab script that draws the
same synthetic cards (`synthetic.py`) the way a careful hand-written script would, each card
once as a PDF form placed on duplex sheets (Letter and A4, 3 x 3 poker cards, crop marks,
backs turned for a long-edge flip), with the same fonts and icons embedded.

    python benchmarks/bare_reportlab.py GAME_FOLDER OUT_FOLDER

It does less than cardgen (no validation, no templates, no confinement, no atomic output,
fixed layout, icons in one colour); `bench_incremental.py` times both as whole processes.
"""
from __future__ import annotations

import sys
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


def rgb(hex_colour: str) -> tuple[float, float, float]:
    h = hex_colour.lstrip("#")
    return int(h[0:2], 16) / 255, int(h[2:4], 16) / 255, int(h[4:6], 16) / 255


def icon_form(c: Canvas, name: str) -> tuple[str, float, float]:
    drawing = svg2rlg(str(DATA / "art" / "icons" / f"{name}.svg"))
    c.beginForm(name, 0, 0, drawing.width, drawing.height)
    renderPDF.draw(drawing, c, 0, 0)
    c.endForm()
    return name, drawing.width, drawing.height


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
        w = size if word == ":coins:" else pdfmetrics.stringWidth(word, font, size)
        if lines[-1] and used + space + w > width:
            lines.append([])
            used = 0.0
        used += (space if lines[-1] else 0.0) + w
        lines[-1].append(word)
    return lines


def card_form(c: Canvas, n: int, card: dict, crystal, coins) -> str:
    name = f"card{n}"
    c.beginForm(name, 0, 0, W + 2 * B, H + 2 * B)
    colour = rgb(card["color"])
    c.setFillColorRGB(*colour)
    c.rect(0, 0, W + 2 * B, H + 2 * B, stroke=0, fill=1)
    c.setFillColorRGB(0.98, 0.965, 0.925)
    c.roundRect(B + 3 * MM, B + H - 3 * MM - 82.9 * MM, 57.5 * MM, 82.9 * MM, 2.5 * MM, stroke=0, fill=1)
    c.setFillColorRGB(0, 0, 0)
    size = 12.0
    while size > 8 and pdfmetrics.stringWidth(card["name"], "Vollkorn-Bold", size) > 53.5 * MM:
        size -= 0.5
    c.setFont("Vollkorn-Bold", size)
    c.drawCentredString(B + W / 2, B + H - 11 * MM, card["name"])
    c.setFillColorRGB(*colour)
    c.setFont("Lato-Bold", 7)
    c.drawCentredString(B + W / 2, B + H - 17 * MM, card["type"].upper())
    place_icon(c, crystal, B + 21.75 * MM, B + H - 41 * MM, 20 * MM)
    c.setFillColorRGB(0, 0, 0)
    words, size = card["text"].split(), 9.0
    while True:
        lines = wrap(words, "Lato-Regular", size, 51.5 * MM)
        if len(lines) * size * 1.2 <= 34 * MM or size <= 6.5:
            break
        size -= 0.5
    y = B + H - 46 * MM - (34 * MM - len(lines) * size * 1.2) / 2 - size
    space = pdfmetrics.stringWidth(" ", "Lato-Regular", size)
    for line in lines:
        parts = " ".join(line).split(":coins:")
        width = sum(pdfmetrics.stringWidth(p, "Lato-Regular", size) for p in parts) + size * (len(parts) - 1)
        x = B + 6 * MM + (51.5 * MM - width) / 2
        t = c.beginText(x, y)
        t.setFont("Lato-Regular", size)
        for i, part in enumerate(parts):
            if i:
                place_icon(c, coins, x, y - size * 0.2, size)
                x += size
                t.setTextOrigin(x, y)
            t.textOut(part)
            x += pdfmetrics.stringWidth(part, "Lato-Regular", size)
        c.drawText(t)
        y -= size * 1.2 + 0 * space
    c.endForm()
    return name


def back_form(c: Canvas, crystal) -> str:
    c.beginForm("back", 0, 0, W + 2 * B, H + 2 * B)
    c.setFillColorRGB(*rgb("#2d3a5a"))
    c.rect(0, 0, W + 2 * B, H + 2 * B, stroke=0, fill=1)
    place_icon(c, crystal, B + 16.75 * MM, B + H - 59.45 * MM, 30 * MM)
    c.endForm()
    return "back"


def sheets(cards: list[dict], paper: str, out: Path) -> None:
    pw, ph = PAPERS[paper]
    c = Canvas(str(out / f"print-{paper}.pdf"), pagesize=(pw, ph), invariant=1, pageCompression=1)
    crystal, coins = icon_form(c, "crystal-ball"), icon_form(c, "coins")
    forms = [card_form(c, n, card, crystal, coins) for n, card in enumerate(cards)]
    back = back_form(c, crystal)
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


def main() -> None:
    game, out = Path(sys.argv[1]), Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    for name in ("Vollkorn-Bold", "Lato-Regular", "Lato-Bold"):
        pdfmetrics.registerFont(TTFont(name, str(DATA / "fonts" / f"{name}.ttf")))
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    cards = yaml.load((game / "deck.yaml").read_text(encoding="utf-8"), Loader=loader)["cards"]
    for paper in PAPERS:
        sheets(cards, paper, out)


if __name__ == "__main__":
    main()
