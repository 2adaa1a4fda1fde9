"""A shared game folder runs nothing (docs/security.md, "What a game cannot do at all"):
neither git's configuration in a `.git` that came with it, nor an image whose content is
not the kind its name declares, nor an SVG's text, starts a program."""
from __future__ import annotations

import base64
import contextlib
import io
import os
import re
import shutil
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import BACK_TEMPLATE, run_cli, write

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

# -- every way a library can start a program, recorded -------------------------------------------------

PROCESS_EVENTS = ("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork",
                  "os.forkpty", "os.startfile", "pty.spawn")
_recorded: list[tuple[str, str]] | None = None
_hooked: list[bool] = []


def _audit(event: str, args: tuple) -> None:
    if _recorded is not None and event in PROCESS_EVENTS:
        _recorded.append((event, repr(args)[:300]))


@pytest.fixture
def processes(monkeypatch):
    """What starts a process while the test runs: every audit event Python raises for it, and
    `_posixsubprocess.fork_exec` (which multiprocessing calls without an event)."""
    global _recorded
    import _posixsubprocess

    if not _hooked:
        sys.addaudithook(_audit)        # (cannot be removed: records only while a test asks)
        _hooked.append(True)
    real = _posixsubprocess.fork_exec

    def fork_exec(*args, **kwargs):
        if _recorded is not None:
            _recorded.append(("_posixsubprocess.fork_exec", repr(args[:2])[:300]))
        return real(*args, **kwargs)

    monkeypatch.setattr(_posixsubprocess, "fork_exec", fork_exec)
    monkeypatch.setenv("CARDGEN_NO_FORK", "1")      # (cardgen's own forked copies: not a program)
    _recorded = []
    try:
        yield _recorded
    finally:
        _recorded = None


