"""Confinement: every file a game refers to must live inside the allowed folders.

A game folder is untrusted input (designers share them, download them from co-designers and
open them from forum threads), so a file reference (art `src:`, icons and `icons:` aliases,
fonts, templates and `extends:`, `decks:`, rules, sheet layouts, references inside SVG files) may
only reach:

- the game folder itself,
- the project's shared `templates/`, `art/`, `fonts/` and `layouts/` folders,
- cardgen's own bundled `templates/`, `art/`, `fonts/` and `layouts/`.

Absolute paths and `..` that leave the folder the reference is relative to are refused
before anything is looked up (so a refusal says nothing about what exists outside); a file
found inside but resolving elsewhere (a symlink pointing out) is refused too.  Messages name
the reference as written, never anything read from outside.
"""
from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from cardgen.core import limits

SHARED_KINDS = ("templates", "art", "fonts", "layouts")
WHERE = ("files may only come from the game folder, the project's templates/, art/, fonts/ and layouts/ "
         "folders, or cardgen's bundled ones")


class PathRefused(Exception):
    """A reference that leaves the allowed folders; `str()` is the one-line message."""


def allowed_roots(game_root: Path, project: Path, bundled: Path) -> tuple[Path, ...]:
    """The folders a game may read from, resolved (a project's shared folder that is itself a
    symlink, as the project owner set it up, is followed once here).  A game that is its own
    project (a game folder standing alone) has no shared folders: its `art/`, `templates/`,
    `fonts/` and `layouts/` are part of the game folder, and a link among them that points
    outside is refused like any other."""
    game = Path(game_root).resolve()
    out: list[Path] = [game]
    bases = (project, bundled) if Path(project).resolve() != game else (bundled,)
    for base in bases:
        for kind in SHARED_KINDS:
            r = (Path(base) / kind).resolve()
            if r not in out:
                out.append(r)
    return tuple(out)


class NotRegular(OSError):
    """A path that is not a regular file (a named pipe, a device, a socket): never read, since
    reading one can wait for ever or never end."""

    def __init__(self, path: Path | str) -> None:
        super().__init__(errno.EINVAL, "not a regular file (a pipe, device or socket)", str(path))


class TooLarge(OSError):
    """A file larger than cardgen reads of its kind (`limits.MAX_FILE_BYTES` unless told)."""

    def __init__(self, path: Path | str, limit: int, variable: str) -> None:
        self.limit, self.variable = limit, variable
        super().__init__(errno.EFBIG, f"larger than {limit:,} bytes (limit {variable})", str(path))


def read_regular(path: Path | str, limit: int | None = None, variable: str = "CARDGEN_MAX_FILE_BYTES") -> bytes:
    """The bytes of a regular file: the one way cardgen reads a file of a game whole.
    NotRegular for a pipe, device or socket (opened without waiting for a writer), TooLarge
    for a file of more than `limit` bytes (`limits.MAX_FILE_BYTES`; `variable` names the
    limit in the message), checked before reading and while reading (a file that grows), and
    OSError as usual otherwise (a link to itself: "too many levels of symbolic links")."""
    most = limits.MAX_FILE_BYTES if limit is None else limit
    with open_regular(path) as f:
        size = os.fstat(f.fileno()).st_size
        if size > most:
            raise TooLarge(path, most, variable)
        data = read_up_to(f, size, most)
    if len(data) > most:
        raise TooLarge(path, most, variable)
    return data


def read_up_to(f: Any, size: int, most: int) -> bytes:
    """The bytes of the open file `f`, whose size was `size` (at most `most`): asked for as
    that and a byte more, not as `most` (`read(most + 1)` asked the system for the limit's
    100 MB for every file read, which a memory limit, `ulimit -v`, refused); if it grew since,
    read on, up to `most` + 1 bytes (the caller refuses more than `most`)."""
    data = f.read(size + 1)
    if len(data) > size:
        data += f.read(most + 1 - len(data))
    return data


