"""Outputs that did not change are kept, not made again.

An output's files come in *parts*: one per paper for the print sheets and calibration
sheets, one per target for the PNGs, one for each other output.  Before making a part, the
output names what it reads (`Job.part(key, *inputs)`): the laid-out card sides it draws (by
`ops.layout_digest`, which covers the fonts and art files they use), the card data and
options it reads.  With cardgen's code version and the output's options these give the
part's *fingerprint*.  When the previous build recorded the same fingerprint for that part
and each of its files is still in the output folder with the content it had then (sha256),
the files are kept (`Staging.keep`: left where they are in the output) and the part is not
made; its warnings and summary notes are repeated from the record.

    part = job.part(paper, r.copies, sheet_options)
    if not part.keep():
        with part:
            job.staging.add(path, make_the_pdf())

The records live in the output folder's state file (`cardgen.pipeline.incremental`).
"""
from __future__ import annotations

import hashlib
import os
import stat
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cardgen.core.digest import RACY_NS, kept_digest
from cardgen.core.errors import Diagnostic, Loc, Report, relative_to

if TYPE_CHECKING:
    from cardgen.core.atomic import Staging
    from cardgen.model import ops
    from cardgen.resources.fonts import FontBook


def diagnostic_record(d: Diagnostic) -> list:
    """A diagnostic as JSON (its file made absolute, so it reads the same from another folder)."""
    file = d.loc.file
    if file and not os.path.isabs(file) and os.path.exists(file):
        file = os.path.abspath(file)
    return [file, d.loc.line, d.loc.col, d.loc.cell, d.message, d.severity, d.code, d.group, d.card]


def diagnostic_of(rec: list) -> Diagnostic:
    file, line, col, cell, message, severity, code = rec[:7]
    group, card = (rec[7], rec[8]) if len(rec) >= 9 else ("", "")
    return Diagnostic(Loc(file, line, col, cell), message, severity, code, group=group, card=card)


