"""No silent wrong output (issue 22): what cardgen draws other than asked for is said, at
its place, and said once when it is the same on many cards."""
from __future__ import annotations

import json
import re

from conftest import REPO, in_dir, write

from cardgen.core.errors import Diagnostic, Loc, Report, grouped


def _new_game(tmp_path, name="g"):
    code, _, err = in_dir(tmp_path, "new", name)
    assert code == 0, err
    return tmp_path / name


def _card_line(path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


# -- a missing art file, where a placeholder is drawn ----------------------------------------

def test_a_missing_art_file_with_a_placeholder_is_a_warning_at_the_card_naming_the_template(tmp_path):
    game = _new_game(tmp_path)
    cards = game / "cards.yaml"
    cards.write_text(cards.read_text().replace("    type: Event\n", "    type: Event\n    art: storm.png\n"))
    line = _card_line(cards, "art: storm.png")
    code, out, err = in_dir(tmp_path, "validate", "g")
    assert code == 0
    said = [x for x in out.splitlines() if "missing" in x or "storm.png" in x]
    assert said == [f"g/cards.yaml:{line}:10: warning: card 'Storm' (cards.yaml:{line - 2}), field `art` (element "
                    f"'art', {_basic_card_line('art')}): image 'storm.png' is not in art/ or the game folder (add "
                    f"it or fix the name); the placeholder 'art to come' is printed in its place"]
    assert out.splitlines()[-1] == "g: 0 errors, 2 warnings"       # (and the card whose text is to come)
    # the build says it too (the same check path)
    code, _, err = in_dir(tmp_path, "build", "g", "--only", "cards")
    assert code == 0 and f"g/cards.yaml:{line}:10: warning: card 'Storm'" in err and "storm.png" in err
    # an empty `art:` (the template's default) is art to come: no word
    cards.write_text(cards.read_text().replace("    art: storm.png\n", ""))
    code, out, _ = in_dir(tmp_path, "validate", "g")
    assert "storm.png" not in out and out.splitlines()[-1] == "g: 0 errors, 1 warning"


def _basic_card_line(element: str) -> str:
    path = REPO / "cardgen" / "data" / "templates" / "basic" / "card.yaml"
    lines = path.read_text().splitlines()
    at = lines.index(f"  - name: {element}")
    src = next(i for i in range(at, len(lines)) if lines[i].strip().startswith("src:"))
    return f"{path}:{src + 1}:10"      # (the bundled template: outside the folder the test runs in)


def test_a_missing_art_file_named_in_the_template_itself_is_a_warning_at_its_line(tiny_game, tmp_path):
    root = tiny_game(template="""
        elements:
          - {name: pic, type: image, src: nothere.png, placeholder: true, x: 0, y: 0, width: 10mm, height: 10mm}
    """)
    code, out, _ = in_dir(tmp_path, "validate", str(root))
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("tiny/templates/tiny/face.yaml:2:35: warning: element 'pic': image 'nothere.png' is "
                               "not in art/ or the game folder (add it or fix the name); the placeholder 'art: "
                               "nothere.png' is printed in its place on 2 cards (first: 'Alpha', deck.yaml:5:5)")
    assert lines[1:] == ["tiny: 0 errors, 1 warning"]


# -- a warning found on many cards: said once ------------------------------------------------

def _many(n: int) -> str:
    return "cards:\n" + "".join(f"  - {{name: Card {i}, art: gone.png}}\n" for i in range(n))


PICTURE = """
    elements:
      - {name: pic, type: image, src: "{{ card.art }}", placeholder: true, x: 0, y: 0, width: 10mm, height: 10mm}
"""


def test_the_same_warning_on_66_cards_is_said_once_with_the_count_and_the_first_card(tiny_game, tmp_path):
    root = tiny_game(_many(66), template=PICTURE)
    code, out, _ = in_dir(tmp_path, "validate", str(root))
    assert code == 0
    assert out.splitlines() == [
        "tiny/deck.yaml:5:25: warning: field `art` (element 'pic', tiny/templates/tiny/face.yaml:2:35): image "
        "'gone.png' is not in art/ or the game folder (add it or fix the name); the placeholder 'art: gone.png' is "
        "printed in its place on 66 cards (first: 'Card 0', deck.yaml:5:5)",
        "tiny: 0 errors, 1 warning"]
    # JSON: one entry, with the count and the first card
    code, out, _ = in_dir(tmp_path, "validate", str(root), "--format", "json")
    doc = json.loads(out)
    [d] = doc["diagnostics"]
    assert (d["line"], d["col"], d["code"], d["count"], d["first_card"]) == \
        (5, 25, "missing-image", 66, "'Card 0', deck.yaml:5:5")
    assert d["message"].endswith("on 66 cards (first: 'Card 0', deck.yaml:5:5)")
    assert doc["summary"]["warnings"] == 1
    # the build says it once too
    code, _, err = in_dir(tmp_path, "build", str(root), "--only", "cards")
    assert code == 0 and sum("gone.png" in x for x in err.splitlines()) == 1 and "on 66 cards (first: 'Card 0'" in err


def test_one_card_keeps_its_own_message_and_different_problems_are_not_merged(tiny_game, tmp_path):
    root = tiny_game("cards:\n  - {name: A, art: one.png}\n  - {name: B, art: two.png}\n", template=PICTURE)
    _, out, _ = in_dir(tmp_path, "validate", str(root))
    lines = out.splitlines()
    assert len(lines) == 3 and lines[-1] == "tiny: 0 errors, 2 warnings"
    assert lines[0].startswith("tiny/deck.yaml:5:20: warning: card 'A' (deck.yaml:5), field `art`")
    assert lines[1].startswith("tiny/deck.yaml:6:20: warning: card 'B' (deck.yaml:6), field `art`")


def test_grouping_is_by_the_diagnostics_group_field_not_its_text():
    a = Diagnostic(Loc("c.yaml", 3, 1), "card 'A': x", "warning", "w", group="x", card="'A', c.yaml:3:1")
    b = Diagnostic(Loc("c.yaml", 2, 1), "card 'B': x", "warning", "w", group="x", card="'B', c.yaml:2:1")
    c = Diagnostic(Loc("c.yaml", 1, 1), "card 'C': x", "warning", "w")          # no group: its own line
    d = Diagnostic(Loc("c.yaml", 4, 1), "card 'D': x", "error", "w", group="x", card="'D', c.yaml:4:1")  # an error
    out = grouped([a, b, c, d, a])
    # the first card reported (cards are laid out in deck order) is the one named
    assert [str(x) for x in out] == ["c.yaml:1:1: warning: card 'C': x",
                                     "c.yaml:3:1: warning: x on 2 cards (first: 'A', c.yaml:3:1)",
                                     "c.yaml:4:1: error: card 'D': x"]
    assert grouped(out) == out          # (said once however often it is grouped)
    r = Report()
    r.warn(a.loc, a.message, a.code, group=a.group, card=a.card)
    assert r.said() == [a]


def test_a_missing_glyph_on_many_cards_is_said_once(tiny_game, tmp_path):
    cards = "cards:\n" + "".join(f"  - {{name: 'Card {i} \u4e2d'}}\n" for i in range(5))
    root = tiny_game(cards)
    _, out, _ = in_dir(tmp_path, "validate", str(root))
    glyph = [x for x in out.splitlines() if "no glyph" in x]
    assert len(glyph) == 1 and re.search(r"on 5 cards \(first: 'Card 0 \u4e2d', deck.yaml:5:5\)$", glyph[0])
    assert glyph[0].startswith("tiny/deck.yaml:5:12: warning: element 'title' (field `name`): font ")


# -- spreadsheet headers in another case ------------------------------------------------------

def _sheet_game(tmp_path, header: str, n: int = 66):
    game = _new_game(tmp_path)
    rows = [header] + [f"Card {i},Action,Do thing {i}." for i in range(n)]
    (game / "cards.csv").write_text("\n".join(rows) + "\n")
    cards = game / "cards.yaml"
    text = cards.read_text()
    cards.write_text(text[:text.index("cards:\n")] + "cards: cards.csv\n")
    (game / "rules.yaml").write_text((game / "rules.yaml").read_text().replace(
        'quote: "6 cards"\n    total: 6', f'quote: "{n} cards"\n    total: {n}'))
    return game


def test_a_header_in_another_case_is_the_field_the_template_reads_said_once_per_deck(tmp_path):
    from cardgen.core.errors import Report
    from cardgen.model import ops
    from cardgen.pipeline.check import check_game

    game = _sheet_game(tmp_path, "Name,Type,Text")
    code, out, _ = in_dir(tmp_path, "validate", "g")
    assert code == 0, out
    assert out.splitlines() == [
        "g/cards.csv:1:2: warning: deck 'Cards': columns 'Type' as `type`, 'Text' as `text` read as the fields "
        "its template reads (headers match fields in any case; write them as the template does, or map them "
        "with `columns:`, to say so)",
        "g: 0 errors, 1 warning"]
    report = Report()
    checked = check_game(game, tmp_path, report)
    assert checked.rendered is not None
    for i, (_, card, face) in enumerate(checked.rendered.faces):
        words = " ".join(str(r.content) for op in face.ops if isinstance(op, ops.Text) for r in op.runs
                         if r.kind == "text")
        assert f"Do thing {i}." in words.replace("  ", " ") and "ACTION" in words
        assert card.fields["text"] == f"Do thing {i}." and "Text" not in card.fields
    # the build says it once too, and prints the text
    code, _, err = in_dir(tmp_path, "build", "g", "--only", "cards")
    assert code == 0 and err.count("'Text' as `text`") == 1


def test_a_header_as_the_template_writes_it_is_not_said(tmp_path):
    _sheet_game(tmp_path, "name,type,text", 6)
    _, out, _ = in_dir(tmp_path, "validate", "g")
    assert out.splitlines() == ["g: 0 errors, 0 warnings"]


def test_a_field_no_template_uses_on_many_cards_is_said_once(tmp_path):
    _sheet_game(tmp_path, "name,tpye,text", 66)
    _, out, _ = in_dir(tmp_path, "validate", "g")
    assert out.splitlines() == [
        "g/cards.csv:1:2: warning: Cards: field 'tpye' that no template uses (did you mean 'type'?) on 66 cards "
        "(first: 'Card 0', cards.csv:2:1)",
        "g: 0 errors, 1 warning"]


# -- SVG art: gradients drawn, text in an embedded font ----------------------------------------

GRADIENT_SVG = """<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50" viewBox="0 0 100 50">
  <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="0">
    <stop offset="0" stop-color="#ff0000"/><stop offset="1" stop-color="#0000ff"/></linearGradient></defs>
  <rect x="0" y="0" width="100" height="50" fill="url(#g)"/>
  <text x="5" y="45" font-family="Fancyface" font-style="italic" font-size="6">made by hand</text>
</svg>
"""
ART = """
    elements:
      - {name: bg, type: rect, box: bleed, fill: "#ffffff"}
      - {name: pic, type: image, src: "{{ card.art }}", fit: stretch, x: 10mm, y: 10mm, width: 40mm, height: 20mm}
"""


def _pixels(pdf, page: int, dpi: float = 100):
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(pdf))
    w_pt = doc[page].get_width()
    image = doc[page].render(scale=dpi / 72).to_pil().convert("RGB")
    bleed_mm = (w_pt / 72 * 25.4 - 63.5) / 2
    return lambda x_mm, y_mm: image.getpixel((round((x_mm + bleed_mm) / 25.4 * dpi),
                                              round((y_mm + bleed_mm) / 25.4 * dpi)))


