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
from pdfgeom import pdf_entry
from pypdf import PdfReader
from reportlab.pdfgen.canvas import Canvas

from cardgen.core.errors import CardgenError, Report
from cardgen.core.sizes import PAPER_SIZES_MM
from cardgen.core.units import MM, color
from cardgen.layout.rulebook import load_rulebook, rulebook_problems
from cardgen.load.yamlsrc import load_text
from cardgen.model import ops
from cardgen.outputs import booklet, player_aid
from cardgen.pipeline.build import BuildOptions, build_game, game_docinfo, layout_game
from cardgen.pipeline.check import load_game
from cardgen.render import docinfo, impose_booklet
from cardgen.text.flow import Strip, flow
from cardgen.text.punctuation import smarten

ROOT = Path(__file__).resolve().parent.parent
GAME = ROOT / "cards" / "game-601"


def make_booklet(rendered, page: str = "a5", **options) -> tuple[bytes, bytes | None]:
    """(rules.pdf, player-aid.pdf or None): the two outputs made from a game's rulebook."""
    return booklet.make_booklet(rendered, page, **options), player_aid.make_player_aid(rendered)


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


def test_components_page_lists_exactly_the_decks_and_counts(game601):
    game, rendered = game601
    rules, _ = make_booklet(rendered)
    reader = PdfReader(io.BytesIO(rules))
    assert reader.pages[1].extract_text().split()[0] == "Components"
    # the components run from page 2 to the first rules heading (the card pictures are too
    # small to count as lines of text)
    end = next(p for t, p in _outline(reader) if t == "Overview")
    lines = [text for i in range(1, end + 1) for _, _, text in _lines(rules, i)]
    found = [m.groups() for m in map(re.compile(r"([A-Z][\w ]*?) — (\d+) cards?$").match, lines) if m]
    assert found == [(d.name, str(d.count)) for d in game.decks]


def test_german_booklet_and_player_aid_have_no_english_of_cardgens_own():
    """Game 601 in German (docs/languages.md): the rulebook's text is its `@de` translation, cardgen's own
    words (headings, counts, the footer, the cover's credits) are German, the decks named by `deck@de:`."""
    game = load_game(GAME, ROOT, Report(), lang="de")
    rendered = layout_game(game, Report())
    rules, aid = make_booklet(rendered)
    reader = PdfReader(io.BytesIO(rules))
    assert [t for t, _ in _outline(reader)][:4] == ["Inhalt", "Spielmaterial", "Überblick", "Was in der Schachtel ist"]
    end = next(p for t, p in _outline(reader) if t == "Überblick")
    lines = [text for i in range(1, end + 1) for _, _, text in _lines(rules, i)]
    found = [m.groups() for m in map(re.compile(r"(\w[\w ]*?) — (\d+) Karten?$").match, lines) if m]
    assert found == [("Identität", "3"), ("Partner", "4"), ("Aktion", "37"), ("Ereignis", "10"), ("Schatz", "1"),
                     ("Spieler", "1")]
    assert "11 verschiedene · poker (63.5x88.9 mm)" in lines
    text = " ".join(" ".join(p.extract_text().split()) for p in reader.pages)
    for german in ("Spieler: nicht angegeben (2–4 angenommen)", "Autor: Jiachen Tang", "Version 2021-10-18 (Zw", "Spiel 601 · Spielregeln in Kürze",
                   "Auf einen Blick", "Dein Zug", "Obdachloser 1 VP 2"):
        assert german in text, german
    aid_text = [" ".join(p.extract_text().split()) for p in PdfReader(io.BytesIO(aid)).pages]
    assert "SPIEL 601 Dein Zug" in aid_text[0] and "Spielende" in aid_text[1] and "Nicht vergessen" in aid_text[1]
    english = re.compile(r"\b(Components|Contents|cards?|different|Designed|midterm|rules summary|Your turn|End of the "
                         r"game|Remember|At a glance|In the box|Players|AP|HP|Identity|Action|Event|Homeless)\b")
    for page_text in [text, *aid_text]:
        assert not english.search(page_text), english.search(page_text)


