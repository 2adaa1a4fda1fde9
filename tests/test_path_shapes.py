"""Tokens of any shape (`shape: path`, docs/components.md#path-shapes): the cut line traced on
the print sheets, the CutContour die line and the cutting machine's SVG follow the path within
0.1 mm, front and (mirrored) back; the art is clipped to the path grown by the bleed; a bad
path is a located error."""
from __future__ import annotations

import math
import re
import textwrap

import pytest
from conftest import REPO, write
from pdfgeom import stroked_paths
from pypdf import PdfReader

from cardgen.core.errors import CardgenError, Report
from cardgen.model import svgpath
from cardgen.pipeline.build import BuildOptions, build_game
from cardgen.render.outlines import placed

B = 3.175
PH = 279.4
# a flag: not symmetric either way, with an arc and a hole
FLAG = "M 0 0 L 24 0 L 17 9 L 24 18 A 4 4 0 0 1 20 22 L 0 22 Z M 4 6 h 5 v 5 h -5 z"
TOKEN = """
    elements:
      - {name: bg, type: rect, box: bleed, fill: "#2a6e3a"}
"""


def flags(tmp_path, path: str = FLAG, extra: str = "", svg: str | None = None):
    root = tmp_path / "g"
    write(root / "game.yaml", "title: Flags\n")
    write(root / "templates" / "t" / "token.yaml", TOKEN)
    if svg is not None:
        write(root / "shapes" / "flag.svg", svg)
    write(root / "flags.yaml", textwrap.dedent(f"""\
        deck: Flags
        kind: token
        shape: path
        path: "{path}"
        template: t/token
        backs: t/token
        {extra}
        cards:
          - {{name: Flag, count: 3}}
        """))
    return root


def build(root, tmp_path, only=("print",), **outputs):
    out = tmp_path / "out"
    build_game(root, REPO, BuildOptions(out=out, only=only, papers=("letter",), outputs=outputs), Report())
    return out / root.name


def polyline(path) -> list[list[tuple[float, float]]]:
    return svgpath.polygons(path, 0.001)


def distance(p, polys) -> float:
    """From p to the nearest edge of any of the polygons."""
    best = math.inf
    for poly in polys:
        for a, b in zip(poly, poly[1:] + poly[:1]):
            ax, ay, bx, by = *a, *b
            L = (bx - ax) ** 2 + (by - ay) ** 2
            t = 0.0 if L == 0 else max(0.0, min(1.0, ((p[0] - ax) * (bx - ax) + (p[1] - ay) * (by - ay)) / L))
            best = min(best, math.dist(p, (ax + t * (bx - ax), ay + t * (by - ay))))
    return best


def traced_points(sp, y_flip: float | None):
    """Points along a stroked path (its vertices and its curves sampled), y down when `y_flip`
    (the page's height) is given."""
    controls = {p for c in sp.curves for p in c[1:3]}
    pts = [p for p in sp.points if p not in controls]
    for c in sp.curves:
        for t in (0.25, 0.5, 0.75):
            u = 1 - t
            pts.append(tuple(u ** 3 * c[0][k] + 3 * u * u * t * c[1][k] + 3 * u * t * t * c[2][k] + t ** 3 * c[3][k]
                             for k in (0, 1)))
    return [(x, y_flip - y) if y_flip is not None else (x, y) for x, y in pts]


def lie(subpaths, path, y_flip):
    """How the traced subpaths (one piece's) lie on `path` moved to their box, upright or turned
    by a quarter or a half turn: (the largest error in mm, the rotation, where the path's point
    (px, py) is on the page) of the best."""
    return lie_points([p for sp in subpaths for p in traced_points(sp, y_flip)], path)


def lie_points(pts, path):
    x0, y0 = min(x for x, _ in pts), min(y for _, y in pts)
    w, h = svgpath.bounds(path)[2:]
    found = []
    for rotation in (0, 90, -90, 180):
        bw, bh = (h, w) if rotation in (90, -90) else (w, h)
        polys = polyline(svgpath.mapped(path, placed(0, 0, bw, bh, rotation)))
        found.append((max(distance((x - x0, y - y0), polys) for x, y in pts), rotation,
                      placed(x0, y0, bw, bh, rotation)))
    return min(found, key=lambda f: f[0])


def match(subpaths, path, y_flip) -> float:
    return lie(subpaths, path, y_flip)[0]


def pieces_of(paths):
    """Stroked subpaths grouped per piece: the outer one with the hole inside it."""
    outer = [p for p in paths if len(p.points) > 5]
    holes = [p for p in paths if len(p.points) <= 5]
    out = []
    for o in outer:
        xs, ys = [x for x, _ in o.points], [y for _, y in o.points]
        inside = [h for h in holes if min(xs) < h.points[0][0] < max(xs) and min(ys) < h.points[0][1] < max(ys)]
        out.append([o, *inside])
    return out


