"""Incremental builds: a rebuild does only the work its changes need.

Two levels, both recorded in the output folder's state file (`build/<game>/.cardgen/state.json`):

1. **Nothing changed** (`up_to_date`): the hash of every file the game may read (the game
   folder, the project's `templates/`, `art/` and `fonts/`, cardgen's own code and data),
   the build's options and the installed libraries equals the last build's, and every
   file that build made is still there with the content it had (sha256).  Then the game is
   not even loaded: the build repeats the last build's warnings and says it is up to date.
   A file's hash is remembered by its size and modification time (`core.digest.DigestCache`),
   so this reads only files that changed.  A build that reads what may change while no file
   does (a Google Sheet link, `--changed-since`) never takes this path; a game whose version
   comes from git (`git describe`) takes it while git gives the same version.
2. **Some things changed**: the game is loaded, checked and laid out, and each part of each
   output is kept when its own inputs did not change (`cardgen.outputs.incremental`).

Deleting the output folder (or its `.cardgen/` folder) makes everything again.
"""
from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from cardgen.core import atomic
from cardgen.core.digest import DigestCache, code_version, digest, own_stamp, walk_files
from cardgen.core.errors import Diagnostic, Report
from cardgen.core.paths import through_link
from cardgen.load import refs
from cardgen.outputs.incremental import Ledger, OutputHashes, diagnostic_of, diagnostic_record, file_sha256

STATE = Path(".cardgen") / "state.json"
FORMAT = 1
SHARED = ("templates", "art", "fonts")


