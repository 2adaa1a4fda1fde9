"""What a Squib script (`deck.rb`) says of its layout entries, for `cardgen import squib --script`:
which drawing call uses each entry (`text`, `rect`, `svg`, `png`), in what order, the column or
words a text prints, an image's file, the call's literal arguments, the cards a `range:` picks
(its two usual forms), a text's embedded icons, `build` variants.  Read, never run: a call is
found by its method word at the start of a line, its arguments over the lines that continue it;
a loop over a literal list is read turn by turn, a variable set once to a literal is read as
that literal, and what else the script works out is left for the import to say."""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypeVar

from cardgen.core.errors import CardgenError, Loc
from cardgen.core.paths import TooLarge, read_regular

MAX_SCRIPT_BYTES = 1_000_000
MAX_CALL_LINES = 50              # a call's arguments, over lines
MAX_CALLS = 5000
T = TypeVar("T")
# Squib's drawing methods that take a layout, and the cardgen element each makes.
DRAWS = {"text": "text", "rect": "rect", "svg": "image", "png": "image", "circle": "ellipse",
         "ellipse": "ellipse", "line": "line", "triangle": "polygon", "star": "polygon", "polygon": "polygon"}
_CALL = re.compile(r"^[ \t]*(" + "|".join(DRAWS) + r"|background)\b(?![ \t]*(?:=|\.|\[))", re.M)
_LAYOUT = re.compile(r"\blayout:\s*(?:'([\w -]+)'|\"([\w -]+)\"|:(\w+))")
_DYNAMIC = re.compile(r"\blayout:\s*\"([^\"\n]*#\{[^\"\n]*)\"")
_STR = re.compile(r"\bstr:\s*\w+(?:\[\s*['\"]([^'\"]+)['\"]\s*\]|\.([A-Za-z_]\w*))\s*(?:[,)\n]|$)")
_STR_LITERAL = re.compile(r"\bstr:\s*(?:'([^'\\\n]*)'|\"([^\"\\#\n]*)\")\s*(?:[,)\n]|$)")
_LOOP_STR = re.compile(r"\bstr:\s*\w+\[\s*(\w+)\s*\]\s*(?:[,)\n]|$)")
LOOP = "\0loop"          # a Use's column: the part of the entry's name the loop's variable gives
# arguments a call may give over its layout entry (range: is said apart: it picks cards)
ARG_KEYS = ("x", "y", "width", "height", "angle", "color", "fill_color", "stroke_color", "stroke_width", "radius",
            "dash", "font", "font_size", "align", "valign", "ellipsize", "justify", "alpha", "range")
_ARG = re.compile(r"(?<![\w.])(" + "|".join(ARG_KEYS) + r"):\s*([^,\n)]+(?:\([^)\n]*\))?[^,\n)]*)")


@dataclass
class Use:
    """One drawing call of an entry: the element kind it makes, the column a text prints (None
    when the script computes it) and the call's line; `pattern`: the entry names a computed
    `layout: "#{res.downcase}_rect"` can make (`\\w+_rect`), for such a call."""

    kind: str
    column: str | None
    line: int
    pattern: re.Pattern | None = None
    written: str = ""           # the computed layout name as the script writes it
    args: dict[str, object] = field(default_factory=dict)      # literal arguments, over the layout's
    worked_out: list[str] = field(default_factory=list)        # arguments the script works out (not read)
    why: dict[str, str] = field(default_factory=dict)          # ... and why, where it can say
    file: str | None = None     # an image's file: literal, or with "\0" where the column's value goes
    file_column: str | None = None
    only_with_file: bool = False    # `... unless x.nil?`: drawn only on cards that have the column
    having: str | None = None   # `range:` read as the cards whose column this is not empty (or LOOP)
    literal: str | None = None  # a text's `str: 'words'`, the same on every card
    build: str | None = None    # the `build :name do ... end` block the call is in (a variant)
    order: tuple[int, int, int] = (0, 0, 0)     # when Squib draws it: (line, or a loop's line, its turn, line)
    embeds: list[tuple[str, str]] = field(default_factory=list)     # a text's `embed.svg key:, file:` (literal)


@dataclass
class Script:
    """A Squib script as read: the calls it makes and its background."""

    path: Path
    calls: list[tuple[str, Use]] = field(default_factory=list)     # (entry name, or "" for a pattern)
    background: object = None               # a literal `background color:`
    background_line: int = 0                # a `background` call (its colour literal or not)
    background_why: str = ""
    deck: tuple[str, str, int] | None = None    # Squib::Deck.new's literal width and height, and its line

    def uses(self, key: str) -> list[Use]:
        """The calls that draw entry `key`, in the script's order: those naming it, and those
        whose computed name can be it (a text of `str: data[res]` in a call whose layout name is
        `"#{res.downcase}_amt"` prints, for `wood_amt`, the column `wood`)."""
        out = []
        for k, u in self.calls:
            m = u.pattern.fullmatch(key) if u.pattern is not None else None
            if k == key or m is not None:
                part = m.group(1) if m is not None else None
                out.append(replace(u, column=part if u.column == LOOP else u.column,
                                   having=part if u.having == LOOP else u.having))
        return out


