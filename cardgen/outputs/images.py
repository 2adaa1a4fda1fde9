"""`images/`: card images for rules, shops and web pages, made only when asked for (`--only
images`, or `cardgen render GAME [CARD]...`): each card (or piece) as a PNG at a chosen size,
transparent outside its rounded corners (or its own shape), optionally with a drop shadow, and
fanned hands of several cards; each also as an SVG (`cardgen.outputs.card_images`).

The pixels are the card's print drawing rasterized once per size (`cardgen.render.raster`,
cached like the gallery's and TTS's: up to the screen class's 170 dpi they are scaled from the
one render the other outputs use, sharper ones rendered at their own size by PDFium).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from cardgen.core.errors import CardgenError, Loc
from cardgen.outputs.base import Job, Output
from cardgen.schema.core import Bool, Choice, Decl, Int, Length, ListOf, Text, opt, suggest

if TYPE_CHECKING:
    from cardgen.layout.engine import Rendered
    from cardgen.model import ops

FORMATS = ("png", "svg")
MAX_FAN = 20            # cards in one fan, at most
DECK_FAN = 5            # a fan named by its deck shows the deck's first this many cards


@dataclass(frozen=True, kw_only=True)
class ImagesOptions(Decl):
    """game.yaml's `images:` section."""

    __what__ = "card image options"

    cards: tuple = opt(ListOf(Text(nonempty=True), max_items=1000), "the cards (or pieces) to draw, by name; a deck's "
                       "name draws all of its cards", (), default_doc="every card and piece", cli="--card")
    width: int | None = opt(Int(min=16, max=6000), "each card's width in pixels (the height follows its "
                            "proportions)", None, default_doc="from the dpi", cli="--image-width")
    dpi: int = opt(Int(min=36, max=1200), "pixels per inch of the card's trim, when `width` is not given (a poker "
                   "card at 150: 375 x 525 px)", 150, cli="--image-dpi")
    radius: float = opt(Length(min=0, max=50, to="mm"), "corner radius of rectangular cards (round and hex pieces "
                        "keep their own shape)", 3.175, default_doc="1/8 in (3.175 mm), the common die-cut corner",
                        cli="--corner-radius")
    shadow: bool = opt(Bool(), "a soft drop shadow under each card (the image grows by its margin on every side)",
                       False, cli="--shadow")
    backs: bool = opt(Bool(), "also draw each card's back (`<card>-back.png`, or the deck's shared `back.png`)",
                      False, cli="--image-backs")
    fans: tuple = opt(ListOf(Text(nonempty=True), max_items=50), "a fanned hand of cards, their names separated by "
                      f"commas (`Digging, Mining, Trade`), or a deck's name (its first {DECK_FAN} cards): "
                      "`images/fan-<n>.png`; repeatable", (), default_doc="none", cli="--fan", key="fan")
    formats: tuple = opt(ListOf(Choice(FORMATS), min_items=1), "image formats: png, svg (the card's bitmap "
                         "embedded at full resolution, its outline, turn and shadow as vector); repeatable", FORMATS,
                         default_doc="both", cli="--image-format", key="format")


class Images(Output[ImagesOptions]):
    summary = ("Card images for rules, shops and web pages: single cards and fanned hands as PNG and SVG at a "
               "chosen size, rounded corners transparent, optionally with a shadow.")
    files = "images/<deck>/<card>.png and .svg, images/fan-<n>.png and .svg"
    rasterizes = True

    def make(self, job: Job[ImagesOptions]) -> None:
        """Each image is a part of its own (`Job.part`): one whose card and options did not
        change is kept, and those of an earlier render stay beside this one's while the game
        they were made from is the same (removed once it changed: docs/outputs.md)."""
        from cardgen.render import raster

        o, r = job.options, job.rendered
        images = [(name, [lay], title, True) for name, lay, title in _singles(job)]
        singles = len(images)
        for i, entry in enumerate(o.fans):
            fan = _fan(job, i, entry)
            if any(abs(lay.height / lay.width - fan[0].height / fan[0].width) > 0.01 for lay in fan):
                spec = _spec(fan[0], o)
                loc, how = _where(job, "fans", i)
                job.report.warn(loc, f"images: fan {i + 1}{how} mixes cards of different proportions; each is "
                                     f"drawn at the first card's size ({spec.px_w} x {spec.px_h} px)", "images-fan")
            images.append((f"fan-{i + 1}", fan, f"{r.game.title}: hand {i + 1}", False))
        todo = []
        for name, sides, title, single in images:
            part = job.part(name, sides, title)
            if not part.keep():
                todo.append((part, name, sides, title, single))
        job.report.note(f"images: {singles} card image{'s' if singles != 1 else ''}"
                        + (f", {len(o.fans)} fan{'s' if len(o.fans) != 1 else ''}" if o.fans else "")
                        + f" in {', '.join(o.formats).upper()}")
        if not todo:
            return
        requests = []
        for _, _, sides, _, _ in todo:
            spec = _spec(sides[0], o)        # (a fan's cards all at its first card's size)
            requests += [(lay, spec) for lay in sides]
        cache = raster.Cache.of(job.out_dir)
        with raster.Pool() as pool:
            paths = iter(raster.rasterize(requests, cache, raster.font_dirs_of(r), pool))
        for part, name, sides, title, single in todo:
            with part:
                self._write(job, job.out_dir / "images" / name, [(lay, next(paths)) for lay in sides], title,
                            single)
        cache.tidy()

    def _write(self, job: Job[ImagesOptions], stem, sides: list, title: str, single: bool) -> None:
        from cardgen.outputs import card_images as ci
        from cardgen.render import raster

        o = job.options
        first, _ = sides[0]
        spec = _spec(first, o)
        w, h = spec.px_w, spec.px_h
        lk = ci.look(w, h, o.radius, first.width / 72 * 25.4, o.shadow)
        placed, size = ci.single_layout(w, h, lk.margin) if single else ci.fan_layout(
            [lay.shape for lay, _ in sides], w, h, lk.radius, lk.margin)
        if "png" in o.formats:
            cards = [ci.cut(raster.open_image(path), lay, lk.radius) for lay, path in sides]
            img = ci.compose(cards, placed, size, lk)
            job.staging.add(stem.with_suffix(".png"), ci.png_bytes(img, spec.dpi, raster.srgb_profile()))
        if "svg" in o.formats:
            pictures = [(raster.read_payload(path), lay) for lay, path in sides]
            job.staging.add(stem.with_suffix(".svg"), ci.svg(pictures, size, placed, w, h, lk, title).encode())