def test_svg_gradients_are_drawn_and_svg_text_is_in_an_embedded_font_in_every_pdf(tiny_game, tmp_path):
    from pdffonts import pdf_fonts, unembedded

    root = tiny_game("cards:\n  - {name: Alpha, art: grad.svg}\n  - {name: Beta, art: grad.svg}\n", template=ART)
    write(root / "art" / "grad.svg", GRADIENT_SVG)
    code, out, _ = in_dir(tmp_path, "validate", str(root))
    assert out.splitlines() == [
        "tiny/deck.yaml:5:24: warning: field `art` (element 'pic', tiny/templates/tiny/face.yaml:3:35): SVG "
        "grad.svg sets text in the font 'Fancyface', which this game does not have; it prints in Lato (add "
        "Fancyface-Regular.ttf to fonts/, or turn the text into outlines in the drawing program) on 2 cards (first: "
        "'Alpha', deck.yaml:5:5)",
        "tiny: 0 errors, 1 warning"]
    code, _, err = in_dir(tmp_path, "build", str(root), "--only", "cards", "--only", "pdfx", "--only", "print",
                          "--only", "foldover", "--page", "a4")
    assert code == 0, err
    out_dir = root / "build"
    code, _, err = in_dir(tmp_path, "build", str(root), "--only", "cards", "--out", str(tmp_path / "again"),
                          "--changed-since", str(out_dir))
    assert code == 0, err
    pdfs = sorted([*out_dir.rglob("*.pdf"), *(tmp_path / "again").rglob("changes-*.pdf")])
    assert {p.name for p in pdfs} >= {"cards.pdf", "things-pdfx.pdf", "print-a4.pdf", "print-a4-foldover.pdf",
                                      "changes-a4.pdf"}
    for pdf in pdfs:        # the SVG's italic text: in Lato Italic, embedded (it was Times-Italic, not embedded)
        assert unembedded(pdf) == [], pdf.name
    assert any("Lato-Italic" in name for name in pdf_fonts(out_dir / "cards.pdf"))
    # the gradient, read back: red on the left, blue on the right, purple between; never black
    for pdf, page in ((out_dir / "cards.pdf", 0), (out_dir / "print-service" / "things-pdfx.pdf", 1)):
        px = _pixels(pdf, page)
        left, middle, right = px(12, 15), px(30, 15), px(48, 15)
        assert left[0] > 200 and left[2] < 80, (pdf.name, left)
        assert right[2] > 120 and right[0] < 80, (pdf.name, right)
        assert 60 < middle[0] < 220 and 60 < middle[2] < 220, (pdf.name, middle)
        assert px(5, 5) == (255, 255, 255)