def _with_rules(game, yaml_text: str, name="rules.yaml"):
    from cardgen.load.rules import rules_from

    game.rules = rules_from(load_text(yaml_text, str(GAME / name)), GAME / name, Report())
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
    w, h = (float(v) / MM for v in (r.pages[0].trimbox.width, r.pages[0].trimbox.height))
    assert (round(w, 1), round(h, 1)) == (139.7, 215.9)
    # page numbers on every page but the cover and the back cover (the last page, with no number)
    back_cover = {p for t, p in _outline(r) if t in ("At a glance", "In the box")}
    for i, page in enumerate(r.pages[1:], 2):
        if i - 1 in back_cover:
            assert i == len(r.pages) and str(i) not in page.extract_text().split()
        else:
            assert str(i) in page.extract_text().split()
    a = PdfReader(io.BytesIO(aid))
    assert len(a.pages) == 2
    trim = a.pages[0].trimbox
    assert (round(float(trim.width) / MM, 1), round(float(trim.height) / MM, 1)) == (63.5, 88.9)
    assert "Your turn" in " ".join(a.pages[0].extract_text().split())
    assert "End of the game" in " ".join(a.pages[1].extract_text().split())
    # every font embedded
    for page in [*r.pages, *a.pages]:
        for font in pdf_entry(page["/Resources"], "/Font").values():
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
    assert (out / "game-601" / "en" / "rules.pdf").read_bytes() == rules
    assert (out / "game-601" / "en" / "player-aid.pdf").read_bytes() == aid
    assert (out / "game-601" / "en" / "rules-booklet-letter.pdf").read_bytes() == imposed
    assert not (out / "game-601" / "en" / "rules-booklet-a4.pdf").exists()


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
    # (spaces left out: the oldest pypdf allowed joins a wrapped line's last word to the next one's)
    assert "Moneytokens(countstilltobedecided)" in text.replace(" ", "")


# -- pagination, outline, links, punctuation, contrast, bleed (issue 14) --------------------

BUNDLED = [*sorted(p.name for p in (ROOT / "cards").iterdir() if (p / "rules.yaml").is_file()), "game-601/de"]


def _words(name: str):
    """cardgen's own words in the booklet `name` (its headings: "Components", "Inhalt")."""
    from cardgen.core.words import Words

    return Words(name.partition("/")[2] or None)


def _bundled(name: str, report: Report | None = None):
    """A bundled game as loaded for the booklet `name` ("game-601/de": Game 601 in German)."""
    game, _, lang = name.partition("/")
    return load_game(ROOT / "cards" / game, ROOT, Report() if report is None else report, lang=lang or None)


@pytest.fixture(scope="module")
def bundled_pdfs(bundled_build):
    """rules.pdf and player-aid.pdf of every bundled game, as `cardgen build` writes them (the
    session's one build of each game, tests/conftest.py `bundled_build`)."""
    pdfs = {}
    for name in BUNDLED:
        game, _, lang = name.partition("/")
        folder = bundled_build(game)[0] / (lang or ("en" if name == "game-601" else ""))     # (en/ and de/)
        pdfs[name] = ((folder / "rules.pdf").read_bytes(), (folder / "player-aid.pdf").read_bytes())
    return pdfs


@pytest.fixture(scope="module")
def bundled_booklets(bundled_pdfs):
    return {name: PdfReader(io.BytesIO(rules)) for name, (rules, _) in bundled_pdfs.items()}


def _outline(reader: PdfReader) -> list[tuple[str, int]]:
    return [(t, p) for t, p, _ in _outline_tops(reader)]


def _outline_tops(reader: PdfReader) -> list[tuple[str, int, float]]:
    """(title, page index, top of the destination in PDF points) of every bookmark."""
    got: list[tuple[str, int, float]] = []

    def walk(items):
        for it in items:
            if isinstance(it, list):
                walk(it)
            else:
                got.append((it.title, reader.get_destination_page_number(it), float(it.top)))
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


def _squash(s: str) -> str:
    """Text without spaces or markup, quotes made straight: to compare text found on a page."""
    return re.sub(r"[\s*_]", "", _norm(s))


