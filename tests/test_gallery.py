"""The gallery page (`build/<game>/index.html` + `gallery/`): every distinct side once, the
images the PDFs' own pixels, copies counted, problems beside their card, names escaped,
relative links only, the same bytes on every build."""
from __future__ import annotations

import io
import os
import re
from pathlib import Path

from conftest import REPO, in_dir
from pages import EVIL, card_tiles, grid_images, make_game, parse
from PIL import Image

from cardgen.core.errors import Diagnostic, Loc, Report
from cardgen.outputs.album import card_spans, place_problems
from cardgen.pipeline.check import check_game, load_game


def build(game: Path, *extra: str) -> Path:
    code, _, err = in_dir(game.parent, "build", game.name, "--only", "gallery", *extra)
    assert code == 0, err
    return game / "build"


def pixel(path: Path, where=(0.5, 0.6)) -> tuple[int, ...]:
    with Image.open(path) as im:
        return im.convert("RGB").getpixel((int(im.width * where[0]), int(im.height * where[1])))


def near(a, b, tol=3) -> bool:
    return all(abs(x - y) <= tol for x, y in zip(a, b))


def test_every_distinct_side_once_with_the_pdfs_pixels(tmp_path):
    game = make_game(tmp_path)
    out = build(game)
    html = (out / "index.html").read_text(encoding="utf-8")
    root = parse(html)
    images = grid_images(root)
    # Things: 5 faces + 1 shared back; Tokens: 2 faces + 2 per-card backs
    assert len(images) == 10
    srcs = [img.attrs["src"] for img in images]
    assert len(set(srcs)) == 10
    files = sorted(p.relative_to(out).as_posix() for p in (out / "gallery").rglob("*.png"))
    assert files == sorted(srcs)
    for img in images:
        with Image.open(out / img.attrs["src"]) as im:
            # a poker card's screen-class render (its TTS cell, 164 dpi), and the page's width/height say so
            assert (im.format, im.size) == ("PNG", (409, 573))
            assert (img.attrs["width"], img.attrs["height"]) == ("409", "573")
    by_alt = {img.attrs["alt"]: out / img.attrs["src"] for img in images}
    assert near(pixel(by_alt["Alpha (face)"]), (255, 0, 0))
    assert near(pixel(by_alt["Beta (face)"]), (0, 255, 0))
    assert near(pixel(by_alt["Things (back)"]), (0xaa, 0x22, 0x22))
    assert near(pixel(by_alt["Sun (face)"]), (255, 255, 0))
    assert near(pixel(by_alt["Sun (back)"]), (0, 0, 255))            # its own back's fields
    assert near(pixel(by_alt["Moon (back)"]), (255, 255, 255))
    assert near(pixel(by_alt["Moon (face)"]), (255, 255, 255))


def test_decks_copies_and_problems_by_card(tmp_path):
    game = make_game(tmp_path)
    root = parse((build(game) / "index.html").read_text(encoding="utf-8"))
    decks = root.find_all("section", "deck")
    assert [d.find_all("h2")[0].text() for d in decks] == ["Things", "Tokens"]
    assert "5 cards · 5 distinct" in decks[0].text() and "4 cards · 2 distinct" in decks[1].text()
    tiles = {t.find_all("span", "name")[0].text(): t for t in card_tiles(root)}
    assert list(tiles) == ["Alpha", "Beta", "Gamma", EVIL.replace("\x1b", "\\x1b"), "Parked", "Sun", "Moon"]
    assert {n: t.find_all("span", "count")[0].text() for n, t in tiles.items()} == {
        "Alpha": "×2", "Beta": "×1", "Gamma": "×1", EVIL.replace("\x1b", "\\x1b"): "×1", "Parked": "×0",
        "Sun": "×3", "Moon": "×1"}
    assert "parked" in tiles["Parked"].classes
    # the misspelt `cuont:` is reported at its line, beside Gamma and nowhere else
    line = (game / "things.yaml").read_text().splitlines().index("    cuont: 3") + 1
    gamma = tiles["Gamma"].find_all("li")
    assert [li.find_all("code")[0].text() for li in gamma] == [f"things.yaml:{line}"]
    assert "unknown key 'cuont'; did you mean 'count'?" in gamma[0].text()
    assert "has-problems" in tiles["Gamma"].classes and tiles["Gamma"].find_all("span", "badge")[0].text() == "1"
    assert [n for n, t in tiles.items() if t.find_all("li")] == ["Gamma"]
    assert tiles["Gamma"].find_all("code", "where")[0].text() == f"things.yaml:{line - 1}"


