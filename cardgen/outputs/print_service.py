"""`print-service/<deck>-pdfx.pdf`: one PDF/X-1a file per deck for DriveThruCards and other
print-on-demand services: every printed card side once, in their order (back 1, front 1,
back 2, front 2, ...), at trim + bleed in CMYK, with `<deck>-counts.txt` saying how many of
each to print. A preflight names, by card, total ink over the service's limit; text and icons
closer to the trim than its `safe_margin` are named by the readability check
(`cardgen.check.readability`), in `cardgen validate` too. See docs/print-services.md.
"""
from __future__ import annotations

import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from cardgen.core.errors import CardgenError, Loc
from cardgen.model import ops
from cardgen.model.game import Card, Deck
from cardgen.outputs.base import Job, Output
from cardgen.schema.core import Bool, Decl, Length, Number, Text, opt

if TYPE_CHECKING:    # (Pillow and ReportLab's colours are imported when used: start-up time)
    from cardgen.render.cmyk import Condition, Separation
    from cardgen.render.pdfx import DeckPdf
    from cardgen.render.pdfxcache import PdfxCache

SERVICE = "DriveThruCards"
SERVICE_BLEED_MM = 3.175


@dataclass(frozen=True, kw_only=True)
class PdfxOptions(Decl):
    """game.yaml's `pdfx:` section."""

    __what__ = "print-service PDF options"

    ink_limit: float = opt(Number(min=100, max=400, unit="%"),
                           "highest total ink (C+M+Y+K) the print service accepts; a card that puts more "
                           "anywhere is named in a warning", 240.0, default_doc="240 (DriveThruCards)",
                           cli="--ink-limit")
    rich_black: bool = opt(Bool(), "print black areas at least 1/2 in wide and high as rich black (60/40/40/100) "
                                   "instead of 100 % K; black text, lines and icons are always 100 % K", True)
    safe_margin: float = opt(Length(min=0, max=20, to="mm"),
                             "text or an icon closer than this to the trim is named in a warning (the service's "
                             "safe area; docs/validation.md)",
                             SERVICE_BLEED_MM, default_doc="1/8 in (3.175 mm)")
    die_line: bool = opt(Bool(), "stroke the outline of each token and tile (and of any card that is not a "
                                 "rectangle) as a die line in a spot colour (`die_name`) that a print-and-cut "
                                 "service cuts along and does not print", True)
    die_name: str = opt(Text(nonempty=True, max_length=100), "the die line's spot colour: the name the service's "
                                                             "cutter looks for (case-sensitive)", "CutContour")
    profile: str | None = opt(Text(nonempty=True),
                              "a CMYK output profile (.icc file in the game folder) to separate for and embed, for a "
                              "service that names its own", None,
                              default_doc="cardgen's FOGRA39 coated profile, 240 % total ink")


class PrintService(Output[PdfxOptions]):
    summary = ("One CMYK PDF/X-1a file per deck for print-on-demand services (DriveThruCards order: back, front, "
               "per card), with copy counts and an ink and safe-area preflight.")
    files = "print-service/<deck>-pdfx.pdf, print-service/<deck>-counts.txt"

    _sep: Separation | None = None      # made by `ahead`, its pictures being converted

    def ahead(self, job: Job[PdfxOptions]) -> None:
        """On a first build (no print-service files made before: a rebuild converts only the
        sides that changed), the pictures of the cards converted to the profile's inks on a
        thread of their own while the other outputs are drawn (`Separation.convert_early`)."""
        if job.ledger is not None and self.name in job.ledger.previous:
            return
        try:
            self._sep = _separation(job)
        except CardgenError:
            return          # (said by `make`)
        r = job.rendered
        sides = [side for deck, card, face in r.faces if card.count > 0 for side in (r.back_of(deck, card), face)]
        self._sep.convert_early([side for side in sides if side is not None])

    def make(self, job: Job[PdfxOptions]) -> None:
        from cardgen.core.digest import file_digest
        from cardgen.outputs.incremental import fonts_digest
        from cardgen.render import docinfo

        info = docinfo.current()
        if info.epoch is None:                 # PDF/X requires dates: the data's own, at least
            info = replace(info, epoch=_data_epoch(job))
        r = job.rendered
        profile = _profile(job)[0]
        # what the files show: every card side with its deck and copies (the counts files), the
        # fonts, the profile and the date written into them
        sides = [(deck.slug, card.name, card.count, face, r.back_of(deck, card)) for deck, card, face in r.faces]
        part = job.part("", sides, info.epoch, file_digest(profile), fonts_digest(r.res.fonts))
        if part.keep():
            return
        with part, tempfile.TemporaryDirectory(prefix="cardgen-pdfx-") as tmp, docinfo.using(info):
            _make(job, Path(tmp), self._sep or _separation(job))


# The print-service files' date when nothing gives one (`_data_epoch`): 2000-01-01 00:00 UTC,
# the date ReportLab writes into a file made to be reproducible.
FALLBACK_EPOCH = 946684800


