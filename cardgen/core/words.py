"""The words cardgen prints itself (docs/languages.md#cardgens-own-words): the booklet's and the
player aid's headings ("Components", "Your turn"), a callout's default heading, the notes on
the print sheets, tuck boxes, fold-over sheets and dice nets, the calibration sheet, the
gallery page's labels, the Tabletop Simulator objects cardgen names.  Bundled in English,
German, French, Spanish, Italian and Dutch; a game may give its own for any language
(game.yaml's `words:`, `words@LANG:`), and another language gets the English words.

A text is named by its English words, placeholders in braces (`sheet {n} of {total}`):
`Words(lang)("sheet {n} of {total}", n=1, total=3)`.  `count(n, kind)` is a number of pieces
of a kind (`12 cards`, `12 Karten`), singular or plural.  The words sit here, at the bottom of
the stages, because every stage from the rulebook's layout to the outputs prints some.
"""
from __future__ import annotations

import string
from collections.abc import Mapping

BUNDLED = ("de", "fr", "es", "it", "nl")      # the languages below, each text's words in this order

_WORDS: dict[str, tuple[str, str, str, str, str]] = {
    # -- the booklet and the player aid -----------------------------------------------------------
    "Rules summary": ("Spielregeln in Kürze", "Résumé des règles", "Resumen de las reglas",
                      "Riassunto delle regole", "Spelregels in het kort"),
    "rules summary": ("Spielregeln in Kürze", "résumé des règles", "resumen de las reglas",
                      "riassunto delle regole", "spelregels in het kort"),
    "Designed by": ("Autor:", "Conçu par", "Diseñado por", "Ideato da", "Ontworpen door"),
    "Version": ("Version", "Version", "Versión", "Versione", "Versie"),
    "Players:": ("Spieler:", "Joueurs :", "Jugadores:", "Giocatori:", "Spelers:"),
    "players": ("Spieler", "joueurs", "jugadores", "giocatori", "spelers"),
    "Components": ("Spielmaterial", "Matériel", "Componentes", "Componenti", "Spelmateriaal"),
    "different": ("verschiedene", "différentes", "distintas", "diverse", "verschillende"),
    "faces": ("Seiten", "faces", "caras", "facce", "zijden"),
    "{edge} mm dice, {size} mm stickers": ("{edge}-mm-Würfel, {size}-mm-Aufkleber", "dés de {edge} mm, "
                                           "autocollants de {size} mm", "dados de {edge} mm, pegatinas de {size} mm",
                                           "dadi da {edge} mm, adesivi da {size} mm",
                                           "dobbelstenen van {edge} mm, stickers van {size} mm"),
    "{name} (count still to be decided)": ("{name} (Anzahl noch offen)", "{name} (nombre encore à fixer)",
                                           "{name} (cantidad aún por decidir)", "{name} (numero ancora da decidere)",
                                           "{name} (aantal nog te bepalen)"),
    "Also needed": ("Außerdem nötig", "Il faut aussi", "También hace falta", "Serve anche", "Ook nodig"),
    "Bought or from another game": ("Gekauft oder aus einem anderen Spiel", "Acheté ou pris dans un autre jeu",
                                    "Comprado o de otro juego", "Acquistato o da un altro gioco",
                                    "Gekocht of uit een ander spel"),
    "Contents": ("Inhalt", "Sommaire", "Índice", "Indice", "Inhoud"),
    "In the box": ("In der Schachtel", "Dans la boîte", "En la caja", "Nella scatola", "In de doos"),
    "Notes": ("Notizen", "Notes", "Notas", "Note", "Notities"),
    "Your turn": ("Dein Zug", "Votre tour", "Tu turno", "Il tuo turno", "Jouw beurt"),
    "End of the game": ("Spielende", "Fin de la partie", "Fin de la partida", "Fine della partita",
                        "Einde van het spel"),
    "Remember": ("Nicht vergessen", "À retenir", "Recuerda", "Ricorda", "Onthoud"),
    "Quick reference": ("Kurzübersicht", "Aide-mémoire", "Referencia rápida", "Riferimento rapido",
                        "Beknopt overzicht"),
    "At a glance": ("Auf einen Blick", "En un coup d’œil", "De un vistazo", "In breve", "In één oogopslag"),
    "the player aid, printed with the cards": ("die Spielhilfe, mit den Karten gedruckt",
                                               "l’aide de jeu, imprimée avec les cartes",
                                               "la ayuda de juego, impresa con las cartas",
                                               "l’aiuto di gioco, stampato con le carte",
                                               "de spelhulp, gedrukt met de kaarten"),
    "Player aid": ("Spielhilfe", "Aide de jeu", "Ayuda de juego", "Aiuto di gioco", "Spelhulp"),
    "player aid": ("Spielhilfe", "aide de jeu", "ayuda de juego", "aiuto di gioco", "spelhulp"),
    "Designer’s note": ("Anmerkung des Autors", "Note de l’auteur", "Nota del autor", "Nota dell’autore",
                        "Noot van de ontwerper"),
    # a callout's heading when it gives no `title:`
    "Example": ("Beispiel", "Exemple", "Ejemplo", "Esempio", "Voorbeeld"),
    "Tip": ("Tipp", "Astuce", "Consejo", "Consiglio", "Tip"),
    "Note": ("Hinweis", "Remarque", "Nota", "Nota", "Opmerking"),
    # -- the print sheets, fold-over sheets, boards across sheets, dice nets ------------------------
    "print sheets": ("Druckbögen", "planches d’impression", "hojas de impresión", "fogli di stampa", "printvellen"),
    "fold-over sheets": ("Falzbögen", "planches à plier", "hojas para plegar", "fogli da piegare", "vouwvellen"),
    "sheet {n} of {total}": ("Bogen {n} von {total}", "planche {n} sur {total}", "hoja {n} de {total}",
                             "foglio {n} di {total}", "vel {n} van {total}"),
    "print at 100 % (Actual size)": ("mit 100 % drucken (Originalgröße)", "imprimer à 100 % (taille réelle)",
                                     "imprimir al 100 % (tamaño real)", "stampare al 100 % (dimensioni effettive)",
                                     "afdrukken op 100 % (werkelijke grootte)"),
    "fronts": ("Vorderseiten", "recto", "anversos", "fronti", "voorkanten"),
    "fronts, duplex: flip on long edge": ("Vorderseiten, beidseitig: an der langen Kante wenden",
                                          "recto, recto verso : retourner sur le bord long",
                                          "anversos, a doble cara: girar por el borde largo",
                                          "fronti, fronte-retro: capovolgere sul lato lungo",
                                          "voorkanten, dubbelzijdig: omslaan langs de lange zijde"),
    "fronts, duplex: flip on short edge": ("Vorderseiten, beidseitig: an der kurzen Kante wenden",
                                           "recto, recto verso : retourner sur le bord court",
                                           "anversos, a doble cara: girar por el borde corto",
                                           "fronti, fronte-retro: capovolgere sul lato corto",
                                           "voorkanten, dubbelzijdig: omslaan langs de korte zijde"),
    "one-sided: print this page alone, on sticker paper": (
        "einseitig: diese Seite allein drucken, auf Etikettenpapier",
        "recto seul : imprimer cette page à part, sur papier autocollant",
        "a una cara: imprimir esta página sola, en papel adhesivo",
        "solo fronte: stampare questa pagina da sola, su carta adesiva",
        "enkelzijdig: deze pagina apart afdrukken, op stickerpapier"),
    "backs": ("Rückseiten", "verso", "reversos", "retri", "achterkanten"),
    "single-sided, 100 %: fronts left, fold on the dashed line, glue, cut": (
        "einseitig, 100 %: Vorderseiten links, an der gestrichelten Linie falzen, kleben, schneiden",
        "recto seul, 100 % : recto à gauche, plier sur les pointillés, coller, couper",
        "a una cara, 100 %: anversos a la izquierda, plegar por la línea discontinua, pegar, cortar",
        "solo fronte, 100 %: fronti a sinistra, piegare sulla linea tratteggiata, incollare, tagliare",
        "enkelzijdig, 100 %: voorkanten links, vouwen langs de stippellijn, lijmen, snijden"),
    "single-sided, 100 %: fronts top, fold on the dashed line, glue, cut": (
        "einseitig, 100 %: Vorderseiten oben, an der gestrichelten Linie falzen, kleben, schneiden",
        "recto seul, 100 % : recto en haut, plier sur les pointillés, coller, couper",
        "a una cara, 100 %: anversos arriba, plegar por la línea discontinua, pegar, cortar",
        "solo fronte, 100 %: fronti in alto, piegare sulla linea tratteggiata, incollare, tagliare",
        "enkelzijdig, 100 %: voorkanten boven, vouwen langs de stippellijn, lijmen, snijden"),
    "stickers: print this page on sticker paper, 100 %, and cut; no fold": (
        "Aufkleber: diese Seite auf Etikettenpapier drucken, 100 %, und schneiden; nicht falzen",
        "autocollants : imprimer cette page sur papier autocollant, 100 %, et couper ; sans pliage",
        "pegatinas: imprimir esta página en papel adhesivo, 100 %, y cortar; sin plegar",
        "adesivi: stampare questa pagina su carta adesiva, 100 %, e tagliare; niente piega",
        "stickers: deze pagina op stickerpapier afdrukken, 100 %, en snijden; niet vouwen"),
    "fold": ("falzen", "plier", "plegar", "piegare", "vouwen"),
    "cut along the grey line": ("entlang der grauen Linie schneiden", "couper le long du trait gris",
                                "cortar por la línea gris", "tagliare lungo la linea grigia",
                                "langs de grijze lijn snijden"),
    "{deck}: sheet {n} of {total} (row {row}, column {column})": (
        "{deck}: Bogen {n} von {total} (Reihe {row}, Spalte {column})",
        "{deck} : planche {n} sur {total} (rangée {row}, colonne {column})",
        "{deck}: hoja {n} de {total} (fila {row}, columna {column})",
        "{deck}: foglio {n} di {total} (riga {row}, colonna {column})",
        "{deck}: vel {n} van {total} (rij {row}, kolom {column})"),
    "Trim each sheet along the dashed line, lay it {overlap} mm over its neighbour so the crosses meet, and "
    "glue; then cut along the grey line.": (
        "Jeden Bogen an der gestrichelten Linie beschneiden, {overlap} mm über den Nachbarn legen, bis die "
        "Kreuze sich decken, und kleben; dann entlang der grauen Linie schneiden.",
        "Rogner chaque planche sur les pointillés, la poser {overlap} mm sur sa voisine, croix sur croix, et "
        "coller ; puis couper le long du trait gris.",
        "Recortar cada hoja por la línea discontinua, superponerla {overlap} mm a su vecina hasta que las cruces "
        "coincidan, y pegar; después cortar por la línea gris.",
        "Rifilare ogni foglio lungo la linea tratteggiata, sovrapporlo di {overlap} mm al vicino facendo "
        "coincidere le croci, e incollare; poi tagliare lungo la linea grigia.",
        "Snijd elk vel langs de stippellijn bij, leg het {overlap} mm over zijn buurman tot de kruisjes samenvallen, "
        "en lijm; snijd dan langs de grijze lijn."),
    "dice": ("Würfel", "dés", "dados", "dadi", "dobbelstenen"),
    "cut the solid lines, fold the dashed ones away from you, glue each grey tab under the face it meets · "
    "print at 100 %": (
        "durchgezogene Linien schneiden, gestrichelte von dir weg falzen, jede graue Lasche unter die Seite "
        "kleben, an die sie stößt · mit 100 % drucken",
        "couper les traits pleins, plier les pointillés vers l’arrière, coller chaque languette grise sous la "
        "face qu’elle touche · imprimer à 100 %",
        "cortar las líneas continuas, plegar las discontinuas hacia atrás, pegar cada pestaña gris bajo la cara "
        "con la que se junta · imprimir al 100 %",
        "tagliare le linee continue, piegare indietro quelle tratteggiate, incollare ogni linguetta grigia sotto "
        "la faccia che tocca · stampare al 100 %",
        "snijd de doorgetrokken lijnen, vouw de stippellijnen van je af, lijm elke grijze flap onder de zijde die "
        "hij raakt · afdrukken op 100 %"),
    "rules booklet ({paper}, duplex, flip on short edge)": (
        "Regelheft ({paper}, beidseitig, an der kurzen Kante wenden)",
        "livret de règles ({paper}, recto verso, retourner sur le bord court)",
        "cuadernillo de reglas ({paper}, a doble cara, girar por el borde corto)",
        "libretto delle regole ({paper}, fronte-retro, capovolgere sul lato corto)",
        "spelregelboekje ({paper}, dubbelzijdig, omslaan langs de korte zijde)"),
    # -- tuck boxes --------------------------------------------------------------------------------
    "tuck boxes": ("Schachteln", "boîtes", "cajas", "scatole", "doosjes"),
    "a box for {count}, inside {w} x {h} x {d} mm": (
        "Schachtel für {count}, innen {w} x {h} x {d} mm", "boîte pour {count}, intérieur {w} x {h} x {d} mm",
        "caja para {count}, interior {w} x {h} x {d} mm", "scatola per {count}, interno {w} x {h} x {d} mm",
        "doosje voor {count}, binnenmaat {w} x {h} x {d} mm"),
    "cut the solid lines, fold the dashed ones": (
        "durchgezogene Linien schneiden, gestrichelte falzen", "couper les traits pleins, plier les pointillés",
        "cortar las líneas continuas, plegar las discontinuas", "tagliare le linee continue, piegare le tratteggiate",
        "doorgetrokken lijnen snijden, stippellijnen vouwen"),
    "print at 100 %": ("mit 100 % drucken", "imprimer à 100 %", "imprimir al 100 %", "stampare al 100 %",
                       "afdrukken op 100 %"),
    "piece 1 of 2: glue its right tab inside the front's left edge (piece 2)": (
        "Teil 1 von 2: die rechte Lasche innen an die linke Kante der Vorderseite kleben (Teil 2)",
        "pièce 1 sur 2 : coller sa languette droite à l’intérieur du bord gauche du devant (pièce 2)",
        "pieza 1 de 2: pegar su pestaña derecha por dentro del borde izquierdo del frente (pieza 2)",
        "pezzo 1 di 2: incollare la linguetta destra all’interno del bordo sinistro del fronte (pezzo 2)",
        "deel 1 van 2: lijm de rechterflap binnen tegen de linkerrand van de voorkant (deel 2)"),
    "piece 2 of 2: the front; glue piece 1's left tab inside this side's free edge": (
        "Teil 2 von 2: die Vorderseite; die linke Lasche von Teil 1 innen an die freie Kante dieser Seite kleben",
        "pièce 2 sur 2 : le devant ; coller la languette gauche de la pièce 1 à l’intérieur du bord libre de ce côté",
        "pieza 2 de 2: el frente; pegar la pestaña izquierda de la pieza 1 por dentro del borde libre de este lado",
        "pezzo 2 di 2: il fronte; incollare la linguetta sinistra del pezzo 1 all’interno del bordo libero di "
        "questo lato",
        "deel 2 van 2: de voorkant; lijm de linkerflap van deel 1 binnen tegen de vrije rand van deze zijkant"),
    "glue: inside the side's edge": ("kleben: innen an die Seitenkante", "coller : à l’intérieur du bord du côté",
                                     "pegar: por dentro del borde del lado", "incollare: dentro il bordo del lato",
                                     "lijmen: binnen tegen de zijrand"),
    "glue: inside the front": ("kleben: innen an die Vorderseite", "coller : à l’intérieur du devant",
                               "pegar: por dentro del frente", "incollare: dentro il fronte",
                               "lijmen: binnen tegen de voorkant"),
    # -- the calibration sheet ---------------------------------------------------------------------
    "duplex calibration ({paper})": ("Duplex-Kalibrierung ({paper})", "calibrage recto verso ({paper})",
                                     "calibración a doble cara ({paper})", "calibrazione fronte-retro ({paper})",
                                     "kalibratie dubbelzijdig ({paper})"),
    "duplex calibration, {paper}. Print at 100 % (Actual size), double-sided, {flip}.": (
        "Duplex-Kalibrierung, {paper}. Mit 100 % drucken (Originalgröße), beidseitig, {flip}.",
        "calibrage recto verso, {paper}. Imprimer à 100 % (taille réelle), recto verso, {flip}.",
        "calibración a doble cara, {paper}. Imprimir al 100 % (tamaño real), a doble cara, {flip}.",
        "calibrazione fronte-retro, {paper}. Stampare al 100 % (dimensioni effettive), fronte-retro, {flip}.",
        "kalibratie dubbelzijdig, {paper}. Afdrukken op 100 % (werkelijke grootte), dubbelzijdig, {flip}."),
    "flip on the long edge": ("an der langen Kante wenden", "retourner sur le bord long", "girar por el borde largo",
                              "capovolgere sul lato lungo", "omslaan langs de lange zijde"),
    "flip on the short edge": ("an der kurzen Kante wenden", "retourner sur le bord court", "girar por el borde corto",
                               "capovolgere sul lato corto", "omslaan langs de korte zijde"),
    "Hold to the light; read the back's scales where this side's lines fall (see docs/printing.md).": (
        "Gegen das Licht halten; die Skalen der Rückseite dort ablesen, wo die Linien dieser Seite liegen "
        "(siehe docs/printing.md).",
        "Tenir à la lumière ; lire les échelles du verso là où tombent les traits de ce côté (voir docs/printing.md).",
        "Mirar al trasluz; leer las escalas del reverso donde caen las líneas de este lado (ver docs/printing.md).",
        "Guardare in controluce; leggere le scale del retro dove cadono le linee di questo lato "
        "(vedi docs/printing.md).",
        "Tegen het licht houden; lees de schalen van de achterkant af waar de lijnen van deze kant vallen "
        "(zie docs/printing.md)."),
    "back page, built with --back-offset {offset}: add the centre's X,Y readings to it and build again": (
        "Rückseite, gebaut mit --back-offset {offset}: die X,Y-Werte der Mitte dazuzählen und neu bauen",
        "verso, construit avec --back-offset {offset} : y ajouter les lectures X,Y du centre et reconstruire",
        "reverso, generado con --back-offset {offset}: sumarle las lecturas X,Y del centro y generar de nuevo",
        "retro, generato con --back-offset {offset}: aggiungervi le letture X,Y del centro e rigenerare",
        "achterkant, gemaakt met --back-offset {offset}: tel de X,Y-waarden van het midden erbij op en maak "
        "opnieuw"),
    # -- what changed (changes-<paper>.pdf, `--changed-since`) ---------------------------------------
    "what changed": ("was sich geändert hat", "ce qui a changé", "qué ha cambiado", "cosa è cambiato",
                     "wat er veranderd is"),
    "what changed (continued)": ("was sich geändert hat (Fortsetzung)", "ce qui a changé (suite)",
                                 "qué ha cambiado (continuación)", "cosa è cambiato (continua)",
                                 "wat er veranderd is (vervolg)"),
    "what changed ({paper})": ("was sich geändert hat ({paper})", "ce qui a changé ({paper})",
                               "qué ha cambiado ({paper})", "cosa è cambiato ({paper})",
                               "wat er veranderd is ({paper})"),
    "since {since}": ("seit {since}", "depuis {since}", "desde {since}", "da {since}", "sinds {since}"),
    "the last build": ("dem letzten Build", "la dernière génération", "la última generación", "l’ultima generazione",
                       "de laatste build"),
    "version {old} → {new}": ("Version {old} → {new}", "version {old} → {new}", "versión {old} → {new}",
                              "versione {old} → {new}", "versie {old} → {new}"),
    "version {version}": ("Version {version}", "version {version}", "versión {version}", "versione {version}",
                          "versie {version}"),
    "none": ("keine", "aucune", "ninguna", "nessuna", "geen"),
    "{n} added": ("{n} neu", "{n} nouvelle(s)", "{n} nueva(s)", "{n} nuova/e", "{n} toegevoegd"),
    "{n} changed": ("{n} geändert", "{n} modifiée(s)", "{n} cambiada(s)", "{n} cambiata/e", "{n} gewijzigd"),
    "{n} renamed": ("{n} umbenannt", "{n} renommée(s)", "{n} renombrada(s)", "{n} rinominata/e", "{n} hernoemd"),
    "{n} removed": ("{n} entfernt", "{n} retirée(s)", "{n} quitada(s)", "{n} rimossa/e", "{n} verwijderd"),
    "{n} with other copies": ("{n} mit anderer Anzahl", "{n} en autre nombre", "{n} con otro número de copias",
                              "{n} con altro numero di copie", "{n} met ander aantal"),
    "no changes": ("keine Änderungen", "aucun changement", "sin cambios", "nessuna modifica", "geen wijzigingen"),
    "print {cards} ({copies})": ("{cards} drucken ({copies})", "imprimer {cards} ({copies})",
                                 "imprimir {cards} ({copies})", "stampare {cards} ({copies})",
                                 "{cards} afdrukken ({copies})"),
    "take out {copies}": ("{copies} herausnehmen", "retirer {copies}", "sacar {copies}", "togliere {copies}",
                          "{copies} eruit halen"),
    "nothing to print, nothing to take out": ("nichts zu drucken, nichts herauszunehmen",
                                              "rien à imprimer, rien à retirer", "nada que imprimir, nada que sacar",
                                              "niente da stampare, niente da togliere",
                                              "niets af te drukken, niets eruit te halen"),
    "Print and put in the box ({copies})": ("Drucken und in die Schachtel legen ({copies})",
                                            "Imprimer et mettre dans la boîte ({copies})",
                                            "Imprimir y meter en la caja ({copies})",
                                            "Stampare e mettere nella scatola ({copies})",
                                            "Afdrukken en in de doos leggen ({copies})"),
    "Take out of the box ({copies})": ("Aus der Schachtel nehmen ({copies})", "Retirer de la boîte ({copies})",
                                       "Sacar de la caja ({copies})", "Togliere dalla scatola ({copies})",
                                       "Uit de doos halen ({copies})"),
    "Changed in the data only (nothing to do)": ("Nur in den Daten geändert (nichts zu tun)",
                                                 "Modifié dans les données seulement (rien à faire)",
                                                 "Cambiado solo en los datos (nada que hacer)",
                                                 "Cambiato solo nei dati (niente da fare)",
                                                 "Alleen in de gegevens gewijzigd (niets te doen)"),
    "added": ("neu", "nouvelle", "nueva", "nuova", "toegevoegd"),
    "changed": ("geändert", "modifiée", "cambiada", "cambiata", "gewijzigd"),
    "renamed": ("umbenannt", "renommée", "renombrada", "rinominata", "hernoemd"),
    "removed": ("entfernt", "retirée", "quitada", "rimossa", "verwijderd"),
    "copies": ("andere Anzahl", "autre nombre", "otro número", "altro numero", "ander aantal"),
    "renamed from {name}": ("umbenannt von {name}", "renommée, avant {name}", "renombrada, antes {name}",
                            "rinominata, prima {name}", "hernoemd van {name}"),
    "{n} more copy ({old} → {new})": ("{n} Exemplar mehr ({old} → {new})", "{n} exemplaire de plus ({old} → {new})",
                                      "{n} copia más ({old} → {new})", "{n} copia in più ({old} → {new})",
                                      "{n} exemplaar meer ({old} → {new})"),
    "{n} more copies ({old} → {new})": ("{n} Exemplare mehr ({old} → {new})",
                                        "{n} exemplaires de plus ({old} → {new})", "{n} copias más ({old} → {new})",
                                        "{n} copie in più ({old} → {new})", "{n} exemplaren meer ({old} → {new})"),
    "{n} copy fewer ({old} → {new})": ("{n} Exemplar weniger ({old} → {new})",
                                       "{n} exemplaire de moins ({old} → {new})", "{n} copia menos ({old} → {new})",
                                       "{n} copia in meno ({old} → {new})", "{n} exemplaar minder ({old} → {new})"),
    "{n} copies fewer ({old} → {new})": ("{n} Exemplare weniger ({old} → {new})",
                                         "{n} exemplaires de moins ({old} → {new})",
                                         "{n} copias menos ({old} → {new})", "{n} copie in meno ({old} → {new})",
                                         "{n} exemplaren minder ({old} → {new})"),
    "removed, stamped {stamp}": ("entfernt, Stempel {stamp}", "retirée, marquée {stamp}", "quitada, marcada {stamp}",
                                 "rimossa, marcata {stamp}", "verwijderd, gemerkt {stamp}"),
    "renamed to {name}, stamped {stamp}": ("umbenannt in {name}, Stempel {stamp}",
                                           "renommée en {name}, marquée {stamp}",
                                           "renombrada a {name}, marcada {stamp}",
                                           "rinominata in {name}, marcata {stamp}",
                                           "hernoemd naar {name}, gemerkt {stamp}"),
    "the old version, stamped {stamp}": ("die alte Fassung, Stempel {stamp}", "l’ancienne version, marquée {stamp}",
                                         "la versión antigua, marcada {stamp}", "la vecchia versione, marcata {stamp}",
                                         "de oude versie, gemerkt {stamp}"),
    "{kind}, no copies (count: 0)": ("{kind}, keine Exemplare (count: 0)", "{kind}, aucun exemplaire (count: 0)",
                                     "{kind}, sin copias (count: 0)", "{kind}, nessuna copia (count: 0)",
                                     "{kind}, geen exemplaren (count: 0)"),
    "renamed; prints the same": ("umbenannt; druckt gleich", "renommée ; s’imprime pareil",
                                 "renombrada; se imprime igual", "rinominata; si stampa uguale",
                                 "hernoemd; drukt hetzelfde af"),
    "{n} sheet follows": ("{n} Bogen folgt", "{n} planche suit", "sigue {n} hoja", "segue {n} foglio",
                          "{n} vel volgt"),
    "{n} sheets follow": ("{n} Bögen folgen", "{n} planches suivent", "siguen {n} hojas", "seguono {n} fogli",
                          "{n} vellen volgen"),
    ", printed double-sided": (", beidseitig gedruckt", ", imprimées recto verso", ", impresas a doble cara",
                               ", stampati fronte-retro", ", dubbelzijdig afgedrukt"),
    "The print sheets with only these cards: {how}; print at 100 % and cut as usual.": (
        "Die Druckbögen mit nur diesen Karten: {how}; mit 100 % drucken und wie gewohnt schneiden.",
        "Les planches avec ces cartes seules : {how} ; imprimer à 100 % et couper comme d’habitude.",
        "Las hojas de impresión con solo estas cartas: {how}; imprimir al 100 % y cortar como siempre.",
        "I fogli di stampa con solo queste carte: {how}; stampare al 100 % e tagliare come al solito.",
        "De printvellen met alleen deze kaarten: {how}; afdrukken op 100 % en snijden zoals altijd."),
    "Nothing to print.": ("Nichts zu drucken.", "Rien à imprimer.", "Nada que imprimir.", "Niente da stampare.",
                          "Niets af te drukken."),
    "(left blank: the print sheets that follow start on a sheet of their own)": (
        "(leer gelassen: die folgenden Druckbögen beginnen auf einem eigenen Blatt)",
        "(laissée blanche : les planches qui suivent commencent sur une feuille à part)",
        "(en blanco: las hojas que siguen empiezan en una hoja propia)",
        "(lasciata bianca: i fogli che seguono iniziano su un foglio a parte)",
        "(leeg gelaten: de volgende printvellen beginnen op een eigen vel)"),
    # -- Tabletop Simulator ------------------------------------------------------------------------
    "{deck}: take as many as you need": ("{deck}: nimm so viele, wie du brauchst",
                                         "{deck} : prenez-en autant qu’il vous faut", "{deck}: coge tantas como "
                                         "necesites", "{deck}: prendine quanti ne servono",
                                         "{deck}: neem er zoveel als je nodig hebt"),
    "{title} rules": ("{title}: Spielregeln", "{title} : règles", "{title}: reglas", "{title}: regole",
                      "{title}: spelregels"),
    "Rules": ("Spielregeln", "Règles", "Reglas", "Regole", "Spelregels"),
    # -- the gallery page (and the preview, which shares it) ------------------------------------------
    "cards": ("Karten", "cartes", "cartas", "carte", "kaarten"),
    "preview": ("Vorschau", "aperçu", "vista previa", "anteprima", "voorbeeld"),
    "no cards yet": ("noch keine Karten", "pas encore de cartes", "aún no hay cartas", "ancora nessuna carta",
                     "nog geen kaarten"),
    "{n} distinct": ("{n} verschiedene", "{n} différentes", "{n} distintas", "{n} diverse", "{n} verschillende"),
    "Filter: name, deck or problem": ("Filter: Name, Stapel, Problem", "Filtre : nom, paquet, problème",
                                      "Filtro: nombre, mazo, problema", "Filtro: nome, mazzo o problema",
                                      "Filter: naam, stapel, probleem"),
    "Filter cards": ("Karten filtern", "Filtrer les cartes", "Filtrar cartas", "Filtra le carte", "Kaarten filteren"),
    "Deck": ("Stapel", "Paquet", "Mazo", "Mazzo", "Stapel"),
    "Decks": ("Stapel", "Paquets", "Mazos", "Mazzi", "Stapels"),
    "All decks": ("Alle Stapel", "Tous les paquets", "Todos los mazos", "Tutti i mazzi", "Alle stapels"),
    "With problems": ("Mit Problemen", "Avec problèmes", "Con problemas", "Con problemi", "Met problemen"),
    "Colour vision": ("Farbsehen", "Vision des couleurs", "Visión del color", "Visione dei colori", "Kleurenzicht"),
    "Show the cards as a colour-blind player sees them, or printed in greyscale": (
        "Die Karten zeigen, wie farbenblinde Spieler sie sehen, oder in Graustufen gedruckt",
        "Montrer les cartes comme un joueur daltonien les voit, ou imprimées en niveaux de gris",
        "Mostrar las cartas como las ve un jugador daltónico, o impresas en escala de grises",
        "Mostrare le carte come le vede un giocatore daltonico, o stampate in scala di grigi",
        "Toon de kaarten zoals een kleurenblinde speler ze ziet, of in grijstinten gedrukt"),
    "Normal colour vision": ("Normales Farbsehen", "Vision normale des couleurs", "Visión normal del color",
                             "Visione normale dei colori", "Normaal kleurenzicht"),
    "Protanopia (no red cones)": ("Protanopie (keine Rotzapfen)", "Protanopie (pas de cônes rouges)",
                                  "Protanopía (sin conos rojos)", "Protanopia (niente coni rossi)",
                                  "Protanopie (geen rode kegeltjes)"),
    "Deuteranopia (no green cones)": ("Deuteranopie (keine Grünzapfen)", "Deutéranopie (pas de cônes verts)",
                                      "Deuteranopía (sin conos verdes)", "Deuteranopia (niente coni verdi)",
                                      "Deuteranopie (geen groene kegeltjes)"),
    "Tritanopia (no blue cones)": ("Tritanopie (keine Blauzapfen)", "Tritanopie (pas de cônes bleus)",
                                   "Tritanopía (sin conos azules)", "Tritanopia (niente coni blu)",
                                   "Tritanopie (geen blauwe kegeltjes)"),
    "Greyscale print": ("Graustufendruck", "Impression en niveaux de gris", "Impresión en escala de grises",
                        "Stampa in scala di grigi", "Afdruk in grijstinten"),
    "{visible} of {total} shown": ("{visible} von {total} gezeigt", "{visible} sur {total} affichées",
                                   "{visible} de {total} mostradas", "{visible} di {total} mostrate",
                                   "{visible} van {total} getoond"),
    "Game": ("Spiel", "Jeu", "Juego", "Gioco", "Spel"),
    ": the cards below are the last ones that laid out": (
        ": die Karten unten sind die zuletzt gesetzten", " : les cartes ci-dessous sont les dernières mises en page",
        ": las cartas de abajo son las últimas que se maquetaron", ": le carte qui sotto sono le ultime impaginate",
        ": de kaarten hieronder zijn de laatst opgemaakte"),
    "{file} does not load (see the errors above): these are its last cards.": (
        "{file} lädt nicht (siehe die Fehler oben): das sind seine letzten Karten.",
        "{file} ne se charge pas (voir les erreurs ci-dessus) : voici ses dernières cartes.",
        "{file} no se carga (ver los errores arriba): estas son sus últimas cartas.",
        "{file} non si carica (vedi gli errori sopra): queste sono le sue ultime carte.",
        "{file} laadt niet (zie de fouten hierboven): dit zijn de laatste kaarten."),
    "Back": ("Rückseite", "Verso", "Reverso", "Retro", "Achterkant"),
    "all {n}": ("alle {n}", "les {n}", "las {n}", "tutte le {n}", "alle {n}"),
    "{name} (face)": ("{name} (Vorderseite)", "{name} (recto)", "{name} (anverso)", "{name} (fronte)",
                      "{name} (voorkant)"),
    "{name} (back)": ("{name} (Rückseite)", "{name} (verso)", "{name} (reverso)", "{name} (retro)",
                      "{name} (achterkant)"),
    "close": ("schließen", "fermer", "cerrar", "chiudi", "sluiten"),
    "Close": ("Schließen", "Fermer", "Cerrar", "Chiudi", "Sluiten"),
    "Checking the game…": ("Das Spiel wird geprüft…", "Vérification du jeu…", "Comprobando el juego…",
                           "Controllo del gioco…", "Het spel wordt gecontroleerd…"),
    # (the live preview's own: its status line, the card panel, the zoom)
    "live": ("live", "en direct", "en vivo", "in diretta", "live"),
    "no problems": ("keine Probleme", "aucun problème", "sin problemas", "nessun problema", "geen problemen"),
    "errors: showing the last good cards": ("Fehler: die letzten guten Karten", "erreurs : dernières cartes "
                                            "valides affichées", "errores: se muestran las últimas cartas buenas",
                                            "errori: mostrate le ultime carte valide",
                                            "fouten: de laatste goede kaarten"),
    "connecting…": ("verbinde…", "connexion…", "conectando…", "connessione…", "verbinden…"),
    "reconnecting…": ("verbinde neu…", "reconnexion…", "reconectando…", "riconnessione…", "opnieuw verbinden…"),
    "Updates by itself when a file is saved": ("Aktualisiert sich, sobald eine Datei gespeichert wird",
                                               "Se met à jour dès qu’un fichier est enregistré",
                                               "Se actualiza sola al guardar un archivo",
                                               "Si aggiorna da sola quando un file viene salvato",
                                               "Werkt zichzelf bij als een bestand wordt opgeslagen"),
    "Table": ("Tisch", "Table", "Mesa", "Tavolo", "Tafel"),
    "Language": ("Sprache", "Langue", "Idioma", "Lingua", "Taal"),
    "Shuffle, draw and deal the decks; see the draw odds": (
        "Stapel mischen, ziehen und austeilen; die Ziehchancen sehen",
        "Mélanger, piocher et distribuer les paquets ; voir les chances de tirage",
        "Barajar, robar y repartir los mazos; ver las probabilidades de robo",
        "Mescolare, pescare e distribuire i mazzi; vedere le probabilità di pesca",
        "De stapels schudden, trekken en delen; de trekkansen zien"),
    "Zoom to full size": ("In voller Größe zeigen", "Agrandir en taille réelle", "Ampliar a tamaño completo",
                          "Ingrandisci a grandezza piena", "Op volle grootte tonen"),
    "click: actual print size · Esc: close": ("Klick: tatsächliche Druckgröße · Esc: schließen",
                                              "clic : taille d’impression réelle · Échap : fermer",
                                              "clic: tamaño real de impresión · Esc: cerrar",
                                              "clic: dimensioni reali di stampa · Esc: chiudi",
                                              "klik: werkelijke afdrukgrootte · Esc: sluiten"),
    "Problems": ("Probleme", "Problèmes", "Problemas", "Problemi", "Problemen"),
    "Data": ("Daten", "Données", "Datos", "Dati", "Gegevens"),
    "Source": ("Quelle", "Source", "Fuente", "Sorgente", "Bron"),
    "face": ("Vorderseite", "recto", "anverso", "fronte", "voorkant"),
    "back": ("Rückseite", "verso", "reverso", "retro", "achterkant"),
    "Made with cardgen. Click a card to see it large.": (
        "Mit cardgen gemacht. Eine Karte anklicken, um sie groß zu sehen.",
        "Fait avec cardgen. Cliquez sur une carte pour l’agrandir.",
        "Hecho con cardgen. Haz clic en una carta para verla en grande.",
        "Fatto con cardgen. Fai clic su una carta per vederla in grande.",
        "Gemaakt met cardgen. Klik op een kaart om hem groot te zien."),
}