def _not_git(events: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The events that are neither cardgen's own git call (`subprocess.Popen` of `git` and its
    fork and exec) nor its own worker processes (this Python, started by multiprocessing with
    its own code: the raster workers' fork server and resource tracker)."""
    own_python = f"([{os.fsencode(os.path.dirname(sys.executable))!r}"[:-1] + "/python"
    out = []
    for event, args in events:
        if event == "subprocess.Popen" and args.startswith("('git',"):
            continue
        if event == "_posixsubprocess.fork_exec" and ("b'git'" in args or "/git'" in args):
            continue
        if event == "_posixsubprocess.fork_exec" and args.startswith(own_python) \
                and re.search(r"'-c', [\"']from multiprocessing\.", args):
            continue
        out.append((event, args))
    return out


def _programs(folder: Path, names: list[str], marker: Path) -> None:
    """Programs named `names` in `folder` that note their name (and arguments) in `marker`
    and pass their input through (as a filter would)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        p = folder / name
        p.write_text(f"#!/bin/sh\necho \"{name} $*\" >> '{marker}'\ncat >/dev/null 2>&1 || true\n", encoding="utf-8")
        p.chmod(0o755)


# -- git ------------------------------------------------------------------------------------------

HOOKS = ["applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit", "pre-merge-commit",
         "prepare-commit-msg", "commit-msg", "post-commit", "pre-rebase", "post-checkout", "post-merge",
         "pre-push", "pre-receive", "update", "proc-receive", "post-receive", "post-update",
         "reference-transaction", "push-to-checkout", "pre-auto-gc", "post-rewrite", "sendemail-validate",
         "fsmonitor-watchman", "p4-changelist", "p4-prepare-changelist", "p4-post-changelist",
         "p4-pre-submit", "post-index-change"]


def _program_keys(prog: str, hooks: Path, extra: Path) -> dict[str, str]:
    """Every configuration key with which git runs a program (or reads more configuration)."""
    return {
        "core.fsmonitor": prog, "core.fsmonitorHookVersion": "2", "core.hooksPath": str(hooks),
        "core.pager": prog, "core.editor": prog, "sequence.editor": prog, "core.sshCommand": prog,
        "ssh.variant": "ssh", "core.askPass": prog, "core.gitProxy": prog, "core.alternateRefsCommand": prog,
        "core.attributesFile": str(extra / "attributes"), "core.untrackedCache": "true",
        "credential.helper": prog, "credential.https://example.com.helper": prog,
        "gpg.program": prog, "gpg.openpgp.program": prog, "gpg.x509.program": prog, "gpg.ssh.program": prog,
        "gpg.ssh.defaultKeyCommand": prog, "gpg.ssh.allowedSignersFile": str(extra / "signers"),
        "log.showSignature": "true", "diff.external": prog, "diff.evil.textconv": prog,
        "diff.evil.command": prog, "diff.evil.cachetextconv": "true", "merge.evil.driver": prog,
        "filter.evil.clean": prog, "filter.evil.smudge": prog, "filter.evil.process": prog,
        "filter.evil.required": "true", "filter.lfs.process": prog, "filter.lfs.clean": prog,
        **{f"pager.{cmd}": prog for cmd in ("status", "log", "describe", "archive", "ls-files", "rev-parse",
                                             "cat-file", "config", "version")},
        "uploadpack.packObjectsHook": prog, "uploadarchive.allowUnreachable": "true",
        "remote.origin.url": f"ext::{prog}", "remote.origin.uploadpack": prog, "remote.origin.receivepack": prog,
        "remote.origin.vcs": "evil", "remote.origin.proxy": "http://127.0.0.1:9", "protocol.allow": "always",
        "url.ext::.insteadOf": "https://", "tar.tar.command": prog, "tar.tgz.command": prog,
        "tar.tar.gz.command": prog, "tar.tar.evil.command": prog, "web.browser": "evil", "browser.evil.cmd": prog,
        "man.viewer": "evil", "man.evil.cmd": prog, "difftool.evil.cmd": prog, "mergetool.evil.cmd": prog,
        "interactive.diffFilter": prog, "sendemail.smtpServer": prog, "sendemail.toCmd": prog,
        "sendemail.ccCmd": prog, "gc.auto": "1", "gc.autoDetach": "false", "maintenance.auto": "true",
        "fetch.recurseSubmodules": "true", "submodule.recurse": "true", "status.submoduleSummary": "true",
        "diff.submodule": "diff", "core.preloadIndex": "true", "index.threads": "1",
        "include.path": str(extra / "included"), f"includeIf.gitdir:{extra.parent}/.path": str(extra / "included"),
        "includeIf.onbranch:main.path": str(extra / "included"),
    }


def _git(repo: Path, *args: str, env: dict | None = None) -> str:
    base = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    base.update(GIT_AUTHOR_NAME="a", GIT_AUTHOR_EMAIL="a@b", GIT_COMMITTER_NAME="a", GIT_COMMITTER_EMAIL="a@b",
                GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, **(env or {}))
    done = subprocess.run(["git", *args], cwd=repo, env=base, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _game(root: Path) -> Path:
    write(root / "game.yaml", "title: Tiny\n")
    write(root / "templates" / "tiny" / "face.yaml", textwrap.dedent("""
        elements:
          - {name: t, type: text, x: 5mm, y: 5mm, width: 50mm, height: 10mm, text: "{{ card.name }}"}
    """))
    write(root / "templates" / "tiny" / "back.yaml", BACK_TEMPLATE)
    write(root / "deck.yaml", "deck: Things\ntemplate: tiny/face\nback: tiny/back\ncards:\n"
                              "  - {name: Alpha}\n  - {name: Beta}\n")
    return root


@pytest.fixture
def hostile_repo(tmp_path, monkeypatch):
    """A game in its own repository (tag v1, one commit after) whose configuration, included
    files, per-worktree configuration, attributes and hooks name a program for everything git
    can run one for; returns (game folder, marker file the program writes)."""
    marker = tmp_path / "RAN"
    game = _game(tmp_path / "game")
    write(game / ".gitignore", "build/\n")
    _git(game, "init", "-q", "-b", "main")
    _git(game, "add", "-A")
    _git(game, "commit", "-qm", "first")
    _git(game, "tag", "v1")
    write(game / "deck.yaml", (game / "deck.yaml").read_text() + "  - {name: Gamma}\n")
    write(game / ".gitattributes", "* filter=evil diff=evil merge=evil export-subst\n")
    write(game / "stamp.txt", "signed by $Format:%G? %GS$\n")      # (git archive would ask gpg)
    _git(game, "add", "-A")
    _git(game, "commit", "-qm", "second")
    tree, head = _git(game, "rev-parse", "HEAD^{tree}"), _git(game, "rev-parse", "HEAD")
    signed = (f"tree {tree}\nparent {head}\nauthor a <a@b> 1700000000 +0000\ncommitter a <a@b> 1700000000 +0000\n"
              f"gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n\nsigned\n")
    write(tmp_path / "signed.txt", signed)
    _git(game, "tag", "signed", _git(game, "hash-object", "-t", "commit", "-w", str(tmp_path / "signed.txt")))
    _programs(tmp_path / "path", ["gpg", "gpg2", "gpgsm", "ssh", "ssh-keygen", "less", "more", "vi", "watchman"],
              marker)
    monkeypatch.setenv("PATH", f"{tmp_path / 'path'}{os.pathsep}{os.environ['PATH']}")
    _git(game, "archive", "signed")                 # (the control: git archive of it runs gpg)
    assert marker.read_text().startswith("gpg ")
    marker.unlink()
    extra = game / "evil"                     # (the game's own files, named by its configuration)
    _programs(extra / "bin", ["prog"], marker)
    prog = str(extra / "bin" / "prog")
    _programs(extra / "hooks", HOOKS, marker)
    _programs(game / ".git" / "hooks", HOOKS, marker)
    keys = _program_keys(prog, extra / "hooks", extra)
    for key, value in keys.items():
        if "include" not in key:
            _git(game, "config", "-f", str(extra / "included"), "--add", key, value)
    included = (extra / "included").read_text()
    write(extra / "attributes", "* filter=evil diff=evil merge=evil export-subst\n")
    for key, value in keys.items():
        _git(game, "config", "--add", key, value)
    _git(game, "config", "core.repositoryformatversion", "1")
    _git(game, "config", "extensions.worktreeConfig", "true")
    write(game / ".git" / "config.worktree", included)
    write(game / ".git" / "info" / "attributes", "* filter=evil diff=evil\n")
    assert not marker.exists()
    return game, marker


@needs_git
def test_a_repository_configured_to_run_programs_runs_none_of_them(hostile_repo, processes):
    game, marker = hostile_repo
    # the configuration does run its programs when git is used the ordinary way
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    with contextlib.suppress(subprocess.TimeoutExpired):     # (the filter program waits for more)
        subprocess.run(["git", "status"], cwd=game, env=env, capture_output=True, timeout=5, check=False)
    assert marker.exists()
    marker.unlink()
    processes.clear()
    from cardgen.core import gitinfo

    # every git call cardgen makes, on a clean and on a changed working tree
    version = gitinfo.describe(game)
    assert version is not None and version.startswith("v1-1-g"), version
    when = gitinfo.commit_time(game)
    assert when is not None
    commit = gitinfo.commit_of(game, "v1")
    assert gitinfo.has_file(game, commit, game / "game.yaml")
    assert gitinfo.describe_commit(game, commit) == "v1"
    tree = gitinfo.archive(game, commit, game.parent, game)
    assert (tree / "deck.yaml").read_text().count("name:") == 2
    (game.parent / "at-signed").mkdir()
    tree = gitinfo.archive(game, gitinfo.commit_of(game, "signed"), game.parent / "at-signed", game)
    assert (tree / "stamp.txt").read_text() == "signed by $Format:%G? %GS$\n"     # (not expanded: no gpg)
    for path in game.rglob("*.yaml"):
        if ".git" not in path.parts:
            os.utime(path, (time.time() + 5,) * 2)          # racy: git compares the content
    write(game / "deck.yaml", (game / "deck.yaml").read_text() + "  - {name: Delta}\n")
    assert gitinfo.describe(game).endswith("-dirty")
    assert gitinfo.commit_time(game) == when        # the last commit's date, edits since or not
    assert run_cli("validate", str(game))[0] == 0
    code, _, err = run_cli("build", str(game), "--only", "cards", "--page", "letter", "--quiet")
    assert code == 0, err
    assert run_cli("changes", str(game), "--since", "v1")[0] == 0
    code, _, err = run_cli("build", str(game), "--only", "cards", "--page", "letter", "--quiet",
                           "--changed-since", "v1")
    assert code == 0, err
    assert not marker.exists(), marker.read_text()
    assert _not_git(processes) == []
    assert any(a.startswith("('git',") for _, a in processes)          # (git was asked)


@needs_git
@pytest.mark.parametrize("which", ["config", "HEAD", "index", "packed-refs"])
def test_a_repository_file_that_is_a_pipe_gives_no_version_at_once(tmp_path, which):
    from cardgen.core import gitinfo

    game = _game(tmp_path / "game")
    _git(game, "init", "-q")
    _git(game, "add", "-A")
    _git(game, "commit", "-qm", "first")
    _git(game, "pack-refs", "--all")
    target = game / ".git" / which
    target.unlink()
    os.mkfifo(target)
    start = time.monotonic()
    assert gitinfo.describe(game) is None
    assert gitinfo.commit_time(game) is None
    assert time.monotonic() - start < 20      # a pipe read would wait for ever; this only bounds the test


@needs_git
def test_an_included_configuration_that_is_a_pipe_is_never_read(tmp_path):
    """git is never given the repository's configuration: an `include.path` naming a pipe
    does not make it wait."""
    from cardgen.core import gitinfo

    game = _game(tmp_path / "game")
    _git(game, "init", "-q")
    _git(game, "add", "-A")
    _git(game, "commit", "-qm", "first")
    _git(game, "tag", "v2")
    os.mkfifo(game / "pipe")
    _git(game, "config", "include.path", str(game / "pipe"))
    start = time.monotonic()
    assert gitinfo.describe(game) == "v2"
    assert time.monotonic() - start < 20      # a pipe read would wait for ever; this only bounds the test


@needs_git
def test_only_a_repository_found_the_plain_way_is_used(tmp_path):
    from cardgen.core import gitinfo

    other = _game(tmp_path / "other")          # someone's repository elsewhere on this computer
    _git(other, "init", "-q")
    _git(other, "add", "-A")
    _git(other, "commit", "-qm", "private")
    _git(other, "tag", "secret")
    # a game whose .git file points at it: not used
    game = _game(tmp_path / "game")
    write(game / ".git", f"gitdir: {other / '.git'}\n")
    assert gitinfo.describe(game) is None and gitinfo.toplevel(game) is None
    # a .git that is a link to it: not used
    (game / ".git").unlink()
    (game / ".git").symlink_to(other / ".git")
    assert gitinfo.describe(game) is None
    # a repository borrowing its objects from it (alternates): not used
    (game / ".git").unlink()
    _git(game, "init", "-q")
    write(game / ".git" / "objects" / "info" / "alternates", f"{other / '.git' / 'objects'}\n")
    _git(game, "update-ref", "refs/heads/master", _git(other, "rev-parse", "HEAD"))
    assert gitinfo.describe(game) is None
    # another user's repository above the game (git's safe.directory rule): not used
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        shared = _game(tmp_path / "shared")
        _git(shared, "init", "-q")
        _git(shared, "add", "-A")
        _git(shared, "commit", "-qm", "theirs")
        assert gitinfo.describe(shared) is not None
        os.chown(shared / ".git", 65534, 65534)
        assert gitinfo.describe(shared) is None
    # a worktree its repository lists: used
    _git(other, "worktree", "add", "-q", str(tmp_path / "wt"), "secret")
    assert gitinfo.describe(tmp_path / "wt") == "secret"
    assert gitinfo.toplevel(tmp_path / "wt") == (tmp_path / "wt").resolve()


# -- images ---------------------------------------------------------------------------------------

EPS = b"""%!PS-Adobe-3.0 EPSF-3.0
%%BoundingBox: 0 0 10 10
%%EndComments
0 0 moveto 10 10 lineto stroke
showpage
%%EOF
"""
SVG = b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>'
EXTENSIONS = (".png", ".jpg", ".jpeg")


_MAKE_IMAGES = """
import io, sys, warnings
from pathlib import Path
from PIL import Image
warnings.simplefilter("ignore")
Image.init()
im = Image.new("RGB", (8, 8), (200, 30, 30))
for fmt in sorted(Image.SAVE):
    buf = io.BytesIO()
    try:
        (im.convert("1") if fmt in ("XBM", "MSP") else im).save(buf, fmt)
    except Exception:
        continue
    if buf.getvalue():
        (Path(sys.argv[1]) / fmt).write_bytes(buf.getvalue())
"""


def _image_files(tmp_path: Path) -> dict[str, bytes]:
    """A small image in every format Pillow can write (made by Pillow as it comes, in another
    process: this one's Pillow has cardgen's decoders only), plus EPS, SVG and PDF text."""
    folder = tmp_path / "formats"
    folder.mkdir()
    subprocess.run([sys.executable, "-c", _MAKE_IMAGES, str(folder)], check=True, timeout=120)
    out: dict[str, bytes] = {"EPS": EPS, "SVG": SVG, "PDFTEXT": b"%PDF-1.4\n%%EOF\n"}
    out.update({p.name: p.read_bytes() for p in sorted(folder.iterdir())})
    return out


def _declared(fmt: str, ext: str) -> bool:
    """Whether a file written as `fmt` is what a name ending in `ext` declares (an MPO file is a
    JPEG with more pictures after the first)."""
    return (fmt, ext) in (("PNG", ".png"), ("JPEG", ".jpg"), ("JPEG", ".jpeg"), ("MPO", ".jpg"), ("MPO", ".jpeg"))


@pytest.fixture
def fake_programs(tmp_path, monkeypatch):
    """`gs`, `fc-match`, `djpeg` and the like first on PATH, each noting in a marker that it ran."""
    marker = tmp_path / "RAN"
    names = ["gs", "gswin32c", "gswin64c", "fc-match", "djpeg", "cjpeg", "convert", "magick", "inkscape",
             "rsvg-convert", "xdg-open", "display", "ppmquant", "ppmtogif", "iconutil", "sh-evil"]
    _programs(tmp_path / "bin", names, marker)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}")
    return marker


def test_the_hostile_files_would_run_ghostscript_through_plain_pillow(tmp_path, fake_programs):
    """The control: Pillow as it comes, asked to read the EPS named `.png`, runs `gs`."""
    (tmp_path / "eps.png").write_bytes(EPS)
    code = "from PIL import Image\ntry:\n    Image.open('eps.png').load()\nexcept Exception:\n    pass\n"
    subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=os.environ.copy(), timeout=60, check=True)
    assert fake_programs.read_text().startswith("gs ")


def test_a_game_of_images_in_every_format_under_every_name_runs_nothing(tmp_path, fake_programs, processes):
    files = _image_files(tmp_path)
    processes.clear()                       # (the test's own program, above)
    assert {"PNG", "JPEG", "EPS", "GIF", "TIFF", "BMP", "WEBP", "ICO", "PCX", "TGA", "JPEG2000", "PDF", "SGI",
            "DDS", "IM", "XBM"} <= set(files)
    game = tmp_path / "game"
    art = game / "art"
    art.mkdir(parents=True)
    (art / "icons").mkdir()
    cards = []
    for fmt, data in files.items():
        for ext in EXTENSIONS:
            name = f"{fmt.lower()}{ext.replace('.', '_')}{ext}"
            (art / name).write_bytes(data)
            (art / "icons" / f"i{fmt.lower()}.png").write_bytes(data)
            cards.append(f"  - {{name: '{fmt}{ext}', art: {name}, icon: i{fmt.lower()}}}\n")
    write(game / "game.yaml", "title: Images\n")
    write(game / "templates" / "t" / "face.yaml", textwrap.dedent("""
        elements:
          - {name: pic, type: image, src: "{{ card.art }}", x: 5mm, y: 5mm, width: 20mm, height: 20mm}
          - {name: ic, type: icon, icon: "{{ card.icon }}", x: 30mm, y: 5mm, width: 9mm, height: 9mm}
          - {name: t, type: text, x: 5mm, y: 40mm, width: 50mm, height: 10mm, text: "x :{{ card.icon }}: y"}
    """))
    write(game / "templates" / "t" / "back.yaml", BACK_TEMPLATE)
    write(game / "deck.yaml", "deck: D\ntemplate: t/face\nback: t/back\ncards:\n" + "".join(cards))
    code, out, err = run_cli("validate", str(game))
    err = out + err
    assert code == 1
    code, _, err2 = run_cli("build", str(game), "--quiet")
    assert code == 1
    assert "Traceback" not in err + err2 and "internal error" not in err + err2
    # every file whose content is not what its name says is refused, naming what it is
    refused = [(f, e) for f in files for e in EXTENSIONS if not _declared(f, e)]
    for fmt, ext in refused:
        name = f"{fmt.lower()}{ext.replace('.', '_')}{ext}"
        assert f"cannot use image '{name}': {name} is " in err, name
    assert "eps_png.png is not a PNG image cardgen can read (damaged, or another format); export it again as PNG" \
        in err
    assert "gif_jpg.jpg is a GIF image, not JPEG as its name says; convert it to JPEG or rename it" in err
    assert not fake_programs.exists(), fake_programs.read_text()
    assert _not_git(processes) == []


def test_images_of_the_declared_kind_draw(tmp_path, processes):
    """The same game with only true PNG and JPEG files builds, and starts no program."""
    files = _image_files(tmp_path)
    processes.clear()                       # (the test's own program, above)
    game = tmp_path / "game"
    (game / "art" / "icons").mkdir(parents=True)
    (game / "art" / "a.png").write_bytes(files["PNG"])
    (game / "art" / "b.jpg").write_bytes(files["JPEG"])
    (game / "art" / "icons" / "i.png").write_bytes(files["PNG"])
    write(game / "game.yaml", "title: Images\n")
    write(game / "templates" / "t" / "face.yaml", textwrap.dedent("""
        elements:
          - {name: pic, type: image, src: "{{ card.art }}", x: 5mm, y: 5mm, width: 20mm, height: 20mm}
          - {name: t, type: text, x: 5mm, y: 40mm, width: 50mm, height: 10mm, text: "x :i: y"}
    """))
    write(game / "templates" / "t" / "back.yaml", BACK_TEMPLATE)
    write(game / "deck.yaml", "deck: D\ntemplate: t/face\nback: t/back\ncards:\n  - {name: A, art: a.png}\n"
                              "  - {name: B, art: b.jpg}\n")
    code, _, err = run_cli("build", str(game), "--only", "cards", "--page", "letter", "--quiet")
    assert code == 0, err
    assert _not_git(processes) == []


def test_readers_that_open_images_without_a_format_reach_no_program(tmp_path, fake_programs, processes):
    """ReportLab's ImageReader and svglib call Pillow without formats: once cardgen has loaded,
    Pillow has no decoder that starts a program, so an EPS reaches none."""
    from PIL import Image
    from reportlab.lib.utils import ImageReader

    import cardgen.render.cmyk  # noqa: F401  (what a build imports before drawing)
    from cardgen.core.images import IN_PROCESS

    assert set(Image.OPEN) <= IN_PROCESS and "EPS" not in Image.OPEN
    Image.init()                                    # (Pillow's "load every driver": loads none now)
    assert set(Image.OPEN) <= IN_PROCESS and set(Image.ID) <= IN_PROCESS
    (tmp_path / "x.png").write_bytes(EPS)
    with pytest.raises(OSError):
        ImageReader(str(tmp_path / "x.png")).getRGBData()
    gif = io.BytesIO()
    Image.new("RGB", (4, 4)).save(gif, "GIF")
    (tmp_path / "gif.png").write_bytes(gif.getvalue())
    with pytest.raises(OSError, match=r"gif\.png is a GIF image, not PNG as its name says"):
        ImageReader(str(tmp_path / "gif.png"))              # (read by its name, as cardgen reads it)
    Image.new("RGB", (4, 4)).save(tmp_path / "own.tif", "TIFF")
    assert ImageReader(str(tmp_path / "own.tif")).getSize() == (4, 4)
    with pytest.raises(OSError):
        Image.open(io.BytesIO(EPS)).load()
    assert not fake_programs.exists()
    assert processes == []


def test_an_svg_embedding_an_image_of_another_kind_and_naming_an_unknown_font(tmp_path, fake_programs, processes):
    from cardgen.core.paths import svg_problem
    from cardgen.resources.icons import load_svg

    eps = base64.b64encode(EPS).decode()
    bad = tmp_path / "bad.svg"
    bad.write_text(f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
                   f'width="10" height="10"><image width="5" height="5" xlink:href="data:image/png;base64,{eps}"/>'
                   f'</svg>', encoding="utf-8")
    assert svg_problem(bad, (tmp_path,)) == ("SVG bad.svg: the embedded image/png image is not a PNG image cardgen "
                                             "can read (damaged, or another format); export it again as PNG")
    (tmp_path / "pic.png").write_bytes(EPS)
    linked = tmp_path / "linked.svg"
    linked.write_text('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
                      'width="10" height="10"><image width="5" height="5" xlink:href="pic.png"/></svg>',
                      encoding="utf-8")
    assert svg_problem(linked, (tmp_path,)) == ("SVG linked.svg: pic.png is not a PNG image cardgen can read "
                                                "(damaged, or another format); export it again as PNG")
    text = tmp_path / "text.svg"
    text.write_text('<svg xmlns="http://www.w3.org/2000/svg" width="40" height="10">'
                    '<text x="1" y="8" font-family="No Such Family Anywhere">hi</text></svg>', encoding="utf-8")
    assert svg_problem(text, (tmp_path,)) is None
    assert load_svg(text) is not None
    assert not fake_programs.exists(), fake_programs.read_text()
    assert processes == []


def test_a_pipe_or_link_named_as_an_image_is_not_opened(tmp_path):
    from cardgen.resources.icons import IconError, check_raster

    os.mkfifo(tmp_path / "p.png")
    with pytest.raises(IconError, match="not a regular file"):
        check_raster(tmp_path / "p.png")
    assert stat.S_ISFIFO(os.stat(tmp_path / "p.png").st_mode)
