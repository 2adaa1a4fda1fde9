"""Every bundled game: builds, every font embedded and subset in every PDF, every card legible."""
from __future__ import annotations

import pytest
from conftest import REPO
from pdffonts import pdf_fonts, unembedded
from pypdf import PdfReader

from cardgen.core.errors import Report
from cardgen.model import ops
from cardgen.pipeline.build import layout_game
from cardgen.pipeline.check import load_game

GAMES = sorted(p.name for p in (REPO / "cards").iterdir() if (p / "game.yaml").is_file())


def test_the_five_documents_are_bundled():
    assert GAMES == ["alien-conspiracy", "alter-ego", "face-off", "game-601", "sheet-demo", "vigilantes"]


@pytest.mark.parametrize("game", GAMES)
def test_every_pdf_of_every_output_embeds_and_subsets_every_font(game, bundled_build):
    """Every PDF of every output a build makes (the print-service PDF/X, fold-over sheets and
    calibration sheets included), read back: each font embedded (`tests/pdffonts.py`) and subset."""
    folder, written = bundled_build(game)
    pdfs = sorted(p for p in folder.rglob("*.pdf"))
    assert {p.name for p in written if p.suffix == ".pdf"} <= {p.name for p in pdfs}
    assert {p.name for p in pdfs} >= {"print-letter.pdf", "print-a4.pdf", "cards.pdf", "rules.pdf",
                                      "player-aid.pdf", "rules-booklet-letter.pdf", "rules-booklet-a4.pdf",
                                      "print-letter-foldover.pdf", "calibration-a4.pdf"}
    assert any(p.name.endswith("-pdfx.pdf") for p in pdfs)
    for pdf in pdfs:
        fonts = pdf_fonts(pdf)
        if pdf.name.startswith("calibration"):
            assert not unembedded(pdf), pdf.name
            continue
        # (an icon-only token's PDF/X sets no text, so it has no fonts)
        assert fonts or not any(page.extract_text().strip() for page in PdfReader(pdf).pages), pdf.name
        assert unembedded(pdf) == [], pdf.name
        assert all("+" in base for base in fonts), f"{pdf.name}: not subset: {[b for b in fonts if '+' not in b]}"


@pytest.mark.parametrize("game", GAMES)
def test_every_card_is_legible(game):
    report = Report()
    rendered = layout_game(load_game(REPO / "cards" / game, REPO, report), report)
    overflow = [str(d) for d in report.items if d.code == "overflow"]
    assert overflow == []
    layouts = [f for _, _, f in rendered.faces] + rendered.distinct_backs()
    for layout in layouts:
        for i, op in enumerate(layout.ops):
            if isinstance(op, ops.Text):
                # the version and revision stamp (docs/changes.md) is small on purpose, but readable
                least = 4.5 if i in layout.stamp else 6
                assert op.size >= least, f"{layout.key}: text at {op.size} pt"
    # every card's face carries the stamp: one text op, inside the safe area (1/8 in from the trim);
    # a token has no room for it
    for deck, card, face in rendered.faces:
        if deck.kind != "card":
            continue
        stamp = [face.ops[i] for i in face.stamp]
        assert len(stamp) == 1 and isinstance(stamp[0], ops.Text), face.key
        words = "".join(str(r.content) for r in stamp[0].runs)      # one run per word
        assert card.revision.startswith("r1 ") and rendered.game.version
        assert words == f"{rendered.game.version} · {card.revision}".replace(" ", ""), face.key
        safe = 72 / 8
        for r in stamp[0].runs:
            assert safe <= r.x and r.x + r.width <= face.width - safe, (face.key, r)
            assert safe + r.size <= r.baseline <= face.height - safe, (face.key, r)
