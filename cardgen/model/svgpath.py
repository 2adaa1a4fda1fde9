"""An SVG path (`d` attribute syntax) as the outline of a `shape: path` piece: parsed into
absolute moves, lines and cubic curves (quadratics raised, arcs split into quarter-turn cubics),
measured, moved and scaled, mirrored for a piece's back, and flattened to polygons.  Plain data
and arithmetic, in the units it was given (mm once loaded), y down.

An outline is a tuple of subpaths, each a tuple of commands: ("M", x, y), ("L", x, y),
("C", x1, y1, x2, y2, x, y), ("Z",): hashable, so it rides in a `CardSize` and a `CardLayout`.
"""
from __future__ import annotations

import math
import re
from collections.abc import Callable

Cmd = tuple
Outline = tuple[tuple[Cmd, ...], ...]

MAX_COMMANDS = 20_000          # a path longer than this is refused (a game folder is untrusted)
_TOKEN = re.compile(r"\s*,?\s*(?:([MmZzLlHhVvCcSsQqTtAa])|([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?))")
_ARGS = {"M": 2, "L": 2, "H": 1, "V": 1, "C": 6, "S": 4, "Q": 4, "T": 2, "A": 7, "Z": 0}


class PathSyntax(ValueError):
    """A path that does not parse: what is wrong, at which character (0-based) of the text."""

    def __init__(self, message: str, at: int) -> None:
        super().__init__(message)
        self.message, self.at = message, at


def _tokens(d: str) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    pos = 0
    d = d.rstrip()
    while pos < len(d):
        m = _TOKEN.match(d, pos)
        if m is None or m.end() == pos:
            bad = len(d[pos:]) - len(d[pos:].lstrip(" \t\r\n,"))
            raise PathSyntax(f"unexpected '{d[pos + bad]}'", pos + bad)
        out.append((m.group(1) or m.group(2), m.start(1) if m.group(1) else m.start(2)))
        if len(out) > 8 * MAX_COMMANDS:
            raise PathSyntax(f"more than {MAX_COMMANDS:,} commands", pos)
        pos = m.end()
    return out


def parse(d: str) -> Outline:
    """The outline `d` describes, in absolute coordinates; PathSyntax if it does not parse, or
    draws nothing (no subpath with a line or curve)."""
    toks = _tokens(d)
    if not toks:
        raise PathSyntax("the path is empty", 0)
    if toks[0][0] not in "Mm":
        raise PathSyntax(f"a path starts with M (a move), not '{toks[0][0]}'", toks[0][1])
    subs: list[list[Cmd]] = []
    state = _State()
    i, cmd = 0, ""
    while i < len(toks):
        tok, at = toks[i]
        if tok.isalpha():
            cmd, i = tok, i + 1
            if cmd in "Zz":
                state.close(subs)
                continue
        elif not cmd or cmd in "Zz":
            raise PathSyntax(f"a number ({tok}) where a command letter was expected", at)
        args = _args(toks, i, cmd, len(d.rstrip()))
        i += len(args)
        state.add(subs, cmd, args)
        if cmd == "M":
            cmd = "L"                   # numbers after a move are lines
        elif cmd == "m":
            cmd = "l"
        if sum(len(s) for s in subs) > MAX_COMMANDS:
            raise PathSyntax(f"more than {MAX_COMMANDS:,} commands", at)
    out = tuple(tuple(s) for s in subs if len(s) > 1)
    if not out:
        raise PathSyntax("the path draws nothing (no line or curve)", 0)
    for x in (v for s in out for c in s for v in c[1:]):
        if not math.isfinite(x) or abs(x) > 1e6:
            raise PathSyntax(f"a coordinate out of range ({x:g})", 0)
    return out


def _args(toks: list[tuple[str, int]], i: int, cmd: str, end: int) -> list[float]:
    """The numbers command `cmd` takes, from token `i` on."""
    n = _ARGS[cmd.upper()]
    args = []
    for k in range(n):
        if i + k >= len(toks) or toks[i + k][0].isalpha():
            raise PathSyntax(f"'{cmd}' needs {n} numbers, got {k}", toks[i + k][1] if i + k < len(toks) else end)
        args.append(float(toks[i + k][0]))
    if cmd.upper() == "A":
        for k in (3, 4):
            if args[k] not in (0.0, 1.0):
                raise PathSyntax(f"an arc's flags are 0 or 1, got {toks[i + k][0]}", toks[i + k][1])
    return args


