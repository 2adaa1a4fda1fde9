"""`index.html` + `gallery/`: every card of the game on one web page, to send to co-designers
who will not install anything.

Faces and backs grouped by deck, copies counted, each card's name and where it is written,
and the validator's problems beside the card they belong to (`cardgen.outputs.album`).  The
images are the card PDFs' own pixels (`cardgen.render.raster`, the bitmaps TTS and the PNG
export use, cached), one file per distinct side: `gallery/<deck>/<nnn>-<card>-face.png`,
`...-back.png` for per-card backs, `gallery/<deck>/back.png` for a shared back.  Relative
links only, styles inline, no fonts or scripts from anywhere: it works opened straight from
the disk (file://), zipped or on any web space.  A small inline script adds the filter box;
without it everything is still shown, and a click on a card shows it large.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardgen.core.cachefile import CacheFile
from cardgen.outputs.base import Job, Output
from cardgen.schema.core import Decl, Int, opt


@dataclass(frozen=True, kw_only=True)
class GalleryOptions(Decl):
    """game.yaml's `gallery:` section."""

    __what__ = "gallery options"

    dpi: int | None = opt(Int(min=50, max=300), "resolution of the card images (a poker card at 150: 375 x 525 px)",
                          None, default_doc="the screen render's, the same pixels as the TTS deck sheets' cells "
                                            "(150 to 170 dpi by card size; a poker card: 409 x 573 px, 164 dpi)")


class GalleryCache(CacheFile):
    """Each card's tile and lightbox HTML as the last build made it (`album.Fragments`), by a
    digest of what it shows and the page's words, and the page around them, with a hole for
    each deck's tiles and lightboxes (`album.gallery_page`), by a digest of what it shows
    (`<output>/.cache/gallery.bin`, sealed, for this code version only; the last build's
    entries only)."""

    NAME = "gallery.bin"

    @classmethod
    def of(cls, folder: Path) -> GalleryCache:
        from cardgen.render.formcache import _open  # (saved with the form caches: `save_all`)

        return cls.open_in(folder, _open)

    def accept(self, data: Any) -> bool:
        if not isinstance(data, dict) or not all(isinstance(k, bytes) and isinstance(v, str)
                                                 for k, v in data.items()):
            return False
        self.entries = data
        return True


class Gallery(Output[GalleryOptions]):
    summary = ("A web page of every card, faces and backs by deck, with copies and the validator's problems, "
               "to open from the disk or send to co-designers.")
    files = "index.html, gallery/"
    rasterizes = True

    def make(self, job: Job[GalleryOptions]) -> None:
        from cardgen.core.names import NAME_LIMIT, bounded, slugify
        from cardgen.outputs import album as A
        from cardgen.render import raster

        r = job.rendered
        al = A.album(r, job.report.items)
        root = job.out_dir / "gallery"
        job.staging.own_dir(root)
        named: list[tuple[A.Side, str]] = []
        for d in al.decks:
            if d.back is not None:
                named.append((d.back, f"{d.slug}/back.png"))
            width = max(3, len(str(len(d.cards))))
            for c in d.cards:
                stem = bounded(f"{c.card.index + 1:0{width}d}-{slugify(c.name)}", NAME_LIMIT - len("-face.png"))
                named.append((c.face, f"{d.slug}/{stem}-face.png"))
                if c.back is not None:
                    named.append((c.back, f"{d.slug}/{stem}-back.png"))
        cache = raster.Cache.of(job.out_dir)
        todo = []           # the images not kept from the last build (each one a part)
        for side, name in named:
            spec = A.side_spec(side.layout, job.options.dpi)
            side.src, side.width, side.height = f"gallery/{name}", spec.px_w, spec.px_h
            part = job.part(name, side.layout, spec)
            if not part.keep():
                todo.append((part, name, side.layout, spec))
        with raster.Pool() as pool:
            paths = raster.rasterize([(lay, spec) for _, _, lay, spec in todo], cache, raster.font_dirs_of(r), pool)
        for (part, name, _, _), path in zip(todo, paths):
            with part:
                job.staging.add_file(root / name, path, raster.read_payload)
        fragments = A.Fragments(r.game.words, GalleryCache.of(job.out_dir))
        html = A.gallery_page(al, A.Page(words=r.game.words), al.title, fragments)
        job.staging.add(job.out_dir / "index.html", html.encode("utf-8"))
