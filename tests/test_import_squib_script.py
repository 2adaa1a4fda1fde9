"""`cardgen import squib --script`: a Squib game ported as its author has it (a workbook, a layout
file and the Ruby script that draws with them), as docs/templates.md "Porting from Squib" walks
through it: the script says what each layout entry draws, in what order, and which column a text
prints; the game starts with `cardgen new --from`, builds, its boxes where Squib draws them (read
back from the PDF) and its counts those of the workbook's Qty column.

The game here is written for these tests in the shape of a real one (Rebuild, from
andymeneely/project-spider-monkey, the port docs/templates.md describes): resource pills made by
a loop whose layout names the script works out, a rect and a text over it, an entry the script
never draws, a `build` variant, `middle` and `deck` on the back."""
from __future__ import annotations

import json
from pathlib import Path

import pypdfium2 as pdfium
import pytest
import yaml
from click.testing import CliRunner
from test_import_squib import PX
from test_placement import _rows
from vgame import make_project

from cardgen.cli.main import main
from cardgen.core.errors import Report
from cardgen.pipeline.build import BuildOptions, build_game

LAYOUT = """\
title:
  x: 75
  y: 75
  width: 675
  align: center
  font: Archistico,Sans Bold 18
cost_amt:
  x: 60
  y: 185
  width: 75
  height: 100
  align: center
  font: Sans Bold 17
cost_rect:
  extends: cost_amt
  x: -= 175
  width: += 325
  radius: 50
  stroke_color: '#0000ff'
power_amt:
  extends: cost_amt
  y: += 125
power_rect:
  extends: cost_rect
  y: += 125
frame:
  x: 300
  y: 215
  width: 700
  height: 450
  radius: 25
art:
  x: 315
  y: 230
  width: 425
  height: 425
text_box:
  x: 190
  y: 725
  width: 550
  height: 250
  radius: 20
  stroke_width: 5
  stroke_color: '#00ff00'
rules:
  extends: text_box
  x: += 10
  width: -= 15
  font: Serif 10
  align: center
  valign: middle
"""

SCRIPT = """\
require 'squib'

data = Squib.csv file: 'cards.csv'
ink = '#333333' # one colour: read
paper = '#ffffff'
paper = '#fff8e0' if ENV['cream']

Squib::Deck.new(cards: data.nrows) do
  use_layout file: 'layouts/game.yml'
  background color: paper

  build :bw do
    svg layout: 'art', file: data['Art'].map { |a| "bw/#{a}.svg" }
  end
  build :color do
    svg layout: 'art', file: data['Art'].map { |a| "color/#{a}.svg" }
  end

  text str: data['Title'], layout: :title, font_size: 20, color: ink
  %w(Cost Power).each do |stat|
    rect layout: "#{stat.downcase}_rect", fill_color: :black,
         range: data[stat].each.with_index.map { |x, i| x.nil? ? nil : i }.compact
    text str: data[stat], layout: "#{stat.downcase}_amt", color: :white
  end
  # text layout: :frame
  rect layout: :text_box, range: data.rules.each_index.select { |i| data.rules[i] }
  text(str: data.rules, layout: 'rules') do |embed|
    %w(Cost Power).each do |key|
      embed.svg key: key, file: "img/#{key.downcase}.svg", width: 40
    end
  end
  text str: 'Rules on the back', layout: :rules, y: 1000, font_size: 6
  save_pdf trim: 37.5
end
"""

BACK_LAYOUT = """\
title:
  x: 2c
  y: middle - 4c
  width: deck - 4c
  height: 4c
  align: center
  font: Sans Bold 22
  ellipsize: autoscale
"""

BACK_SCRIPT = """\
Squib::Deck.new(cards: data.nrows) do
  use_layout file: 'layouts/backs.yml'
  text str: data.title, layout: :title
end
"""

CSV = "Title,Qty,Cost,Power,Art,Rules\nDragon,2,5,7,dragon,Fly away.\nSquire,3,1,,squire,Draw 1.\n"


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


@pytest.fixture
def ported(tmp_path, monkeypatch) -> tuple[Path, str, str]:
    """The game started from its workbook, then the face and back imported with their scripts."""
    project = make_project(tmp_path)
    src = tmp_path / "squib"
    (src / "layouts").mkdir(parents=True)
    (src / "layouts" / "game.yml").write_text(LAYOUT)
    (src / "layouts" / "backs.yml").write_text(BACK_LAYOUT)
    (src / "game.rb").write_text(SCRIPT)
    (src / "backs.rb").write_text(BACK_SCRIPT)
    (src / "cards.csv").write_text(CSV)
    monkeypatch.chdir(project / "cards")
    code, out = _run("new", "port", "--from", str(src / "cards.csv"))
    assert code == 0, out
    code, face = _run("import", "squib", str(src / "layouts" / "game.yml"), "port/cards.csv",
                      "--script", str(src / "game.rb"), "--out", "port")
    assert code == 0, face
    code, back = _run("import", "squib", str(src / "layouts" / "backs.yml"), "port/cards.csv",
                      "--script", str(src / "backs.rb"), "--out", "port")
    assert code == 0, back
    deck = project / "cards" / "port" / "cards.yaml"
    text = deck.read_text()
    deck.write_text("\n".join("template: game" if line.startswith("template:") else
                              "backs: backs" if line.startswith("back:") else line for line in text.splitlines()))
    return project / "cards" / "port", face, back


