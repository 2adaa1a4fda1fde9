"""The contrast of text with what is actually drawn behind it, measured on the rendered card.

Each distinct card side is rasterized once, at the screen class's resolution (the gallery's
own by default, and the TTS deck sheets' cells: a poker card at 409 x 573 px, 164 dpi), through
the bitmap cache the gallery, `cardgen serve` and Tabletop Simulator use
(`cardgen.render.raster`: a rebuild rasterizes only what changed), and measured where it is
rendered.  For each line of text, the pixels under the line's box are
counted; the most common colour among them that is not the text's own is what is behind it (a
line whose box is mostly the text's colour has its text on its own colour).  The text's colour
against it must reach 4.5:1 (WCAG 2), or 3:1 for large text (18 pt, or 14 pt bold).  Rotated
text is not measured.  Run by `cardgen build` and `cardgen validate --deep` (it needs Pillow
and the PDF renderer, which plain `cardgen validate` never imports).
"""
from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator
from itertools import groupby
from pathlib import Path
from typing import Any

from cardgen.check.colours import contrast, delta_e, hex_of
from cardgen.core.cachefile import CacheFile
from cardgen.core.errors import Report
from cardgen.model import ops
from cardgen.resources.fonts import font_files

NORMAL, LARGE = 4.5, 3.0
_NEAR = 10.0            # delta E: a pixel this close to the text's colour is the text's


def _lines(op: ops.Text) -> list[tuple[tuple[float, float, float, float], ops.Run]]:
    """Each line of text of `op`: its box (x0, y0, x1, y1, pt) and its first run's style."""
    lines: dict[float, list[ops.Run]] = {}
    for r in op.runs:
        if r.kind == "text" and str(r.content).strip() and r.color is not None:
            lines.setdefault(round(r.baseline, 2), []).append(r)
    out = []
    for runs in lines.values():
        size = max(r.size for r in runs)
        base = runs[0].baseline
        out.append(((min(r.x for r in runs), base - 0.7 * size, max(r.x + r.width for r in runs), base + 0.15 * size),
                    max(runs, key=lambda r: r.width)))
    return out


_FIVE_BITS = bytes(v >> 3 for v in range(256))      # a channel's value, to the 32 levels colours are counted at


def behind(pixels: Any, ink: tuple[float, ...]) -> tuple[float, float, float]:
    """The colour behind text of colour `ink` among the pixels of its line's box (an RGB
    image, or its bytes): the most common colour that is not the ink's, of two as common the
    one met first; the ink's own when most of the box is that.  (The channels are cut to 32
    levels by `bytes.translate` and the colours counted by `Image.getcolors`, both in C:
    counting the pixels in Python, even with `collections.Counter`, took about 3 ms a card side.)"""
    ranked, total = _ranked(pixels)
    first = None
    for n, (r, g, b) in ranked:
        colour = ((r * 8 + 4) / 255, (g * 8 + 4) / 255, (b * 8 + 4) / 255)
        first = first or colour
        if delta_e(colour, ink) >= _NEAR:
            return colour
        if n > 0.6 * total:
            return colour           # the text stands on its own colour
    return first or (4 / 255, 4 / 255, 4 / 255)


