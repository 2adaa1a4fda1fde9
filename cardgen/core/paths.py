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

import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePosixPath, PureWindowsPath

from cardgen.core import limits

SHARED_KINDS = ("templates", "art", "fonts", "layouts")
WHERE = ("files may only come from the game folder, the project's templates/, art/, fonts/ and layouts/ "
         "folders, or cardgen's bundled ones")


class PathRefused(Exception):
    """A reference that leaves the allowed folders; `str()` is the one-line message."""


def allowed_roots(game_root: Path, project: Path, bundled: Path) -> tuple[Path, ...]:
    """The folders a game may read from, resolved (a shared folder that is itself a symlink, as
    the project owner set it up, is followed once here)."""
    out: list[Path] = [Path(game_root).resolve()]
    for base in (project, bundled):
        for kind in SHARED_KINDS:
            r = (Path(base) / kind).resolve()
            if r not in out:
                out.append(r)
    return tuple(out)


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
            if q.is_file():
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
            return (f"SVG {path.name} is larger than {limits.MAX_SVG_BYTES} bytes (CARDGEN_limits.MAX_SVG_BYTES); "
                    f"simplify it or raise the limit")
        text = path.read_bytes().decode("utf-8", errors="replace")
    except OSError as exc:
        return f"cannot read SVG {path.name}: {exc.strerror or exc}"
    if re.search(r"<!ENTITY|<!DOCTYPE[^>]*\b(?:SYSTEM|PUBLIC)\b", text, re.I):
        return f"SVG {path.name} declares XML entities or an external DTD, which cardgen does not read; remove them"
    refs = [m.group(2) for m in _HREF.finditer(text)]
    refs += [m.group(2) for m in _URL.finditer(text) if m.group(0).lower() != "@import"]
    if re.search(r"@import", text, re.I):
        return f"SVG {path.name} imports a style sheet (@import); cardgen reads only the SVG file itself"
    for raw in refs:
        ref = raw.strip()
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
    return None


def _show(text: str) -> str:
    text = "".join(ch if ch.isprintable() else "?" for ch in str(text))
    return text if len(text) <= 80 else text[:77] + "..."
