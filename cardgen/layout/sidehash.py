"""Content hashes of laid-out card sides (`SideHasher`): a side's drawing operations with the
files they draw (art, icons, fonts) by content, not by path, so a game laid out in another
folder hashes the same.  The build manifest records them (`cardgen.layout.manifest`) and the
layout engine works them out while a side's operations are at hand (`engine._packed`)."""
from __future__ import annotations

import dataclasses
import hashlib
import operator
import os
import stat
import struct
from pathlib import Path

from cardgen.core.digest import hashed_file
from cardgen.model import ops
from cardgen.resources.fonts import font_files

HASH_LENGTH = 16            # hex digits kept of each side's hash (and of each hash in the manifest)

def file_hash(path: Path) -> str:
    """SHA-256 of a file's bytes (hashed once in this process while its size and modification
    time stay the same: `core.digest.hashed_file`)."""
    try:
        st = os.stat(path)
    except OSError:
        return "missing:" + Path(path).name
    done = hashed_file(Path(path), st) if stat.S_ISREG(st.st_mode) else None
    if done is None:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        return h.hexdigest()
    return done[0]


class SideHasher:
    """Content hashes of laid-out sides (`side`), with the files they draw hashed once (each
    font and image file looked at once per hasher: make one per build)."""

    def __init__(self) -> None:
        self._files: dict[Path, str] = {}
        self._fonts: dict[str, str] = {}
        self._sides: dict[int, tuple[ops.CardLayout, str]] = {}

    def file(self, path: Path) -> str:
        got = self._files.get(path)
        if got is None:
            got = self._files[path] = file_hash(path)
        return got

    def font(self, name: str) -> str:
        got = self._fonts.get(name)
        if got is None:
            path = font_files().get(name)     # None: a standard PDF font, its name is all there is
            got = self._fonts[name] = self.file(path) if path is not None else name
        return got

    def _value(self, v: object, nums: list[float], words: list[str]) -> None:
        if type(v) is float:            # (most values, and colours: told apart before the chain below)
            nums.append(v)
            return
        if type(v) is tuple and all(type(x) is float for x in v):
            words.append(f"({len(v)}")
            nums.extend(v)
            return
        if v is None:
            words.append("\x01")
        elif isinstance(v, (int, float)):           # bool too
            nums.append(v)
        elif isinstance(v, str):
            words.append(v)
        elif isinstance(v, Path):
            words.append(self.file(v))
        elif isinstance(v, tuple):
            words.append(f"({len(v)}")
            for x in v:
                self._value(x, nums, words)
        else:
            words.append(repr(v))

    def _op(self, op: ops.Op, nums: list[float], words: list[str]) -> None:
        """An op's values: numbers to `nums`, the rest to `words`; files (art, icons, fonts) by
        content rather than by path (the same game unpacked elsewhere hashes the same)."""
        if type(op) is ops.Text:
            words.append("Text")
            nums += (op.x, op.y, op.w, op.h, op.size, op.overflow, op.rotate, len(op.runs))
            # what most texts leave at its default is told only where it is not, so a side that
            # uses none of it hashes as it did before it was told at all (`cardgen changes`
            # against an older manifest lists no card as changed for that alone)
            if op.shadow is not None or op.outline is not None or op.outline_width:
                words.append("\x02effects")
                nums.append(op.outline_width)
                self._value(op.shadow, nums, words)
                self._value(op.outline, nums, words)
            fonts = self._fonts
            last: object = nums         # (a run's colour told as the run before's: its values again)
            told: tuple[list[float], list[str]] = ([], [])
            for x, baseline, kind, content, font, size, color, width, tracking, glyphs in map(_RUN, op.runs):
                nums += (x, baseline, size, width)
                face = (fonts.get(font) or self.font(font)) if font else ""
                words += (kind, self.file(content) if isinstance(content, Path) else content, face)
                if color is not last:
                    last, told = color, ([], [])
                    self._value(color, *told)
                nums += told[0]
                words += told[1]
                if tracking or glyphs:
                    words += ("\x02spacing", glyphs)
                    nums.append(tracking)
            return      # (`element`, the template element's name for messages, draws nothing)
        names = _FIELDS.get(type(op))
        if names is None:
            names = _FIELDS[type(op)] = tuple(f.name for f in dataclasses.fields(op))
        words.append(type(op).__name__)
        for n in names:
            self._value(getattr(op, n), nums, words)

    def side(self, layout: ops.CardLayout, shared: bool = True) -> str:
        """The content hash of one laid-out side: its size, shape and every op but its stamp
        (the elements showing `game.version` or `card.revision`); kept on the side (and, with
        `shared`, by the hasher, for a side shared by many cards that are not the same object)."""
        known = self._sides.get(id(layout))
        if known is not None and known[0] is layout:       # a shared back: hashed once
            return known[1]
        kept = layout.__dict__.get("_side_hash")            # worked out before (`layout.cache`)
        if isinstance(kept, str):
            return kept
        stamp = set(layout.stamp)
        nums: list[float] = [layout.width, layout.height, layout.bleed]
        words: list[str] = [layout.shape]
        if layout.outline:                                 # a `path` shape's outline
            words.append("\x02outline")
            self._value(layout.outline, nums, words)
        for i, op in enumerate(layout.ops):
            if i not in stamp:
                self._op(op, nums, words)
        h = hashlib.sha256(struct.pack(f"<{len(nums)}d", *nums))       # the same bytes on every machine
        h.update("\0".join(words).encode("utf-8", "surrogatepass"))
        got = h.hexdigest()[:HASH_LENGTH]
        if shared:
            self._sides[id(layout)] = (layout, got)
        layout.__dict__["_side_hash"] = got
        return got


_FIELDS: dict[type, tuple[str, ...]] = {}
# a run's fields in their order (the fields `_op` tells are named as they are declared: tested)
_RUN = operator.attrgetter(*(f.name for f in dataclasses.fields(ops.Run)))