@dataclass
class State:
    """What the last build of a game recorded (empty when there is none or it is unreadable)."""

    data: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def load(cls, out_dir: Path) -> State:
        if through_link(out_dir / STATE):
            return cls()
        try:
            data = json.loads((out_dir / STATE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return cls()
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return cls()
        return cls(data)

    @property
    def parts(self) -> dict[str, dict[str, Any]]:
        parts = self.data.get("parts")
        return parts if isinstance(parts, dict) else {}

    def outputs(self, code: str) -> dict[str, str]:
        """Every file the last build left (relative path -> sha256), if it was made by the
        code version `code` (else none)."""
        outputs = self.data.get("outputs")
        if self.data.get("code") != code or not isinstance(outputs, dict):
            return {}
        return {rel: sha for rel, sha in outputs.items() if isinstance(rel, str) and isinstance(sha, str)}

    def hashes(self, out_dir: Path, code: str) -> OutputHashes:
        """How the last build's files are checked: read, or, if the last build was made by the
        code version `code` (`outputs`), trusted while their status is what it was when they
        were last read (`OutputHashes`)."""
        if self.data.get("code") != code:
            return OutputHashes(out_dir)
        return OutputHashes(out_dir, self.data.get("hashes"), self.data.get("outputs"))


def input_files(game_root: Path, project: Path, out_dir: Path) -> list[str]:
    """Every file the game may read besides cardgen's own: its folder (less hidden files and
    its output folder, when that is inside) and the project's shared folders."""
    roots = refs.roots_for(game_root, project)
    files = walk_files(game_root, skip=[out_dir], inside=roots)
    if Path(project).resolve() != Path(game_root).resolve():
        for kind in SHARED:
            if (project / kind).is_dir():
                files += walk_files(project / kind, skip=[out_dir], inside=roots)
        marker = project / "cardgen.yaml"
        if marker.is_file():
            files.append(str(marker))
    return files


# build options that do not shape what a build makes (`out` as typed: the output folder itself is)
NOT_INPUTS = ("watch", "quiet", "outputs", "out")


def options_key(opts: Any, wanted: list[str], out_dir: Path) -> str:
    """The build's options that shape its outputs (every one but --watch and --quiet), and
    SOURCE_DATE_EPOCH (the PDFs' date, `cardgen.render.docinfo`)."""
    outputs = {k: sorted(v.items()) for k, v in sorted(dict(opts.outputs).items())}
    wide = sorted((f.name, repr(getattr(opts, f.name))) for f in fields(opts) if f.name not in NOT_INPUTS)
    return repr((wide, wanted, outputs, str(out_dir), os.environ.get("SOURCE_DATE_EPOCH", "")))


@dataclass
class Inputs:
    """This build's inputs: `key` hashes all of them; `cache` holds the file hashes."""

    key: str
    code: str
    cache: DigestCache
    files: str = ""         # the hash of the game's files and cardgen's code alone (no options)


def scan(game_root: Path, project: Path, out_dir: Path, opts: Any, wanted: list[str], state: State) -> Inputs:
    old = state.data.get("digests")
    cache = DigestCache(old if isinstance(old, dict) else None)
    code = own_stamp(out_dir, cache)      # (the state file is recognised only in its own output folder)
    # (a language's build, docs/languages.md: the game's whole output folder is not an input)
    outputs = out_dir.parent if getattr(opts, "lang", None) else out_dir
    files = [(os.path.relpath(f, game_root), cache.get(f)) for f in input_files(game_root, project, outputs)]
    return Inputs(digest(FORMAT, code, options_key(opts, wanted, out_dir), files), code, cache,
                  digest(FORMAT, code, files))


def source_of(inputs: Inputs, manifest: bytes) -> str:
    """What a build's outputs were made from, whatever its options: the game's files,
    cardgen's code and every card as laid out (the manifest: also cards read from a link)."""
    return digest(inputs.files, manifest)


@dataclass
class Earlier:
    """The parts of earlier builds that this build neither made nor kept (`earlier_parts`)."""

    current: dict[str, dict[str, Any]]      # made from what this build was made from: they stay
    stale: list[str]                        # files of the others (as cardgen wrote them): they go


def earlier_parts(state: State, made: Mapping[str, Any], source: str, out_dir: Path,
                  sha256: Callable[[str], str | None] | None = None) -> Earlier:
    """Sort the previous builds' parts that are not among `made` (this build's parts): a part
    made from the same game (same `source`) whose files are all there stays, as it is still
    right (e.g. `print-a4.pdf` after a build for letter paper only, the game unchanged); the
    files of the others are out of date and go, those still as cardgen wrote them (sha256):
    a file changed since is no longer cardgen's, it stays and its record is dropped.  (Only
    the files that go are read: a still-right print-service folder is not hashed again.)
    `sha256`: how a file's SHA-256 is had, by its path in `out_dir` (the build's
    `Ledger.sha256`: a file the last build found unchanged is trusted by its status,
    `OutputHashes`; by default every file is read)."""
    folder = os.fspath(out_dir)
    if sha256 is None:
        def sha256(rel: str) -> str | None:
            return file_sha256(Path(folder, rel))
    current: dict[str, dict[str, Any]] = {}
    stale: list[str] = []
    for name, part in sorted(state.parts.items()):
        files = part.get("files") if isinstance(part, dict) else None
        if name in made or not isinstance(files, dict):
            continue
        if part.get("source") == source and all(os.path.isfile(os.path.join(folder, rel)) for rel in files):
            current[name] = part
        else:
            stale += [rel for rel, sha in files.items() if sha and sha256(rel) == sha]
    return Earlier(current, stale)


def code_version_of(out_dir: Path) -> str:
    """cardgen's code version (`core.digest.code_version`, worked out once a process), the
    hashes of its files lent by the last build's state file: only files changed since are read."""
    old = State.load(out_dir).data.get("digests")
    return code_version(DigestCache(old if isinstance(old, dict) else None))


def volatile(game: Any, opts: Any) -> bool:
    """True if the build reads what may change while no file of the game does: a deck's cards
    from a link (a Google Sheet), or an earlier build or git commit (`--changed-since`).  (The
    version git gives is asked again: `git_version`.)"""
    if getattr(opts, "changed_since", None):
        return True
    for deck in game.decks:
        cards = deck.data.get("cards") if isinstance(deck.data, Mapping) else None
        if isinstance(cards, Mapping) and cards.get("url"):
            return True
    return False


def git_version(game: Any) -> str | None:
    """The version `git describe` gave the game (game.yaml has no `version:`), or None."""
    if isinstance(game.data, Mapping) and "version" not in game.data:
        return str(getattr(game, "version", "") or "")
    return None


def git_date(game: Any, wanted: list[str]) -> int | None:
    """The date of the game's last git commit (-1: none) when a file this build makes is dated
    by it (the print-service files, without game.yaml's `date:` or SOURCE_DATE_EPOCH); None
    when no file is."""
    if "pdfx" not in wanted or getattr(getattr(game, "opts", None), "date", None) \
            or os.environ.get("SOURCE_DATE_EPOCH", "").strip().isdigit():
        return None
    from cardgen.core.gitinfo import commit_time

    got = commit_time(game.root)
    return -1 if got is None else got


def _intact(out_dir: Path, outputs: Any, hashes: OutputHashes) -> list[Path] | None:
    """The files the last build made or kept, if each is there as it was; else None."""
    if not isinstance(outputs, dict):
        return None
    files: list[Path] = []
    for rel, sha in sorted(outputs.items()):
        if not isinstance(sha, str) or not sha or hashes.sha256(rel) != sha:
            return None
        files.append(out_dir / rel)
    return files


@dataclass
class UpToDate:
    """A game whose outputs are current: what the last build said about it."""

    files: list[Path]        # the outputs, all kept
    cards: int
    duplex: bool


def up_to_date(inputs: Inputs, state: State, game_root: Path, out_dir: Path, opts: Any,
               report: Report) -> UpToDate | None:
    """The outputs of the last build if nothing they were made from has changed (and they
    are intact); the last build's warnings and notes go to `report`.  None: build."""
    data = state.data
    if not data or data.get("inputs") != inputs.key or data.get("volatile", True) or opts.refresh:
        return None
    if data.get("git_version") is not None:    # the version came from git: is it still the same?
        from cardgen.core.gitinfo import describe

        if (describe(game_root) or "") != data["git_version"]:
            return None
    if data.get("git_date") is not None:       # a file is dated by the last commit: is it still the same?
        from cardgen.core.gitinfo import commit_time

        if (commit_time(game_root) or -1) != data["git_date"]:
            return None
    hashes = state.hashes(out_dir, inputs.code)
    files = _intact(out_dir, data.get("outputs"), hashes)
    if files is None:
        return None
    for rec in data.get("report", []):
        d = diagnostic_of(rec)
        if d not in report.items:
            report.items.append(d)
    for note in data.get("notes", []):
        report.note(note)
    if inputs.cache.hashed or hashes.learnt:    # files read again (touched, not changed): remember their times
        save(out_dir, {**data, "digests": inputs.cache.entries, "hashes": hashes.kept(data["outputs"])})
    return UpToDate(files, int(data.get("cards", 0)), bool(data.get("duplex")))


def save(out_dir: Path, data: dict[str, Any]) -> None:
    """Write the state file (after the outputs were moved into place: if the build is killed
    before, the old state's hashes do not match the new files, which are then made again)."""
    real = out_dir.resolve() if out_dir.is_symlink() else out_dir
    atomic.write_text(real / STATE, json.dumps(data, separators=(",", ":"), sort_keys=True) + "\n")


def record(out_dir: Path, inputs: Inputs, ledger: Ledger, earlier: Earlier, source: str,
           written: Mapping[Path, str], diagnostics: list[Diagnostic], notes: list[str], game: Any, opts: Any,
           cards: int, duplex: bool) -> None:
    """The state after a build: this build's parts (made from `source`) and the earlier
    builds' parts that are still right and still there (`earlier.current`), every file this
    build wrote (`written`: path -> sha256) or kept, and its problems and notes (to repeat
    when nothing changes)."""
    parts = {name: part for name, part in earlier.current.items()
             if all(os.path.isfile(out_dir / rel) for rel in part["files"])}
    parts.update((name, {**part, "source": source}) for name, part in ledger.parts.items())
    outputs = {rel: sha for name in ledger.kept for rel, sha in ledger.parts[name]["files"].items()}
    outputs.update(ledger.kept_files)
    outputs.update((ledger.rel(p), sha) for p, sha in written.items())
    save(out_dir, {
        "format": FORMAT,
        "inputs": inputs.key,
        "code": inputs.code,
        "volatile": volatile(game, opts),
        "git_version": git_version(game),
        "git_date": git_date(game, opts.wanted()),
        "digests": inputs.cache.entries,
        "parts": parts,
        "outputs": outputs,
        "hashes": ledger.hashes.kept(outputs) if ledger.hashes is not None else {},
        "report": [diagnostic_record(d) for d in diagnostics],
        "notes": list(notes),
        "cards": cards,
        "duplex": duplex,
    })
