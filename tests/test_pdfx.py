"""Print-service PDFs (PDF/X-1a, CMYK) read back, their preflight warnings, and the document
information of every PDF cardgen writes."""
from __future__ import annotations

from conftest import REPO
from pypdf import PdfReader

import cardgen
from cardgen.core.errors import Report
from cardgen.pipeline.build import BuildOptions, build_game

CREATOR = f"cardgen {cardgen.__version__}"

# -- document information of every PDF ------------------------------------------------------------


def _pdfs(folder):
    return sorted(p for p in folder.rglob("*.pdf"))


def test_every_pdf_names_designer_creator_and_source_date(tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1714564800")            # 2024-05-01 12:00 UTC
    out = tmp_path / "out"
    build_game(REPO / "cards" / "game-601", REPO, BuildOptions(out=out, papers=("letter",)), Report())
    pdfs = _pdfs(out / "game-601")
    names = {p.name for p in pdfs}
    assert {"print-letter.pdf", "cards.pdf", "calibration-letter.pdf", "rules.pdf", "rules-booklet-letter.pdf",
            "player-aid.pdf"} <= names
    for pdf in pdfs:
        meta = PdfReader(pdf).metadata
        assert meta["/Author"] == "Jiachen Tang", pdf.name
        assert meta["/Creator"] == CREATOR and meta["/Producer"] == CREATOR, pdf.name
        assert meta["/CreationDate"] == meta["/ModDate"] == "D:20240501120000+00'00'", pdf.name
        assert meta["/Title"].startswith("Game 601"), pdf.name
        assert "anonymous" not in repr(dict(meta)).lower(), pdf.name


def test_no_designer_no_author_and_date_from_game_yaml(tiny_game, tmp_path, monkeypatch):
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    root = tiny_game(game_extra="date: 2023-11-02\n")
    out = tmp_path / "out"
    build_game(root, REPO, BuildOptions(out=out, only=("print", "cards", "calibration"), papers=("a4",)), Report())
    for pdf in _pdfs(out / "tiny"):
        meta = PdfReader(pdf).metadata
        assert "/Author" not in meta, pdf.name
        assert meta["/CreationDate"] == "D:20231102000000+00'00'", pdf.name
        assert meta["/Title"].startswith("Tiny: "), pdf.name


def test_without_any_date_the_pdfs_carry_none_and_stay_byte_identical(tiny_game, tmp_path, monkeypatch):
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    root = tiny_game()
    files = []
    for n in (1, 2):
        out = tmp_path / f"out{n}"
        build_game(root, REPO, BuildOptions(out=out, only=("cards",), papers=("a4",)), Report())
        files.append((out / "tiny" / "cards.pdf").read_bytes())
    meta = PdfReader(tmp_path / "out1" / "tiny" / "cards.pdf").metadata
    assert "/CreationDate" not in meta and "/ModDate" not in meta
    assert b"D:2000" not in files[0]
    assert files[0] == files[1]
