"""The die line of shaped pieces in the print-service PDF/X (docs/print-services.md#die-lines):
a stroke in a `CutContour` Separation colour space on each token's and tile's trim outline,
overprinting, read back in mm, and absent from the printed inks."""
from __future__ import annotations

import io
import math
import textwrap

import pytest
from conftest import REPO, write
from pdfgeom import pdf_entry, stroked_paths
from pypdf import PdfReader, PdfWriter
from pypdf.generic import NameObject

from cardgen.core.errors import Report
from cardgen.model.components import hex_box, outline
from cardgen.pipeline.build import BuildOptions, build_game

B = 3.175
TOKEN = """
    elements:
      - {name: bg, type: rect, box: bleed, fill: "#2a6e3a"}
"""


def pieces(tmp_path, game_extra: str = ""):
    root = tmp_path / "g"
    write(root / "game.yaml", "title: Pieces\n" + game_extra)
    write(root / "templates" / "t" / "token.yaml", TOKEN)
    write(root / "templates" / "t" / "card.yaml", TOKEN)
    files = {"coins.yaml": "deck: Coins\nkind: token\nsize: 25mm\ntemplate: t/token\nbacks: t/token\n"
                           "cards:\n  - {name: Gold, count: 3}\n",
             "land.yaml": "deck: Land\nkind: tile\nsize: 40mm\ntemplate: t/token\ncards:\n  - {name: Field}\n",
             "cards.yaml": "deck: Cards\ntemplate: t/card\ncards:\n  - {name: Ace}\n"}
    for name, text in files.items():
        write(root / name, textwrap.dedent(text))
    return root


def build(root, tmp_path, **kw):
    out = tmp_path / "out"
    report = Report()
    build_game(root, REPO, BuildOptions(out=out, only=("pdfx",), outputs={"pdfx": kw}), report)
    return out / root.name / "print-service", report


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("die")
    return build(pieces(tmp), tmp)


def dies(reader, page):
    """The paths stroked on `page` in a Separation colour space, with that space's ink name."""
    spaces = pdf_entry(reader.pages[page]["/Resources"], "/ColorSpace")
    out = []
    for p in stroked_paths(reader, page):
        if p.space:
            cs = spaces[p.space].get_object()
            assert cs[0] == "/Separation" and cs[2] == "/DeviceCMYK"
            out.append((str(cs[1]), p))
    return out


def test_round_tokens_get_a_cutcontour_circle_on_the_trim_front_and_back(made):
    folder, _ = made
    reader = PdfReader(folder / "coins-pdfx.pdf")
    assert len(reader.pages) == 2                              # back, front
    for i in range(2):
        (name, path), = dies(reader, i)
        assert name == "/CutContour" and path.overprint and path.width == pytest.approx(0.25)
        c = B + 12.5                                           # the trim circle's centre, from the page's corner
        assert len(path.curves) == 4
        for curve in path.curves:
            for t in (0, 0.3, 0.5, 0.8, 1):
                u = 1 - t
                x = u ** 3 * curve[0][0] + 3 * u * u * t * curve[1][0] + 3 * u * t * t * curve[2][0] + t ** 3 * curve[3][0]
                y = u ** 3 * curve[0][1] + 3 * u * u * t * curve[1][1] + 3 * u * t * t * curve[2][1] + t ** 3 * curve[3][1]
                assert math.dist((x, y), (c, c)) == pytest.approx(12.5, abs=0.1)


def test_hex_tiles_get_their_hexagon_and_cards_none(made):
    folder, _ = made
    reader = PdfReader(folder / "land-pdfx.pdf")
    w, h = hex_box(40, "hex-flat")
    want = [(x, B + h + B - y) for x, y in outline("hex-flat", B, B, w, h)]     # y up from the page's foot
    for i in range(2):                 # its blank back too: the same line through the paper
        (name, path), = dies(reader, i)
        assert name == "/CutContour"
        assert len(path.points) == 6
        for got, exp in zip(path.points, want):
            assert math.dist(got, exp) < 0.1
    cards = PdfReader(folder / "cards-pdfx.pdf")
    assert all(not dies(cards, i) for i in range(len(cards.pages)))
    assert b"CutContour" not in (folder / "cards-pdfx.pdf").read_bytes()


def test_the_die_line_is_no_printed_ink(made):
    """Rendered as it is, the circle shows in the spot's screen colour (magenta); rendered with
    the CutContour colorant renamed /None (a separation that marks nothing: what a RIP that
    lifts the die line off to its cutter prints), the circle's pixels are the token's own green."""
    import pypdfium2 as pdfium

    folder, _ = made
    data = (folder / "coins-pdfx.pdf").read_bytes()
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    spaces = pdf_entry(writer.pages[1]["/Resources"], "/ColorSpace")
    for key in spaces:
        cs = spaces[key].get_object()
        if cs[1] == "/CutContour":
            cs[1] = NameObject("/None")           # a Separation that marks nothing (PDF 1.4, 4.5.5)
    buf = io.BytesIO()
    writer.write(buf)
    dpi = 600
    shots = []
    for pdf in (data, buf.getvalue()):
        doc = pdfium.PdfDocument(pdf)
        shots.append(doc[1].render(scale=dpi / 72).to_pil().convert("RGB"))
        doc.close()
    c = (B + 12.5) / 25.4 * dpi
    r = 12.5 / 25.4 * dpi
    ring = [(round(c + r * math.cos(a / 20)), round(c + r * math.sin(a / 20))) for a in range(126)]
    printed, inked = shots[1], shots[0]
    green = printed.getpixel((round(c), round(c)))
    assert green[1] > green[0] + 40                                  # the token's green
    magenta = [inked.getpixel(p) for p in ring]
    assert sum(1 for px in magenta if px[0] > px[1] + 60 and px[2] > px[1] + 40) > 0.9 * len(ring)
    for p in ring:
        assert max(abs(a - b) for a, b in zip(printed.getpixel(p), green)) < 12, p


def test_the_die_line_can_be_renamed_or_left_out(tmp_path):
    root = pieces(tmp_path)
    folder, _ = build(root, tmp_path, die_name="C")
    reader = PdfReader(folder / "coins-pdfx.pdf")
    assert [n for n, _ in dies(reader, 1)] == ["/C"]
    folder, _ = build(root, tmp_path, die_line=False)
    assert b"CutContour" not in (folder / "coins-pdfx.pdf").read_bytes()
    assert not dies(PdfReader(folder / "coins-pdfx.pdf"), 1)


def test_the_pdfx_preflight_still_passes_with_die_lines(made):
    folder, report = made
    assert not [w for w in report.warnings if "pdfx" in w.code or "ink" in w.code]
    reader = PdfReader(folder / "coins-pdfx.pdf")
    assert reader.metadata["/GTS_PDFXVersion"] == "PDF/X-1:2003"
    for page in reader.pages:
        content = page.get_contents().get_data().decode("latin-1")
        assert " rg" not in content and " RG" not in content          # no RGB on the page