def test_the_script_says_what_each_entry_draws_and_the_rest_is_said_at_its_line(ported):
    root, face, back = ported
    lines = face.splitlines()
    src = "squib/"
    assert any(line.endswith("layouts/game.yml:27:3: 'frame': no call of game.rb draws it; left out")
               for line in lines), face
    # the loop over a literal list is read turn by turn: cost_rect, cost_amt, then power_rect, ...
    assert "taken as drawn" not in face
    assert any(line.endswith("game.rb:13: 'art': drawn in `build :bw` (a variant), made for every build")
               for line in lines), face
    assert any(line.endswith("game.rb:16: 'art': drawn again here, in `build :color` (a variant); the image drawn "
                             "first made") for line in lines), face
    assert any(line.endswith("game.yml:6:9: 'title': font family Archistico, Sans not carried over (put its files "
                             "in fonts/ and set `font:`); its size and style are kept") for line in lines), face
    assert "port/cards.yaml: reads cards.csv already: set its `template: game`" in face and src in face
    assert "wrote port/templates/game.yaml" in face and "port/game-deck.yaml" not in face
    assert "backs.yml: `middle` and `deck` read for a 825 x 1125 px deck" in back
    template = yaml.safe_load((root / "templates" / "game.yaml").read_text())
    els = template["elements"]
    # the script's order, one element per drawing, `frame` left out
    assert [e["name"] for e in els] == ["art", "title", "cost_rect", "cost_amt", "power_rect",
                                       "power_amt", "text_box", "rules", "rules_2"]
    by = {e["name"]: e for e in els}
    assert "background" not in by and any(line.endswith(
        "game.rb:10: 'background': a colour the script works out (paper is set 2 ways, on lines 5, 6); not carried "
        "over") for line in lines), face
    assert by["title"]["color"] == "#333333"            # `color: ink`, ink set once
    assert [by[n]["type"] for n in ("art", "title", "cost_rect", "cost_amt", "text_box", "rules")] == \
        ["image", "text", "rect", "text", "rect", "text"]
    # `str: data['Title']` is the deck's name column; `data.rules` the column Rules
    assert by["title"]["text"] == "{{ card['name'] }}"
    # Squib's embedded icons, from a loop in the text's block: each word printed as its icon
    assert by["rules"]["text"] == "{{ card['Rules'] | replace('Cost', ':cost:') | replace('Power', ':power:') }}"
    assert any(line.endswith("game.rb:27: 'rules': 'Power' printed as the icon :power: (put img/power.svg in "
                             "art/icons/power.svg)") for line in lines), face
    # drawn again, with its words and other arguments: a second element
    assert (by["rules_2"]["text"], by["rules_2"]["y"], by["rules_2"]["size"]) == ("Rules on the back", "1000px", 6)
    # `text str: data[stat], layout: "#{stat.downcase}_amt"` in the loop over %w(Cost Power): cost_amt prints
    # the column Cost
    assert by["cost_amt"]["text"] == "{{ card['Cost'] }}" and by["power_amt"]["text"] == "{{ card['Power'] }}"
    assert (by["power_rect"]["x"], by["power_rect"]["y"], by["power_rect"]["width"]) == ("-115px", "310px", "400px")
    # the call's literal arguments over the layout's: a black pill, white amounts, a 20 pt title; the
    # art's file made per card from the column Art, as the script's `.map { |a| "bw/#{a}.svg" }` does
    assert (by["cost_rect"]["fill"], by["cost_amt"]["color"], by["title"]["size"]) == ("black", "white", 20)
    assert (by["cost_rect"]["when"], by["power_rect"]["when"]) == ("card['Cost'] != ''", "card['Power'] != ''")
    assert any(line.endswith("game.rb:21: 'cost_rect', 'power_rect': range: read as the cards that have the column "
                             "(a `when:`)") for line in lines), face
    assert by["art"]["src"] == "bw/{{ card['Art'] }}.svg"
    assert any(line.endswith("game.rb:26: 'text_box': drawn on some cards only (range:); add a `when:`")
               for line in lines), face


