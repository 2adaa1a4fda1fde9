"""Benchmark: distinct poker cards to Tabletop Simulator deck sheets, against the floor.

    python benchmarks/bench_tts.py [--cards 500 ...] [--repeat 2]

For each size (default 500 cards: a title, a type line, a coloured frame, about 25 words of
text with an inline icon, one shared back) it prints, best of `--repeat` runs, build and
floor taking turns:

- build: `cardgen build --only tts` in a fresh process, into an empty output folder (so
  every card side is rasterized), measured with `measure.py`: wall time, CPU time (user +
  system) of the build and of every process it started (the raster workers and their fork
  server, orphans included), and the peak of their summed memory (RSS, sampled);
- rebuild: the same command again, nothing changed;
- floor: what making the deck sheets needs at the least, with the same libraries, in a
  fresh process with one worker process per core, all of it timed: a bare script (no cardgen)
  reads the deck's cards (`bench.yaml`), and each worker, sheet by sheet, draws the sheet's
  card sides into a PDF of its own with `bare_reportlab.py`'s drawing functions (the print
  yardstick's, told this deck's design by `DESIGN`), renders each page once with PDFium at
  the sheet's cell size, pastes it into the sheet and encodes the sheet as cardgen does (JPEG,
  quality 92, no chroma subsampling), and the back likewise; nothing else (no checks, no
  cache, no saved object);
- the ratios build / floor of the wall and CPU times (target, issue 30: at most 1.2).  On
  a machine other work shares, CPU time is the steadier comparison;
- on a line of its own, the median of the run-by-run ratios (each build against the floor
  measured right after it), with their range: a machine whose speed drifts from one minute
  to the next moves both sides of a pair alike, and the best of each side may come from
  different spells (`measure.paired_line`);
- on a line of its own, the render-only floor of sessions 4 to 9, for continuity: the card
  sides drawn by cardgen into one PDF beforehand, not timed, then only rendered, pasted and
  encoded as above; and the ratios of the build to it;
- on a line of its own, the CPU time of what the build does before it rasterizes and the
  render-only floor leaves out (`cardgen validate` in a fresh process: imports, loading, checks, laying
  out the cards; `measure.before_rasterizing`), its share of the build, and the rest of the
  build against the render-only floor.

Why the floor draws (session 10): a build cannot make the sheets without reading the cards,
laying them out and drawing them, and the render-only floor leaves all of that out, so no
build could come within 1.2x of it (what comes before rasterizing alone, about 1.3 s of a
500-card build, is more than a fifth of that floor's 2.3 s).  The floor that draws is a
careful hand-written script doing the same job, as `bare_reportlab.py` is for the print
sheets; it still leaves out what only cardgen does (templates, checks, text set word by word
with a fallback font, the bitmap cache that rebuilds, the gallery and one-card edits reuse).
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from measure import Measured, before_line, before_rasterizing, compiled, machine, measure, paired_line  # noqa: E402

FACE = """\
elements:
  - {name: frame, type: rect, box: bleed, fill: "{{ card.color }}"}
  - {name: panel, type: rect, x: 3mm, y: 3mm, width: 57.5mm, height: 82.9mm, radius: 2.5mm, fill: "#f7f0df"}
  - {name: title, type: text, x: 5mm, y: 5mm, width: 53.5mm, height: 9mm, text: "{{ card.name }}",
     font: Vollkorn, style: bold, size: 13, min_size: 8, fit: shrink, align: center, valign: middle,
     color: "{{ card.color }}"}
  - {name: type, type: text, x: 5mm, y: 15mm, width: 53.5mm, height: 4mm, text: "{{ card.kind }}",
     style: bold, size: 7, uppercase: true, align: center, color: "#555555"}
  - {name: art, type: icon, x: 21.75mm, y: 22mm, width: 20mm, height: 20mm, icon: "{{ card.icon }}",
     color: "{{ card.color }}"}
  - {name: box, type: rect, x: 5mm, y: 48mm, width: 53.5mm, height: 34mm, radius: 1.5mm, fill: "#ffffff",
     stroke: "{{ card.color }}", stroke_width: 0.6pt}
  - {name: text, type: text, x: 7mm, y: 50mm, width: 49.5mm, height: 30mm, text: "{{ card.text }}",
     size: 9, min_size: 6, fit: shrink, align: center, valign: middle, color: "#1f1b16"}