def _statement(text: str, start: int, cut: bool = True) -> str:
    """The call starting at `start`: its line and the lines that continue it (after a trailing
    comma, or inside open parentheses; at most MAX_CALL_LINES), cut where a `do |...|` block
    starts."""
    lines, depth, pos = [], 0, start
    for _ in range(MAX_CALL_LINES):
        end = text.find("\n", pos)
        line = text[pos:] if end < 0 else text[pos:end]
        lines.append(line)
        depth += line.count("(") - line.count(")")
        if end < 0 or (depth <= 0 and not line.rstrip().endswith((",", "\\"))):
            break
        pos = end + 1
    out = "\n".join(lines) + "\n"
    block = re.search(r"\bdo\b\s*(\|[^|]*\|)?\s*$", out, re.M) if cut else None
    return out[:block.start()] if block else out


# a literal: 'text' (never interpolated in Ruby), "text" without #{...}, :symbol, a number
_LITERAL = r"'([^'\n]*)'|\"((?:[^\"#\n]|#(?!\{))*)\"|:(\w+)|(-?\d+(?:\.\d+)?)"
_ASSIGN = re.compile(r"(?m)^[ \t]*([a-z_]\w*)[ \t]*=[ \t]*(?:" + _LITERAL + r")[ \t]*(?:(?:if|unless)\b.*)?(?:#.*)?$")


def _literal(m: re.Match, at: int = 1) -> object:
    """The value of a `_LITERAL` match whose groups start at `at`."""
    text, double, symbol, number = m.group(at, at + 1, at + 2, at + 3)
    if number is not None:
        return float(number) if "." in number else int(number)
    return next(g for g in (text, double, symbol) if g is not None)


def _variables(text: str) -> dict[str, list[tuple[object, int]]]:
    """Each variable the script sets to a literal (`bg = '#fff'`): its values and their lines."""
    out: dict[str, list[tuple[object, int]]] = {}
    for m in _ASSIGN.finditer(text):
        out.setdefault(m.group(1), []).append((_literal(m, 2), text.count("\n", 0, m.start()) + 1))
    return out


def _args(call: str, use: Use, variables: dict[str, list[tuple[object, int]]]) -> None:
    """The call's arguments that a layout entry also gives: literal ones (numbers, strings
    without #{}, :symbols, a variable set once to one) go over the layout's; others are what the
    script works out (a variable set more ways than one: its lines said)."""
    for m in _ARG.finditer(call):
        key, value = m.group(1), m.group(2).strip()
        lit = re.fullmatch(_LITERAL, value)
        if lit is not None:
            use.args[key] = _literal(lit)
            continue
        ways = variables.get(value, [])
        if len(ways) == 1:
            use.args[key] = ways[0][0]
            continue
        use.worked_out.append(key)
        if ways:
            lines = ", ".join(str(line) for _, line in ways)
            use.why[key] = f"{value} is set {len(ways)} ways, on lines {lines}"


def _file(call: str, use: Use) -> None:
    """An image call's `file:`: a literal, `data['Col']`, or `data['Col'].map { |a| "art_#{a}.svg" }`."""
    lit = re.search(r"\bfile:\s*(?:'([^'#]+)'|\"([^\"#]+)\")", call)
    if lit is not None:
        use.file = next(g for g in lit.groups() if g)
        return
    col = r"\w+(?:\[\s*['\"]([^'\"]+)['\"]\s*\]|\.([A-Za-z_]\w*))"
    m = re.search(r"\bfile:\s*" + col + r"(?:\.map\s*\{\s*\|(\w+)\|\s*\"([^\"]*)\"\s*(unless\s+\3\.nil\?)?\s*\})?"
                  r"\s*(?:[,)\n]|$)", call)
    if m is None:
        return
    form = "\0"
    if m.group(4) is not None:
        holes = re.findall(r"#\{([^}]*)\}", m.group(4))
        if any(h.strip() != m.group(3) for h in holes):
            return                                  # something else worked out: not read
        form = re.sub(r"#\{[^}]*\}", "\0", m.group(4))
    use.file, use.file_column, use.only_with_file = form, m.group(1) or m.group(2), m.group(5) is not None


