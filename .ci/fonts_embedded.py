"""Fail unless every font that the given PDFs use (their forms' too) is embedded."""

import sys

from pypdf import PdfReader

for name in sys.argv[1:]:
    reader = PdfReader(name)
    fonts: dict[str, bool] = {}
    for page in reader.pages:
        stack = [page.get("/Resources")]
        while stack:
            res = stack.pop()
            res = res.get_object() if res is not None else None
            if not res:
                continue
            for font in (res["/Font"] if "/Font" in res else {}).values():
                font = font.get_object()
                if "/DescendantFonts" in font:
                    font = font["/DescendantFonts"][0].get_object()
                desc = font.get("/FontDescriptor")
                desc = desc.get_object() if desc is not None else {}
                fonts[str(font["/BaseFont"])] = any(k in desc for k in ("/FontFile", "/FontFile2", "/FontFile3"))
            for xo in (res["/XObject"] if "/XObject" in res else {}).values():
                stack.append(xo.get_object().get("/Resources"))
    missing = sorted(f for f, embedded in fonts.items() if not embedded)
    if not fonts or missing:
        sys.exit(f"{name}: fonts not embedded: {missing or 'no fonts'}")
    print(f"{name}: {len(reader.pages)} pages, {len(fonts)} fonts, all embedded")
