"""Tabletopia images: `build/<game>/tabletopia/`, one PNG per face, for Tabletopia's Workshop,
where every component is made by hand from uploaded images (there is no import file and no
API; docs/tables.md says what to do there).

```
tabletopia/<deck>/NN-<card>-x<copies>.png   each distinct face (a die: each of its faces); a round,
                                            hex or path-shaped piece transparent outside its outline
tabletopia/<deck>/NN-<card>-back.png        its back, when the deck's cards have backs of their own
tabletopia/<deck>/back.png                  the deck's one back
tabletopia/contents.csv                     every file: deck, kind, card, copies, size in px and mm, scale, back
```

Tabletopia's stated rules (help.tabletopia.com "How to prepare graphics", the game creator
checklist): one image file per face; both faces of a piece the same pixel size, and every piece
of a type exactly the same size; 10 px to the millimetre by default; at most 4000 px a side.
So each face is the trim (no bleed) at 10 px/mm, the same for a deck's faces and backs; a
larger piece (a board over 400 mm) is scaled down to 4000 px on its longer side, and
`contents.csv` says by how much to scale it up in the Workshop (its `scale`).  The free plan
holds 200 MB: a larger total gets a warning.
"""
from __future__ import annotations

import os
from pathlib import Path

from cardgen.core.errors import Loc, plural
from cardgen.outputs.base import Job, NoOptions, Output

PX_PER_MM = 10.0
MAX_PX = 4000
FREE_PLAN_BYTES = 200 * 1024 * 1024
COLUMNS = ("file", "deck", "kind", "card", "copies", "width_px", "height_px", "width_mm", "height_mm", "scale",
           "back")


def face_px(width_mm: float, height_mm: float) -> tuple[int, int]:
    """A face's pixel size: 10 px/mm, the longer side at most 4000 px."""
    k = min(PX_PER_MM, MAX_PX / max(width_mm, height_mm))
    return max(1, round(width_mm * k)), max(1, round(height_mm * k))


class Tabletopia(Output[NoOptions]):
    summary = ("One PNG per face at Tabletopia's 10 px/mm (at most 4000 px a side) and a list of them, to upload "
               "in Tabletopia's Workshop.")
    files = "tabletopia/<deck>/*.png, tabletopia/contents.csv"
    rasterizes = True

    def make(self, job: Job[NoOptions]) -> None:
        from cardgen.outputs.tts import table_inputs

        part = job.part("", table_inputs(job))
        if not part.keep():
            with part:
                _images(job)


def _images(job: Job) -> None:
    from cardgen.core.names import bounded, slugify
    from cardgen.outputs import tts_objects as objs
    from cardgen.render import raster

    r = job.rendered
    root = Path(os.path.abspath(job.out_dir / "tabletopia"))
    job.staging.own_dir(root)
    requests: list = []
    names: list[tuple[Path, str]] = []       # each image's file and its shape ("": a rectangle, opaque)
    rows: list[tuple] = []

    def add(layout, name: Path, spec, shape: str) -> None:
        requests.append((layout, spec))
        names.append((name, objs.path_mask(layout.outline) if shape == "path" else "" if shape == "rect" else shape))

    for deck in r.game.decks:
        faces = [(card, face) for d, card, face in r.faces if d is deck and card.count > 0]
        if not faces:
            continue
        w, h = face_px(deck.size.width, deck.size.height)
        scale = round(max(deck.size.width, deck.size.height) * PX_PER_MM / max(w, h), 2)   # to its real size
        spec = raster.Spec(w, h, 0.0, round(PX_PER_MM * 25.4), "png")
        folder = root / deck.slug
        shared = r.backs.get((deck.slug, None)) if deck.back and not deck.backs else None
        if shared is not None:
            add(shared, folder / "back.png", spec, deck.size.shape)
        width = max(2, len(str(len(faces))))
        copies_of = deck.pieces if deck.kind == "die" else None
        for n, (card, face) in enumerate(faces, 1):
            copies = copies_of if copies_of is not None else card.count
            stem = bounded(f"{n:0{width}d}-{slugify(card.name)}", 60) + (f"-x{copies}" if deck.kind != "die" else "")
            add(face, folder / f"{stem}.png", spec, deck.size.shape)
            back = r.back_of(deck, card) if deck.backs else None
            back_name = ""
            if back is not None:
                back_name = f"{deck.slug}/{stem}-back.png"
                add(back, root / back_name, spec, deck.size.shape)
            elif shared is not None:
                back_name = f"{deck.slug}/back.png"
            rows.append((f"{deck.slug}/{stem}.png", deck.name, deck.kind, card.title, copies, w, h,
                         round(deck.size.width, 2), round(deck.size.height, 2), f"{scale:g}", back_name))
        if scale != 1:
            job.report.note(f"tabletopia/{deck.slug}/: {deck.name} is {max(w, h)} px on its longer side, "
                            f"Tabletopia's most; scale it to {scale:g}x in the Workshop")
    if not requests:
        return
    with raster.Pool() as pool:
        paths = raster.rasterize(requests, raster.Cache.of(job.out_dir), raster.font_dirs_of(r), pool)
    total = 0
    for (name, shape), path in zip(names, paths):
        if shape:
            data = _cut(path, shape)
            job.staging.add(name, data)
            total += len(data)
        else:
            job.staging.add_file(name, path, raster.read_payload)
            total += Path(path).stat().st_size
    job.staging.add(root / "contents.csv", csv_table(COLUMNS, rows))
    mb = total / 1024 / 1024
    if total > FREE_PLAN_BYTES:
        job.report.warn(Loc(str(job.game.file), 1), f"tabletopia/: {plural(len(names), 'image')} of {mb:.0f} MB, "
                        f"more than Tabletopia's free plan holds (200 MB)", "tabletopia-size")
    else:
        job.report.note(f"tabletopia/: {plural(len(names), 'image')}, {mb:.1f} MB")


def _cut(path, shape: str) -> bytes:
    """A round, hex or path-shaped piece's image, transparent outside its outline (the alpha
    the TTS output gives a Custom_Token, `tts_objects.shape_mask`)."""
    import io

    from cardgen.outputs import tts_objects as objs
    from cardgen.render import raster

    img = raster.open_image(path).convert("RGBA")
    img.putalpha(objs.shape_mask(shape, img.size))
    buf = io.BytesIO()
    img.save(buf, "PNG", compress_level=6, dpi=(PX_PER_MM * 25.4,) * 2)
    return buf.getvalue()


def csv_table(columns: tuple[str, ...], rows: list[tuple]) -> bytes:
    """A CSV file's bytes: a header line of `columns`, then `rows`."""
    import csv
    import io

    buf = io.StringIO()
    out = csv.writer(buf, lineterminator="\n")
    out.writerow(columns)
    out.writerows(rows)
    return buf.getvalue().encode()