_COL = r"data(?:\[\s*['\"]([^'\"]+)['\"]\s*\]|\[\s*(\w+)\s*\]|\.([A-Za-z_]\w*))"
# the two ways Squib scripts pick the cards that have a column: its indexes where it is not nil,
# and the card numbers less those where it is empty
_HAVING = (re.compile(r"\brange:\s*" + _COL + r"\.each\.with_index\.map\s*\{\s*\|(\w+),\s*(\w+)\|\s*\4\.nil\?\s*"
                      r"\?\s*nil\s*:\s*\5\s*\}\.compact\s*(?:[,)\n]|$)"),
           re.compile(r"\brange:\s*\(\s*0\s*\.\.\.?[^)\n]*\)\.reject\s*\{\s*\|(\w+)\|\s*"
                      + _COL + r"\[\s*\1\s*\]"
                      r"(?:\.to_s)?\.(?:empty|nil)\?\s*\}\s*(?:[,)\n]|$)"))


def _having(call: str, loop_var: str | None) -> str | None:
    """The column a call's `range:` picks the cards by, for the two idioms `_HAVING` reads (LOOP
    when it is the loop's variable of a computed layout name); None for any other range."""
    for rx in _HAVING:
        m = rx.search(call)
        if m is not None:
            named, var, attr = (m.group(1), m.group(2), m.group(3)) if rx is _HAVING[0] else m.group(2, 3, 4)
            if var is not None:
                return LOOP if var == loop_var else None
            return named or attr
    return None


def _blocks(text: str, opens: Callable[[str, int], tuple[int, T] | None]) -> dict[int, T]:
    """Line -> what `opens` says of the innermost Ruby block the line is in, in one pass:
    `opens(line, number)` gives (the block's indent, its value) for a line that opens one, else
    None; a block ends at the first `end` indented no deeper than the line that opened it."""
    out: dict[int, T] = {}
    stack: list[tuple[int, T]] = []
    for i, line in enumerate(text.split("\n"), 1):
        indent = len(line) - len(line.lstrip())
        if stack and line.strip().startswith("end") and indent <= stack[-1][0]:
            stack.pop()
            continue
        if stack:
            out[i] = stack[-1][1]
        opened = opens(line, i)
        if opened is not None:
            stack.append(opened)
    return out


def _builds(text: str) -> dict[int, str]:
    """Line -> the `build :name do` block it is in."""
    def opens(line: str, _: int) -> tuple[int, str] | None:
        m = re.match(r"([ \t]*)build\s*\(?\s*:(\w+)\s*\)?\s*do\b", line)
        return (len(m.group(1)), m.group(2)) if m is not None else None

    return _blocks(text, opens)


def read(path: Path) -> Script:
    try:
        raw = read_regular(path, MAX_SCRIPT_BYTES)
    except TooLarge as exc:
        raise CardgenError(Loc(str(path)), f"this file is {exc.strerror}; not a Squib script") from None
    except OSError as exc:
        raise CardgenError(Loc(str(path)), f"cannot read: {exc.strerror or exc}") from None
    text = raw.decode("utf-8", errors="replace")
    text = re.sub(r"(?m)^[ \t]*#.*$", "", text)           # comment lines (the same number of lines)
    script = Script(path)
    new = re.search(r"Squib::Deck\.new\b", text)
    if new is not None:
        head = _statement(text, new.end())
        w, h = (re.search(rf"\b{k}:\s*(?:'([^'#]+)'|\"([^\"#]+)\"|(\d+(?:\.\d+)?)\b)", head)
                for k in ("width", "height"))
        if w is not None and h is not None:
            script.deck = (next(g for g in w.groups() if g), next(g for g in h.groups() if g),
                           text.count("\n", 0, new.start()) + 1)
    builds, loops, variables = _builds(text), _loops(text), _variables(text)
    lines = text.split("\n")
    line, counted = 1, 0
    for m in _CALL.finditer(text):
        call = _statement(text, m.end())
        line, counted = line + text.count("\n", counted, m.start()), m.start()
        method = m.group(1)
        if len(script.calls) >= MAX_CALLS:
            raise CardgenError(Loc(str(path), line), f"more than {MAX_CALLS} drawing calls; not a script to read")
        if method == "background":
            if not script.background_line:
                probe = Use("rect", None, line)
                _args(call, probe, variables)
                script.background_line, script.background = line, probe.args.get("color")
                script.background_why = probe.why.get("color", "")
            continue
        loop = loops.get(line)
        turns = [_subst(call, loop[1], v) for v in loop[2]] if loop and re.search(rf"\b{loop[1]}\b", call) else []
        before = len(script.calls)
        if loop is not None and turns and all(t is not None for t in turns):      # the loop's turns, one call each
            for i, turn in enumerate(turns):
                _call(script, str(turn), method, line, builds.get(line), (loop[0], i, line), variables)
        else:
            _call(script, call, method, line, builds.get(line), (line, 0, 0), variables)
        if method == "text":
            embeds = _embeds(text, m.end(), lines, line, loops)
            for _, use in script.calls[before:]:
                use.embeds = embeds
    return script