def test_the_ported_game_builds_with_its_boxes_where_squib_draws_them_and_its_counts(ported, tmp_path):
    root, _, _ = ported
    report = Report()
    build_game(root, root.parent.parent, BuildOptions(out=tmp_path / "out", only=("cards",)), report)
    assert not [d for d in report.items if d.severity == "error"], [str(d) for d in report.items]
    manifest = json.loads((tmp_path / "out" / "port" / "manifest.json").read_text())
    assert {c["name"]: c["copies"] for c in manifest["cards"]} == {"Dragon": 2, "Squire": 3}
    pdf = (tmp_path / "out" / "port" / "cards.pdf").read_bytes()
    # the rules box (Squib's rect: the layout's 5 px outline) and the cost pill (its default 2 px one)
    assert _rows(pdf, 0, (0, 255, 0)) == pytest.approx((187.5 * PX, 722.5 * PX, 742.5 * PX, 977.5 * PX), abs=0.5)
    pill = _rows(pdf, 0, (0, 0, 255))       # from x -115: the page (the bleed's corner) clips it at 0
    assert pill == pytest.approx((0, 184 * PX, 286 * PX, 411 * PX), abs=0.5)
    # `range:` of the cards that have a Power: the Squire (no Power) has its cost pill only
    assert _rows(pdf, 1, (0, 0, 255)) == pytest.approx((0, 184 * PX, 286 * PX, 286 * PX), abs=0.5)
    doc = pdfium.PdfDocument(pdf)
    # title: centred in x 75..750; rules: centred in x 200..735 and in y 725..975
    left, _, right, _ = _span(doc[0], "Dragon")
    assert (left + right) / 2 == pytest.approx((75 + 675 / 2) * PX, abs=0.5)
    left, top, right, bottom = _span(doc[0], "Fly away.")
    assert (left + right) / 2 == pytest.approx((200 + 535 / 2) * PX, abs=0.5)
    assert (top + bottom) / 2 == pytest.approx(850 * PX, abs=0.5)
    left, top, right, _ = _span(doc[0], "7")          # power: the pill's amount, centred in x 60..135, at y 310
    assert (left + right) / 2 == pytest.approx(97.5 * PX, abs=0.5)
    assert 310 * PX <= top <= 310 * PX + 1.5               # below the top by the font's ascent gap
    # the backs, after the faces: `x: 2c`, `width: deck - 4c` (825 - 150), `y: middle - 4c`, 150 px tall, centred
    assert len(doc) == 4
    left, top, right, bottom = _span(doc[2], "Dragon")
    assert (left + right) / 2 == pytest.approx(412.5 * PX, abs=0.5)
    assert top >= 412.5 * PX - 0.5 and bottom <= (412.5 + 150) * PX + 0.5


def _span(page, word: str) -> tuple[float, float, float, float]:
    """Where `word` is printed first on `page` (letters and spaces as pdfium reads them): (left,
    top, right, bottom) in mm from the page's top-left corner."""
    text = page.get_textpage()
    chars = [text.get_text_range(i, 1) for i in range(text.count_chars())]
    at = "".join(chars).find(word)
    assert at >= 0, "".join(chars)
    h = page.get_size()[1]
    boxes = [text.get_charbox(i) for i in range(at, at + len(word)) if chars[i].strip()]
    mm = 25.4 / 72
    return (min(b[0] for b in boxes) * mm, (h - max(b[3] for b in boxes)) * mm,
            max(b[2] for b in boxes) * mm, (h - min(b[1] for b in boxes)) * mm)


def test_a_loop_the_reader_cannot_unroll_draws_the_entries_its_computed_name_fits(tmp_path):
    from cardgen.cli import squib_script

    (tmp_path / "deck.rb").write_text("stats.each do |stat|\n  text str: data[stat], layout: \"#{stat.downcase}_amt\"\n"
                                      "end\n%w(Wood Gold).each do |res|\n  rect layout: \"#{res}_#{kind}\"\nend\n")
    script = squib_script.read(tmp_path / "deck.rb")
    assert [(u.column, u.line) for u in script.uses("cost_amt")] == [("cost", 2)]       # the column Cost, if any
    assert [u.written for u in script.uses("Wood_pill")] == ["Wood_#{kind}"]            # unrolled, still computed
    assert script.uses("Steel_pill") == [] and script.uses("amt") == []