def test_names_are_escaped_and_nothing_is_fetched(tmp_path):
    game = make_game(tmp_path)
    html = (build(game) / "index.html").read_text(encoding="utf-8")
    assert "<script>alert" not in html and "\x1b" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;\\x1b[31m" in html
    assert "<title>Gallery &lt;Test&gt; · cards</title>" in html
    assert not [ch for ch in html if ord(ch) < 32 and ch not in "\n"]
    root = parse(html)
    assert len(root.find_all("script")) == 1 and "src" not in root.find_all("script")[0].attrs
    assert root.find_all("link") == []
    links = [n.attrs[a] for n in root.iter() for a in ("src", "href") if a in n.attrs]
    assert links and all(v.startswith(("gallery/", "#")) for v in links), links
    assert not re.search(r"https?:|@import|url\((?!#)|fetch\(|XMLHttpRequest|EventSource", html)      # (url(#...): a filter in the page itself
    assert str(tmp_path) not in html           # no path of the designer's computer


def test_the_same_bytes_every_build_and_removed_cards_leave(tmp_path):
    game = make_game(tmp_path)
    out = build(game)
    first = {p: p.read_bytes() for p in [out / "index.html", *(out / "gallery").rglob("*.png")]}
    out = build(game)
    assert {p: p.read_bytes() for p in [out / "index.html", *(out / "gallery").rglob("*.png")]} == first
    text = (game / "things.yaml").read_text().replace('  - {name: Beta, color: "#00ff00"}\n', "")
    (game / "things.yaml").write_text(text)
    out = build(game)
    assert not list((out / "gallery").rglob("*beta*"))
    assert len(list((out / "gallery").rglob("*.png"))) == 9


def test_dpi_option(tmp_path):
    game = make_game(tmp_path, "gallery: {dpi: 100}\n")
    out = build(game)
    for p in (out / "gallery").rglob("*.png"):
        with Image.open(io.BytesIO(p.read_bytes())) as im:
            assert im.size == (250, 350)


def test_a_bundled_game_shows_every_side(tmp_path):
    game = REPO / "cards" / "alien-conspiracy"
    code, _, err = in_dir(REPO, "build", str(game), "--only", "gallery", "--out", str(tmp_path))
    assert code == 0, err
    report = Report()
    checked = check_game(game, REPO, report)
    assert checked.rendered is not None
    root = parse((tmp_path / "alien-conspiracy" / "index.html").read_text(encoding="utf-8"))
    assert len(grid_images(root)) == len(checked.rendered.faces) + len(checked.rendered.backs) == 22
    assert len(card_tiles(root)) == len(checked.rendered.faces)


# -- where each problem goes --------------------------------------------------------------------

def test_problems_go_to_the_cards_named_else_the_lines_else_the_deck_else_the_game(tmp_path):
    game = make_game(tmp_path)
    g = load_game(game, game, Report())
    things = g.decks[0]
    f = str(things.file)
    spans = {c.name: (a, b) for a, b, c in card_spans(things)}
    assert spans["Alpha"] == (5, 5) and spans["Gamma"] == (7, 8) and spans["Parked"][0] == 10
    d = [
        Diagnostic(Loc(f, 8, 5), "something at Gamma's second line", "warning"),
        Diagnostic(Loc(f, 2, 1), "Things: 2 cards have no text yet ('Alpha', 'Beta')", "warning"),
        Diagnostic(Loc(f, 1, 1), "something about the deck", "warning"),
        Diagnostic(Loc(str(game / "templates" / "face.yaml"), 3, 1), "card 'Moon' (tokens.yaml:5), element x",
                   "error"),
        Diagnostic(Loc(str(game / "templates" / "face.yaml"), 4, 1), "card 'Moon' and card 'Gamma' differ",
                   "warning"),
        Diagnostic(Loc(str(game / "rules.yaml"), 4, 1), "Tokens: the rules leave the total open", "warning"),
        Diagnostic(Loc(str(game / "rules.yaml"), 9, 1), "item 'VP tokens': count open", "warning"),
    ]
    placed = place_problems(g.decks, d)
    named = {(slug, g.decks[0 if slug == "things" else 1].cards[i].name): [x.message for x in v]
             for (slug, i), v in placed.cards.items()}
    assert named == {("things", "Gamma"): ["card 'Moon' and card 'Gamma' differ", "something at Gamma's second line"],
                     ("things", "Alpha"): ["Things: 2 cards have no text yet ('Alpha', 'Beta')"],
                     ("things", "Beta"): ["Things: 2 cards have no text yet ('Alpha', 'Beta')"],
                     ("tokens", "Moon"): ["card 'Moon' (tokens.yaml:5), element x",
                                          "card 'Moon' and card 'Gamma' differ"]}
    assert {k: [x.message for x in v] for k, v in placed.decks.items()} == {
        "things": ["something about the deck"], "tokens": ["Tokens: the rules leave the total open"]}
    assert [x.message for x in placed.game] == ["item 'VP tokens': count open"]


def test_problems_of_one_file_named_two_ways_go_to_the_same_deck(tmp_path, monkeypatch):
    """A file is looked up once a call (`place_problems`: 1,193 warnings of one template), by
    the name each problem gives it: the deck file named from the current folder and in full,
    and a file of no deck, each placed as when it is alone."""
    game = make_game(tmp_path)
    g = load_game(game, game, Report())
    monkeypatch.chdir(game)
    f = str(g.decks[0].file)
    rel = os.path.relpath(f, game)
    d = [Diagnostic(Loc(rel, 1, 1), "first about the deck", "warning"),
         Diagnostic(Loc(f, 1, 1), "second about the deck", "warning"),
         Diagnostic(Loc(rel, 5, 5), "at Alpha", "warning"),
         Diagnostic(Loc("rules.yaml", 9, 1), "item 'VP tokens': count open", "warning"),
         Diagnostic(Loc(str(game / "rules.yaml"), 9, 1), "item 'dice': count open", "warning")]
    placed = place_problems(g.decks, d)
    assert [x.message for x in placed.decks["things"]] == ["first about the deck", "second about the deck"]
    assert [x.message for x in placed.cards[("things", 0)]] == ["at Alpha"]
    assert [x.message for x in placed.game] == ["item 'VP tokens': count open", "item 'dice': count open"]
    for one in d:
        alone = place_problems(g.decks, [one])
        assert (alone.cards, alone.decks, alone.game) == (
            {k: [one] for k, v in placed.cards.items() if one in v}, {k: [one] for k, v in placed.decks.items() if one in v},
            [one] if one in placed.game else [])


def test_colour_vision_toggle_in_a_browser(tmp_path):
    """The page's colour-vision control shows the cards through the readability check's own
    matrices (Machado 2009): the red card reads back, from the browser's pixels, as the
    colour `cardgen.check.colours.simulate` gives, and normal again when switched back."""
    from selenium.webdriver.support.ui import Select, WebDriverWait
    from test_serve import _browser

    from cardgen.check.colours import simulate

    out = build(make_game(tmp_path))
    html = (out / "index.html").read_text(encoding="utf-8")
    assert html.count("<feColorMatrix") == 4 and 'id="vision"' in html
    browser = _browser()
    try:
        browser.get((out / "index.html").as_uri())
        wait = WebDriverWait(browser, 20)
        wait.until(lambda b: b.execute_script(
            "const i = document.querySelector('img[alt=\"Alpha (face)\"]'); return i.complete && i.naturalWidth"))
        card = browser.find_element("css selector", 'img[alt="Alpha (face)"]')

        def seen() -> tuple[int, ...]:
            with Image.open(io.BytesIO(card.screenshot_as_png)) as im:
                return im.convert("RGB").getpixel((im.width // 2, int(im.height * 0.6)))

        assert near(seen(), (255, 0, 0), 4)
        choose = Select(browser.find_element("id", "vision"))
        for vision in ("protanopia", "deuteranopia", "tritanopia", "greyscale"):
            choose.select_by_value(vision)
            want = tuple(round(c * 255) for c in simulate((1.0, 0.0, 0.0), vision))
            assert near(seen(), want, 6), (vision, seen(), want)
        choose.select_by_value("")
        assert near(seen(), (255, 0, 0), 4)
    finally:
        browser.quit()


def test_a_translated_build_shows_the_cards_in_its_language(tmp_path):
    """Game 601 in German: the gallery names each card and deck as the German cards print them, and its
    filter still finds a card by the source name the messages use."""
    code, _, err = in_dir(REPO, "build", "game-601", "--lang", "de", "--only", "gallery", "--out", str(tmp_path))
    assert code == 0, err
    root = parse((tmp_path / "game-601" / "de" / "index.html").read_text(encoding="utf-8"))
    digging = next(t for t in card_tiles(root) if t.attrs["data-search"].startswith("graben "))
    assert digging.attrs["data-search"].split()[:3] == ["graben", "digging", "aktion"]
    names = [t.find_all("span", "name")[0].text() for t in card_tiles(root)]
    assert names[:4] == ["Abenteurer", "Arbeitgeber", "Anführer des Geheimbunds", "Obdachloser"]
    assert [h.text() for h in root.find_all("h2")][1:4] == ["Identität", "Partner", "Aktion"]     # (after "Game")


def test_a_one_card_edit_makes_that_cards_html_and_the_page_a_clean_build_makes(tmp_path, monkeypatch):
    """Each card's tile and lightbox are kept as the last build made them (`album.Fragments`,
    `.cache/gallery.bin`): a card renamed makes its own two, and the page is the one made
    without them (issue 30)."""
    from cardgen.outputs import album
    from cardgen.pipeline.build import BuildOptions, build_game
    from cardgen.render import formcache

    game = make_game(tmp_path)
    out = tmp_path / "out"
    build_game(game, game, BuildOptions(out=out, only=("gallery",)), Report())
    things = game / "things.yaml"
    things.write_text(things.read_text().replace("name: Beta,", "name: Bêta <b>,"))
    monkeypatch.setattr(formcache, "_open", {})                  # another process, as `cardgen build` is
    made: list[tuple[str, str]] = []
    make = album.Fragments._make
    monkeypatch.setattr(album.Fragments, "_make", lambda self, kind, data: made.append((kind, data.name))
                        or make(self, kind, data))
    clean: list[str] = []
    gallery_page, page_html = album.gallery_page, album.page_html

    def both(al, page, title, fragments):
        got = gallery_page(al, page, title, fragments)          # (the page around the cards kept: `gallery_page`)
        made.append(("(page made)", ""))
        clean.append(page_html(al, page, title))                 # every card's made anew
        return got

    monkeypatch.setattr(album, "gallery_page", both)
    build_game(game, game, BuildOptions(out=out, only=("gallery",)), Report())
    assert made[:made.index(("(page made)", ""))] == [("tile", "Bêta <b>"), ("lightbox", "Bêta <b>")]
    html = (out / "gal" / "index.html").read_text(encoding="utf-8")
    assert clean and html == clean[0] and "Bêta &lt;b&gt;" in html


def test_a_cards_html_is_found_by_all_it_shows(tmp_path):
    """`Fragments` finds a card's tile and lightbox by `CardData.shown`, made without the
    `CardData`: it is the data as plain values, field for field (problems, own backs and the
    deck's shared back included), and a change to any of them is another key."""
    import dataclasses

    from cardgen.outputs import album as A

    game = make_game(tmp_path)
    report = Report()
    checked = check_game(game, game, report)
    assert checked.rendered is not None
    things = checked.game.decks[0]
    gamma = Diagnostic(Loc(str(things.file), 8, 5), "something at Gamma's second line", "warning")
    al = A.album(checked.rendered, [*report.items, gamma])
    for d in al.decks:
        for side in [d.back, *(s for c in d.cards for s in (c.face, c.back))]:
            if side is not None:
                side.src, side.width, side.height = f"gallery/{id(side)}.png", 375, 525
    cards = [(c, d) for d in al.decks for c in d.cards]
    assert any(c.problems for c, _ in cards) and any(c.back for c, _ in cards) and any(d.back for d in al.decks)
    fragments = A.Fragments(A.ENGLISH, cache={})
    keys = set()
    for c, d in cards:
        assert A.CardData.shown(c, d) == dataclasses.astuple(A.CardData.of(c, d))
        keys.add(fragments._key(c, d))
    assert len(keys) == len(cards)
    c, d = next((c, d) for c, d in cards if c.problems)
    before = fragments._key(c, d)
    c.problems[0] = dataclasses.replace(c.problems[0], message=c.problems[0].message + ".")
    assert fragments._key(c, d) != before
    c.face.width += 1
    assert fragments._key(c, d) not in (before, *keys)


def test_the_pages_templates_are_compiled_once_per_text(tmp_path, monkeypatch):
    """The pages' templates as Jinja compiled them are kept in the user's cache
    (`album._compiled`): another process takes them without compiling and makes the same page;
    a template whose text changed, or a damaged file, is compiled again."""
    import shutil

    import jinja2

    from cardgen.outputs import album

    pages = tmp_path / "preview"
    shutil.copytree(album.PAGES, pages)
    monkeypatch.setattr(album, "PAGES", pages)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    compiled: list[str | None] = []
    compile_ = jinja2.Environment.compile
    monkeypatch.setattr(jinja2.Environment, "compile",
                        lambda self, source, name=None, *a, **k: compiled.append(name) or compile_(self, source, name, *a, **k))

    def page() -> str:
        album._env.cache_clear()                                   # (another process)
        return album.page_html(None, album.Page(), "T")

    first = page()
    assert sorted(compiled) == ["card.html", "cards.html", "page.html"]
    kept = sorted((tmp_path / "user-cache" / "cardgen" / "pages").iterdir())
    assert len(kept) == 3
    compiled.clear()
    assert page() == first and compiled == []
    (pages / "cards.html").write_text((pages / "cards.html").read_text() + "{# changed #}\n")
    assert page() == first and compiled == ["cards.html"]
    kept[0].write_bytes(kept[0].read_bytes()[:-3] + b"xyz")        # damaged: its seal no longer matches
    compiled.clear()
    assert page() == first and len(compiled) == 1
    album._env.cache_clear()


# -- the page around the cards, kept ---------------------------------------------------------------

# What page.html and cards.html read of their values (and card.html's `problems` and `side`,
# which they call): `album.skeleton_data` keeps the page by all of it.  A template that reads
# something new must have it added there, then here.
SKELETON_READS = {
    "page.html": {"decks", "inline", "lang", "languages", "live", "name", "slug", "summary", "version"},
    "cards.html": {"back", "cards", "copies", "count", "deck", "decks", "errors", "label", "live", "name",
                   "problem_count", "problems", "size", "slug", "stale", "summary", "where"},
    "card.html": {"full", "height", "message", "round", "severity", "src", "text", "what", "where", "width",
                  "width_mm"},
}


def test_what_the_page_around_the_cards_reads_is_what_it_is_kept_by():
    import jinja2
    from jinja2 import nodes

    from cardgen.outputs.album import PAGES

    env = jinja2.Environment()
    for name, listed in SKELETON_READS.items():
        tree = env.parse((PAGES / name).read_text(encoding="utf-8"))
        parts = [m for m in tree.find_all(nodes.Macro) if m.name in ("problems", "side")] if name == "card.html" \
            else [tree]
        assert {a.attr for part in parts for a in part.find_all(nodes.Getattr)} == listed, name


def test_the_page_around_the_cards_is_kept_and_the_page_is_a_clean_builds(tmp_path, monkeypatch):
    """`index.html` made from its skeleton kept in `.cache/gallery.bin` (`album.gallery_page`)
    and each deck's kept tiles and lightboxes is byte for byte a clean build's: after a card's
    colour is edited (no Jinja page made: its tile names its image by its place), a deck
    renamed and a card given a problem (the skeleton made again)."""
    from cardgen.outputs import album

    game = make_game(tmp_path / "a")
    made = []
    real = album.page_html

    def spy(*args, **kwargs):
        made.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(album, "page_html", spy)
    out = build(game)
    things = game / "things.yaml"
    edits = [("#ff0000", "#ee0000", 0), ("deck: Things", "deck: Stuff", 1),
             ('{name: Beta, color: "#00ff00"}', '{name: Beta, color: "#00ff00", cuont: 2}', 1)]
    for n, (old, new, skeletons) in enumerate(edits):
        things.write_text(things.read_text().replace(old, new))
        made.clear()
        build(game)
        assert len(made) == skeletons, old
        fresh = make_game(tmp_path / f"fresh{n}")
        (fresh / "things.yaml").write_text(things.read_text())
        assert (out / "index.html").read_bytes() == (build(fresh) / "index.html").read_bytes(), old