def _lines(pdf: bytes, index: int) -> list[tuple[float, float, str]]:
    """(top, bottom, text) of each line of text on a page, top first, in PDF points from the
    bottom of the page, read with PDFium (which follows text into forms). Text smaller than
    4 pt (the text of the small card pictures) is left out."""
    page = pdfium.PdfDocument(pdf)[index]
    tp = page.get_textpage()
    rows: list[list] = []
    last = None
    for i in range(tp.count_chars()):
        ch = tp.get_text_range(i, 1)
        left, bottom, _, top = tp.get_charbox(i, loose=True)
        if not ch.strip():              # a space belongs to the line of the character before it
            if ch == " " and last is not None:
                last[2].append((left, ch))
            continue
        last = None
        if top - bottom < 4:
            continue
        for row in rows:
            if abs(row[1] - bottom) < 1.0:
                row[2].append((left, ch))
                row[0] = max(row[0], top)
                last = row
                break
        else:
            last = [top, bottom, [(left, ch)]]
            rows.append(last)
    rows.sort(key=lambda r: -r[1])
    return [(t, b, re.sub(r"\s+", " ", "".join(c for _, c in sorted(chars, key=lambda lc: lc[0]))).strip())
            for t, b, chars in rows]


def _content_lines(pdf: bytes, index: int) -> list[tuple[float, float, str]]:
    """The lines above the footer (the page number and running title are left out)."""
    page = PdfReader(io.BytesIO(pdf)).pages[index]
    floor = float(page.trimbox.bottom) + booklet.MARGIN_BOTTOM - 1 * MM
    return [ln for ln in _lines(pdf, index) if ln[1] >= floor]


@pytest.mark.parametrize("name", BUNDLED)
def test_no_heading_is_the_last_line_on_a_page(bundled_pdfs, bundled_booklets, name):
    pdf, reader = bundled_pdfs[name][0], bundled_booklets[name]
    found = 0
    for title, page, top in _outline_tops(reader):
        lines = [ln for ln in _content_lines(pdf, page) if ln[0] <= top + 0.5]
        want, got, k = _squash(title), "", 0
        while k < len(lines) and len(got) < len(want):     # the heading's line(s) below its bookmark
            got += _squash(lines[k][2])
            k += 1
        assert got == want, (name, page + 1, title, got)
        found += 1
        assert k < len(lines), f"{name} p{page + 1}: heading {title!r} is the last line on the page"
    assert found >= len(_headings(load_rulebook(_bundled(name)).sections))


def _ink_fill(pdf: bytes, index: int) -> float:
    """How far down the text block of a page the ink goes (0 to 1), from the page rendered at
    72 dpi: the rows from the top margin to the bottom margin inside the trim."""
    page = PdfReader(io.BytesIO(pdf)).pages[index]
    trim = page.trimbox
    top = float(page.mediabox.top) - float(trim.top) + booklet.MARGIN_TOP
    bottom = float(page.mediabox.top) - float(trim.bottom) - booklet.MARGIN_BOTTOM
    left = float(trim.left) + booklet.MARGIN_X
    right = float(trim.right) - booklet.MARGIN_X
    img = pdfium.PdfDocument(pdf)[index].render(scale=1).to_pil().convert("L")
    block = img.crop((round(left), round(top), round(right), round(bottom)))
    ink = block.point(lambda v: 255 if v < 200 else 0).getbbox()
    return ink[3] / block.height if ink else 0.0


@pytest.mark.parametrize("name", BUNDLED)
def test_whole_sheets_and_every_page_but_the_last_a_quarter_full(bundled_pdfs, name):
    pdf = bundled_pdfs[name][0]
    n = len(PdfReader(io.BytesIO(pdf)).pages)
    assert n % 4 == 0, (name, n)                 # no blank pages added when it is imposed
    for i in range(n - 1):
        assert _ink_fill(pdf, i) >= 0.25, (name, i + 1, _ink_fill(pdf, i))
    assert _ink_fill(pdf, n - 1) > 0.05, name     # and the last page is not blank either


