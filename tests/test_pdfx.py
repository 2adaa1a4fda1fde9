"""Print-service PDFs (PDF/X-1a, CMYK) read back, their preflight warnings, and the document
information of every PDF cardgen writes."""
from __future__ import annotations

import pytest
from conftest import REPO, write
from pdfgeom import pdf_entry
from pypdf import PdfReader

import cardgen
from cardgen.core.errors import Report
from cardgen.pipeline.build import BuildOptions, build_game

CREATOR = f"cardgen {cardgen.__version__}"

# -- document information of every PDF ------------------------------------------------------------


def _pdfs(folder):
    return sorted(p for p in folder.rglob("*.pdf"))


def test_every_pdf_names_designer_creator_and_source_date(tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1714564800")            # 2024-05-01 12:00 UTC
    out = tmp_path / "out"
    build_game(REPO / "cards" / "game-601", REPO, BuildOptions(out=out, papers=("letter",)), Report())
    pdfs = _pdfs(out / "game-601")
    for lang in ("en", "de"):           # (Game 601 is made in English and German)
        names = {p.name for p in pdfs if p.parent.name == lang}
        assert {"print-letter.pdf", "cards.pdf", "calibration-letter.pdf", "rules.pdf", "rules-booklet-letter.pdf",
                "player-aid.pdf"} <= names
    for pdf in pdfs:
        meta = PdfReader(pdf).metadata
        assert meta["/Author"] == "Jiachen Tang", pdf.name
        assert meta["/Creator"] == CREATOR and meta["/Producer"] == CREATOR, pdf.name
        assert meta["/CreationDate"] == meta["/ModDate"] == "D:20240501120000+00'00'", pdf.name
        assert meta["/Title"].startswith("Spiel 601" if "de" in pdf.parts else "Game 601"), pdf.name
        assert "anonymous" not in repr(dict(meta)).lower(), pdf.name


def test_no_designer_no_author_and_date_from_game_yaml(tiny_game, tmp_path, monkeypatch):
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    root = tiny_game(game_extra="date: 2023-11-02\n")
    out = tmp_path / "out"
    build_game(root, REPO, BuildOptions(out=out, only=("print", "cards", "calibration"), papers=("a4",)), Report())
    for pdf in _pdfs(out / "tiny"):
        meta = PdfReader(pdf).metadata
        assert "/Author" not in meta, pdf.name
        assert meta["/CreationDate"] == "D:20231102000000+00'00'", pdf.name
        assert meta["/Title"].startswith("Tiny: "), pdf.name


def test_without_any_date_the_pdfs_carry_none_and_stay_byte_identical(tiny_game, tmp_path, monkeypatch):
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    root = tiny_game()
    files = []
    for n in (1, 2):
        out = tmp_path / f"out{n}"
        build_game(root, REPO, BuildOptions(out=out, only=("cards",), papers=("a4",)), Report())
        files.append((out / "tiny" / "cards.pdf").read_bytes())
    meta = PdfReader(tmp_path / "out1" / "tiny" / "cards.pdf").metadata
    assert "/CreationDate" not in meta and "/ModDate" not in meta
    assert b"D:2000" not in files[0]
    assert files[0] == files[1]


# -- the print-service PDF -------------------------------------------------------------------------

FACE = """
    elements:
      - {name: bg, type: rect, box: bleed, fill: "{{ card.color }}"}
      - {name: veil, type: rect, x: 5mm, y: 30mm, width: 53.5mm, height: 30mm, fill: "#ffffff80"}
      - {name: title, type: text, x: 6mm, y: 6mm, width: 51.5mm, height: 8mm, text: "{{ card.name }}",
         size: 12, color: "#000000"}
      - {name: art, type: image, when: card.art is defined, src: "{{ card.art }}", x: 10mm, y: 35mm,
         width: 20mm, height: 20mm}
      - {name: corner, type: text, when: card.edge is defined, x: 1mm, y: 80mm, width: 20mm, height: 6mm,
         text: "edge", size: 8}
      - {name: slab, type: rect, when: card.slab is defined, x: 20mm, y: 62mm, width: 30mm, height: 15mm,
         fill: "#000000"}
"""
BACK = """
    elements:
      - {name: bg, type: rect, box: bleed, fill: "#aa2222"}
      - {name: frame, type: rect, x: 4mm, y: 4mm, width: 55.5mm, height: 80.9mm, stroke: "#ffffff66",
         stroke_width: 1pt}
"""
CARDS = """
cards:
  - {name: Plain, color: "#3366cc", count: 2}
  - {name: Inky, color: "#3366cc", art: ink.jpg}
  - {name: Edge, color: "#228833", edge: true, count: 3}
  - {name: Slab, color: "#ffcc00", slab: true}
  - {name: Parked, color: "#3366cc", count: 0}
"""
MM_PT = 72 / 25.4


def pdfx_game(base, game_extra: str = "", cards: str = CARDS):
    """A game of one deck: Plain, Inky (a 400 % ink CMYK JPEG), Edge (text 1 mm from the trim),
    Slab (a large black area), Parked (count 0); a red back with a translucent frame."""
    from PIL import Image

    root = base / "tiny"
    write(root / "game.yaml", f"title: Tiny\ndesigner: Ada\n{game_extra}")
    write(root / "templates" / "tiny" / "face.yaml", FACE)
    write(root / "templates" / "tiny" / "back.yaml", BACK)
    write(root / "deck.yaml", "deck: Things\ntemplate: tiny/face\nback: tiny/back\n" + cards.lstrip("\n"))
    (root / "art").mkdir()
    Image.new("CMYK", (40, 40), (255, 255, 255, 255)).save(root / "art" / "ink.jpg", quality=95)   # 400 % ink
    return root


def build_pdfx(root, out, **kw):
    report = Report()
    build_game(root, REPO, BuildOptions(out=out, only=("pdfx", "cards"), papers=("a4",), **kw), report)
    return out / root.name, report


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    base = tmp_path_factory.mktemp("pdfx")
    root = pdfx_game(base)
    out, report = build_pdfx(root, base / "out")
    return {"root": root, "out": out, "report": report, "pdf": out / "print-service" / "things-pdfx.pdf"}


def _objects(reader):
    """Every object reachable from the pages: (kind, object), forms and images included."""
    seen, out = set(), []

    def visit(obj, kind):
        obj = obj.get_object() if hasattr(obj, "get_object") else obj
        if id(obj) in seen:
            return
        seen.add(id(obj))
        out.append((kind, obj))
        res = obj.get("/Resources") if hasattr(obj, "get") else None
        res = res.get_object() if res is not None else None
        if not res:
            return
        for _name, xo in pdf_entry(res, "/XObject").items():
            visit(xo, str(xo.get_object().get("/Subtype")))
        for gs in (res.get("/ExtGState") or {}).values():
            out.append(("gs", gs.get_object()))
        for key in ("/ColorSpace", "/Shading", "/Pattern"):
            for v in (res.get(key) or {}).values():
                out.append((key, v.get_object()))

    for page in reader.pages:
        visit(page, "page")
    return out


def _stream(obj):
    if "/Contents" in obj:
        c = obj["/Contents"].get_object()
        return b"".join(p.get_object().get_data() for p in c) if isinstance(c, list) else c.get_data()
    return obj.get_data()


def test_pdfx_file_is_pdf_x1a_with_the_output_intent(made):
    from cardgen.render.cmyk import DEFAULT_PROFILE

    reader = PdfReader(made["pdf"])
    meta = reader.metadata
    assert meta["/GTS_PDFXVersion"] == "PDF/X-1:2003" and meta["/GTS_PDFXConformance"] == "PDF/X-1a:2003"
    assert meta["/Trapped"] == "/False" and meta["/Author"] == "Ada"
    assert meta["/Title"] == "Tiny: Things (PDF/X-1a, FOGRA39)"
    assert meta["/CreationDate"].startswith("D:") and meta["/ModDate"] == meta["/CreationDate"]
    (intent,) = [i.get_object() for i in reader.trailer["/Root"]["/OutputIntents"]]
    assert intent["/S"] == "/GTS_PDFX" and intent["/OutputConditionIdentifier"] == "FOGRA39"
    assert intent["/RegistryName"] == "http://www.color.org"
    profile = intent["/DestOutputProfile"].get_object()
    assert profile["/N"] == 4 and profile.get_data() == DEFAULT_PROFILE.read_bytes()
    assert profile.get_data()[16:20] == b"CMYK" and profile.get_data()[12:16] == b"prtr"


def test_pdfx_has_no_rgb_no_transparency_and_embedded_fonts(made):
    import re

    reader = PdfReader(made["pdf"])
    objs = _objects(reader)
    images = [o for k, o in objs if k == "/Image"]
    assert images and all(o["/ColorSpace"] == "/DeviceCMYK" for o in images)
    assert not any("/SMask" in o or "/Mask" in o for o in images)
    for kind, o in objs:
        assert "DeviceRGB" not in repr(o) and "CalRGB" not in repr(o) and "ICCBased" not in repr(o), kind
        if kind == "gs":
            assert o.get("/ca", 1) == 1 and o.get("/CA", 1) == 1 and o.get("/SMask", "/None") == "/None"
        if kind in ("page", "/Form"):
            ops = _stream(o)
            assert not re.search(rb"(^|\s)(rg|RG|sc|SC|scn|SCN|cs|CS|sh)(\s|$)", ops), kind
            assert re.search(rb"\sk(\s|$)", ops) or kind == "page"
    fonts = {}
    for _, o in objs:
        res = o.get("/Resources") if hasattr(o, "get") else None
        fontres = res.get_object().get("/Font") if res else None
        for _name, f in (fontres.get_object().items() if fontres else ()):
            fonts[str(f.get_object()["/BaseFont"])] = f.get_object()
    assert fonts
    for base, font in fonts.items():
        desc = (font["/DescendantFonts"][0].get_object() if "/DescendantFonts" in font else font)["/FontDescriptor"]
        assert "/FontFile2" in desc.get_object(), base


def test_pdfx_pages_are_trim_plus_bleed_back_then_front(made):
    import pypdfium2 as pdfium

    reader = PdfReader(made["pdf"])
    assert len(reader.pages) == 2 * 4                     # four printed cards (Parked has count 0)
    for page in reader.pages:
        media = [float(v) / MM_PT for v in page.mediabox]
        assert media == pytest.approx([0, 0, 63.5 + 6.35, 88.9 + 6.35], abs=0.01)
        assert [float(v) / MM_PT for v in page.bleedbox] == pytest.approx(media, abs=0.01)
        assert [float(v) / MM_PT for v in page.trimbox] == pytest.approx([3.175, 3.175, 66.675, 92.075], abs=0.01)
    doc = pdfium.PdfDocument(made["pdf"])
    fronts = {"Plain": (0x33, 0x66, 0xCC), "Inky": (0x33, 0x66, 0xCC), "Edge": (0x22, 0x88, 0x33),
              "Slab": (0xFF, 0xCC, 0x00)}
    for n, want in enumerate(fronts.values()):
        back = doc[2 * n].render(scale=0.5).to_pil().convert("RGB").getpixel((6, 60))
        front = doc[2 * n + 1].render(scale=0.5).to_pil().convert("RGB").getpixel((6, 60))
        assert back[0] > 130 and back[1] < 80 and back[2] < 80, (n, back)          # the red back
        assert max(abs(a - b) for a, b in zip(front, want)) < 60, (n, front, want)   # the card's colour, in CMYK


def test_counts_file_lists_pages_and_copies(made):
    text = (made["out"] / "print-service" / "things-counts.txt").read_text()
    rows = [line.split("\t") for line in text.splitlines() if not line.startswith("#")]
    assert rows == [["pages", "copies", "card"], ["1-2", "2", "Plain"], ["3-4", "1", "Inky"],
                    ["5-6", "3", "Edge"], ["7-8", "1", "Slab"]]
    assert text.splitlines()[-1] == "# 4 distinct cards, 7 copies"


def test_black_text_is_pure_k_and_large_black_areas_rich_black(made):
    reader = PdfReader(made["pdf"])
    forms = [o for k, o in _objects(reader) if k == "/Form"]
    streams = b"\n".join(_stream(o) for o in forms)
    assert b"0 0 0 1 k" in streams                         # the black titles
    assert b".6 .4 .4 1 k" in streams                     # Slab's 30 x 15 mm black block


def test_ink_preflight_names_the_over_inked_card_only(made):
    ink = [d for d in made["report"].warnings if d.code == "ink-limit"]
    assert len(ink) == 1
    d = ink[0]
    assert d.loc.file.endswith("deck.yaml") and d.loc.line == 6             # the Inky card's line
    assert d.message == ("card 'Inky': up to 400 % total ink in the print-service PDF, over the 240 % limit "
                         "(pdfx `ink_limit`); lighten its darkest colours or art")


def test_safe_area_preflight_names_card_and_element(made):
    # said by the readability check (docs/validation.md), at the template element's line
    safe = [d for d in made["report"].warnings if d.code == "safe-area"]
    assert [(d.loc.file.rpartition("/")[2], d.loc.line, d.message) for d in safe] == [
        ("face.yaml", 8, "card 'Edge' (deck.yaml:7), element 'corner': text comes closer to the trim than the 3.17 mm "
                         "safe area a print service may cut into; move it inwards")]


def test_options_ink_limit_rich_black_and_a_profile_of_ones_own(tmp_path):
    import shutil

    from cardgen.render.cmyk import DEFAULT_PROFILE

    root = pdfx_game(tmp_path, "pdfx: {ink_limit: 400, rich_black: false, safe_margin: 0.5mm, profile: theirs.icc}\n")
    shutil.copy(DEFAULT_PROFILE, root / "theirs.icc")
    out, report = build_pdfx(root, tmp_path / "out")
    assert [d for d in report.warnings if d.code in ("ink-limit", "safe-area")] == []      # 400 % and 1 mm: fine
    reader = PdfReader(out / "print-service" / "things-pdfx.pdf")
    (intent,) = [i.get_object() for i in reader.trailer["/Root"]["/OutputIntents"]]
    assert intent["/OutputConditionIdentifier"] == "Custom"
    assert intent["/Info"] == "cardgen FOGRA39 coated, 240% total ink"          # the profile's own description
    streams = b"\n".join(_stream(o) for k, o in _objects(reader) if k == "/Form")
    assert b".6 .4 .4 1 k" not in streams and b"0 0 0 1 k" in streams        # Slab's block is plain K now


def test_a_profile_that_is_not_cmyk_is_an_error_at_its_line(tmp_path):
    import shutil

    from cardgen.core.data import DATA
    from cardgen.core.errors import CardgenError

    root = pdfx_game(tmp_path, "pdfx:\n  profile: screen.icc\n")
    shutil.copy(DATA / "icc" / "sRGB.icc", root / "screen.icc")
    with pytest.raises(CardgenError) as exc:
        build_pdfx(root, tmp_path / "out")
    (d,) = exc.value.diagnostics
    assert d.loc.file.endswith("game.yaml") and d.loc.line == 4
    assert d.message == ("pdfx: profile 'screen.icc' cannot be used: screen.icc is not a CMYK output profile; "
                         "give a CMYK output profile (.icc)")


def test_translucent_art_over_art_becomes_an_exact_cmyk_picture(tmp_path):
    from PIL import Image

    veil = FACE + """      - {name: glass, type: image, src: glass.png, x: 5mm, y: 30mm, width: 30mm, height: 30mm}
"""
    root = pdfx_game(tmp_path, cards="cards:\n  - {name: Plain, color: '#3366cc', art: ink.jpg}\n")
    (root / "templates" / "tiny" / "face.yaml").write_text(veil.replace("\n    ", "\n").lstrip("\n"))
    glass = Image.new("RGBA", (30, 30), (255, 0, 0, 128))           # red at 50 % over the panel and the ink block
    glass.save(root / "art" / "glass.png")
    out, report = build_pdfx(root, tmp_path / "out")
    assert any("1 translucent part of cards printed as 300 dpi pictures" in n for n in report.notes)
    reader = PdfReader(out / "print-service" / "things-pdfx.pdf")
    images = [o for k, o in _objects(reader) if k == "/Image"]
    assert all(o["/ColorSpace"] == "/DeviceCMYK" and "/SMask" not in o for o in images)
    sizes = sorted((int(o["/Width"]), int(o["/Height"])) for o in images)
    # 30 mm at 300 dpi is 354 px; the picture reaches one sampling pixel (1/100 in) past what the glass paints
    assert [(w, h) for w, h in sizes if w > 40] and all(354 <= w <= 366 and w == h for w, h in sizes if w > 40)
    import pypdfium2 as pdfium

    page = pdfium.PdfDocument(out / "print-service" / "things-pdfx.pdf")[1]
    px = page.render(scale=1).to_pil().convert("RGB")
    mm = 72 / 25.4
    glass_on_panel = px.getpixel((round((3.175 + 32) * mm), round((3.175 + 58) * mm)))   # red over the white veil
    glass_on_ink = px.getpixel((round((3.175 + 15) * mm), round((3.175 + 45) * mm)))    # red over the black block
    assert glass_on_panel[0] > 180 and glass_on_panel[1] < 170 and glass_on_panel[2] < 170, glass_on_panel
    assert 90 < glass_on_ink[0] < 170 and glass_on_ink[1] < 60 and glass_on_ink[2] < 60, glass_on_ink   # dark red


def test_rebuild_is_byte_identical_wherever_it_is_built(tmp_path, monkeypatch):
    from PIL import Image

    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    root = pdfx_game(tmp_path, "date: 2024-05-01\n")
    face = FACE + "      - {name: glass, type: image, src: glass.png, x: 5mm, y: 30mm, width: 30mm, height: 30mm}\n"
    (root / "templates" / "tiny" / "face.yaml").write_text(face.replace("\n    ", "\n").lstrip("\n"))
    Image.new("RGBA", (30, 30), (255, 0, 0, 128)).save(root / "art" / "glass.png")     # flattened into a picture
    a, _ = build_pdfx(root, tmp_path / "one")
    b, _ = build_pdfx(root, tmp_path / "two" / "deeper")
    files = sorted(p.name for p in (a / "print-service").iterdir())
    assert files == ["things-counts.txt", "things-pdfx.pdf"]
    for name in files:
        assert (a / "print-service" / name).read_bytes() == (b / "print-service" / name).read_bytes(), name
    assert PdfReader(a / "print-service" / "things-pdfx.pdf").metadata["/CreationDate"] == "D:20240501000000+00'00'"


def test_translucent_shapes_on_a_flat_colour_are_mixed_and_stay_vector(made):
    import re

    from cardgen.render.cmyk import Separation

    reader = PdfReader(made["pdf"])
    assert "/ID" in reader.trailer
    streams = b"\n".join(_stream(o) for k, o in _objects(reader) if k == "/Form")
    used = [tuple(float(v) for v in m.groups())
            for m in re.finditer(rb"([\d.]+) ([\d.]+) ([\d.]+) ([\d.]+) [kK]\b", streams)]   # fill k, stroke K
    sep = Separation()
    a = 0x80 / 255
    veil = sep.cmyk(tuple(a * 1.0 + (1 - a) * c for c in (0x33 / 255, 0x66 / 255, 0xCC / 255)))   # white 50 % on blue
    frame = sep.cmyk(tuple(0x66 / 255 + (1 - 0x66 / 255) * c for c in (0xAA / 255, 0x22 / 255, 0x22 / 255)))
    for want in (veil, frame):
        assert any(max(abs(x - y) for x, y in zip(got, want)) < 0.006 for got in used), (want, used)
    assert [o for k, o in _objects(reader) if k == "/Image"] and made["report"].notes == []   # no pictures


# -- each card side's conversion, kept for the next build (`cardgen.render.pdfxcache`) --------------

KEPT_CARDS = """
cards:
  - {name: Plain, color: "#3366cc", count: 2, glass: true}
  - {name: Inky, color: "#3366cc", art: ink.jpg}
  - {name: Edge, color: "#228833", edge: true, count: 3, sketch: true}
  - {name: Slab, color: "#ffcc00", slab: true}
  - {name: Parked, color: "#3366cc", count: 0}
"""
KEPT_FACE = FACE + """
      - {name: glass, type: image, when: card.glass is defined, src: glass.png, x: 5mm, y: 20mm, width: 30mm,
         height: 30mm}
      - {name: sketch, type: image, when: card.sketch is defined, src: sketch.png, placeholder: "Art to come",
         x: 35mm, y: 20mm, width: 20mm, height: 20mm}
"""
SIDES = 5          # the distinct sides printed: four faces (Parked is not printed) and the back


def kept_game(base):
    """`pdfx_game` with a translucent picture on Plain (flattened into a 300 dpi picture) and a
    placeholder for missing art on Edge (set in a font no other text uses)."""
    from PIL import Image

    root = pdfx_game(base, cards=KEPT_CARDS)
    write(root / "templates" / "tiny" / "face.yaml", KEPT_FACE)
    Image.new("RGBA", (30, 30), (255, 0, 0, 128)).save(root / "art" / "glass.png")
    return root


def _converted(out):
    from cardgen.render.pdfxcache import PdfxCache

    return PdfxCache.of(out).converted


def _rebuild(root, out):
    """Build again after removing the PDF/X file, so that it is made again (from what is kept)."""
    (out / root.name / "print-service" / "things-pdfx.pdf").unlink()
    before = _converted(out / root.name)
    _, report = build_pdfx(root, out)
    return _converted(out / root.name) - before, report


def _preflight(report):
    return ([(d.loc, d.message) for d in report.warnings if d.code in ("ink-limit", "safe-area")],
            [n for n in report.notes if n.startswith("pdfx:")])


@pytest.fixture
def kept(tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1714564800")
    root = kept_game(tmp_path)
    out = tmp_path / "out"
    made, report = build_pdfx(root, out)
    assert _converted(made) == SIDES
    return root, out, made, report, (made / "print-service" / "things-pdfx.pdf").read_bytes()


def test_a_side_is_converted_once_then_kept_and_the_file_is_the_same(kept):
    root, out, made, _, first = kept
    cache = made / ".cache"
    assert (cache / "pdfx.bin").is_file()
    # the ink art and the glass picture in CMYK, and the ink art as the preflight's two plates
    assert len(list((cache / "pdfx").glob("*.img"))) == 4
    converted, _ = _rebuild(root, out)
    assert converted == 0
    assert (made / "print-service" / "things-pdfx.pdf").read_bytes() == first


def test_editing_a_card_converts_its_sides_only_and_ends_as_a_clean_build(kept, tmp_path, monkeypatch):
    from cardgen.render import formcache

    root, out, made, _, first = kept
    deck = root / "deck.yaml"
    text = deck.read_text()
    deck.write_text(text.replace("name: Slab, color: \"#ffcc00\"", "name: Slab, color: \"#ffaa00\""))
    monkeypatch.setattr(formcache, "_open", {})                        # another process, as `cardgen build` is
    build_pdfx(root, out)
    assert _converted(made) == 1                                        # Slab's face
    # the converted images the sides kept show; not the ink art's plates, not measured this time
    assert len(list((made / ".cache" / "pdfx").glob("*.img"))) == 2
    edited = (made / "print-service" / "things-pdfx.pdf").read_bytes()
    fresh, _ = build_pdfx(root, tmp_path / "fresh")
    assert (fresh / "print-service" / "things-pdfx.pdf").read_bytes() == edited != first
    deck.write_text(text)                                               # and back, in another process:
    monkeypatch.setattr(formcache, "_open", {})                        # the first Slab was not kept
    build_pdfx(root, out)
    assert _converted(made) == 1
    assert (made / "print-service" / "things-pdfx.pdf").read_bytes() == first


def test_an_option_the_separation_depends_on_converts_every_side_again(kept):
    root, out, made, _, _ = kept
    game = root / "game.yaml"
    before = _converted(made)
    game.write_text(game.read_text() + "pdfx: {ink_limit: 300}\n")       # the preflight's: nothing converted
    _, report = build_pdfx(root, out)
    assert _converted(made) - before == 0
    assert [d.message.split(":")[0] for d in report.warnings if d.code == "ink-limit"] == ["card 'Inky'"]
    game.write_text(game.read_text().replace("ink_limit: 300", "ink_limit: 300, rich_black: false"))
    before = _converted(made)
    build_pdfx(root, out)
    assert _converted(made) - before == SIDES


def test_the_preflight_says_the_same_of_kept_sides(kept):
    root, out, _, report, _ = kept
    ink, notes = _preflight(report)
    assert sorted(m.split("'")[1] for _, m in ink) == ["Edge", "Inky"]
    assert notes == ["pdfx: 1 translucent part of cards printed as 300 dpi pictures (PDF/X-1a has no transparency)"]
    converted, again = _rebuild(root, out)
    assert converted == 0 and _preflight(again) == (ink, notes)


def test_a_rebuild_does_not_compress_the_art_again(kept, monkeypatch):
    """The converted images are kept as the PDF holds them: a rebuild after an edit to a card
    without art reads and compresses no image (a clean build makes the objects of the ink art,
    the glass picture and the ink art's two plates from their pixels: ReportLab reads none of
    them from a file either)."""
    from reportlab.pdfbase import pdfdoc

    root, out, made, _, first = kept
    compressed = []
    load = pdfdoc.PDFImageXObject.loadImageFromSRC
    monkeypatch.setattr(pdfdoc.PDFImageXObject, "loadImageFromSRC",      # (the converted images: .tif files)
                        lambda self, im: compressed.append(str(im.fileName).endswith(".tif")) or load(self, im))
    build_pdfx(root, tmp := out.parent / "clean")
    assert True not in compressed and (tmp / "tiny" / "print-service" / "things-pdfx.pdf").read_bytes() == first
    compressed.clear()
    converted, _ = _rebuild(root, out)
    assert (converted, compressed) == (0, [])
    assert (made / "print-service" / "things-pdfx.pdf").read_bytes() == first


def test_a_damaged_cache_is_deleted_and_a_damaged_image_converted_again(kept):
    root, out, made, report, first = kept
    cache = made / ".cache"
    for image in (cache / "pdfx").glob("*.img"):
        data = bytearray(image.read_bytes())
        data[-1] ^= 0xFF
        image.write_bytes(bytes(data))
    converted, again = _rebuild(root, out)
    assert converted == 2                        # the sides that show them: Plain and Inky
    assert (made / "print-service" / "things-pdfx.pdf").read_bytes() == first
    data = bytearray((cache / "pdfx.bin").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (cache / "pdfx.bin").write_bytes(bytes(data))
    converted, again = _rebuild(root, out)
    assert converted == SIDES
    assert (made / "print-service" / "things-pdfx.pdf").read_bytes() == first
    assert _preflight(again) == _preflight(report)


def test_a_cache_made_by_another_installation_is_not_read(kept, monkeypatch):
    from cardgen.core import digest
    from cardgen.render import formcache

    root, out, made, _, first = kept
    monkeypatch.setattr(digest, "_code", [("another installation", {})])
    monkeypatch.setattr(formcache, "_open", {})
    converted, _ = _rebuild(root, out)
    assert converted == SIDES
    assert (made / "print-service" / "things-pdfx.pdf").read_bytes() == first


def test_a_kept_placeholder_keeps_its_font(kept, tmp_path):
    """Edge's placeholder label is set in the italic, which no other text uses: made from what
    was kept (here and in cards.pdf), the file still embeds it, as a clean build does."""
    from pypdf import PdfReader

    root, out, made, _, _ = kept
    deck = root / "deck.yaml"
    deck.write_text(deck.read_text().replace("name: Slab", "name: Block"))
    before = _converted(made)
    build_pdfx(root, out)
    assert _converted(made) - before == 1
    fresh, _ = build_pdfx(root, tmp_path / "fresh")
    for name in ("print-service/things-pdfx.pdf", "cards.pdf"):
        fonts = {str(f.get_object()["/BaseFont"]).split("+")[-1] for page in PdfReader(made / name).pages
                 for _, f in _fonts_of(page)}
        assert "Lato-Italic" in fonts, name
        assert (made / name).read_bytes() == (fresh / name).read_bytes(), name


def _fonts_of(obj):
    """Every font a page or form uses, its forms' too."""
    res = obj.get("/Resources")
    res = res.get_object() if res is not None else {}
    yield from pdf_entry(res, "/Font").items()
    for _, xo in pdf_entry(res, "/XObject").items():
        if xo.get_object().get("/Subtype") == "/Form":
            yield from _fonts_of(xo.get_object())


def test_converted_art_is_put_in_as_reportlab_would_without_a_file(kept, tmp_path, monkeypatch):
    """Each converted image's object is made from its pixels (`art.image_object`), not written
    to a TIFF file and read back by ReportLab: none is written, and the file is the same bytes
    as one whose objects ReportLab made from those files.  The images are converted on two
    threads before the sides are drawn (`Separation.convert_ahead`), each once."""
    import threading
    from pathlib import Path

    from PIL import Image

    from cardgen.render import art
    from cardgen.render.cmyk import Separation

    root, _, _, _, first = kept
    formats: list[str] = []
    real = Image.Image.save
    converted: list[tuple[str, str | None, str]] = []
    convert = Separation._converted

    def save(self, fp, format=None, **params):
        formats.append(str(format))
        return real(self, fp, format, **params)

    def counted(self, path):
        converted.append((Path(path).name, self.plate, threading.current_thread().name.split("_")[0]))
        return convert(self, path)

    monkeypatch.setattr(Image.Image, "save", save)
    monkeypatch.setattr(Separation, "_converted", counted)
    monkeypatch.setattr(Separation, "convert_early", lambda self, layouts: None)    # (below)
    one, _ = build_pdfx(root, tmp_path / "one")
    assert "TIFF" not in formats
    inks = [(name, thread) for name, plate, thread in converted if plate is None]
    assert len(inks) == 2 and len(set(inks)) == 2 and {thread for _, thread in inks} == {"cardgen-cmyk"}
    assert (one / "print-service" / "things-pdfx.pdf").read_bytes() == first
    monkeypatch.setattr(art, "image_object", lambda im: None)          # (as before: files, read back)
    two, _ = build_pdfx(root, tmp_path / "two")
    assert "TIFF" in formats
    assert (two / "print-service" / "things-pdfx.pdf").read_bytes() == first


def test_pictures_are_converted_early_in_the_background_each_once(tmp_path, monkeypatch):
    """`Separation.convert_early` converts the opaque pictures layouts show on a thread of its
    own; `convert_ahead` then takes what it made (converting none again, the same names and
    inks as without it) and converts what it had not begun; a translucent picture is left to
    the flattening."""
    import threading

    from PIL import Image

    from cardgen.model import ops
    from cardgen.render.cmyk import Separation
    from cardgen.render.pdfxcache import PdfxCache

    files = []
    for i, mode in enumerate(["RGB", "RGB", "RGB", "RGBA"]):
        files.append(tmp_path / f"p{i}.png")
        Image.new(mode, (20, 16), (40 * i, 200, 90, 128)).save(files[-1])
    sides = [ops.CardLayout(100, 100, 0, [ops.Image(f, 0, 0, 20, 16)], f"s{i}") for i, f in enumerate(files)]
    converted: list[tuple[str, str]] = []
    convert = Separation._converted

    def counted(self, path):
        converted.append((path.name, threading.current_thread().name.split("_")[0]))
        return convert(self, path)

    monkeypatch.setattr(Separation, "_converted", counted)
    plain = Separation(cache=PdfxCache(tmp_path / "plain" / "pdfx.bin"))
    plain.convert_ahead(sides, tmp_path)
    wanted = [plain.convert_art(f, tmp_path) for f in files]
    converted.clear()

    early = Separation(cache=PdfxCache(tmp_path / "early" / "pdfx.bin"))
    early.convert_early(sides[:2])
    for future in list(early._early.values()):
        future.result()
    assert converted == [("p0.png", "cardgen-cmyk-early"), ("p1.png", "cardgen-cmyk-early")]
    early.convert_early(sides[2:])          # p2 (RGBA p3 is not converted early)
    early.convert_ahead(sides, tmp_path)    # (p2 taken back if not begun, else waited for)
    assert [early.convert_art(f, tmp_path) for f in files] == wanted
    assert sorted(name for name, _ in converted) == ["p0.png", "p1.png", "p2.png", "p3.png"]
    assert dict(converted)["p3.png"] != "cardgen-cmyk-early" and not early._early


def test_a_build_converts_early_only_what_it_makes_after_another_output(tmp_path, monkeypatch):
    """The print-service output begins converting while the outputs before it are made
    (`Output.ahead`), on a first build only: not when it is made first, nor when it was made
    before (an edit converts the sides that changed, as it did)."""
    from cardgen.render.cmyk import Separation

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1714564800")
    root = pdfx_game(tmp_path)
    calls: list[int] = []
    real = Separation.convert_early
    monkeypatch.setattr(Separation, "convert_early", lambda self, layouts: calls.append(len(layouts)) or
                        real(self, layouts))
    build_game(root, REPO, BuildOptions(out=tmp_path / "alone", only=("pdfx",), papers=("a4",)), Report())
    assert calls == []
    made, _ = build_pdfx(root, tmp_path / "out")
    assert calls == [8]             # (the back and face of each of the 4 cards printed)
    (made / "print-service" / "things-pdfx.pdf").unlink()
    build_pdfx(root, tmp_path / "out")
    assert calls == [8]
    assert (made / "print-service" / "things-pdfx.pdf").read_bytes() == \
        (tmp_path / "alone" / root.name / "print-service" / "things-pdfx.pdf").read_bytes()


SVG_CARDS = """
cards:
  - {name: Dark, color: "#ffffff", mark: dark.svg}
  - {name: Pale, color: "#ffffff", mark: pale.svg}
  - {name: Bare, color: "#ffffff"}
"""
SVG_FACE = FACE + """
      - {name: mark, type: image, when: card.mark is defined, src: "{{ card.mark }}", x: 20mm, y: 40mm,
         width: 20mm, height: 20mm}
"""


def test_kept_sides_icons_are_not_drawn_again_and_keep_their_ink(tmp_path, monkeypatch):
    """The SVG forms the PDF/X file draws are kept with the highest ink they put down: a
    rebuild after an edit draws no SVG with svglib, makes a clean build's bytes, and still
    finds the over-inked icon on the card it edited (its ink read from what was kept)."""
    from cardgen.render import draw, formcache

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1714564800")
    root = pdfx_game(tmp_path, game_extra="pdfx: {ink_limit: 160}\n", cards=SVG_CARDS)
    write(root / "templates" / "tiny" / "face.yaml", SVG_FACE)
    write(root / "templates" / "tiny" / "back.yaml", 'elements:\n  - {name: bg, type: rect, box: bleed, fill: "#ffffff"}\n')
    for name, colour in (("dark", "#102030"), ("pale", "#c0d0e0")):      # 185 % and under 100 % ink
        write(root / "art" / f"{name}.svg", f'<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20">'
                                            f'<circle cx="10" cy="10" r="9" fill="{colour}"/></svg>\n')
    out = tmp_path / "out"
    made, report = build_pdfx(root, out)
    over = [d.message.split(":")[0] for d in report.warnings if d.code == "ink-limit"]
    assert over == ["card 'Dark'"]
    loaded: list[str] = []
    real = draw.load_svg
    monkeypatch.setattr(draw, "load_svg", lambda path: loaded.append(str(path).rsplit("/", 1)[-1]) or real(path))
    deck = root / "deck.yaml"
    deck.write_text(deck.read_text().replace("name: Dark,", "name: Darker,"))
    monkeypatch.setattr(formcache, "_open", {})                        # another process, as `cardgen build` is
    _, again = build_pdfx(root, out)
    assert loaded == []
    assert [d.message.split(":")[0] for d in again.warnings if d.code == "ink-limit"] == ["card 'Darker'"]
    edited = (made / "print-service" / "things-pdfx.pdf").read_bytes()
    monkeypatch.setattr(formcache, "_open", {})
    fresh, _ = build_pdfx(root, tmp_path / "fresh")
    assert set(loaded) == {"dark.svg", "pale.svg"}                     # (a clean build draws them)
    assert (fresh / "print-service" / "things-pdfx.pdf").read_bytes() == edited
    # kept forms of another shape (a sealed file of this installation): drawn again, not replayed
    from cardgen.render.pdfxcache import PdfxCache

    monkeypatch.setattr(formcache, "_open", {})
    cache = PdfxCache.of(made)
    cache.load()
    kept = [k for k in cache.entries if k.startswith("svg:")]
    assert kept
    for k in kept:
        cache.put(k, ("0 0 m", [], (20.0, 20.0), [(1, "g")], 999.0))
    cache.save()
    monkeypatch.setattr(formcache, "_open", {})
    loaded.clear()
    (made / "print-service" / "things-pdfx.pdf").unlink()
    build_pdfx(root, out)
    assert set(loaded) == {"dark.svg", "pale.svg"}
    assert (made / "print-service" / "things-pdfx.pdf").read_bytes() == edited


def test_kept_svg_forms_are_checked_before_they_are_replayed():
    """What a kept SVG form must be before it is put into a document (`draw.svg_entry_ok`): its
    operators, no other forms, its size in numbers and its transparency states."""
    from cardgen.render.draw import svg_entry_ok

    good = ("0 0 m 1 1 l S", [], (20.0, 20.0), [(("ca", 0.5), "gRLs0")])
    assert svg_entry_ok(good) and svg_entry_ok(("", [], (1, 2), []))
    bad = [good[:3], [*good], (b"0 0 m", [], (1.0, 1.0), []), ("x", ["f1"], (1.0, 1.0), []), ("x", [], (1.0,), []),
           ("x", [], ("1", 1.0), []), ("x", [], (True, 1.0), []), ("x", [], (1.0, 1.0), [("ca", "g")]),
           ("x", [], (1.0, 1.0), [((1, 2), "g")]), ("x", [], (1.0, 1.0), [(("ca", 0.5), 3)]), ("x", [], (1.0, 1.0), ())]
    assert [svg_entry_ok(b) for b in bad] == [False] * len(bad)


def test_the_colours_separated_are_kept_and_the_transform_made_only_for_a_new_one(tmp_path, monkeypatch):
    """`Separation.keep_colours`: the next build's separation takes the colours a build before
    separated from the cache (the same inks) and makes Little CMS's transform only for a
    colour it did not keep; a cache without them, or with them damaged, makes it at once."""
    from PIL import ImageCms

    from cardgen.render import cmyk
    from cardgen.render.cmyk import Separation
    from cardgen.render.pdfxcache import PdfxCache, key

    made: list[int] = []
    build = ImageCms.buildTransform
    monkeypatch.setattr(ImageCms, "buildTransform", lambda *a, **k: made.append(1) or build(*a, **k))
    path = tmp_path / ".cache" / "pdfx.bin"
    path.parent.mkdir()
    first = Separation(cache=PdfxCache(path))
    assert made == [1]
    colours = [(0.2, 0.5, 0.7), (1.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.5, 0.5, 0.5)]
    wanted = [first.cmyk(c) for c in colours]
    first.keep_colours()
    first.cache.save()

    made.clear()
    second = Separation(cache=PdfxCache(path))          # (another build)
    assert [second.cmyk(c) for c in colours] == wanted and made == []
    assert second.for_plate("k").cmyk(colours[0]) == wanted[0] and made == []
    assert second.cmyk((0.1, 0.9, 0.3)) == first.cmyk((0.1, 0.9, 0.3)) and made == [1]
    second.keep_colours()
    assert len(second.cache.get(key("colours", second.key))) == len(colours) + 1

    made.clear()
    damaged = PdfxCache(path)
    damaged.load()
    damaged.entries[key("colours", second.key)] = {(300, 0, 0): (0.0, 0.0, 0.0, 1.0)}
    Separation(cache=damaged)
    assert made == [1]
    monkeypatch.setattr(cmyk, "KEPT_COLOURS", 2)
    made.clear()
    Separation(cache=PdfxCache(path))
    assert made == [1]                                  # (more kept than it keeps: not taken)


def test_the_pdfx_file_decodes_each_packed_side_twice(tmp_path, monkeypatch):
    """A side the layout cache holds packed (`layout.cache.PackedLayout`) is decoded once to be
    flattened and once to be drawn: the pictures to convert are found from what it needs
    (`ops.needs`, kept packed with it), so a side showing none is not decoded for them.  Two
    decoded sides at a time (`KEEP`): each pass over the 41 sides decodes each again."""
    from test_offered_forms import CARDS, make_game

    from cardgen.layout import cache

    game = make_game(tmp_path)
    monkeypatch.setattr(cache, "KEEP", 2)
    real = cache.decode_ops
    decoded: list[int] = []
    monkeypatch.setattr(cache, "decode_ops", lambda entry: decoded.append(1) or real(entry))
    build_game(game, game, BuildOptions(out=tmp_path / "out", only=("pdfx",)), Report())
    assert len(decoded) == 2 * (CARDS + 1)
    assert (tmp_path / "out" / "offered" / "print-service" / "words-pdfx.pdf").is_file()