@dataclass
class Ledger:
    """One build's parts: what the previous build recorded (`previous`, by part name) and
    what this one makes or keeps (`parts`)."""

    out_dir: Path
    code: str                                        # cardgen's code version (`core.digest.code_version`)
    previous: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    font_files: Callable[[], Mapping[str, Path]] = dict
    parts: dict[str, dict[str, Any]] = field(default_factory=dict)
    made: list[str] = field(default_factory=list)    # part names made this build, in order
    kept: list[str] = field(default_factory=list)    # part names kept from the previous build
    # every file the previous build left (relative path -> sha256), if it was made by this
    # code version (else empty: `keep_file` keeps nothing)
    outputs: Mapping[str, str] = field(default_factory=dict)
    kept_files: dict[str, str] = field(default_factory=dict)    # kept by `keep_file`, with their sha256
    hashes: OutputHashes | None = None               # how the previous build's files are checked
    _values: dict[int, tuple[Any, Any]] = field(default_factory=dict)      # (`value` of long lists)

    def layout(self, layout: ops.CardLayout) -> str:
        done = layout.__dict__.get("_digest")     # (once a layout, `ops.layout_digest`: no font table made again)
        if done is not None:
            return str(done)
        from cardgen.model import ops  # (here: a rebuild with nothing changed draws nothing)

        return ops.layout_digest(layout, self.font_files())

    def value(self, v: Any) -> Any:
        """`v` with every card side replaced by its digest (for the fingerprint)."""
        from cardgen.model import ops

        return self._value(v, ops.CardLayout, ops.Copy)

    def _value(self, v: Any, side: Any, copy: Any) -> Any:
        if isinstance(v, side):
            return ("side", self.layout(v))
        if isinstance(v, copy):
            return ("copy", self._value(v.face, side, copy), self._value(v.back, side, copy), v.deck, v.width,
                    v.height, v.bleed)
        if isinstance(v, (list, tuple)):
            if len(v) < 256:
                return tuple(self._value(x, side, copy) for x in v)
            # a long list (every copy of the game's cards, which each paper's sheets read):
            # by its digest, worked out once a build for the list (held: its id stays its own)
            hit = self._values.get(id(v))
            if hit is None or hit[0] is not v:
                from cardgen.core.digest import digest

                hit = self._values[id(v)] = (v, ("items", len(v), digest(tuple(self._value(x, side, copy) for x in v))))
            return hit[1]
        return v

    def record(self, name: str, fingerprint: str, files: list[Path], report: Report,
               since: tuple[int, int]) -> None:
        self.parts[name] = {
            "fingerprint": fingerprint,
            "files": {self.rel(p): "" for p in files},     # sha256 filled in after the commit
            "diagnostics": [diagnostic_record(d) for d in report.items[since[0]:]],
            "notes": report.notes[since[1]:],
        }
        self.made.append(name)

    def loose(self, output: str, staged: list[Path]) -> None:
        """Record the files `output` staged outside its parts (e.g. the gallery's index.html),
        made by every build of it, as a part of their own: so that a later build that does not
        make the output knows them as cardgen's (`pipeline.incremental.earlier_parts`)."""
        claimed = {rel for part in self.parts.values() for rel in part.get("files", {})}
        files = [p for p in staged if self.rel(p) not in claimed]
        if files:
            self.parts[f"{output}:(other files)"] = {"fingerprint": "", "files": {self.rel(p): "" for p in files},
                                                     "diagnostics": [], "notes": []}
            self.made.append(f"{output}:(other files)")

    def keep_file(self, staging: Staging, path: Path) -> bool:
        """Keep the file at `path` as the previous build left it, in a part being made, if that
        build made it with this code version and it still has the content it had then (its
        SHA-256 is checked); True if kept.  For a file whose name says its content (a TTS deck
        sheet's name carries its atlas key), so that the same name is the same bytes."""
        rel = self.rel(path)
        sha = self.outputs.get(rel)
        if not sha or self.sha256(rel) != sha:
            return False
        staging.keep(path)
        self.kept_files[rel] = sha
        return True

    def sha256(self, rel: str) -> str | None:
        """The SHA-256 of the output file `rel` (`OutputHashes`; None if it cannot be read)."""
        if self.hashes is None:
            self.hashes = OutputHashes(self.out_dir)
        return self.hashes.sha256(rel)

    def rel(self, path: Path) -> str:
        """`path` relative to the output folder, with `/` (every kept gallery image of a
        build: `relative_to`)."""
        root = self.__dict__.get("_root")
        if root is None:
            root = self.__dict__["_root"] = os.path.abspath(self.out_dir)
        return relative_to(os.path.abspath(path), root).replace(os.sep, "/")

    def committed(self, digests: Mapping[Path, str]) -> None:
        """After the commit: the sha256 of each file this build wrote."""
        by_rel = {self.rel(p): sha for p, sha in digests.items()}
        for name in self.made:
            files = self.parts[name]["files"]
            for rel in files:
                files[rel] = by_rel.get(rel) or self.kept_files.get(rel, "")


def fonts_digest(fonts: FontBook) -> list[tuple[str, str, str]]:
    """Every font file of a game's font book, by content: for parts that set text in any of
    the game's fonts (rulebooks, sheet notes).  Each hash is remembered in the user cache as
    the fonts' measurements remember theirs (`kept_digest`): the 13 bundled fonts, 5.6 MB, are
    not read again for every part of every build (4 ms of a one-card print edit)."""
    return [(family, style, kept_digest(path, "fonts")) for family, styles in sorted(fonts.families.items())
            for style, path in sorted(styles.items())]


_CHUNK = 1 << 22


