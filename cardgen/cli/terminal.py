"""What `cardgen build` shows while it works: progress bars (click's) for stages that take
longer than about a second, on a terminal only, and the closing summary of each game."""
from __future__ import annotations

import contextlib
import mmap
import os
import re
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TextIO

import click

from cardgen.core.errors import display_path, plural, relative_to
from cardgen.core.progress import Bar

DELAY = 1.0     # seconds a stage runs before its bar appears


class DelayedBar:
    """A click progress bar that appears only once its stage has run for `delay` seconds."""

    def __init__(self, label: str, total: int, file: TextIO, delay: float = DELAY,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.label, self.total, self.file, self.delay, self.clock = label, total, file, delay, clock
        self.start = clock()
        self.done = 0
        self.step = ""
        self.bar: Any = None

    def _text(self) -> str:
        return f"{self.label} {self.step}".strip()

    def advance(self, steps: int = 1, label: str | None = None) -> None:
        self.done += steps
        if label is not None:
            self.step = label
        if self.bar is None and self.clock() - self.start >= self.delay:
            self.bar = click.progressbar(length=self.total, label=self._text(), file=self.file, width=30)
            self.bar.__enter__()
            self.bar.update(self.done)
        elif self.bar is not None:
            self.bar.label = self._text()
            self.bar.update(steps)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None


def bar_factory(quiet: bool, stream: TextIO | None = None) -> Callable[[str, int], Bar] | None:
    """Progress bars on `stream` (default stderr) if it is a terminal and not `quiet`; else None."""
    stream = stream or sys.stderr
    if quiet or not stream.isatty() or os.environ.get("TERM") == "dumb":
        return None
    return lambda label, total: DelayedBar(label, total, stream)


DUPLEX_ALWAYS = ("rules-booklet-",)     # imposed booklets: two pages a sheet
SINGLE_SIDED = ("-foldover.pdf",)       # fold-over print sheets (`outputs/foldover.py`)


_PAGES = re.compile(rb"/Type\s*/Pages\b")
_COUNT = re.compile(rb"/Count\s+(\d+)")


_SHEETS = re.compile(rb"/Subject \(print sheets: (\d+) double-sided, (\d+) single-sided\)")


def pdf_sheets(path: Path) -> tuple[int, int] | None:
    """(double-sided, single-sided) sheets of paper a print sheets PDF cardgen wrote takes, as its
    subject says (`render.pdf.SheetWriter`); None when it does not say."""
    m = _SHEETS.search(Path(path).read_bytes())
    return (int(m.group(1)), int(m.group(2))) if m else None


def _page_trees(data: Any) -> Iterator[bytes]:
    """Each dictionary `<< ... /Type /Pages ... >>` (no `<<` or `>>` inside) of a PDF's bytes,
    found from its `/Type /Pages`: a pattern that began at every `<<` (each image's stream
    holds thousands) took a second of CPU for each 30 MB PDF of a photo game."""
    for m in _PAGES.finditer(data):
        start = data.rfind(b"<<", 0, m.start())
        end = data.find(b">>", m.end())
        if start >= 0 and end >= 0 and data.find(b">>", start + 2, m.start()) < 0 \
                and data.find(b"<<", m.end(), end) < 0:
            yield bytes(data[start:end + 2])


def pdf_pages(path: Path) -> int:
    """The number of pages: read from the page tree's root in the file cardgen wrote (no
    PDF library to import, nothing to parse, the file mapped, not read); pypdf for a file
    laid out otherwise."""
    with open(path, "rb") as f, contextlib.ExitStack() as stack:
        try:
            data: Any = stack.enter_context(mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ))
        except (ValueError, OSError):       # (empty, or a file system without it)
            data = f.read()
        counts = [int(m.group(1)) for tree in _page_trees(data) if (m := _COUNT.search(tree))]
    if counts:
        return max(counts)           # the root of the page tree counts every page
    from pypdf import PdfReader

    return len(PdfReader(path).pages)


def _names(files: list[Path], root: Path) -> str:
    """`print-a4.pdf, tts/ (3 files)`: files at the top of the output folder by name, the
    others by their folder there."""
    top: list[str] = []
    folders: dict[str, int] = {}
    base = os.path.abspath(root)
    inside = os.path.join(base, "")
    for f in files:
        full = os.path.abspath(f)        # (its path inside without `relpath`: 2,000 removed images)
        rel = Path(full[len(inside):] if full.startswith(inside) else os.path.relpath(full, base))
        if len(rel.parts) > 1:
            folders[rel.parts[0]] = folders.get(rel.parts[0], 0) + 1
        else:
            top.append(rel.name)
    return ", ".join([*sorted(top), *(f"{d}/ ({plural(n, 'file')})" for d, n in sorted(folders.items()))])


