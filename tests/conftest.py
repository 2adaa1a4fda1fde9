"""Shared test helpers: small games written into tmp folders, and PDF geometry read back."""
from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

# `pytest -m quick`: the modules whose tests check one stage on small inputs (no whole builds
# of the bundled games, no killed processes, no browser), for the edit-test loop: about 22 s
# of CPU on the 2-core machine (docs/design.md#tests-that-fail-when-the-code-is-wrong). CI runs
# everything.
QUICK = {
    "test_backs_plan", "test_calibration", "test_confinement", "test_core_units_names", "test_count_checks",
    "test_docs",
    "test_errors", "test_fallback_fonts", "test_game_601", "test_game_alien_conspiracy", "test_game_alter_ego",
    "test_game_face_off", "test_game_vigilantes", "test_jsonschema", "test_limits", "test_memo", "test_model",
    "test_output_options", "test_outputs_registry", "test_package", "test_pixels", "test_progress",
    "test_project", "test_refs", "test_scaffold", "test_schema_files", "test_spreadsheets", "test_templates", "test_text",
    "test_validate", "test_validate_build", "test_yaml12",
}
# Tests of those modules left out of the subset, each a second or more of CPU (a whole bundled
# game laid out, a build in a process of its own, thousands of generated inputs, a timing):
# their modules keep their quicker tests in it, so every stage has some.
NOT_QUICK = {
    "test_calibration::test_back_zero_ticks_lie_behind_the_front_targets",
    "test_docs::test_reference_check_fails_on_a_generated_block_edited_by_hand",
    "test_game_alter_ego::test_every_card_lays_out_without_overflow_or_tiny_text",
    "test_game_face_off::test_cards_lay_out_without_overflow_and_nothing_under_6pt",
    "test_jsonschema::test_every_bundled_file_validates",
    "test_limits::test_a_long_chain_of_merges_is_not_nesting",
    "test_limits::test_steps_are_counted_per_value",
    "test_refs::test_only_the_resolver_confines",
    "test_scaffold::test_new_game_in_an_empty_folder_builds_validates_and_moves",
    "test_scaffold::test_new_game_inside_a_project_goes_to_cards",
    "test_spreadsheets::test_new_from_a_workbook",
    "test_spreadsheets::test_same_deck_as_yaml_csv_xlsx_ods_gives_byte_identical_pdfs",
    "test_spreadsheets::test_two_thousand_rows_load",
}

# How much slower code runs under the mutation tester (tools/mutation_score.py): every call of a
# mutated module's functions goes through mutmut's trampoline, which records it while mutmut
# works out which tests reach which function. Tests with a time cap scale it by this.
UNDER_MUTMUT = 20 if "MUTANT_UNDER_TEST" in os.environ else 1


# The functions whose work the template modules keep (the environment, compiled templates):
# their mutants need each test to make it again (mutmut's names: `x_name`, `xǁClassǁname`).
_MADE_ONCE = {"x_new_environment", "xǁBoundedEnvironmentǁ__init__", "xǁBoundedEnvironmentǁ_bounded_filter",
              "xǁ_BoundedCodeGeneratorǁvisit_Concat", "xǁ_BoundedCodeGeneratorǁvisit_For",
              "xǁ_BoundedCodeGeneratorǁwrite", "x__compile", "x__compile_condition", "x_reads_card", "x_data_read",
              "x_is_dynamic"}


@pytest.fixture(autouse=UNDER_MUTMUT > 1)
def _templates_afresh():
    """Under the mutation tester, each test starts with a new template environment and no
    compiled templates: mutmut runs its tests once in its own process (to learn which test
    reaches which function), then forks a copy of that process for each mutant, so what is made
    once and kept (the environment with its bounded filters, made at import; the templates
    compiled by an earlier test) would be the unmutated code's, and the mutants of the code that
    makes it could never be killed. A mutant of a function that runs only as a template runs
    (`_check_filter`, `BoundedEnvironment.call`, ...) is reached from the kept ones as well, and
    its tests keep them (a new environment and the templates compiled again cost most of each
    test's time)."""
    from cardgen.layout import expr

    mutant = os.environ.get("MUTANT_UNDER_TEST", "")
    if mutant.startswith("cardgen.") and mutant.rpartition("__mutmut_")[0].rpartition(".")[2] not in _MADE_ONCE:
        return
    expr.ENV = expr.new_environment()
    for compiled in (expr._compile, expr._compile_condition, expr.reads_card, expr.data_read):
        compiled.cache_clear()