def open_regular(path: Path | str) -> Any:
    """A regular file opened for reading in binary (for readers that stream: hashing, zip
    archives); NotRegular for a pipe, device or socket, opened without waiting for a writer."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory", str(path))
        if not stat.S_ISREG(st.st_mode):
            raise NotRegular(path)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_problem(exc: OSError, name: str, what: str = "file") -> str:
    """One line saying why the file `name` could not be read (`exc` from `read_regular`)."""
    if isinstance(exc, NotRegular):
        return f"{what} {name} is not a regular file (a pipe, device or socket), so cardgen does not read it"
    if isinstance(exc, TooLarge):
        return f"{what} {name} is {exc.strerror}; use a smaller file or raise the limit"
    if exc.errno == errno.ELOOP:
        return f"{what} {name} is a link that leads back to itself; replace it with the file"
    if isinstance(exc, IsADirectoryError):
        return f"{what} {name} is a folder, not a file"
    return f"cannot read {what} {name}: {exc.strerror or exc}"


def not_a_file(path: Path | str, what: str, name: str) -> str | None:
    """Why `path`, which is there (a name in its folder), cannot be read as a file: a pipe,
    device or socket, a folder, a link to itself or to nothing; None for a regular file or
    for nothing there at all."""
    if not os.path.lexists(path):
        return None
    try:
        st = os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return read_problem(exc, f"'{_show(name)}'", what)
        return f"{what} '{_show(name)}' is a link to nothing; replace it with the file"
    except ValueError:
        return None
    if stat.S_ISDIR(st.st_mode):
        return read_problem(IsADirectoryError(errno.EISDIR, "is a directory"), f"'{_show(name)}'", what)
    if not stat.S_ISREG(st.st_mode):
        return read_problem(NotRegular(path), f"'{_show(name)}'", what)
    return None


def too_deep(root: Path | str, limit: int | None = None) -> Path | None:
    """The first folder (in name order) nested more than `limit` (`limits.MAX_FOLDER_DEPTH`)
    folders deep under `root`, hidden folders (`.git`) and links aside, or None.  Iterative:
    a tree thousands of folders deep is no trouble."""
    most = limits.MAX_FOLDER_DEPTH if limit is None else limit
    stack: list[tuple[str, int]] = [(str(root), 0)]
    while stack:
        folder, depth = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name, reverse=True)
        except (OSError, ValueError):
            continue
        for entry in entries:
            if entry.name.startswith(".") or entry.name == "__pycache__":
                continue
            try:
                if not entry.is_dir(follow_symlinks=False):
                    continue
            except OSError:
                continue
            if depth + 1 > most:
                return Path(entry.path)
            stack.append((entry.path, depth + 1))
    return None


def files_under(base: Path | str, suffix: str) -> list[Path]:
    """The files ending in `suffix` under `base` (sorted), looked for at most
    `limits.MAX_FOLDER_DEPTH` folders deep (`too_deep` says when a game has deeper ones)."""
    out: list[Path] = []
    top = str(base).rstrip(os.sep).count(os.sep)
    for dirpath, dirnames, filenames in os.walk(base):
        if dirpath.count(os.sep) - top >= limits.MAX_FOLDER_DEPTH:
            dirnames[:] = []
        out += [Path(dirpath) / f for f in filenames if f.endswith(suffix)]
    return sorted(out)


def is_regular(path: Path | str) -> bool:
    """A regular file (symlinks followed): what cardgen may open and read."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


# What cardgen keeps in an output folder besides the outputs: never written or read through a
# link (a game folder may come with `build/.cache -> ~/Documents`).
OWN_IN_OUTPUT = (".cache", ".cardgen", "manifest.json")


def drop_links(out_dir: Path) -> list[Path]:
    """Remove the links (the links themselves, never what they point at) among cardgen's own
    files and folders in an output folder (`OWN_IN_OUTPUT` and what its folders hold directly):
    what cardgen writes there must land in the output folder.  Returns the links removed."""
    removed: list[Path] = []
    for name in OWN_IN_OUTPUT:
        p = Path(out_dir) / name
        try:
            if p.is_symlink():
                p.unlink()
                removed.append(p)
            elif p.is_dir():
                for child in p.iterdir():
                    if child.is_symlink():
                        child.unlink()
                        removed.append(child)
        except OSError:
            continue
    return removed


