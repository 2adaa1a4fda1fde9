"""Incremental builds: a rebuild makes exactly the outputs whose inputs changed, keeps the
others as they were (the same files, hard-linked), and ends byte for byte where a clean
build would."""
from __future__ import annotations

import http.server
import os
import re
import shutil
import threading
from pathlib import Path

import pytest
from conftest import in_dir, write
from PIL import Image
from pypdf import PdfReader

from cardgen.core.data import DATA
from cardgen.core.errors import Report
from cardgen.pipeline.build import BuildOptions, build_game

FACE = """
elements:
  - {name: bg, type: rect, box: bleed, fill: "#3366cc"}
  - {name: veil, type: rect, x: 3mm, y: 44mm, width: 57.5mm, height: 32mm, fill: "#ffffff40"}
  - {name: pic, type: image, src: pic.png, x: 5mm, y: 20mm, width: 20mm, height: 20mm}
  - {name: title, type: text, x: 5mm, y: 5mm, width: 53.5mm, height: 10mm, text: "{{ card.name }}",
     font: Plain, size: 12, color: "#ffffff"}
  - {name: text, type: text, x: 5mm, y: 45mm, width: 53.5mm, height: 30mm, text: "{{ card.text }}",
     font: Plain, size: 9, color: "#ffffff"}
"""
BACK = """
elements:
  - {name: bg, type: rect, box: bleed, fill: "#aa2222"}
"""
RULES = """
title: Seven Cards
intro: Play the seven cards.
sections:
  - title: How to play
    body:
      - "Draw one of the {{ decks.Things.count }} cards each turn."
player_aid:
  turn: [Draw a card, Play a card]
  end: [Count your cards]
"""
# The booklet pictures cards 1 to 3 (its cover's fan: three cards of one kind), card 7 is on
# none of its pages.
CARDS = [f"  - {{name: Card {i}, text: 'The text of card {i}. Café — crème.'}}" for i in range(1, 8)]

# PDFs that draw the cards (their forms: the first three share them, `FormCache`)
CARD_OUTPUTS = {"print-letter.pdf", "print-a4.pdf", "cards.pdf", "print-letter-foldover.pdf",
                "print-a4-foldover.pdf"}
# the tuck boxes: made again when the deck's back, size or copies change, not its faces
TUCK = {"tuckboxes-letter.pdf", "tuckboxes-a4.pdf"}
OTHER = {"calibration-letter.pdf", "calibration-a4.pdf", "rules.pdf", "rules-booklet-letter.pdf",
         "rules-booklet-a4.pdf", "player-aid.pdf"} | TUCK
# made by every build that makes anything: the gallery page and the build's manifest
ALWAYS = {"manifest.json", "index.html"}
# the print-service files: made again when a card side, its copies or the data's date change
PDFX = {"print-service/things-counts.txt", "print-service/things-pdfx.pdf"}


def paint(path: Path, colour: tuple[int, int, int]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (16, 16), colour).save(path)


def make_game(root: Path) -> Path:
    game = root / "seven"
    write(game / "game.yaml", "title: Seven\n")
    write(game / "deck.yaml", "deck: Things\ntemplate: face\nback: back\ncards:\n" + "\n".join(CARDS) + "\n")
    write(game / "templates" / "face.yaml", FACE)
    write(game / "templates" / "back.yaml", BACK)
    write(game / "rules.yaml", RULES)
    (game / "fonts").mkdir()
    shutil.copy(DATA / "fonts" / "Lato-Regular.ttf", game / "fonts" / "Plain-Regular.ttf")
    paint(game / "art" / "pic.png", (200, 30, 30))
    return game


def build(game: Path, out: Path, **opts) -> tuple[list[Path], Report]:
    report = Report()
    built = build_game(game, game, BuildOptions(out=out, **opts), report)
    return built, report


def names(paths: list[Path], out: Path) -> set[str]:
    """Files as their path inside the game's output folder (tts/ files as `tts/...`)."""
    return {p.relative_to(out / "seven").as_posix() for p in paths}


def snapshot(out: Path) -> dict[str, tuple[int, int]]:
    """Every output file (not the cache or the state) -> (inode, mtime_ns)."""
    root = out / "seven"
    return {p.relative_to(root).as_posix(): (p.stat().st_ino, p.stat().st_mtime_ns)
            for p in root.rglob("*") if p.is_file() and not p.relative_to(root).parts[0].startswith(".")}


def contents(out: Path) -> dict[str, bytes]:
    """Every output file's bytes (not the caches, the state, or the manifest, whose revision
    counters are the history of the builds: a clean build starts them again)."""
    root = out / "seven"
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in root.rglob("*") if p.is_file() and not p.relative_to(root).parts[0].startswith(".")
            and p.name != "manifest.json"}


