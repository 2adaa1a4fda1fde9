"""Read back where things were placed on PDF pages: form placements, clips and lines."""
from __future__ import annotations

from dataclasses import dataclass

from pypdf import PdfReader
from pypdf.generic import ContentStream

MM = 72 / 25.4


def _mul(a, b):
    a0, a1, a2, a3, a4, a5 = a
    b0, b1, b2, b3, b4, b5 = b
    return (a0 * b0 + a1 * b2, a0 * b1 + a1 * b3, a2 * b0 + a3 * b2, a2 * b1 + a3 * b3,
            a4 * b0 + a5 * b2 + b4, a4 * b1 + a5 * b3 + b5)


@dataclass
class Placement:
    name: str
    x: float      # form origin on the page, mm from the left
    y: float      # form origin, mm from the bottom
    bbox: tuple   # form BBox in points
    clip: tuple | None  # (x, y, w, h) in mm from bottom-left
    matrix: tuple = (1, 0, 0, 1, 0, 0)   # the full placement matrix (points)

    def center(self) -> tuple[float, float]:
        """Centre of the placed form (its BBox), in mm from the page's bottom-left."""
        x0, y0, x1, y1 = self.bbox
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        a, b, c, d, e, f = self.matrix
        return (cx * a + cy * c + e) / MM, (cx * b + cy * d + f) / MM


@dataclass
class Segment:
    x1: float
    y1: float
    x2: float
    y2: float
    width: float  # line width in pt
    gray: float   # stroke gray level (0 black)


def pdf_entry(obj, key: str):
    """`obj[key]` resolved (pypdf 4 leaves an indirect reference where later ones resolve it), or {}."""
    value = obj.get(key)
    return value.get_object() if value is not None else {}


def page_items(reader: PdfReader, index: int):
    page = reader.pages[index]
    xobjects = pdf_entry(page["/Resources"], "/XObject")
    ops = ContentStream(page.get_contents(), reader).operations
    ctm = (1, 0, 0, 1, 0, 0)
    stack = []
    clip = None
    pending_rect = None
    path = []
    lw = 1.0
    gray = 0.0
    placements, segments = [], []
    for operands, op in ops:
        op = op.decode() if isinstance(op, bytes) else op
        if op == "q":
            stack.append((ctm, clip, lw, gray))
        elif op == "Q":
            ctm, clip, lw, gray = stack.pop()
        elif op == "cm":
            ctm = _mul(tuple(float(v) for v in operands), ctm)
        elif op == "re":
            x, y, w, h = (float(v) for v in operands)
            pending_rect = (x, y, w, h)
            path = []
        elif op in ("W", "W*"):
            if pending_rect:
                x, y, w, h = pending_rect
                clip = ((x * ctm[0] + ctm[4]) / MM, (y * ctm[3] + ctm[5]) / MM, w * ctm[0] / MM, h * ctm[3] / MM)
        elif op == "n":
            pending_rect = None
        elif op == "w":
            lw = float(operands[0])
        elif op == "RG":
            gray = sum(float(v) for v in operands) / 3
        elif op == "m":
            path = [(float(operands[0]), float(operands[1]))]
        elif op == "l":
            path.append((float(operands[0]), float(operands[1])))
        elif op == "S" and len(path) == 2:
            (x1, y1), (x2, y2) = path
            segments.append(Segment((x1 * ctm[0] + ctm[4]) / MM, (y1 * ctm[3] + ctm[5]) / MM,
                                    (x2 * ctm[0] + ctm[4]) / MM, (y2 * ctm[3] + ctm[5]) / MM, lw, gray))
            path = []
        elif op == "Do":
            name = str(operands[0])
            xo = xobjects[name].get_object()
            bbox = tuple(float(v) for v in xo["/BBox"])
            placements.append(Placement(name, ctm[4] / MM, ctm[5] / MM, bbox, clip, ctm))
    return placements, segments


@dataclass
class StrokedPath:
    """A path stroked on a page: its subpaths' points (curve control points too), in mm from
    the page's bottom-left, and its curves as (start, c1, c2, end)."""

    points: list
    curves: list
    width: float        # line width in pt
    gray: float
    space: str = ""     # the stroke's colour space as the page names it (`CS`), "" for a device colour
    overprint: bool = False     # stroked with overprint on (`/OP true` in the graphics state)