def test_face_off_fits_two_sheets(bundled_booklets):
    assert len(bundled_booklets["face-off"].pages) == 8


@pytest.mark.parametrize("name", BUNDLED)
def test_outline_lists_every_heading_on_its_page(bundled_booklets, name):
    reader = bundled_booklets[name]
    book = load_rulebook(_bundled(name))
    outline = _outline(reader)
    titles = [_norm(t) for t, _ in outline]
    for h in _headings(book.sections):
        assert _norm(re.sub(r"[*_]", "", h)) in titles, (name, h)
    assert _words(name)("Components") in titles
    for title, page in outline:        # each entry goes to the page that shows the heading
        text = _norm(reader.pages[page].extract_text())
        assert _norm(title).split(" ")[0] in text, (name, title, page)


def _links(reader: PdfReader) -> list[tuple[int, int]]:
    """(page index of the link, page index it goes to) of every link."""
    out = []
    for i, page in enumerate(reader.pages):
        for annot in page.get("/Annots") or []:
            a = annot.get_object()
            if a.get("/Subtype") == "/Link":
                target = a["/Dest"][0]
                out.append((i, next(k for k, p in enumerate(reader.pages) if p.indirect_reference == target)))
    return out


@pytest.mark.parametrize("name", BUNDLED)
def test_contents_on_one_page_from_8_pages_and_links_go_to_their_sections(bundled_booklets, name):
    reader = bundled_booklets[name]
    outline = _outline(reader)
    top = load_rulebook(_bundled(name)).sections
    links = _links(reader)
    if len(reader.pages) < 8:                       # a short booklet has no contents list
        assert _words(name)("Contents") not in [t for t, _ in outline] and not links
        return
    contents_page = next(p for t, p in outline if t == _words(name)("Contents"))
    assert [p for p, _ in links] == [contents_page] * len(top)     # every entry on the one page
    # each entry goes to the page and place of its section's heading, and prints that page's number
    text = _norm(reader.pages[contents_page].extract_text())
    dests = [a.get_object()["/Dest"] for a in reader.pages[contents_page]["/Annots"]
             if a.get_object().get("/Subtype") == "/Link"]
    tops = _outline_tops(reader)
    for sec, (_, target), dest in zip(top, links, dests):
        assert (_norm(sec.title), target, pytest.approx(float(dest[3]))) in [(_norm(t), p, y) for t, p, y in tops], \
            (name, sec.title)
        assert re.search(re.escape(_norm(sec.title)) + rf"\s*{target + 1}\b", text), (name, sec.title, target)


@pytest.mark.parametrize("name", BUNDLED)
def test_no_straight_quotes_in_the_rules(bundled_booklets, name):
    reader = bundled_booklets[name]
    words = _words(name)
    # the components pages and the back cover show real cards (card data, drawn as printed)
    outline = _outline(reader)
    first = min(p for t, p in outline if t not in map(words, ("Components", "Also needed",
                                                              "Bought or from another game", "Contents")))
    box = [p for t, p in outline if t == words("In the box")]
    assert first >= 2
    for i, page in enumerate(reader.pages[first:box[0] if box else None], first + 1):
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


def _text_contrasts(pages) -> list[tuple[float, str]]:
    """(contrast, text) of every run of text on the pages' drawing operations, against the
    colour of the last filled rectangle drawn under it (white when there is none)."""
    out = []
    for page in pages:
        for k, op in enumerate(page.ops):
            if not isinstance(op, ops.Text):
                continue
            for run in op.runs:
                if run.kind != "text" or not str(run.content).strip():
                    continue
                x, y = run.x + 0.5, run.baseline - run.size * 0.3
                bg = (1.0, 1.0, 1.0)
                for under in reversed(page.ops[:k]):
                    if (isinstance(under, ops.Rect) and under.fill is not None
                            and under.x <= x <= under.x + under.w and under.y <= y <= under.y + under.h):
                        bg = under.fill
                        break
                out.append((contrast(run.color or (0, 0, 0), bg), str(run.content)))
    return out