def through_link(path: Path, levels: int = 2) -> bool:
    """True if `path` or one of its `levels - 1` parents is a link: a cache or state file of an
    output folder reached through a link is neither read nor written."""
    p = Path(path)
    for _ in range(levels):
        if p.is_symlink():
            return True
        p = p.parent
    return False


def is_inside(path: Path, roots: Iterable[Path]) -> bool:
    return any(path == r or path.is_relative_to(r) for r in roots)


def _is_absolute(ref: str) -> bool:
    return (PurePosixPath(ref).is_absolute() or PureWindowsPath(ref).is_absolute()
            or bool(PureWindowsPath(ref).drive) or ref.startswith("~"))


def check_ref(ref: str, what: str) -> None:
    """Refuse a reference that is absolute or climbs out with `..` (no file system access)."""
    text = str(ref)
    if "\0" in text:
        raise PathRefused(f"{what} '{_show(text)}' contains a NUL character; {WHERE}")
    if _is_absolute(text):
        raise PathRefused(f"{what} '{_show(text)}' is an absolute path; write it relative to the game folder "
                          f"({WHERE})")
    if any(len(part.encode("utf-8", "surrogateescape")) > 255 for part in re.split(r"[/\\]", text)) or len(text) > 4000:
        raise PathRefused(f"{what} '{_show(text)}' is longer than file names can be (255 bytes a name); shorten it")
    depth = 0
    for part in text.replace("\\", "/").split("/"):
        if part == "..":
            depth -= 1
            if depth < 0:
                raise PathRefused(f"{what} '{_show(text)}' climbs out of its folder with '..'; {WHERE}")
        elif part not in ("", "."):
            depth += 1


def confine(path: Path, roots: Sequence[Path], what: str, ref: str | None = None) -> Path:
    """`path` resolved (symlinks followed) if it is inside `roots`, else PathRefused."""
    try:
        real = Path(os.path.realpath(path))
    except (OSError, ValueError):
        raise PathRefused(f"{what} '{_show(ref or path.name)}' cannot be resolved; {WHERE}") from None
    if not is_inside(real, roots):
        raise PathRefused(f"{what} '{_show(ref if ref is not None else path.name)}' resolves outside the allowed "
                          f"folders; {WHERE}")
    return real


def find_confined(ref: str, bases: Sequence[Path], roots: Sequence[Path], what: str,
                  suffixes: Sequence[str] = ("",)) -> Path | None:
    """The first `base / ref + suffix` that is a file, confined to `roots`; None when there is
    none; PathRefused for an absolute path, a `..` escape or a file that resolves outside."""
    check_ref(ref, what)
    for base in bases:
        for suffix in suffixes:
            q = Path(base) / f"{ref}{suffix}"
            try:
                found = q.is_file()
            except (OSError, ValueError):      # (a name the file system refuses: not there)
                found = False
            if found:
                return confine(q, roots, what, ref)
    return None


_HREF = re.compile(r"""(?:\bxlink:href|(?<![\w:-])href|\bsrc)\s*=\s*(["'])(.*?)\1""", re.S | re.I)
_URL = re.compile(r"""url\(\s*(["']?)(.*?)\1\s*\)|@import""", re.I)


