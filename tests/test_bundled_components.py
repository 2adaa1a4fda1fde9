"""The bundled games' components held to their documents (issue 25): every component the rules
list is made or bought and every component file is listed; the rulebook's open questions
(`open:`) warned about and printed; a player aid that is a listed item; what the seeds say."""
from __future__ import annotations

import io
import itertools
import re
import textwrap
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from pypdf import PdfReader

from cardgen.check.components import check_counts
from cardgen.core.errors import Report
from cardgen.core.units import MM
from cardgen.layout.rulebook import load_rulebook
from cardgen.outputs import booklet
from cardgen.outputs.rulebook_pages import CALLOUT_BAR
from cardgen.pipeline.build import layout_game
from cardgen.pipeline.check import check_game, load_game

ROOT = Path(__file__).resolve().parent.parent
GAMES = ["alien-conspiracy", "alter-ego", "face-off", "game-601", "vigilantes"]
# listed components still made by nothing (none now)
NOT_MADE_YET: dict[str, list[str]] = {}


def _report(name: str) -> Report:
    report = Report()
    check_game(ROOT / "cards" / name, ROOT, report)
    return report


@pytest.mark.parametrize("name", GAMES)
def test_every_listed_component_is_made_or_bought_and_every_file_is_listed(name):
    report = _report(name)
    assert not report.errors, [str(d) for d in report.errors]
    missing = [re.match(r"rules list (.+?) \(rules\.yaml:\d+\)", d.message).group(1)
               for d in report.items if d.code == "component-missing"]
    assert missing == NOT_MADE_YET.get(name, [])
    assert not [d for d in report.items if d.code == "count-unlisted"]
    game = load_game(ROOT / "cards" / name, ROOT, Report())
    assert game.rules is not None
    listed = {n for e in game.rules.components or [] for n in e.names}
    for deck in game.decks:              # every file, card deck or component, is in the list
        assert deck.name in listed, (name, deck.name)
    for e in game.rules.items():         # every item is made by a file, the player aid, or bought
        made = game.deck(str(e.item)) is not None or e.item == game.rules.aid_item() or e.bought is not None
        assert made or e.item in NOT_MADE_YET.get(name, []), (name, e.item)


def test_the_document_silent_on_a_count_is_said_in_the_issues_words():
    lines = [str(d).replace(str(ROOT) + "/", "") for d in _report("alien-conspiracy").items
             if d.code == "count-silent"]
    assert "cards/alien-conspiracy/rules.yaml:21:13: warning: rules give no count for Alien; 1 copy printed" in lines
    assert lines[-1] == ("cards/alien-conspiracy/rules.yaml:28:13: warning: rules give no count for Player pieces; "
                         "4 copies printed")


def test_vigilantes_makes_every_piece_its_document_names():
    game = load_game(ROOT / "cards" / "vigilantes", ROOT, Report())
    kinds = {d.name: (d.kind, d.size.shape, [c.name for c in d.cards]) for d in game.decks if d.kind != "card"}
    assert kinds["Enemy pieces"] == ("token", "round", ["Normal henchman piece", "Fast henchman piece",
                                                        "Heavy henchman piece", "Special henchman piece",
                                                        "Villain piece"])
    assert kinds["Item tokens"] == ("token", "rect", ["MediKit", "Recharge Pack"])   # the small squares
    assert kinds["Location Booklet"][0] == "board"
    assert {"Vigilante pieces", "Charge tokens", "Permanent Stickers", "Objective tokens", "Alarm token",
            "Starting player token", "Turn token", "Threat token"} <= set(kinds)
    objective = game.deck("Objective tokens")
    assert objective is not None and objective.data.get("backs")        # two-sided


# -- open questions ---------------------------------------------------------------------------

def test_alter_egos_open_questions_are_warned_at_their_line_and_printed():
    report = _report("alter-ego")
    shown = [d for d in report.items if d.code == "open-question"]
    assert len(shown) == 2 and all(d.severity == "warning" for d in shown)
    for d in shown:
        line = Path(d.loc.file).read_text(encoding="utf-8").splitlines()[d.loc.line - 1]
        assert "- open:" in line, str(d)
        assert d.message.startswith("open question, the rules leave it undecided: ")
    assert "2 (3? # based on player board?)" in shown[0].message
    assert "(discard pile?)" in shown[1].message
    game = load_game(ROOT / "cards" / "alter-ego", ROOT, Report())
    rules = booklet.rules_pdf(layout_game(game, Report()), load_rulebook(game), "a5", None)
    pages = PdfReader(io.BytesIO(rules)).pages
    texts = [" ".join(p.extract_text().split()) for p in pages]
    at = [i for i, t in enumerate(texts) if "Open question" in t]
    assert at and "2 (3? # based on player board?)" in " ".join(texts[i] for i in at)
    # the box's bar is drawn in the open questions' colour, on the page that holds one
    bar = tuple(round(v * 255) for v in CALLOUT_BAR["open"][:3])
    img = pdfium.PdfDocument(rules)[at[0]].render(scale=2).to_pil().convert("RGB")
    raw = img.tobytes()         # (Image.getdata is deprecated since Pillow 12)
    hits = sum(1 for px in zip(raw[0::3], raw[1::3], raw[2::3]) if all(abs(a - b) <= 3 for a, b in zip(px, bar)))
    assert hits > 200