def test_what_cardgen_cannot_draw_in_an_svg_is_said(tiny_game, tmp_path):
    root = tiny_game("cards:\n  - {name: Alpha, art: odd.svg}\n", template=ART)
    write(root / "art" / "odd.svg", """<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">
      <defs><pattern id="p" width="2" height="2"><rect width="1" height="1"/></pattern>
        <filter id="f"><feGaussianBlur stdDeviation="1"/></filter></defs>
      <rect width="10" height="5" fill="url(#p)"/><rect y="5" width="10" height="5" style="filter: url(#f)"/>
    </svg>""")
    _, out, _ = in_dir(tmp_path, "validate", str(root))
    assert out.splitlines() == [
        "tiny/deck.yaml:5:24: warning: card 'Alpha' (deck.yaml:5), field `art` (element 'pic', "
        "tiny/templates/tiny/face.yaml:3:35): SVG odd.svg has what cardgen cannot draw: pattern fills (not drawn); "
        "filters such as blurs and shadows (left out); simplify it in the drawing program or export it as a PNG",
        "tiny: 0 errors, 1 warning"]


def test_the_pdfx_preflight_reads_back_every_font_and_says_which_is_not_embedded(tiny_game, tmp_path, monkeypatch):
    import io

    from reportlab.pdfgen.canvas import Canvas

    from cardgen.render import pdfx

    buf = io.BytesIO()
    c = Canvas(buf)
    c.setFont("Times-Italic", 10)
    c.drawString(10, 10, "x")
    c.beginForm("f")
    c.setFont("Courier", 10)
    c.drawString(10, 10, "y")
    c.endForm()
    c.doForm("f")
    c.save()
    assert pdfx.unembedded_fonts(buf.getvalue()) == ["Courier", "Helvetica", "Times-Italic"]
    # the print-service output runs it on each file it makes, and says what it found
    root = tiny_game()
    code, _, err = in_dir(tmp_path, "build", str(root), "--only", "pdfx")
    assert code == 0 and "pdfx-pdf" not in err and "embedding" not in err
    monkeypatch.setattr(pdfx, "unembedded_fonts", lambda data: ["Times-Italic"])
    code, _, err = in_dir(tmp_path, "build", str(root), "--only", "pdfx", "--out", str(tmp_path / "o2"))
    assert "tiny/deck.yaml:1:1: warning: print-service/things-pdfx.pdf uses font Times-Italic without embedding " \
           "it: it is not PDF/X-1a and a print service will refuse it" in err


