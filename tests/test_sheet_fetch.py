"""A deck's sheet link reaches nothing but the internet, within a deadline and a size limit,
and the fetched-sheet cache is cardgen's own (docs/security.md, docs/spreadsheets.md)."""
from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
import sheetserver
from vgame import make_game

from cardgen.core.errors import CardgenError, Report
from cardgen.load import sheetfetch, sheets
from cardgen.pipeline.check import load_game

NAME_FACE = "elements:\n  - {name: title, type: text, y: 5mm, height: 10mm, text: \"{{ card.name }}\"}\n"
WEB = "https://sheets.example.test"
_REAL_TLS = sheetfetch._tls
LOCAL = ("is an address of this computer or a private network; cardgen fetches sheets only from the internet "
         "(a published Google Sheet's https:// link)")


def _web_game(tmp_path: Path, url: str) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    return make_game(tmp_path, decks={"d.yaml": f"deck: D\ntemplate: g/face\ncards: {{url: \"{url}\"}}\n"},
                     templates={"face": NAME_FACE}, rules=None)


def _load(root: Path, out: Path | None, **kw) -> tuple[Any, list[str]]:
    """Load the game (in its project, `make_game`'s) with fetched sheets kept under `out`
    (None: the default output folder, the project's `build/`)."""
    report = Report()
    with sheets.settings(sheets.SheetSettings(out=out, **kw)):
        try:
            game = load_game(root, root.parents[1], report)
        except CardgenError as exc:
            return None, [d.message for d in exc.diagnostics]
    return game, [d.message for d in report.items]


@pytest.fixture
def server():
    srv = sheetserver.start()
    yield srv
    sheetserver.stop(srv)


# -- addresses ---------------------------------------------------------------------------------------

SPELLINGS = ["127.0.0.1", "127.1", "0x7f.1", "0x7f000001", "2130706433", "017700000001", "127.000.000.001",
             "127.255.255.254", "[::1]", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "[::127.0.0.1]",
             "[0:0:0:0:0:ffff:127.0.0.1]", "[64:ff9b::127.0.0.1]", "[2002:7f00:1::1]", "0.0.0.0", "0", "[::]",
             "localhost", "localhost.", "LOCALHOST", "a.localhost", "[fe80::1]", "[fe80::1%25lo]",
             "169.254.169.254", "10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.1.1", "[fc00::1]",
             "[fd12:3456::1]", "100.64.0.1", "100.127.255.254", "224.0.0.1", "255.255.255.255", "240.0.0.1",
             "198.18.0.1", "192.0.0.1", "192.0.2.1", "[2001:db8::1]", "[2001:0:4136:e378:8000:63bf:3fff:fdd2]",
             "[fec0::1]", "[ff02::1]", "printer.local", "nas.home.arpa"]


@pytest.mark.parametrize("host", SPELLINGS)
def test_a_link_to_this_computer_or_a_private_network_is_refused_before_connecting(tmp_path, server, monkeypatch,
                                                                                  host):
    connected = sheetserver.route(monkeypatch, server)
    url = f"https://{host}:{server.server_port}/ok.csv"
    root = _web_game(tmp_path, url)
    game, msgs = _load(root, tmp_path / "out")
    assert game is None and len(msgs) == 1
    assert msgs[0].startswith(f"cannot fetch '{url}': ") and msgs[0].endswith(LOCAL), msgs[0]
    assert connected == [] and server.accepted == 0 and sheetserver.Handler.hits == []


@pytest.mark.parametrize("url", ["http://127.0.0.1:{port}/ok.csv", "http://localhost:{port}/ok.csv",
                                 "http://sheets.example.test/ok.csv", "ftp://sheets.example.test/ok.csv",
                                 "file:///etc/passwd", "https:///ok.csv", "https://sheets.example.test:x/ok"])