class _State:
    """Where the pen is, where the subpath started, and the last control point (for S and T)."""

    def __init__(self) -> None:
        self.x = self.y = self.sx = self.sy = 0.0
        self.ctrl: tuple[str, float, float] | None = None       # ("C" or "Q", x, y)

    def close(self, subs: list[list[Cmd]]) -> None:
        if subs and subs[-1][-1] != ("Z",):
            subs[-1].append(("Z",))
        self.x, self.y, self.ctrl = self.sx, self.sy, None

    def add(self, subs: list[list[Cmd]], cmd: str, a: list[float]) -> None:
        rel, c = cmd.islower(), cmd.upper()
        ox, oy = (self.x, self.y) if rel else (0.0, 0.0)
        if c == "H":
            a = [a[0] + (self.x if rel else 0.0), self.y]
            c, rel, ox, oy = "L", False, 0.0, 0.0
        elif c == "V":
            a = [self.x, a[0] + (self.y if rel else 0.0)]
            c, rel, ox, oy = "L", False, 0.0, 0.0
        pts = [a[5] + ox, a[6] + oy] if c == "A" else [v + (ox if k % 2 == 0 else oy) for k, v in enumerate(a)]
        if c == "M":
            subs.append([("M", *pts)])
            self.x, self.y = self.sx, self.sy = pts[0], pts[1]
            self.ctrl = None
            return
        if not subs or subs[-1][-1] == ("Z",):              # drawing on after a close: from its start
            subs.append([("M", self.x, self.y)])
        seg = subs[-1]
        if c == "L":
            seg.append(("L", *pts))
            self.ctrl = None
        elif c in ("C", "S"):
            if c == "S":
                pts = [*self._reflect("C"), *pts]
            seg.append(("C", *pts))
            self.ctrl = ("C", pts[2], pts[3])
        elif c in ("Q", "T"):
            q = pts[:2] if c == "Q" else list(self._reflect("Q"))
            end = pts[2:] if c == "Q" else pts
            seg.append(("C", self.x + 2 / 3 * (q[0] - self.x), self.y + 2 / 3 * (q[1] - self.y),
                        end[0] + 2 / 3 * (q[0] - end[0]), end[1] + 2 / 3 * (q[1] - end[1]), *end))
            self.ctrl = ("Q", q[0], q[1])
        elif c == "A":
            seg.extend(_arc(self.x, self.y, a[0], a[1], a[2], bool(a[3]), bool(a[4]), *pts))
            self.ctrl = None
        last = seg[-1]
        self.x, self.y = last[-2], last[-1]
        if c not in ("C", "S", "Q", "T"):
            self.ctrl = None

    def _reflect(self, kind: str) -> tuple[float, float]:
        if self.ctrl is not None and self.ctrl[0] == kind:
            return 2 * self.x - self.ctrl[1], 2 * self.y - self.ctrl[2]
        return self.x, self.y


def _arc(x1: float, y1: float, rx: float, ry: float, phi_deg: float, large: bool, sweep: bool,
         x2: float, y2: float) -> list[Cmd]:
    """An SVG elliptical arc as cubic curves of at most a quarter turn each (SVG 1.1, F.6)."""
    if (x1, y1) == (x2, y2):
        return []
    rx, ry = abs(rx), abs(ry)
    if rx == 0 or ry == 0:
        return [("L", x2, y2)]
    phi = math.radians(phi_deg % 360)
    cp, sp = math.cos(phi), math.sin(phi)
    dx, dy = (x1 - x2) / 2, (y1 - y2) / 2
    x1p, y1p = cp * dx + sp * dy, -sp * dx + cp * dy
    lam = x1p ** 2 / rx ** 2 + y1p ** 2 / ry ** 2
    if lam > 1:
        rx, ry = rx * math.sqrt(lam), ry * math.sqrt(lam)
    num = rx ** 2 * ry ** 2 - rx ** 2 * y1p ** 2 - ry ** 2 * x1p ** 2
    den = rx ** 2 * y1p ** 2 + ry ** 2 * x1p ** 2
    k = math.sqrt(max(0.0, num / den)) * (-1 if large == sweep else 1)
    cxp, cyp = k * rx * y1p / ry, -k * ry * x1p / rx
    cx, cy = cp * cxp - sp * cyp + (x1 + x2) / 2, sp * cxp + cp * cyp + (y1 + y2) / 2

    def angle(ux: float, uy: float, vx: float, vy: float) -> float:
        return math.atan2(ux * vy - uy * vx, ux * vx + uy * vy)

    t1 = angle(1, 0, (x1p - cxp) / rx, (y1p - cyp) / ry)
    dt = angle((x1p - cxp) / rx, (y1p - cyp) / ry, (-x1p - cxp) / rx, (-y1p - cyp) / ry)
    if not sweep and dt > 0:
        dt -= 2 * math.pi
    elif sweep and dt < 0:
        dt += 2 * math.pi
    n = max(1, math.ceil(abs(dt) / (math.pi / 2) - 1e-9))
    step = dt / n
    alpha = 4 / 3 * math.tan(step / 4)

    def point(t: float) -> tuple[float, float, float, float]:
        ex, ey = rx * math.cos(t), ry * math.sin(t)             # on the ellipse, and its derivative
        tx, ty = -rx * math.sin(t), ry * math.cos(t)
        return (cx + cp * ex - sp * ey, cy + sp * ex + cp * ey, cp * tx - sp * ty, sp * tx + cp * ty)

    out: list[Cmd] = []
    for j in range(n):
        a0, a1 = t1 + j * step, t1 + (j + 1) * step
        p0x, p0y, d0x, d0y = point(a0)
        p1x, p1y, d1x, d1y = point(a1)
        if j == n - 1:
            p1x, p1y = x2, y2
        out.append(("C", p0x + alpha * d0x, p0y + alpha * d0y, p1x - alpha * d1x, p1y - alpha * d1y, p1x, p1y))
    return out


