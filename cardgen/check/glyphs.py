"""Characters no font has in what cardgen prints of its own: the game's title (on the print
sheets' margins, the calibration sheet, the changes list) and the decks' names (on the
sheets' margins and in the changes list).  Card text is checked as each card is laid out
(`cardgen.layout.engine`), the rulebook's as the booklet and player aid set it
(`cardgen.outputs.booklet.rulebook_part`)."""
from __future__ import annotations

from cardgen.core.errors import Loc, Report
from cardgen.load.game import Game
from cardgen.resources.fonts import DEFAULT_FAMILY, FontBook, FontError, no_glyph_message


def _lacking(fonts: FontBook, text: str) -> dict[str, str]:
    family = DEFAULT_FAMILY if fonts.has(DEFAULT_FAMILY) else None
    out: dict[str, str] = {}
    for part, font in fonts.split(text, family, "regular"):
        gone = fonts.missing(part, font)
        if gone:
            out[font] = out.get(font, "") + "".join(ch for ch in gone if ch not in out.get(font, ""))
    return out


def check_printed_names(game: Game, report: Report) -> None:
    """A warning at the title and at each deck's name for a character no font has."""
    names: list[tuple[str, Loc, str]] = []
    title = game.data.get("title")
    if isinstance(title, str):
        names.append((title, game.data.value_loc("title"), "the game's title (printed on the sheets' margins, the "
                                                         "calibration sheet and the changes list)"))
    for deck in game.decks:
        names.append((deck.name, deck.data.value_loc("deck"), f"deck name '{deck.name}' (printed on the sheets' "
                                                              f"margins and the changes list)"))
    if not any(not n.isascii() for n, _, _ in names):
        return          # (every font cardgen draws its own text in has ASCII)
    try:
        fonts = FontBook(game.search_dirs("fonts"), game.roots, game.opts.fallback_fonts or ())
        for text, loc, what in names:
            for font, chars in _lacking(fonts, text).items():
                report.warn(loc, f"{what}: {no_glyph_message(fonts, font, chars)}", "missing-glyph")
    except FontError:
        return          # a damaged font: said where it is named