@pytest.mark.parametrize("name", BUNDLED)
def test_text_contrast_at_least_4_5_everywhere(name):
    """Every piece of text of the booklet and the player aid, footers included, against what is
    behind it, from the colours drawn."""
    game = _bundled(name)
    rendered = layout_game(game, Report())
    book = load_rulebook(game)
    accent = booklet.accent_or_default(booklet.Booklet.resolve(game.data).accent)
    pages = booklet.BookletMaker(rendered, book, "a5", accent).pages()
    pages += player_aid.player_aid_pages(rendered, book, accent) if book.player_aid else []
    found = _text_contrasts(pages)
    assert len(found) > 100
    low = [(round(c, 2), t) for c, t in found if c < 4.5]
    assert not low, (name, low[:5])


def test_light_accent_is_darkened_for_text_and_white_gives_way_to_ink(game601):
    _, rendered = game601
    book = load_rulebook(rendered.game)
    gold = (0.88, 0.65, 0.15, 1.0)                   # 2.1:1 on white
    assert contrast(gold) < 3
    pages = booklet.BookletMaker(rendered, book, "a5", gold).pages()
    found = _text_contrasts(pages + player_aid.player_aid_pages(rendered, book, gold))
    assert min(c for c, _ in found) >= 4.5
    # the headings keep the accent's hue, darkened just enough
    heads = {run.color for p in pages for op in p.ops if isinstance(op, ops.Text) for run in op.runs
             if run.content == "Overview" and run.size > 14}
    assert len(heads) == 1
    (col,) = heads
    assert 4.5 <= contrast(col) < 5.0 and col[0] > col[1] > col[2]


def test_footer_colours():
    assert contrast((0, 0, 0)) == pytest.approx(21.0)
    assert contrast(booklet.GREY) >= 4.5
    assert contrast(booklet.INK) >= 4.5
    assert contrast(color(booklet.DEFAULT_ACCENT)) >= 4.5


@pytest.mark.parametrize("name", BUNDLED)
def test_bleed_and_trim_boxes(bundled_pdfs, bundled_booklets, name):
    reader = bundled_booklets[name]
    for page in reader.pages:
        media, trim, bleed = page.mediabox, page.trimbox, page.bleedbox
        assert (round(float(trim.width) / MM, 2), round(float(trim.height) / MM, 2)) == (148.0, 210.0)
        for edge in ("left", "bottom"):
            assert float(getattr(trim, edge)) - float(getattr(media, edge)) == pytest.approx(3 * MM, abs=1e-3)
        for edge in ("right", "top"):
            assert float(getattr(media, edge)) - float(getattr(trim, edge)) == pytest.approx(3 * MM, abs=1e-3)
        assert [float(v) for v in bleed] == [float(v) for v in media]
    # the cover's band runs to the edge of the bleed
    game = _bundled(name)
    accent = booklet.accent_or_default(booklet.Booklet.resolve(game.data).accent)
    img = pdfium.PdfDocument(bundled_pdfs[name][0])[0].render(scale=1).to_pil().convert("RGB")
    for xy in ((0, 0), (img.width - 1, 0)):
        assert all(abs(a - round(b * 255)) <= 2 for a, b in zip(img.getpixel(xy), accent)), (name, xy)


def test_imposed_pages_are_placed_by_their_trim_and_clipped_to_it(bundled_pdfs):
    rules = bundled_pdfs["face-off"][0]
    accent = booklet.accent_or_default(booklet.Booklet.resolve(load_game(ROOT / "cards" / "face-off", ROOT,
                                                                         Report()).data).accent)
    imposed = impose_booklet.impose(rules, "a4", "Face Off")
    side = pdfium.PdfDocument(imposed)[0]          # the first side: page 8 left, the cover right
    w, h = side.get_size()
    assert (round(w / MM, 1), round(h / MM, 1)) == (297.0, 210.0)
    img = side.render(scale=2).to_pil().convert("RGB")
    mid = img.width // 2

    def is_accent(px) -> bool:
        return all(abs(a - round(b * 255)) <= 3 for a, b in zip(px, accent))

    assert is_accent(img.getpixel((mid + 2, 1)))              # the A5 cover fills its half to the top
    assert is_accent(img.getpixel((img.width - 2, 1)))        # ... and to the outer edge
    assert img.getpixel((mid - 3, 1)) == (255, 255, 255)      # its bleed stops at the fold