# piece kinds, and what the gallery counts: (singular, plural) by language
_KINDS: dict[str, dict[str, tuple[str, str]]] = {
    "en": {"card": ("card", "cards"), "token": ("token", "tokens"), "tile": ("tile", "tiles"),
           "board": ("board", "boards"), "die": ("die", "dice"), "face": ("face", "faces"),
           "deck": ("deck", "decks"), "copy": ("copy", "copies"), "problem": ("problem", "problems"),
           "error": ("error", "errors"), "warning": ("warning", "warnings")},
    "de": {"card": ("Karte", "Karten"), "token": ("Marker", "Marker"), "tile": ("Plättchen", "Plättchen"),
           "board": ("Spielplan", "Spielpläne"), "die": ("Würfel", "Würfel"), "face": ("Seite", "Seiten"),
           "deck": ("Stapel", "Stapel"), "copy": ("Exemplar", "Exemplare"), "problem": ("Problem", "Probleme"),
           "error": ("Fehler", "Fehler"), "warning": ("Warnung", "Warnungen")},
    "fr": {"card": ("carte", "cartes"), "token": ("jeton", "jetons"), "tile": ("tuile", "tuiles"),
           "board": ("plateau", "plateaux"), "die": ("dé", "dés"), "face": ("face", "faces"),
           "deck": ("paquet", "paquets"), "copy": ("exemplaire", "exemplaires"), "problem": ("problème", "problèmes"),
           "error": ("erreur", "erreurs"), "warning": ("avertissement", "avertissements")},
    "es": {"card": ("carta", "cartas"), "token": ("ficha", "fichas"), "tile": ("loseta", "losetas"),
           "board": ("tablero", "tableros"), "die": ("dado", "dados"), "face": ("cara", "caras"),
           "deck": ("mazo", "mazos"), "copy": ("copia", "copias"), "problem": ("problema", "problemas"),
           "error": ("error", "errores"), "warning": ("aviso", "avisos")},
    "it": {"card": ("carta", "carte"), "token": ("segnalino", "segnalini"), "tile": ("tessera", "tessere"),
           "board": ("plancia", "plance"), "die": ("dado", "dadi"), "face": ("faccia", "facce"),
           "deck": ("mazzo", "mazzi"), "copy": ("copia", "copie"), "problem": ("problema", "problemi"),
           "error": ("errore", "errori"), "warning": ("avviso", "avvisi")},
    "nl": {"card": ("kaart", "kaarten"), "token": ("fiche", "fiches"), "tile": ("tegel", "tegels"),
           "board": ("speelbord", "speelborden"), "die": ("dobbelsteen", "dobbelstenen"), "face": ("zijde", "zijden"),
           "deck": ("stapel", "stapels"), "copy": ("exemplaar", "exemplaren"), "problem": ("probleem", "problemen"),
           "error": ("fout", "fouten"), "warning": ("waarschuwing", "waarschuwingen")},
}
KIND_KEYS = tuple(f"{{n}} {k}" for k in ("card", "cards", "token", "tokens", "tile", "tiles", "board", "boards",
                                         "die", "dice", "face", "faces", "deck", "decks", "copy", "copies",
                                         "problem", "problems", "error", "errors", "warning", "warnings"))