def _data_epoch(job: Job) -> int:
    """The date of the data when neither game.yaml's `date:` nor SOURCE_DATE_EPOCH gives one:
    the last commit of the game folder when it is in git (the same in every clone), else
    `FALLBACK_EPOCH`.  Never the clock or a file's modification time: a copy of the game, or
    another clone, makes the same bytes (docs/print-services.md)."""
    from cardgen.core import gitinfo

    committed = gitinfo.commit_time(job.game.root)
    return committed if committed is not None else FALLBACK_EPOCH


def _profile(job: Job) -> tuple[Path, Condition, Loc]:
    """The output profile's file, the condition it names, and where game.yaml chose it."""
    from cardgen.core.paths import PathRefused
    from cardgen.load import refs
    from cardgen.render.cmyk import BUNDLED, DEFAULT_PROFILE, Condition

    ref = job.options.profile
    if ref is None:
        return DEFAULT_PROFILE, BUNDLED, Loc(str(job.game.file))
    loc = job.option_loc("profile")
    try:
        path = refs.find(ref, (job.game.root, job.game.project), job.game.roots, "profile").path
    except PathRefused as exc:
        raise CardgenError(loc, str(exc), code="path") from None
    if path is None:
        raise CardgenError(loc, f"pdfx: profile '{ref}' not found in the game folder", code="pdfx-profile")
    return path, Condition("Custom", "", f"as characterized by {Path(ref).name}", Path(ref).stem), loc


@dataclass
class _DeckFile:
    """One deck's print-service file: its pages, front and back."""

    deck: Deck
    cards: list[tuple[Card, ops.CardLayout]]          # the cards printed, with their faces
    pages: list[tuple[Card, str, ops.CardLayout]]     # each page's card, "back" or "front", and side
    blank: bool                                       # the deck has no back: blank ones
    doc: DeckPdf


def _separation(job: Job) -> Separation:
    """The separation for the profile the options name, with the output folder's cache."""
    from PIL import ImageCms, UnidentifiedImageError

    from cardgen.render.cmyk import Separation
    from cardgen.render.pdfxcache import PdfxCache

    path, _, where = _profile(job)
    cache = PdfxCache.of(job.out_dir)          # what builds before did to each card side
    try:
        return Separation(path, job.options.rich_black, cache=cache)
    except (OSError, ValueError, UnidentifiedImageError, ImageCms.PyCMSError) as exc:
        raise CardgenError(where, f"pdfx: profile '{job.options.profile}' cannot be used: {exc}; give a "
                           f"CMYK output profile (.icc)", code="pdfx-profile") from None


def _make(job: Job, tmp: Path, sep: Separation) -> None:
    from cardgen.outputs.print_sheets import assembly
    from cardgen.render import flatten, pdfx
    from cardgen.render.pdfxcache import Piece, side_key

    r, o, report = job.rendered, job.options, job.report
    cond = _profile(job)[1]
    cache = sep.cache
    assert cache is not None
    if cond.identifier == "Custom":
        cond = replace(cond, info=sep.description)
    root = job.out_dir / "print-service"
    job.staging.own_dir(root)
    decks = [_deck_file(job, deck, sep, tmp, cache) for deck in r.game.decks]
    files = [f for f in decks if f is not None]
    sides = {id(side): side for f in files for side in f.doc.sides}
    inks: dict[int, float | None] = {}

    def unmeasured(i: int, piece: Piece | None) -> bool:
        """Its colours or art go over the ink limit, and its ink was never measured where it shows."""
        if piece is None or piece.peak <= o.ink_limit + 0.5:
            return False
        if i not in inks:
            found = cache.get(side_key("ink", sides[i], sep.key))
            inks[i] = float(found) if isinstance(found, (int, float)) else None
        return inks[i] is None

    # the sides no build before converted, and those to measure: flattened together (a few
    # PDFs to render, not a few per card)
    todo = {id(side): side for f in files for side in f.doc.missing()}
    todo.update({i: sides[i] for f in files for i, piece in f.doc.pieces.items() if unmeasured(i, piece)})
    done, pictures = flatten.flatten_all(list(todo.values()), r.res.fonts, tmp)
    flat = dict(zip(todo, zip(done, pictures)))
    pdfs = [f.doc.write(flat, f"{r.game.title}: {f.deck.name} (PDF/X-1a, {cond.identifier})", cond,
                        assembly(job, f.deck.slug, f"print-service/{f.deck.slug}-pdfx.pdf")) for f in files]
    measure = {i: flat[i][0] for f in files for i, piece in f.doc.pieces.items() if unmeasured(i, piece)}
    for (i, _), peak in zip(measure.items(), pdfx.ink_peaks(list(measure.values()), r.res.fonts, sep, tmp)):
        inks[i] = peak
        cache.put(side_key("ink", sides[i], sep.key), peak)
    for f, data in zip(files, pdfs):
        deck = f.deck
        if deck.bleed + 1e-6 < SERVICE_BLEED_MM:
            report.warn(deck.loc, f"deck '{deck.name}' has {deck.bleed:g} mm bleed; {SERVICE} wants "
                                  f"{SERVICE_BLEED_MM} mm (1/8 in): set `bleed:` to at least that", "pdfx-bleed")
        if f.blank:
            report.note(f"pdfx: deck '{deck.name}' has no back; its cards get blank (white) backs")
        job.staging.add(root / f"{deck.slug}-pdfx.pdf", data)
        lacking = pdfx.unembedded_fonts(data)       # preflight: PDF/X-1a embeds every font
        if lacking:
            report.warn(deck.loc, f"print-service/{deck.slug}-pdfx.pdf uses font{'s' if len(lacking) > 1 else ''} "
                                  f"{', '.join(lacking)} without embedding {'them' if len(lacking) > 1 else 'it'}: "
                                  f"it is not PDF/X-1a and a print service will refuse it (a cardgen bug: please "
                                  f"report it)", "pdfx-font")
        job.staging.add(root / f"{deck.slug}-counts.txt", _counts(r.game.title, deck, f.cards).encode())
        _ink_warnings(job, deck, f.pages, [inks.get(id(side)) or 0.0 for _, _, side in f.pages])
    made = sum(piece.pictures for piece in {i: p for f in files for i, p in f.doc.pieces.items()
                                             if p is not None}.values())      # (each side once)
    if made:
        report.note(f"pdfx: {made} translucent part{'s' if made != 1 else ''} of cards printed as "
                    f"{flatten.RASTER_DPI} dpi pictures (PDF/X-1a has no transparency)")
    sep.keep_colours()
    cache.save()


