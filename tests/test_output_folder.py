"""The output folder as a user meets it: a build run from inside it (the folder the shell
stands in is never replaced), and what an earlier build left there (outputs not made now are
either still right and said to be there, or out of date and removed, and said so)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import run_cli, write

REPO = Path(__file__).resolve().parent.parent
CARDS = "cards:\n  - {name: %s, color: '#ff0000'}\n"
DECK = "deck: Things\ntemplate: tiny/face\nback: tiny/back\n" + CARDS


def cardgen(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """`cardgen ARGS` run as a user runs it, from `cwd`."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-m", "cardgen", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


def pdf_text(path: Path) -> str:
    from pypdf import PdfReader

    return "".join(page.extract_text() for page in PdfReader(path).pages)


def texts(folder: Path) -> str:
    return "".join(pdf_text(p) for p in sorted(folder.glob("*.pdf")))


# -- standing in the output folder ----------------------------------------------------------

def test_build_from_inside_the_build_folder_keeps_the_folder_and_exits_0(tiny_game):
    root = tiny_game(CARDS % "Alpha")
    out = root / "build"
    first = cardgen(root, "build", "--page", "a4", "--only", "print", "--only", "tts")
    assert first.returncode == 0, first.stderr
    for where, args in [(out, ["build", ".."]),                 # `cardgen build ..` from build/
                        (out, ["build"]),                       # a plain `cardgen build` there
                        (out / "tts", ["build", "../.."])]:     # and from a folder inside it
        name = f"Card{len(where.parts)}{len(args)}"
        write(root / "deck.yaml", DECK % name)                  # an edit: everything is made again
        folders = {p: p.stat().st_ino for p in (out, out / "tts")}
        done = cardgen(where, *args, "--page", "a4", "--only", "print", "--only", "tts")
        assert done.returncode == 0, done.stderr
        assert "internal error" not in done.stderr and "Traceback" not in done.stderr
        assert done.stderr == ""
        assert "print-a4.pdf" in done.stdout
        assert {p: p.stat().st_ino for p in folders} == folders      # the same folders, not new ones
        assert name in pdf_text(out / "print-a4.pdf")
        assert sorted(p.name for p in root.iterdir()) == ["build", "cardgen-history.json", "deck.yaml", "game.yaml",
                                                          "templates"]     # (the revisions, beside the game)


def test_outputs_that_are_replaced_by_a_folder_or_removed_leave_a_folder_someone_stands_in(tiny_game):
    """A folder of an output this build owns (tts/) is emptied of what this build does not
    write, never removed while a shell stands in it, even a folder inside it."""
    root = tiny_game(CARDS % "Alpha")
    out = root / "build"
    assert cardgen(root, "build", "--page", "a4", "--only", "tts").returncode == 0
    stray = out / "tts" / "old-deck"
    stray.mkdir()
    (stray / "old.png").write_bytes(b"png")
    write(root / "deck.yaml", DECK % "Gamma")
    done = cardgen(stray, "build", "../../..", "--page", "a4", "--only", "tts")
    assert done.returncode == 0, done.stderr
    assert stray.is_dir() and list(stray.iterdir()) == []       # emptied, still there
    done = cardgen(root, "build", "--page", "a4", "--only", "tts")
    assert done.returncode == 0, done.stderr
    write(root / "deck.yaml", DECK % "Beta")
    done = cardgen(root, "build", "--page", "a4", "--only", "tts")
    assert not stray.exists()                                   # nobody there: removed


# -- what an earlier build left ----------------------------------------------------------------

def test_paper_not_built_now_goes_when_out_of_date_and_is_said(tiny_game, tmp_path):
    """`--page letter` after a build for both papers, the cards edited in between: the a4
    sheets with the old card text are removed, and the summary says so."""
    root = tiny_game(CARDS % "Oldname")
    out = tmp_path / "out"
    code, stdout, stderr = run_cli("build", str(root), "--out", str(out), "--only", "print")
    assert code == 0, stderr
    game = out / "tiny"
    assert sorted(p.name for p in game.glob("*.pdf")) == ["print-a4.pdf", "print-letter.pdf"]
    write(root / "deck.yaml", DECK % "Newname")
    code, stdout, stderr = run_cli("build", str(root), "--out", str(out), "--only", "print", "--page", "letter")
    assert code == 0, stderr
    assert sorted(p.name for p in game.glob("*.pdf")) == ["print-letter.pdf"]
    assert "Oldname" not in texts(game) and "Newname" in texts(game)
    assert "  removed, from an earlier build of an older version of the game: print-a4.pdf" in stdout.splitlines()
    # and the next build for both makes a4 again
    code, stdout, stderr = run_cli("build", str(root), "--out", str(out), "--only", "print")
    assert code == 0, stderr
    assert "Oldname" not in texts(game) and pdf_text(game / "print-a4.pdf").count("Newname") >= 1


