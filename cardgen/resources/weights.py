"""Font weights: a family's files by weight (100-900) and italic, and the nearest one to a
weight asked for.

A family is the files `<Family>-<Weight>[Italic].ttf` in a fonts folder, the weight named as
font makers name it: Thin (100), ExtraLight (200), Light (300), Regular (400), Medium (500),
SemiBold (600), Bold (700), ExtraBold (800), Black (900); `Italic` alone is the regular
italic. A style is written `regular`, `bold`, `italic`, `bolditalic` for 400 and 700, and
`w<weight>` or `w<weight>italic` for the others (`w800`: ExtraBold). A weight the family
lacks is drawn with the nearest one it has, in the same slant first (as CSS picks: above 500,
heavier ones first; below, lighter ones).
"""
from __future__ import annotations

import re
from pathlib import Path

from cardgen.core.spans import WEIGHTS as NAMES

_STYLE = re.compile(r"^w([1-9])00(italic)?$")


def style_of(weight: int, italic: bool) -> str:
    """The style string of a weight and slant."""
    if weight == 400:
        return "italic" if italic else "regular"
    if weight == 700:
        return "bolditalic" if italic else "bold"
    return f"w{weight}" + ("italic" if italic else "")


def parse_style(style: str) -> tuple[int, bool] | None:
    """(weight, italic) of a style string; None: not a style."""
    named = {"regular": (400, False), "bold": (700, False), "italic": (400, True), "bolditalic": (700, True)}
    if style in named:
        return named[style]
    m = _STYLE.match(style)
    return (int(m.group(1)) * 100, bool(m.group(2))) if m else None


def file_style(suffix: str) -> str | None:
    """The style of a font file named `<Family>-<suffix>.ttf` (`ExtraBoldItalic` -> `w800italic`),
    or None."""
    key = suffix.lower().replace("-", "").replace("_", "")
    italic = key.endswith("italic")
    base = key[:-len("italic")] if italic else key
    if italic and not base:
        return "italic"
    weight = NAMES.get(base)
    return None if weight is None else style_of(weight, italic)


def nearest(files: dict[str, Path], style: str, same_slant: bool = False) -> Path | None:
    """The file of `files` (style -> file) that draws `style` best: the same slant first, then
    the nearest weight (heavier first above 500, lighter first below). `same_slant`: only a
    file of the same slant, or None."""
    want = parse_style(style)
    assert want is not None
    weight, italic = want

    def rank(key: str) -> tuple[int, int, int]:
        have = parse_style(key)
        assert have is not None
        w, i = have
        heavier = w > weight
        wrong_side = (not heavier) if weight > 500 else heavier
        return (i != italic, abs(w - weight), wrong_side)

    slants = {k: st[1] for k in files if (st := parse_style(k)) is not None}      # (not the variable fonts)
    keys = [k for k, slant in slants.items() if not same_slant or slant == italic]
    return files[min(keys, key=rank)] if keys else None


# -- variable fonts -------------------------------------------------------------------------

INSTANCE_FORMAT = 2              # of the instanced fonts: raise it when `instance` changes
_VARIABLE = re.compile(r"^(?P<base>.+?)(?:-VariableFont[^.]*|\[[^\]]*\])$")


def file_key(stem: str) -> tuple[str, str | None]:
    """(family, style) of a font file's name (without `.ttf`); style None: not a font file of
    a family. A variable font (`Inter[wght].ttf`, `Inter-Italic-VariableFont_wght.ttf`, as
    Google Fonts names them) is style `var` or `varitalic`."""
    m = _VARIABLE.match(stem)
    if m:
        base = m.group("base")
        italic = base.endswith("-Italic")
        return (base[:-len("-Italic")] if italic else base), "varitalic" if italic else "var"
    family, _, suffix = stem.rpartition("-")
    if not family:
        return stem, "regular"
    return family, file_style(suffix)


def variable(files: dict[str, Path], style: str, any_slant: bool = False) -> Path | None:
    """The family's variable font of `style`'s slant (any slant with `any_slant`) instanced at
    its weight (`instance`), or None: the family has none."""
    want = parse_style(style)
    assert want is not None
    weight, italic = want
    order = ("varitalic", "var") if italic else ("var", "varitalic")
    for key in order[:2 if any_slant else 1]:
        if key in files:
            return instance(files[key], weight)
    return None


def instance(path: Path, weight: int) -> Path:
    """A variable font's instance at `weight` (its `wght` axis clamped to the font's range,
    other axes at their defaults), made with fontTools' instancer once per font, weight and
    machine: kept in the user's cache by the file's content (`~/.cache/cardgen/font-instances/`).
    A file fontTools cannot instance is used as it is (its default instance)."""
    import contextlib
    import hashlib
    import tempfile

    from cardgen.core.digest import file_digest, library_stamp, user_cache

    head = (f"cardgen font instance {INSTANCE_FORMAT}\n{file_digest(path)}\n{path.resolve()}\n{weight}\n"
            f"{library_stamp('fontTools')}")
    key = hashlib.sha256(head.encode()).hexdigest()
    folder = user_cache("font-instances") or Path(tempfile.gettempdir()) / f"cardgen-font-instances-{key[:8]}"
    out = folder / f"{key}.ttf"
    if out.is_file():
        return out
    try:
        data = _instanced(path, weight)
    except Exception:  # fontTools trips anywhere on a damaged file: ReportLab's parser says what is wrong
        return path
    from cardgen.core.atomic import write_bytes

    with contextlib.suppress(OSError):
        folder.mkdir(parents=True, exist_ok=True)
        write_bytes(out, data)
    if not out.is_file():            # a read-only cache: a folder of this process
        out = Path(tempfile.mkdtemp(prefix="cardgen-fonts-")) / f"{key}.ttf"
        out.write_bytes(data)
    return out


def _instanced(path: Path, weight: int) -> bytes:
    import io

    from fontTools.ttLib import TTFont
    from fontTools.varLib import instancer

    from cardgen.core.paths import read_regular

    font = TTFont(io.BytesIO(read_regular(path)))
    limits: dict[str, float] = {}
    for axis in font["fvar"].axes:
        value = float(weight) if axis.axisTag == "wght" else axis.defaultValue
        limits[axis.axisTag] = min(max(value, axis.minValue), axis.maxValue)
    made = instancer.instantiateVariableFont(font, limits, updateFontNames=False)
    # its own PostScript name: a PDF tells its fonts apart by it (each weight its own font)
    names = made["name"]
    ps = str(names.getDebugName(6) or "Variable").replace(" ", "")
    names.removeNames(nameID=6)
    names.setName(f"{ps}-W{weight}", 6, 3, 1, 0x409)
    names.setName(f"{ps}-W{weight}", 6, 1, 0, 0)
    out = io.BytesIO()
    made.save(out)
    return out.getvalue()