def svg_problem(path: Path, roots: Sequence[Path], _seen: set[Path] | None = None) -> str | None:
    """Why the SVG file at `path` (already confined) may not be used, or None.  Its references
    (`<use>`/`<image>` hrefs, `url()` in styles) must be fragments (`#id`), embedded `data:`
    images or relative paths to files inside `roots`; SVG files it references are checked the
    same way.  Entities and DTDs are refused (they can pull in outside files)."""
    seen = _seen if _seen is not None else set()
    if path in seen:
        return None
    seen.add(path)
    try:
        if path.stat().st_size > limits.MAX_SVG_BYTES:
            return (f"SVG {path.name} is larger than {limits.MAX_SVG_BYTES} bytes (limit CARDGEN_MAX_SVG_BYTES); "
                    f"simplify it or raise the limit")
        raw_bytes = read_regular(path, limits.MAX_SVG_BYTES, "CARDGEN_MAX_SVG_BYTES")
    except OSError as exc:
        return f"cannot read SVG {path.name}: {exc.strerror or exc}"
    if raw_bytes.startswith((b"\xff\xfe", b"\xfe\xff")) or b"\0" in raw_bytes[:4096]:
        return f"SVG {path.name} is not UTF-8 text (UTF-16?); save it as UTF-8"
    declared = re.match(rb"""\s*<\?xml[^>]*?encoding\s*=\s*["']([^"']*)["']""", raw_bytes)
    if declared and declared.group(1).lower().replace(b"_", b"-") not in _ASCII_SAFE:
        return (f"SVG {path.name} is in the {_show(declared.group(1).decode('ascii', 'replace'))} encoding; "
                f"save it as UTF-8")
    text = raw_bytes.decode("utf-8", errors="replace")
    if re.search(r"<!ENTITY|<!DOCTYPE[^>]*\b(?:SYSTEM|PUBLIC)\b", text, re.I):
        return f"SVG {path.name} declares XML entities or an external DTD, which cardgen does not read; remove them"
    if re.search(r"@import", text, re.I):
        return f"SVG {path.name} imports a style sheet (@import); cardgen reads only the SVG file itself"
    parsed = _svg_refs(path, raw_bytes)
    if isinstance(parsed, str):
        return parsed
    refs = [m.group(2) for m in _HREF.finditer(text)]
    refs += [m.group(2) for m in _URL.finditer(text) if m.group(0).lower() != "@import"]
    for raw in [*refs, *parsed]:
        ref = raw.strip()
        if "\\" in ref:
            return f"SVG {path.name}: reference '{_show(ref)}' has a backslash escape; write the file name plainly"
        if not ref or ref.startswith("#") or ref.lower().startswith("data:"):
            continue
        iri = ref.split("#", 1)[0]
        if re.match(r"^[a-z][a-z0-9+.-]*:", iri, re.I) and not PureWindowsPath(iri).drive:
            return f"SVG {path.name} refers to '{_show(iri)}'; only files next to it may be referenced ({WHERE})"
        try:
            if _is_absolute(iri):
                raise PathRefused(f"SVG {path.name}: reference '{_show(iri)}' is an absolute path; {WHERE}")
            target = confine(path.parent / iri, roots, f"SVG {path.name}: reference", iri)
        except PathRefused as exc:
            return str(exc)
        if target.suffix.lower() == ".svg" and target.is_file():
            problem = svg_problem(target, roots, seen)
            if problem:
                return problem
        elif is_regular(target):
            problem = _raster_ref_problem(path, target)
            if problem:
                return problem
    return None


def _raster_ref_problem(path: Path, target: Path) -> str | None:
    """A PNG or JPEG file an SVG refers to that is not what its name says (the SVG reader
    would open it by its content: `cardgen.core.images`)."""
    from cardgen.core.images import WrongKind, formats_for, open_path

    if formats_for(target) is None:
        return None
    try:
        with open_path(target):
            return None
    except WrongKind as exc:
        return f"SVG {path.name}: {exc}"
    except Exception:       # (damaged: the SVG reader says so where it draws it)
        return None


_ASCII_SAFE = {b"utf-8", b"utf8", b"us-ascii", b"ascii", b"iso-8859-1", b"latin-1", b"latin1", b"windows-1252",
               b"cp1252"}
MAX_SVG_ELEMENTS = 100_000          # elements of one SVG file
MAX_SVG_STYLE_RULES = 10_000        # rules of its <style> sheets