def split(files: set[str]) -> tuple[set[str], set[str], set[str]]:
    """(the PDFs at the top of the output folder, files in tts/, images in gallery/); what
    else a build writes is ALWAYS or PDFX."""
    return ({n for n in files if "/" not in n and n.endswith(".pdf")}, {n for n in files if n.startswith("tts/")},
            {n for n in files if n.startswith("gallery/")})


@pytest.fixture
def setup(tmp_path):
    game = make_game(tmp_path)
    out = tmp_path / "build"
    first, _ = build(game, out)
    pdfs, tts, gallery = split(names(first, out))
    assert pdfs == CARD_OUTPUTS | OTHER and len(tts) == 4 and len(gallery) == 8    # json, thumbnail, 2 sheets; 8 sides
    assert names(first, out) == pdfs | tts | gallery | ALWAYS | PDFX
    return game, out, tts


def test_a_rebuild_with_nothing_changed_rewrites_nothing(setup):
    game, out, _ = setup
    before = snapshot(out)
    again, _ = build(game, out)
    assert list(again) == [] and again.unchanged
    assert names(again.kept, out) == set(before)
    assert snapshot(out) == before                    # the same files: same inodes, untouched
    code, stdout, _ = in_dir(game.parent, "build", "seven", "--out", str(out))
    assert code == 0
    assert re.fullmatch(r"seven: up to date, nothing changed since the last build \(7 cards in build/seven/, "
                        r"checked in \d+\.\d\ds\)\n", stdout), stdout
    assert snapshot(out) == before


def test_editing_one_card_remakes_only_the_outputs_that_show_it(setup):
    game, out, tts = setup
    rules_inode = (out / "seven" / "rules.pdf").stat().st_ino
    deck = game / "deck.yaml"
    deck.write_text(deck.read_text().replace("The text of card 7.", "Card seven, rewritten."))
    again, _ = build(game, out)
    pdfs, made_tts, gallery = split(names(again, out))
    assert pdfs == CARD_OUTPUTS and gallery == {"gallery/things/007-card-7-face.png"}
    # the faces sheet is new, the saved object made again; the back's sheet, the same, is kept
    # where it is (its name carries its content's key), and the thumbnail (it fans cards 1-5)
    assert len(made_tts) == 2 and len(made_tts & tts) == 1 and "tts/seven.json" in made_tts
    assert names(again, out) - pdfs - made_tts - gallery == ALWAYS | PDFX
    kept_pdfs, kept_tts, kept_gallery = split(names(again.kept, out))
    assert kept_pdfs == OTHER and len(kept_gallery) == 7    # the booklet pictures cards 1-3
    assert kept_tts < tts and {n.split("-")[0] for n in kept_tts} == {"tts/things", "tts/seven.png"}
    assert any(n.startswith("tts/things-back-") for n in kept_tts)
    assert (out / "seven" / "rules.pdf").stat().st_ino == rules_inode
    text = "".join(page.extract_text() for page in PdfReader(out / "seven" / "cards.pdf").pages)
    assert "Card seven, rewritten." in text and "The text of card 7." not in text


def test_only_a_first_build_starts_the_raster_workers_early(setup, tmp_path, monkeypatch):
    """A one-card edit rasterizes a side or two, in this process: it starts no fork server
    for workers it will not use; a first build starts it while the cards are laid out."""
    from cardgen.render import raster

    game, out, _ = setup
    started: list[int] = []
    monkeypatch.setattr(raster, "start_early", lambda: started.append(1) or False)
    deck = game / "deck.yaml"
    deck.write_text(deck.read_text().replace("The text of card 7.", "Card seven, rewritten."))
    again, _ = build(game, out)
    assert "gallery/things/007-card-7-face.png" in names(again, out) and started == []
    build(game, tmp_path / "first")
    assert started == [1]