"""

BACK = """\
elements:
  - {name: bg, type: rect, box: bleed, fill: "#243b6b"}
  - {name: frame, type: rect, x: 4mm, y: 4mm, width: 55.5mm, height: 80.9mm, radius: 2.5mm, stroke: "#ffffff",
     stroke_width: 1pt}
  - {name: title, type: text, x: 6mm, y: 38mm, width: 51.5mm, height: 12mm, text: "{{ game.title }}",
     font: Vollkorn, style: bold, size: 20, color: "#ffffff", align: center, valign: middle}
"""

WORDS = ("gain lose draw discard each player partner abyss city treasure card round move "
         "your team may instead when another until end of turn take give one two three").split()
ICONS = ["coins", "shield", "trophy", "cog", "treasure", "crystal-ball", "heart-plus", "puzzle"]
COLORS = ["#1d6a72", "#5a3a86", "#2e6e34", "#9a6a12", "#b5542c", "#243b6b", "#8a1c3b", "#3f5f1f"]
QUALITY = 92                    # cardgen's default `tts.jpeg_quality`


def make_game(folder: Path, n: int) -> Path:
    """A game of one deck of `n` distinct cards (written here, not shared with other benchmarks)."""
    game = folder / "bench-tts"
    (game / "templates").mkdir(parents=True)
    (game / "templates" / "face.yaml").write_text(FACE)
    (game / "templates" / "back.yaml").write_text(BACK)
    (game / "game.yaml").write_text("title: TTS Bench\ncard_size: poker\n")
    lines = ["deck: Bench", "template: face", "back: back", "cards:"]
    for i in range(n):
        words = [WORDS[(i * 7 + k * 3) % len(WORDS)] for k in range(24)]
        words.insert(5 + i % 10, f":{ICONS[(i + 3) % len(ICONS)]}:")
        text = " ".join(words).capitalize() + "."
        lines.append(f"  - name: Card {i + 1:03d}")
        lines.append(f"    kind: Type {i % 5 + 1}")
        lines.append(f"    color: \"{COLORS[i % len(COLORS)]}\"")
        lines.append(f"    icon: {ICONS[i % len(ICONS)]}")
        lines.append(f"    text: \"{text}\"")
    (game / "bench.yaml").write_text("\n".join(lines) + "\n")
    return game


# -- the floors -------------------------------------------------------------------------------

# The deck's design as `bare_reportlab.card_form` and `back_form` draw it (`FACE` and `BACK`
# above: mm from the trim's top edge).
DESIGN = {
    "face": {"panel": "#f7f0df", "title": None, "title_size": 13.0, "title_base": 11.0, "kind": "kind",
             "kind_base": 18.0, "kind_colour": "#555555", "art": None, "art_top": 22.0,
             "box": (5.0, 48.0, 53.5, 34.0), "text_box": (7.0, 50.0, 49.5, 30.0), "text": "#1f1b16",
             "text_least": 6.0},
    "back": {"colour": "#243b6b", "icon": None, "frame": 4.0, "title": "TTS Bench", "title_size": 20.0},
}

# Both floors' last step, in a worker: `count` pages of `doc` from `first` rendered once at the
# cell size (their bleed, `bleed` pt, cropped), pasted into a sheet of cols x rows cells and
# encoded as cardgen encodes its sheets.
SHEET = r"""
import os, sys, multiprocessing as mp
import pypdfium2 as pdfium
from PIL import Image