def _svg_refs(path: Path, raw: bytes) -> list[str] | str:
    """Every reference in an SVG as the SVG reader will see it (parsed, so that character
    references such as `&#47;` are decoded): `href`/`src` attributes and `url(...)` in
    attributes and style sheets; or why the file may not be used (too many elements or style
    rules, an embedded image too large, a style sheet linked).  Parsed with the standard
    library; a file it cannot parse is parsed the forgiving way the SVG reader (svglib, with
    lxml) parses it, so that nothing the reader would see goes unchecked."""
    if re.search(rb"<\?xml-stylesheet", raw, re.I):
        return f"SVG {path.name} links a style sheet (<?xml-stylesheet?>); cardgen reads only the SVG file itself"
    elements: Iterable[Any]
    try:
        top = _parsed_svg(raw)
        problem = _viewbox_problem(path, top.get("viewBox"))
        if problem:
            return problem
        elements = top.iter()
    except (_XMLError, ValueError, LookupError):
        try:
            from lxml import etree  # type: ignore[import-untyped]
        except ImportError:       # (svglib needs lxml: without it no SVG is drawn at all)
            return []
        parser = etree.XMLParser(remove_comments=True, recover=True, resolve_entities=False, no_network=True,
                                 load_dtd=False, huge_tree=False)
        try:
            root = etree.fromstring(raw, parser)
        except (etree.XMLSyntaxError, ValueError):
            return []             # not XML at all: the SVG reader says so
        if root is None:
            return []
        problem = _viewbox_problem(path, root.get("viewBox"))
        if problem:
            return problem
        elements = (el for el in root.iter() if isinstance(el.tag, str))
    refs: list[str] = []
    rules = 0
    for n, el in enumerate(elements):
        if n > MAX_SVG_ELEMENTS:
            return f"SVG {path.name} has more than {MAX_SVG_ELEMENTS:,} elements; simplify it (or export it as PNG)"
        for name, value in el.attrib.items():
            local = str(name).rsplit("}", 1)[-1].lower()
            if local in ("href", "src"):
                refs.append(value)
                problem = _data_image_problem(path, value)
                if problem:
                    return problem
            refs += [m.group(2) for m in _URL.finditer(value) if m.group(0).lower() != "@import"]
        if str(el.tag).rsplit("}", 1)[-1].lower() == "style":
            sheet = "".join(el.itertext())
            if "@import" in sheet.lower():
                return f"SVG {path.name} imports a style sheet (@import); cardgen reads only the SVG file itself"
            rules += sheet.count("{")
            if rules > MAX_SVG_STYLE_RULES:
                return (f"SVG {path.name} has more than {MAX_SVG_STYLE_RULES:,} style rules; simplify it "
                        f"(or export it as PNG)")
            refs += [m.group(2) for m in _URL.finditer(sheet) if m.group(0).lower() != "@import"]
    return refs


class _XMLError(Exception):
    """An SVG the standard library's XML parser (expat) does not take."""


class _Element:
    """An element of an SVG as `_svg_refs` reads it: its tag (`{namespace}name`), its
    attributes and, for a `<style>` element, what `itertext` of an `xml.etree` element gives
    (all the character data inside it); `iter` walks it and everything inside, in document
    order."""

    __slots__ = ("attrib", "children", "parts", "tag")

    def __init__(self, tag: str, attrib: dict[str, str]):
        self.tag, self.attrib = tag, attrib
        self.parts: list[str] = []
        self.children: list[_Element] = []

    def get(self, name: str) -> str | None:
        return self.attrib.get(name)

    def itertext(self) -> Iterable[str]:
        return self.parts

    def iter(self) -> Iterable[_Element]:
        stack = [self]
        while stack:
            el = stack.pop()
            yield el
            stack.extend(reversed(el.children))


def _parsed_svg(raw: bytes) -> _Element:
    """The SVG's elements as `xml.etree.ElementTree.fromstring` parses them (the same parser,
    expat, with names as `{namespace}name`), read with expat alone: `xml.etree` is some 3 ms of
    the imports of a `cardgen validate` of a game with SVG icons.  `_XMLError` where
    `fromstring` raises `ParseError`."""
    from pyexpat import ExpatError, ParserCreate

    parser = ParserCreate(None, "}")
    parser.buffer_text = True
    open_: list[_Element] = []
    styles: list[_Element] = []         # the open `<style>` elements, whose text is kept
    top: list[_Element] = []

    def name(raw_name: str) -> str:
        return "{" + raw_name if "}" in raw_name else raw_name

    def start(tag: str, attrs: dict[str, str]) -> None:
        el = _Element(name(tag), {name(k): v for k, v in attrs.items()})
        (open_[-1].children if open_ else top).append(el)
        open_.append(el)
        if el.tag.rsplit("}", 1)[-1].lower() == "style":
            styles.append(el)

    def end(tag: str) -> None:
        if styles and styles[-1] is open_.pop():
            styles.pop()

    def data(text: str) -> None:
        for el in styles:
            el.parts.append(text)

    parser.StartElementHandler, parser.EndElementHandler, parser.CharacterDataHandler = start, end, data
    try:
        parser.Parse(raw, True)
    except ExpatError as exc:
        raise _XMLError(str(exc)) from None
    return top[0]