def pytest_ignore_collect(collection_path, config):
    """`pytest -m quick` does not import the modules outside QUICK: importing them (their
    asserts rewritten, their libraries loaded, their module-level data made) took a third of
    the quick run."""
    if config.getoption("markexpr", "") == "quick" and collection_path.suffix == ".py" \
            and collection_path.name.startswith("test_") and collection_path.stem not in QUICK:
        return True
    return None


# Under the mutation tester, the mutants of these modules run only these test modules (all the
# tests that hold them to exact values), less the tests named in MUTATION_SLOW: mutmut runs every
# test that reaches a mutated function, and whole builds and layouts reach the template code
# incidentally (`test_templates`), while the step-limit tests below run a loop of a million
# steps or ten thousand 100,000-character texts (20 to 90 s each through mutmut's trampoline,
# for each surviving mutant). What those hold, `test_expr_exact` holds with small data at the
# exact limit and one past it (docs/design.md#tests-that-fail-when-the-code-is-wrong).
_EXPR_TESTS = ("test_expr_exact", "test_expr_bounds", "test_limits")
MUTATION_TESTS = {"cardgen.layout.expr": _EXPR_TESTS, "cardgen.layout.exprbounds": _EXPR_TESTS,
                  "cardgen.layout.exprenv": _EXPR_TESTS}
MUTATION_SLOW = {
    "test_expr_bounds::test_every_turn_is_a_step", "test_expr_bounds::test_a_step_is_cheap_enough",
    "test_expr_bounds::test_reading_a_long_text_counts_its_length",
    "test_expr_bounds::test_growing_is_refused_before_it_is_made[set block]",
    "test_expr_bounds::test_growing_is_refused_before_it_is_made[call block]",
    "test_expr_bounds::test_growing_is_refused_before_it_is_made[macro]",
    "test_expr_bounds::test_growing_is_refused_before_it_is_made[filter block]",
    "test_expr_bounds::test_growing_is_refused_before_it_is_made[str.join list]",
    "test_expr_bounds::test_growing_is_refused_before_it_is_made[str.join iterator]",
    "test_expr_bounds::test_growing_is_refused_before_it_is_made[join iterator]",
    "test_expr_bounds::test_growing_is_refused_before_it_is_made[join attribute]",
    "test_expr_bounds::test_growing_is_refused_before_it_is_made[join]",
    "test_limits::test_steps_are_counted_per_value", "test_limits::test_a_long_chain_of_merges_is_not_nesting",
    "test_limits::test_yaml_limits",
    "test_limits::test_expression_limits[{% for i in range(10000) %}{% for j in range(10000) %}{% endfor %}"
    "{% endfor %}-message8]",
}


def _mutation_tests(config, items: list) -> None:
    """Under mutmut, leave out of a mutant's run the tests MUTATION_TESTS does not give its
    module (`MUTANT_UNDER_TEST`: `cardgen.layout.expr.x_evaluate__mutmut_3`), and out of the
    run of the unmutated code before the mutants (`MUTANT_UNDER_TEST` empty) those it gives
    none of the modules tools/mutation_score.py was asked for (`CARDGEN_MUTATION_PATTERNS`)."""
    mutant = os.environ.get("MUTANT_UNDER_TEST")
    if mutant == "":
        patterns = os.environ.get("CARDGEN_MUTATION_PATTERNS", "").split()
        named = [m for m in MUTATION_TESTS if any(p.startswith(m) for p in patterns)]
        if not patterns or not all(any(p.startswith(m) for m in MUTATION_TESTS) for p in patterns):
            return
        wanted = tuple(t for m in named for t in MUTATION_TESTS[m])
    else:
        wanted = MUTATION_TESTS.get((mutant or "").rpartition(".")[0])
    if wanted is None:
        return
    # a run of the mutants that survived these tests, again, against some of them only (the
    # ones added since): `CARDGEN_MUTATION_TESTS=test_expr_exact`
    wanted = tuple(os.environ.get("CARDGEN_MUTATION_TESTS", "").split()) or wanted
    kept, left = [], []
    for item in items:
        module = item.module.__name__.rpartition(".")[2] if item.module is not None else ""
        slow = {f"{module}::{item.name}", f"{module}::{getattr(item, 'originalname', item.name)}"} & MUTATION_SLOW
        (left if module not in wanted or slow else kept).append(item)
    items[:] = kept
    config.hook.pytest_deselected(items=left)