def test_only_https_links(tmp_path, server, monkeypatch, url):
    connected = sheetserver.route(monkeypatch, server)
    url = url.format(port=server.server_port)
    game, msgs = _load(_web_game(tmp_path, url), tmp_path / "out")
    assert game is None and msgs[0].startswith(f"cannot fetch '{url}': ")
    assert msgs[0].endswith(("only https:// links can be fetched (File > Share > Publish to web gives one)",
                             "it is not a valid link"))
    assert connected == [] and server.accepted == 0


@pytest.mark.parametrize("addresses", [["10.1.2.3"], ["127.0.0.1"], [sheetserver.PUBLIC, "192.168.0.7"],
                                       ["::1"], [sheetserver.PUBLIC, "fd00::5"], ["::ffff:10.0.0.1"]])
def test_a_name_with_any_local_address_is_refused(tmp_path, server, monkeypatch, addresses):
    connected = sheetserver.route(monkeypatch, server, {"evil.example.test": addresses})
    url = "https://evil.example.test/ok.csv"
    game, msgs = _load(_web_game(tmp_path, url), tmp_path / "out")
    assert game is None and msgs[0].startswith(f"cannot fetch '{url}': evil.example.test (")
    assert msgs[0].endswith(LOCAL)
    assert connected == [] and server.accepted == 0