def make_sheet(doc, first, count, cols, rows, cw, ch, bleed, quality, path):
    atlas = Image.new("RGB", (cols * cw, rows * ch), (255, 255, 255))
    for i in range(count):
        page = doc[first + i]
        w = page.get_width() - 2 * bleed
        img = page.render(scale=cw / w, crop=(bleed, bleed, bleed, bleed), rev_byteorder=True).to_pil()
        page.close()
        if img.size != (cw, ch):
            img = img.crop((0, 0, cw, ch))
        atlas.paste(img, ((i % cols) * cw, (i // cols) * ch))
    doc.close()
    atlas.save(path, "JPEG", quality=quality, subsampling=0, optimize=False)
"""

# The floor: a bare script (ReportLab, PDFium, Pillow; none of cardgen) that reads the deck's
# cards and, one worker process per core, sheet by sheet: draws the sheet's card sides into a
# PDF of its own with `bare_reportlab`'s drawing functions, then renders, pastes and encodes
# them (`SHEET`); the back likewise, alone.
FLOOR = SHEET + r"""
import io, json
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import bare_reportlab as bare
from reportlab.pdfgen.canvas import Canvas
game, out, plan = Path(sys.argv[2]), sys.argv[3], json.loads(sys.argv[4])
face = bare.Face(**{k: tuple(v) if isinstance(v, list) else v for k, v in plan["face"].items()})
back = bare.Back(**plan["back"])
bare.register_fonts()
cards = bare.read_cards(game / "bench.yaml")

def sheet(args):
    k, first, cols, rows, count = args
    buf = io.BytesIO()
    c = Canvas(buf, pagesize=(bare.W + 2 * bare.B, bare.H + 2 * bare.B), invariant=1, pageCompression=0)
    icons = bare.Icons(c)
    for n in range(first, first + count) if k >= 0 else [None]:
        c.doForm(bare.card_form(c, n, cards[n], face, icons) if n is not None else
                 bare.back_form(c, back, icons, back.title))
        c.showPage()
    c.save()
    make_sheet(pdfium.PdfDocument(buf.getvalue()), 0, count, cols, rows, plan["cw"], plan["ch"], bare.B,
               plan["quality"], os.path.join(out, f"{k}.jpg"))

with mp.get_context("fork").Pool(os.cpu_count()) as pool:
    pool.map(sheet, [tuple(s) for s in plan["sheets"]] + [(-1, 0, 1, 1, 1)], chunksize=1)
"""

# The render-only floor (sessions 4 to 9's): the same deck sheets from the sides cardgen drew
# into one PDF beforehand, not timed; in a fresh process with one worker per core, each sheet's
# sides rendered, pasted and encoded (`SHEET`); nothing else.
RENDER_FLOOR = SHEET + r"""
import json
pdf, out, plan = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])

def sheet(args):
    k, first, cols, rows, count = args
    make_sheet(pdfium.PdfDocument(pdf), first, count, cols, rows, plan["cw"], plan["ch"], plan["bleed"],
               plan["quality"], os.path.join(out, f"{k}.jpg"))

with mp.get_context("fork").Pool(os.cpu_count()) as pool:
    pool.map(sheet, [tuple(s) for s in plan["sheets"]], chunksize=1)
"""


def floor_pdf(game: Path, path: Path) -> dict:
    """The faces of `game` drawn into one PDF (a page each, with bleed) at `path`; returns the
    floor's plan: the deck sheets as cardgen plans them (TTS's defaults: 70 cards a sheet),
    their cell size and the cards' bleed in pt."""
    from cardgen.core.errors import Report
    from cardgen.layout.engine import layout_game
    from cardgen.outputs.tts_atlas import plan_sheets
    from cardgen.pipeline.check import load_game
    from cardgen.render import raster

    r = layout_game(load_game(game, game, Report()), Report())
    layouts = [face for _, _, face in r.faces]
    deck = r.faces[0][0]
    sheets = plan_sheets(layouts, deck.size.width, deck.size.height, True)
    path.write_bytes(raster.jobs_pdf(layouts, r.res.fonts))
    firsts = [0]
    for s in sheets:
        firsts.append(firsts[-1] + len(s.entries))
    return {"cw": sheets[0].cell_w, "ch": sheets[0].cell_h, "bleed": layouts[0].bleed, "quality": QUALITY,
            "sheets": [(k, firsts[k], s.cols, s.rows, len(s.entries)) for k, s in enumerate(sheets)]}