def _ranked(pixels: Any) -> tuple[Iterator[tuple[int, tuple[int, int, int]]], int]:
    """(each colour of the box at 32 levels a channel with its count, most common first and of
    equal counts the one met first in the box's rows; the box's pixel count).  The order among
    equal counts is found only for those `behind` looks at."""
    from PIL import Image

    if isinstance(pixels, Image.Image):
        size, data = pixels.size, pixels.tobytes()
    else:
        size, data = (len(pixels) // 3, 1), bytes(pixels)
    total = size[0] * size[1]
    cut = data.translate(_FIVE_BITS)
    counted = Image.frombytes("RGB", size, cut).getcolors(min(total, 32768)) or []   # (at most 32768 at 5 bits)
    ranked: list[tuple[Any, int]] = sorted(((colour, n) for n, colour in counted), key=lambda c: -c[1])

    def first_at(colour: tuple[int, int, int]) -> int:
        pattern, at = bytes(colour), -1
        while True:
            at = cut.find(pattern, at + 1)
            if at < 0 or at % 3 == 0:
                return at

    def ordered() -> Iterator[tuple[int, tuple[int, int, int]]]:
        for n, same in groupby(ranked, key=lambda c: c[1]):
            tied = list(same)
            if len(tied) > 1:
                tied.sort(key=lambda c: first_at(c[0]))
            for colour, _ in tied:
                yield n, colour

    return ordered(), total


def _ink(r: ops.Run, bg: tuple[float, ...]) -> tuple[float, ...]:
    c = r.color or (0.0, 0.0, 0.0, 1.0)
    a = c[3] if len(c) > 3 else 1.0
    return tuple(a * c[i] + (1 - a) * bg[i] for i in range(3))


def worst_line(op: ops.Text, img: Any, scale: float) -> tuple[float, float, tuple, tuple] | None:
    """(contrast, the ratio it needs, text colour, colour behind) of the line of `op` that
    falls shortest of the ratio it needs, on `img` (`scale` px per pt); None if all reach it."""
    worst = None
    for (x0, y0, x1, y1), run in _lines(op):
        box = (max(0, int(x0 * scale)), max(0, int(y0 * scale)), min(img.width, int(x1 * scale) + 1),
               min(img.height, int(y1 * scale) + 1))
        if box[2] - box[0] < 2 or box[3] - box[1] < 2:
            continue
        first = run.color or (0.0, 0.0, 0.0, 1.0)
        bg = behind(img.crop(box), first)
        ink = _ink(run, bg)
        bold = "bold" in run.font.lower() or "black" in run.font.lower() or "heavy" in run.font.lower()
        need = LARGE if run.size >= 18 or (run.size >= 14 and bold) else NORMAL
        ratio = contrast(ink, bg)
        if ratio < need - 0.005 and (worst is None or ratio / need < worst[0] / worst[1]):
            worst = (ratio, need, ink, bg)
    return worst


def _sides(rendered) -> list[tuple[Any, Any, str, ops.CardLayout]]:
    """(deck, card or None, which side, layout) of every distinct side that is printed."""
    out, seen = [], set()
    for deck, card, face in rendered.faces:
        if card.count <= 0:
            continue
        out.append((deck, card, "face", face))
        back = rendered.back_of(deck, card)
        if back is not None and id(back) not in seen:
            seen.add(id(back))
            out.append((deck, card if deck.backs else None, "backs" if deck.backs else "back", back))
    return out


class Measured(CacheFile):
    """What each card side measured (`_measure`), by its bitmap's size and the side's content
    (`ops.layout_digest`: its drawing operations and the content of every font, icon and image
    file it uses; the drawing code and libraries are in the file's stamp, `core.cachefile`),
    in one file of the output folder, `.cache/contrast.bin` (sealed, this installation's own,
    holding the sides the last build used).  A rebuild reads it once and writes it only when a
    side was measured: an edit touches one file, not one per side, and imports no renderer
    when no side changed."""

    NAME = "contrast.bin"

    @staticmethod
    def entry_ok(key: Any, entry: Any) -> bool:
        return isinstance(key, str) and _lines_shape(entry)


def _lines_shape(value: Any) -> bool:
    """What `_measure` makes: [[element, contrast, ratio needed, text colour, colour behind]]."""
    def colour(c: Any) -> bool:
        return isinstance(c, list) and len(c) == 3 and all(type(v) is float for v in c)

    return isinstance(value, list) and all(
        isinstance(x, list) and len(x) == 5 and isinstance(x[0], str) and type(x[1]) is float
        and type(x[2]) is float and colour(x[3]) and colour(x[4]) for x in value)


_open: dict[Path, Measured] = {}        # (one per output folder and process: `cardgen serve` keeps it)


def check_contrast(rendered, report: Report, out_dir: Path, keep: bool = True) -> None:
    """A warning at the template line of each text element whose text lacks contrast with what
    is drawn behind it, with the card (said once for all the cards it is on).  What a side
    measured is kept by the same content hash as its bitmap (`Measured`), so a rebuild
    measures, and decodes, only the sides that changed.  Without `keep` (`validate --deep`), a
    game never built leaves nothing behind: its bitmaps go to a temporary folder."""
    from cardgen.render import raster

    sides = _sides(rendered)
    if not sides:
        return
    specs = [raster.screen_png_spec(layout) for _, _, _, layout in sides]
    with contextlib.ExitStack() as stack:
        if keep or out_dir.is_dir():
            cache = raster.Cache.of(out_dir)        # (the build's: its gallery and TTS reuse the bitmaps)
            measured = Measured.open_in(out_dir, _open)
        else:
            cache = raster.Cache(Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="cardgen-contrast-"))))
            measured = Measured()
        fonts = font_files()
        keys = [f"{spec.token()} {ops.layout_digest(layout, fonts)}"
                for (_, _, _, layout), spec in zip(sides, specs, strict=True)]
        found = [measured.get(k) for k in keys]
        todo = [i for i, f in enumerate(found) if f is None]
        if todo:
            # each side measured where its bitmap is made (`raster.Probe`: a worker, for many),
            # not read back from the cache; one made before, or for an equal side, read back
            answers: dict[str, Any] = {}
            probe = raster.Probe(measure_image)
            with raster.Pool() as pool:
                paths = raster.rasterize([(sides[i][3], specs[i]) for i in todo], cache, raster.font_dirs_of(rendered),
                                         pool, probes=(dict.fromkeys(range(len(todo)), probe), answers))
            for i, path in zip(todo, paths, strict=True):
                found[i] = answers[str(path)] if str(path) in answers else _measure(sides[i][3], path, specs[i])
                measured.put(keys[i], found[i])
            with contextlib.suppress(OSError):
                measured.save()
    templates = rendered.res.templates
    for (deck, card, side, _), lines in zip(sides, found, strict=True):
        if not lines:
            continue
        ref = deck.template if side == "face" else deck.back if side == "back" else deck.backs
        try:
            elements = {str(e.get("name")): e for e in templates.get(ref, deck.template_loc).elements}
        except Exception:       # (reported where the template is checked)
            elements = {}
        for name, ratio, need, ink, bg in lines:
            _warn(report, deck, card, side, elements.get(name), name, (ratio, need, tuple(ink), tuple(bg)))


