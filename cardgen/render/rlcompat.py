"""Small fixes to ReportLab behaviour that cardgen relies on (imported by draw).

1. Form XObjects drop their ExtGState resources, so transparency inside a form
   (a card drawn once and placed many times) would point at undefined states.
   The canvas already records the states on the form; this adds them to the form's
   resource dictionary.
2. ASCII85 on binary streams makes PDFs ~25 % larger for nothing.
"""
from __future__ import annotations

from reportlab import rl_config
from reportlab.pdfbase import pdfdoc

rl_config.useA85 = 0

_original_format = pdfdoc.PDFFormXObject.format


def _format_with_extgstate(self, document):
    if getattr(self, "ExtGState", None) and not self.Resources:
        resources = pdfdoc.PDFResourceDictionary()
        resources.basicFonts()
        if self.hasImages:
            resources.allProcs()
        else:
            resources.basicProcs()
        if self.XObjects:
            resources.XObject = self.XObjects
        resources.ExtGState = self.ExtGState
        self.Resources = resources
    return _original_format(self, document)


if not getattr(pdfdoc.PDFFormXObject.format, "_cardgen", False):
    _format_with_extgstate._cardgen = True
    pdfdoc.PDFFormXObject.format = _format_with_extgstate