def run_floor(game: Path, out: Path, plan: dict) -> Measured:
    """The floor that draws (`FLOOR`), in a fresh process."""
    import json

    out.mkdir()
    m = measure([sys.executable, "-c", FLOOR, str(HERE), str(game), str(out), json.dumps({**plan, **DESIGN})])
    if m.returncode:
        raise SystemExit(f"floor failed:\n{m.stderr}")
    return m


def run_render_floor(pdf: Path, out: Path, plan: dict) -> Measured:
    """The render-only floor (`RENDER_FLOOR`), in a fresh process."""
    import json

    out.mkdir()
    m = measure([sys.executable, "-c", RENDER_FLOOR, str(pdf), str(out), json.dumps(plan)])
    if m.returncode:
        raise SystemExit(f"render-only floor failed:\n{m.stderr}")
    return m


def run_build(game: Path, out: Path) -> Measured:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    m = measure([sys.executable, "-m", "cardgen", "build", str(game), "--only", "tts", "--out", str(out),
                 "--quiet"], env=env)
    if m.returncode:
        raise SystemExit(f"build failed:\n{m.stderr}")
    return m


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cards", type=int, nargs="*", default=[500])
    ap.add_argument("--repeat", type=int, default=2)
    a = ap.parse_args()
    print(f"# {machine()}; {compiled(ROOT)}; best of {a.repeat}, build and floors taking turns; "
          f"target: build / floor (which draws the sides too) at most 1.2")
    print(f"{'cards':>6} {'sheets':>6} {'build s':>8} {'floor s':>8} {'ratio':>6} {'build CPU':>10} "
          f"{'floor CPU':>10} {'ratio':>6} {'build MB':>9} {'floor MB':>9} {'rebuild s':>10}")
    for n in a.cards:
        with tempfile.TemporaryDirectory() as tmp:
            t = Path(tmp)
            game = make_game(t, n)
            plan = floor_pdf(game, t / "floor.pdf")
            builds, floors, renders, rebuilds, befores = [], [], [], [], []
            for k in range(a.repeat):
                builds.append(run_build(game, t / f"out{k}"))
                rebuilds.append(run_build(game, t / f"out{k}"))
                floors.append(run_floor(game, t / f"floor{k}", plan))
                renders.append(run_render_floor(t / "floor.pdf", t / f"render{k}", plan))
                befores.append(before_rasterizing(game, ROOT))
                b, f, r = builds[-1], floors[-1], renders[-1]
                print(f"# run {k + 1}: build / floor CPU {b.cpu:.2f} / {f.cpu:.2f} s ({b.cpu / f.cpu:.2f}), "
                      f"wall {b.wall:.2f} / {f.wall:.2f} s ({b.wall / f.wall:.2f}); render-only floor CPU "
                      f"{r.cpu:.2f} s ({b.cpu / r.cpu:.2f}); before rasterizing {befores[-1].cpu:.2f} s", flush=True)
        bw, bc = min(m.wall for m in builds), min(m.cpu for m in builds)
        fw, fc = min(m.wall for m in floors), min(m.cpu for m in floors)
        rw, rc = min(m.wall for m in renders), min(m.cpu for m in renders)
        sheets = len(plan["sheets"])
        print(f"{n:>6} {sheets:>6} {bw:>8.2f} {fw:>8.2f} {bw / fw:>6.2f} {bc:>10.2f} {fc:>10.2f} {bc / fc:>6.2f} "
              f"{max(m.rss_mb for m in builds):>9.0f} {max(m.rss_mb for m in floors):>9.0f} "
              f"{min(m.wall for m in rebuilds):>10.2f}", flush=True)
        print(f"{'':>6} render-only floor (the sides drawn beforehand, untimed; sessions 4 to 9): {rw:.2f} s, "
              f"CPU {rc:.2f} s; build / it: wall {bw / rw:.2f}, CPU {bc / rc:.2f}", flush=True)
        print(before_line(min(m.cpu for m in befores), bc, rc, "render-only floor"), flush=True)
        print(paired_line([(m.cpu, m.wall) for m in builds], [(m.cpu, m.wall) for m in floors]), flush=True)
    print(f"# {machine()}")


if __name__ == "__main__":
    main()