def test_output_not_built_now_stays_when_still_right_and_is_said(tiny_game, tmp_path):
    """The game unchanged: the a4 sheets of the earlier build are still right; they stay, the
    summary says they are there, and a later build for both papers keeps them unchanged."""
    root = tiny_game(CARDS % "Alpha")
    out = tmp_path / "out"
    code, _, stderr = run_cli("build", str(root), "--out", str(out), "--only", "print", "--only", "tts")
    assert code == 0, stderr
    game = out / "tiny"
    a4 = (game / "print-a4.pdf").read_bytes()
    code, stdout, stderr = run_cli("build", str(root), "--out", str(out), "--only", "print", "--page", "letter")
    assert code == 0, stderr
    assert (game / "print-a4.pdf").read_bytes() == a4
    assert ("  also there, from an earlier build of this same game: print-a4.pdf, tts/ (4 files)"
            in stdout.splitlines()), stdout
    code, stdout, stderr = run_cli("build", str(root), "--out", str(out), "--only", "print")
    assert code == 0, stderr
    assert ["print-a4.pdf", "unchanged"] in [line.split() for line in stdout.splitlines()], stdout   # (incremental)
    assert "also there" in stdout                                                 # tts/ still
    # the cards change: tts/ (not made by this build) goes, said once
    write(root / "deck.yaml", DECK % "Beta")
    code, stdout, stderr = run_cli("build", str(root), "--out", str(out), "--only", "print")
    assert code == 0, stderr
    assert not (game / "tts").exists()
    assert "  removed, from an earlier build of an older version of the game: tts/ (4 files)" in stdout.splitlines(), stdout


def test_files_of_the_user_in_the_output_folder_are_left_alone(tiny_game, tmp_path):
    """Only what cardgen wrote is removed: a file of the user's, or an output the user
    edited since, stays (and is no longer counted as cardgen's)."""
    root = tiny_game(CARDS % "Alpha")
    out = tmp_path / "out"
    code, _, stderr = run_cli("build", str(root), "--out", str(out), "--only", "print")
    assert code == 0, stderr
    game = out / "tiny"
    (game / "notes.txt").write_text("mine")
    with open(game / "print-a4.pdf", "ab") as f:
        f.write(b"% annotated\n")
    write(root / "deck.yaml", DECK % "Beta")
    code, stdout, stderr = run_cli("build", str(root), "--out", str(out), "--only", "print", "--page", "letter")
    assert code == 0, stderr
    assert (game / "notes.txt").read_text() == "mine"
    assert (game / "print-a4.pdf").read_bytes().endswith(b"% annotated\n")
    assert "removed" not in stdout and "also there" not in stdout


def test_files_an_output_writes_outside_its_parts_are_known_as_cardgens(tiny_game, tmp_path):
    """The gallery's page (made whole by every build of the gallery) goes with its images
    when it is out of date: no page showing old cards is left behind."""
    root = tiny_game(CARDS % "Alpha")
    out = tmp_path / "out"
    code, _, stderr = run_cli("build", str(root), "--out", str(out), "--only", "gallery", "--only", "cards")
    assert code == 0, stderr
    game = out / "tiny"
    assert (game / "index.html").is_file() and any((game / "gallery").rglob("*.png"))
    write(root / "deck.yaml", DECK % "Beta")
    code, stdout, stderr = run_cli("build", str(root), "--out", str(out), "--only", "cards")
    assert code == 0, stderr
    assert sorted(p.name for p in game.iterdir() if not p.name.startswith(".")) == ["cards.pdf", "manifest.json"]
    assert ("  removed, from an earlier build of an older version of the game: index.html, gallery/ (2 files)"
            in stdout.splitlines()), stdout


def test_a_command_run_from_a_folder_that_no_longer_exists_says_so(tmp_path):
    gone = tmp_path / "gone"
    gone.mkdir()
    env = dict(os.environ, PYTHONPATH=str(REPO))
    script = f"import os, sys, runpy; os.chdir({str(gone)!r}); os.rmdir({str(gone)!r}); " \
             f"sys.argv = ['cardgen', 'build']; runpy.run_module('cardgen', run_name='__main__')"
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stderr == ("cardgen: the current folder no longer exists (deleted or moved away); cd to a folder "
                           "that exists and run the command again\n")


def test_only_takes_a_comma_separated_list_as_well_as_repeated_flags(tiny_game, tmp_path):
    root = tiny_game()
    code, _, err = run_cli("build", str(root), "--out", str(tmp_path / "a"), "--page", "a4",
                             "--only", "cards,calibration", "--only", "tts", "--quiet")
    assert code == 0, err
    made = {p.name for p in (tmp_path / "a" / "tiny").iterdir()}
    assert {"cards.pdf", "calibration-a4.pdf", "tts"} <= made and "print-a4.pdf" not in made
    code, _, err = run_cli("build", str(root), "--out", str(tmp_path / "b"), "--only", "cards,tuckbox")
    assert code == 2 and "'tuckbox' is not one of 'print'" in err
