"""Draw laid-out cards on a ReportLab canvas.

Each distinct card side becomes one PDF form XObject, drawn once and placed as often
as the card has copies; icons and SVG art are forms too, shared by every card.
"""
from __future__ import annotations

from pathlib import Path

from reportlab.graphics import renderPDF, shapes
from reportlab.lib.colors import Color
from reportlab.pdfgen.canvas import Canvas

from cardgen import ops, rlcompat  # noqa: F401  (rlcompat patches ReportLab)
from cardgen.fonts import DEFAULT_FAMILY, FontBook
from cardgen.icons import load_svg
from cardgen.units import MM

_BLACK = (0.0, 0.0, 0.0)


def new_canvas(target, fonts: FontBook, pagesize=(595.0, 842.0), **kw) -> Canvas:
    """A canvas that embeds only our own fonts and writes byte-identical output."""
    base = fonts.face(DEFAULT_FAMILY if fonts.has(DEFAULT_FAMILY) else next(iter(fonts.families)), "regular")
    # svglib's renderer sets its default font on every drawing: point it at an embedded one.
    shapes.STATE_DEFAULTS["fontName"] = base.name
    c = Canvas(target, pagesize=pagesize, invariant=1, initialFontName=base.name, pageCompression=1, **kw)
    c.setCreator("cardgen")
    c.setProducer("cardgen")
    return c


def _recolor(node, rgb):
    """Copy of an svglib drawing with its black fills and strokes replaced by `rgb`."""
    import copy

    node = copy.deepcopy(node)

    def walk(n):
        for attr in ("fillColor", "strokeColor"):
            col = getattr(n, attr, None)
            if col is not None and hasattr(col, "red") and (col.red, col.green, col.blue) == _BLACK:
                setattr(n, attr, Color(*rgb))
        for child in getattr(n, "contents", []) or []:
            walk(child)

    walk(node)
    return node


