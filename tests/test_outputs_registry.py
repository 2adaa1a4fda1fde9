"""The outputs' registry drives the `build` command, option resolution, the docs, and the one
check path that `cardgen validate` and `cardgen build` share."""
from __future__ import annotations

import dataclasses
import os
import re
import sys

import pytest
from click.testing import CliRunner
from conftest import REPO
from vgame import ACTIONS, FACE, RULES, make_game

from cardgen.cli import main as cli
from cardgen.outputs import OUTPUTS
from cardgen.outputs.booklet import Booklet
from cardgen.outputs.tts import Tts
from cardgen.pipeline import reference
from cardgen.pipeline.options import BuildOptions


def _help() -> str:
    r = CliRunner().invoke(cli.main, ["build", "--help"], terminal_width=200)
    assert r.exit_code == 0, r.output
    return r.output


def test_only_choices_are_the_registry():
    only = next(p for p in cli.build.params if p.name == "only")
    assert list(only.type.choices) == list(OUTPUTS)
    assert f"--only [{'|'.join(OUTPUTS)}]" in _help()


def test_every_output_flag_is_in_build_help():
    text = _help()
    flags = [o.cli for out in OUTPUTS.values() for _, o in out.Options.options().values() if o.cli]
    assert len(flags) == len(set(flags)) and all(f.startswith("--") for f in flags)
    for flag in [*flags, "--page", "--out", "--only", "--strict", "--watch"]:
        assert re.search(rf"^\s+{re.escape(flag)}\b", text, re.M), flag
    for out in OUTPUTS.values():
        assert f"{out.name}: {out.summary.rstrip('.')}" in " ".join(text.split())


def test_names_and_classes_agree():
    for name, out in OUTPUTS.items():
        assert out.name == name and out.summary and out.summary.endswith(".")
    assert [n for n, o in OUTPUTS.items() if not o.default] == ["changes", "ttp", "tabletopia", "screentop", "png", "images"]
    sections = [o.section for o in OUTPUTS.values() if o.section]
    assert len(sections) == len(set(sections))
    # the table says each output's section without importing it (`cardgen validate` imports
    # only the outputs whose section a game has); the classes read theirs from it
    assert OUTPUTS.sections() == {o.section: (n, o.DeckOptions is not None) for n, o in OUTPUTS.items() if o.section}
    assert OUTPUTS.sections()["tts"] == ("tts", True) and OUTPUTS["tts"].section == "tts"


def test_the_table_is_the_one_declaration_of_name_section_deck_and_default(monkeypatch):
    """An output class in the table declares none of its row's facts itself, and one whose
    `DeckOptions` disagree with its row's `deck` is refused when it is made."""
    from cardgen.outputs import Row
    from cardgen.outputs.base import NoOptions, Output

    assert OUTPUTS.defaults() == [n for n, o in OUTPUTS.items() if o.default]
    monkeypatch.setitem(OUTPUTS, "said", Row(__name__, "Said", "said", default=False))
    with pytest.raises(TypeError, match=r"^Said: section: said by its row in the outputs' table "
                                        r"\(cardgen/outputs/table.py\); remove it from the class$"):
        class Said(Output[NoOptions]):
            section = "said"
    class Said(Output[NoOptions]):
        summary = "Said."
    assert (Said.name, Said.section, Said.default, Said.DeckOptions) == ("said", "said", False, None)
    monkeypatch.setitem(OUTPUTS, "no-deck", Row(__name__, "NoDeck", "no-deck", deck=True))
    with pytest.raises(TypeError, match=r"^NoDeck: the outputs' table says deck files may have its section: declare "
                                        r"its DeckOptions$"):
        class NoDeck(Output[NoOptions]):
            pass
    monkeypatch.setitem(OUTPUTS, "deck", Row(__name__, "Deck", "deck"))
    with pytest.raises(TypeError, match=r"^Deck: it has DeckOptions: say `deck=True` in its row of the outputs' "
                                        r"table$"):
        class Deck(Output[NoOptions]):
            DeckOptions = NoOptions


