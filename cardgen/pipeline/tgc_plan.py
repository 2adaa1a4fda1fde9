"""What `cardgen upload tgc` uploads: read from the print-service images' index
(`build/<game>/png/tgc/cards.json`, `cardgen.outputs.png`), each deck matched to The Game
Crafter's product of its size (`cardgen.pipeline.tgc_products`) or said not uploadable, and
each image as it is sent (turned or scaled to the product's exact pixels when it must be).
No network here: `--dry-run` prints `Plan.lines()`.
"""
from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass, field
from pathlib import Path

from cardgen.core.errors import CardgenError, Loc, plural
from cardgen.pipeline.tgc_products import Match, identities, match, nearest

INDEX = "cards.json"
KIND_WORDS = {"card": "deck", "token": "tokens", "tile": "tiles", "board": "board", "die": "dice",
              "aid": "player aid"}


@dataclass
class Piece:
    """A distinct card (or token, tile, board) and its copies; images relative to png/tgc/."""

    name: str
    count: int
    front: str
    back: str | None


@dataclass
class Item:
    """A cardgen deck (or the player aid) and what it becomes at The Game Crafter: `match`
    None when nothing there fits, `reason` saying why."""

    name: str
    slug: str
    kind: str
    shape: str
    trim_mm: tuple[float, float]
    px: tuple[int, int]
    back: str | None
    pieces: list[Piece]
    match: Match | None = None
    reason: str = ""

    @property
    def count(self) -> int:
        return sum(p.count for p in self.pieces)

    def images(self) -> list[str]:
        """Every image this item uploads, each once, in order."""
        seen: dict[str, None] = {}
        if self.back and self.match and self.match.product.family.shared_back:
            seen[self.back] = None
        for p in self.pieces:
            seen[p.front] = None
            back = p.back or self.back
            if back and self.match and self.match.product.family.two_sided:
                seen[back] = None
        return list(seen)


@dataclass
class Plan:
    """What an upload to The Game Crafter makes."""

    title: str
    subtitle: str
    players: str
    root: Path                               # png/tgc/
    items: list[Item] = field(default_factory=list)

    @property
    def uploadable(self) -> list[Item]:
        return [i for i in self.items if i.match is not None]

    def images(self) -> list[str]:
        seen: dict[str, None] = {}
        for item in self.uploadable:
            seen.update(dict.fromkeys(item.images()))
        return list(seen)

    def lines(self, known: dict[str, str] | None = None, digests: dict[str, str] | None = None) -> list[str]:
        """The plan as `--dry-run` prints it; `digests` (image -> sha256 of what is sent) and
        `known` (sha256 -> TGC file id, from the last upload) mark the images already there."""
        out = [f"The Game Crafter: game '{self.title}', images from {self.root}"]
        for item in self.items:
            what = KIND_WORDS.get(item.kind, item.kind)
            size = f"{item.trim_mm[0]:g} x {item.trim_mm[1]:g} mm, {item.px[0]} x {item.px[1]} px"
            if item.match is None:
                out.append(f"  not uploadable: {what} '{item.name}' ({size}): {item.reason}")
                continue
            m = item.match
            how = []
            if m.turned:
                how.append("turned a quarter turn")
            if m.scaled:
                how.append(f"scaled to {m.product.px[0]} x {m.product.px[1]} px")
            fit = f"; images {' and '.join(how)}" if how else ""
            out.append(f"  {what} '{item.name}': {m.product.identity} ({size}{fit}), "
                       f"{plural(item.count, 'card' if m.product.family.member == 'card' else 'piece')}, "
                       f"{len(item.pieces)} distinct")
            if item.back and m.product.family.shared_back:
                out.append(f"    back: {item.back}")
            for p in item.pieces:
                back = f", back {p.back}" if p.back and m.product.family.two_sided else ""
                out.append(f"    {p.count} x {p.name}: {p.front}{back}")
        images = self.images()
        if digests is not None and known is not None:
            there = sum(1 for i in images if digests.get(i) in known)
            out.append(f"  files: {plural(len(images), 'image')} to upload into a folder '{self.title}'"
                       + (f" ({there} uploaded before and unchanged)" if there else ""))
        else:
            out.append(f"  files: {plural(len(images), 'image')} to upload into a folder '{self.title}'")
        return out