@pytest.fixture(scope="module")
def sheets(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("flags")
    return build(flags(tmp), tmp, only=("print", "pdfx"))


def test_the_cut_line_on_the_sheet_follows_the_path_front_and_mirrored_back(sheets):
    reader = PdfReader(sheets / "print-letter.pdf")
    path = svgpath.parse(FLAG)
    for page, want in ((0, path), (1, svgpath.mirrored(path, 24))):
        cuts = [p for p in stroked_paths(reader, page) if abs(p.width - 0.4) < 1e-6]
        placed = pieces_of(cuts)
        assert len(placed) == 3 and all(len(p) == 2 for p in placed)          # the outline and its hole
        for piece in placed:
            assert match(piece, want, PH) < 0.1
            other = svgpath.mirrored(want, 24)
            assert match(piece, other, PH) > 1                                  # (the test tells them apart)


def test_the_art_is_clipped_to_the_path_grown_by_the_bleed(sheets):
    import pypdfium2 as pdfium

    reader = PdfReader(sheets / "print-letter.pdf")
    piece = pieces_of([p for p in stroked_paths(reader, 0) if abs(p.width - 0.4) < 1e-6])[0]
    error, _, where = lie(piece, svgpath.parse(FLAG), PH)
    assert error < 0.1
    dpi = 300
    doc = pdfium.PdfDocument(sheets / "print-letter.pdf")
    img = doc[0].render(scale=dpi / 72).to_pil().convert("RGB")
    doc.close()
    polys = polyline(svgpath.parse(FLAG))

    def green(px: float, py: float) -> bool:       # px, py: mm from the piece's trim corner, as drawn
        x, y = where(px, py)
        r, g, _ = img.getpixel((round(x * dpi / 25.4), round(y * dpi / 25.4)))
        return g > r + 40

    # a point inside the bleed (outside the notch of the flag, within the bleed of its edge) is
    # printed; one further out than the bleed is not; the hole, narrower than two bleeds, is printed
    assert green(20.5, 9) and distance((20.5, 9), polys) > 2
    assert green(12, -B + 0.4) and not green(12, -B - 0.4)
    assert green(24 + B * math.cos(math.pi / 4) - 0.3, -B * math.sin(math.pi / 4) + 0.3)     # round corner
    assert not green(24 + B - 0.3, -B + 0.3)                                 # not a square corner
    assert green(6.5, 8.5)


def test_the_die_line_follows_the_path_and_the_backs_is_mirrored(sheets):
    reader = PdfReader(sheets / "print-service" / "flags-pdfx.pdf")
    path = svgpath.parse(FLAG)
    h = 22 + 2 * B
    for page, want in ((1, path), (0, svgpath.mirrored(path, 24))):           # front, back
        die = [p for p in stroked_paths(reader, page) if p.space]
        assert len(die) == 2 and all(p.overprint for p in die)
        pts = [p for sp in die for p in traced_points(sp, h)]
        assert min(x for x, _ in pts) == pytest.approx(B, abs=0.01)             # on the trim
        assert min(y for _, y in pts) == pytest.approx(B, abs=0.01)
        assert max(distance((x - B, y - B), polyline(want)) for x, y in pts) < 0.1


def test_the_cutting_machines_svg_traces_the_path(tmp_path):
    out = build(flags(tmp_path), tmp_path, print={"layout": ("silhouette-letter",)})
    svg = (out / "print-silhouette-letter-cut.svg").read_text()
    ds = re.findall(r'<path id="card-\d+" d="([^"]+)"/>', svg)
    assert ds
    for d in ds:
        pts = [p for poly in svgpath.polygons(svgpath.parse(d), 0.01) for p in poly]
        assert lie_points(pts, svgpath.parse(FLAG))[0] < 0.1


def test_a_path_from_an_svg_file_scaled_to_the_size(tmp_path):
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 240 220"><g><path d="M 0 0 L 240 0 L 170 90 '
           'L 240 180 A 40 40 0 0 1 200 220 L 0 220 Z"/></g></svg>')
    root = flags(tmp_path, path="shapes/flag.svg", extra="size: {width: 24mm, height: 22mm}", svg=svg)
    out = build(root, tmp_path)
    reader = PdfReader(out / "print-letter.pdf")
    cuts = [p for p in stroked_paths(reader, 0) if abs(p.width - 0.4) < 1e-6]
    assert len(cuts) == 3
    outer = svgpath.parse("M 0 0 L 24 0 L 17 9 L 24 18 A 4 4 0 0 1 20 22 L 0 22 Z")
    assert all(match([c], outer, PH) < 0.1 for c in cuts)