def _given(monkeypatch, *args) -> BuildOptions:
    """The BuildOptions the command line makes of `args` (nothing is built)."""
    seen = []
    monkeypatch.setattr(cli, "_build_all", lambda paths, opts: seen.append(opts) or False)
    r = CliRunner().invoke(cli.main, ["build", "game-601", *args])
    assert r.exit_code == 0, r.output
    return seen[0]


def test_command_line_over_game_yaml_over_default(monkeypatch):
    data = {"booklet": {"page": "half-letter"}, "tts": {"format": "png", "jpeg_quality": 95}}
    opts = _given(monkeypatch, "--booklet-page", "a5", "--tts-base-url", "https://example.org/t",
                  "--page", "a4", "--no-backs", "--back-offset", "0.5,-1")
    assert opts.papers == ("a4",) and opts.only == () and not opts.strict
    assert opts.outputs == {"booklet": {"page": "a5"}, "tts": {"base_url": "https://example.org/t"},
                            "print": {"backs": False, "back_offset": (0.5, -1.0)}}
    assert Booklet.resolve(data, opts.outputs["booklet"]).page == "a5"         # flag over game.yaml
    assert Booklet.resolve(data).page == "half-letter"                          # game.yaml over default
    assert Booklet.resolve({}).page == "a5"                                     # the default
    tts = Tts.resolve(data, opts.outputs["tts"])
    assert (tts.format, tts.jpeg_quality, tts.base_url) == ("png", 95, "https://example.org/t")
    plain = _given(monkeypatch)
    assert plain.outputs == {} and plain.papers == ("letter", "a4")
    assert plain.wanted() == [n for n, o in OUTPUTS.items() if o.default]


def test_bad_flag_value_is_a_usage_error():
    r = CliRunner().invoke(cli.main, ["build", "game-601", "--back-offset", "1"])
    assert r.exit_code == 2
    assert "Invalid value for '--back-offset': must be X,Y in millimetres, e.g. 0.5,-1, got '1'" in r.output


def test_docs_hold_exactly_the_generated_tables():
    generated = reference.current(REPO, "outputs")
    assert generated == reference.generated("outputs")
    assert re.findall(r"^## `([\w-]+)`", generated, re.M) == list(OUTPUTS)


# -- one check path ------------------------------------------------------------------------------

def _run(tmp_path, *args):
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        r = CliRunner().invoke(cli.main, list(args))
    finally:
        os.chdir(old)
    assert r.exception is None or isinstance(r.exception, SystemExit), r.output
    return r.exit_code, r.output.splitlines()


def _problems(lines):
    return [ln for ln in lines if re.match(r"^\S+:\d*:?\d*:? ?(error|warning): ", ln)]


