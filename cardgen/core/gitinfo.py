"""What git knows about a game folder: its version (`git describe`) and its files at an
earlier commit (`git archive`), for `cardgen changes --since REF`.

git runs without a shell, with a time limit, in the game folder, and defensively: a game
folder is untrusted (docs/security.md) and may carry its own `.git/config`, whose
`core.fsmonitor` and filter drivers would otherwise run commands while git checks whether the
working tree is dirty or writes files out.  Those settings are overridden on the command line
(and submodules, whose own configurations could set them too, are never looked into),
no index lock is taken (`GIT_OPTIONAL_LOCKS=0`) and no `GIT_*` variable of the caller's shell
reaches git.  No git installed, not a repository, or git failing: no answer, never an error
(except for `archive`, where the user asked for a ref).
"""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

DESCRIBE_TIMEOUT = 5.0      # seconds
ARCHIVE_TIMEOUT = 120.0


class GitError(Exception):
    """git could not do what was asked (a bad ref, not a repository); the message is one line."""


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0", GIT_PAGER="cat", LC_ALL="C")
    return env


def _run(args: list[str], cwd: Path, timeout: float, stdout=subprocess.PIPE) -> subprocess.CompletedProcess | None:
    """`git ARGS` in `cwd`; None when git is missing, times out or cannot start."""
    try:
        return subprocess.run(["git", *args], cwd=cwd, env=_env(), stdin=subprocess.DEVNULL, stdout=stdout,
                              stderr=subprocess.PIPE, timeout=timeout, check=False)
    except (OSError, subprocess.SubprocessError, ValueError):
        return None


def _text(done: subprocess.CompletedProcess | None) -> str | None:
    if done is None or done.returncode != 0:
        return None
    return done.stdout.decode("utf-8", "replace").strip()


def _safe_options(cwd: Path) -> list[str]:
    """`-c` overrides that keep git from running the repository's own commands: the file
    system monitor hook and every configured filter driver (clean, smudge, process)."""
    opts = ["-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null",
            # submodules have configurations of their own (filters, fsmonitor): never entered
            "-c", "diff.ignoreSubmodules=all", "-c", "submodule.recurse=false", "-c", "status.submoduleSummary=false"]
    listed = _text(_run(["config", "--name-only", "--get-regexp", r"^filter\."], cwd, DESCRIBE_TIMEOUT)) or ""
    drivers = sorted({line.rsplit(".", 1)[0] for line in listed.splitlines() if line.count(".") >= 2})
    for driver in drivers:
        opts += ["-c", f"{driver}.clean=", "-c", f"{driver}.smudge=", "-c", f"{driver}.process=",
                 "-c", f"{driver}.required=false"]
    return opts


def _tracks(folder: Path, name: str, safe: list[str]) -> bool:
    return bool(_text(_run([*safe, "ls-files", "--", name], folder, DESCRIBE_TIMEOUT)))


def _in_repo(folder: Path) -> bool:
    """A `.git` in the folder or above it (how git finds its repository; checked before
    starting git at all, so that games outside any repository cost nothing)."""
    here = folder.resolve()
    return any(os.path.lexists(p / ".git") for p in (here, *here.parents))


def _game_repo(folder: Path) -> list[str] | None:
    """git's safe options for `folder` when a repository tracks its game.yaml; else None."""
    if not folder.is_dir() or not _in_repo(folder):
        return None
    safe = _safe_options(folder)
    return safe if _tracks(folder, "game.yaml", safe) else None


def describe(folder: Path) -> str | None:
    """`git describe --tags --always --dirty` of the repository `folder` is in, if it tracks
    the folder's game.yaml (a game merely lying inside some other repository, say a home
    folder kept in git, gets no version from it); else None."""
    folder = Path(folder)
    safe = _game_repo(folder)
    if safe is None:
        return None
    described = _text(_run([*safe, "describe", "--tags", "--always"], folder, DESCRIBE_TIMEOUT))
    if not described:
        return None
    # what `--dirty` would add, found by `git status` told to leave submodules alone (`describe
    # --dirty` looks into them, and a submodule's own configuration may run commands)
    status = _run([*safe, "status", "--porcelain", "--untracked-files=no", "--ignore-submodules=all"], folder,
                  DESCRIBE_TIMEOUT)
    if status is not None and status.returncode == 0 and status.stdout.strip():
        described += "-dirty"
    return described


def commit_time(folder: Path) -> int | None:
    """When the last commit touching `folder` was made (seconds since 1970), if the repository
    tracks the folder's game.yaml and nothing in the folder differs from that commit; else None
    (then the files on disk are newer than any commit says)."""
    folder = Path(folder)
    safe = _game_repo(folder)
    if safe is None:
        return None
    status = _run([*safe, "status", "--porcelain", "--untracked-files=no", "--ignore-submodules=all", "--", "."],
                  folder, DESCRIBE_TIMEOUT)
    if status is None or status.returncode != 0 or status.stdout.strip():
        return None
    got = _text(_run([*safe, "log", "-1", "--format=%ct", "--", "."], folder, DESCRIBE_TIMEOUT))
    return int(got) if got and got.isdigit() else None


def describe_commit(folder: Path, commit: str) -> str:
    """`git describe --tags --always COMMIT` (what the version was then); "" if git cannot say."""
    return _text(_run([*_safe_options(folder), "describe", "--tags", "--always", commit], folder,
                      DESCRIBE_TIMEOUT)) or ""


def toplevel(folder: Path) -> Path | None:
    """The top folder of the repository `folder` is in, or None."""
    got = _text(_run(["rev-parse", "--show-toplevel"], folder, DESCRIBE_TIMEOUT))
    return Path(got) if got else None


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
    if _run(["--version"], folder, DESCRIBE_TIMEOUT) is None:
        raise GitError(f"'{ref}' is not a folder, and git (to read it as a revision) is not installed")
    if toplevel(folder) is None:
        raise GitError(f"'{ref}' is not a folder, and {folder} is not in a git repository")
    done = _run(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"], folder,
                DESCRIBE_TIMEOUT)
    got = _text(done)
    if not got:
        raise GitError(f"'{ref}' is neither a folder nor a revision of the git repository at "
                       f"{toplevel(folder)}")
    return got


def has_file(folder: Path, commit: str, path: Path) -> bool:
    """Whether the file `path` (in the repository `folder` is in) existed at `commit`."""
    top = toplevel(folder)
    if top is None:
        return False
    rel = Path(os.path.relpath(Path(path).resolve(), top.resolve())).as_posix()
    done = _run(["cat-file", "-e", f"{commit}:{rel}"], folder, DESCRIBE_TIMEOUT)
    return done is not None and done.returncode == 0


def archive(folder: Path, commit: str, dest: Path, within: Path | None = None) -> Path:
    """Write the files at `commit` (from `commit_of`) of the repository `folder` is in (only
    those in the folder `within`, if given) into a new folder in `dest`, which it returns (the
    repository's top).  Unpacked with tarfile's `data` filter: no file lands outside it, and
    an entry the filter refuses (a link pointing outside, say) is left out."""
    import tarfile

    top = toplevel(folder)
    if top is None:
        raise GitError(f"{folder} is not in a git repository")
    spec: list[str] = []
    if within is not None and Path(within).resolve() != top.resolve():
        spec = ["--", os.path.relpath(Path(within).resolve(), top.resolve())]
    safe = _safe_options(folder)
    tar_path = dest / ".cardgen-archive.tar"
    with open(tar_path, "wb") as out:
        done = _run([*safe, "archive", "--format=tar", commit, *spec], top, ARCHIVE_TIMEOUT, stdout=out)
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