def _tiny(tmp_path: Path, rules: str) -> Path:
    root = tmp_path / "g"
    root.mkdir()
    (tmp_path / "templates" / "t").mkdir(parents=True)
    (tmp_path / "templates" / "t" / "t.yaml").write_text("elements: []\n")
    (root / "game.yaml").write_text("title: G\nplayers: 2-3\n")
    (root / "d.yaml").write_text("deck: D\ntemplate: t/t\ncards:\n  - {name: A}\n")
    (root / "rules.yaml").write_text(textwrap.dedent(rules))
    return root


def test_an_open_question_that_is_not_a_text_is_an_error(tmp_path):
    root = _tiny(tmp_path, """\
        components:
          - deck: D
            total: 1
        sections:
          - title: S
            body:
              - open: [a, b]
        """)
    report = Report()
    check_game(root, tmp_path, report)
    assert [str(d).replace(str(root) + "/", "") for d in report.errors] == [
        "rules.yaml:7:15: error: section 'S': an open question is a text"]


# -- a player aid that is a listed item -------------------------------------------------------

@pytest.mark.parametrize(("count", "found"), [
    ("3", []),
    ("4", ["count-mismatch: rules.yaml:5:12: error: Summary card: rules say 4 (rules.yaml:5), the player aid "
           "makes 3 (rules.yaml `player_aid:`)"]),
    (None, ["count-silent: rules.yaml:4:11: warning: rules give no count for Summary card; 3 copies printed"]),
])
def test_a_player_aid_that_is_a_listed_item_is_counted_as_made(tmp_path, count, found):
    root = _tiny(tmp_path, f"""\
        components:
          - deck: D
            total: 1
          - item: Summary card
        {'    count: ' + count if count else ''}
        player_aid:
          item: Summary card
          turn: [Play.]
        """)
    report = Report()
    game = load_game(root, tmp_path, report, tolerant=True)
    check_counts(game, report)
    assert [f"{d.code}: {d}".replace(str(root) + "/", "") for d in report.items] == found


def test_face_offs_summary_card_is_its_player_aid_on_the_components_page():
    game = load_game(ROOT / "cards" / "face-off", ROOT, Report())
    rules = booklet.rules_pdf(layout_game(game, Report()), load_rulebook(game), "a5", None)
    text = " ".join(" ".join(p.extract_text().split()) for p in PdfReader(io.BytesIO(rules)).pages)
    assert "Faction rule and game phase summary card — 5 cards the player aid, printed with the cards" in text
    assert "Also needed" not in text


def test_a_token_file_of_several_kinds_pictures_each_kind_on_the_components_page():
    game = load_game(ROOT / "cards" / "vigilantes", ROOT, Report())
    r = layout_game(game, Report())
    maker = booklet.BookletMaker(r, load_rulebook(game), "a5", None)
    strips = maker._component_strips(maker.comp)
    thumbs = [ts for ts in ([op for op in s.ops if isinstance(op, booklet.Thumb)] for s in strips) if ts]
    # one picture per file; a token or tile file of several kinds adds each kind, small, in a row
    assert [len(ts) for ts in thumbs] == [1 + (len(d.cards) if d.kind in ("token", "tile") and len(d.cards) > 1
                                               else 0) for d in game.decks]
    several = [ts[1:] for ts in thumbs if len(ts) > 1]
    assert len(several) == 4          # enemy, vigilante and item pieces, stickers
    for small in several:
        assert all(t.w == pytest.approx(8 * MM) for t in small)
        xs = [t.cx for t in small]
        assert all(b - a == pytest.approx(10 * MM) for a, b in itertools.pairwise(xs))


# -- the summaries held to their seeds ---------------------------------------------------------

def test_what_the_seeds_say():
    vig = (ROOT / "cards" / "vigilantes" / "rules.yaml").read_text(encoding="utf-8")
    assert "re-roll" not in vig and "reroll" not in vig            # energy turns a blank into a hit
    assert "a blank may be turned into a hit for 1 energy" in vig
    actions = load_game(ROOT / "cards" / "game-601", ROOT, Report()).deck("Action")
    assert actions is not None
    transaction = next(c for c in actions.cards if c.name == "Transaction")
    assert "this Transaction card returns to your hand" in str(transaction.fields["text"])
    for name in ("alien-conspiracy", "alter-ego", "game-601"):        # no player count in the document
        game = load_game(ROOT / "cards" / name, ROOT, Report())
        assert str(game.data["players"]).startswith("not stated"), name
    ninjas = load_game(ROOT / "cards" / "face-off", ROOT, Report()).deck("Ninjas")
    assert ninjas is not None
    tamoe = next(c for c in ninjas.cards if c.name == "Tamoe Gozen")
    assert "derived" in str(tamoe.fields["todo"])
