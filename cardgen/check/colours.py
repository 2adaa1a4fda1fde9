"""Colour as people see it: relative luminance and contrast ratio (WCAG 2), CIE L*a*b* and
the distance between two colours (CIE76 delta E), and colour-vision deficiencies simulated with
the Machado, Oliveira and Fernandes (2009) matrices at severity 1.0, applied to linear sRGB.

Pure arithmetic (no Pillow): `cardgen validate` uses it for colour coding, the pixel-measured
contrast check (`cardgen.check.contrast`) for contrast, and the gallery's colour-vision toggle
(`cardgen.outputs.album`) for the same matrices as an SVG `feColorMatrix`.
"""
from __future__ import annotations

from collections.abc import Sequence

RGB = tuple[float, float, float]        # sRGB, each 0..1
Matrix = tuple[RGB, RGB, RGB]

# Machado et al. 2009, "A Physiologically-based Model for Simulation of Color Vision
# Deficiency", severity 1.0 (dichromacy); for linear RGB.
MACHADO: dict[str, Matrix] = {
    "protanopia": ((0.152286, 1.052583, -0.204868),
                   (0.114503, 0.786281, 0.099216),
                   (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968),
                     (0.280085, 0.672501, 0.047413),
                     (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779),
                   (-0.078411, 0.930809, 0.147602),
                   (0.004733, 0.691367, 0.303900)),
}
# Greyscale as a printer or copier makes it: the luminance (Rec. 709 / sRGB weights).
GREY: Matrix = ((0.2126, 0.7152, 0.0722),) * 3
VISIONS: dict[str, Matrix] = {**MACHADO, "greyscale": GREY}


def linear(c: float) -> float:
    """An sRGB channel (0..1) to linear light."""
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def encoded(c: float) -> float:
    """A linear channel back to sRGB (clamped to 0..1)."""
    c = min(1.0, max(0.0, c))
    return 12.92 * c if c <= 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055


def luminance(rgb: Sequence[float]) -> float:
    """WCAG 2 relative luminance of an sRGB colour."""
    r, g, b = (linear(c) for c in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: Sequence[float], b: Sequence[float]) -> float:
    """WCAG 2 contrast ratio of two sRGB colours, 1 to 21."""
    la, lb = luminance(a), luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def simulate(rgb: Sequence[float], vision: str) -> RGB:
    """`rgb` as seen with `vision` (a key of `VISIONS`)."""
    lin = [linear(c) for c in rgb[:3]]
    m = VISIONS[vision]
    r, g, b = (encoded(sum(m[i][j] * lin[j] for j in range(3))) for i in range(3))
    return r, g, b


def lab(rgb: Sequence[float]) -> RGB:
    """CIE L*a*b* (D65) of an sRGB colour."""
    r, g, b = (linear(c) for c in rgb[:3])
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

    fx, fy, fz = f(x), f(y), f(z)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def delta_e(a: Sequence[float], b: Sequence[float]) -> float:
    """CIE76 colour difference of two sRGB colours (about 2.3: just noticeable side by side)."""
    la, lb = lab(a), lab(b)
    return sum((p - q) ** 2 for p, q in zip(la, lb, strict=True)) ** 0.5


def hex_of(rgb: Sequence[float]) -> str:
    return "#" + "".join(f"{round(min(1.0, max(0.0, c)) * 255):02x}" for c in rgb[:3])
