"""What git knows about a game folder: its version (`git describe`), the date of its last
commit (`commit_time`, the print-service files' date) and its files at an earlier commit
(`git archive`), for `cardgen changes --since REF`.

A game folder is untrusted (docs/security.md) and may come with its own `.git`, whose
configuration can name programs for git to run: a file system monitor, hooks, filter, diff and
merge drivers, a pager, an editor, credential helpers, `ssh` and `gpg` commands, `include`s of
further files naming more of them...  Rather than turning each of those off (a list that
grows with every git release), cardgen never lets git read the repository's configuration at
all: every git call runs with `GIT_DIR` set to a private folder made for the call, holding a
configuration cardgen writes (the repository's format and nothing else) and links to the
repository's `refs/` and `packed-refs`, with `GIT_OBJECT_DIRECTORY` and `GIT_INDEX_FILE`
pointing at its objects and index and `GIT_WORK_TREE` at its top folder.  No system or user
configuration is read either (`GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_GLOBAL=/dev/null`, `HOME` and
`XDG_CONFIG_HOME` the private folder), no `GIT_*` variable of the caller's shell reaches git,
no lock is taken (`GIT_OPTIONAL_LOCKS=0`) and submodules are never looked into.

Only a repository found the plain way is used: a `.git` folder (not a link) of this user's in
the game folder or above it, or a `.git` file of a worktree that its repository lists back
(git's own `worktrees/<name>/gitdir`).  A `.git` file pointing anywhere else, objects borrowed from
another repository (`objects/info/alternates`), links among the repository's own files, and
a `HEAD`, index, configuration or `packed-refs` that is a pipe or device: no git at all.
git runs without a shell and with a time limit.  No git installed, not a repository, or git
failing: no answer, never an error (except for `archive`, where the user asked for a ref).
"""
from __future__ import annotations

import contextlib
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

# (subprocess, shutil and tempfile are imported when git is run: a game that says its `version:`
# never runs it, and `cardgen validate` starts quicker)
if TYPE_CHECKING:
    import subprocess

DESCRIBE_TIMEOUT = 5.0      # seconds
ARCHIVE_TIMEOUT = 120.0
MAX_SMALL_FILE = 64 * 1024  # HEAD, a .git file, the repository's configuration: read at most this much

# How the repository's own files may be (lstat): what git reads from them
_DIR, _FILE = "dir", "file"


class GitError(Exception):
    """git could not do what was asked (a bad ref, not a repository); the message is one line."""


@dataclass(frozen=True)
class Repo:
    """A repository as cardgen uses it: its top folder (the work tree), the folder of its
    per-worktree files (`HEAD`, the index) and the folder of its shared ones (objects, refs)."""

    top: Path
    gitdir: Path
    common: Path


def _kind(path: Path) -> str | None:
    """_DIR, _FILE, or None for anything else (missing, a link, a pipe, a device)."""
    try:
        st = os.lstat(path)
    except (OSError, ValueError):
        return None
    if stat.S_ISDIR(st.st_mode):
        return _DIR
    return _FILE if stat.S_ISREG(st.st_mode) else None


