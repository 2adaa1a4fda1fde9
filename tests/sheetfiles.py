"""Spreadsheet files for tests: a minimal ODS writer (stdlib only) and an XLSX writer (openpyxl)."""
from __future__ import annotations

import zipfile
from xml.sax.saxutils import escape

MANIFEST = """<?xml version="1.0" encoding="UTF-8"?>
<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">
 <manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/>
 <manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>
</manifest:manifest>"""

def cell(v):
    if v is None or v == "":
        return "<table:table-cell/>"
    if isinstance(v, bool):
        return f'<table:table-cell office:value-type="boolean" office:boolean-value="{str(v).lower()}"><text:p>{str(v).upper()}</text:p></table:table-cell>'
    if isinstance(v, (int, float)):
        return f'<table:table-cell office:value-type="float" office:value="{v}"><text:p>{v}</text:p></table:table-cell>'
    paras = "".join(f"<text:p>{escape(p)}</text:p>" for p in str(v).split("\n"))
    return f'<table:table-cell office:value-type="string">{paras}</table:table-cell>'

def write_ods(path, sheets):
    tables = []
    for name, rows in sheets.items():
        body = "".join("<table:table-row>" + "".join(cell(v) for v in row) + "</table:table-row>" for row in rows)
        tables.append(f'<table:table table:name="{escape(name)}">{body}</table:table>')
    content = ('<?xml version="1.0" encoding="UTF-8"?><office:document-content '
               'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
               'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
               'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2">'
               f'<office:body><office:spreadsheet>{"".join(tables)}</office:spreadsheet></office:body></office:document-content>')
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(zipfile.ZipInfo("mimetype", (1980, 1, 1, 0, 0, 0)), "application/vnd.oasis.opendocument.spreadsheet")
        z.writestr(zipfile.ZipInfo("META-INF/manifest.xml", (1980, 1, 1, 0, 0, 0)), MANIFEST, zipfile.ZIP_DEFLATED)
        z.writestr(zipfile.ZipInfo("content.xml", (1980, 1, 1, 0, 0, 0)), content, zipfile.ZIP_DEFLATED)


def write_xlsx(path, sheets):
    """`sheets`: sheet name -> rows (lists of cell values; None for an empty cell)."""
    import openpyxl

    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    for name, rows in sheets.items():
        ws = wb.create_sheet(name)
        for r, row in enumerate(rows, start=1):
            for c, v in enumerate(row, start=1):
                if v is not None and v != "":
                    ws.cell(row=r, column=c, value=v)
    wb.save(path)