def _spec(layout: ops.CardLayout, o: ImagesOptions):
    """The bitmap of a card side at the chosen size: `width` px wide, else its trim at `dpi`."""
    from cardgen.render import raster

    if o.width is None:
        return raster.trim_spec(layout, o.dpi)
    w = o.width
    h = max(1, round(w * layout.height / layout.width))
    return raster.Spec(w, h, 0.0, max(1, round(w * 72 / layout.width)), "png")


def _where(job: Job, attr: str, index: int | None = None) -> tuple[Loc, str]:
    """Where an option (its item `index`) was given: game.yaml's `images:` section, or the
    command line."""
    if attr in job.build.outputs.get("images", {}):
        return Loc(str(job.game.file)), " (given on the command line)"
    key = next(k for k, (a, _) in ImagesOptions.options().items() if a == attr)
    return job.option_loc(key, index), ""


def _index(r: Rendered) -> tuple[dict, dict]:
    """Card name -> [(deck, card, face)], deck name -> the same for its cards; in deck order."""
    by_card: dict[str, list] = {}
    by_deck: dict[str, list] = {}
    for deck, card, face in r.faces:
        by_card.setdefault(card.name, []).append((deck, card, face))
        by_deck.setdefault(deck.name, []).append((deck, card, face))
    return by_card, by_deck


def _unknown(job: Job, attr: str, index: int, name: str, by_card: dict, by_deck: dict,
             what: str) -> CardgenError:
    loc, how = _where(job, attr, index)
    return CardgenError(loc, f"images: {what} '{name}'{how} is no card or deck of the game"
                             f"{suggest(name, [*by_card, *by_deck])}", code="images-name")


def _singles(job: Job[ImagesOptions]) -> list[tuple[str, ops.CardLayout, str]]:
    """The single images to draw: (file stem under images/, card side, its title), in deck order."""
    from cardgen.core.names import NAME_LIMIT, bounded, slugify

    r = job.rendered
    by_card, by_deck = _index(r)
    if job.options.cards:
        chosen: list = []
        for k, name in enumerate(job.options.cards):
            found = by_card.get(name) or by_deck.get(name)
            if not found:
                raise _unknown(job, "cards", k, name, by_card, by_deck, "card")
            chosen += [f for f in found if all(f[2] is not c[2] for c in chosen)]
    else:
        chosen = list(r.faces)
    out: list[tuple[str, ops.CardLayout, str]] = []
    taken: set[str] = set()

    def add(stem: str, layout: ops.CardLayout, title: str) -> None:
        stem = bounded(stem, NAME_LIMIT - len("-back.png"))
        name, k = stem, 1
        while name in taken:
            k += 1
            name = f"{stem}-{k}"
        taken.add(name)
        out.append((name, layout, title))

    shared: set[str] = set()
    for deck, card, face in sorted(chosen, key=lambda f: r.faces.index(f)):
        add(f"{deck.slug}/{slugify(card.name)}", face, card.name)
        back = r.back_of(deck, card) if job.options.backs else None
        if back is not None and deck.backs:
            add(f"{deck.slug}/{slugify(card.name)}-back", back, f"{card.name} (back)")
        elif back is not None and deck.slug not in shared:
            shared.add(deck.slug)
            add(f"{deck.slug}/back", back, f"{deck.name} (back)")
    return out


def _fan(job: Job[ImagesOptions], i: int, entry: str) -> list[ops.CardLayout]:
    """The card faces of the fan `entry` (names separated by commas, or a deck's name)."""
    by_card, by_deck = _index(job.rendered)
    if entry.strip() in by_deck and entry.strip() not in by_card:
        return [face for _, _, face in by_deck[entry.strip()][:DECK_FAN]]
    names = [n.strip() for n in entry.split(",") if n.strip()]
    if not names or len(names) > MAX_FAN:
        loc, how = _where(job, "fans", i)
        raise CardgenError(loc, f"images: fan {i + 1}{how} has {len(names)} cards; a fan holds 1 to {MAX_FAN}",
                           code="images-fan")
    faces = []
    for name in names:
        found = by_card.get(name)
        if not found:
            raise _unknown(job, "fans", i, name, by_card, by_deck, f"fan {i + 1}: card")
        faces.append(found[0][2])
    return faces