def test_a_public_name_is_fetched_from_the_address_checked(tmp_path, server, monkeypatch):
    """The name is looked up once: a second answer (DNS rebinding to 127.0.0.1) is never asked for."""
    answers = [[sheetserver.PUBLIC], ["127.0.0.1"]]
    connected = sheetserver.route(monkeypatch, server)
    import socket

    patched = socket.getaddrinfo
    lookups: list[str] = []

    def rebinding(host, port, *args, **kwargs):
        if host == "rebind.example.test":
            lookups.append(host)
            ip = answers[min(len(lookups), 2) - 1][0]
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (ip, port))]
        return patched(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    game, msgs = _load(_web_game(tmp_path, "https://rebind.example.test/ok.csv"), tmp_path / "out")
    assert msgs == [] and [c.name for c in game.decks[0].cards] == ["A", "B"]
    assert lookups == ["rebind.example.test"] and connected == [(sheetserver.PUBLIC, 443)]
    assert server.accepted == 1


@pytest.mark.parametrize("target, why", [
    ("https://127.0.0.1:{port}/ok.csv", "it " + LOCAL),
    ("https://[::1]/ok.csv", "it " + LOCAL),
    ("https://inside.example.test/ok.csv", "it " + LOCAL),
    ("http://sheets.example.test/ok.csv", "only https:// links can be fetched (File > Share > Publish to web gives one)"),
    ("file:///etc/passwd", "only https:// links can be fetched (File > Share > Publish to web gives one)"),
])
def test_a_redirect_is_checked_the_same_way(tmp_path, server, monkeypatch, target, why):
    connected = sheetserver.route(monkeypatch, server, {"inside.example.test": ["10.9.8.7"]})
    target = target.format(port=server.server_port)
    url = f"{WEB}/redirect?to={target}"
    game, msgs = _load(_web_game(tmp_path, url), tmp_path / "out")
    assert game is None
    assert msgs == [f"cannot fetch '{url}': the link redirects to {target}, which cardgen does not follow: {why}"]
    assert connected == [(sheetserver.PUBLIC, 443)] and server.accepted == 1        # the first hop only


def test_a_redirect_to_a_public_address_is_followed(tmp_path, server, monkeypatch):
    connected = sheetserver.route(monkeypatch, server, {"other.example.test": ["8.8.4.4"]})
    game, msgs = _load(_web_game(tmp_path, f"{WEB}/redirect?to=https://other.example.test/ok.csv"), tmp_path / "o")
    assert msgs == [] and len(game.decks[0].cards) == 2
    assert connected == [(sheetserver.PUBLIC, 443), ("8.8.4.4", 443)]


# -- time and size -------------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["/drip", "/headdrip", "/slow"])
def test_a_slow_server_is_cut_at_the_deadline(tmp_path, server, monkeypatch, path):
    """One byte every two seconds (of the body, or of the status line) never resets the clock:
    the whole fetch has one deadline."""
    sheetserver.route(monkeypatch, server)
    start = time.monotonic()
    game, msgs = _load(_web_game(tmp_path, f"{WEB}{path}"), tmp_path / "out", timeout=0.8)
    took = time.monotonic() - start
    assert game is None and msgs == ["could not fetch the sheet (no complete answer within 0.8 s (limit "
                                     "CARDGEN_MAX_FETCH_SECONDS)) and no copy of it is cached yet"]
    assert took < 4, took           # /slow answers after 5 s; a busy machine may add seconds to 0.8


@pytest.mark.parametrize("path", ["/huge", "/endless"])
def test_a_sheet_larger_than_the_limit_is_refused_while_reading(tmp_path, server, monkeypatch, path):
    sheetserver.route(monkeypatch, server)
    monkeypatch.setattr(sheetfetch, "MAX_DOWNLOAD", 3 * 1024 * 1024)
    start = time.monotonic()
    game, msgs = _load(_web_game(tmp_path, f"{WEB}{path}"), tmp_path / "out")
    assert game is None and msgs == ["could not fetch the sheet (the sheet is larger than 3 MB (limit "
                                     "CARDGEN_MAX_SHEET_BYTES)) and no copy of it is cached yet"]
    assert time.monotonic() - start < 5


# -- the cache -------------------------------------------------------------------------------------

def _fetch_once(tmp_path: Path, server, monkeypatch) -> tuple[Path, Path]:
    sheetserver.route(monkeypatch, server)
    root = _web_game(tmp_path / "g", f"{WEB}/ok.csv")
    game, msgs = _load(root, tmp_path / "out")
    assert msgs == [] and len(game.decks[0].cards) == 2
    cache = tmp_path / "out" / "g" / ".cache" / "sheets"
    (entry,) = cache.iterdir()
    return root, entry


def test_a_cache_entry_shipped_with_a_game_is_never_read(tmp_path, server, monkeypatch):
    """A game whose build/ holds a cache entry someone else made (here: one of the old
    unsigned kind, one with a made-up stamp, and a link to a file outside) is fetched anew."""
    sheetserver.route(monkeypatch, server)
    root = _web_game(tmp_path / "g", f"{WEB}/ok.csv")
    cache = root.parents[1] / "build" / "g" / ".cache" / "sheets"
    name = sheetfetch._cache_path(cache, f"{WEB}/ok.csv")
    secret = tmp_path / "secret.txt"
    secret.write_text("name\nmy password\n", encoding="utf-8")
    forged = sheetfetch._CACHE_MAGIC + b"0" * 64 + b"\n" + repr(time.time()).encode() + b"\nname\nInjected\n"
    for plant in ("forged", "link", "old"):
        cache.mkdir(parents=True, exist_ok=True)
        for p in cache.iterdir():
            p.unlink()
        if plant == "forged":
            name.write_bytes(forged)
        elif plant == "link":
            name.symlink_to(secret)
        else:
            (cache / (name.stem + ".csv")).write_text("name\nInjected\n", encoding="utf-8")
            (cache / (name.stem + ".json")).write_text(f'{{"url": "{WEB}/ok.csv", "fetched": {time.time()}}}',
                                                       encoding="utf-8")
        before = len(sheetserver.Handler.hits)
        game, msgs = _load(root, None)      # (the default output folder, as validate has it)
        assert msgs == [] and [c.name for c in game.decks[0].cards] == ["A", "B"], plant
        assert len(sheetserver.Handler.hits) == before + 1, plant
    assert secret.read_text(encoding="utf-8") == "name\nmy password\n"          # written through: never


def test_an_entry_is_read_only_for_its_output_folder_link_and_text(tmp_path, server, monkeypatch):
    root, entry = _fetch_once(tmp_path, server, monkeypatch)
    assert len(sheetserver.Handler.hits) == 1
    _load(root, tmp_path / "out")
    assert len(sheetserver.Handler.hits) == 1                       # this user's, this folder's: used
    # copied to another output folder: not used there
    other = tmp_path / "other" / "g" / ".cache" / "sheets"
    other.mkdir(parents=True)
    (other / entry.name).write_bytes(entry.read_bytes())
    _load(root, tmp_path / "other")
    assert len(sheetserver.Handler.hits) == 2
    # changed text, same stamp: not used (and the fresh copy replaces it)
    blob = entry.read_bytes()
    entry.write_bytes(blob.replace(b"From the web", b"From elsewhere"))
    game, _ = _load(root, tmp_path / "out")
    assert len(sheetserver.Handler.hits) == 3 and game.decks[0].cards[0].fields["text"] == "From the web"
    # made with another user's key: not used
    key = Path(os.environ["XDG_CACHE_HOME"]) / "cardgen" / "key" / "cache.key"
    real = key.read_bytes()
    try:
        key.write_bytes(os.urandom(32))
        _load(root, tmp_path / "out")
        assert len(sheetserver.Handler.hits) == 4
    finally:
        key.write_bytes(real)


@pytest.mark.parametrize("link", ["build", "g", ".cache", "sheets"])
def test_a_cache_folder_that_is_a_link_is_neither_read_nor_written(tmp_path, server, monkeypatch, link):
    """A game may come with `build -> ~/Documents` (or its `.cache`, or the cache folder, a
    link): the fetched sheet is neither read from there nor written there."""
    sheetserver.route(monkeypatch, server)
    root = _web_game(tmp_path / "g", f"{WEB}/ok.csv")
    outside = tmp_path / "outside"
    outside.mkdir()
    build = root.parents[1] / "build"
    chain = {"build": build, "g": build / "g", ".cache": build / "g" / ".cache", "sheets": build / "g" / ".cache" / "sheets"}
    chain[link].parent.mkdir(parents=True, exist_ok=True)
    chain[link].symlink_to(outside, target_is_directory=True)
    for _ in range(2):
        game, msgs = _load(root, None)
        assert msgs == [] and len(game.decks[0].cards) == 2
    assert list(outside.rglob("*")) == []
    assert len(sheetserver.Handler.hits) == 2                      # fetched each time: nothing kept


def test_the_key_file_is_the_users_alone(tmp_path, monkeypatch):
    from cardgen.core import digest

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "c"))
    key = digest.user_key()
    path = tmp_path / "c" / "cardgen" / "key" / "cache.key"
    assert key is not None and len(key) == 32 and path.read_bytes() == key
    assert path.stat().st_mode & 0o777 == 0o600
    assert digest.user_key() == key
    path.unlink()
    path.symlink_to(tmp_path / "elsewhere")
    assert digest.user_key() is None and not (tmp_path / "elsewhere").exists()


