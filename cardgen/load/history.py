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
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from cardgen.core import limits
from cardgen.core.errors import CardgenError, Loc, Report
from cardgen.core.located import YDict, YList, loc_of

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
        parsed = json.loads(text)                   # JSON's own message for a JSON file
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
    as_written = _as_written(parsed, text, str(path))
    if as_written is not None:
        return as_written
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


# what the YAML reader may not read as JSON does: anything but tab, CR, LF and the printable
# characters of libyaml's reader, less the byte order mark and YAML's other line breaks (NEL,
# LS, PS: a line break inside a quoted string is folded); in ASCII text, the control
# characters but tab, CR and LF, and DEL (the same: compiling the whole class costs 5 ms, so
# it is compiled only for a file that is not all ASCII)
_NOT_YAML_ASCII = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


@cache
def _not_yaml() -> re.Pattern[str]:
    return re.compile("[^\t\n\r\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd"
                      "\U00010000-\U0010ffff]")


def _yaml_refuses(text: str) -> bool:
    """Whether `text` has a character the YAML reader refuses or reads otherwise than JSON."""
    return (_NOT_YAML_ASCII if text.isascii() else _not_yaml()).search(text) is not None


class _Places:
    """The places of the values of a history file that `_as_written` read with `json`: worked
    out by the YAML loader (JSON is YAML) the first time one is asked for, which a file with
    no problem never does."""

    def __init__(self, text: str, filename: str) -> None:
        self.text, self.filename = text, filename
        self.root: Any = None

    def fill(self) -> None:
        from cardgen.load.yamlsrc import load_text

        try:
            located = load_text(self.text, self.filename)
        except CardgenError:        # (not for a file as cardgen writes it: its places are the file's)
            located = None
        pairs: list[tuple[Any, Any]] = [(self.root, located)]
        while pairs:
            ours, there = pairs.pop()
            del ours._places
            if isinstance(ours, YDict):
                ours.loc = there.loc if there is not None else Loc(self.filename)
                ours.key_locs, ours.value_locs = (there.key_locs, there.value_locs) if there is not None else ({}, {})
                pairs += [(v, there[k] if there is not None else None) for k, v in ours.items()
                          if isinstance(v, (dict, list))]
            else:
                ours.loc = there.loc if there is not None else Loc(self.filename)
                ours.item_locs = there.item_locs if there is not None else []
                pairs += [(v, there[i] if there is not None else None) for i, v in enumerate(ours)
                          if isinstance(v, (dict, list))]


class _ReadDict(YDict):
    """A mapping of a history file read by `json`: its places come when first asked for."""

    _places: _Places

    def __getattr__(self, name: str) -> Any:
        places = self.__dict__.get("_places")
        if places is None or name not in ("loc", "key_locs", "value_locs", "item_locs"):
            raise AttributeError(name)
        places.fill()
        return object.__getattribute__(self, name)


class _ReadList(YList):
    """A list of a history file read by `json` (`_ReadDict`)."""

    _places: _Places
    __getattr__ = _ReadDict.__getattr__


def _as_written(data: Any, text: str, filename: str) -> YDict | None:
    """`data` (the file's JSON) as located mappings and lists whose places are worked out when
    first asked for, if `text` is the file as cardgen writes it (`dumps`: the same bytes for
    the same records) and within the YAML loader's limits; None for any other file (edited by
    hand, merged, another version's), which the YAML loader reads as before.  Reading the
    file twice (JSON for its message, YAML for every value's place) was most of a 500-card
    game's history (55 of 60 ms).  Not a file with a backslash escape, a character the YAML
    reader refuses (a C1 control character, a byte order mark) or a number JSON reads
    otherwise than YAML (NaN, Infinity): the YAML loader says what it says of them."""
    if not isinstance(data, dict) or "\\" in text or _yaml_refuses(text):
        return None
    sections = {k: v for k, v in data.items() if k not in ("about", "format")}
    if not all(isinstance(g, dict) and all(isinstance(r, list) and all(isinstance(x, dict) for x in r)
                                           for r in g.values()) for g in sections.values()):
        return None
    try:
        if dumps(sections) != text:
            return None
    except (TypeError, ValueError):
        return None
    places = _Places(text, filename)
    nodes = 0
    root: Any = None
    stack: list[tuple[Any, Any, Any, int]] = [(data, None, None, 1)]    # (value, parent, key, depth)
    while stack:
        value, parent, key, depth = stack.pop()
        if isinstance(value, (dict, list)):
            nodes += 1
            if depth > limits.MAX_YAML_DEPTH:
                return None
            made: Any = _ReadDict.fromkeys(value) if isinstance(value, dict) else _ReadList([None] * len(value))
            made._places = places
            children = value.items() if isinstance(value, dict) else enumerate(value)
            stack += [(v, made, k, depth + 1) for k, v in children]
        else:
            nodes += 1
            if isinstance(value, int) and not isinstance(value, bool) and len(str(abs(value))) > limits.MAX_INT_DIGITS:
                return None
            if isinstance(value, float) and not math.isfinite(value):
                return None
            made = value
        if parent is None:
            root = made
        else:
            parent[key] = made
        if nodes > limits.MAX_YAML_NODES:
            return None
    places.root = root
    return root


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
                line = _record(dict(rec))
                out.append(f"   {line}{',' if j < len(records) - 1 else ''}")
            out.append(f"  ]{tail}")
        out.append(" }")
    out.append("}")
    return "\n".join(out) + "\n"


# (`json.dumps(record, ensure_ascii=False, separators=(", ", ": "))`, its encoder made once, not a record)
_record = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": ")).encode


def update(history: History, name: str, groups: Mapping[str, Sequence[Mapping[str, Any]]]) -> bool:
    """Put section `name` (groups of records) into the history file, the other sections kept
    as they are; written (atomically) only when its bytes change and the file may be written.
    True when written; OSError when it cannot be."""
    if not history.writable:
        return False
    sections: dict[str, Any] = {k: _plain(v) for k, v in history.sections.items() if k != name}
    sections[name] = groups         # (the section replaced is not copied first: 2,000 records at 2,000 cards)
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