def base(lang: str | None) -> str:
    """`de` of `de-AT`, `pt` of `pt_BR`: the language whose words are used."""
    return (lang or "en").replace("_", "-").split("-")[0].lower()


def bundled(lang: str | None) -> bool:
    """Are cardgen's own words bundled for `lang` (English is)?"""
    return base(lang) in ("en", *BUNDLED)


def texts() -> tuple[str, ...]:
    """Every text cardgen prints itself, by its English words (what `words:` in game.yaml names),
    and the counted pieces (`{n} cards`, `{n} card`)."""
    return (*_WORDS, *KIND_KEYS)


def fields(text: str) -> set[str]:
    """The placeholders of a text (`{n}`, `{total}`)."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


class Words:
    """cardgen's own words in one language: `words("Components")`, `words("sheet {n} of {total}",
    n=1, total=3)`, `words.count(12, "card")`.  `own`: the game's own words for this language
    (game.yaml's `words:`, by the English text), over the bundled ones."""

    def __init__(self, lang: str | None = None, own: Mapping[str, str] | None = None) -> None:
        self.lang = base(lang)
        self.own = dict(own or {})
        self._at = BUNDLED.index(self.lang) if self.lang in BUNDLED else None

    def _text(self, text: str) -> str:
        own = self.own.get(text)
        if own is not None:
            return own
        if self._at is None:
            return text
        words = _WORDS.get(text)
        return text if words is None else words[self._at]

    def __call__(self, text: str, /, **values: object) -> str:
        """`text` (one of cardgen's own English texts) in this language, its placeholders filled."""
        out = self._text(text)
        return out.format(**values) if values else out

    def table(self) -> dict[str, str]:
        """Every text (`texts()`) and its words in this language: what `cardgen i18n words` prints."""
        out = {t: self._text(t) for t in _WORDS}
        en = {f"{{n}} {word}": (kind, word == one) for kind, (one, many) in _KINDS["en"].items()
              for word in (one, many)}
        for key in KIND_KEYS:
            kind, single = en[key]
            out[key] = self.own.get(key) or f"{{n}} {self.noun(1 if single else 2, kind)}"
        return out

    def noun(self, n: int, kind: str) -> str:
        """The word for `n` pieces of `kind` (`cards`, `Karte`), without the number."""
        en_one, en_many = _KINDS["en"].get(kind) or (kind, kind + "s")
        own = self.own.get(f"{{n}} {en_one if n == 1 else en_many}")
        if own is not None:
            return own.replace("{n}", "").strip()
        one, many = _KINDS.get(self.lang, _KINDS["en"]).get(kind) or (en_one, en_many)
        return one if n == 1 else many

    def count(self, n: int, kind: str) -> str:
        """`12 cards`, `12 Karten`: `n` pieces of `kind` in this language."""
        en_one, en_many = _KINDS["en"].get(kind) or (kind, kind + "s")
        own = self.own.get(f"{{n}} {en_one if n == 1 else en_many}")
        if own is not None:
            return own.format(n=n)
        return f"{n} {self.noun(n, kind)}"


ENGLISH = Words()
