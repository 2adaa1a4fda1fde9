"""Layout templates: `templates/**/*.yaml`, referenced by path without extension.

A template is an ordered list of named elements.  `extends:` another template
inherits its elements; an element of the same name overrides the parent's keys in
place, a new name is added at the end (or `before:`/`after:` a named element), and
`remove:` drops inherited elements.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from cardgen.core.errors import CardgenError, Diagnostic, Loc
from cardgen.core.paths import PathRefused, files_under
from cardgen.elements import ELEMENTS
from cardgen.layout import expr
from cardgen.layout.placement import COORDINATES, Links, links, overridden
from cardgen.load import refs
from cardgen.load.translations import localize, scan
from cardgen.load.yamlsrc import YDict, YList, load_file
from cardgen.schema.core import Anything, Choice, Decl, ListOf, MapOf, Text, is_expression, opt, suggest

MAX_ELEMENTS = 1000        # elements of one template, those it inherits included
MAX_EXTENDS = 100          # templates in one chain of `extends:`


@dataclass(frozen=True, kw_only=True)
class TemplateFile(Decl):
    """A layout template file; its `elements:` are declared by `cardgen.elements`."""

    __what__: ClassVar[str] = "template"
    __doc_title__: ClassVar[str] = "cardgen layout template"

    extends: str = opt(Text(nonempty=True), "another template to start from, e.g. base/poker", "",
                       default_doc="none")
    description: str = opt(Text(), "what the template is for", "", default_doc="none")
    defaults: dict = opt(MapOf(Anything(), "field"), "field values a card gets when it does not set them", None,
                         default_doc="none")
    computed: dict = opt(MapOf(Anything(), "name"), "named values worked out once per card from its fields, in "
                         "order (`{prereq: \"{{ card.cost > 2 and card.type == 'Spell' }}\"}`), read as "
                         "`card.NAME` like a field (docs/templates.md)", None, default_doc="none")
    elements: tuple = opt(ListOf(Anything(), max_items=MAX_ELEMENTS), "the ordered list of elements to draw", (),
                          default_doc="none")
    origin: str = opt(Choice(("trim", "bleed")), "where this file's elements measure x and y (and a line's x2, "
                      "y2) from: the trim's top-left corner, or the bleed's (as Squib and most card tools measure: "
                      "their layouts port unchanged)", "trim")
    remove: tuple = opt(ListOf(Text()), "names of inherited elements to drop", (), default_doc="none")


ELEMENT_TYPES = tuple(ELEMENTS)


@dataclass
class Template:
    """A template, merged with those it extends."""

    ref: str
    file: Path
    elements: list[YDict]           # merged elements in drawing order
    defaults: dict = field(default_factory=dict)
    chain: list[Path] = field(default_factory=list)   # this file and its ancestors
    computed: dict = field(default_factory=dict)       # name -> (expression, its place), in order
    # element name -> its coordinates written in a file with `origin: bleed` (`layout.placement`)
    bleed_origin: dict[str, frozenset[str]] = field(default_factory=dict)
    links: Links | None = None      # what places what (`layout.placement.links`)

    def element(self, name: str) -> YDict | None:
        for e in self.elements:
            if e.get("name") == name:
                return e
        return None


def _merge(parent: YDict, child: YDict) -> YDict:
    out = YDict(parent)
    for key in overridden(parent, child):       # (the parent's placement the child's replaces)
        del out[key]
    out.loc = child.loc
    out.key_locs = dict(getattr(parent, "key_locs", {}))
    out.value_locs = dict(getattr(parent, "value_locs", {}))
    for k, v in child.items():
        out[k] = v
        out.key_locs[k] = child.key_loc(k)
        out.value_locs[k] = child.value_loc(k)
    return out


def _computed(data: YDict, parent: Template | None) -> dict:
    """A template's `computed:` after its parent's: name -> (expression, its place)."""
    computed = dict(parent.computed) if parent is not None else {}
    own = data.get("computed")
    if own is None:
        return computed
    if not isinstance(own, YDict):
        raise CardgenError(data.value_loc("computed"), "`computed:` must be a mapping of name: expression")
    for k, v in own.items():
        computed[str(k)] = (v, own.value_loc(k))
    return computed


def computed_for(tpl: Template | None, deck_data: Mapping | None) -> dict:
    """The `computed:` values a deck's cards get with `tpl` (None: the deck's alone): the
    template's, then the deck file's (a name in both: the deck's); name -> (expression, its
    place).  A deck's `computed:` that is not a mapping is reported by the deck's checks."""
    base = tpl.computed if tpl is not None else {}
    own = deck_data.get("computed") if deck_data is not None else None
    if not isinstance(own, dict) or not own:
        return base
    merged = dict(base)
    for k, v in own.items():
        merged[str(k)] = (v, own.value_loc(k) if isinstance(own, YDict) else Loc("?"))
    return merged


def find_template(ref: str, dirs: list[Path], roots: Sequence[Path] | None = None) -> Path | None:
    """The template file `ref` names; PathRefused when it leaves the allowed folders (with
    `roots`; without, absolute paths and `..` escapes are still refused)."""
    ref = str(ref).strip().removesuffix(".yaml")
    return refs.find(ref, dirs, roots, "template", suffixes=(".yaml",)).path


def _place(elements: list[YDict], index: dict, el: YDict, name: str) -> dict:
    """Put a template's own element `el` among the merged `elements`: `before:` or `after:` an
    element, else at the end; the index of names to places afterwards."""
    anchor = el.get("before") or el.get("after")
    if not anchor:
        index[name] = len(elements)
        elements.append(el)
        return index
    key = "before" if el.get("before") else "after"
    j = index.get(anchor) if isinstance(anchor, str) else None
    if j is None:
        raise CardgenError(el.value_loc(key), f"element '{name}': no element '{anchor}' to go {key}")
    elements.insert(j if key == "before" else j + 1, el)
    return {e.get("name"): k for k, e in enumerate(elements)}


def available(dirs: list[Path]) -> list[str]:
    out: set[str] = set()
    for d in dirs:
        if d.is_dir():
            out.update(str(p.relative_to(d).with_suffix("")) for p in files_under(d, ".yaml"))
    return sorted(out)


class TemplateBook:
    """Loads templates from the given folders (earlier folders win), caching each."""

    def __init__(self, dirs: list[Path], roots: Sequence[Path] | None = None, lang: str | None = None,
                 languages: tuple[str, ...] | None = None):
        self.dirs = dirs
        self.roots = roots
        self.lang = lang                # the language whose `FIELD@LANG` values are read (None: the source)
        self.languages = languages      # game.yaml's `languages:` (docs/languages.md)
        self._cache: dict[str, Template] = {}
        self._files: dict[str, tuple[Path, YDict]] = {}

    def get(self, ref: str, loc: Loc) -> Template:
        """The template `ref` with what it extends merged in (each template loaded once).  The
        chain is followed without recursion: loaded from the child up to a template already
        known or one that extends nothing, then merged from the top down."""
        ref = _norm(ref)
        if ref in self._cache:
            return self._cache[ref]
        chain: list[tuple[str, Path, YDict]] = []
        names: set[str] = set()
        cur, cur_loc = ref, loc
        while cur not in self._cache:
            if cur in names:
                shown = [r for r, _, _ in chain]
                raise CardgenError(cur_loc, f"templates extend each other in a loop: "
                                            f"{' -> '.join((*shown[shown.index(cur):], cur))}")
            if len(chain) > 100 * MAX_EXTENDS:
                break           # (too deep either way: said below)
            path, data = self._load(cur, cur_loc)
            chain.append((cur, path, data))
            names.add(cur)
            if "extends" not in data:
                break
            cur, cur_loc = _norm(str(data["extends"])), data.value_loc("extends")
        below = len(self._cache[cur].chain) if cur in self._cache else 0
        if len(chain) + below > MAX_EXTENDS:
            # said at the first template too high above the one that extends nothing: the same
            # line whichever template of the chain was asked for
            name, _, data = chain[max(len(chain) + below - MAX_EXTENDS - 1, 0)]
            raise CardgenError(data.value_loc("extends"), f"template {name} is more than {MAX_EXTENDS} templates "
                                                          f"up a chain of `extends:`; shorten the chain",
                               code="template-limit")
        for name, path, data in reversed(chain):
            parent = self._cache[_norm(str(data["extends"]))] if "extends" in data else None
            self._cache[name] = self._merge(name, path, data, parent)
        return self._cache[ref]

    def _load(self, ref: str, loc: Loc) -> tuple[Path, YDict]:
        """A template's file and what it holds, read once (a chain that fails to merge is not
        read again for each template in it)."""
        hit = self._files.get(ref)
        if hit is None:
            hit = self._files[ref] = self._read(ref, loc)
        return hit

    def _read(self, ref: str, loc: Loc) -> tuple[Path, YDict]:
        try:
            path = find_template(ref, self.dirs, self.roots)
        except PathRefused as exc:
            raise CardgenError(loc, str(exc), code="path") from None
        if path is None:
            raise CardgenError(loc, f"unknown template '{ref}'{suggest(ref, available(self.dirs))}; "
                                    f"create templates/{ref}.yaml", code="unknown-template")
        data = load_file(path)
        if not isinstance(data, YDict):
            raise CardgenError(Loc(str(path), 1), "a template must be a mapping with `elements:`")
        wrong = scan(data, self.languages, f"template {ref}", severity="error")
        if wrong:
            raise CardgenError(None, diagnostics=wrong)
        data = localize(data, self.lang)
        problems = TemplateFile.diagnostics(data, f"template {ref}", Loc(str(path), 1))
        if problems:
            raise CardgenError(None, diagnostics=problems)
        return path, data

    def _merge(self, ref: str, path: Path, data: YDict, parent: Template | None) -> Template:
        """Template `ref` from its file's `data` and its parent's merged elements."""
        if parent is not None:
            elements = list(parent.elements)
            defaults = dict(parent.defaults)
            chain = [path, *parent.chain]
        else:
            elements, defaults, chain = [], {}, [path]
        if data.get("defaults") is not None:
            if not isinstance(data["defaults"], dict):
                raise CardgenError(data.value_loc("defaults"), "`defaults:` must be a mapping of field: value")
            defaults.update(data["defaults"])
        computed = _computed(data, parent)
        for name in data.get("remove") or []:
            before = len(elements)
            elements = [e for e in elements if e.get("name") != name]
            if len(elements) == before:
                raise CardgenError(data.value_loc("remove"), f"template {ref}: `remove:` names '{name}', "
                                                             f"which no parent template has")
        own = data.get("elements") or []
        if not isinstance(own, list):
            raise CardgenError(data.value_loc("elements"), "`elements:` must be a list")
        index = {e.get("name"): j for j, e in enumerate(elements)}      # name -> place, while only appended to
        seen = set()
        bleed = dict(parent.bleed_origin) if parent is not None else {}
        from_bleed = data.get("origin") == "bleed"
        for i, el in enumerate(own):
            eloc = own.item_loc(i) if isinstance(own, YList) else data.loc
            if not isinstance(el, YDict):
                raise CardgenError(eloc, "each element must be a mapping with name and type")
            name = el.get("name")
            if not name:
                raise CardgenError(eloc, "element has no `name:`; every element needs a unique name")
            if not isinstance(name, str):
                raise CardgenError(el.value_loc("name"), f"an element's `name:` must be text, got "
                                                         f"{type(name).__name__.removeprefix('Y').lower()}; "
                                                         f"write a name such as title", code="template-value")
            if name in seen:
                raise CardgenError(el.value_loc("name"), f"two elements are named '{name}' in this template")
            seen.add(name)
            mine = frozenset(k for k in COORDINATES if k in el)
            bleed[name] = (bleed.get(name, frozenset()) - mine) | (mine if from_bleed else frozenset())
            idx = index.get(name)
            if idx is not None:
                elements[idx] = _merge(elements[idx], el)
                check_element(elements[idx])
                continue
            check_element(el)
            index = _place(elements, index, el, name)
            if len(elements) > MAX_ELEMENTS:
                raise CardgenError(eloc, f"template {ref} has more than {MAX_ELEMENTS} elements with those of the "
                                         f"templates it extends; draw with fewer", code="template-limit")
        bleed = {name: keys for name, keys in bleed.items() if keys and name in index}
        return Template(ref, path, elements, defaults, chain, computed, bleed, links(elements))


def _norm(ref: Any) -> str:
    return str(ref).strip().removesuffix(".yaml")


def element_problems(el: YDict) -> list[Diagnostic]:
    """Problems of one (merged) element that need no card: its type, unknown keys, plain values
    that do not fit their declaration, expressions that do not compile or are not allowed."""
    name = el.get("name", "?")
    etype = el.get("type")
    cls = ELEMENTS.get(str(etype)) if isinstance(etype, str) else None
    if cls is None:
        loc = el.value_loc("type") if "type" in el else el.loc
        hint = suggest(etype, ELEMENTS) if isinstance(etype, str) else ""
        what = f"unknown type {etype!r}" if "type" in el else "no `type:`"
        return [Diagnostic(loc, f"element '{name}': {what}{hint} (types: {', '.join(ELEMENT_TYPES)})", "error",
                           "element-type")]
    where = f"element '{name}' ({etype})"
    out = cls.diagnostics(el, where, el.loc, skip_dynamic=True, code="template-value")
    opts = cls.options()
    for key, value in el.items():
        if not is_expression(value):
            continue
        if key in opts and not opts[key][1].dynamic and key != "when":
            out.append(Diagnostic(el.value_loc(key), f"{where}: `{key}` cannot be an expression; write it "
                                                     f"plainly", "error", "expression"))
            continue
        problem = expr.check_syntax(value)
        if problem:
            out.append(Diagnostic(el.value_loc(key), f"element '{name}': {problem}", "error", "expression"))
    return out


def check_element(el: YDict) -> None:
    problems = element_problems(el)
    if problems:
        raise CardgenError(None, diagnostics=problems)