def _deck_file(job: Job, deck: Deck, sep: Separation, tmp: Path, cache: PdfxCache) -> _DeckFile | None:
    """A deck's print-service file to make (None: no card of it is printed): its pages, a back
    and a front per card, each side found in `cache` or to convert."""
    from cardgen.render.outlines import mirrored
    from cardgen.render.pdfx import DeckPdf, DieLine

    r = job.rendered
    cards = [(card, face) for d, card, face in r.faces if d is deck and card.count > 0]
    if not cards:
        return None
    blank = None
    pages: list[tuple[Card, str, ops.CardLayout]] = []
    for card, face in cards:
        back = r.back_of(deck, card)
        if back is None:
            blank = blank or ops.CardLayout(face.width, face.height, face.bleed, [], f"{deck.slug}/blank", face.shape,
                                            outline=mirrored(face) if face.outline else ())
            back = blank
        pages += [(card, "back", back), (card, "front", face)]
    die = None
    if job.options.die_line and (deck.kind in ("token", "tile") or deck.size.shape != "rect"):
        die = DieLine(job.options.die_name, frozenset(id(side) for _, _, side in pages))
    doc = DeckPdf([side for _, _, side in pages], r.res.fonts, sep, tmp, cache, die)
    return _DeckFile(deck, cards, pages, blank is not None, doc)


def _counts(title: str, deck: Deck, cards: list[tuple[Card, ops.CardLayout]]) -> str:
    lines = [f"# {title}: {deck.name}, {deck.slug}-pdfx.pdf",
             "# one back page and one front page per distinct card (DriveThruCards order); print each pair",
             "# as many times as `copies` says",
             "pages\tcopies\tcard"]
    for n, (card, _) in enumerate(cards):
        lines.append(f"{2 * n + 1}-{2 * n + 2}\t{card.count}\t{card.title}")
    total = sum(c.count for c, _ in cards)
    lines.append(f"# {len(cards)} distinct card{'s' if len(cards) != 1 else ''}, {total} "
                 f"cop{'ies' if total != 1 else 'y'}")
    return "\n".join(lines) + "\n"


def _who(deck: Deck, card: Card, side: str, layout_is_shared_back: bool) -> tuple[Loc, str]:
    if layout_is_shared_back and deck.back_loc is not None:
        return deck.back_loc, f"deck '{deck.name}' back"
    return card.loc, f"card '{card.name}'" + (" (back)" if side == "back" else "")


def _group(deck: Deck, card: Card, side: str, shared: bool, what: str) -> dict[str, str]:
    """A card side's preflight finding, said once for all the cards it is on (`core.errors.grouped`)."""
    if shared:
        return {}
    return {"group": f"deck '{deck.name}'{' (backs)' if side == 'back' else ''}: {what}",
            "card": f"'{card.name}', {card.loc.brief}"}


def _ink_warnings(job: Job, deck: Deck, sides: list[tuple[Card, str, ops.CardLayout]], peaks: list[float]) -> None:
    limit = job.options.ink_limit
    shared = job.rendered.backs.get((deck.slug, None))
    for (card, side, layout), peak in zip(sides, peaks):
        if peak > limit + 0.5:
            loc, who = _who(deck, card, side, layout is shared)
            what = (f"up to {peak:.0f} % total ink in the print-service PDF, over the {limit:g} % limit (pdfx "
                    f"`ink_limit`); lighten its darkest colours or art")
            job.report.warn(loc, f"{who}: {what}", "ink-limit", **_group(deck, card, side, layout is shared, what))