# -- the other things cardgen keeps in an output folder --------------------------------------------

def test_an_output_folder_copied_elsewhere_or_made_by_another_user_is_not_trusted(tmp_path, monkeypatch):
    """The state file and the caches of an output folder carry an HMAC of the folder's path
    under this user's key (`core.digest.own_stamp`): copied to another folder (as a game's
    `build/` arrives with it), or made with another key, nothing in them is used."""
    import shutil

    from cardgen.core import digest
    from cardgen.pipeline.build import BuildOptions, build_game

    game = make_game(tmp_path, decks={"d.yaml": "deck: D\ntemplate: g/face\ncards:\n  - {name: A}\n  - {name: B}\n"},
                     templates={"face": NAME_FACE}, rules=None)
    a, b = tmp_path / "a", tmp_path / "b"

    def build(out: Path):
        return build_game(game, tmp_path, BuildOptions(out=out, only=("cards",)), Report())

    assert not build(a).unchanged
    assert build(a).unchanged                                   # its own folder: trusted
    shutil.copytree(a, b, symlinks=True)
    rebuilt = build(b)
    assert not rebuilt.unchanged and (b / "g" / "cards.pdf").read_bytes() == (a / "g" / "cards.pdf").read_bytes()
    assert build(b).unchanged
    layout = b / "g" / ".cache" / "layout.bin"
    assert digest.read_payload(layout).startswith(digest.own_stamp(b / "g").encode() + b"\n")
    assert digest.own_stamp(b / "g") != digest.own_stamp(a / "g")
    monkeypatch.setattr(digest, "user_key", lambda: b"k" * 32)     # another user's key
    monkeypatch.setattr(digest, "_stamps", {})
    assert not build(a).unchanged