# -- a value of the wrong shape ------------------------------------------------------------------

SHAPES = """
    elements:
      - {name: body, type: text, x: 5mm, y: 5mm, width: 50mm, height: 20mm, text: "{{ card.text }}"}
      - {name: line, type: text, x: 5mm, y: 30mm, width: 50mm, height: 10mm, text: "Cost: {{ card.cost }}"}
      - {name: dot, type: rect, x: 5mm, y: 45mm, width: 5mm, height: 5mm, fill: "{{ card.ink }}"}
"""


def test_a_mapping_or_list_where_text_or_a_colour_is_printed_is_an_error_at_the_card(tiny_game, tmp_path):
    root = tiny_game("""
        cards:
          - {name: Map, text: {a: 1}, cost: 1, ink: red}
          - {name: List, text: [a, b], cost: 1, ink: red}
          - {name: InText, text: ok, cost: {gold: 2}, ink: red}
          - {name: ListInText, text: ok, cost: [1, 2], ink: red}
          - {name: Ink, text: ok, cost: 1, ink: {r: 1}}
          - {name: Fine, text: ok, cost: 1, ink: red}
    """, template=SHAPES)
    code, out, _ = in_dir(tmp_path, "validate", str(root))
    assert code == 1
    face = "tiny/templates/tiny/face.yaml"
    assert out.splitlines() == [
        f"tiny/deck.yaml:5:23: error: card 'Map' (deck.yaml:5), field `text` (element 'body', {face}:2:79): "
        f"`text` must be text, got a mapping",
        f"tiny/deck.yaml:6:24: error: card 'List' (deck.yaml:6), field `text` (element 'body', {face}:2:79): "
        f"`text` must be text, got a list",
        f"tiny/deck.yaml:7:36: error: card 'InText' (deck.yaml:7), field `cost` (element 'line', {face}:3:80): "
        f"`card.cost` is a mapping, which cannot be printed as text; give the field text (or print one of its "
        f"keys: {{{{ card.cost.KEY }}}})",
        f"tiny/deck.yaml:9:41: error: card 'Ink' (deck.yaml:9), field `ink` (element 'dot', {face}:4:77): `fill` "
        f"must be a colour such as #1d6a72, a CSS colour name or none, or a gradient such as "
        f"{{linear: [\"#fff\", \"#c00\"]}}, got a mapping",
        f"{face}:3:80: error: card 'ListInText' (deck.yaml:8), element 'line': the expression gives a list, which "
        f"cannot be printed as text; join it: {{{{ ... | join(', ') }}}}",
        "tiny: 5 errors, 0 warnings"]
    code, _, err = in_dir(tmp_path, "build", str(root), "--only", "cards")
    assert code == 1 and "card 'Map'" in err and "Traceback" not in err