class Drawer:
    def __init__(self, canvas: Canvas, fonts: FontBook):
        self.c = canvas
        self.fonts = fonts
        self.forms: dict = {}
        self._n = 0

    def _name(self, prefix: str) -> str:
        self._n += 1
        return f"{prefix}{self._n}"

    # -- shared forms ---------------------------------------------------------
    def vector_form(self, path: Path, rgb=None) -> tuple[str, float, float]:
        key = ("svg", Path(path), rgb)
        hit = self.forms.get(key)
        if hit:
            return hit
        drawing = load_svg(path)
        if rgb is not None:
            drawing = _recolor(drawing, rgb)
        name = self._name("v")
        w, h = float(drawing.width), float(drawing.height)
        self.c.beginForm(name, 0, 0, w, h)
        renderPDF.draw(drawing, self.c, 0, 0)
        self.c.endForm()
        self.forms[key] = (name, w, h)
        return self.forms[key]

    def _prepare(self, layout: ops.CardLayout) -> None:
        """Forms used inside a card form must exist before the card form begins."""
        for op in layout.ops:
            if isinstance(op, ops.Icon) and op.path.suffix.lower() == ".svg":
                self.vector_form(op.path, op.color[:3] if op.color else None)
            elif isinstance(op, ops.Image) and op.path.suffix.lower() == ".svg":
                self.vector_form(op.path)
            elif isinstance(op, ops.Text):
                for r in op.runs:
                    if r.kind == "icon" and Path(r.content).suffix.lower() == ".svg":
                        self.vector_form(r.content, r.color[:3] if r.color else None)

    def card_form(self, layout: ops.CardLayout) -> str:
        """The form for one card side (made on first use)."""
        key = ("card", id(layout))
        hit = self.forms.get(key)
        if hit:
            return hit[0]
        self._prepare(layout)
        name = self._name("card")
        B = layout.bleed
        self.c.beginForm(name, 0, 0, layout.width + 2 * B, layout.height + 2 * B)
        self.draw_ops(layout, B, B + layout.height)
        self.c.endForm()
        self.forms[key] = (name, layout)  # keep layout alive so id() stays unique
        return name

    # -- operations -------------------------------------------------------------
    def draw_ops(self, layout: ops.CardLayout, ox: float, oy: float) -> None:
        """Draw a layout with its trim top-left at (ox, oy) in canvas coordinates."""
        for op in layout.ops:
            rot = getattr(op, "rotate", 0.0)
            if rot:
                bx, by, bw, bh = _bounds(op)
                cx, cy = ox + bx + bw / 2, oy - by - bh / 2
                self.c.saveState()
                self.c.translate(cx, cy)
                self.c.rotate(rot)
                self.c.translate(-cx, -cy)
            self._op(op, ox, oy)
            if rot:
                self.c.restoreState()

    def _fill(self, col):
        self.c.setFillColorRGB(*col[:3])
        if len(col) > 3 and col[3] < 1:
            self.c.setFillAlpha(col[3])

    def _stroke(self, col, width, dash):
        self.c.setStrokeColorRGB(*col[:3])
        if len(col) > 3 and col[3] < 1:
            self.c.setStrokeAlpha(col[3])
        self.c.setLineWidth(width)
        self.c.setDash(list(dash) if dash else [])

    def _op(self, op, ox, oy):
        c = self.c
        if isinstance(op, (ops.Rect, ops.Ellipse)):
            c.saveState()
            if op.fill:
                self._fill(op.fill)
            if op.stroke:
                self._stroke(op.stroke, op.stroke_width, op.dash)
            x, y = ox + op.x, oy - op.y - op.h
            if isinstance(op, ops.Ellipse):
                c.ellipse(x, y, x + op.w, y + op.h, stroke=1 if op.stroke else 0, fill=1 if op.fill else 0)
            elif op.radius > 0:
                c.roundRect(x, y, op.w, op.h, op.radius, stroke=1 if op.stroke else 0, fill=1 if op.fill else 0)
            else:
                c.rect(x, y, op.w, op.h, stroke=1 if op.stroke else 0, fill=1 if op.fill else 0)
            c.restoreState()
        elif isinstance(op, ops.Line):
            c.saveState()
            self._stroke(op.stroke, op.stroke_width, op.dash)
            c.line(ox + op.x1, oy - op.y1, ox + op.x2, oy - op.y2)
            c.restoreState()
        elif isinstance(op, ops.Text):
            self._text(op, ox, oy)
        elif isinstance(op, ops.Icon):
            self._icon(op.path, ox + op.x, oy - op.y - op.h, op.w, op.h, op.color)
        elif isinstance(op, ops.Image):
            c.saveState()
            if op.clip:
                x, y, w, h = op.clip
                p = c.beginPath()
                p.rect(ox + x, oy - y - h, w, h)
                c.clipPath(p, stroke=0, fill=0)
            if op.path.suffix.lower() == ".svg":
                name, fw, fh = self.vector_form(op.path)
                c.translate(ox + op.x, oy - op.y - op.h)
                c.scale(op.w / fw, op.h / fh)
                c.doForm(name)
            else:
                c.drawImage(str(op.path), ox + op.x, oy - op.y - op.h, op.w, op.h, mask="auto")
            c.restoreState()
        elif isinstance(op, ops.Placeholder):
            self._placeholder(op, ox, oy)

    def _icon(self, path, x, y, w, h, color):
        c = self.c
        if Path(path).suffix.lower() == ".svg":
            name, fw, fh = self.vector_form(path, color[:3] if color else None)
            c.saveState()
            c.translate(x, y)
            c.scale(w / fw, h / fh)
            c.doForm(name)
            c.restoreState()
        else:
            c.drawImage(str(path), x, y, w, h, mask="auto", preserveAspectRatio=True)

    def _text(self, op: ops.Text, ox, oy):
        c = self.c
        cur_font = cur_color = None
        for r in op.runs:
            if r.kind == "icon":
                self._icon(r.content, ox + r.x, oy - r.baseline, r.size, r.size, r.color)
                continue
            if (r.font, r.size) != cur_font:
                c.setFont(r.font, r.size)
                cur_font = (r.font, r.size)
            if r.color != cur_color:
                self._fill(r.color or (0, 0, 0, 1))
                cur_color = r.color
            c.drawString(ox + r.x, oy - r.baseline, r.content)

    def _placeholder(self, op: ops.Placeholder, ox, oy):
        c = self.c
        x, y = ox + op.x, oy - op.y - op.h
        c.saveState()
        c.setFillColorRGB(0.94, 0.94, 0.94)
        c.setStrokeColorRGB(0.55, 0.55, 0.55)
        c.setLineWidth(0.6)
        c.setDash([3, 2])
        c.rect(x, y, op.w, op.h, stroke=1, fill=1)
        c.setDash([])
        c.setLineWidth(0.3)
        c.line(x, y, x + op.w, y + op.h)
        c.line(x, y + op.h, x + op.w, y)
        face = self.fonts.face(DEFAULT_FAMILY if self.fonts.has(DEFAULT_FAMILY) else None, "italic")
        size = max(6.0, min(9.0, op.h / 4))
        tw = self.fonts.width(op.label, face.name, size)
        pad = 2
        c.setFillColorRGB(0.94, 0.94, 0.94)
        c.rect(x + (op.w - tw) / 2 - pad, y + op.h / 2 - size * 0.45 - pad, tw + 2 * pad, size + 2 * pad,
               stroke=0, fill=1)
        c.setFillColorRGB(0.3, 0.3, 0.3)
        c.setFont(face.name, size)
        c.drawCentredString(x + op.w / 2, y + op.h / 2 - size * 0.3, op.label)
        c.restoreState()


def _bounds(op):
    if isinstance(op, ops.Image) and op.box:
        return op.box
    return op.x, op.y, op.w, op.h


def mm(v: float) -> float:
    return v * MM
