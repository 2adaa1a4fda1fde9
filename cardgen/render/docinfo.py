"""The version and document information every PDF cardgen writes carries. The version
(`PDF_VERSION`, the file's first line) is the same in every file: 1.4, the lowest that has
all cardgen draws (transparency). ReportLab would write 1.3 and raise it to 1.4 when the
document itself calls a transparency operator, so a card form drawn in one PDF and reused
in another (`cardgen.render.formcache`) left the second at 1.3 with transparency inside it,
and a file's first line depended on which other outputs the build made.

The document information: a title, the designer as
author (only when game.yaml names one: never ReportLab's "anonymous"), "cardgen X.Y" as
creator and producer, and the creation and modification date.

The date comes, first to last, from the `SOURCE_DATE_EPOCH` environment variable (the
reproducible-builds convention), from game.yaml's `date:`, or nowhere: a PDF without a
date is still a valid PDF, and a build's files stay byte-identical either way. (ReportLab
on its own writes "anonymous" and 1 January 2000.)

The build sets what it knows of the game once, around making its outputs (`using`);
`cardgen.render.draw.new_canvas` and the pypdf writers (`pypdf_metadata`) read it, so
no output passes it around.
"""
from __future__ import annotations

import os
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import Any

from reportlab.pdfbase import pdfdoc

from cardgen.core.version import VERSION

CREATOR = f"cardgen {VERSION}"
PDF_VERSION = (1, 4)        # of every PDF cardgen writes (ReportLab's canvas and pypdf's writer)
PDF_HEADER = b"%%PDF-%d.%d" % PDF_VERSION


@dataclass(frozen=True)
class DocInfo:
    """What a PDF's document information says."""

    author: str | None = None           # the designer
    epoch: int | None = None            # seconds since 1970 (UTC), or no date at all
    extra: Mapping[str, Any] = field(default_factory=dict)   # more keys: name -> str or ("name", word)

    def resolved(self) -> DocInfo:
        """With SOURCE_DATE_EPOCH, when set to a whole number, in place of the date."""
        env = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
        if env.isdigit():
            return replace(self, epoch=int(env))
        return self


_CURRENT: ContextVar[DocInfo | None] = ContextVar("cardgen_docinfo", default=None)


def current() -> DocInfo:
    return (_CURRENT.get() or DocInfo()).resolved()


@contextmanager
def using(info: DocInfo) -> Iterator[None]:
    """`info` for every PDF made inside the block."""
    token = _CURRENT.set(info)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def epoch_of_date(text: str) -> int:
    """`YYYY-MM-DD` as seconds since 1970 at 00:00 UTC."""
    import calendar

    return calendar.timegm(time.strptime(text, "%Y-%m-%d"))


def pdf_date(epoch: int) -> str:
    return time.strftime("D:%Y%m%d%H%M%S+00'00'", time.gmtime(epoch))


class Info(pdfdoc.PDFInfo):
    """ReportLab's document information dictionary with only the keys that say something."""

    def __init__(self, title: str, info: DocInfo) -> None:
        super().__init__()
        self.title = title
        self.author = info.author or ""
        self.meta = info

    def format(self, document: Any) -> bytes:
        d: dict[str, Any] = {"Title": pdfdoc.PDFString(self.title)}
        if self.meta.author:
            d["Author"] = pdfdoc.PDFString(self.meta.author)
        d["Creator"] = d["Producer"] = pdfdoc.PDFString(CREATOR)
        if self.meta.epoch is not None:
            d["CreationDate"] = d["ModDate"] = pdfdoc.PDFString(pdf_date(self.meta.epoch))
        d["Trapped"] = pdfdoc.PDFName(self.trapped)
        for key, value in self.meta.extra.items():
            d[key] = pdfdoc.PDFName(value[1]) if isinstance(value, tuple) else pdfdoc.PDFString(value)
        return pdfdoc.PDFDictionary(d).format(document)


def attach(canvas: Any, title: str = "") -> None:
    """Give a ReportLab canvas the current document information; `canvas.setTitle` still works."""
    doc = canvas._doc
    info = Info(title or doc.info.title, current())
    doc.info = info


def extend(canvas: Any, **extra: Any) -> None:
    """More keys in a canvas's document information (str values as text, ("name", word) as
    a PDF name), e.g. PDF/X's GTS_PDFXVersion."""
    info = canvas._doc.info
    info.meta = replace(info.meta, extra={**info.meta.extra, **extra})


def pypdf_writer() -> Any:
    """A pypdf `PdfWriter` that writes `PDF_VERSION` (pypdf's own default is 1.3)."""
    from pypdf import PdfWriter

    writer = PdfWriter()
    writer.pdf_header = PDF_HEADER
    return writer


def pypdf_metadata(title: str) -> dict[str, str]:
    """The same information for a pypdf `PdfWriter.add_metadata`."""
    info = current()
    out = {"/Title": title, "/Creator": CREATOR, "/Producer": CREATOR}
    if info.author:
        out["/Author"] = info.author
    if info.epoch is not None:
        out["/CreationDate"] = out["/ModDate"] = pdf_date(info.epoch)
    return out