MAX_SVG_SIDE = 1e6           # a side of an SVG's viewBox or size, in its units (points: 350 m)
MIN_SVG_SIDE = 1e-3


def _viewbox_problem(path: Path, viewbox: str | None) -> str | None:
    """A `viewBox` that would draw nothing (zero or negative width or height: an SVG viewer
    draws nothing) or that cannot be drawn (sides beyond MIN_SVG_SIDE..MAX_SVG_SIDE, numbers
    that are not finite), or None."""
    import math

    if viewbox is None:
        return None
    parts = re.split(r"[\s,]+", viewbox.strip())
    try:
        x, y, w, h = (float(v) for v in parts)
    except ValueError:
        return None             # (not four numbers: the SVG reader ignores it, as viewers do)
    shown = _show(viewbox)
    if not all(math.isfinite(v) for v in (x, y, w, h)):
        return f"SVG {path.name} has a viewBox that is not finite numbers ('{shown}'); fix it in the SVG"
    if w <= 0 or h <= 0:
        return (f"SVG {path.name} has a viewBox of zero or negative size ('{shown}'), so it draws nothing; fix it in "
                f"the SVG")
    if not (MIN_SVG_SIDE <= w <= MAX_SVG_SIDE and MIN_SVG_SIDE <= h <= MAX_SVG_SIDE) or \
            max(abs(x), abs(y)) > MAX_SVG_SIDE * 1000:
        return (f"SVG {path.name} has a viewBox of {w:g} x {h:g} units ('{shown}'); cardgen draws SVGs from "
                f"{MIN_SVG_SIDE:g} to {MAX_SVG_SIDE:,.0f} units a side: fix it in the SVG")
    return None


def _data_image_problem(path: Path, value: str) -> str | None:
    """An embedded `data:` image larger than cardgen reads (`limits.MAX_IMAGE_PIXELS`), or one
    it cannot read, told before the SVG reader decodes it."""
    head, sep, body = value.strip().partition(",")
    if not sep or not head.lower().startswith("data:image/") or "svg" in head.lower():
        return None
    import base64
    import binascii
    import warnings

    from PIL import Image

    from cardgen.core.images import BY_MIME, WrongKind, open_bytes

    mime = head[len("data:"):].split(";")[0].strip().lower()
    formats = BY_MIME.get(mime)
    if formats is None:
        return None         # (the SVG reader draws embedded PNG and JPEG images only: never decoded)
    try:
        data = base64.b64decode(body, validate=False) if ";base64" in head.lower() else body.encode("latin-1")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with open_bytes(data, formats, f"the embedded {mime} image") as im:
                w, h = im.size
    except WrongKind as exc:
        return f"SVG {path.name}: {exc}"
    except (binascii.Error, ValueError, OSError, Image.DecompressionBombError, SyntaxError, EOFError):
        return f"SVG {path.name} embeds an image cardgen cannot read (damaged data: URI); export the SVG again"
    if w * h > limits.MAX_IMAGE_PIXELS:
        return (f"SVG {path.name} embeds an image of {w} x {h} pixels, more than the {limits.MAX_IMAGE_PIXELS:,} "
                f"cardgen reads; scale it down (limit CARDGEN_MAX_IMAGE_PIXELS)")
    return None


def _show(text: str) -> str:
    text = "".join(ch if ch.isprintable() else "?" for ch in str(text))
    return text if len(text) <= 80 else text[:77] + "..."
