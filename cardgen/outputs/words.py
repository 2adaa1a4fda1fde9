"""The words cardgen prints itself in the booklet and the player aid ("Components", "12 cards",
"Your turn"), in the language the game is built in (docs/languages.md): English, German,
French, Spanish, Italian and Dutch; another language gets the English words.

`say(lang, text)` gives the words for an English text; `count(lang, n, kind)` a number of
pieces of a kind (`card`, `token`, `tile`, `board`, `die`, `face`), singular or plural.
"""
from __future__ import annotations

_TEXTS = ("Rules summary", "Designed by", "Components", "different", "faces", "Also needed",
          "Bought or from another game", "Contents", "In the box", "Notes", "Your turn", "End of the game", "Remember",
          "Quick reference", "At a glance", "the player aid, printed with the cards", "rules summary", "Players:",
          "players", "Version")
_WORDS: dict[str, tuple[str, ...]] = {
    "de": ("Spielregeln in Kürze", "Autor:", "Spielmaterial", "verschiedene", "Seiten", "Außerdem nötig",
           "Gekauft oder aus einem anderen Spiel", "Inhalt", "In der Schachtel", "Notizen", "Dein Zug",
           "Spielende", "Nicht vergessen", "Kurzübersicht", "Auf einen Blick",
           "die Spielhilfe, mit den Karten gedruckt", "Spielregeln in Kürze", "Spieler:", "Spieler", "Version"),
    "fr": ("Résumé des règles", "Conçu par", "Matériel", "différentes", "faces", "Il faut aussi",
           "Acheté ou pris dans un autre jeu", "Sommaire", "Dans la boîte", "Notes", "Votre tour",
           "Fin de la partie", "À retenir", "Aide-mémoire", "En un coup d’œil",
           "l’aide de jeu, imprimée avec les cartes", "résumé des règles", "Joueurs :", "joueurs", "Version"),
    "es": ("Resumen de las reglas", "Diseñado por", "Componentes", "distintas", "caras", "También hace falta",
           "Comprado o de otro juego", "Índice", "En la caja", "Notas", "Tu turno", "Fin de la partida",
           "Recuerda", "Referencia rápida", "De un vistazo", "la ayuda de juego, impresa con las cartas",
           "resumen de las reglas", "Jugadores:", "jugadores", "Versión"),
    "it": ("Riassunto delle regole", "Ideato da", "Componenti", "diverse", "facce", "Serve anche",
           "Acquistato o da un altro gioco", "Indice", "Nella scatola", "Note", "Il tuo turno",
           "Fine della partita", "Ricorda", "Riferimento rapido", "In breve",
           "l’aiuto di gioco, stampato con le carte", "riassunto delle regole", "Giocatori:", "giocatori",
           "Versione"),
    "nl": ("Spelregels in het kort", "Ontworpen door", "Spelmateriaal", "verschillende", "zijden", "Ook nodig",
           "Gekocht of uit een ander spel", "Inhoud", "In de doos", "Notities", "Jouw beurt", "Einde van het spel",
           "Onthoud", "Beknopt overzicht", "In één oogopslag", "de spelhulp, gedrukt met de kaarten",
           "spelregels in het kort", "Spelers:", "spelers", "Versie"),
}
# piece kinds: (singular, plural) by language
_KINDS: dict[str, dict[str, tuple[str, str]]] = {
    "en": {"card": ("card", "cards"), "token": ("token", "tokens"), "tile": ("tile", "tiles"),
           "board": ("board", "boards"), "die": ("die", "dice"), "face": ("face", "faces")},
    "de": {"card": ("Karte", "Karten"), "token": ("Marker", "Marker"), "tile": ("Plättchen", "Plättchen"),
           "board": ("Spielplan", "Spielpläne"), "die": ("Würfel", "Würfel"), "face": ("Seite", "Seiten")},
    "fr": {"card": ("carte", "cartes"), "token": ("jeton", "jetons"), "tile": ("tuile", "tuiles"),
           "board": ("plateau", "plateaux"), "die": ("dé", "dés"), "face": ("face", "faces")},
    "es": {"card": ("carta", "cartas"), "token": ("ficha", "fichas"), "tile": ("loseta", "losetas"),
           "board": ("tablero", "tableros"), "die": ("dado", "dados"), "face": ("cara", "caras")},
    "it": {"card": ("carta", "carte"), "token": ("segnalino", "segnalini"), "tile": ("tessera", "tessere"),
           "board": ("plancia", "plance"), "die": ("dado", "dadi"), "face": ("faccia", "facce")},
    "nl": {"card": ("kaart", "kaarten"), "token": ("fiche", "fiches"), "tile": ("tegel", "tegels"),
           "board": ("speelbord", "speelborden"), "die": ("dobbelsteen", "dobbelstenen"), "face": ("zijde", "zijden")},
}


def _base(lang: str | None) -> str:
    return (lang or "en").replace("_", "-").split("-")[0].lower()


def say(lang: str | None, text: str) -> str:
    """`text` (one of cardgen's own English texts) in `lang`; the English for a language or text
    it has no words for."""
    words = _WORDS.get(_base(lang))
    return words[_TEXTS.index(text)] if words is not None and text in _TEXTS else text


def count(lang: str | None, n: int, kind: str) -> str:
    """`12 cards`, `12 Karten`: `n` pieces of `kind` in `lang`."""
    kinds = _KINDS.get(_base(lang), _KINDS["en"])
    one, many = kinds.get(kind) or _KINDS["en"].get(kind) or (kind, kind + "s")
    return f"{n} {one if n == 1 else many}"


assert all(len(w) == len(_TEXTS) for w in _WORDS.values())