def _item(entry: dict, products: dict[str, str]) -> Item:
    pieces = [Piece(str(c["name"]), int(c["count"]), str(c["front"]), c.get("back")) for c in entry["cards"]]
    item = Item(str(entry["name"]), str(entry["slug"]), str(entry["kind"]), str(entry["shape"]),
                (float(entry["trim_mm"][0]), float(entry["trim_mm"][1])),
                (int(entry["image_px"][0]), int(entry["image_px"][1])), entry.get("back"), pieces)
    chosen = products.get(item.slug) or products.get(item.name)
    if item.kind == "die":
        item.reason = "custom dice are not uploaded (make them on the site: a CustomColorD6 or dice stickers)"
    elif item.shape == "path":
        item.reason = "a piece cut along its own outline needs a custom punchout template (upload it by hand)"
    elif not pieces:
        item.reason = "no copies"
    else:
        kind = "card" if item.kind == "aid" else item.kind       # (the player aid: a deck of its size)
        item.match = match(kind, item.shape, item.px, chosen)
        if item.match is None and chosen:
            item.reason = (f"--product {chosen} is not a product cardgen uploads {KIND_WORDS.get(item.kind)} as "
                           f"(one of {', '.join(identities(kind)) or 'none'})")
        elif item.match is None:
            near = nearest(kind, item.shape, item.px)
            item.reason = "no product of The Game Crafter has this size" + (
                f" (nearest: {near.identity}, {near.px[0]} x {near.px[1]} px; choose a size that matches, or name "
                f"a product with --product {item.slug}=IDENTITY)" if near else "")
    return item


def _split(item: Item) -> list[Item]:
    """A product that is one piece (a folding board) made once per distinct piece of the deck,
    each named after its piece."""
    m = item.match
    if m is None or m.product.family.member is not None or len(item.pieces) < 2:
        return [item]
    return [Item(p.name, f"{item.slug}-{n}", item.kind, item.shape, item.trim_mm, item.px, item.back, [p], m)
            for n, p in enumerate(item.pieces, 1)]


def read_plan(png_dir: Path, products: dict[str, str] | None = None) -> Plan:
    """The plan from `png_dir/cards.json` (`products`: deck slug or name -> identity chosen)."""
    path = png_dir / INDEX
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        plan = Plan(str(data["title"]), str(data.get("subtitle") or ""), str(data.get("players") or ""), png_dir)
        entries = [*data["decks"], *data["extras"]]
        for entry in entries:
            plan.items += _split(_item(entry, products or {}))
        slugs = [str(e["slug"]) for e in entries]
        names = {str(e["name"]) for e in entries}
    except FileNotFoundError:
        raise CardgenError(Loc(str(path)), "no print-service images for The Game Crafter: the build made none",
                           code="tgc-plan") from None
    except (OSError, ValueError, KeyError, TypeError, IndexError) as exc:
        raise CardgenError(Loc(str(path)), f"cannot read the image index ({type(exc).__name__}: {exc}); build "
                           f"again", code="tgc-plan") from None
    unknown = set(products or {}) - set(slugs) - names
    if unknown:
        raise CardgenError(Loc(str(path)), f"--product names no deck of the game: {', '.join(sorted(unknown))} "
                           f"(decks: {', '.join(slugs)})", code="tgc-plan")
    return plan


MAX_UPLOAD = 50 * 1024 * 1024          # bytes: The Game Crafter's largest file


def prepared(plan: Plan, image: str, item: Item) -> bytes:
    """The bytes sent for `image` of `item`: the PNG as built, or turned and scaled to the
    product's exact pixels (Lanczos), its colour profile kept; compressed harder when it
    would be over The Game Crafter's 50 MB (a large board)."""
    path = plan.root / image
    if ".." in Path(image).parts or Path(image).is_absolute():
        raise CardgenError(Loc(str(plan.root / INDEX)), f"image path {image!r} leaves the folder", code="tgc-plan")
    data = path.read_bytes()
    m = item.match
    if m is None or not (m.turned or m.scaled or len(data) > MAX_UPLOAD):
        return data
    from PIL import Image

    with Image.open(io.BytesIO(data)) as im:
        profile = im.info.get("icc_profile")
        im.load()
        out = im.transpose(Image.Transpose.ROTATE_90) if m.turned else im
        if out.size != m.product.px:
            out = out.resize(m.product.px, Image.Resampling.LANCZOS)
        for level in (6, 9):
            buf = io.BytesIO()
            out.save(buf, "PNG", compress_level=level, **({"icc_profile": profile} if profile else {}))
            if buf.tell() <= MAX_UPLOAD:
                break
    return buf.getvalue()


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