def test_a_kept_deck_sheet_is_checked_first(setup):
    game, out, tts = setup
    back = out / "seven" / next(n for n in tts if "-back-" in n)
    good = back.read_bytes()
    damaged = bytearray(good)
    damaged[len(damaged) // 2] ^= 0xFF                  # same size, one byte changed
    back.write_bytes(bytes(damaged))
    deck = game / "deck.yaml"
    deck.write_text(deck.read_text().replace("The text of card 7.", "Card seven, rewritten."))
    again, _ = build(game, out)
    _, made_tts, _ = split(names(again, out))
    rel = back.relative_to(out / "seven").as_posix()
    assert rel in made_tts and rel not in split(names(again.kept, out))[1]
    assert back.read_bytes() == good


def test_editing_a_card_the_booklet_pictures_remakes_the_booklet(setup):
    game, out, _ = setup
    deck = game / "deck.yaml"
    deck.write_text(deck.read_text().replace("The text of card 1.", "Card one, rewritten."))
    again, _ = build(game, out)
    assert split(names(again, out))[0] == CARD_OUTPUTS | {"rules.pdf", "rules-booklet-letter.pdf",
                                                          "rules-booklet-a4.pdf"}
    assert split(names(again.kept, out))[0] == {"calibration-letter.pdf", "calibration-a4.pdf", "player-aid.pdf"} | TUCK


@pytest.mark.parametrize("change, kept", [
    # the picture on every card: every output that draws cards (the booklet too)
    ("art", {"calibration-letter.pdf", "calibration-a4.pdf", "player-aid.pdf"} | TUCK),
    # the face template: the same
    ("template", {"calibration-letter.pdf", "calibration-a4.pdf", "player-aid.pdf"} | TUCK),
    # the font: everything sets text in the game's fonts
    ("font", set()),
    # --flip short: the print sheets (and the fold-over sheets, which take their options) and
    # the calibration sheets
    ("flip", {"cards.pdf", "rules.pdf", "rules-booklet-letter.pdf", "rules-booklet-a4.pdf", "player-aid.pdf"} | TUCK),
])
def test_each_kind_of_input_invalidates_what_reads_it(setup, change, kept):
    game, out, tts = setup
    opts = {}
    if change == "art":
        paint(game / "art" / "pic.png", (30, 200, 30))
    elif change == "template":
        face = game / "templates" / "face.yaml"
        face.write_text(face.read_text().replace("#3366cc", "#336600"))
    elif change == "font":
        shutil.copy(DATA / "fonts" / "Vollkorn-Regular.ttf", game / "fonts" / "Plain-Regular.ttf")
    else:
        opts = {"outputs": {"print": {"flip": "short"}}}
    again, _ = build(game, out, **opts)
    pdfs_kept, tts_kept, gallery_kept = split(names(again.kept, out))
    pdfs_made, tts_made, gallery_made = split(names(again, out))
    assert pdfs_kept == kept and pdfs_made == (CARD_OUTPUTS | OTHER) - kept
    if change == "flip":                         # the Tabletop Simulator export and the gallery do not print
        assert tts_kept == tts and not tts_made and len(gallery_kept) == 8 and not gallery_made
        assert names(again.kept, out) >= PDFX        # nor do the print-service files
    else:                                        # the faces changed: the export is made again, with
        # a new faces sheet; the back's is the same, kept
        assert tts_kept == {n for n in tts if "-back-" in n} and len(tts_kept) == 1 and len(tts_made) == 3
        assert tts - tts_made - tts_kept == {n for n in tts if "-faces-" in n}
        assert gallery_kept == {"gallery/things/back.png"} and len(gallery_made) == 7


def test_a_damaged_output_is_made_again_not_kept(setup):
    game, out, _ = setup
    rules = out / "seven" / "rules.pdf"
    good = rules.read_bytes()
    st = rules.stat()
    damaged = bytearray(good)
    damaged[len(damaged) // 2] ^= 0xFF                  # same size, one byte changed,
    rules.write_bytes(bytes(damaged))
    os.utime(rules, ns=(st.st_atime_ns, st.st_mtime_ns))  # and the same modification time
    again, _ = build(game, out)
    assert not again.unchanged
    assert names(again, out) == {"rules.pdf", "rules-booklet-letter.pdf", "rules-booklet-a4.pdf"} | ALWAYS
    assert names(again.kept, out) >= PDFX
    assert rules.read_bytes() == good


def test_a_deleted_output_is_made_again(setup):
    game, out, _ = setup
    (out / "seven" / "print-a4.pdf").unlink()
    again, _ = build(game, out)
    assert names(again, out) == {"print-a4.pdf"} | ALWAYS


def test_only_builds_keep_working(setup):
    game, out, _ = setup
    deck = game / "deck.yaml"
    deck.write_text(deck.read_text().replace("The text of card 7.", "Card seven, rewritten."))
    only_cards, _ = build(game, out, only=("cards",))
    assert names(only_cards, out) == {"cards.pdf", "manifest.json"}
    assert not only_cards.kept
    assert not (out / "seven" / "print-letter.pdf").exists()       # not made this time and out of date: gone,
    assert names(only_cards.removed, out) >= (CARD_OUTPUTS | OTHER) - {"cards.pdf"}       # and said
    assert not only_cards.earlier
    full, _ = build(game, out)                                      # they are made again
    assert split(names(full, out))[0] == (CARD_OUTPUTS | OTHER) - {"cards.pdf"}
    assert "cards.pdf" in names(full.kept, out)
    again, _ = build(game, out, only=("print",))
    assert names(again, out) == {"manifest.json"} and names(again.kept, out) == {"print-letter.pdf", "print-a4.pdf"}


def test_the_last_builds_warnings_are_repeated_when_nothing_changed(setup):
    game, out, _ = setup
    deck = game / "deck.yaml"
    deck.write_text(deck.read_text().replace("text: 'The text of card 3. Café — crème.'", "text: 'To come', todo: write it"))
    _, first = build(game, out)
    again, second = build(game, out)
    assert again.unchanged
    assert [str(d) for d in second.items] == [str(d) for d in first.items] and first.items


def test_an_incremental_build_ends_byte_identical_to_a_clean_build(setup, tmp_path):
    game, out, _ = setup
    deck = game / "deck.yaml"
    deck.write_text(deck.read_text().replace("The text of card 2.", "Card two, rewritten."))
    build(game, out)
    build(game, out, outputs={"print": {"flip": "short"}})
    paint(game / "art" / "pic.png", (10, 10, 240))
    build(game, out, outputs={"print": {"flip": "short"}})
    incremental_result = contents(out)
    shutil.rmtree(out)
    clean, _ = build(game, out, outputs={"print": {"flip": "short"}})
    assert not clean.kept
    assert contents(out) == incremental_result


class _Sheet(http.server.BaseHTTPRequestHandler):
    body = "name,text\nA,From the web\n"

    def do_GET(self):
        data = type(self).body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/csv; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def test_a_game_reading_a_google_sheet_is_never_taken_as_unchanged(tmp_path, monkeypatch):
    import sheetserver

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Sheet)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    sheetserver.route(monkeypatch, srv)       # (https://sheets.example.test is this server)
    try:
        game = tmp_path / "seven"
        write(game / "game.yaml", "title: Linked\n")
        write(game / "deck.yaml", "deck: Things\ntemplate: face\n"
                                  "cards: {url: 'https://sheets.example.test/s.csv', refresh_after: 0}\n")
        write(game / "templates" / "face.yaml", "elements:\n  - {name: t, type: text, text: '{{ card.text }}'}\n")
        out = tmp_path / "build"
        build(game, out, only=("cards",))
        _Sheet.body = "name,text\nA,Changed on the web\n"        # no file of the game changed
        again, _ = build(game, out, only=("cards",))
        assert not again.unchanged and names(again, out) == {"cards.pdf", "manifest.json"}
        assert "Changed on the web" in PdfReader(out / "seven" / "cards.pdf").pages[0].extract_text()
    finally:
        srv.shutdown()
        srv.server_close()


def test_the_summary_counts_pages_without_a_pdf_library(setup):
    """The summary reads a PDF's page count from its page tree (pypdf only as a fallback):
    the same count pypdf gives, for every PDF a build makes."""
    from cardgen.cli.terminal import pdf_pages

    _, out, _ = setup
    pdfs = sorted((out / "seven").glob("*.pdf"))
    assert len(pdfs) == len(CARD_OUTPUTS | OTHER)
    for pdf in pdfs:
        assert pdf_pages(pdf) == len(PdfReader(pdf).pages), pdf.name


def test_the_summary_finds_the_page_tree_among_image_streams(tmp_path):
    """Among streams full of `<<` and `>>` (images), the page count is the largest `/Count`
    of a `/Type /Pages` dictionary; one with a dictionary inside it is not a page tree."""
    from cardgen.cli.terminal import pdf_pages

    junk = bytes(range(256)) * 50 + b"<<>><</Type /Pages /Count 99 <</X 1>> >>" + b">><<" * 1000
    pdf = tmp_path / "x.pdf"
    pdf.write_bytes(b"%PDF-1.4\n1 0 obj\nstream\n" + junk + b"\nendstream\n"
                    b"<<\n/Count 3 /Kids [ 4 0 R ] /Parent 2 0 R /Type /Pages\n>>\n"
                    b"<<\n/Count 7 /Kids [ 3 0 R 5 0 R ] /Type/Pages\n>>\n%%EOF\n")
    assert pdf_pages(pdf) == 7


def test_each_card_side_is_drawn_once_a_build_and_reused_after(setup, tmp_path):
    """print-letter.pdf, print-a4.pdf, the two fold-over sheets and cards.pdf show the same 8
    card sides (7 faces, a shared back; the sheets also the player aid's 2 sides): a clean
    build draws each once, a rebuild after one edit draws that one card, and the PDFs are
    byte for byte those of a clean build."""
    from cardgen.render.formcache import FormCache

    game, out, _ = setup
    fresh = tmp_path / "fresh"
    build(game, fresh)
    cache = FormCache.of(fresh / "seven")
    # (+ the tuck box's faces: 3 distinct sides, front = back, side, lid = bottom, each reused
    # after, and the deck's back on its front and back; the contrast check renders the 8 sides in
    # this process, too few to draw them for the print sheets: `raster.offer_forms`)
    assert (cache.drawn, cache.reused, cache.offered) == (8 + 2 + 3, 3 * (8 + 2) + 8 + 9, 0)
    deck = game / "deck.yaml"
    deck.write_text(deck.read_text().replace("The text of card 6.", "Card six, rewritten."))
    cache = FormCache.of(out / "seven")
    before = (cache.drawn, cache.reused)
    build(game, out)
    cache = FormCache.of(out / "seven")
    assert (cache.drawn - before[0], cache.reused - before[1]) == (1, 4 * (8 + 2) + 8 - 1)
    shutil.rmtree(fresh)
    build(game, fresh)
    for name in CARD_OUTPUTS:
        assert (out / "seven" / name).read_bytes() == (fresh / "seven" / name).read_bytes(), name


def test_a_new_character_redraws_the_cards_set_in_its_font(setup, tmp_path):
    """A character no card used before changes how the font's codes are numbered: every card
    set in that font is drawn again (and the PDFs are still those of a clean build)."""
    from cardgen.render.formcache import FormCache

    game, out, _ = setup
    deck = game / "deck.yaml"
    deck.write_text(deck.read_text().replace("The text of card 6.", "Straße card six."))
    cache = FormCache.of(out / "seven")
    before = cache.drawn
    build(game, out)
    assert FormCache.of(out / "seven").drawn - before == 7       # the faces (the back has no text)
    fresh = tmp_path / "fresh"
    build(game, fresh)
    for name in CARD_OUTPUTS:
        assert (out / "seven" / name).read_bytes() == (fresh / "seven" / name).read_bytes(), name


def test_card_forms_replayed_without_drawing_state_are_those_a_clean_build_draws(tmp_path):
    """A card form found in the cache that shows no PNG or JPEG is made straight from its
    operators (`CardCanvas.add_form`), its transparency states, SVG forms and fonts included:
    a rebuild after one edit reuses every other side that way, and its PDFs are byte for byte
    a clean build's."""
    from cardgen.render.formcache import FormCache

    game = make_game(tmp_path)
    face = (game / "templates" / "face.yaml").read_text()
    face = face.replace("{name: pic, type: image, src: pic.png,", "{name: pic, type: icon, icon: coins, color: \"#ffcc0080\",")
    (game / "templates" / "face.yaml").write_text(face)
    out, fresh = tmp_path / "out", tmp_path / "fresh"
    only = ("print", "cards")
    build(game, out, only=only)
    deck = game / "deck.yaml"
    deck.write_text(deck.read_text().replace("The text of card 6.", "Card six, rewritten."))
    cache = FormCache.of(out / "seven")
    before = (cache.drawn, cache.reused)
    build(game, out, only=only)
    cache = FormCache.of(out / "seven")
    build(game, fresh, only=only)
    clean = FormCache.of(fresh / "seven")          # every form a build makes: drawn, or found again
    assert (cache.drawn - before[0], cache.reused - before[1]) == (1, clean.drawn + clean.reused - 1)
    for name in ("print-letter.pdf", "print-a4.pdf", "cards.pdf"):
        data = (out / "seven" / name).read_bytes()
        assert data == (fresh / "seven" / name).read_bytes(), name
        assert b"/ca .50196" in data and b"/Subtype /Form" in data, name


def test_records_made_by_another_installation_are_not_trusted(setup, monkeypatch):
    """A build folder that came with a game (made by another cardgen, another machine) is
    rebuilt as if empty: its state and its drawn-form cache carry another code version."""
    from cardgen.core import digest
    from cardgen.render import formcache

    game, out, _ = setup
    forms = out / "seven" / ".cache" / "forms.bin"
    assert forms.is_file()
    monkeypatch.setattr(digest, "_code", [("another installation", {})])
    monkeypatch.setattr(formcache, "_open", {})
    again, _ = build(game, out)
    assert not again.unchanged and not again.kept
    cache = formcache.FormCache.of(out / "seven")
    assert (cache.drawn, cache.reused) == (8 + 2 + 3, 3 * (8 + 2) + 8 + 9)    # every side drawn again, once


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_version_from_git_is_asked_again(setup):
    """No `version:` in game.yaml: the version is what `git describe` says, which changes with a
    tag or a commit while no file of the game does.  The rebuild notices: the booklet, whose
    cover credits the version, is made again; cards.pdf, which does not show it, is kept."""
    import subprocess

    game, out, _ = setup

    def git(*args: str) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        env.update(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org", GIT_COMMITTER_NAME="t",
                   GIT_COMMITTER_EMAIL="t@example.org", GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
        subprocess.run(["git", *args], cwd=game, env=env, check=True, capture_output=True)

    git("init", "-q")
    git("add", ".")
    git("commit", "-q", "-m", "first")
    git("tag", "v1")
    only = {"only": ("cards", "booklet")}
    build(game, out, **only)
    again, _ = build(game, out, **only)
    assert again.unchanged
    git("commit", "-q", "--allow-empty", "-m", "second")             # no file changed: v1-1-g<commit>
    later, _ = build(game, out, **only)
    assert not later.unchanged
    assert split(names(later, out))[0] == {"rules.pdf", "rules-booklet-letter.pdf", "rules-booklet-a4.pdf"}
    assert names(later.kept, out) == {"cards.pdf"}
    assert re.search(r"v1[-–]1-g[0-9a-f]{7}", PdfReader(out / "seven" / "rules.pdf").pages[0].extract_text())


def test_a_one_card_edit_reads_the_bitmaps_of_the_deck_sheets_it_makes_alone(setup, monkeypatch):
    """TTS: the cells of a kept deck sheet (here the backs') are named, not read back from the
    bitmap cache and checked: an edit reads the bitmaps of the sheet it makes again."""
    from cardgen.render import raster

    game, out, _ = setup
    read: list[Path] = []
    real = raster.is_intact
    monkeypatch.setattr(raster, "is_intact", lambda p: read.append(Path(p)) or real(p))
    deck = game / "deck.yaml"
    deck.write_text(deck.read_text().replace("The text of card 7.", "Card seven, rewritten."))
    again, _ = build(game, out, only=("tts",))
    _, made_tts, _ = split(names(again, out))
    assert len(made_tts) == 2 and any("-faces-" in n for n in made_tts)     # the faces' sheet, the saved object
    assert any("-back-" in n for n in split(names(again.kept, out))[1])
    bitmaps = [p for p in read if p.suffix == ".rgbz"]
    assert len(bitmaps) == len(set(bitmaps)) == 6        # the six faces not edited; not the back


def test_a_kept_files_sha256_is_its_contents_whatever_its_size(tmp_path):
    """`file_sha256` (what a kept output is checked by) reads a file in one piece or in 4 MB
    chunks: the digest is hashlib's of the whole content; None for what cannot be read."""
    import hashlib

    from cardgen.outputs import incremental

    for size in (0, 1, 70_000, incremental._CHUNK - 1, incremental._CHUNK, 2 * incremental._CHUNK + 5):
        data = os.urandom(size)
        (tmp_path / "f").write_bytes(data)
        assert incremental.file_sha256(tmp_path / "f") == hashlib.sha256(data).hexdigest()
    assert incremental.file_sha256(tmp_path / "missing") is None
    assert incremental.file_sha256(tmp_path) is None


def test_kept_outputs_are_read_once_then_trusted_by_their_status_until_they_change(tmp_path, monkeypatch):
    """`OutputHashes`: a kept output is read to check its SHA-256 once; later builds trust it
    while its size, modification and change times and inode are the same (here: at once, not
    2 s after it was written); a file damaged in place with its size and modification time
    put back has a new change time and is read, found damaged and made again."""
    from cardgen.outputs import incremental

    monkeypatch.setattr(incremental, "RACY_NS", 0)
    read: list[str] = []
    real = incremental.file_sha256
    monkeypatch.setattr(incremental, "file_sha256", lambda path: read.append(Path(path).name) or real(path))
    game = make_game(tmp_path)
    out = tmp_path / "build"
    build(game, out)
    deck = game / "deck.yaml"
    images = sorted(p.name for p in (out / "seven" / "gallery").rglob("*.png"))
    assert len(images) == 8                                 # seven faces and the back
    for k, text in enumerate(["Card two, rewritten.", "Card three, rewritten.", "Card four, rewritten."]):
        deck.write_text(deck.read_text().replace(f"The text of card {k + 2}.", text))
        read.clear()
        built, _ = build(game, out)
        made = split(names(built, out))[2]
        assert len(made) == 1 and f"{k + 2:03d}-card-{k + 2}-face.png" in next(iter(made))
        kept_images = [n for n in read if n.endswith(".png")]
        if k == 0:
            assert sorted(kept_images) == sorted(set(images) - {"002-card-2-face.png"})     # read once
        else:
            assert kept_images == [f"{k + 1:03d}-card-{k + 1}-face.png"]   # only the one the last build made
    build(game, out)                                        # nothing changed: reads what the last build made
    read.clear()
    again, _ = build(game, out)
    assert again.unchanged and read == []
    image = out / "seven" / "gallery" / "things" / "005-card-5-face.png"
    good, st = image.read_bytes(), image.stat()
    damaged = bytearray(good)
    damaged[len(damaged) // 2] ^= 0xFF
    image.write_bytes(bytes(damaged))
    os.utime(image, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert (image.stat().st_size, image.stat().st_mtime_ns) == (st.st_size, st.st_mtime_ns)
    read.clear()
    noop, _ = build(game, out)
    assert not noop.unchanged and "005-card-5-face.png" in read
    assert names(noop, out) == {"gallery/things/005-card-5-face.png"} | ALWAYS
    assert image.read_bytes() == good
    incremental_result = contents(out)
    shutil.rmtree(out)
    build(game, out)
    assert contents(out) == incremental_result              # byte for byte a clean build's


def test_outputs_an_only_build_removes_are_trusted_by_their_status(tmp_path, monkeypatch):
    """An `--only print` build removes the out-of-date outputs it did not make, each only if
    it is still as cardgen wrote it: a file an earlier build found unchanged (`OutputHashes`)
    is trusted by its status, not read again (the first `--only print` after a build of every
    output read every gallery image and TTS sheet); one changed since is read, and stays."""
    from cardgen.outputs import incremental
    from cardgen.pipeline import incremental as pipeline_incremental

    monkeypatch.setattr(incremental, "RACY_NS", 0)
    read: list[str] = []
    real = incremental.file_sha256
    counted = lambda path: read.append(Path(path).name) or real(path)      # noqa: E731
    monkeypatch.setattr(incremental, "file_sha256", counted)
    monkeypatch.setattr(pipeline_incremental, "file_sha256", counted)
    game = make_game(tmp_path)
    out = tmp_path / "build"
    deck = game / "deck.yaml"
    build(game, out)
    deck.write_text(deck.read_text().replace("The text of card 2.", "Card two, rewritten."))
    second, _ = build(game, out)                            # reads the kept images once: trusted from now on
    images = sorted((out / "seven" / "gallery").rglob("*.png"))
    mine = next(p for p in images if p.name == "004-card-4-face.png")
    with open(mine, "ab") as f:
        f.write(b"annotated")                               # changed since: no longer cardgen's
    deck.write_text(deck.read_text().replace("The text of card 3.", "Card three, rewritten."))
    read.clear()
    build(game, out, only=("print",))
    gone = [p for p in images if p != mine]
    assert not any(p.exists() for p in gone) and mine.is_file()
    written = {p.name for p in second}                      # (not trusted yet: read)
    assert "002-card-2-face.png" in written and len(images) == 8
    assert sorted(n for n in read if n.endswith(".png") and n not in written) == ["004-card-4-face.png"]
    only_print = contents(out)
    shutil.rmtree(out)
    build(game, out, only=("print",))
    assert contents(out) == {k: v for k, v in only_print.items() if k != "gallery/things/004-card-4-face.png"}


def test_a_sides_digest_is_worked_out_once_for_every_part_that_reads_it():
    """`Ledger.value`: a side's digest (`ops.layout_digest`) is taken as worked out, without
    the fonts' table being made again for every part that reads the side."""
    from cardgen.core.units import MM
    from cardgen.model import ops
    from cardgen.outputs.incremental import Ledger

    asked: list[int] = []
    sides = [ops.CardLayout(63.5 * MM, 88.9 * MM, 9.0, [ops.Rect(0.0, 0.0, 9.0, 9.0, fill=(i / 300, 0.3, 0.5, 1.0))],
                            f"m/{i}") for i in range(300)]
    ledger = Ledger(Path("out"), "code", font_files=lambda: asked.append(1) or {})
    first = ledger.value([sides, (sides[0], "png")])
    assert len(asked) == 300 and first[1] == (("side", ops.layout_digest(sides[0], {})), "png")
    assert ledger.value([sides[:10], sides[5]]) == (tuple(("side", ops.layout_digest(s, {})) for s in sides[:10]),
                                                      ("side", ops.layout_digest(sides[5], {})))
    assert len(asked) == 300


def test_an_edit_reads_no_font_file_of_the_font_book_again(tiny_game, tmp_path, monkeypatch):
    """The print sheets' part keys hold every font of the game's font book by content
    (`outputs.incremental.fonts_digest`); each hash is remembered in the user cache as the
    fonts' measurements remember theirs (`core.digest.kept_digest`), so a one-card edit in a
    new process reads none of the 13 bundled font files (of which the cards use two), and its
    sheets are a clean build's."""
    from cardgen.core import digest

    game, out = tiny_game(), tmp_path / "out"
    opts = BuildOptions(out=out, only=("print",), papers=("a4",))
    assert build_game(game, game, opts, Report())
    deck = game / "deck.yaml"
    deck.write_text(deck.read_text().replace("Beta", "Gamma"))
    digest._file_digests.clear()
    digest._kept.clear()             # (as a new process starts)
    read: list[Path] = []
    hashed = digest.hashed_file
    monkeypatch.setattr(digest, "hashed_file", lambda path, st: read.append(Path(path)) or hashed(path, st))
    assert build_game(game, game, opts, Report())
    fonts = DATA / "fonts"
    assert len(list(fonts.glob("*.ttf"))) >= 13
    assert [p for p in read if p.parent == fonts] == []
    clean = tmp_path / "clean"
    assert build_game(game, game, BuildOptions(out=clean, only=("print",), papers=("a4",)), Report())
    assert (out / "tiny" / "print-a4.pdf").read_bytes() == (clean / "tiny" / "print-a4.pdf").read_bytes()


def test_an_output_files_name_in_the_record_is_its_path_from_the_output_folder(tmp_path, monkeypatch):
    """`Ledger.rel`: a path inside the output folder cut from it (as `relpath` gives it, with
    `/`), whether given absolute or from the working folder; one outside by `relpath`."""
    from cardgen.outputs.incremental import Ledger

    monkeypatch.chdir(tmp_path)
    ledger = Ledger(tmp_path / "out", "code")
    for path in [tmp_path / "out" / "gallery" / "deck" / "001-a-face.png", Path("out/index.html"),
                 Path("out/./tts/../tts/x.json"), tmp_path / "other" / "x.pdf", tmp_path / "out2" / "y.pdf",
                 tmp_path / "out"]:
        assert ledger.rel(path) == Path(os.path.relpath(os.path.abspath(path), tmp_path / "out")).as_posix()
    assert ledger.rel(Path("out/gallery/a.png")) == "gallery/a.png"
    assert ledger.rel(tmp_path / "out2" / "y.pdf") == "../out2/y.pdf"


def test_a_part_records_the_files_staged_in_it_without_copying_what_was_staged_before(tmp_path):
    """`Part`: the files a part records are those first staged inside `with part:`, in their
    order (a path staged before and again inside is not the part's); and a part a card side,
    as the gallery and the images make them, does not hold a copy of every path staged before
    it: 3,000 parts over a staging that grows to 3,000 files keep their memory linear (a copy
    a part held 2.4 GB in a 10,000-card gallery)."""
    import tracemalloc

    from cardgen.core.atomic import Staging
    from cardgen.outputs.incremental import Ledger, Part

    out = tmp_path / "out"
    staging, report = Staging(out), Report()
    ledger = Ledger(out, "code")
    staging.add(out / "before.txt", b"a")
    with Part(ledger, "one", "f1", staging, report):
        staging.add(out / "x.txt", b"x")
        staging.add(out / "before.txt", b"b")        # (staged before: not this part's)
        staging.keep(out / "y.txt")
        staging.add(out / "x.txt", b"x2")           # (twice: once)
    with Part(ledger, "empty", "f2", staging, report):
        pass
    assert list(ledger.parts["one"]["files"]) == ["x.txt", "y.txt"]
    assert ledger.parts["empty"]["files"] == {}

    parts = []
    tracemalloc.start()
    try:
        for i in range(3000):
            part = Part(ledger, f"side{i}", "f", staging, report)
            with part:
                staging.keep(out / "gallery" / f"{i:04d}.png")
            parts.append(part)          # (the gallery keeps each side's part until it is made)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert list(ledger.parts["side2999"]["files"]) == ["gallery/2999.png"]
    assert peak < 8 * 2**20, f"{peak / 2**20:.1f} MB"


def test_the_code_version_names_each_package_file_by_its_path_within_the_package(tmp_path, monkeypatch):
    """`code_version` hashes each of cardgen's files by its path within the package (cut from
    the walk's, as `relpath` gives it) and its content (each file's status looked at once, as
    the walk found it): the same version as those paths and hashes worked out one by one, and
    another once a file of the package changes."""
    import hashlib
    import sys

    from cardgen.core import digest

    monkeypatch.setattr(digest, "_code", [])
    pkg = Path(digest.__file__).resolve().parents[1]
    h = hashlib.sha256(sys.version.encode())
    for lib in digest.LIBRARIES:
        h.update(digest.library_stamp(lib).encode() + b"\0")
    for f in digest.walk_files(pkg):
        h.update(f"{os.path.relpath(f, pkg)}\0{digest.file_digest(Path(f))}\0".encode())
    cache = digest.DigestCache()
    assert digest.code_version(cache) == h.hexdigest()
    assert len(cache.entries) == len(digest.walk_files(pkg))
    # a changed file: another version (a copy of the package, one file edited)
    copy = tmp_path / "cardgen"
    shutil.copytree(pkg, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(digest, "__file__", str(copy / "core" / "digest.py"))
    monkeypatch.setattr(digest, "_code", [])
    same = digest.code_version()
    monkeypatch.setattr(digest, "_code", [])
    with open(copy / "core" / "units.py", "a") as f:
        f.write("\n# edited\n")
    assert same == h.hexdigest() and digest.code_version() != same
