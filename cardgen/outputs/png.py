"""`png/<target>/`: one PNG per card copy at a print service's exact pixel size, for
MakePlayingCards (mpc) or The Game Crafter (tgc).  Made only when asked for
(`--only png`, `--target mpc|tgc`)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cardgen.outputs.base import Job, Output
from cardgen.outputs.mpc_order import BRACKETS, STOCKS, OrderCard, bracket, order_xml
from cardgen.schema.core import Choice, Decl, ListOf, opt

PT_PER_IN = 72.0


@dataclass(frozen=True)
class Target:
    """A print service's image convention: 300 dpi, trim plus `bleed_px` on every side."""

    name: str
    title: str
    dpi: int
    bleed_px: float

    def size(self, width_mm: float, height_mm: float) -> tuple[int, int]:
        """Exact image size for a card of this trim size, bleed included.

        px = round(trim_in * dpi + 2 * bleed_px): poker (2.5 x 3.5 in) gives 822 x 1122 at
        MakePlayingCards (36 px bleed) and 825 x 1125 at The Game Crafter (1/8 in = 37.5 px)."""
        w = round(width_mm / 25.4 * self.dpi + 2 * self.bleed_px)
        h = round(height_mm / 25.4 * self.dpi + 2 * self.bleed_px)
        return w, h

    def bleed_pt(self) -> float:
        return self.bleed_px / self.dpi * PT_PER_IN


TARGETS = {
    "mpc": Target("mpc", "MakePlayingCards", 300, 36.0),
    "tgc": Target("tgc", "The Game Crafter", 300, 37.5),
}


@dataclass(frozen=True, kw_only=True)
class PngOptions(Decl):
    """game.yaml's `png:` section."""

    __what__ = "print-service PNG options"

    targets: tuple = opt(ListOf(Choice(tuple(TARGETS)), min_items=1),
                         "print services: mpc (MakePlayingCards, 822x1122 px poker) or tgc (The Game Crafter, "
                         "825x1125 px poker); repeatable", tuple(TARGETS), default_doc="both", cli="--target",
                         key="target")
    mpc_stock: str = opt(Choice(STOCKS), "MakePlayingCards card stock written in the mpc-autofill order files "
                         "(`png/mpc/<deck>.xml`)", "(S30) Standard Smooth", cli="--mpc-stock")


class Png(Output[PngOptions]):
    summary = "One PNG per card copy at a print service's exact pixel size (MakePlayingCards, The Game Crafter)."
    files = "png/<target>/fronts/, png/<target>/backs/, png/mpc/<deck>.xml, png/tgc/cards.json"
    rasterizes = True

    def make(self, job: Job[PngOptions]) -> None:
        """`png/<target>/fronts/NNN-<deck>-<card>-<i>of<n>.png` for every copy, in print order;
        `png/<target>/backs/` holds the matching per-card backs (same numbers) or one
        `<deck>-back.png` per deck with a shared back.  The player aid follows the decks
        (`NNN-player-aid-<i>of<n>.png`, front and back)."""
        from cardgen.render import raster

        r = job.rendered
        cards = [(deck.slug, deck.name, deck.loc, deck.size, deck.bleed, deck.backs, card.name, card.count, face,
                  r.back_of(deck, card)) for deck, card, face in r.faces]
        todo = []
        for target in job.options.targets:
            job.staging.own_dir(job.out_dir / "png" / TARGETS[target].name)
            part = job.part(target, cards)
            if not part.keep():
                todo.append((target, part))
        # PNGs rasterized now are also written here by the workers, and moved into the
        # output from here at the commit: not copied out of the cache one by one
        ready = job.ready_folder("png-ready")
        if not todo:
            return
        cache = raster.Cache.of(job.out_dir)
        with raster.Pool() as pool:
            for target, part in todo:
                with part:
                    _png_targets(job, (target,), cache, pool, ready)
        cache.tidy()


def _mpc_orders(job: Job, root: Path, orders: dict) -> None:
    """`png/mpc/<deck>.xml` per deck (`cardgen.outputs.mpc_order`); a deck over MakePlayingCards'
    largest order gets a warning at its file instead."""
    for deck, cards, shared in orders.values():
        quantity = sum(len(c.fronts) for c in cards)
        if quantity == 0:
            continue
        if bracket(quantity) is None:
            job.report.warn(deck.loc, f"deck '{deck.name}' has {quantity} cards, more than a MakePlayingCards "
                            f"order holds ({BRACKETS[-1]}): no png/mpc/{deck.slug}.xml was written; split "
                            f"the deck into files of at most {BRACKETS[-1]} cards", "mpc-order")
            continue
        xml = order_xml(cards, shared[0] if shared else None, job.options.mpc_stock)
        job.staging.add(root / f"{deck.slug}.xml", xml)