@pytest.mark.parametrize("host", ["cafe.de", "docs.google.com", "x1.example", "0x.example", "face.b00c"])
def test_names_that_look_a_little_like_numbers_are_names(tmp_path, server, monkeypatch, host):
    connected = sheetserver.route(monkeypatch, server, {host: ["142.250.185.78"]})
    game, msgs = _load(_web_game(tmp_path, f"https://{host}/ok.csv"), tmp_path / "out")
    assert msgs == [] and len(game.decks[0].cards) == 2
    assert connected == [("142.250.185.78", 443)]


def test_a_server_that_never_finishes_the_tls_handshake_is_cut_at_the_deadline(tmp_path, monkeypatch):
    """The deadline holds from the connection on, TLS handshake included: here a server,
    reached with cardgen's real TLS, that starts a 16 KB handshake record and then sends one
    byte of it every 0.2 s (no single read ever waits long)."""
    import socket
    import threading

    real_tls = sheetfetch._tls
    listener = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def drip() -> None:
        conn = listener.accept()[0]
        held.append(conn)
        try:
            conn.sendall(b"\x16\x03\x03\x40\x00")
            for _ in range(100):
                conn.sendall(b"\x00")
                time.sleep(0.2)
        except OSError:
            pass

    threading.Thread(target=drip, daemon=True).start()

    class Silent:
        server_port = listener.getsockname()[1]

    sheetserver.route(monkeypatch, Silent)              # type: ignore[arg-type]
    monkeypatch.setattr(sheetfetch, "_tls", real_tls)
    try:
        start = time.monotonic()
        game, msgs = _load(_web_game(tmp_path, f"{WEB}/ok.csv"), tmp_path / "out", timeout=0.6)
        took = time.monotonic() - start
    finally:
        for s in held:
            s.close()
        listener.close()
    assert game is None and len(msgs) == 1 and "within 0.6 s (limit CARDGEN_MAX_FETCH_SECONDS)" in msgs[0], msgs
    assert took < 1.4, took


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is not installed")
def test_the_real_tls_path_checks_the_certificate_for_the_name(tmp_path, monkeypatch):
    """cardgen's own TLS over the checked connection: a server whose certificate is for the
    link's name gives the sheet; the same server reached under another name is refused."""
    import ssl
    import subprocess

    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(tmp_path / "k.pem"),
                    "-out", str(tmp_path / "c.pem"), "-days", "2", "-subj", "/CN=sheets.example.test",
                    "-addext", "subjectAltName=DNS:sheets.example.test"], check=True, capture_output=True, timeout=60)
    srv = sheetserver.start()
    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_ctx.load_cert_chain(tmp_path / "c.pem", tmp_path / "k.pem")
    srv.socket = server_ctx.wrap_socket(srv.socket, server_side=True)
    real_context = ssl.create_default_context
    try:
        sheetserver.route(monkeypatch, srv, {"other.example.test": [sheetserver.PUBLIC]})
        monkeypatch.setattr(sheetfetch, "_tls", _REAL_TLS)          # (route's plain stand-in undone)
        monkeypatch.setattr(ssl, "create_default_context", lambda *a, **k: real_context(cafile=str(tmp_path / "c.pem")))
        game, msgs = _load(_web_game(tmp_path / "a", f"{WEB}/ok.csv"), tmp_path / "out")
        assert msgs == [] and [c.name for c in game.decks[0].cards] == ["A", "B"]
        game, msgs = _load(_web_game(tmp_path / "b", "https://other.example.test/ok.csv"), tmp_path / "out")
        assert game is None and msgs[0].startswith("could not fetch the sheet (cannot reach the server (")
        assert "certificate verify failed" in msgs[0] and "other.example.test" in msgs[0]
    finally:
        sheetserver.stop(srv)