# -- measuring and moving ------------------------------------------------------------------------

def _cubic_extrema(a: float, b: float, c: float, d: float) -> list[float]:
    """The values of a cubic Bezier coordinate at its ends and turning points."""
    out = [a, d]
    qa, qb, qc = -a + 3 * b - 3 * c + d, 2 * (a - 2 * b + c), b - a      # derivative / 3
    if abs(qa) < 1e-12:
        roots = [-qc / qb] if abs(qb) > 1e-12 else []
    else:
        disc = qb * qb - 4 * qa * qc
        roots = [] if disc < 0 else [(-qb + s * math.sqrt(disc)) / (2 * qa) for s in (1, -1)]
    for t in roots:
        if 0 < t < 1:
            u = 1 - t
            out.append(u ** 3 * a + 3 * u * u * t * b + 3 * u * t * t * c + t ** 3 * d)
    return out


def bounds(path: Outline) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1): the box the outline covers (curves at their turning points)."""
    xs: list[float] = []
    ys: list[float] = []
    for sub in path:
        x = y = 0.0
        for cmd in sub:
            if cmd[0] == "C":
                xs += _cubic_extrema(x, cmd[1], cmd[3], cmd[5])
                ys += _cubic_extrema(y, cmd[2], cmd[4], cmd[6])
            elif cmd[0] in ("M", "L"):
                xs.append(cmd[1])
                ys.append(cmd[2])
            if cmd[0] != "Z":
                x, y = cmd[-2], cmd[-1]
    return min(xs), min(ys), max(xs), max(ys)


def mapped(path: Outline, f: Callable[[float, float], tuple[float, float]]) -> Outline:
    """The outline with every point moved by `f` (an affine map keeps it exact)."""
    def one(cmd: Cmd) -> Cmd:
        if cmd[0] == "Z":
            return cmd
        pts = [v for k in range(1, len(cmd), 2) for v in f(cmd[k], cmd[k + 1])]
        return (cmd[0], *pts)
    return tuple(tuple(one(c) for c in sub) for sub in path)


def to_d(path: Outline, digits: int = 3) -> str:
    """The outline as SVG path data (absolute M, L, C and Z)."""
    return " ".join(cmd[0] + " ".join(f"{v:.{digits}f}" for v in cmd[1:]) for sub in path for cmd in sub)


def mirrored(path: Outline, width: float) -> Outline:
    """The outline of a piece `width` wide as its other side shows it (turned over about its
    upright axis): x becomes width - x."""
    return mapped(path, lambda x, y: (width - x, y))


def fitted(path: Outline, width: float | None, height: float | None) -> tuple[Outline, float, float]:
    """The outline moved so its box starts at (0, 0), scaled to `width` x `height` when given
    (each axis on its own), and the box's size."""
    x0, y0, x1, y1 = bounds(path)
    w, h = x1 - x0, y1 - y0
    sx = width / w if width and w > 0 else 1.0
    sy = height / h if height and h > 0 else 1.0
    return mapped(path, lambda x, y: ((x - x0) * sx, (y - y0) * sy)), w * sx, h * sy


def polygons(path: Outline, tolerance: float = 0.01) -> list[list[tuple[float, float]]]:
    """Each subpath as a polygon (closed), curves cut into chords no farther than about
    `tolerance` from the curve."""
    out = []
    for sub in path:
        pts: list[tuple[float, float]] = []
        for cmd in sub:
            if cmd[0] in ("M", "L"):
                pts.append((cmd[1], cmd[2]))
            elif cmd[0] == "C":
                x0, y0 = pts[-1]
                size = math.dist((x0, y0), (cmd[1], cmd[2])) + math.dist((cmd[1], cmd[2]), (cmd[3], cmd[4])) \
                    + math.dist((cmd[3], cmd[4]), (cmd[5], cmd[6]))
                n = max(2, min(256, math.ceil(math.sqrt(size / max(tolerance, 1e-6)))))
                for j in range(1, n + 1):
                    t = j / n
                    u = 1 - t
                    pts.append((u ** 3 * x0 + 3 * u * u * t * cmd[1] + 3 * u * t * t * cmd[3] + t ** 3 * cmd[5],
                                u ** 3 * y0 + 3 * u * u * t * cmd[2] + 3 * u * t * t * cmd[4] + t ** 3 * cmd[6]))
        if len(pts) > 1 and math.dist(pts[0], pts[-1]) < 1e-9:
            pts.pop()
        if len(pts) >= 2:
            out.append(pts)
    return out