def game_summary(name: str, cards: int, written: list[Path], out_dir: Path, seconds: float,
                 duplex_print: bool, kept: list[Path] | None = None, unchanged: bool = False,
                 earlier: list[Path] | None = None, removed: list[Path] | None = None) -> list[str]:
    """`g: 12 cards built in 0.84s into build/g/` and one line per output: pages (and sheets
    of paper for what is printed double-sided), the number of files in a folder, or
    `unchanged` for what was kept from the last build because nothing it is made from changed;
    then the outputs of an earlier build that this one did not make: left in place, still
    right (`earlier`), or removed, out of date (`removed`).  `unchanged`: nothing at all
    changed, one line says so."""
    kept = kept or []
    tail = []
    if earlier:
        tail.append(f"  also there, from an earlier build of this same game: {_names(earlier, out_dir)}")
    if removed:
        tail.append(f"  removed, from an earlier build of an older version of the game: {_names(removed, out_dir)}")
    lines = _summary(name, cards, written, out_dir, seconds, duplex_print, kept, unchanged)
    return lines + tail


def _inside(files: list[Path], out_dir: Path) -> list[tuple[Path, tuple[str, ...]]]:
    """Each file (inside `out_dir`, as the staging names it) and the parts of its path
    relative to `out_dir`: from the paths as given (a few thousand gallery images resolved
    cost a realpath each), else (a file named through a link) resolved."""
    root = os.path.abspath(out_dir)
    out = []
    for q in files:
        rel = relative_to(os.path.abspath(q), root)
        if rel.startswith(".."):
            rel = str(Path(q).resolve().relative_to(Path(out_dir).resolve()))
        out.append((q, tuple(rel.split(os.sep))))
    return out


def _summary(name: str, cards: int, written: list[Path], out_dir: Path, seconds: float,
             duplex_print: bool, kept: list[Path], unchanged: bool) -> list[str]:
    if unchanged:
        return [f"{name}: up to date, nothing changed since the last build ({plural(cards, 'card')} in "
                f"{display_path(out_dir)}/, checked in {seconds:.2f}s)"]
    if not written and not kept:
        return [f"{name}: nothing written"]
    from cardgen.layout.manifest import MANIFEST  # (here: a rebuild with nothing changed loads no game)

    lines = [f"{name}: built in {seconds:.2f}s: {plural(cards, 'card')} into {display_path(out_dir)}/"]
    folders: dict[str, list[int]] = {}          # folder -> [files written, files kept]
    rows: list[tuple[str, str]] = []
    files = [(p, rel, False) for p, rel in _inside(written, out_dir)] + [(p, rel, True) for p, rel in
                                                                       _inside(kept, out_dir)]
    for p, rel, same in sorted(files, key=lambda f: (len(f[1]), "/".join(f[1]))):
        if rel[-1] == MANIFEST:             # the build's record (docs/changes.md), not an output
            continue
        if len(rel) > 1:
            folders.setdefault(rel[0], [0, 0])[1 if same else 0] += 1
            continue
        if same:
            rows.append((p.name, "unchanged"))
        elif p.suffix == ".pdf":
            pages = pdf_pages(p)
            text = plural(pages, "page")
            sheets = p.name.startswith(("print-", "changes-"))
            duplex = p.name.startswith(DUPLEX_ALWAYS) or (sheets and duplex_print and not p.name.endswith(SINGLE_SIDED))
            both = pdf_sheets(p) if sheets else None
            if both and all(both):          # some sheets one-sided (dice's stickers, a board's sheets)
                text += f", {plural(sum(both), 'sheet')}: {both[0]} double-sided, {both[1]} single-sided"
            elif duplex:
                text += f", {plural((pages + 1) // 2, 'sheet')} double-sided"
            elif sheets:
                text += f", {plural(pages, 'sheet')}"
            rows.append((p.name, text))
        else:
            rows.append((p.name, ""))
    for folder, (n_new, n_same) in folders.items():
        text = plural(n_new + n_same, "file")
        rows.append((f"{folder}/", text + (", unchanged" if not n_new else f" ({n_same} unchanged)" if n_same else "")))
    if not rows:                            # e.g. --only booklet for a game without a rulebook
        return [f"{name}: nothing written"]
    width = max(len(r[0]) for r in rows)
    lines += [f"  {n.ljust(width)}  {t}".rstrip() for n, t in rows]
    return lines