def _call(script: Script, call: str, method: str, line: int, build: str | None, order: tuple[int, int, int],
          variables: dict[str, list[tuple[object, int]]]) -> None:
    """One drawing call, read: the entry it draws (or the entries a computed name can be)."""
    s = _STR.search(call) if method == "text" else None
    use = Use(DRAWS[method], next((g for g in s.groups() if g), None) if s is not None else None, line)
    use.build, use.order = build, order
    lit = _STR_LITERAL.search(call) if method == "text" else None
    if lit is not None:
        use.literal = next(g for g in lit.groups() if g is not None)
    _args(call, use, variables)
    if use.kind == "image":
        _file(call, use)
    lay, dyn = _LAYOUT.search(call), _DYNAMIC.search(call)
    if lay is not None:
        use.having = _having(call, None)
        script.calls.append((next(g for g in lay.groups() if g), use))
    elif dyn is not None:
        holes = re.findall(r"#\{\s*(\w+)[^}]*\}", dyn.group(1))
        parts = re.split(r"#\{[^}]*\}", dyn.group(1))
        loop = _LOOP_STR.search(call) if method == "text" else None
        by_var = len(holes) == 1 and loop is not None and loop.group(1) == holes[0]
        use.pattern = re.compile(r"(\w+)".join(re.escape(p) for p in parts))
        use.written, use.column = dyn.group(1), LOOP if by_var else use.column
        use.having = _having(call, holes[0] if len(holes) == 1 else None)
        script.calls.append(("", use))


_LOOP = re.compile(r"([ \t]*)(?:%w[(\[]([^)\]\n]*)[)\]]|\[((?:\s*'[\w -]*'\s*,?)+)\])\.each\s+do\s*\|\s*(\w+)\s*\|")
MAX_TURNS = 20


def _loops(text: str) -> dict[int, tuple[int, str, list[str]]]:
    """Line -> the loop over a literal list it is in (`%w(Wood Steel).each do |res|`, `['a',
    'b'].each do |x|`): the loop's line, its variable and its values (at most MAX_TURNS)."""
    def opens(line: str, i: int) -> tuple[int, tuple[int, str, list[str]]] | None:
        m = _LOOP.match(line)
        if m is None:
            return None
        values = m.group(2).split() if m.group(2) is not None else re.findall(r"'([\w -]*)'", m.group(3))
        return (len(m.group(1)), (i, m.group(4), values)) if 0 < len(values) <= MAX_TURNS else None

    return _blocks(text, opens)


def _subst(call: str, var: str, value: str) -> str | None:
    """The call as one turn of the loop draws it: `#{res.downcase}` and `data[res]` with the turn's
    value; None where the variable is used in a way this does not read."""
    forms = {".downcase": value.lower(), ".upcase": value.upper(), ".capitalize": value.capitalize(), "": value}
    call = re.sub(r"#\{\s*" + re.escape(var) + r"(\.downcase|\.upcase|\.capitalize)?\s*\}",
                  lambda m: forms[m.group(1) or ""], call)
    if re.search(r"#\{[^}]*\b" + re.escape(var) + r"\b", call):
        return None
    return re.sub(r"(?<![\w.:@$'\"])" + re.escape(var) + r"\b(?![(:])", f"'{value}'", call)


def _embeds(text: str, start: int, lines: list[str], line: int,
            loops: dict[int, tuple[int, str, list[str]]]) -> list[tuple[str, str]]:
    """A text call's `do |embed| ... end` block: its `embed.svg key: 'Wood', file: '...'` (or
    png) lines, a loop over a literal list inside read once per turn; (key, file as written)."""
    whole = _statement(text, start, cut=False).rstrip("\n")
    block = re.search(r"\bdo\s*\|\s*(\w+)\s*\|\s*$", whole)
    if block is None:
        return []
    indent = len(lines[line - 1]) - len(lines[line - 1].lstrip())
    out: list[tuple[str, str]] = []
    for n in range(line + whole.count("\n"), min(len(lines), line + 200)):       # (n: the next line's index)
        body = lines[n]
        if body.strip().startswith("end") and len(body) - len(body.lstrip()) <= indent:
            break
        if not re.match(rf"\s*{block.group(1)}\.(svg|png)\b", body):
            continue
        loop = loops.get(n + 1)
        turns = [_subst(body, loop[1], v) for v in loop[2]] if loop and re.search(rf"\b{loop[1]}\b", body) else [body]
        for turn in turns:
            key = re.search(r"\bkey:\s*(?:'([^'\n]+)'|\"([^\"#\n]+)\")", turn or "")
            file = re.search(r"\bfile:\s*(?:'([^'\n]+)'|\"([^\"\n]+)\")", turn or "")
            if key is not None and file is not None:
                out.append((next(g for g in key.groups() if g), next(g for g in file.groups() if g)))
    return out
