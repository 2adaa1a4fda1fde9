"""A photo game: what a build costs when every card shows a large picture.

    python benchmarks/bench_art.py [--cards N] [--only OUTPUT] [--limit-mb MB] [--runs R]

A synthetic game of N poker cards (default 100, `synthetic.py` plus an `image` element
covering the top half of the card), each showing its own 3000 x 4000 px PNG (what a
designer's own photos or generated art are): smooth gradients with noise over them, made
deterministically from a seed, so that they neither compress to nothing nor differ between
runs.  The art is made once and kept in a folder of the temporary directory
(`cardgen-bench-art`), shared by later runs.

Each run is a whole `python -m cardgen build` (every default output, or `--only`) into an
empty output folder, measured with `measure.py`: wall time, CPU (user + system) of every
process the build started, raster workers and orphans included, and the peak memory of all
of them together (summed RSS and PSS, sampled every 50 ms).  `--limit-mb` (default 6000)
stops a build whose processes pass that much memory together (reported as stopped).
Target (issue 30): every default output under 60 s and 1.5 GB.
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from measure import machine, measure  # noqa: E402
from synthetic import make_game  # noqa: E402

ART_W, ART_H = 3000, 4000
ART_ELEMENT = ('  - {name: photo, type: image, src: "{{ card.art }}", x: 4mm, y: 19mm, width: 55.5mm, '
               'height: 26mm, fit: cover}\n')


def make_art(path: Path, seed: int) -> None:
    """A 3000 x 4000 px RGB PNG: a two-colour gradient with coarse and fine noise on it."""
    from PIL import Image

    rng = random.Random(seed)
    tile_w, tile_h = ART_W // 6, ART_H // 6
    noise = Image.frombytes("RGB", (tile_w, tile_h), rng.randbytes(tile_w * tile_h * 3))
    noise = noise.resize((ART_W, ART_H), Image.Resampling.BICUBIC)
    c1 = tuple(rng.randrange(256) for _ in range(3))
    c2 = tuple(rng.randrange(256) for _ in range(3))
    grad = Image.linear_gradient("L").resize((ART_W, ART_H)).rotate(rng.randrange(360), expand=False)
    base = Image.composite(Image.new("RGB", (ART_W, ART_H), c1), Image.new("RGB", (ART_W, ART_H), c2), grad)
    fine = Image.frombytes("L", (ART_W // 2, ART_H // 2), rng.randbytes(ART_W * ART_H // 4))
    fine = fine.resize((ART_W, ART_H), Image.Resampling.NEAREST).convert("RGB")
    out = Image.blend(Image.blend(base, noise, 0.35), fine, 0.08)
    out.save(path, compress_level=1)


def art_folder(n: int) -> Path:
    """The folder of the first `n` pictures (made as needed; each written whole, then renamed)."""
    folder = Path(tempfile.gettempdir()) / "cardgen-bench-art"
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        target = folder / f"photo{i + 1:04d}.png"
        if not target.exists():
            make_art(folder / "making.png", 1000 + i)
            os.replace(folder / "making.png", target)
    return folder


def make_photo_game(root: Path, n: int) -> Path:
    make_game(root, n)
    face = root / "templates" / "bench" / "face.yaml"
    face.write_text(face.read_text(encoding="utf-8").replace(
        '  - {name: art, type: icon', ART_ELEMENT + '  - {name: art_icon, type: icon', 1)
        .replace("x: 21.75mm, y: 21mm, width: 20mm, height: 20mm", "x: 27mm, y: 38mm, width: 9mm, height: 7mm"),
        encoding="utf-8")
    art = root / "art"
    art.mkdir(exist_ok=True)
    for src in sorted(art_folder(n).glob("photo*.png"))[:n]:
        shutil.copy(src, art / src.name)
    deck = root / "deck.yaml"
    lines = deck.read_text(encoding="utf-8").splitlines()
    out, k = [], 0
    for line in lines:
        if line.startswith("  - {name:"):
            k += 1
            line = line[:-1] + f', art: "photo{k:04d}.png"}}'
        out.append(line)
    deck.write_text("\n".join(out) + "\n", encoding="utf-8")
    return root


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cards", type=int, default=100)
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("--limit-mb", type=float, default=6000)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--keep", help="build into this folder and keep it")
    a = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(REPO)
    art_folder(a.cards)
    print(f"{a.cards} cards, each with its own {ART_W} x {ART_H} px PNG; "
          f"{'every default output' if not a.only else ', '.join(a.only)}; {machine()}", flush=True)
    for _ in range(a.runs):
        with tempfile.TemporaryDirectory() as tmp:
            game = make_photo_game(Path(tmp) / "photos", a.cards)
            out = Path(a.keep) if a.keep else Path(tmp) / "out"
            if out.exists():
                shutil.rmtree(out)
            args = [sys.executable, "-m", "cardgen", "build", str(game), "--out", str(out), "--quiet"]
            for o in a.only:
                args += ["--only", o]
            m = measure(args, cwd=tmp, env=env, limit_mb=a.limit_mb)
            state = "STOPPED at the memory limit" if m.killed else ("ok" if m.returncode == 0 else
                                                                     f"failed ({m.returncode})")
            print(f"  wall {m.wall:6.1f} s   CPU {m.cpu:6.1f} s   peak RSS {m.rss_mb:7.0f} MB   "
                  f"PSS {m.pss_mb:7.0f} MB   processes {m.procs}   {state}", flush=True)
            if m.returncode and not m.killed:
                print(m.stderr[-2000:])
            made = sorted(p for p in out.rglob("*") if p.is_file() and ".cache" not in p.parts) \
                if out.exists() else []
            if made:
                total = sum(p.stat().st_size for p in made)
                print(f"  {len(made)} files, {total / 1e6:.0f} MB", flush=True)


if __name__ == "__main__":
    main()
