"""Icons (`:name:` in text, `icon` elements) and SVG art, loaded once and kept as vectors.

Icons are SVG (or PNG) files in `art/icons/`, the game's own first, then the
project's.  `icons:` in game.yaml maps extra names to files there.
Black in an icon is drawn in the colour asked for (the text colour inline).
"""
from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from reportlab.graphics.shapes import Drawing
from svglib.svglib import svg2rlg

from cardgen.core.paths import PathRefused, check_ref, find_confined, svg_problem

FileKey = tuple[Path, int, int]   # path, modification time (ns), size

_svg_cache: dict[FileKey, Drawing] = {}


class IconError(Exception):
    pass


def file_key(path: Path) -> FileKey:
    """A cache key that changes when the file does (a `--watch` session runs for hours)."""
    st = path.stat()
    return path, st.st_mtime_ns, st.st_size


def load_svg(path: Path) -> Drawing:
    path = Path(path).resolve()
    key = file_key(path)
    drawing = _svg_cache.get(key)
    if drawing is None:
        logging.getLogger("svglib").setLevel(logging.ERROR)
        try:
            drawing = svg2rlg(str(path))
        except Exception as exc:  # svglib raises assorted errors on bad files
            raise IconError(f"cannot read SVG {path.name}: {exc}") from None
        if drawing is None:
            raise IconError(f"cannot read SVG {path.name}")
        _svg_cache[key] = drawing
    return drawing


class IconBook:
    """Icons by name. With `roots` (`cardgen.core.paths`), an icon or alias that leaves the
    allowed folders is refused: `find` gives None and `require`/`refusal` say why."""

    def __init__(self, art_dirs: list[Path], aliases: dict | None = None, roots: Sequence[Path] | None = None):
        self.dirs = [d / "icons" for d in art_dirs]
        self.aliases = {str(k): str(v) for k, v in (aliases or {}).items()}
        self.roots = tuple(roots) if roots is not None else None
        self._paths: dict[str, Path | None] = {}
        self._refused: dict[str, str] = {}

    def find(self, name: str) -> Path | None:
        if name in self._paths:
            return self._paths[name]
        target = self.aliases.get(name, name)
        found = None
        try:
            if self.roots is None:
                check_ref(target, "icon")
                for d in self.dirs:
                    for ext in (".svg", ".png"):
                        p = d / f"{target}{ext}"
                        if p.is_file():
                            found = p
                            break
                    if found:
                        break
            else:
                found = find_confined(target, self.dirs, self.roots, "icon", (".svg", ".png"))
                if found is not None and found.suffix.lower() == ".svg":
                    problem = svg_problem(found, self.roots)
                    if problem:
                        raise PathRefused(problem)
        except PathRefused as exc:
            self._refused[name] = str(exc)
            found = None
        self._paths[name] = found
        return found

    def refusal(self, name: str) -> str | None:
        """Why icon `name` was refused (outside the allowed folders), or None."""
        self.find(name)
        return self._refused.get(name)

    def names(self) -> list[str]:
        out = set(self.aliases)
        for d in self.dirs:
            if d.is_dir():
                out.update(p.stem for p in d.iterdir() if p.suffix in (".svg", ".png"))
        return sorted(out)

    def require(self, name: str) -> Path:
        p = self.find(name)
        if name in self._refused:
            raise IconError(self._refused[name])
        if p is None:
            from cardgen.schema.core import suggest
            raise IconError(f"unknown icon ':{name}:'{suggest(name, self.names())} "
                            f"(put {name}.svg in art/icons/ or map it under `icons:` in game.yaml)")
        return p