# -- characters no font has, on every path that draws text --------------------------------------

def test_a_character_no_font_has_in_the_rulebook_is_a_warning_at_its_line(tmp_path):
    game = _new_game(tmp_path)
    rules = game / "rules.yaml"
    rules.write_text(rules.read_text().replace('intro: "One paragraph:', 'intro: "\u4e2d One paragraph:'))
    line = _card_line(rules, "intro:")
    for only in ("booklet", "player-aid"):
        code, _, err = in_dir(tmp_path, "build", "g", "--only", only, "--out", str(tmp_path / only))
        said = [x for x in err.splitlines() if "no glyph" in x]
        if only == "player-aid":            # (the player aid does not print the intro)
            assert said == []
            continue
        assert code == 0 and said == [
            f"g/rules.yaml:{line}:8: warning: rulebook text: font Vollkorn-Italic and the fallback font DejaVuSans "
            f"have no glyph for U+4E2D CJK UNIFIED IDEOGRAPH-4E2D; it prints blank or as a box (add a font that "
            f"has it to fonts/ and name it in game.yaml `fallback_fonts:`, or leave it out)"]
    player = game / "rules.yaml"
    player.write_text(player.read_text().replace('turn: ["Draw a card."', 'turn: ["Draw a \u4e2d card."'))
    code, _, err = in_dir(tmp_path, "build", "g", "--only", "player-aid", "--out", str(tmp_path / "pa"))
    said = [x for x in err.splitlines() if "no glyph" in x]
    assert len(said) == 1 and said[0].startswith(f"g/rules.yaml:{line}:8: warning: rulebook text: font ")


def test_the_changes_list_draws_card_names_in_the_fallback_fonts_and_says_what_no_font_has(tiny_game, tmp_path):
    root = tiny_game()
    code, _, err = in_dir(tmp_path, "build", str(root), "--only", "cards", "--out", str(tmp_path / "before"))
    assert code == 0, err
    deck = root / "deck.yaml"
    deck.write_text(deck.read_text() + "  - {name: \"Star \u2605 \u4e2d\"}\n")
    code, _, err = in_dir(tmp_path, "build", str(root), "--only", "cards", "--page", "a4",
                          "--out", str(tmp_path / "after"), "--changed-since", str(tmp_path / "before"))
    assert code == 0, err
    said = [x for x in err.splitlines() if "changes-a4.pdf" in x]
    assert said == [
        "tiny/deck.yaml:7:12: warning: changes-a4.pdf (its list of cards): font Lato-Regular and the fallback font "
        "DejaVuSans have no glyph for U+4E2D CJK UNIFIED IDEOGRAPH-4E2D; it prints blank or as a box (add a font "
        "that has it to fonts/ and name it in game.yaml `fallback_fonts:`, or leave it out)"]
    # the star, which Lato lacks, is drawn on the list's page by the fallback font (it was dropped)
    from pypdf import PdfReader

    listing = PdfReader(tmp_path / "after" / "tiny" / "changes-a4.pdf").pages[0]
    assert any("DejaVuSans" in str(f.get_object()["/BaseFont"]) for f in listing["/Resources"]["/Font"].values())
    assert "★" in listing.extract_text()