def stroked_paths(reader: PdfReader, index: int) -> list[StrokedPath]:
    """Every path of more than one segment stroked on page `index` (`m`, `l`, `c`, `h`, then `S`),
    one per subpath, the current transformation applied."""
    page = reader.pages[index]
    ops = ContentStream(page.get_contents(), reader).operations
    ctm = (1, 0, 0, 1, 0, 0)
    stack = []
    lw, gray, space, op_on = 1.0, 0.0, "", False
    states = pdf_entry(page.get("/Resources") or {}, "/ExtGState")
    subpaths: list = []
    out = []

    def at(x, y):
        return ((x * ctm[0] + y * ctm[2] + ctm[4]) / MM, (x * ctm[1] + y * ctm[3] + ctm[5]) / MM)

    for operands, op in ops:
        op = op.decode() if isinstance(op, bytes) else op
        v = [float(o) for o in operands] if op in ("m", "l", "c", "cm", "w") else None
        if op == "q":
            stack.append((ctm, lw, gray, space, op_on))
        elif op == "Q":
            ctm, lw, gray, space, op_on = stack.pop()
        elif op in ("CS", "K", "G"):
            space = str(operands[0]) if op == "CS" else ""
        elif op == "gs":
            op_on = bool(states[operands[0]].get_object().get("/OP", op_on))
        elif op == "cm":
            ctm = _mul(tuple(v), ctm)
        elif op == "w":
            lw = v[0]
        elif op == "RG":
            gray, space = sum(float(o) for o in operands) / 3, ""
        elif op == "m":
            subpaths.append(([at(*v)], []))
        elif op == "l" and subpaths:
            subpaths[-1][0].append(at(*v))
        elif op == "c" and subpaths:
            start = subpaths[-1][0][-1]
            pts = [at(v[0], v[1]), at(v[2], v[3]), at(v[4], v[5])]
            subpaths[-1][1].append((start, *pts))
            subpaths[-1][0].extend(pts)
        elif op in ("S", "s"):
            out += [StrokedPath(p, c, lw, gray, space, op_on) for p, c in subpaths if len(p) > 2]
            subpaths = []
        elif op in ("n", "f", "f*", "B", "b"):      # a path filled or ended unpainted (a clip)
            subpaths = []
    return out


@dataclass
class ImagePlacement:
    """An image drawn on a page (inside the forms that place it too): its pixels, where its
    unit square lands and the rectangle it is clipped to, in mm from the page's bottom-left
    (axis-aligned drawings: no rotation)."""

    width: int          # its pixels (/Width, /Height)
    height: int
    rect: tuple         # (x, y, w, h) mm
    clip: tuple | None  # (x, y, w, h) mm, the last rectangle clipped to


def image_placements(reader: PdfReader, index: int) -> list[ImagePlacement]:
    """Every image page `index` draws, through the forms it places (their /Matrix applied)."""
    out: list[ImagePlacement] = []

    def walk(content, resources, ctm, clip) -> None:
        xobjects = pdf_entry(resources or {}, "/XObject")
        stack, pending = [], None
        for operands, op in ContentStream(content, reader).operations:
            op = op.decode() if isinstance(op, bytes) else op
            if op == "q":
                stack.append((ctm, clip))
            elif op == "Q":
                ctm, clip = stack.pop()
            elif op == "cm":
                ctm = _mul(tuple(float(v) for v in operands), ctm)
            elif op == "re":
                x, y, w, h = (float(v) for v in operands)
                pending = ((x * ctm[0] + ctm[4]) / MM, (y * ctm[3] + ctm[5]) / MM, w * ctm[0] / MM, h * ctm[3] / MM)
            elif op in ("W", "W*") and pending is not None:
                clip = pending
            elif op == "Do":
                xo = xobjects[str(operands[0])].get_object()
                if xo.get("/Subtype") == "/Image":
                    out.append(ImagePlacement(int(xo["/Width"]), int(xo["/Height"]),
                                              (ctm[4] / MM, ctm[5] / MM, ctm[0] / MM, ctm[3] / MM), clip))
                elif xo.get("/Subtype") == "/Form":
                    matrix = tuple(float(v) for v in xo.get("/Matrix", (1, 0, 0, 1, 0, 0)))
                    walk(xo, xo.get("/Resources"), _mul(matrix, ctm), clip)

    page = reader.pages[index]
    walk(page.get_contents(), page.get("/Resources"), (1, 0, 0, 1, 0, 0), None)
    return out
