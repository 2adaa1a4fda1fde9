"""Versions, card revisions, the build manifest, `cardgen changes` and `changes-<paper>.pdf`
(docs/changes.md)."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from conftest import BACK_TEMPLATE, SOLID_TEMPLATE, run_cli, write
from hypothesis import given, settings
from hypothesis import strategies as st
from pdfgeom import page_items
from pypdf import PdfReader

FACE = SOLID_TEMPLATE.rstrip("\n") + """
      - name: stamp
        type: text
        x: 5mm
        y: 82mm
        width: 53.5mm
        height: 3mm
        text: "{{ game.version ~ ' · ' if game.version }}{{ card.revision }}"
        size: 6
        color: "#ffffff"
"""

CARDS = """\
deck: Things
template: tiny/face
back: tiny/back
cards:
  - {name: Alpha, color: "#aa0000", count: 2}
  - {name: Beta, color: "#00aa00"}
  - {name: Gamma, color: "#0000aa", count: 3}
  - {name: Delta, color: "#333333"}
"""


def make_game(root: Path, version: str | None = "0.3", cards: str = CARDS) -> Path:
    write(root / "game.yaml", "title: Tiny\n" + (f"version: \"{version}\"\n" if version is not None else ""))
    write(root / "templates" / "tiny" / "face.yaml", FACE)
    write(root / "templates" / "tiny" / "back.yaml", BACK_TEMPLATE)
    (root / "deck.yaml").write_text(cards, encoding="utf-8")
    return root


def edit(root: Path, old: str, new: str, name: str = "deck.yaml") -> None:
    path = root / name
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def build(root: Path, *args: str) -> str:
    code, out, err = run_cli("build", str(root), "--only", "cards", "--page", "letter", "--quiet", *args)
    assert code == 0, err
    return out


def manifest(root: Path, folder: str = "build") -> dict:
    return json.loads((root / folder / "manifest.json").read_text(encoding="utf-8"))


def revisions(root: Path) -> dict[str, int]:
    return {c["name"]: c["revision"] for c in manifest(root)["cards"]}


def changes(root: Path, *args: str) -> tuple[int, list[str], str]:
    code, out, err = run_cli("changes", str(root), *args)
    return code, out.splitlines(), err


def page_texts(pdf: Path) -> list[str]:
    return [" ".join(p.extract_text().split()) for p in PdfReader(str(pdf)).pages]


def git(repo: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.org", GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    return subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True,
                          text=True).stdout.strip()


needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@pytest.fixture
def repo(tmp_path):
    """A git repository holding the game in tiny/ (no `version:`), committed and tagged v1."""
    top = tmp_path / "repo"
    make_game(top / "tiny", version=None)
    write(top / ".gitignore", "build/\n")
    git(top, "init", "-q")
    git(top, "add", ".")
    git(top, "commit", "-q", "-m", "first")
    git(top, "tag", "v1")
    return top


# -- the manifest ------------------------------------------------------------------------------

def test_manifest_records_every_card_deterministically(tmp_path):
    root = make_game(tmp_path / "tiny")
    build(root)
    text = (root / "build" / "manifest.json").read_text(encoding="utf-8")
    data = json.loads(text)
    assert text == json.dumps(data, sort_keys=True, indent=1, ensure_ascii=False) + "\n"     # sorted keys
    assert (data["format"], data["game"], data["version"]) == (1, "tiny", "0.3")
    cards = data["cards"]
    assert [(c["deck"], c["name"], c["id"], c["copies"], c["revision"]) for c in cards] == [
        ("Things", "Alpha", None, 2, 1), ("Things", "Beta", None, 1, 1), ("Things", "Gamma", None, 3, 1),
        ("Things", "Delta", None, 1, 1)]
    for c in cards:
        assert sorted(c) == ["back", "body", "copies", "data", "deck", "face", "id", "name", "revision"]
        assert all(re.fullmatch(r"[0-9a-f]{16}", c[k]) for k in ("data", "body", "face", "back"))
    assert len({c["face"] for c in cards}) == 4 and len({c["back"] for c in cards}) == 1     # one shared back
    assert len({c["data"] for c in cards}) == 4
    # the revision printed on each card is its counter and the start of its data hash
    names = [t.split(" ")[0] for t in page_texts(root / "build" / "cards.pdf")[:4]]
    assert names == ["Alpha", "Beta", "Gamma", "Delta"]
    for page, c in zip(page_texts(root / "build" / "cards.pdf"), cards):
        assert page.endswith(f"0.3 · r1 {c['data'][:6]}"), page

    # a second clean build elsewhere, and a rebuild with nothing changed: the same bytes
    code, _, err = run_cli("build", str(root), "--only", "cards", "--page", "letter", "--quiet",
                           "--out", str(tmp_path / "other"))
    assert code == 0, err
    before = {p.name: p.read_bytes() for p in (root / "build").iterdir() if p.is_file()}
    assert {p.name: p.read_bytes() for p in (tmp_path / "other" / "tiny").iterdir() if p.is_file()} == before
    build(root)
    assert {p.name: p.read_bytes() for p in (root / "build").iterdir() if p.is_file()} == before


def test_copies_alone_and_the_stamp_do_not_change_a_cards_hashes(tmp_path):
    root = make_game(tmp_path / "tiny")
    build(root)
    first = {c["name"]: c for c in manifest(root)["cards"]}
    edit(root, "count: 3", "count: 5")
    edit(root, 'version: "0.3"', 'version: "0.4"', "game.yaml")
    build(root)
    second = {c["name"]: c for c in manifest(root)["cards"]}
    assert second["Gamma"]["copies"] == 5
    for name in first:
        assert {k: v for k, v in second[name].items() if k != "copies"} == \
            {k: v for k, v in first[name].items() if k != "copies"}, name
    # ... although every card now prints the new version
    assert all("0.4 · r1" in t for t in page_texts(root / "build" / "cards.pdf")[:4])


# -- cardgen changes ---------------------------------------------------------------------------

def test_changes_lists_added_changed_renamed_removed_and_copies(tmp_path):
    root = make_game(tmp_path / "tiny")
    build(root)
    assert changes(root) == (0, ["tiny: since the last build: no changes"], "")
    edit(root, '{name: Beta, color: "#00aa00"}', '{name: Beta, color: "#007755"}')       # edited
    edit(root, '  - {name: Alpha, color: "#aa0000", count: 2}\n', "")                    # removed
    edit(root, "name: Delta", "name: Delto")                                              # renamed
    edit(root, "count: 3", "count: 1")                                                    # fewer copies
    (root / "deck.yaml").write_text((root / "deck.yaml").read_text() + "  - {name: Epsilon, count: 2}\n")
    code, lines, err = changes(root)
    assert (code, err) == (0, "")
    assert lines == [
        "tiny: since the last build: 1 added, 1 changed, 1 renamed, 1 removed, 1 with other copies",
        "  added    Things: Epsilon  ×2",
        "  changed  Things: Beta  ×1",
        "  renamed  Things: Delta → Delto  ×1 (print 1, take out 1)",
        "  removed  Things: Alpha  ×2",
        "  copies   Things: Gamma  ×3 → ×1 (take out 2)",
        "  print 3 cards (4 copies); take out 6 copies",
    ]
    # the same against the build folder named; then nothing once built
    assert changes(root, "--since", str(root / "build"))[1][1:] == lines[1:]
    build(root)
    assert changes(root)[1] == ["tiny: since the last build: no changes"]


def test_a_card_with_an_id_keeps_its_identity_when_renamed(tmp_path):
    root = make_game(tmp_path / "tiny", cards=CARDS.replace("{name: Beta,", "{id: b1, name: Beta,"))
    build(root)
    assert manifest(root)["cards"][1]["id"] == "b1"
    edit(root, "{id: b1, name: Beta, color: \"#00aa00\"}", "{id: b1, name: Bravo, color: \"#007755\"}")
    edit(root, "name: Gamma, color: \"#0000aa\"", "name: Gamut, color: \"#0000ff\"")   # no id: removed + added
    assert changes(root)[1] == [
        "tiny: since the last build: 1 added, 1 renamed, 1 removed",
        "  added    Things: Gamut  ×3",
        "  renamed  Things: Beta → Bravo  ×1 (print 1, take out 1)",
        "  removed  Things: Gamma  ×3",
        "  print 2 cards (4 copies); take out 4 copies",
    ]
    build(root)
    assert revisions(root) == {"Alpha": 1, "Bravo": 2, "Gamut": 1, "Delta": 1}


def test_a_template_change_is_a_change_but_not_a_new_revision(tmp_path):
    root = make_game(tmp_path / "tiny")
    build(root)
    edit(root, "size: 12", "size: 14", "templates/tiny/face.yaml")
    code, lines, _ = changes(root)
    assert code == 0 and lines[0] == "tiny: since the last build: 4 changed" and len(lines) == 6
    build(root)
    assert revisions(root) == {"Alpha": 1, "Beta": 1, "Gamma": 1, "Delta": 1}


def test_no_earlier_build_and_bad_since_are_one_line_errors(tmp_path):
    root = make_game(tmp_path / "tiny")
    code, lines, err = changes(root)
    assert (code, lines) == (1, [])
    assert err == (f"{root}: error: tiny has no earlier build to compare with; build it first, or name a build "
                   f"folder or git revision (--since)\n")
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = changes(root, "--since", str(empty))
    assert code == 1 and err == (f"{empty}: error: no manifest.json of tiny in this folder (neither here nor in "
                                 f"tiny/); give a build folder of cardgen 0.2 or later, or a git revision\n")
    code, _, err = changes(root, "--since", "nope")
    assert code == 1 and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"{root}: error: 'nope' is not a folder, and ")


def test_a_broken_manifest_is_a_warning_and_revisions_start_again(tmp_path):
    """The counters are kept beside the game (cardgen-history.json): a broken manifest costs
    only the comparison with the last build; without the history file, the counters too."""
    root = make_game(tmp_path / "tiny")
    build(root)
    edit(root, "name: Beta, color: \"#00aa00\"", "name: Beta, color: \"#007755\"")
    (root / "build" / "manifest.json").write_text("{not json", encoding="utf-8")
    code, _, err = run_cli("build", str(root), "--only", "cards", "--page", "letter", "--quiet")
    assert code == 0
    assert re.fullmatch(rf"{re.escape(str(root / 'build' / 'manifest.json'))}: warning: is not a cardgen build "
                        r"manifest \(not JSON: .*\); there is no last build to compare with\n", err)
    assert revisions(root) == {"Alpha": 1, "Beta": 2, "Gamma": 1, "Delta": 1}
    edit(root, "name: Beta, color: \"#007755\"", "name: Beta, color: \"#0055aa\"")
    (root / "build" / "manifest.json").write_text("{not json", encoding="utf-8")
    (root / "cardgen-history.json").unlink()
    code, _, err = run_cli("build", str(root), "--only", "cards", "--page", "letter", "--quiet")
    assert code == 0
    assert re.fullmatch(rf"{re.escape(str(root / 'build' / 'manifest.json'))}: warning: is not a cardgen build "
                        r"manifest \(not JSON: .*\); card revisions count from 1 again\n", err)
    assert revisions(root) == {"Alpha": 1, "Beta": 1, "Gamma": 1, "Delta": 1}


# -- revisions ---------------------------------------------------------------------------------

def test_the_revision_counter_rises_only_for_the_edited_card(tmp_path):
    root = make_game(tmp_path / "tiny")
    build(root)
    edit(root, '{name: Beta, color: "#00aa00"}', '{name: Beta, color: "#007755"}')
    build(root)
    assert revisions(root) == {"Alpha": 1, "Beta": 2, "Gamma": 1, "Delta": 1}
    build(root)                                      # nothing changed: nothing rises
    assert revisions(root) == {"Alpha": 1, "Beta": 2, "Gamma": 1, "Delta": 1}
    edit(root, '{name: Beta, color: "#007755"}', '{name: Beta, color: "#00aa00"}')     # back as it was
    edit(root, '{name: Alpha, color: "#aa0000"', '{name: Alpha, color: "#ff0000"')
    build(root)
    assert revisions(root) == {"Alpha": 2, "Beta": 3, "Gamma": 1, "Delta": 1}
    data = {c["name"]: c["data"] for c in manifest(root)["cards"]}
    beta = page_texts(root / "build" / "cards.pdf")[1]
    assert beta.startswith("Beta") and beta.endswith(f"0.3 · r3 {data['Beta'][:6]}")
    # `cardgen validate` lays cards out with the same revisions, and writes nothing
    before = (root / "build" / "manifest.json").read_bytes()
    assert run_cli("validate", str(root))[0] == 0
    assert (root / "build" / "manifest.json").read_bytes() == before


# -- game.version ------------------------------------------------------------------------------

def test_no_version_outside_git_prints_only_the_revision(tmp_path):
    root = make_game(tmp_path / "tiny", version=None)
    build(root)
    assert manifest(root)["version"] == ""
    first = manifest(root)["cards"][0]
    assert page_texts(root / "build" / "cards.pdf")[0] == f"Alpha r1 {first['data'][:6]}"


@needs_git
def test_version_from_git_describe(repo):
    root = repo / "tiny"
    build(root)
    assert manifest(root)["version"] == "v1"
    assert page_texts(root / "build" / "cards.pdf")[0].endswith(" v1 · r1 " + manifest(root)["cards"][0]["data"][:6])
    edit(root, "name: Delta", "name: Delto")
    build(root)
    assert manifest(root)["version"] == "v1-dirty"
    git(repo, "commit", "-q", "-am", "rename")
    build(root)
    head = git(repo, "rev-parse", "HEAD")
    m = re.fullmatch(r"v1-1-g([0-9a-f]{7,})", manifest(root)["version"])
    assert m and head.startswith(m.group(1))
    # game.yaml's version wins over git's
    edit(root, "title: Tiny\n", "title: Tiny\nversion: beta\n", "game.yaml")
    build(root)
    assert manifest(root)["version"] == "beta"


@needs_git
def test_git_in_a_game_folder_runs_none_of_the_repositorys_commands(repo, tmp_path):
    """A game folder may come with its own .git: its fsmonitor hook and filter drivers must not run."""
    hook = repo / "hook.sh"
    hook.write_text(f"#!/bin/sh\ntouch {tmp_path / 'ran'}\ncat\n", encoding="utf-8")
    hook.chmod(0o755)
    git(repo, "config", "core.fsmonitor", str(hook))
    git(repo, "config", "filter.evil.clean", str(hook))
    git(repo, "config", "filter.evil.smudge", str(hook))
    write(repo / ".gitattributes", "* filter=evil\n")
    edit(repo / "tiny", "name: Delta", "name: Delto")          # dirty: git compares the files
    build(repo / "tiny")
    assert manifest(repo / "tiny")["version"] == "v1-dirty"
    assert changes(repo / "tiny", "--since", "v1")[0] == 0      # git archive too
    assert not (tmp_path / "ran").exists()


def test_a_game_in_a_folder_that_is_not_a_repository_or_without_git(tmp_path, monkeypatch):
    root = make_game(tmp_path / "tiny", version=None)
    (tmp_path / ".git").mkdir()                  # looks like a repository, is not one
    build(root)
    assert manifest(root)["version"] == ""
    monkeypatch.setenv("PATH", str(tmp_path / "no-programs-here"))
    build(root)
    assert manifest(root)["version"] == ""


# -- changes-<paper>.pdf -----------------------------------------------------------------------

def _edit_for_reprint(root: Path) -> None:
    edit(root, '{name: Beta, color: "#00aa00"}', '{name: Beta, color: "#007755"}')
    edit(root, '  - {name: Alpha, color: "#aa0000", count: 2}\n', "")
    edit(root, "name: Delta", "name: Delto")
    (root / "deck.yaml").write_text((root / "deck.yaml").read_text() + "  - {name: Epsilon, count: 2}\n")


def _card_pages(pdf: Path) -> list[tuple[int, str]]:
    """(number of card forms placed, text) of every page after the listing."""
    reader = PdfReader(str(pdf))
    return [(len(page_items(reader, i)[0]), " ".join(p.extract_text().split()))
            for i, p in enumerate(reader.pages)]


def test_changes_pdf_holds_exactly_the_changed_cards(tmp_path):
    root = make_game(tmp_path / "tiny")
    build(root)
    kept = tmp_path / "kept"
    shutil.copytree(root / "build", kept)
    old = {c["name"]: c for c in manifest(root)["cards"]}
    _edit_for_reprint(root)
    out = build(root, "--changed-since", str(kept))
    assert "changes-letter.pdf  4 pages, 2 sheets double-sided" in out
    pages = _card_pages(root / "build" / "changes-letter.pdf")
    listing = pages[0][1]
    assert listing.startswith("Tiny: what changed since ")
    assert "1 added, 1 changed, 1 renamed, 1 removed: print 3 cards (4 copies); take out 4 copies" in listing
    print_part = listing.split("Print and put in the box (4 copies)", 1)[1].split("Take out of the box", 1)[0]
    assert print_part.split() == ["×2", "Things:", "Epsilon", "added", "×1", "Things:", "Beta", "changed",
                                  "×1", "Things:", "Delto", "renamed", "from", "Delta"]
    take_out = listing.split("Take out of the box (4 copies)", 1)[1].split("The print sheets", 1)[0]
    assert take_out.split() == [
        "×1", "Things:", "Beta", "the", "old", "version,", "stamped", "r1", old["Beta"]["data"][:6],
        "×1", "Things:", "Delta", "renamed", "to", "Delto,", "stamped", "r1", old["Delta"]["data"][:6],
        "×2", "Things:", "Alpha", "removed,", "stamped", "r1", old["Alpha"]["data"][:6]]
    assert pages[0][0] == 0 and pages[1][0] == 0            # the listing, then its blank back
    assert pages[1][1].startswith("(left blank")
    # one sheet: 4 copies (Beta, Delto, Epsilon twice) and their 4 backs, read back by name
    assert [n for n, _ in pages[2:]] == [4, 4]
    names = re.findall(r"\b(Alpha|Beta|Gamma|Delta|Delto|Epsilon)\b", pages[2][1])
    assert sorted(names) == ["Beta", "Delto", "Epsilon", "Epsilon"]
    # deterministic: made again from the same state, the same bytes
    data = (root / "build" / "changes-letter.pdf").read_bytes()
    build(root, "--changed-since", str(kept))
    assert (root / "build" / "changes-letter.pdf").read_bytes() == data


def test_changes_pdf_without_backs_and_with_nothing_changed(tmp_path):
    root = make_game(tmp_path / "tiny")
    build(root)
    out = build(root, "--changed-since", str(root / "build"), "--no-backs")
    assert "changes-letter.pdf  1 page, 1 sheet" in out
    pages = _card_pages(root / "build" / "changes-letter.pdf")
    assert len(pages) == 1 and pages[0][0] == 0
    assert "no changes: nothing to print, nothing to take out" in pages[0][1] and "Nothing to print." in pages[0][1]


def test_a_rename_that_prints_the_same_and_a_parked_card_need_nothing(tmp_path):
    root = make_game(tmp_path / "tiny")
    edit(root, 'text: "{{ card.name }}"', "text: \"{{ card.color | default('') }}\"", "templates/tiny/face.yaml")
    build(root)
    edit(root, "name: Delta", "name: Delto")                  # the name is not on the card
    (root / "deck.yaml").write_text((root / "deck.yaml").read_text() + "  - {name: Zeta, count: 0}\n")
    assert changes(root)[1] == [
        "tiny: since the last build: 1 added, 1 renamed",
        "  added    Things: Zeta  ×0",
        "  renamed  Things: Delta → Delto  ×1 (prints the same)",
        "  nothing to print, nothing to take out",
    ]
    out = build(root, "--changed-since", str(root / "build"))
    assert "changes-letter.pdf  1 page, " in out           # the listing alone: no sheets, no blank back
    listing = _card_pages(root / "build" / "changes-letter.pdf")[0][1]
    assert listing.endswith("Changed in the data only (nothing to do) ×0 Things: Zeta added, no copies (count: 0) "
                            "×1 Things: Delta → Delto renamed; prints the same Nothing to print.")


@needs_git
def test_changed_since_a_git_revision(repo):
    root = repo / "tiny"
    _edit_for_reprint(root)
    code, lines, err = changes(root, "--since", "v1")
    assert (code, err) == (0, "")
    assert lines[0] == "tiny: since v1 (version v1 → v1-dirty): 1 added, 1 changed, 1 renamed, 1 removed"
    git(repo, "commit", "-q", "-am", "playtest 2")
    out = build(root, "--changed-since", "v1")
    assert "changes-letter.pdf  4 pages, 2 sheets double-sided" in out
    pages = _card_pages(root / "build" / "changes-letter.pdf")
    assert pages[0][1].startswith("Tiny: what changed since v1 · version v1 → v1-1-g")
    assert sorted(re.findall(r"\b(Alpha|Beta|Gamma|Delta|Delto|Epsilon)\b", pages[2][1])) == \
        ["Beta", "Delto", "Epsilon", "Epsilon"]
    # from a git revision the old cards' counters are not known: only their data hash
    assert re.search(r"Alpha removed, stamped [0-9a-f]{6}\b", pages[0][1])
    # a game that did not exist then: every card is added
    make_game(repo / "other")
    code, lines, _ = changes(repo / "other", "--since", "v1")
    assert lines[0] == "other: since v1 (version none → 0.3): 4 added"


@needs_git
def test_a_git_revision_of_a_project_uses_its_templates_as_they_were(tmp_path):
    top = tmp_path / "project"
    game = make_game(top / "cards" / "tiny")
    shutil.move(game / "templates", top / "templates")         # the project's shared templates
    (top / "templates" / "elsewhere").symlink_to("/etc")        # a link out: left out when unpacked
    write(top / ".gitignore", "build/\n")
    git(top, "init", "-q")
    git(top, "add", ".")
    git(top, "commit", "-q", "-m", "first")
    git(top, "tag", "v1")
    edit(top, "size: 12", "size: 13", "templates/tiny/face.yaml")
    code, lines, err = changes(game, "--since", "v1")
    assert (code, err) == (0, "")
    assert lines[0] == "tiny: since v1: 4 changed"
    git(top, "commit", "-q", "-am", "bigger titles")
    assert changes(game, "--since", "HEAD")[1] == ["tiny: since HEAD: no changes"]


@needs_git
def test_a_bad_revision_stops_the_build_with_one_line(repo):
    root = repo / "tiny"
    build(root)
    before = {p.name: p.read_bytes() for p in (root / "build").iterdir() if p.is_file()}
    code, _, err = run_cli("build", str(root), "--only", "cards", "--page", "letter", "--quiet",
                           "--changed-since", "no-such-tag")
    assert code == 1
    assert err.splitlines()[0] == (f"{root}: error: 'no-such-tag' is neither a folder nor a revision of the git "
                                   f"repository at {repo.resolve()}")
    assert "Traceback" not in err and "internal error" not in err
    assert {p.name: p.read_bytes() for p in (root / "build").iterdir() if p.is_file()} == before   # nothing written


@needs_git
def test_booklet_cover_names_the_version_git_gives(repo):
    """No `version:` in game.yaml: the rule booklet's cover credits the version `git describe` gives."""
    root = repo / "tiny"
    write(root / "rules.yaml", "title: Tiny\nsections:\n  - title: Play\n    body:\n      - Take turns.\n")
    code, _, err = run_cli("build", str(root), "--only", "booklet", "--quiet")
    assert code == 0, err
    assert "Version v1" in page_texts(root / "build" / "rules.pdf")[0]
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "rules")
    code, _, err = run_cli("build", str(root), "--only", "booklet", "--quiet")
    assert code == 0, err
    version = manifest(root)["version"]
    assert re.fullmatch(r"v1-1-g[0-9a-f]{7,}", version)
    assert f"Version {version}" in page_texts(root / "build" / "rules.pdf")[0]     # as git gave it: no en dash


