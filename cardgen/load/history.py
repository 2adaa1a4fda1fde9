"""History beside the game: what must outlive any build folder, in `cardgen-history.json` in
the game folder, a small file meant to be committed with the game (docs/changes.md).

A build folder is disposable (`rm -rf build`, another clone, a co-designer's computer); what
cardgen has to remember from one build to the next about the game itself lives here instead.
Each kind of record is a *section*, owned by the stage that reads and makes it: `revisions`
(each card's revision counter, `cardgen.layout.manifest`); the languages work adds its
translation records as one more.  This module only reads, checks the frame of, and writes
the file; a section's owner checks its records.

The file is JSON, written so that a change to one record is a change to one line: top-level
keys sorted, each section a mapping (keys sorted) of groups (a deck, say), each group a list
of records, one record a line, keys in the order its owner gives.  The same records, the
same bytes.  It is written atomically (`core.atomic`) and only when its bytes would change.

It is read as untrusted input, like every file of a game folder: at most `MAX_HISTORY_BYTES`
(CARDGEN_MAX_HISTORY_BYTES), not through a link, with the YAML loader's limits (JSON is YAML),
and a problem in it is a warning at its line; a file with a problem is not written over (a
merge conflict left in it, say, is for the designer to resolve), so nothing in it is lost.
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cardgen.core import limits
from cardgen.core.errors import CardgenError, Loc, Report
from cardgen.core.located import YDict, loc_of

FILE = "cardgen-history.json"
FORMAT = 1
ABOUT = "cardgen's history of this game (card revisions): commit it with the game; cardgen build keeps it"


@dataclass
class History:
    """The history file of a game folder as read: its sections (each as loaded, with source
    locations), and whether it may be written (not when it had a problem)."""

    path: Path
    sections: dict[str, Any] = field(default_factory=dict)
    exists: bool = False
    writable: bool = True

    def section(self, name: str) -> Any:
        """A section as loaded (a located mapping), or None."""
        return self.sections.get(name)

    def where(self, container: Any = None, key: Any = None) -> Loc:
        """The location of `container[key]` (or of the file)."""
        loc = loc_of(container, key) if container is not None else Loc("<unknown>")
        return loc if loc.file != "<unknown>" else Loc(str(self.path))


def _problem(report: Report, history: History, loc: Loc, what: str) -> History:
    report.warn(loc, f"{what}; cardgen reads nothing from {FILE} and does not write over it until it is fixed "
                     f"or deleted (card revisions count from the last build, else from 1)", "history")
    history.sections, history.writable = {}, False
    return history


def _parsed(raw: bytes, path: Path, report: Report, history: History) -> YDict | None:
    """The file's JSON object, with the place of every value; None (and a warning) if it is not one."""
    from cardgen.load.yamlsrc import load_text

    here = Loc(str(path))
    try:
        text = raw.decode("utf-8")
        json.loads(text)                            # JSON's own message for a JSON file
    except UnicodeDecodeError:
        _problem(report, history, here, "is not a cardgen history file (not UTF-8 text)")
        return None
    except json.JSONDecodeError as exc:
        _problem(report, history, Loc(str(path), exc.lineno, exc.colno),
                 f"is not a cardgen history file (not JSON: {exc.msg})")
        return None
    except (ValueError, RecursionError):
        _problem(report, history, here, "is not a cardgen history file (not JSON)")
        return None
    try:
        data = load_text(text, str(path))           # again, for the place of every value (JSON is YAML)
    except CardgenError as exc:
        d = exc.diagnostics[0] if exc.diagnostics else None
        _problem(report, history, d.loc if d else here, f"is not a cardgen history file ({d.message if d else exc})")
        return None
    if not isinstance(data, YDict):
        _problem(report, history, Loc(str(path), 1, 1), "is not a cardgen history file (not a JSON object)")
        return None
    return data