def pytest_collection_modifyitems(config, items):
    _mutation_tests(config, items)
    for item in items:
        module = item.module.__name__.rpartition(".")[2] if item.module is not None else ""
        if module in QUICK and f"{module}::{getattr(item, 'originalname', item.name)}" not in NOT_QUICK \
                and not item.get_closest_marker("slow"):
            item.add_marker(pytest.mark.quick)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


SOLID_TEMPLATE = """
    description: a solid card in the card's colour, with its name
    elements:
      - name: bg
        type: rect
        box: bleed
        fill: "{{ card.color | default('#3366cc') }}"
      - name: title
        type: text
        x: 5mm
        y: 5mm
        width: 53.5mm
        height: 10mm
        text: "{{ card.name }}"
        size: 12
        color: "#ffffff"
"""

BACK_TEMPLATE = """
    elements:
      - name: bg
        type: rect
        box: bleed
        fill: "#aa2222"
"""


@pytest.fixture(autouse=True, scope="session")
def _user_cache(tmp_path_factory):
    """cardgen's user cache (font metrics, `core.digest.user_cache`) in a folder of the test
    session, for the tests and the processes they start, not in ~/.cache."""
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("user-cache"))


@pytest.fixture(scope="session")
def bundled_build(tmp_path_factory):
    """`bundled_build(game)`: the output folder of one build of a bundled game with every output
    made by default (both papers; no SOURCE_DATE_EPOCH), and the files the build said it wrote.
    Made the first time a test asks for the game, then shared by every test that only reads it
    (a whole build of a bundled game is 5 to 30 s of CPU); its files are made read-only, so a
    test that would change them fails instead of spoiling the next test's."""
    from cardgen.core.errors import Report
    from cardgen.pipeline.build import BuildOptions, build_game

    made: dict[str, tuple[Path, list[Path]]] = {}

    def get(game: str) -> tuple[Path, list[Path]]:
        if game not in made:
            out = tmp_path_factory.mktemp(f"bundled-{game}")
            with pytest.MonkeyPatch.context() as mp:
                mp.delenv("SOURCE_DATE_EPOCH", raising=False)
                written = build_game(REPO / "cards" / game, REPO, BuildOptions(out=out), Report())
            for path in (out / game).rglob("*"):
                if path.is_file():
                    path.chmod(0o444)
            made[game] = (out / game, list(written))
        return made[game]

    return get


@pytest.fixture
def tiny_game(tmp_path):
    """A game folder with its own templates: one deck of poker cards."""

    def make(cards_yaml: str | None = None, template: str = SOLID_TEMPLATE, deck_extra: str = "", game_extra: str = ""):
        root = tmp_path / "tiny"
        write(root / "game.yaml", f"title: Tiny\n{game_extra}")
        write(root / "templates" / "tiny" / "face.yaml", template)
        write(root / "templates" / "tiny" / "back.yaml", BACK_TEMPLATE)
        cards_yaml = cards_yaml or """
            cards:
              - {name: Alpha, color: "#ff0000", count: 2}
              - {name: Beta, color: "#00ff00"}
        """
        write(root / "deck.yaml", "deck: Things\ntemplate: tiny/face\nback: tiny/back\n" + deck_extra
              + textwrap.dedent(cards_yaml).lstrip("\n"))
        return root

    return make


def run_cli(*args, cwd=None):
    """Run the CLI in-process; returns (exit_code, stdout, stderr)."""
    from click.testing import CliRunner

    from cardgen.cli.main import main

    runner = CliRunner()
    result = runner.invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def in_dir(path, *args):
    """`run_cli(*args)` with `path` as the current folder."""
    old = os.getcwd()
    os.chdir(path)
    try:
        return run_cli(*args)
    finally:
        os.chdir(old)
