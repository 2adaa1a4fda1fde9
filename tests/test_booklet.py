"""Rule booklets: saddle-stitch imposition, the components page, Jinja in rules text,
errors at file:line, byte-identical output."""
from __future__ import annotations

import io
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from pypdf import PdfReader
from reportlab.pdfgen.canvas import Canvas

from cardgen.core.errors import CardgenError, Report
from cardgen.core.sizes import PAPER_SIZES_MM
from cardgen.core.units import MM
from cardgen.layout.rulebook import load_rulebook, rulebook_problems
from cardgen.load.game import load_game
from cardgen.load.yamlsrc import load_text
from cardgen.outputs.booklet import Strip, flow, make_booklet
from cardgen.pipeline.build import BuildOptions, build_game, game_docinfo, layout_game
from cardgen.render import docinfo, impose_booklet

ROOT = Path(__file__).resolve().parent.parent
GAME = ROOT / "cards" / "game-601"


# -- imposition -------------------------------------------------------------------
def _numbered_pdf(n: int) -> bytes:
    """n A5 pages, page i showing "P<i>" in its middle."""
    buf = io.BytesIO()
    w, h = PAPER_SIZES_MM["a5"][0] * MM, PAPER_SIZES_MM["a5"][1] * MM
    c = Canvas(buf, pagesize=(w, h), invariant=1)
    for i in range(1, n + 1):
        c.setFont("Helvetica", 24)
        c.drawCentredString(w / 2, h / 2, f"P{i}")
        c.showPage()
    c.save()
    return buf.getvalue()