def _tgc_index(job: Job, t: Target, orders: dict, aids: list) -> bytes:
    """`png/tgc/cards.json`: what `cardgen upload tgc` uploads (`cardgen.pipeline.tgc_plan`):
    the game's name and players, and per deck its kind, shape, trim and image size, shared back
    and cards (name, copies, the first copy's front and back: every copy is the same image);
    the player aid after the decks.  Paths are relative to `png/tgc/`."""
    import json

    game = job.rendered.game

    def piece(name: str, slug: str, kind: str, shape: str, w: float, h: float) -> dict:
        return {"name": name, "slug": slug, "kind": kind, "shape": shape, "trim_mm": [round(w, 3), round(h, 3)],
                "image_px": list(t.size(w, h))}

    decks = []
    for deck, cards, shared in orders.values():
        entry = piece(deck.name, deck.slug, deck.kind, deck.size.shape, deck.size.width, deck.size.height)
        entry["back"] = shared[0] if shared else None
        entry["cards"] = [{"name": c.name, "count": len(c.fronts), "front": c.fronts[0],
                           "back": c.backs[0] if c.backs else None} for c in cards if c.fronts]
        decks.append(entry)
    extras = []
    for e, aid in aids:
        if aid.fronts:
            entry = piece(e.name, e.slug, "aid", "rect", e.width, e.height)
            entry.update(back=None, cards=[{"name": e.name, "count": len(aid.fronts), "front": aid.fronts[0],
                                            "back": aid.backs[0] if aid.backs else None}])
            extras.append(entry)
    data = game.data
    index = {"format": 1, "title": game.title, "slug": game.slug,
             "subtitle": data.get("subtitle") or "", "players": str(data.get("players") or ""),
             "dpi": t.dpi, "bleed_px": t.bleed_px, "decks": decks, "extras": extras}
    return (json.dumps(index, indent=1, ensure_ascii=False) + "\n").encode()


def _png_targets(job: Job, targets, cache, pool, ready_dir: Path) -> None:
    from cardgen.core.names import NAME_LIMIT, bounded, slugify
    from cardgen.outputs.extras import extras
    from cardgen.render import raster
    from cardgen.render.raster import Spec, font_dirs_of, rasterize

    r, report = job.rendered, job.report
    more = extras(job)
    total = sum(card.count for _, card, _ in r.faces) + sum(e.count for e in more)
    width = max(3, len(str(total)))
    for tname in targets:
        t = TARGETS[tname]
        root = job.out_dir / "png" / t.name
        job.staging.own_dir(root)
        requests, names = [], []
        warned = set()
        n = 0
        shared_done = set()
        orders: dict = {}        # deck slug -> (deck, its cards as OrderCard, its shared back): the mpc orders
        for deck, card, face in r.faces:
            spec = Spec(*t.size(deck.size.width, deck.size.height), t.bleed_pt(), t.dpi, "png")
            if spec.bleed > face.bleed + 1e-6 and deck.slug not in warned:
                warned.add(deck.slug)
                report.warn(deck.loc,
                            f"deck '{deck.name}' has {deck.bleed:g} mm bleed but {t.title} wants "
                            f"{t.bleed_px / t.dpi * 25.4:.2f} mm; the card edges are stretched to fill it "
                            f"(set `bleed:` to at least that)", "png-bleed")
            back = r.back_of(deck, card)
            ordered = OrderCard(card.name, [])
            orders.setdefault(deck.slug, (deck, [], []))[1].append(ordered)
            for i in range(1, card.count + 1):
                n += 1
                tail = f"-{i}of{card.count}"
                head = f"{n:0{width}d}-{deck.slug}-{slugify(card.name)}"
                stem = bounded(head, NAME_LIMIT - len(tail) - len(".png")) + tail
                requests.append((face, spec))
                names.append(root / "fronts" / f"{stem}.png")
                ordered.fronts.append(f"fronts/{stem}.png")
                if back is not None and deck.backs:
                    requests.append((back, spec))
                    names.append(root / "backs" / f"{stem}.png")
                    ordered.backs.append(f"backs/{stem}.png")
            if back is not None and not deck.backs and deck.slug not in shared_done:
                shared_done.add(deck.slug)
                requests.append((back, spec))
                names.append(root / "backs" / f"{deck.slug}-back.png")
                orders[deck.slug][2].append(f"backs/{deck.slug}-back.png")
        aids = []
        for e in more:          # the player aid: its own size, its own back
            spec = Spec(*t.size(e.width, e.height), t.bleed_pt(), t.dpi, "png")
            aid = OrderCard(e.name, [], [])
            aids.append((e, aid))
            for i in range(1, e.count + 1):
                n += 1
                stem = f"{n:0{width}d}-{e.slug}-{i}of{e.count}"
                requests.append((e.face, spec))
                names.append(root / "fronts" / f"{stem}.png")
                aid.fronts.append(f"fronts/{stem}.png")
                if e.back is not None:
                    requests.append((e.back, spec))
                    names.append(root / "backs" / f"{stem}.png")
                    aid.backs.append(f"backs/{stem}.png")
        if tname == "mpc":
            _mpc_orders(job, root, orders)
        if tname == "tgc":
            job.staging.add(root / "cards.json", _tgc_index(job, t, orders, aids))
        ready: dict[Path, tuple[Path, str]] = {}
        paths = rasterize(requests, cache, font_dirs_of(r), pool, (ready_dir, ready))
        for name, path in zip(names, paths):
            made = ready.pop(path, None)        # (a copy of the same card: copied from the cache)
            if made is not None:
                job.staging.add_ready(name, *made)
            else:
                job.staging.add_file(name, path, raster.read_payload)