def file_sha256(path: Path) -> str | None:
    """The SHA-256 of a file's content (None if it cannot be read).  Read with the file's size
    at once (a kept gallery image: one read, not `hashlib.file_digest`'s 256 KB buffer copied
    through a file object: a fifth less CPU over the 500 kept images of a rebuild)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    except OSError:
        return None
    try:
        h = hashlib.sha256()
        want = min(os.fstat(fd).st_size + 1, _CHUNK)
        while chunk := os.read(fd, want):
            h.update(chunk)
            want = _CHUNK
        return h.hexdigest()
    except OSError:
        return None
    finally:
        os.close(fd)


# Whether a file's change time (`st_ctime`) is the time its content or status last changed,
# which nothing but the system clock sets (on Windows it is when the file was made).
CHANGE_TIMES = os.name == "posix"


class OutputHashes:
    """The SHA-256 of the files in an output folder, each read once and then trusted while its
    size, modification and change times and inode stay what they were when it was read, and it
    had not changed for `RACY_NS` before (as `core.digest.kept_digest` trusts a font's).  A
    kept output is checked this way before it is kept (`Part.keep`, `Ledger.keep_file`, a
    rebuild with nothing changed): reading the 2,000 kept gallery images of a one-card edit
    was 0.2 s.  A file changed since, even with its size and modification time put back,
    has a new change time (only the clock sets it) and is read again; so is a file replaced
    by another (a new inode) and a copied output folder.  Where change times are not that
    (`CHANGE_TIMES`: Windows), every file is read.

    `old` is what the last build's state file kept (`kept`), of the files it left with the
    SHA-256 `shas` gives (its `outputs`): relative path -> [size, mtime_ns, ctime_ns, inode,
    when read (ns)]."""

    def __init__(self, out_dir: Path, old: Any = None, shas: Any = None) -> None:
        self.out_dir = str(out_dir)
        ok = isinstance(old, dict) and isinstance(shas, dict) and CHANGE_TIMES
        self.old: Mapping[str, Any] = old if ok else {}
        self.shas: Mapping[str, Any] = shas if ok else {}
        self.entries: dict[str, tuple[list, str]] = {}     # (what the state file keeps, the SHA-256)
        self.read = 0                       # files read and hashed

    def sha256(self, rel: str) -> str | None:
        path = os.path.join(self.out_dir, rel)
        when = time.time_ns()               # (before the status: a change after it shows in the times)
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            return None
        if not stat.S_ISREG(st.st_mode):
            return None
        seen = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]
        hit, sha = self.old.get(rel), self.shas.get(rel)
        if (isinstance(hit, list) and len(hit) == 5 and hit[:4] == seen and isinstance(hit[4], int)
                and hit[4] - max(st.st_mtime_ns, st.st_ctime_ns) > RACY_NS and isinstance(sha, str) and sha):
            self.entries[rel] = (hit, sha)
            return sha
        sha = file_sha256(Path(path))
        self.read += 1
        if sha is not None and CHANGE_TIMES and when - max(st.st_mtime_ns, st.st_ctime_ns) > RACY_NS:
            self.entries[rel] = ([*seen, when], sha)      # (else read again next time)
        return sha

    @property
    def learnt(self) -> bool:
        """Whether a file was read and can be trusted from now on (worth writing down)."""
        return any(self.old.get(rel) is not entry for rel, (entry, _) in self.entries.items())

    def kept(self, outputs: Mapping[str, str]) -> dict[str, list]:
        """What the state file keeps: the entries of the files `outputs` lists with the same
        SHA-256 (relative path -> sha256: what the build leaves, the state file's `outputs`)."""
        return {rel: entry for rel, (entry, sha) in sorted(self.entries.items()) if outputs.get(rel) == sha}


class Part:
    """Part of an output: kept from the previous build if its fingerprint and files are the
    same, else made inside `with part:` (which records the files staged meanwhile)."""

    def __init__(self, ledger: Ledger | None, name: str, fingerprint: str, staging: Staging, report: Report):
        self.ledger, self.name, self.fingerprint = ledger, name, fingerprint
        self.staging, self.report = staging, report
        self._before = 0            # (how many paths were staged when the part began)
        self._since = (0, 0)

    def keep(self) -> bool:
        """Keep the previous build's files of this part if nothing it reads has changed and
        they are intact; True if kept (then do not make it)."""
        ledger = self.ledger
        if ledger is None:
            return False
        old = ledger.previous.get(self.name)
        if not old or old.get("fingerprint") != self.fingerprint or not isinstance(old.get("files"), dict):
            return False
        files = old["files"]
        for rel, sha in files.items():
            if not sha or ledger.sha256(rel) != sha:
                return False            # missing, or changed since (a damaged or edited file is made again)
        for rel in files:
            self.staging.keep(ledger.out_dir / rel)
        for rec in old.get("diagnostics", []):
            d = diagnostic_of(rec)
            if d not in self.report.items:
                self.report.items.append(d)
        for note in old.get("notes", []):
            self.report.note(note)
        ledger.parts[self.name] = dict(old)
        ledger.kept.append(self.name)
        return True

    def __enter__(self) -> Part:
        self._before = len(self.staging.files)
        self._since = (len(self.report.items), len(self.report.notes))
        return self

    def __exit__(self, kind: object, *exc: object) -> None:
        if kind is None and self.ledger is not None:
            files = self.staging.staged_since(self._before)
            self.ledger.record(self.name, self.fingerprint, files, self.report, self._since)
