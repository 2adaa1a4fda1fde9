"""Kerning: the font's own pair adjustments (`AV`, `To`), read once from the `kern` feature
of its GPOS table (or its old `kern` table), by character, and kept with the font's metrics
(`cardgen.resources.fonts`, when ReportLab first parses the font). Read here with `struct`:
fontTools takes seconds to decompile a large GPOS table, this a few milliseconds.

A font keeps its pairs in subtables, tried in order for each pair of neighbouring glyphs:
pairs listed one by one, or classes of first and second glyphs with a value per pair of
classes (the way most fonts kern: a class per shape, `A À Á Â`). They are kept as they are,
by character (through the font's character map, lining figures and all), in units of
1/1000 of the size, so a font with 80,000 kerned pairs costs a few kilobytes:

    ("p", {first << 21 | second: value})              pairs
    ("c", {first: class}, {second: class}, {class1 << 16 | class2: value})   classes

`adjustments(table, text)` gives the adjustment before each character of a text: what
measuring adds to its width and what drawing moves each glyph by.
"""
from __future__ import annotations

import struct

Table = tuple[tuple, ...]           # the subtables, in order


class _Bad(Exception):
    """A table that does not read as the OpenType specification says."""


def read(data: bytes, tables: dict[str, dict], char_to_glyph: dict[int, int], units_per_em: int) -> Table:
    """The kerning of a TrueType font by character: `data` the file's bytes, `tables` where
    its tables are (tag -> {"offset", "length"}: ReportLab's `TTFontFile.table`),
    `char_to_glyph` its character map. The GPOS `kern` feature's pair adjustments, else
    the old `kern` table's pairs; () for a font without (or with a table that does not read,
    which is then set without kerning, as ReportLab would draw it)."""
    by_glyph: dict[int, list[int]] = {}
    for code, glyph in char_to_glyph.items():
        if glyph:
            by_glyph.setdefault(glyph, []).append(code)
    scale = 1000.0 / (units_per_em or 1000)
    out: list[tuple]
    try:
        out = _gpos(data, tables.get("GPOS"), by_glyph, scale)
        if not out:
            out = _kern_table(data, tables.get("kern"), by_glyph, scale)
    except (_Bad, struct.error, IndexError):
        return ()
    return tuple(out)


def _u16(data: bytes, at: int) -> int:
    return struct.unpack_from(">H", data, at)[0]


def _i16(data: bytes, at: int) -> int:
    return struct.unpack_from(">h", data, at)[0]


def _coverage(data: bytes, at: int) -> list[int]:
    fmt = _u16(data, at)
    if fmt == 1:
        n = _u16(data, at + 2)
        return list(struct.unpack_from(f">{n}H", data, at + 4))
    if fmt == 2:
        out: list[int] = []
        for i in range(_u16(data, at + 2)):
            first, last, _ = struct.unpack_from(">3H", data, at + 4 + 6 * i)
            out.extend(range(first, last + 1))
        return out
    raise _Bad


def _classes(data: bytes, at: int) -> dict[int, int]:
    fmt = _u16(data, at)
    if fmt == 1:
        first, n = struct.unpack_from(">2H", data, at + 2)
        return {first + i: c for i, c in enumerate(struct.unpack_from(f">{n}H", data, at + 6)) if c}
    if fmt == 2:
        out = {}
        for i in range(_u16(data, at + 2)):
            lo, hi, c = struct.unpack_from(">3H", data, at + 4 + 6 * i)
            if c:
                out.update(dict.fromkeys(range(lo, hi + 1), c))
        return out
    raise _Bad


def _record_size(fmt: int) -> int:
    return 2 * bin(fmt & 0xFF).count("1")


def _x_advance(data: bytes, at: int, fmt: int) -> int:
    """The XAdvance of a value record at `at` (0 if it has none)."""
    if not fmt & 0x4:
        return 0
    return _i16(data, at + 2 * bin(fmt & 0x3).count("1"))


def _lookups(data: bytes, base: int) -> list[int]:
    """The offsets of the pair-adjustment subtables of the `kern` feature's lookups, in order."""
    feature_list = base + _u16(data, base + 6)
    lookup_list = base + _u16(data, base + 8)
    indices: set[int] = set()
    for i in range(_u16(data, feature_list)):
        tag, off = struct.unpack_from(">4sH", data, feature_list + 2 + 6 * i)
        if tag == b"kern":
            feature = feature_list + off
            n = _u16(data, feature + 2)
            indices.update(struct.unpack_from(f">{n}H", data, feature + 4))
    subtables = []
    for index in sorted(indices):
        lookup = lookup_list + _u16(data, lookup_list + 2 + 2 * index)
        kind, _, n = struct.unpack_from(">3H", data, lookup)
        for k in range(n):
            sub = lookup + _u16(data, lookup + 6 + 2 * k)
            sub_kind = kind
            if kind == 9:        # an extension: the real subtable is further
                sub_kind = _u16(data, sub + 2)
                sub += struct.unpack_from(">I", data, sub + 4)[0]
            if sub_kind == 2:
                subtables.append(sub)
    return subtables