def _small(path: Path) -> str | None:
    """The text of a small regular file (not a link), or None."""
    from cardgen.core.paths import NotRegular

    if _kind(path) != _FILE:
        return None
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegular(path)
        data = os.read(fd, MAX_SMALL_FILE + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(data) > MAX_SMALL_FILE:
        return None
    return data.decode("utf-8", "replace")


def _sound(gitdir: Path, common: Path) -> bool:
    """Whether a repository's files are what git makes: no link among them, nothing that is a
    pipe or device, no objects borrowed from elsewhere."""
    if _kind(gitdir / "HEAD") != _FILE or _kind(common / "objects") != _DIR or _kind(common / "refs") != _DIR:
        return False
    for optional, kind in ((gitdir / "index", _FILE), (common / "packed-refs", _FILE), (common / "shallow", _FILE),
                           (common / "config", _FILE), (common / "objects" / "pack", _DIR),
                           (common / "objects" / "info", _DIR)):
        if os.path.lexists(optional) and _kind(optional) != kind:
            return False
    alternates = common / "objects" / "info" / "alternates"
    return not os.path.lexists(alternates) or (_small(alternates) or "").strip() == ""


def _worktree_dir(dotgit: Path) -> tuple[Path, Path] | None:
    """The (gitdir, common dir) a worktree's `.git` file names, when its repository lists this
    worktree back; else None (a `.git` file may point at any repository on the computer)."""
    text = _small(dotgit)
    if text is None or not text.startswith("gitdir: "):
        return None
    target = text[len("gitdir: "):].strip()
    gitdir = (dotgit.parent / target) if not os.path.isabs(target) else Path(target)
    try:
        gitdir = gitdir.resolve(strict=True)
        back = _small(gitdir / "gitdir")
        common_ref = _small(gitdir / "commondir")
        if back is None or common_ref is None or Path(back.strip()).resolve() != dotgit.resolve():
            return None
        common = (gitdir / common_ref.strip()).resolve(strict=True)
    except (OSError, RuntimeError, ValueError):
        return None
    return gitdir, common


def _own(path: Path) -> bool:
    """Whether this user owns `path` (always, where the system has no owners)."""
    if not hasattr(os, "getuid"):
        return True
    try:
        return os.lstat(path).st_uid == os.getuid()
    except OSError:
        return False


def find_repo(folder: Path) -> Repo | None:
    """The repository `folder` is in, found as git finds it (a `.git` in the folder or above),
    if it is one cardgen uses (see the module's description); else None."""
    try:
        here = Path(folder).resolve()
    except (OSError, RuntimeError):
        return None
    for top in (here, *here.parents):
        dotgit = top / ".git"
        if not os.path.lexists(dotgit):
            continue
        if not _own(dotgit):
            return None         # another user's repository (git's own `safe.directory` rule)
        kind = _kind(dotgit)
        found: tuple[Path, Path] | None
        if kind == _DIR:
            found = (dotgit, dotgit)
        elif kind == _FILE:
            found = _worktree_dir(dotgit)
        else:
            found = None
        if found is None or not _sound(*found):
            return None
        return Repo(top, *found)
    return None


_FORMAT = re.compile(r"\s*(\w+)\s*=\s*(\S+)\s*$")


def _format(common: Path) -> str:
    """The repository's format, for the configuration git is given: its version and the two
    extensions that change how it is read (sha256 objects, the reftable ref store), taken from
    its configuration when they have values git knows; nothing else of it is used."""
    version, found = "0", {}
    section = ""
    for line in (_small(common / "config") or "").splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line.strip("[] \t").lower()
            continue
        m = _FORMAT.fullmatch(line)
        if m is None:
            continue
        key, value = m.group(1).lower(), m.group(2).lower()
        if section == "core" and key == "repositoryformatversion" and value in ("0", "1"):
            version = value
        elif section == "extensions" and (key, value) in (("objectformat", "sha1"), ("objectformat", "sha256"),
                                                          ("refstorage", "files"), ("refstorage", "reftable")):
            found[key] = value
    out = f"[core]\n\trepositoryformatversion = {version if not found else '1'}\n\tbare = false\n" \
          f"\tfsmonitor = false\n\thooksPath = /dev/null\n\tuntrackedCache = false\n"
    if found:
        out += "[extensions]\n" + "".join(f"\t{k} = {v}\n" for k, v in sorted(found.items()))
    return out


@contextlib.contextmanager
def _private(repo: Repo) -> Iterator[dict[str, str] | None]:
    """The environment for git calls on `repo`: a private GIT_DIR with cardgen's configuration
    (removed afterwards); None if it cannot be made."""
    import shutil
    import tempfile

    tmp = Path(tempfile.mkdtemp(prefix="cardgen-git-"))
    try:
        try:
            head = _small(repo.gitdir / "HEAD")
            if head is None:
                raise OSError("HEAD unreadable")
            (tmp / "HEAD").write_text(head, encoding="utf-8")
            (tmp / "config").write_text(_format(repo.common), encoding="utf-8")
            # above every .gitattributes: no filter, diff or merge driver, and no `$Format:...$`
            # expanded by `git archive` (`%G?` would start gpg on a signed commit)
            (tmp / "info").mkdir()
            (tmp / "info" / "attributes").write_text("* -export-subst -filter -diff -merge\n", encoding="utf-8")
            for name in ("refs", "packed-refs", "shallow", "reftable"):
                if os.path.lexists(repo.common / name):
                    (tmp / name).symlink_to(repo.common / name)
            for shared in repo.gitdir.glob("sharedindex.*"):       # (a split index: its shared part)
                if _kind(shared) == _FILE:
                    (tmp / shared.name).symlink_to(shared)
            (tmp / "home").mkdir()
        except OSError:
            yield None
            return
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        env.update(GIT_DIR=str(tmp), GIT_WORK_TREE=str(repo.top), GIT_OBJECT_DIRECTORY=str(repo.common / "objects"),
                   GIT_INDEX_FILE=str(repo.gitdir / "index"), GIT_CONFIG_NOSYSTEM="1",
                   GIT_CONFIG_GLOBAL=os.devnull, GIT_ATTR_NOSYSTEM="1", GIT_NO_REPLACE_OBJECTS="1",
                   HOME=str(tmp / "home"), XDG_CONFIG_HOME=str(tmp / "home"), GIT_OPTIONAL_LOCKS="0",
                   GIT_TERMINAL_PROMPT="0", GIT_PAGER="cat", PAGER="cat", LC_ALL="C")
        for name in ("EDITOR", "VISUAL", "SSH_ASKPASS", "LESSOPEN", "LESSCLOSE"):
            env.pop(name, None)
        yield env
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _run(args: list[str], cwd: Path, timeout: float, env: dict[str, str] | None = None,
         stdout: Any = None) -> subprocess.CompletedProcess | None:
    """`git ARGS` in `cwd` with `env` (from `_private`; None: only `git --version`), its output
    to `stdout` (None: a pipe); None when git is missing, times out or cannot start."""
    import subprocess

    if stdout is None:
        stdout = subprocess.PIPE
    if env is None:         # (`git --version`: no repository, no configuration at all)
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        env.update(GIT_DIR=os.devnull, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, LC_ALL="C")
    try:
        return subprocess.run(["git", "--no-pager", *args], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                              stdout=stdout, stderr=subprocess.PIPE, timeout=timeout, check=False)
    except (OSError, subprocess.SubprocessError, ValueError):
        return None


def _text(done: subprocess.CompletedProcess | None) -> str | None:
    if done is None or done.returncode != 0:
        return None
    return done.stdout.decode("utf-8", "replace").strip()


@contextlib.contextmanager
def _git(folder: Path) -> Iterator[tuple[Repo, dict[str, str]] | None]:
    """The repository `folder` is in and the environment to run git on it, or None."""
    repo = find_repo(folder)
    if repo is None:
        yield None
        return
    with _private(repo) as env:
        yield (repo, env) if env is not None else None


def _status_clean(repo: Repo, env: dict[str, str], *spec: str) -> bool | None:
    """Whether nothing tracked differs from the last commit (in `spec`); None if git cannot say."""
    done = _run(["status", "--porcelain", "--untracked-files=no", "--ignore-submodules=all", *spec], repo.top,
                DESCRIBE_TIMEOUT, env)
    if done is None or done.returncode != 0:
        return None
    return not done.stdout.strip()


def _tracks_game(folder: Path, repo: Repo, env: dict[str, str]) -> bool:
    """Whether the repository tracks the game's game.yaml (a game merely lying inside some other
    repository, say a home folder kept in git, gets nothing from it)."""
    rel = os.path.relpath(Path(folder).resolve() / "game.yaml", repo.top)
    return bool(_text(_run(["ls-files", "--", rel], repo.top, DESCRIBE_TIMEOUT, env)))


def describe(folder: Path) -> str | None:
    """`git describe --tags --always --dirty` of the repository `folder` is in, if it tracks
    the folder's game.yaml; else None."""
    folder = Path(folder)
    if not folder.is_dir():
        return None
    with _git(folder) as found:
        if found is None or not _tracks_game(folder, *found):
            return None
        repo, env = found
        described = _text(_run(["describe", "--tags", "--always"], repo.top, DESCRIBE_TIMEOUT, env))
        if not described:
            return None
        # what `--dirty` would add, from `git status` told to leave submodules alone
        return described + ("-dirty" if _status_clean(repo, env) is False else "")


def commit_time(folder: Path) -> int | None:
    """When the last commit touching `folder` was made (seconds since 1970, the committer's
    date: the same in every clone), if a repository tracks the folder's game.yaml; else None.
    Files edited since do not change it: it is a date of the data, never of the files on disk."""
    folder = Path(folder)
    if not folder.is_dir():
        return None
    with _git(folder) as found:
        if found is None or not _tracks_game(folder, *found):
            return None
        repo, env = found
        rel = os.path.relpath(folder.resolve(), repo.top)
        got = _text(_run(["log", "-1", "--format=%ct", "--", rel], repo.top, DESCRIBE_TIMEOUT, env))
    return int(got) if got and got.isdigit() else None


def describe_commit(folder: Path, commit: str) -> str:
    """`git describe --tags --always COMMIT` (what the version was then); "" if git cannot say."""
    with _git(folder) as found:
        if found is None:
            return ""
        repo, env = found
        return _text(_run(["describe", "--tags", "--always", commit], repo.top, DESCRIBE_TIMEOUT, env)) or ""


def toplevel(folder: Path) -> Path | None:
    """The top folder of the repository `folder` is in, or None."""
    repo = find_repo(folder)
    return repo.top if repo is not None else None


def _first_line(done: subprocess.CompletedProcess | None, fallback: str) -> str:
    if done is None:
        return fallback
    lines = [x.strip() for x in done.stderr.decode("utf-8", "replace").splitlines() if x.strip()]
    line = lines[0] if lines else fallback
    return line.removeprefix("fatal: ").removeprefix("error: ")


def commit_of(folder: Path, ref: str) -> str:
    """The commit `ref` names in the repository `folder` is in; GitError if none."""
    if not ref or ref.startswith("-") or any(ch in ref for ch in "\0\n\r"):
        raise GitError(f"'{ref}' is not a git revision")
    if _run(["--version"], Path(os.path.abspath(os.sep)), DESCRIBE_TIMEOUT) is None:
        raise GitError(f"'{ref}' is not a folder, and git (to read it as a revision) is not installed")
    with _git(folder) as found:
        if found is None:
            raise GitError(f"'{ref}' is not a folder, and {folder} is not in a git repository")
        repo, env = found
        got = _text(_run(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"], repo.top,
                         DESCRIBE_TIMEOUT, env))
    if not got:
        raise GitError(f"'{ref}' is neither a folder nor a revision of the git repository at {repo.top}")
    return got


def has_file(folder: Path, commit: str, path: Path) -> bool:
    """Whether the file `path` (in the repository `folder` is in) existed at `commit`."""
    with _git(folder) as found:
        if found is None:
            return False
        repo, env = found
        rel = Path(os.path.relpath(Path(path).resolve(), repo.top)).as_posix()
        done = _run(["cat-file", "-e", f"{commit}:{rel}"], repo.top, DESCRIBE_TIMEOUT, env)
    return done is not None and done.returncode == 0


def archive(folder: Path, commit: str, dest: Path, within: Path | None = None) -> Path:
    """Write the files at `commit` (from `commit_of`) of the repository `folder` is in (only
    those in the folder `within`, if given) into a new folder in `dest`, which it returns (the
    repository's top).  Unpacked with tarfile's `data` filter: no file lands outside it, and
    an entry the filter refuses (a link pointing outside, say) is left out."""
    import tarfile

    tar_path = dest / ".cardgen-archive.tar"
    with _git(folder) as found:
        if found is None:
            raise GitError(f"{folder} is not in a git repository")
        repo, env = found
        spec: list[str] = []
        if within is not None and Path(within).resolve() != repo.top:
            spec = ["--", os.path.relpath(Path(within).resolve(), repo.top)]
        with open(tar_path, "wb") as out:
            done = _run(["archive", "--format=tar", commit, *spec], repo.top, ARCHIVE_TIMEOUT, env, stdout=out)
    if done is None or done.returncode != 0:
        raise GitError(f"git archive {commit[:12]} failed: {_first_line(done, 'git did not answer in time')}")

    def safe_member(member: tarfile.TarInfo, path: str) -> tarfile.TarInfo | None:
        try:
            return tarfile.data_filter(member, path)
        except tarfile.FilterError:
            return None

    try:
        with tarfile.open(tar_path) as tar:
            tar.extractall(dest / "tree", filter=safe_member)
    except (tarfile.TarError, OSError) as exc:
        raise GitError(f"cannot unpack {commit[:12]}: {exc}") from None
    finally:
        tar_path.unlink(missing_ok=True)
    return dest / "tree"