@pytest.mark.parametrize(("call", "kind", "column", "file", "args", "worked_out"), [
    ("text str: data['Name'], layout: 'name', color: fg", "text", "Name", None, {}, ["color"]),
    ("text str: 'Credits: A. Meneely', layout: :credits", "text", None, None, {}, []),
    ("text(str: data.snark, layout: :snark) do |embed|\n  embed.svg key: 'Wood', width: 52\nend",
     "text", "snark", None, {}, []),
    ("svg layout: :bonus_type,\n    file: data['TypeDesc'].map { |t| \"#{t}.svg\" unless t.nil? }",
     "image", None, ("\0.svg", "TypeDesc", True), {}, []),
    ("png file: 'vp.png', layout: :vp, alpha: 0.5", "image", None, ("vp.png", None, False), {"alpha": 0.5}, []),
    ("rect layout: :bonus, stroke_width: 5, stroke_color: :black,\n     radius: 20, range: picked",
     "rect", None, None, {"stroke_width": 5, "stroke_color": "black", "radius": 20}, ["range"]),
    ("rect layout: :bonus, range: (0..n-1).reject { |i| data.description[i].to_s.empty? }",
     "rect", None, None, {}, ["range"]),
    ("svg layout: :art, file: data['Icon'].map { |a| \"#{mode}/#{a}.svg\" }", "image", None, (None, None, False),
     {}, []),
])
def test_script_calls_are_read_without_running_them(tmp_path, call, kind, column, file, args, worked_out):
    from cardgen.cli import squib_script

    (tmp_path / "deck.rb").write_text(f"Squib::Deck.new do\n  text = 'not a call'\n  {call}\nend\n")
    script = squib_script.read(tmp_path / "deck.rb")
    assert len(script.calls) == 1, script.calls
    _, use = script.calls[0]
    assert (use.kind, use.column, use.line, use.args, use.worked_out) == (kind, column, 3, args, worked_out)
    if file is not None:
        assert (use.file, use.file_column, use.only_with_file) == file
    assert use.having == ("description" if "reject" in call else None)
    assert use.literal == ("Credits: A. Meneely" if "Credits" in call else None)


def test_the_scripts_deck_size_is_what_middle_and_deck_are_of(tmp_path):
    (tmp_path / "wide.yml").write_text("title:\n  x: middle - 1in\n  y: deck - 1in\n  width: 2in\n  height: 1in\n")
    (tmp_path / "wide.rb").write_text("Squib::Deck.new(cards: data.nrows, width: 1125,\n"
                                      "                height: '2.75in') do\n  text str: 'A', layout: :title\nend\n")
    code, out = _run("import", "squib", str(tmp_path / "wide.yml"), "--script", str(tmp_path / "wide.rb"),
                     "--out", str(tmp_path / "g"))
    assert code == 0, out
    assert ("wide.rb:1: `middle` and `deck` read for Deck.new's 1125 x 825 px; with Squib's usual 1/8 in bleed the "
            "trim is 1050 x 750 px: set game.yaml's card_size to it ({width: ..., height: ...})") in out
    title = yaml.safe_load((tmp_path / "g" / "templates" / "wide.yaml").read_text())["elements"][0]
    assert (title["x"], title["y"]) == ("262.5px", "525px")
    code, out = _run("import", "squib", str(tmp_path / "wide.yml"), "--script", str(tmp_path / "wide.rb"),
                     "--deck", "2.75in x 3.75in", "--out", str(tmp_path / "g"), "--force")
    title = yaml.safe_load((tmp_path / "g" / "templates" / "wide.yaml").read_text())["elements"][0]
    assert code == 0 and (title["x"], title["y"]) == ("112.5px", "825px") and "Deck.new" not in out


@pytest.mark.parametrize(("deck", "expected"), [
    ("5", "--deck: error: '5' is not a width x height (825x1125, 2.75in x 3.75in)"),
    ("0x100", "--deck: error: '0x100': a deck's width and height are more than 0 and at most 30000 px"),
    ("axb", "--deck: error: 'a' is not a length the importer reads (a number of pixels, or with in, mm, cm, pt or c)"),
])
def test_a_bad_deck_size_is_one_line(tmp_path, deck, expected):
    (tmp_path / "l.yml").write_text("a:\n  x: middle\n")
    code, out = _run("import", "squib", str(tmp_path / "l.yml"), "--deck", deck, "--out", str(tmp_path / "g"))
    assert (code, out.strip()) == (1, expected)


def test_a_script_of_too_many_calls_is_one_line_at_the_first_call_past_the_limit(tmp_path):
    from cardgen.cli import squib_script

    (tmp_path / "l.yml").write_text("a:\n  x: 1\n")
    calls = "".join(f"  text str: 'x', layout: :a{i}, color: (\n" for i in range(squib_script.MAX_CALLS + 1))
    (tmp_path / "many.rb").write_text("Squib::Deck.new do\n" + calls + "end\n")
    code, out = _run("import", "squib", str(tmp_path / "l.yml"), "--script", str(tmp_path / "many.rb"),
                     "--out", str(tmp_path / "g"))
    assert code == 1 and len(out.strip().splitlines()) == 1, out
    assert out.strip().endswith(f"many.rb:{squib_script.MAX_CALLS + 2}: error: more than {squib_script.MAX_CALLS} "
                                f"drawing calls; not a script to read"), out