def _note_texts(game) -> list[str]:
    from cardgen.layout.rulebook import DesignerNote

    out = [str(d.data["designer_note"]) for d in game.decks if d.data.get("designer_note")]

    def walk(body):
        for b in body:
            if isinstance(b, DesignerNote):
                out.append(b.text)
            elif hasattr(b, "body"):
                walk(b.body)
    walk(load_rulebook(game).sections)
    return out


@pytest.mark.parametrize("name", ["face-off", "alter-ego"])
def test_designer_notes_are_shown_to_the_designer_not_printed(bundled_booklets, name):
    from cardgen.pipeline.check import check_game

    game = _bundled(name)
    notes = _note_texts(game)
    assert len(notes) >= 2
    printed = _squash(" ".join(p.extract_text() for p in bundled_booklets[name].pages))
    for text in notes:
        assert _squash(text)[:40] not in printed, (name, text)
    # validate and build show each one, at its file and line
    report = Report()
    check_game(ROOT / "cards" / name, ROOT, report)
    shown = [d for d in report.items if d.code == "designer-note"]
    assert len(shown) == len(notes) and all(d.severity == "note" for d in shown)
    for d in shown:
        line = Path(d.loc.file).read_text(encoding="utf-8").splitlines()[d.loc.line - 1]
        assert "designer_note:" in line, str(d)
        assert str(d).startswith(f"{d.loc}: note: designer's note, not printed for players: ")
    # asked for, they are printed
    rules, _ = make_booklet(layout_game(game, Report()), designer_notes=True)
    printed = _squash(" ".join(p.extract_text() for p in PdfReader(io.BytesIO(rules)).pages))
    for text in notes:
        assert _squash(smarten(text))[:40] in printed, (name, text)


def test_face_off_no_longer_prints_the_editorial_count():
    rules, _ = make_booklet(layout_game(load_game(ROOT / "cards" / "face-off", ROOT, Report()), Report()))
    text = _norm(" ".join(p.extract_text() for p in PdfReader(io.BytesIO(rules)).pages))
    assert "declared as 103" not in text and "103" not in text


def test_cover_fan_prefers_finished_cards(game601):
    import dataclasses

    _, rendered = game601
    book = load_rulebook(rendered.game)
    # the first card of every deck gets placeholder art ("art to come")
    firsts = {}
    faces = []
    for deck, card, lay in rendered.faces:
        if deck.name not in firsts:
            lay = dataclasses.replace(lay, ops=[*lay.ops, ops.Placeholder(0, 0, 20, 20, "art to come")])
            firsts[deck.name] = lay
        faces.append((deck, card, lay))
    fan = booklet.BookletMaker(dataclasses.replace(rendered, faces=faces), book, "a5", None).fan_cards()
    assert 3 <= len(fan) <= 5
    assert all(all(lay is not f for f in fan) for lay in firsts.values())
    assert all(booklet._card_unfinished(card, lay) == 0 for _, card, lay in faces if any(lay is f for f in fan))
    # with every card unfinished the fan still shows three, placeholder art last
    marked = [(d, c, dataclasses.replace(lay, ops=[*lay.ops, ops.Placeholder(0, 0, 9, 9, "x")]))
              for d, c, lay in rendered.faces]
    assert len(booklet.BookletMaker(dataclasses.replace(rendered, faces=marked), book, "a5", None).fan_cards()) == 3


def test_flow_never_leaves_a_heading_last_when_a_kept_run_is_taller_than_a_page():
    head = Strip(20, keep=True, heading=True)
    run = [Strip(30, keep=True) for _ in range(6)] + [Strip(30)]      # 210 pt kept together
    pages = flow([Strip(70), head, *run], 100)
    for page in pages:
        assert not page[-1][1].heading
        assert all(y + s.h <= 100 + 1e-6 for y, s in page)
    assert sum(len(p) for p in pages) == 9