def test_only_an_output_that_is_not_made_says_nothing_was_written(tmp_path):
    """`--only booklet` for a game without a rulebook: a warning and 'nothing written', not a crash."""
    root = make_game(tmp_path / "tiny")
    code, out, err = run_cli("build", str(root), "--only", "booklet", "--quiet")
    assert code == 0, err
    assert "rules.pdf and player-aid.pdf not made" in err
    assert out.strip().splitlines()[-1] == "tiny: nothing written"


@needs_git
def test_print_service_date_is_the_last_commit_of_the_game(repo, monkeypatch):
    """PDF/X needs a creation date: without `date:` or SOURCE_DATE_EPOCH, a committed game's is
    its last commit's (the same in every clone), whatever the files' times; a new commit, even
    one that changes no file (the rebuild would otherwise find nothing changed), dates it anew."""
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    root = repo / "tiny"
    edit(root, "title: Tiny\n", 'title: Tiny\nversion: "0.3"\n', "game.yaml")     # (not dated by `git describe`)
    git(repo, "commit", "-q", "-am", "version")

    def created() -> str:
        code, _, err = run_cli("build", str(root), "--only", "pdfx", "--quiet")
        assert code == 0, err
        pdf = next((root / "build" / "print-service").glob("*-pdfx.pdf"))
        return str(PdfReader(str(pdf)).metadata["/CreationDate"])

    def stamp(epoch: int) -> str:
        return time.strftime("D:%Y%m%d%H%M%S+00'00'", time.gmtime(epoch))

    committed = int(git(repo, "log", "-1", "--format=%ct"))
    assert created() == stamp(committed)
    edit(root, "name: Delta", "name: Delto")
    os.utime(root / "deck.yaml", (committed + 86400, committed + 86400))
    assert created() == stamp(committed)             # edited, not committed: still the last commit's date
    later = committed + 3 * 86400
    env = {"GIT_COMMITTER_DATE": f"{later} +0000"}
    subprocess.run(["git", "commit", "-q", "-am", "Delto"], cwd=repo, check=True, capture_output=True,
                   env={**{k: v for k, v in os.environ.items() if not k.startswith("GIT_")}, **env,
                        "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_GLOBAL": os.devnull,
                        "GIT_CONFIG_NOSYSTEM": "1"})
    assert created() == stamp(later)                 # no file changed, the commit did