def _halves(pdf: bytes, index: int, sheet_w: float, sheet_h: float):
    """(left page number or None, right page number or None) read back from one imposed side,
    with PDFium: it follows the pages into the forms they are placed as, like a viewer."""
    page = pdfium.PdfDocument(pdf)[index]
    text = page.get_textpage()

    def number(x0, x1):
        m = re.search(r"P(\d+)", text.get_text_bounded(x0, 0, x1, sheet_h))
        return int(m.group(1)) if m else None

    return number(0, sheet_w / 2), number(sheet_w / 2, sheet_w)


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_saddle_stitch_order_1_to_17_pages(paper):
    for n in range(1, 18):
        imposed = impose_booklet.impose(_numbered_pdf(n), paper)
        out = PdfReader(io.BytesIO(imposed))
        n4 = 4 * -(-n // 4)
        assert len(out.pages) == n4 // 2, n          # two sides per sheet
        sheet_w = float(out.pages[0].mediabox.width)
        assert sheet_w > float(out.pages[0].mediabox.height)      # landscape
        sheet_h = float(out.pages[0].mediabox.height)
        sides = [_halves(imposed, i, sheet_w, sheet_h) for i in range(len(out.pages))]
        k = n4 // 4
        fronts, backs = sides[0::2], sides[1::2]
        # fold the stack: right-hand leaves first (outer sheet first), then left-hand leaves
        # (inner sheet first); flipping on the short edge puts a front's right half behind
        # the back's left half
        reading = []
        for s in range(k):
            reading += [fronts[s][1], backs[s][0]]
        for s in reversed(range(k)):
            reading += [backs[s][1], fronts[s][0]]
        assert reading == list(range(1, n + 1)) + [None] * (n4 - n), (n, sides)
        # and exactly the documented formula
        assert sides == [tuple(p if p <= n else None for p in lr) for lr in impose_booklet.saddle_order(n)]


def test_a5_scaled_and_centred_on_half_letter():
    scale, dx, dy = impose_booklet.placement(148 * MM, 210 * MM, 279.4 / 2 * MM, 215.9 * MM)
    assert scale == pytest.approx(139.7 / 148)
    assert dx == pytest.approx(0.0, abs=1e-6)
    assert dy == pytest.approx((215.9 - 210 * 139.7 / 148) / 2 * MM)
    assert impose_booklet.placement(139.7 * MM, 215.9 * MM, 279.4 / 2 * MM, 215.9 * MM) == (1.0, 0.0, 0.0)


# -- page flow --------------------------------------------------------------------
def test_flow_splits_between_lines_and_keeps_headings_with_text():
    head = Strip(20, keep=True, space=10)
    lines = [Strip(12) for _ in range(30)]
    pages = flow([Strip(50), Strip(40), head, *lines], 100)
    for page in pages:
        assert all(y + s.h <= 100 + 1e-6 for y, s in page)
        assert page[0][0] == 0.0                       # space dropped at the top of a page
    # the heading did not fit with its first line after 90 pt: it moved to page 2
    assert pages[1][0][1] is head
    assert sum(len(p) for p in pages) == 33


# -- the real game ----------------------------------------------------------------
@pytest.fixture(scope="module")
def game601():
    game = load_game(GAME, ROOT, Report())
    return game, layout_game(game, Report())


def _deck_lines(pdf: bytes, page_index: int) -> str:
    """The deck lines of the components page (set at 1.08 x the 9.5 pt body size, unlike
    the text of the card thumbnails)."""
    page = PdfReader(io.BytesIO(pdf)).pages[page_index]
    words = []

    def visit(text, cm, tm, font, size):
        if text.strip() and abs(size - 9.5 * 1.08) < 0.01:
            words.append(text.strip())

    page.extract_text(visitor_text=visit)
    return " ".join(words)


def test_components_page_lists_exactly_the_decks_and_counts(game601):
    game, rendered = game601
    rules, _ = make_booklet(rendered)
    assert PdfReader(io.BytesIO(rules)).pages[1].extract_text().split()[0] == "Components"
    text = _deck_lines(rules, 1)
    found = re.findall(r"([A-Z][\w ]*?) — (\d+) cards?", text)
    assert found == [(d.name, str(d.count)) for d in game.decks]


def _with_rules(game, yaml_text: str, name="rules.yaml"):
    game.rules = load_text(yaml_text, str(GAME / name))
    return game


def test_jinja_reference_renders_the_datas_number():
    game = load_game(GAME, ROOT, Report())
    action = game.deck("Action")
    _with_rules(game, "sections:\n  - title: Cards\n    body:\n"
                      "      - 'The deck holds {{ decks.Action.count }} Action cards of {{ decks.Action.distinct }} kinds.'\n")
    book = load_rulebook(game)
    assert book.sections[0].body[0].text == \
        f"The deck holds {action.count} Action cards of {len(action.cards)} kinds."
    rules, _ = make_booklet(layout_game(game, Report()))
    text = " ".join(" ".join(p.extract_text().split()) for p in PdfReader(io.BytesIO(rules)).pages)
    assert f"The deck holds {action.count} Action cards of {len(action.cards)} kinds." in text


def test_the_game601_rulebook_uses_the_partner_data(game601):
    game, _ = game601
    book = load_rulebook(game)
    partners = next(s for s in book.sections if s.title == "Partners")
    table = partners.body[1]
    assert table.rows == [[c.name, f"{c.fields['cost']} AP", str(c.fields["hp"])]
                          for c in game.deck("Partner").cards]


BROKEN = """title: Broken
sections:
  - title: Cards
    body:
      - "Fine text."
      - "There are {{ decks.Actoin.count }} Action cards."
"""


def test_broken_reference_is_an_error_at_file_and_line():
    game = _with_rules(load_game(GAME, ROOT, Report()), BROKEN)
    problems = rulebook_problems(game)
    assert len(problems) == 1
    d = problems[0]
    assert (Path(d.loc.file).name, d.loc.line, d.loc.col) == ("rules.yaml", 6, 9)
    assert d.severity == "error"
    assert "deck 'Actoin'" in d.message and "did you mean 'Action'?" in d.message
    with pytest.raises(CardgenError) as exc:
        load_rulebook(game)
    assert str(exc.value).endswith(f"rules.yaml:6:9: error: {d.message}")


def test_broken_reference_stops_the_build(tmp_path):
    game_dir = tmp_path / "cards" / "game-601"
    shutil.copytree(GAME, game_dir)
    rules = (game_dir / "rules.yaml").read_text()
    marker = "sections:\n"
    assert marker in rules
    (game_dir / "rules.yaml").write_text(rules.replace('"All players act in the same round',
                                                       '"All {{ decks.Event.cout }} players act', 1))
    line, col = next((i, ln.index(".cout") + 1)
                     for i, ln in enumerate((game_dir / "rules.yaml").read_text().splitlines(), 1)
                     if "decks.Event.cout" in ln)
    with pytest.raises(CardgenError) as exc:
        build_game(game_dir, ROOT, BuildOptions(out=tmp_path / "build", only=("booklet",)), Report())
    msgs = [str(d) for d in exc.value.diagnostics if d.severity == "error"]   # (warnings are listed too)
    assert len(msgs) == 1
    assert re.fullmatch(rf".*rules\.yaml:{line}:{col}: error: rules text '{{{{ decks\.Event\.cout }}}}': "
                        rf"decks\.Event has no 'cout' \(a deck has count, distinct, cards and name\)", msgs[0])
    assert not (tmp_path / "build").exists()


def test_unknown_block_and_icon_are_reported():
    game = _with_rules(load_game(GAME, ROOT, Report()),
                       "sections:\n  - title: A\n    body:\n      - stepz: [a]\n      - 'See :nosuchicon:.'\n")
    msgs = sorted((d.loc.line, d.message) for d in rulebook_problems(game))
    assert msgs[0][0] == 4 and "unknown block 'stepz'; did you mean 'steps'?" in msgs[0][1]
    assert msgs[1][0] == 5 and "unknown icon ':nosuchicon:'" in msgs[1][1]


def test_booklet_pages_and_player_aid(game601):
    _game, rendered = game601
    rules, aid = make_booklet(rendered, "half-letter")
    r = PdfReader(io.BytesIO(rules))
    w, h = (float(v) / MM for v in (r.pages[0].mediabox.width, r.pages[0].mediabox.height))
    assert (round(w, 1), round(h, 1)) == (139.7, 215.9)
    # page numbers on every page but the cover
    for i, page in enumerate(r.pages[1:], 2):
        assert str(i) in page.extract_text().split()
    a = PdfReader(io.BytesIO(aid))
    assert len(a.pages) == 2
    trim = a.pages[0].trimbox
    assert (round(float(trim.width) / MM, 1), round(float(trim.height) / MM, 1)) == (63.5, 88.9)
    assert "Your turn" in " ".join(a.pages[0].extract_text().split())
    assert "End of the game" in " ".join(a.pages[1].extract_text().split())
    # every font embedded
    for page in [*r.pages, *a.pages]:
        for font in (page["/Resources"].get("/Font") or {}).values():
            desc = font.get_object().get("/FontDescriptor")
            desc = desc.get_object() if desc else None
            assert desc is None or "/FontFile2" in desc, font


def test_byte_identical_rebuild(game601, tmp_path):
    _, rendered = game601
    with docinfo.using(game_docinfo(rendered.game)):      # the designer, as a build writes it
        rules, aid = make_booklet(rendered)
        imposed = impose_booklet.impose(rules, "letter", "Game 601")
        again = make_booklet(layout_game(load_game(GAME, ROOT, Report()), Report()))
        assert again == (rules, aid)
        assert impose_booklet.impose(again[0], "letter", "Game 601") == imposed
    # and in a fresh process, through the command line
    out = tmp_path / "out"
    subprocess.run([sys.executable, "-m", "cardgen", "build", "game-601", "--only", "booklet", "--only", "player-aid",
                    "--page", "letter", "--out", str(out)], cwd=ROOT, check=True, capture_output=True,
                   env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert (out / "game-601" / "rules.pdf").read_bytes() == rules
    assert (out / "game-601" / "player-aid.pdf").read_bytes() == aid
    assert (out / "game-601" / "rules-booklet-letter.pdf").read_bytes() == imposed
    assert not (out / "game-601" / "rules-booklet-a4.pdf").exists()


def test_items_listed_and_components_in_jinja():
    game = _with_rules(load_game(GAME, ROOT, Report()), """components:
  - item: CIV tokens
    count: 15
  - item: Money tokens
    count: tbd
sections:
  - title: Tokens
    body: ["There are {{ components['CIV tokens'].count }} CIV tokens."]
""")
    assert load_rulebook(game).sections[0].body[0].text == "There are 15 CIV tokens."
    rules, _ = make_booklet(layout_game(game, Report()))
    pages = PdfReader(io.BytesIO(rules)).pages
    text = " ".join(" ".join(pages[i].extract_text().split()) for i in (1, 2))   # the list may run over
    assert "Also needed" in text
    assert "15 CIV tokens" in text
    assert "Money tokens (count still to be decided)" in text


# -- outline, links, punctuation, contrast (issue 14) ---------------------------------------

BUNDLED = sorted(p.name for p in (Path(__file__).resolve().parent.parent / "cards").iterdir()
                 if (p / "rules.yaml").is_file())


@pytest.fixture(scope="module")
def bundled_booklets(tmp_path_factory):
    repo = Path(__file__).resolve().parent.parent
    out = tmp_path_factory.mktemp("booklets")
    books = {}
    for name in BUNDLED:
        build_game(repo / "cards" / name, repo, BuildOptions(only=("booklet",), out=out), Report())
        books[name] = PdfReader(out / name / "rules.pdf")
    return books


def _outline(reader: PdfReader) -> list[tuple[str, int]]:
    got: list[tuple[str, int]] = []

    def walk(items):
        for it in items:
            if isinstance(it, list):
                walk(it)
            else:
                got.append((it.title, reader.get_destination_page_number(it)))
    walk(reader.outline)
    return got


def _headings(sections) -> list[str]:
    out = []
    for sec in sections:
        out.append(sec.title)
        out += _headings([b for b in sec.body if type(b).__name__ == "Section"])
    return out


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", s.replace("\u2019", "'").replace("\u201c", '"').replace("\u201d", '"')).strip()


@pytest.mark.parametrize("name", BUNDLED)
def test_outline_lists_every_heading_on_its_page(bundled_booklets, name):
    reader = bundled_booklets[name]
    repo = Path(__file__).resolve().parent.parent
    book = load_rulebook(load_game(repo / "cards" / name, repo, Report()))
    outline = _outline(reader)
    titles = [_norm(t) for t, _ in outline]
    for h in _headings(book.sections):
        assert _norm(re.sub(r"[*_]", "", h)) in titles, (name, h)
    assert "Components" in titles
    for title, page in outline:        # each entry goes to the page that shows the heading
        text = _norm(reader.pages[page].extract_text())
        assert _norm(title).split(" ")[0] in text, (name, title, page)


@pytest.mark.parametrize("name", BUNDLED)
def test_contents_links_go_to_their_sections(bundled_booklets, name):
    reader = bundled_booklets[name]
    dests = dict(_outline(reader))
    links = 0
    for page in reader.pages:
        for annot in page.get("/Annots") or []:
            a = annot.get_object()
            if a.get("/Subtype") != "/Link":
                continue
            target = a["/Dest"][0]
            target_no = next(i for i, p in enumerate(reader.pages) if p.indirect_reference == target)
            links += 1
            assert target_no in dests.values()
    top = list(load_rulebook(load_game(Path(__file__).resolve().parent.parent / "cards" / name,
                                              Path(__file__).resolve().parent.parent, Report())).sections)
    assert links == len(top)


@pytest.mark.parametrize("name", BUNDLED)
def test_no_straight_quotes_in_the_rules(bundled_booklets, name):
    reader = bundled_booklets[name]
    # the components pages show real cards (card data, drawn as printed); the rules follow them
    first = min(p for t, p in _outline(reader) if t not in ("Components", "Also needed", "Contents"))
    assert first >= 2
    for i, page in enumerate(reader.pages[first:], first + 1):
        text = page.extract_text()
        assert '"' not in text and "'" not in text, (name, i, [ln for ln in text.splitlines() if "'" in ln or '"' in ln])


def _luminance(rgb) -> float:
    def lin(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (lin(c) for c in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(fg, bg=(1, 1, 1)) -> float:
    hi, lo = sorted((_luminance(fg), _luminance(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_footer_text_contrast_at_least_4_5():
    from cardgen.core.units import color
    from cardgen.outputs import booklet

    assert contrast((0, 0, 0)) == pytest.approx(21.0)
    assert contrast(booklet.GREY) >= 4.5
    assert contrast(booklet.INK) >= 4.5
    assert contrast(color(booklet.DEFAULT_ACCENT)) >= 4.5
    for game in BUNDLED:               # accents the bundled games chose (page numbers, headings)
        repo = Path(__file__).resolve().parent.parent
        g = load_game(repo / "cards" / game, repo, Report())
        accent = booklet.Booklet.resolve(g.data).accent or color(booklet.DEFAULT_ACCENT)
        assert contrast(accent) >= 4.5, game


def test_smarten():
    from cardgen.layout.rulebook import smarten

    assert smarten('the "XX" card, the rules\' end -- 2-4 players - or more...') == \
        "the \u201cXX\u201d card, the rules\u2019 end \u2014 2\u20134 players \u2013 or more\u2026"
    assert smarten("it's **\"bold\"** and 'quoted' at -1") == \
        "it\u2019s **\u201cbold\u201d** and \u2018quoted\u2019 at -1"