def test_the_title_and_deck_names_cardgen_prints_itself_are_drawn_in_the_fallback_fonts_and_checked(tiny_game,
                                                                                                    tmp_path):
    from pypdf import PdfReader

    root = tiny_game(game_extra="")
    (root / "game.yaml").write_text("title: \"Tiny \u2605 \u4e2d\"\n")
    code, out, _ = in_dir(tmp_path, "validate", str(root))
    said = [x for x in out.splitlines() if "title" in x]
    assert said == [
        "tiny/game.yaml:1:8: warning: the game's title (printed on the sheets' margins, the calibration sheet and "
        "the changes list): font Lato-Regular and the fallback font DejaVuSans have no glyph for U+4E2D CJK UNIFIED "
        "IDEOGRAPH-4E2D; it prints blank or as a box (add a font that has it to fonts/ and name it in game.yaml "
        "`fallback_fonts:`, or leave it out)"]
    code, _, err = in_dir(tmp_path, "build", str(root), "--only", "print", "--only", "calibration", "--page", "a4")
    assert code == 0, err
    for name in ("print-a4.pdf", "calibration-a4.pdf"):     # the star: drawn by the fallback font (it was dropped)
        page = PdfReader(root / "build" / name).pages[0]
        assert "\u2605" in page.extract_text(), name


def test_a_placeholder_label_with_a_character_its_font_lacks_is_said(tiny_game, tmp_path):
    root = tiny_game(template="""
        elements:
          - {name: pic, type: image, src: "", placeholder: "art \u4e2d", x: 0, y: 0, width: 10mm, height: 10mm}
    """)
    _, out, _ = in_dir(tmp_path, "validate", str(root))
    assert out.splitlines() == [
        "tiny/templates/tiny/face.yaml:2:52: warning: element 'pic': the placeholder's label: font Lato-Italic has "
        "no glyph for U+4E2D CJK UNIFIED IDEOGRAPH-4E2D; it prints as a box (write the label without it) on 2 cards "
        "(first: 'Alpha', deck.yaml:5:5)",
        "tiny: 0 errors, 1 warning"]


def test_the_print_service_preflight_says_a_finding_of_many_cards_once(tiny_game, tmp_path):
    root = tiny_game("cards:\n" + "".join(f"  - {{name: Card {i}}}\n" for i in range(5)), template="""
        elements:
          - {name: edge, type: text, x: 1mm, y: 10mm, width: 40mm, height: 8mm, text: "{{ card.name }}"}
    """)
    code, _, err = in_dir(tmp_path, "build", str(root), "--only", "pdfx")
    said = [x for x in err.splitlines() if "safe area" in x]
    assert code == 0 and said == [
        "tiny/templates/tiny/face.yaml:2:5: warning: element 'edge': text comes closer to the trim than the 3.17 mm "
        "safe area a print service may cut into; move it inwards on 5 cards (first: 'Card 0', deck.yaml:5:5)"]


def test_svg_text_with_a_character_its_font_lacks_is_said(tiny_game, tmp_path):
    root = tiny_game("cards:\n  - {name: Alpha, art: cjk.svg}\n", template=ART)
    write(root / "art" / "cjk.svg", '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
                                    '<text x="1" y="8" font-family="Lato" font-size="5">a\u4e2d</text></svg>')
    _, out, _ = in_dir(tmp_path, "validate", str(root))
    assert out.splitlines() == [
        "tiny/deck.yaml:5:24: warning: card 'Alpha' (deck.yaml:5), field `art` (element 'pic', "
        "tiny/templates/tiny/face.yaml:3:35): SVG cjk.svg has text the font Lato-Regular has no glyph for (U+4E2D "
        "CJK UNIFIED IDEOGRAPH-4E2D); it prints as boxes (use a font in fonts/ that has it, or turn the text into "
        "outlines in the drawing program)",
        "tiny: 0 errors, 1 warning"]