@settings(max_examples=150, deadline=None)
@given(cards=st.lists(st.tuples(st.text(), st.text(), st.none() | st.text(), st.integers(0, 10**12),
                                st.integers(1, 10**6), st.text(max_size=20), st.none() | st.text(max_size=20)),
                      max_size=6),
       sets=st.dictionaries(st.text(max_size=8), st.text(max_size=8), max_size=3))
def test_manifest_text_is_what_json_writes(cards, sets):
    """`Manifest.dumps` writes its cards itself (json's indented encoder is Python, 12 us a card):
    the text is exactly json's, whatever the texts (quotes, controls, non-ASCII, surrogates)."""
    from cardgen.layout.manifest import Entry, Manifest

    entries = [Entry(deck, name, ident, copies, revision, data, "body", "face", back)
               for deck, name, ident, copies, revision, data, back in cards]
    m = Manifest(game="g\u00e9\"", version="1.0", cards=entries, sets=sets)
    plain = {"format": 1, "game": m.game, "version": m.version,
             "cards": [{f: getattr(e, f) for f in ("deck", "name", "id", "copies", "revision", "data", "body",
                                                   "face", "back")} for e in entries]}
    if sets:
        plain["set"] = sets
    assert m.dumps() == json.dumps(plain, sort_keys=True, indent=1, ensure_ascii=False) + "\n"