BROKEN = {
    "tts option": ({"game": "title: Test game\ntts:\n  formt: png\n  jpeg_quality: 80\n"}, [
        "cards/g/game.yaml:3:3: error: tts: unknown key 'formt'; did you mean 'format'?",
        "cards/g/game.yaml:4:17: error: tts: `jpeg_quality` must be a whole number from 90 to 100, got 80"]),
    "deck tts option": ({"decks": {"actions.yaml": ACTIONS + "tts: {shape: hexagon, format: png}\n"}}, [
        "cards/g/actions.yaml:10:14: error: Action: tts: `shape` must be one of rounded, rect, rounded-hex, hex, "
        "circle, got 'hexagon'; did you mean 'hex'?",
        "cards/g/actions.yaml:10:23: error: Action: tts: unknown key 'format'"]),
    "tts not a mapping": ({"game": "title: Test game\ntts: 5\n"}, [
        "cards/g/game.yaml:2:6: error: tts: must be a mapping of options, e.g. `tts: {back_is_hidden: true}`, "
        "got 5"]),
    "booklet page": ({"game": "title: Test game\nbooklet: {page: a3}\n"}, [
        "cards/g/game.yaml:2:17: error: booklet: `page` must be one of a5, half-letter, got 'a3'"]),
    "unknown template": ({"decks": {"actions.yaml": ACTIONS.replace("g/face", "g/fase")}}, [
        "cards/g/actions.yaml:2:11: error: unknown template 'g/fase'; did you mean 'g/face'?; create "
        "templates/g/fase.yaml"]),
    "element type": ({"templates": {"face": FACE.replace("type: rect", "type: rectangle")}}, [
        "templates/g/face.yaml:3:11: error: element 'bg': unknown type 'rectangle'; did you mean 'rect'? "
        "(types: rect, ellipse, line, polygon, text, image, icon, stack)"]),
    "colour": ({"templates": {"face": FACE.replace('"#ffffff"', '"#fffffz"')}}, [
        "templates/g/face.yaml:5:11: error: element 'bg' (rect): `fill` must be a colour such as #1d6a72, a CSS "
        "colour name or none, got '#fffffz'"]),
    "counts": ({"decks": {"actions.yaml": ACTIONS.replace("count: 6", "count: 5")}}, [
        "cards/g/rules.yaml:5:22: error: Action: rules say 6 x Digging (rules.yaml:5), deck has 5 (actions.yaml:5)"]),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_validate_and_build_report_the_same(tmp_path, case):
    kw, expected = BROKEN[case]
    make_game(tmp_path, **kw)
    vcode, vout = _run(tmp_path, "validate", "g")
    bcode, bout = _run(tmp_path, "build", "g", "--only", "cards")
    assert _problems(vout) == expected
    assert _problems(bout) == expected
    assert vcode == 1
    if case == "counts":        # count errors do not stop a build
        assert bcode == 0 and bout[-1].startswith("g: built despite 1 count error")
    else:
        assert bcode == 1 and bout[-1] == "g: not built; the previous output is unchanged"
        assert not (tmp_path / "build").exists()


def test_nan_card_size_is_reported_the_same(tmp_path):
    make_game(tmp_path, game="title: Test game\ncard_size: {width: .nan, height: 88}\n")
    vcode, vout = _run(tmp_path, "validate", "g")
    bcode, bout = _run(tmp_path, "build", "g", "--only", "cards")
    assert _problems(vout) == _problems(bout)
    assert _problems(vout) and all(ln.startswith("cards/g/game.yaml:2:") for ln in _problems(vout))
    assert (vcode, bcode) == (1, 1)


RULEBOOK = RULES + """\
title: Test game
sections:
  - title: Setup
    body: ["Deal {{ decks.Action.cout }} cards."]
"""


def test_rulebook_errors_stop_only_the_booklet_outputs(tmp_path):
    make_game(tmp_path, rules=RULEBOOK)
    error = ("cards/g/rules.yaml:10:33: error: rules text '{{ decks.Action.cout }}': decks.Action has no 'cout' "
             "(a deck has count, distinct, cards and name)")
    vcode, vout = _run(tmp_path, "validate", "g")
    assert vcode == 1 and _problems(vout) == [error]
    bcode, bout = _run(tmp_path, "build", "g", "--only", "cards", "--only", "booklet", "--only", "player-aid")
    assert bcode == 0
    assert _problems(bout) == ["cards/g/rules.yaml: warning: booklet, player-aid not made while the rulebook "
                               "has errors", error]
    assert sorted(p.name for p in (tmp_path / "build" / "g").glob("*.pdf")) == ["cards.pdf"]
    bcode, bout = _run(tmp_path, "build", "g", "--only", "booklet")
    assert bcode == 1 and _problems(bout) == [error]


def test_validate_internal_error_is_one_line(tmp_path, monkeypatch):
    import cardgen.pipeline.validate as v

    make_game(tmp_path)

    def boom(*a, **k):
        raise RuntimeError("boom")

    monkeypatch.setattr(v, "check_game", boom)
    code, out = _run(tmp_path, "validate", "g")
    assert code == 1
    assert out[0] == ("g: internal error (RuntimeError: boom). This is a cardgen bug: please report it with "
                      "CARDGEN_DEBUG=1 output")
    assert "Traceback" not in "\n".join(out)
    monkeypatch.setenv("CARDGEN_DEBUG", "1")
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        r = CliRunner().invoke(cli.main, ["validate", "g"])
    finally:
        os.chdir(old)
    assert isinstance(r.exception, RuntimeError)


# -- the typed plug-in boundary ------------------------------------------------------------------

def test_each_output_names_its_options_once_as_its_type_argument():
    import typing

    from cardgen.outputs.base import NoOptions, Output
    from cardgen.schema.core import Decl

    for out in OUTPUTS.values():
        (arg,) = typing.get_args(next(b for b in out.__orig_bases__ if typing.get_args(b)))
        assert out.Options is arg and issubclass(arg, Decl), out.name
        assert "Options" not in out.__dict__ or out.__dict__["Options"] is arg
    with pytest.raises(TypeError, match=r"Options is NoOptions but the class is Output\[TtsOptions\]"):
        class Twice(Output[Tts.Options]):
            Options = NoOptions
    with pytest.raises(TypeError, match="not a declaration"):
        class NotDecl(Output[int]):       # type: ignore[type-var]
            pass


def test_make_gets_its_own_declared_dataclass_and_others_typed(tmp_path, monkeypatch):
    """Every output's `make` gets `job.options` as an instance of its own `Options`, with the
    command line over game.yaml; an output that reads another output's options (the
    calibration sheet: print's flip) gets them typed through `job.options_of`."""
    from conftest import in_dir

    from cardgen.outputs.calibration import Calibration
    from cardgen.outputs.print_sheets import PrintSheets

    seen: dict[str, object] = {}
    for out in OUTPUTS.values():
        def make(self, job, out=out):
            seen[out.name] = job.options
            if out is Calibration:
                seen["calibration sees print"] = job.options_of(PrintSheets)
        monkeypatch.setattr(out, "make", make)
    root = make_game(tmp_path, game="title: Test game\nprint: {flip: short}\nbooklet: {page: a5}\n")
    wanted = [name for name in OUTPUTS if name != "changes"]        # (it needs --changed-since)
    args = [a for name in wanted for a in ("--only", name)]
    code, _, err = in_dir(tmp_path, "build", str(root), *args, "--gutter", "--booklet-page", "half-letter",
                          "--quiet")
    assert code == 0, err
    assert set(seen) == {*wanted, "calibration sees print"}
    for name, out in OUTPUTS.items():
        if name not in wanted:
            continue
        assert type(seen[name]) is out.Options, name
    assert (seen["print"].flip, seen["print"].gutter) == ("short", True)      # game.yaml; the command line
    assert seen["calibration sees print"] == seen["print"]
    assert seen["booklet"].page == "half-letter"


def test_no_output_reads_a_section_of_game_yaml_itself():
    """Outputs get their options from the job (`job.options`, `job.options_of`, `job.option_loc`,
    `job.deck_options`); only `outputs/base.py` reads the sections."""
    allowed = {
        # checking the section: the locations of the layout files it names
        ("print_sheets.py", "section = game.data.get(cls.section) if cls.section and isinstance(game.data, dict) "
                            "else None"),
        # a helper for tests and scripts given a laid-out game without a build (the booklet
        # output itself passes `job.options` to `rules_pdf`)
        ("booklet.py", "options = Booklet.resolve(r.game.data)"),
        ("player_aid.py", "options = Booklet.resolve(r.game.data)"),
    }
    sections = {o.section for o in OUTPUTS.values() if o.section}
    found = set()
    for path in sorted((REPO / "cardgen" / "outputs").glob("*.py")):
        if path.name == "base.py":
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            raw = re.search(r"\.data\.get\(\s*(?:\w+\.)?section\b|\.data\[\s*(?:\w+\.)?section\b", line) or \
                re.search(r"\.resolve\(\s*[\w.]*\.data\b", line) or \
                any(re.search(rf"\.data(?:\.get\(|\[)\s*['\"]{s}['\"]", line) for s in sections)
            if raw:
                found.add((path.name, line.strip()))
    assert found <= allowed, found - allowed


# -- a new output: one module, one registry row ---------------------------------------------------

STAMP = '''
from dataclasses import dataclass

from cardgen.outputs.base import Job, Output
from cardgen.schema.core import Decl, Number, opt


@dataclass(frozen=True, kw_only=True)
class StampOptions(Decl):
    __what__ = "stamp options"

    size: float = opt(Number(min=1, max=10), "how big the stamp is", 3.0, cli="--stamp-size")


class Stamp(Output[StampOptions]):
    summary = "A stamp for every game."
    files = "stamp.txt"

    def make(self, job: Job[StampOptions]) -> None:
        job.staging.add(job.out_dir / "stamp.txt", f"{job.options.size:g}\\n".encode())
'''


def test_a_new_output_is_one_module_and_one_registry_row(tmp_path, monkeypatch):
    """No test list names the outputs: a new one shows up in `--only`, the build's flags, the
    generated docs, the JSON Schema, the check of its game.yaml section and the build."""
    import json

    from conftest import in_dir

    from cardgen.outputs import Row
    from cardgen.pipeline.jsonschema import dumps

    (tmp_path / "mods").mkdir()
    (tmp_path / "mods" / "stamp_output.py").write_text(STAMP)          # the module
    monkeypatch.syspath_prepend(str(tmp_path / "mods"))
    monkeypatch.delitem(sys.modules, "stamp_output", raising=False)
    monkeypatch.setitem(OUTPUTS, "stamp", Row("stamp_output", "Stamp", "stamp"))     # the registry line
    monkeypatch.setattr(cli.build, "_params", None)     # (the command's flags are made when it is first used)

    only = next(p for p in cli.build.params if p.name == "only")
    assert "stamp" in only.type.choices and f"--only [{'|'.join(OUTPUTS)}]" in _help()
    assert re.search(r"^\s+--stamp-size NUMBER\s+How big the stamp is \(default: 3\)", _help(), re.M)
    assert "## `stamp`: stamp.txt\n\nA stamp for every game.\n\nOptions, in game.yaml under `stamp:`:" in \
        reference.generated("outputs")
    assert "| `--stamp-size NUMBER` | `stamp`: how big the stamp is (default: 3) |" in \
        reference.generated("readme-build-flags")
    schema = json.loads(dumps("game"))["properties"]["stamp"]
    assert schema["description"] == "A stamp for every game." and schema["properties"]["size"]["maximum"] == 10

    root = make_game(tmp_path, game="title: Test game\nstamp: {size: 20}\n")
    code, lines = _run(tmp_path, "validate", "g")
    assert code == 1 and _problems(lines) == [
        "cards/g/game.yaml:2:15: error: stamp: `size` must be a number from 1 to 10, got 20"]
    (root / "game.yaml").write_text("title: Test game\nstamp: {size: 4}\n")
    code, _, err = in_dir(tmp_path, "build", "g", "--only", "stamp", "--quiet")
    assert code == 0, err
    assert (tmp_path / "build" / "g" / "stamp.txt").read_text() == "4\n"
    code, _, err = in_dir(tmp_path, "build", "g", "--only", "stamp", "--stamp-size", "7.5", "--quiet")
    assert code == 0, err
    assert (tmp_path / "build" / "g" / "stamp.txt").read_text() == "7.5\n"


@pytest.mark.parametrize("args, wide", [
    (["game", "--only", "print", "--out", "x", "--page=a4", "--strict"], True),
    (["--only", "print", "--", "--tts-format"], True),            # (after `--`: a game's name)
    (["game", "--tts-format", "png"], False),
    (["--only", "print", "--booklet-page=a5"], False),
    (["--out", "-x"], False),                                    # (unsure: parsed with every flag)
    (["--help"], False), (["-h"], False), (["--bogus"], False)])
def test_build_wide_flags_alone_are_parsed_without_the_outputs(args, wide):
    assert cli._all_wide(args) is wide


def test_build_wide_flags_alone_read_the_same(monkeypatch):
    args = ("--only", "print,tts", "--page", "a4", "--out", "elsewhere", "--set", "version=2", "--strict")
    opts = _given(monkeypatch, *args)
    assert cli.build.wide_only
    full = _given(monkeypatch, *args, "--tts-format", "png")
    assert not cli.build.wide_only
    assert opts == dataclasses.replace(full, outputs={})
    assert full.outputs == {"tts": {"format": "png"}}
    assert _given(monkeypatch, *args) == opts and cli.build.wide_only