def test_smarten():
    assert smarten('the "XX" card, the rules\' end -- 2-4 players - or more... --- done') == \
        "the \u201cXX\u201d card, the rules\u2019 end \u2013 2\u20134 players \u2013 or more\u2026 \u2014 done"
    assert smarten("it's **\"bold\"** and 'quoted' at -1") == \
        "it\u2019s **\u201cbold\u201d** and \u2018quoted\u2019 at -1"


def test_back_cover_lists_every_deck_when_their_pictures_do_not_fit(game601):
    import copy
    import dataclasses

    game, rendered = game601
    many = copy.copy(game)
    many.decks = list(game.decks) * 8                      # 48 decks: no room for 48 pictures
    maker = booklet.BookletMaker(dataclasses.replace(rendered, game=many), load_rulebook(game), "a5", None)
    few = booklet.BookletMaker(rendered, load_rulebook(game), "a5", None).back_cover(9.5, show_aid=False)
    assert sum(isinstance(op, booklet.Thumb) for op in few.ops) == len(game.decks)
    page = maker.back_cover(9.5, show_aid=False)
    assert not any(isinstance(op, booklet.Thumb) for op in page.ops)
    dots = [op for op in page.ops if isinstance(op, ops.Ellipse)]            # one bullet per deck
    assert len(dots) == 48 + len(maker._items())
    assert len({round(op.x) for op in dots}) == 2                            # in two columns
    band_top = booklet.BLEED + maker.ph - 44 * MM
    assert max(op.y + op.h for op in page.ops if isinstance(op, ops.Text)
               and op.y < band_top) <= band_top                         # all above the band


def test_a_long_table_sets_its_header_again_on_every_page(game601):
    from cardgen.layout.rulebook import Table

    _, rendered = game601
    maker = booklet.BookletMaker(rendered, load_rulebook(rendered.game), "a5", None)
    rows = [[f"Row {k}", str(k), str(k * k)] for k in range(60)]
    strips = maker.comp.table(Table(["Name", "n", "n²"], rows, None))
    pages = flow(strips, maker.ch)
    assert len(pages) >= 2
    header = strips[0]
    for page in pages:
        assert page[0][1] is header and page[0][0] == 0.0
        assert all(y + s.h <= maker.ch + 1e-6 for y, s in page)
    assert [s for p in pages for _, s in p if s is not header] == strips[1:]     # every row once, in order


def test_table_columns_are_as_wide_as_their_text_is_set():
    """A column's width comes from its cells as the text engine sets them: an icon at its
    icon's width (not as the text "[name]"), bold in bold; the room left is shared equally."""
    from cardgen.layout.rulebook import Table

    game = load_game(ROOT / "cards" / "vigilantes", ROOT, Report())
    rendered = layout_game(game, Report())
    comp = booklet.BookletMaker(rendered, load_rulebook(game), "a5", None).comp
    cells = [(":health: Health", "**3** dice"), (":energy: Energy", "1")]
    rows = comp.table(Table([], [list(r) for r in cells], None))
    texts = [[op for op in row.ops if isinstance(op, ops.Text)] for row in rows]
    pad = 1.6 * MM

    def set_width(op) -> float:     # (an icon is drawn 0.04 sizes inside the room it takes)
        first = op.runs[0]
        return op.runs[-1].x + op.runs[-1].width - (first.x - (0.04 * op.size if first.kind == "icon" else 0.0))

    assert [r.kind for r in texts[0][0].runs] == ["icon", "text"]       # the icon is drawn, not named
    natural = [max(set_width(t[c]) for t in texts) + 2 * pad + 1 for c in (0, 1)]
    share = (comp.w - sum(natural)) / 2
    assert share > 0
    assert texts[0][0].x == pytest.approx(pad)
    assert texts[0][1].x == pytest.approx(natural[0] + share + pad, abs=1e-6)
    # (measured as the plain text "[health] Health", the first column would be this much wider)
    face = comp.fonts.face(comp.st.body.family, "regular")
    assert comp.fonts.width("[health] Health", face.name, comp.st.body.size * 0.95) + 2 * pad + 1 > natural[0] + 5