def _measure(layout: ops.CardLayout, path: Path, spec) -> list:
    """`measure_image` of a side's bitmap in the cache (not decoded if it has no text)."""
    from cardgen.render import raster

    if not any(isinstance(op, ops.Text) and not op.rotate and op.runs for op in layout.ops):
        return []
    return measure_image(raster.open_image(path), layout, spec)


def measure_image(img: Any, layout: ops.CardLayout, spec) -> list:
    """[element, contrast, ratio needed, text colour, colour behind] of each text element of a
    side whose text falls short, the line that falls shortest of each, on its bitmap `img`
    (`spec`'s size, without bleed)."""
    texts = [op for op in layout.ops if isinstance(op, ops.Text) and not op.rotate and op.runs]
    scale = spec.px_w / layout.width
    out, said = [], set()
    for op in texts:
        if op.element in said:
            continue
        found = worst_line(op, img, scale)
        if found is not None:
            said.add(op.element)
            ratio, need, ink, bg = found
            out.append([op.element, ratio, need, list(ink), list(bg)])
    return out


def _warn(report: Report, deck, card, side: str, el, name: str, found: tuple) -> None:
    ratio, need, ink, bg = found
    loc = (el.value_loc("color") if "color" in el else el.loc) if el is not None else \
        (card.loc if card is not None else deck.back_loc or deck.loc)
    what = f"element '{name}'"
    advice = (f"text contrast with what is drawn behind it under {need:g}:1 (measured on the rendered card); "
              f"darken or lighten the text or what is behind it")
    detail = f"{hex_of(ink)} on {hex_of(bg)} is {ratio:.2f}:1"
    if card is None:
        report.warn(loc, f"deck '{deck.name}' back, {what}: {advice} ({detail})", "contrast")
        return
    whose = f"card '{card.name}' ({card.loc.short})" + (" back" if side == "backs" else "")
    report.warn(loc, f"{whose}, {what}: {advice} ({detail})", "contrast",
                group=f"{what}: {advice}" + (" (backs)" if side == "backs" else ""),
                card=f"'{card.name}', {card.loc.brief}")