def read_history(root: Path, report: Report) -> History:
    """The history file of the game folder `root` (an empty one when there is none)."""
    from cardgen.core.paths import read_regular

    path = Path(root) / FILE
    history = History(path)
    if not path.exists() and not path.is_symlink():
        return history
    history.exists = True
    here = Loc(str(path))
    if path.is_symlink():
        return _problem(report, history, here, "is a link; cardgen keeps its history in a file of the game folder "
                                               "itself: replace the link with the file")
    try:
        size = path.stat().st_size
    except OSError as exc:
        return _problem(report, history, here, f"cannot be read: {exc.strerror or exc}")
    if size > limits.MAX_HISTORY_BYTES:
        return _problem(report, history, here, f"is larger than {limits.MAX_HISTORY_BYTES} bytes "
                                               f"(CARDGEN_MAX_HISTORY_BYTES)")
    try:
        raw = read_regular(path)
    except OSError as exc:
        return _problem(report, history, here, f"cannot be read: {exc.strerror or exc}")
    data = _parsed(raw, path, report, history)
    if data is None:
        return history
    if data.get("format") != FORMAT or isinstance(data.get("format"), bool):
        loc = data.value_loc("format") if "format" in data else data.loc
        return _problem(report, history, loc, f"has format {data.get('format')!r}, not {FORMAT}: it was written by "
                                              f"another version of cardgen")
    for name, value in data.items():
        if name in ("format", "about"):
            continue
        if not isinstance(value, YDict):
            return _problem(report, history, data.value_loc(name), f"section `{name}` is not a mapping")
        for group, records in value.items():
            if not isinstance(records, list) or not all(isinstance(r, YDict) for r in records):
                return _problem(report, history, value.value_loc(group),
                                f"`{name}`: `{group}` is not a list of records")
        history.sections[str(name)] = value
    return history


def bad_record(report: Report, history: History, loc: Loc, what: str) -> None:
    """A record a section's owner cannot use: a warning, and the file is not written over."""
    _problem(report, history, loc, what)


def dumps(sections: Mapping[str, Mapping[str, Sequence[Mapping[str, Any]]]]) -> str:
    """The file's text: deterministic, one record a line."""
    out = ["{", f' "about": {json.dumps(ABOUT)},', f' "format": {FORMAT}']
    for name in sorted(sections):
        out[-1] += ","
        groups = sections[name]
        if not groups:
            out.append(f" {json.dumps(name)}: {{}}")
            continue
        out.append(f" {json.dumps(name)}: {{")
        keys = sorted(groups)
        for i, group in enumerate(keys):
            records = groups[group]
            tail = "," if i < len(keys) - 1 else ""
            if not records:
                out.append(f"  {json.dumps(group, ensure_ascii=False)}: []{tail}")
                continue
            out.append(f"  {json.dumps(group, ensure_ascii=False)}: [")
            for j, rec in enumerate(records):
                line = json.dumps(dict(rec), ensure_ascii=False, separators=(", ", ": "))
                out.append(f"   {line}{',' if j < len(records) - 1 else ''}")
            out.append(f"  ]{tail}")
        out.append(" }")
    out.append("}")
    return "\n".join(out) + "\n"


def update(history: History, name: str, groups: Mapping[str, Sequence[Mapping[str, Any]]]) -> bool:
    """Put section `name` (groups of records) into the history file, the other sections kept
    as they are; written (atomically) only when its bytes change and the file may be written.
    True when written; OSError when it cannot be."""
    if not history.writable:
        return False
    sections: dict[str, Any] = {k: _plain(v) for k, v in history.sections.items()}
    sections[name] = groups
    text = dumps(sections)
    try:
        if history.path.read_text(encoding="utf-8") == text:
            return False
    except (OSError, UnicodeDecodeError):
        pass
    from cardgen.core import atomic

    atomic.write_text(history.path, text)
    _written[str(history.path.resolve())] = text
    history.sections = sections
    history.exists = True
    return True


_written: dict[str, str] = {}        # what this process wrote into each history file


def ours(path: Path) -> bool:
    """Whether `path` is a history file holding just what this process wrote into it (a
    watcher's cue that the change is the build's own, not the designer's)."""
    path = Path(path)
    if path.name != FILE:
        return False
    mine = _written.get(str(path.resolve()))
    try:
        return mine is not None and path.read_text(encoding="utf-8") == mine
    except (OSError, UnicodeDecodeError):
        return False


def _plain(value: Any) -> Any:
    """Loaded data as plain dicts and lists (what `dumps` writes), order kept."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
