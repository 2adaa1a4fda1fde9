"""`changes-<paper>.pdf` (`cardgen build --changed-since BUILD_OR_REF`): a first page saying
what changed since an earlier build or git revision, what to print and what to take out of
the box, then print sheets holding only the added and changed cards, with their copies and
backs (the print sheets' own layout and options: `cardgen.render.pdf.print_sheets`)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from cardgen.core.errors import CardgenError, Loc
from cardgen.core.sizes import PAPER_SIZES_MM
from cardgen.core.units import MM
from cardgen.core.words import ENGLISH, Words
from cardgen.model.ops import Copy
from cardgen.outputs.base import Job, NoOptions, Output, glyph_warning
from cardgen.outputs.print_sheets import PrintSheets
from cardgen.resources.fonts import DEFAULT_FAMILY, FontBook

if TYPE_CHECKING:    # (ReportLab and the manifest's layout are imported when used: start-up time)
    from reportlab.pdfgen.canvas import Canvas

    from cardgen.layout.changes import Change, Changes

MARGIN = 18.0           # mm
LINE = 5.6              # mm between listed cards
_INK = (0.12, 0.11, 0.1)
_GREY = (0.42, 0.42, 0.42)


LAST = "the last build"          # what `--changed-since` compares with when it names no build (pipeline.changes)

def changed_copies(job: Job, changes: Changes) -> list[Copy]:
    """The copies to print, in build order: every copy of an added or reprinted card, the extra
    copies of a card that has more."""
    r = job.rendered
    assert changes.new is not None and len(changes.new.cards) == len(r.faces)
    wanted = {id(c.new): c.to_print for c in changes.items if c.new is not None and c.to_print}
    by_face: dict[int, list[Copy]] = {}
    for cp in r.copies:
        by_face.setdefault(id(cp.face), []).append(cp)
    out: list[Copy] = []
    for (_, _, face), e in zip(r.faces, changes.new.cards):
        out += by_face.get(id(face), [])[:wanted.get(id(e), 0)]
    return out


def _why_printed(c: Change, words: Words) -> str:
    if c.kind == "renamed" and c.old is not None:
        return words("renamed from {name}", name=c.old.name)
    if c.kind == "copies" and c.old is not None and c.new is not None:
        more = "{n} more copy ({old} → {new})" if c.to_print == 1 else "{n} more copies ({old} → {new})"
        return words(more, n=c.to_print, old=c.old.copies, new=c.new.copies)
    return words(c.kind)


def _why_removed(c: Change, changes: Changes, words: Words) -> str:
    assert c.old is not None
    stamp = changes.printed_as(c.old)
    if c.kind == "removed":
        return words("removed, stamped {stamp}", stamp=stamp)
    if c.kind == "copies" and c.new is not None:
        fewer = "{n} copy fewer ({old} → {new})" if c.to_remove == 1 else "{n} copies fewer ({old} → {new})"
        return words(fewer, n=c.to_remove, old=c.old.copies, new=c.new.copies)
    if c.kind == "renamed" and c.new is not None:
        return words("renamed to {name}, stamped {stamp}", name=c.new.name, stamp=stamp)
    return words("the old version, stamped {stamp}", stamp=stamp)


class _Listing:
    """The first page(s): what changed, what to print, what to take out."""

    def __init__(self, c: Canvas, fonts: FontBook, paper: str, title: str, words: Words = ENGLISH):
        self.c, self.fonts, self.words = c, fonts, words
        self.w, self.h = PAPER_SIZES_MM[paper]
        self.title = title
        family = DEFAULT_FAMILY if fonts.has(DEFAULT_FAMILY) else None
        self.regular = fonts.face(family, "regular").name
        self.bold = fonts.face(family, "bold").name
        self.styles = {self.regular: (family, "regular"), self.bold: (family, "bold")}
        self.pages = 1
        self.y = MARGIN
        self.lacking: dict[str, str] = {}     # font -> characters drawn in it that it has no glyph for

    def _fit(self, text: str, font: str, size: float, width: float) -> str:
        """`text` cut (with …) to `width` mm."""
        if self.fonts.width(text, font, size) / MM <= width:
            return text
        while text and self.fonts.width(text + "…", font, size) / MM > width:
            text = text[:-1]
        return text + "…"

    def text(self, x: float, text: str, font: str, size: float, colour=_INK, width: float | None = None) -> None:
        """`text` from `x` mm at the current line, what `font` lacks in the fallback fonts (as on
        the cards); what no font has is remembered (`lacking`), for `make` to say."""
        self.c.setFillColorRGB(*colour)
        room = width if width is not None else self.w - MARGIN - x
        text = self._fit(text, font, size, room)
        family, style = self.styles.get(font, (None, "regular"))
        at = x * MM
        for part, name in self.fonts.split(text, family, style) if font in self.styles else [(text, font)]:
            gone = self.fonts.missing(part, name)
            if gone:
                had = self.lacking.get(name, "")
                self.lacking[name] = had + "".join(ch for ch in dict.fromkeys(gone) if ch not in had)
            self.c.setFont(name, size)
            self.c.drawString(at, (self.h - self.y) * MM, part)
            at += self.fonts.width(part, name, size)

    def room(self, need: float) -> None:
        if self.y + need > self.h - MARGIN:
            self.c.showPage()
            self.pages += 1
            self.y = MARGIN + 4
            self.text(MARGIN, f"{self.title}: {self.words('what changed (continued)')}", self.bold, 11)
            self.y += LINE * 1.5

    def heading(self, text: str) -> None:
        self.room(LINE * 3)
        self.y += LINE * 0.8
        self.text(MARGIN, text, self.bold, 11.5)
        self.y += LINE * 1.1

    def item(self, copies: int, label: str, why: str) -> None:
        self.room(LINE)
        box = 3.0
        self.c.setStrokeColorRGB(*_INK)
        self.c.setLineWidth(0.6)
        self.c.rect(MARGIN * MM, (self.h - self.y - 0.6) * MM, box * MM, box * MM, stroke=1, fill=0)
        self.text(MARGIN + 5.5, f"×{copies}", self.bold, 9.5)
        self.text(MARGIN + 15, label, self.regular, 9.5, width=(self.w - 2 * MARGIN - 15) * 0.58)
        self.text(MARGIN + 15 + (self.w - 2 * MARGIN - 15) * 0.6, why, self.regular, 8.5, _GREY)
        self.y += LINE

    def draw(self, changes: Changes, sheets: int, duplex: bool) -> None:
        w = self.words
        self.y = MARGIN + 6
        self.text(MARGIN, f"{self.title}: {w('what changed')}", self.bold, 17)
        self.y += LINE * 1.3
        since = w("since {since}", since=w(LAST) if changes.since == LAST else changes.since)
        none = w("none")
        if changes.old_version != changes.new_version:
            since += " · " + w("version {old} → {new}", old=changes.old_version or none,
                               new=changes.new_version or none)
        elif changes.new_version:
            since += " · " + w("version {version}", version=changes.new_version)
        self.text(MARGIN, since, self.regular, 9.5, _GREY)
        self.y += LINE
        self.text(MARGIN, f"{changes.counts(w)}: {changes.summary(w)}", self.regular, 9.5)
        self.y += LINE * 0.6
        printed, removed = changes.printed, changes.removed_from_box
        if printed:
            self.heading(w("Print and put in the box ({copies})",
                           copies=w.count(sum(c.to_print for c in printed), "copy")))
            for c in printed:
                assert c.new is not None
                self.item(c.to_print, c.new.label, _why_printed(c, w))
        if removed:
            self.heading(w("Take out of the box ({copies})", copies=w.count(sum(c.to_remove for c in removed), "copy")))
            for c in removed:
                assert c.old is not None
                self.item(c.to_remove, c.old.label, _why_removed(c, changes, w))
        same = [c for c in changes.items if not c.to_print and not c.to_remove]
        if same:
            self.heading(w("Changed in the data only (nothing to do)"))
            for c in same:
                e = c.new or c.old
                assert e is not None
                self.item(e.copies, c.label, w("{kind}, no copies (count: 0)", kind=w(c.kind)) if not e.copies
                          else w("renamed; prints the same"))
        self.y += LINE
        self.room(LINE)
        if sheets:
            how = w("{n} sheet follows" if sheets == 1 else "{n} sheets follow", n=sheets) \
                + (w(", printed double-sided") if duplex else "")
            self.text(MARGIN, w("The print sheets with only these cards: {how}; print at 100 % and cut as usual.",
                                how=how), self.regular, 9, _GREY)
        else:
            self.text(MARGIN, w("Nothing to print."), self.regular, 9, _GREY)
        self.c.showPage()
        if duplex and self.pages % 2:
            self.text(MARGIN, w("(left blank: the print sheets that follow start on a sheet of their own)"),
                      self.regular, 8, _GREY)
            self.c.showPage()


class ChangesPdf(Output[NoOptions]):
    summary = ("What changed since an earlier build or git revision (`--changed-since`, docs/changes.md): a page "
               "listing it and what to take out of the box, then print sheets (with the `print` options) of only "
               "the added and changed cards.")
    files = "changes-<paper>.pdf"

    def make(self, job: Job[NoOptions]) -> None:
        from cardgen.render import impose
        from cardgen.render.pdf import SheetOptions, plan_sheets, print_sheets

        changes = job.changes
        if changes is None:         # the pipeline says what changed (`cardgen.pipeline.changes`)
            raise TypeError("the changes output needs the changes (--changed-since)")
        r = job.rendered
        o = job.options_of(PrintSheets)
        copies = changed_copies(job, changes)
        for paper in job.build.papers:
            so = SheetOptions(paper, o.gutter, o.flip, o.back_offset, o.backs, o.mix_backs, words=r.game.words,
                              titles=r.game.deck_titles)
            try:
                pages, _ = plan_sheets(copies, so)

                def cover(c: Canvas, duplex: bool, paper: str = paper, sheets: int = len(pages)) -> None:
                    c.setTitle(f"{r.game.title}: {r.game.words('what changed ({paper})', paper=paper)}")
                    listing = _Listing(c, r.res.fonts, paper, r.game.title, r.game.words)
                    listing.draw(changes, sheets, duplex)
                    for font, chars in listing.lacking.items():
                        job.report.warn(*glyph_warning(r.game, chars, font, r.res.fonts,
                                                       f"changes-{paper}.pdf (its list of cards)"))

                data = print_sheets(copies, r.res.fonts, so, r.game.title, pages, cover)
            except impose.DoesNotFit as exc:
                raise CardgenError(Loc(str(r.game.file), 1), f"{exc}; use a larger --page or a smaller card") \
                    from None
            job.staging.add(job.out_dir / f"changes-{paper}.pdf", data)
            job.report.note(f"changes-{paper}.pdf: {changes.summary()}")
