"""`cardgen upload tgc`: against a fake of The Game Crafter's API on 127.0.0.1
(tests/tgcserver.py), which records and checks every call: the calls in their order, a second
run that changes only what changed, a 429 retried after its Retry-After, a wrong password said
in one line, the credentials nowhere in the output or the files; and `--dry-run`, which
connects to nothing."""
from __future__ import annotations

import io
import shutil
import socket

import pytest
from conftest import BACK_TEMPLATE, SOLID_TEMPLATE, run_cli, write
from PIL import Image
from tgcserver import KEY, PASSWORD, USER, Fake, serve

from cardgen.pipeline import tgc_api
from cardgen.pipeline.tgc_products import match

DISC = """
    elements:
      - {name: bg, type: rect, box: bleed, fill: "{{ card.color | default('#224488') }}"}
"""
HALVES = """
    elements:
      - {name: right, type: rect, box: bleed, fill: "#0000ff"}
      - {name: left, type: rect, x: -4mm, y: -4mm, width: 48.45mm, height: 72mm, fill: "#ff0000"}
"""


def _game(root):
    write(root / "game.yaml", "title: Tiny Crafter\nplayers: 2-4\n")
    write(root / "templates" / "t" / "face.yaml", SOLID_TEMPLATE)
    write(root / "templates" / "t" / "back.yaml", BACK_TEMPLATE)
    write(root / "templates" / "t" / "disc.yaml", DISC)
    write(root / "templates" / "t" / "halves.yaml", HALVES)
    write(root / "wide.yaml", """
        deck: Wide
        size: {width: 88.9mm, height: 63.5mm}
        template: t/halves
        back: t/back
        cards:
          - {name: Vista}
    """)
    write(root / "deck.yaml", """
        deck: Things
        template: t/face
        back: t/back
        cards:
          - {name: Alpha, color: "#ff0000", count: 2}
          - {name: Beta, color: "#00ff00"}
    """)
    write(root / "coins.yaml", """
        deck: Coins
        kind: token
        size: 19.05mm
        template: t/disc
        back: t/disc
        cards:
          - {name: Gold, color: "#ddaa00", count: 5}
    """)
    write(root / "euro.yaml", """
        deck: Odd
        size: euro
        template: t/face
        cards:
          - {name: Strange}
    """)
    return root


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The game and its The Game Crafter images, built once (each test copies them)."""
    base = tmp_path_factory.mktemp("tgc")
    root = _game(base / "crafter")
    code, out, err = run_cli("upload", "tgc", str(root), "--dry-run", "--out", str(base / "out"))
    assert code == 0, err
    return base, out


@pytest.fixture
def game(built, tmp_path):
    base, _ = built
    shutil.copytree(base / "crafter", tmp_path / "crafter")
    shutil.copytree(base / "out", tmp_path / "out")
    return tmp_path / "crafter", tmp_path / "out"


@pytest.fixture
def fake(monkeypatch):
    f = Fake()
    server, url = serve(f)
    monkeypatch.setenv(tgc_api.TEST_ENV, url)
    monkeypatch.setenv("TGC_USERNAME", USER)
    monkeypatch.setenv("TGC_PASSWORD", PASSWORD)
    monkeypatch.setenv("TGC_API_KEY_ID", KEY)
    monkeypatch.setattr(tgc_api, "MIN_INTERVAL", 0.0)
    yield f
    server.shutdown()
    server.server_close()


def _upload(root, out, *more):
    return run_cli("upload", "tgc", str(root), "--out", str(out), *more)


def test_dry_run_prints_the_plan_and_connects_to_nothing(game, monkeypatch):
    root, out = game
    for name in ("TGC_USERNAME", "TGC_PASSWORD", "TGC_API_KEY_ID"):
        monkeypatch.delenv(name, raising=False)

    def refuse(*args, **kwargs):
        raise AssertionError("the dry run connected to the network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    code, stdout, stderr = _upload(root, out, "--dry-run")
    assert code == 0, stderr
    lines = stdout.splitlines()
    assert "  deck 'Things': PokerDeck (63.5 x 88.9 mm, 825 x 1125 px), 3 cards, 2 distinct" in lines
    assert "    back: backs/things-back.png" in lines
    assert any(line.startswith("    2 x Alpha: fronts/") and line.endswith("-things-alpha-1of2.png") for line in lines)
    assert any(line.startswith("    1 x Beta: fronts/") for line in lines)
    assert any(line.startswith("  tokens 'Coins': MediumCircleChit (19.05 x 19.05 mm, 300 x 300 px), 5 pieces")
               for line in lines)
    odd = [line for line in lines if "'Odd'" in line]
    assert odd == ["  not uploadable: deck 'Odd' (59 x 92 mm, 772 x 1162 px): no product of The Game Crafter has "
                   "this size (nearest: BridgeDeck, 750 x 1125 px; choose a size that matches, or name a product "
                   "with --product odd=IDENTITY)"]
    assert "  deck 'Wide': PokerDeck (88.9 x 63.5 mm, 1125 x 825 px; images turned a quarter turn), 1 card, " \
           "1 distinct" in lines
    # 2 fronts and a back; a coin and its back; a wide card and its back
    assert "  files: 7 images to upload into a folder 'Tiny Crafter'" in lines
    assert lines[-1] == "dry run: 3 decks (9 pieces) to upload, 1 not uploadable; nothing was sent"


def test_upload_makes_the_game_in_order_and_a_second_run_makes_nothing_twice(game, fake):
    root, out = game
    code, stdout, stderr = _upload(root, out)
    assert code == 0, stderr
    calls = fake.calls()
    assert calls[:6] == ["POST /api/session", "GET /api/user/U1", "GET /api/user/U1/designers",
                         "GET /api/designer/D1/games", "POST /api/game", "POST /api/folder"]
    assert calls[6:13] == ["POST /api/file"] * 7
    decks = calls.index("POST /api/deck")
    assert calls[decks - 1] == "GET /api/game/G1/decks"
    assert calls[decks + 1:decks + 4] == [f"GET /api/deck/{fake.of('deck')[0]['id']}/cards", "POST /api/card",
                                          "POST /api/card"]
    assert "POST /api/twosidedsluggedset" in calls and "POST /api/twosidedslugged" in calls
    assert calls[-2:] == ["GET /api/game/G1/bulk-pricing", "DELETE /api/session/SESSION-XYZ"]
    # what it made
    (g,) = fake.of("game")
    assert (g["name"], g["designer_id"], g["min_players"], g["max_players"]) == ("Tiny Crafter", "D1", "2", "4")
    deck, wide = sorted(fake.of("deck"), key=lambda d: d["name"] != "Things")
    assert (deck["identity"], deck["name"], deck["game_id"], deck["quantity"]) == ("PokerDeck", "Things", "G1", "1")
    assert (wide["identity"], wide["name"]) == ("PokerDeck", "Wide")
    back = fake.objects[deck["back_id"]]
    assert back["filename"] == "things-back.png" and deck["has_proofed_back"] == "0"
    cards = {c["name"]: c for c in fake.of("card")}
    assert {n: c["quantity"] for n, c in cards.items()} == {"Alpha": "2", "Beta": "1", "Vista": "1"}
    vista = cards.pop("Vista")
    with Image.open(io.BytesIO(fake.objects[vista["face_id"]]["data"])) as im:
        # turned anticlockwise to the portrait template: the card's left (red) half at the bottom
        assert im.size == (825, 1125)
        assert im.getpixel((412, 1000)) == (255, 0, 0) and im.getpixel((412, 120)) == (0, 0, 255)
        assert im.getpixel((100, 556)) == (0, 0, 255) and im.getpixel((100, 569)) == (255, 0, 0)   # at 562.5 px
    for c in cards.values():
        face = fake.objects[c["face_id"]]
        with Image.open(io.BytesIO(face["data"])) as im:
            assert im.size == (825, 1125) and im.mode == "RGB"
        assert c["deck_id"] == deck["id"] and "back_id" not in c and c["has_proofed_face"] == "0"
    (chits,) = fake.of("twosidedsluggedset")
    assert chits["identity"] == "MediumCircleChit"
    (coin,) = fake.of("twosidedslugged")
    assert (coin["set_id"], coin["quantity"]) == (chits["id"], "5") and coin["back_id"]
    with Image.open(io.BytesIO(fake.objects[coin["face_id"]]["data"])) as im:
        assert im.size == (300, 300)
    assert all(f["folder_id"] == fake.of("folder")[1]["id"] for f in fake.of("file"))
    assert "price quote (The Game Crafter, before shipping):" in stdout
    assert "  1 copy: $5.90 each" in stdout          # the fake: $5 and 10 cents a piece (9)
    assert "deck 'Odd' not uploaded: no product" in stderr
    # the secrets are nowhere: not said, not in any file of the build folder
    for text in (stdout, stderr):
        assert PASSWORD not in text and KEY not in text and "SESSION-XYZ" not in text
    for path in out.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert PASSWORD.encode() not in data and KEY.encode() not in data and b"SESSION-XYZ" not in data
    assert (out / "crafter" / ".cache" / "tgc" / "state.json").is_file()
    assert not list(root.rglob("state.json"))

    # again, nothing changed: no object made, nothing uploaded
    before = {k: dict(v) for k, v in fake.objects.items()}
    fake.requests.clear()
    code, stdout, stderr = _upload(root, out)
    assert code == 0, stderr
    made = [c for c in fake.calls() if c.startswith(("POST", "DELETE")) and "session" not in c]
    assert made == []
    assert set(fake.objects) == set(before)
    assert "tgc: images unchanged 7, pieces unchanged 1, cards unchanged 3" in stdout.splitlines(), stdout

    # the game renamed, a card's copies change, one card goes, one comes: changed in place
    write(root / "game.yaml", "title: Tiny Crafter II\nplayers: 2-4\n")
    write(root / "deck.yaml", """
        deck: Things
        template: t/face
        back: t/back
        cards:
          - {name: Alpha, color: "#ff0000", count: 3}
          - {name: Gamma, color: "#0000ff"}
    """)
    fake.requests.clear()
    code, stdout, stderr = _upload(root, out)
    assert code == 0, stderr
    changes = [c.rsplit("/", 1)[0] if c.startswith(("PUT", "DELETE /api/card")) else c for c in fake.calls()
               if c.startswith(("POST", "PUT", "DELETE")) and "session" not in c]
    assert changes == ["PUT /api/game", "POST /api/file", "PUT /api/card", "POST /api/card", "DELETE /api/card"]
    assert [g["name"] for g in fake.of("game")] == ["Tiny Crafter II"]
    cards = {c["name"]: c["quantity"] for c in fake.of("card")}
    assert cards == {"Alpha": "3", "Gamma": "1", "Vista": "1"}
    assert len(fake.of("deck")) == 2 and len(fake.of("game")) == 1


def test_a_429_is_retried_after_its_retry_after(fake):
    waits: list[float] = []
    client = tgc_api.Client(interval=0, sleep=waits.append)
    client.sign_in(USER, PASSWORD, KEY)
    fake.inject("POST /api/game", 429, **{"Retry-After": "7"})
    fake.inject("POST /api/game", 503)
    made = client.call("POST", "/game", {"designer_id": "D1", "name": "G"})
    assert waits == [7.0, 2.0]          # its Retry-After, then the doubled wait (1 s, 2 s, ...)
    assert fake.calls().count("POST /api/game") == 3
    assert [g["id"] for g in fake.of("game")] == [made["id"]]


def test_a_wrong_password_is_one_line_and_no_build(game, fake, monkeypatch):
    root, out = game
    monkeypatch.setenv("TGC_PASSWORD", "wrong-horse")
    code, stdout, stderr = _upload(root, out)
    assert code == 1
    assert stderr.splitlines() == ["tgc: The Game Crafter refused the sign-in: POST /session: The password you "
                                   "entered is incorrect. (HTTP 401) (check TGC_USERNAME, TGC_PASSWORD and "
                                   "TGC_API_KEY_ID)"]
    assert "wrong-horse" not in stdout + stderr and "Traceback" not in stdout + stderr
    assert fake.calls() == ["POST /api/session"]


def test_missing_credentials_and_a_test_address_not_127_are_refused(game, fake, monkeypatch):
    root, out = game
    monkeypatch.delenv("TGC_PASSWORD")
    code, _, stderr = _upload(root, out)
    assert code == 1 and stderr.startswith("tgc: set TGC_PASSWORD in the environment")
    monkeypatch.setenv("TGC_PASSWORD", PASSWORD)
    for url in ("http://localhost:9/api", "http://10.0.0.1:9/api", "https://127.0.0.1:9/api"):
        monkeypatch.setenv(tgc_api.TEST_ENV, url)
        code, _, stderr = _upload(root, out)
        assert code == 1 and stderr.startswith(f"tgc: {tgc_api.TEST_ENV} must be http://127.0.0.1:PORT/")
    assert fake.calls() == []


def test_a_failure_midway_is_one_line_and_the_next_run_continues(game, fake):
    root, out = game
    fake.inject("POST /api/deck", 400)
    code, _, stderr = _upload(root, out)
    assert code == 1
    assert stderr.splitlines()[-1] == ("tgc: POST /deck: slow down (HTTP 400); what was done so far is remembered: "
                                       "run the same command again to continue")
    assert len(fake.of("file")) == 7 and fake.of("deck") == []
    fake.requests.clear()
    code, _, stderr = _upload(root, out)
    assert code == 0, stderr
    assert "POST /api/file" not in fake.calls() and "POST /api/game" not in fake.calls()
    assert len(fake.of("deck")) == 2 and len(fake.of("card")) == 3 and len(fake.of("game")) == 1


def test_products_by_size_turned_and_scaled():
    poker = match("card", "rect", (825, 1125))
    assert poker is not None and (poker.product.identity, poker.turned, poker.scaled) == ("PokerDeck", False, False)
    landscape = match("card", "rect", (1125, 825))
    assert landscape is not None and (landscape.product.identity, landscape.turned) == ("PokerDeck", True)
    tarot = match("card", "rect", (902, 1492))
    assert tarot is not None and (tarot.product.identity, tarot.scaled) == ("TarotDeck", True)
    assert match("card", "round", (1125, 1125)).product.identity == "CircleDeck"     # type: ignore[union-attr]
    assert match("tile", "hex-flat", (1200, 1050)).product.identity == "LargeHexTile"  # type: ignore[union-attr]
    assert match("board", "rect", (2475, 2475)).product.identity == "SquareBoard"     # type: ignore[union-attr]
    assert match("card", "rect", (772, 1162)) is None                                 # euro
    assert match("card", "rect", (772, 1162), "LargeHexTile") is None                 # not a deck
    chosen = match("card", "rect", (772, 1162), "EuroPokerDeck")
    assert chosen is not None and chosen.scaled


def test_a_state_file_that_came_with_the_build_folder_is_not_trusted(game, fake):
    """A `build/` shipped with a game cannot point the upload at another game of the account."""
    import json

    root, out = game
    other = fake._new("game", "G", name="Other", designer_id="D1")
    forged = {"stamp": "0" * 64, "body": {"format": 1, "user_id": "U1", "game_id": other["id"], "files": {},
                                          "items": {}}}
    write(out / "crafter" / ".cache" / "tgc" / "state.json", json.dumps(forged))
    code, _, stderr = _upload(root, out)
    assert code == 0, stderr
    assert f"PUT /api/game/{other['id']}" not in fake.calls() and f"GET /api/game/{other['id']}" not in fake.calls()
    assert fake.objects[other["id"]]["name"] == "Other"
    assert sorted(g["name"] for g in fake.of("game")) == ["Other", "Tiny Crafter"]


def test_the_real_api_is_reached_only_at_public_addresses(monkeypatch):
    """The Game Crafter's name resolving to this computer (or a private network) is refused
    before anything is connected to; the credentials are not said."""
    monkeypatch.delenv(tgc_api.TEST_ENV, raising=False)
    connected = []
    monkeypatch.setattr(socket.socket, "connect", lambda *a: connected.append(a))
    for address in ("127.0.0.1", "10.1.2.3", "::1"):
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        answer = [(family, socket.SOCK_STREAM, 6, "", (address, 443))]
        monkeypatch.setattr(socket, "getaddrinfo", lambda *a, answer=answer, **k: answer)
        client = tgc_api.Client(interval=0, sleep=lambda s: None)
        assert client.base == "https://www.thegamecrafter.com/api"
        with pytest.raises(tgc_api.TgcError) as info:
            client.sign_in(USER, PASSWORD, KEY)
        assert str(info.value) == (f"cannot reach The Game Crafter: www.thegamecrafter.com ({address}) is an "
                                   f"address of this computer or a private network; cardgen fetches sheets only "
                                   f"from the internet (a published Google Sheet's https:// link)")
    assert connected == []


def test_a_game_in_several_languages_is_uploaded_one_language_at_a_time(game):
    root, out = game
    write(root / "game.yaml", "title: Tiny Crafter\nlanguages: [en, fr]\n")
    code, _, stderr = _upload(root, out, "--dry-run")
    assert code == 1
    assert stderr.splitlines() == ["tgc: crafter is in 2 languages (en, fr): choose the one to upload with --lang "
                                   "(each is a game of its own at The Game Crafter)"]


def _index(folder, decks):
    """A png/tgc/ folder as the build makes it: cards.json and tiny PNGs standing for the images
    (their size is what cards.json says: nothing is turned or scaled)."""
    import json
    import zlib

    for deck in decks:
        for path in [deck.get("back"), *(c["front"] for c in deck["cards"]), *(c.get("back") for c in deck["cards"])]:
            if path and not (folder / path).exists():
                (folder / path).parent.mkdir(parents=True, exist_ok=True)
                shade = zlib.crc32(path.encode())       # (a different image each: the same one is sent once)
                Image.new("RGB", (4, 4), (shade % 256, shade // 256 % 256, shade // 65536 % 256)).save(folder / path)
    (folder / "cards.json").write_text(json.dumps({"format": 1, "title": "Boards", "slug": "boards", "subtitle": "",
                                                   "players": "", "decks": decks, "extras": []}))
    return folder


def _deck(name, kind, shape, px, cards, back=None):
    return {"name": name, "slug": name.lower(), "kind": kind, "shape": shape, "trim_mm": [1, 1], "image_px": px,
            "back": back, "cards": [{"name": n, "count": k, "front": f"fronts/{name}-{n}.png", "back": b}
                                    for n, k, b in cards]}


def test_boards_tiles_and_folding_boards_are_made_as_their_products(fake, tmp_path):
    from cardgen.core.errors import CardgenError
    from cardgen.pipeline.tgc_plan import read_plan
    from cardgen.pipeline.tgc_sync import State, Sync

    folder = _index(tmp_path / "png", [
        _deck("Maps", "board", "rect", [2475, 2475], [("North", 1, "backs/n.png"), ("South", 2, "backs/s.png")]),
        _deck("Main", "board", "rect", [2775, 5475], [("Day", 1, None), ("Night", 1, None)]),
        _deck("Hexes", "tile", "hex-flat", [1200, 1050], [("Forest", 3, None)], back="backs/hex.png"),
        _deck("Cutouts", "token", "path", [300, 300], [("Star", 1, None)]),
    ])
    plan = read_plan(folder)
    assert [(i.name, i.match.product.identity if i.match else None) for i in plan.items] == [
        ("Maps", "SquareBoard"), ("Day", "BiFoldBoard"), ("Night", "BiFoldBoard"), ("Hexes", "LargeHexTile"),
        ("Cutouts", None)]
    assert plan.items[-1].reason.startswith("a piece cut along its own outline needs a custom punchout template")
    client = tgc_api.Client(interval=0)
    client.sign_in(USER, PASSWORD, KEY)
    said: list[str] = []
    quote = Sync(plan, client, State.load(tmp_path / "state.json", "U1"), proofed=True, say=said.append).run()
    (maps,) = fake.of("twosidedset")
    assert (maps["identity"], maps["name"], maps["quantity"]) == ("SquareBoard", "Maps", "1")
    boards = {m["name"]: m for m in fake.of("twosided")}
    assert {n: (m["quantity"], m["set_id"], fake.objects[m["back_id"]]["name"], m["has_proofed_face"],
                m["has_proofed_back"]) for n, m in boards.items()} == {
        "North": ("1", maps["id"], "n.png", "1", "1"), "South": ("2", maps["id"], "s.png", "1", "1")}
    folding = {g["name"]: g for g in fake.of("onesidedgloss")}
    assert sorted(folding) == ["Day", "Night"]
    assert {g["identity"] for g in folding.values()} == {"BiFoldBoard"}
    assert fake.objects[folding["Night"]["face_id"]]["name"] == "Main-Night.png"
    (hexes,) = fake.of("twosidedsluggedset")
    (forest,) = fake.of("twosidedslugged")
    assert (hexes["identity"], forest["quantity"], fake.objects[forest["back_id"]]["name"]) == \
        ("LargeHexTile", "3", "hex.png")
    assert said == ["tgc: game made 1, images uploaded 8, board sets made 1, boards made 2, folding boards made 2, "
                    "punchout sets made 1, pieces made 1"]
    assert quote[0] == "price quote (The Game Crafter, before shipping):"
    with pytest.raises(CardgenError) as info:
        read_plan(folder, {"nope": "PokerDeck"})
    assert str(info.value).endswith("--product names no deck of the game: nope (decks: maps, main, hexes, "
                                    "cutouts)")