@pytest.mark.parametrize(("path", "col", "said"), [
    ("M 0 0 L 10 0 L 10 Q 3 Z", 26, "bad SVG path at character 19 (...L 10 0 L 10 Q 3 Z...): 'L' needs 2 "
                                    "numbers, got 1"),
    ("M 0 0 L 10 0 K 4 4 Z", 21, "bad SVG path at character 14 (...0 0 L 10 0 K 4 4 Z...): unexpected 'K'"),
    ("L 0 0 10 10", 8, "bad SVG path at character 1 (...L 0 0 10 10...): a path starts with M (a move), not 'L'"),
    ("M 0 0 L 0.5 0 L 0 0.5 Z", 7, "the path is 0.5x0.5 mm; a piece is at least 1 mm each way"),
])
def test_a_bad_path_is_an_error_at_its_line(tmp_path, path, col, said):
    root = flags(tmp_path, path=path)
    with pytest.raises(CardgenError) as info:
        build(root, tmp_path)
    assert f"{root / 'flags.yaml'}:4:{col}: error: token file 'Flags': {said}" in str(info.value), str(info.value)


def test_path_needs_shape_path_and_shape_path_needs_a_path(tmp_path):
    root = tmp_path / "g"
    write(root / "game.yaml", "title: Flags\n")
    write(root / "templates" / "t" / "token.yaml", TOKEN)
    write(root / "a.yaml", "deck: A\nkind: token\nshape: path\ntemplate: t/token\ncards: [{name: x}]\n")
    write(root / "b.yaml", "deck: B\nkind: token\nsize: 20mm\npath: M 0 0 L 9 9 Z\ntemplate: t/token\n"
                           "cards: [{name: x}]\n")
    write(root / "c.yaml", "deck: C\nkind: token\nshape: path\npath: shapes/none.svg\ntemplate: t/token\n"
                           "cards: [{name: x}]\n")
    with pytest.raises(CardgenError) as info:
        build(root, tmp_path)
    said = str(info.value)
    assert f"{root / 'a.yaml'}:3:8: error: token file 'A': `shape: path` needs `path:`" in said
    assert f"{root / 'b.yaml'}:4:1: error: token file 'B': `path:` is for `shape: path`" in said
    assert f"{root / 'c.yaml'}:4:7: error: path file 'shapes/none.svg' not found in the game folder" in said


def test_a_path_piece_is_a_tts_token_cut_to_its_outline_and_its_back_mirrored(tmp_path):
    import json

    from PIL import Image
    from test_tts import local

    from cardgen.outputs import tts_objects as objs

    out = build(flags(tmp_path), tmp_path, only=("tts",))
    states = json.loads((out / "tts" / "g.json").read_text())["ObjectStates"]
    (bag,) = [o for o in states if "Flags" in o.get("Tags", [])]
    tok = bag["ContainedObjects"][0]
    assert tok["Name"] == "Custom_Token"
    for key, path in (("ImageURL", svgpath.parse(FLAG)), ("ImageSecondaryURL", svgpath.mirrored(svgpath.parse(FLAG), 24))):
        framed = Image.open(local(tok["CustomImage"][key]))
        pad = round(framed.height / (1 + 2 * objs.TOKEN_BORDER) * objs.TOKEN_BORDER)
        img = framed.crop((pad, pad, framed.width - pad, framed.height - pad))
        sx, sy = img.width / 24, img.height / 22
        polys = polyline(path)

        def alpha(px, py, img=img, sx=sx, sy=sy):
            return img.getpixel((min(img.width - 1, round(px * sx)), min(img.height - 1, round(py * sy))))[3]

        for px in range(1, 24, 2):
            for py in range(1, 22, 2):
                if distance((px, py), polys) < 0.5:
                    continue                          # (the edge itself: anti-aliased)
                inside = sum(1 for poly in polys if _inside((px, py), poly)) % 2 == 1
                assert (alpha(px, py) > 200) == inside, (key, px, py)


def _inside(p, poly):
    x, y = p
    hit = False
    for (x1, y1), (x2, y2) in zip(poly, poly[1:] + poly[:1]):
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            hit = not hit
    return hit


@pytest.mark.parametrize("ref", ["../outside.svg", "/etc/outside.svg"])
def test_a_path_file_outside_the_game_is_refused_at_its_line(tmp_path, ref):
    write(tmp_path / "outside.svg", '<svg xmlns="http://www.w3.org/2000/svg"><path d="M 0 0 L 9 0 L 9 9 Z"/></svg>')
    root = flags(tmp_path, path=ref)
    with pytest.raises(CardgenError) as info:
        build(root, tmp_path)
    (d,) = [d for d in info.value.diagnostics if d.loc.file.endswith("flags.yaml")]
    assert (d.loc.line, d.loc.col, d.code) == (4, 7, "path"), d
    assert "outside" in d.message