def _gpos(data: bytes, where: dict | None, by_glyph: dict[int, list[int]], scale: float) -> list[tuple]:
    if not where:
        return []
    out: list[tuple] = []
    for sub in _lookups(data, int(where["offset"])):
        fmt = _u16(data, sub)
        got = _pairs(data, sub, by_glyph, scale) if fmt == 1 else _class_pairs(data, sub, by_glyph, scale) \
            if fmt == 2 else None
        if got is not None:
            out.append(got)
    return out


def _pairs(data: bytes, sub: int, by_glyph: dict[int, list[int]], scale: float) -> tuple | None:
    """A pair adjustment subtable of format 1 (pairs one by one)."""
    _, cov, vf1, vf2 = struct.unpack_from(">4H", data, sub)
    step = 2 + _record_size(vf1) + _record_size(vf2)
    pairs: dict[int, float] = {}
    for i, first in enumerate(_coverage(data, sub + cov)):
        lefts = by_glyph.get(first)
        if not lefts:
            continue
        pair_set = sub + _u16(data, sub + 10 + 2 * i)
        for k in range(_u16(data, pair_set)):
            rec = pair_set + 2 + k * step
            rights = by_glyph.get(_u16(data, rec))
            if rights:
                v = round(_x_advance(data, rec + 2, vf1) * scale, 3)
                for a in lefts:
                    for b in rights:
                        pairs.setdefault(a << 21 | b, v)
    return ("p", pairs) if pairs else None


def _class_pairs(data: bytes, sub: int, by_glyph: dict[int, list[int]], scale: float) -> tuple | None:
    """A pair adjustment subtable of format 2 (a value for each pair of glyph classes)."""
    _, cov, vf1, vf2, cd1, cd2, n1, n2 = struct.unpack_from(">8H", data, sub)
    classes1, classes2 = _classes(data, sub + cd1), _classes(data, sub + cd2)
    left = {a: classes1.get(g, 0) for g in _coverage(data, sub + cov) for a in by_glyph.get(g, ())}
    right = {b: c for g, c in classes2.items() for b in by_glyph.get(g, ())}
    step = _record_size(vf1) + _record_size(vf2)
    matrix = {}
    for c1 in range(n1):
        row = sub + 16 + c1 * n2 * step
        for c2 in range(n2):
            v = _x_advance(data, row + c2 * step, vf1)
            if v:
                matrix[c1 << 16 | c2] = round(v * scale, 3)
    return ("c", left, right, matrix) if left else None


def _kern_table(data: bytes, where: dict | None, by_glyph: dict[int, list[int]], scale: float) -> list[tuple]:
    """The pairs of an old (Microsoft, version 0) `kern` table's format 0 subtables."""
    if not where:
        return []
    at = int(where["offset"])
    version, count = struct.unpack_from(">2H", data, at)
    if version != 0:
        return []
    pairs: dict[int, float] = {}
    at += 4
    for _ in range(count):
        _, length, coverage, n = struct.unpack_from(">4H", data, at)
        if coverage >> 8 == 0 and coverage & 0x1:        # format 0, horizontal
            for k in range(n):
                first, second, v = struct.unpack_from(">2Hh", data, at + 14 + 6 * k)
                for a in by_glyph.get(first, ()):
                    for b in by_glyph.get(second, ()):
                        pairs.setdefault(a << 21 | b, round(v * scale, 3))
        at += length
    return [("p", pairs)] if pairs else []


def pair(table: Table, a: int, b: int) -> float:
    """The adjustment between characters `a` and `b` (1/1000 of the size; negative: closer)."""
    key = a << 21 | b
    for sub in table:
        if sub[0] == "p":
            v = sub[1].get(key)
            if v is not None:
                return v
        else:
            c1 = sub[1].get(a)
            if c1 is not None:      # the first glyph is covered: this subtable decides
                return sub[3].get(c1 << 16 | sub[2].get(b, 0), 0.0)
    return 0.0


def adjustments(table: Table, text: str) -> tuple[tuple[int, float], ...]:
    """(index, adjustment) for each character of `text` that moves from where its advance
    would put it: the pair it makes with the character before it is kerned. Spaces are never
    kerned (a line's words are measured apart)."""
    if not table or len(text) < 2:
        return ()
    out = []
    codes = [ord(ch) for ch in text]
    for i in range(1, len(codes)):
        a, b = codes[i - 1], codes[i]
        if a == 32 or b == 32:
            continue
        v = pair(table, a, b)
        if v:
            out.append((i, v))
    return tuple(out)
