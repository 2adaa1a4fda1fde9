"""gettext PO files, as `cardgen i18n export` writes them and `cardgen i18n import` reads them
back (docs/languages.md): the subset translators' tools (Poedit, Weblate, Crowdin, Lokalize,
OmegaT) read and write, every problem of a file a located error.

Written deterministically (the same entries, the same bytes): a header entry, then per entry
its `#:` reference, its `#,` flags, `msgctxt`, `msgid` and `msgstr`; a text with line breaks
is split after each `\\n`, as msgmerge does.  Read: comments (`#`, `#.`, `#:`, `#,`, `#|`),
`msgctxt`, `msgid`, `msgstr` and continuation strings; plural forms and obsolete entries
(`#~`) are not used by cardgen and are said as such.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from cardgen.core.errors import CardgenError, Diagnostic, Loc

_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}
_UNESCAPES = {"\\": "\\", '"': '"', "n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}
_KEYWORD = re.compile(r"(msgctxt|msgid|msgstr|msgid_plural|msgstr\[\d+\])\s+(\".*)$")


@dataclass
class Entry:
    """One entry of a gettext PO file."""

    msgid: str
    msgstr: str = ""
    msgctxt: str | None = None
    references: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)     # translator comments (`# ...`), kept as read
    line: int = 0                                           # where the entry starts (reading)

    @property
    def fuzzy(self) -> bool:
        return "fuzzy" in self.flags


def _quoted(text: str) -> str:
    return '"' + "".join(_ESCAPES.get(ch, ch) for ch in text) + '"'


def _field(keyword: str, text: str) -> list[str]:
    if "\n" not in text.rstrip("\n") or text == "":
        return [f"{keyword} {_quoted(text)}"]
    parts = [p for p in re.split(r"(?<=\n)", text) if p]
    return [f'{keyword} ""', *(_quoted(p) for p in parts)]


def dumps(header: dict[str, str], entries: list[Entry], title: str) -> str:
    """A PO file: `title` as its first comment, `header` (name: value, in order) and the entries."""
    out = [f"# {title}", 'msgid ""', 'msgstr ""', *(_quoted(f"{k}: {v}\n") for k, v in header.items())]
    for e in entries:
        out.append("")
        out += [f"# {c}" if c else "#" for c in e.comments]
        out += [f"#: {r}" for r in e.references]
        if e.flags:
            out.append("#, " + ", ".join(e.flags))
        if e.msgctxt is not None:
            out += _field("msgctxt", e.msgctxt)
        out += _field("msgid", e.msgid)
        out += _field("msgstr", e.msgstr)
    return "\n".join(out) + "\n"


def _unquote(text: str, loc: Loc) -> str:
    """The value of a PO string `"..."` (what follows a keyword, or a continuation line)."""
    text = text.strip()
    if len(text) < 2 or not text.startswith('"') or not text.endswith('"'):
        raise CardgenError(loc, "a PO string must be in double quotes on one line, such as \"Dig a hole.\"",
                           code="po")
    body, out, i = text[1:-1], [], 0
    while i < len(body):
        ch = body[i]
        if ch == '"':
            raise CardgenError(Loc(loc.file, loc.line, loc.col + i + 1), "a double quote inside a PO string must "
                                                                          "be written \\\"", code="po")
        if ch == "\\":
            nxt = body[i + 1] if i + 1 < len(body) else ""
            if nxt not in _UNESCAPES:
                raise CardgenError(Loc(loc.file, loc.line, loc.col + i + 1), f"unknown escape \\{nxt} in a PO "
                                                                              f"string", code="po")
            out.append(_UNESCAPES[nxt])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


class _Reader:
    def __init__(self, path: str) -> None:
        self.path = path
        self.entries: list[Entry] = []
        self.problems: list[Diagnostic] = []
        self.cur: dict[str, list[str]] = {}
        self.comments: tuple[list[str], list[str], list[str]] = ([], [], [])
        self.start = 0
        self.last: str | None = None        # the keyword continuation strings add to

    def finish(self, line: int) -> None:
        if not self.cur:
            if any(self.comments):
                self.comments = ([], [], [])
            return
        if "msgid" not in self.cur:
            self.problems.append(Diagnostic(Loc(self.path, self.start, 1), "this PO entry has no msgid", "error",
                                            "po"))
        elif "msgstr" not in self.cur:
            self.problems.append(Diagnostic(Loc(self.path, self.start, 1), "this PO entry has no msgstr", "error",
                                            "po"))
        else:
            refs, flags, comments = self.comments
            ctx = "".join(self.cur["msgctxt"]) if "msgctxt" in self.cur else None
            self.entries.append(Entry("".join(self.cur["msgid"]), "".join(self.cur["msgstr"]), ctx, refs, flags,
                                      comments, self.start))
        self.cur, self.comments, self.last = {}, ([], [], []), None

    def comment(self, text: str, n: int) -> None:
        if self.cur:
            self.finish(n)
        refs, flags, comments = self.comments
        if text.startswith("#:"):
            refs += text[2:].split()
        elif text.startswith("#,"):
            flags += [f.strip() for f in text[2:].split(",") if f.strip()]
        elif text.startswith("#~"):
            self.problems.append(Diagnostic(Loc(self.path, n, 1), "an obsolete entry (#~) is not read; delete it "
                                                                  "or make it a live entry", "warning", "po"))
        elif not text.startswith(("#.", "#|")):
            comments.append(text[1:].removeprefix(" "))
        if not self.cur:
            self.start = n

    def keyword(self, word: str, rest: str, n: int, col: int) -> None:
        if word.startswith(("msgid_plural", "msgstr[")):
            raise CardgenError(Loc(self.path, n, 1), "plural forms are not used by cardgen: a card's text is one "
                                                     "string; write msgid and msgstr", code="po")
        if word in self.cur or (word in ("msgctxt", "msgid") and "msgstr" in self.cur):
            self.finish(n)
        if not self.cur and not any(self.comments):
            self.start = n
        elif not self.cur:
            self.start = self.start or n
        self.cur[word] = [_unquote(rest, Loc(self.path, n, col))]
        self.last = word


def loads(text: str, path: str) -> tuple[list[Entry], dict[str, str], list[Diagnostic]]:
    """The entries of a PO file (its header entry apart, as name -> value) and its warnings;
    a broken file raises CardgenError, at its line."""
    reader = _Reader(path)
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            reader.finish(n)
            continue
        if line.startswith("#"):
            reader.comment(line, n)
            continue
        if line.startswith('"'):
            if reader.last is None:
                raise CardgenError(Loc(path, n, 1), "a string with no msgid, msgstr or msgctxt before it",
                                   code="po")
            reader.cur[reader.last].append(_unquote(line, Loc(path, n, raw.index('"') + 1)))
            continue
        m = _KEYWORD.match(line)
        if m is None:
            word = line.split()[0] if line.split() else line
            raise CardgenError(Loc(path, n, 1), f"'{word[:40]}' is not a PO keyword (msgctxt, msgid, msgstr) "
                                                f"or a comment", code="po")
        reader.keyword(m[1], m[2], n, raw.index(m[2]) + 1)
    reader.finish(len(text.splitlines()) + 1)
    errors = [d for d in reader.problems if d.severity == "error"]
    if errors:
        raise CardgenError(None, diagnostics=errors)
    header: dict[str, str] = {}
    entries = reader.entries
    if entries and entries[0].msgid == "" and entries[0].msgctxt is None:
        for line in entries[0].msgstr.splitlines():
            name, sep, value = line.partition(":")
            if sep:
                header[name.strip()] = value.strip()
        entries = entries[1:]
    return entries, header, reader.problems
