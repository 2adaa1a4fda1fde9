"""`cardgen serve`: the preview answers on 127.0.0.1 only, lists every card side and serves
its image, tells open pages about every saved change (server-sent events), shows errors and
brings the cards back once fixed, refuses every other address; and, in a real browser
(headless Chromium), the page follows an edit of the YAML without reloading."""
from __future__ import annotations

import http.client
import io
import json
import math
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from fractions import Fraction
from math import comb
from pathlib import Path

import pytest
from conftest import REPO
from pages import EVIL, card_tiles, grid_images, make_game, parse
from PIL import Image

from cardgen.core.errors import Report
from cardgen.pipeline.check import check_game
from cardgen.serve.server import Running

WAIT = 20.0          # seconds a test waits at most for the first check (a loaded machine)


def get(url: str, path: str, headers: dict | None = None) -> tuple[int, dict, bytes]:
    """GET `path` exactly as written (no normalising of `..`)."""
    host, port = url.removeprefix("http://").rstrip("/").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        conn.request("GET", path, headers=headers or {})
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        conn.close()


def state(url: str) -> dict:
    status, _, body = get(url, "/state.json")
    assert status == 200
    return json.loads(body)


def wait_for(predicate, timeout: float = WAIT, step: float = 0.05):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = predicate()
        if got:
            return got
        time.sleep(step)
    raise AssertionError("timed out")


class Events:
    """An open /events stream, read event by event."""

    def __init__(self, url: str):
        host, port = url.removeprefix("http://").rstrip("/").split(":")
        self.conn = http.client.HTTPConnection(host, int(port), timeout=10)
        self.conn.request("GET", "/events")
        self.resp = self.conn.getresponse()
        assert self.resp.status == 200
        assert self.resp.getheader("Content-Type") == "text/event-stream; charset=utf-8"

    def next(self) -> tuple[str, dict]:
        name, data = "", ""
        while True:
            line = self.resp.readline().decode()
            assert line, "stream closed"
            line = line.rstrip("\n")
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                data += line[6:]
            elif line == "" and name:
                return name, json.loads(data)

    def close(self):
        self.conn.close()


@pytest.fixture
def served(tmp_path):
    game = make_game(tmp_path)
    running = Running(game, game, port=0)
    try:
        wait_for(lambda: state(running.url)["cards"])
        yield running, game
    finally:
        running.close()


def distinct_sides(game: Path) -> int:
    checked = check_game(game, game, Report())
    assert checked.rendered is not None
    return len(checked.rendered.faces) + len(checked.rendered.backs)


def test_answers_with_every_card_and_its_images(served):
    running, game = served
    status, headers, body = get(running.url, "/")
    assert status == 200 and headers["content-type"] == "text/html; charset=utf-8"
    assert "default-src 'none'" in headers["content-security-policy"]
    root = parse(body.decode())
    images = grid_images(root)
    assert len(images) == distinct_sides(game) == 10
    assert len(card_tiles(root)) == 7
    s = state(running.url)
    assert len(s["images"]) == 10 and sorted(img.attrs["src"] for img in images) == s["images"]
    assert {c["name"]: c["count"] for c in s["cards"]} == {
        "Alpha": 2, "Beta": 1, "Gamma": 1, EVIL.replace("\x1b", "\\x1b"): 1, "Parked": 0, "Sun": 3, "Moon": 1}
    by_name = {c["name"]: c for c in s["cards"]}
    for src in s["images"]:
        status, headers, data = get(running.url, src)
        assert status == 200 and headers["content-type"] == "image/png"
        with Image.open(io.BytesIO(data)) as im:
            assert im.size == (409, 573)            # (a poker card's screen-class render: its TTS cell)
    _, _, data = get(running.url, by_name["Alpha"]["face"])
    with Image.open(io.BytesIO(data)) as im:
        assert im.convert("RGB").getpixel((187, 300)) == (255, 0, 0)
    _, _, data = get(running.url, by_name["Sun"]["back"])
    with Image.open(io.BytesIO(data)) as im:
        assert im.convert("RGB").getpixel((187, 300)) == (0, 0, 255)
    status, _, data = get(running.url, by_name["Alpha"]["face"].replace("/img/", "/full/"))
    with Image.open(io.BytesIO(data)) as im:                 # zoom: print resolution
        assert status == 200 and im.size == (750, 1050)
    # the problem is beside its card, with its file:line
    line = (game / "things.yaml").read_text().splitlines().index("    cuont: 3") + 1
    assert by_name["Gamma"]["problems"] == [
        f"things.yaml:{line}: warning: deck 'Things': card 'Gamma': unknown key 'cuont'; did you mean 'count'? "
        f"(cards may carry any fields for their templates, but this looks like a misspelt `count:`, which "
        f"cardgen reads itself)"]


def test_a_card_shows_its_data_and_source_lines(served):
    running, game = served
    key = next(c["key"] for c in state(running.url)["cards"] if c["name"] == "Gamma")
    status, _, body = get(running.url, f"/card/{key}.json")
    assert status == 200
    d = json.loads(body)
    lines = (game / "things.yaml").read_text().splitlines()
    first = lines.index("  - name: Gamma") + 1
    assert d["source"] == {"file": "things.yaml", "first": first, "lines": ["  - name: Gamma", "    cuont: 3"],
                           "marked": [first + 1]}
    assert dict(d["fields"])["cuont"] == "3" and d["deck"] == "Things" and d["where"] == f"things.yaml:{first}"
    assert [s["what"] for s in d["sides"]] == ["face", "back"] and d["sides"][0]["width_mm"] == 63.5
    evil = next(c["key"] for c in state(running.url)["cards"] if c["name"].startswith("<script>"))
    _, _, body = get(running.url, f"/card/{evil}.json")
    assert b"\\u001b" not in body and "\x1b" not in body.decode() and json.loads(body)["name"] == \
        "<script>alert(1)</script>\\x1b[31m"
    html = get(running.url, "/")[2].decode()
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;\\x1b[31m" in html


def test_an_edited_line_is_pushed_at_once(served):
    running, game = served
    before = {c["name"]: c for c in state(running.url)["cards"]}
    events = Events(running.url)
    try:
        name, first = events.next()                          # the current version, at once
        assert name == "update" and first["cards"] == 7 and first["sides"] == 10
        deck = game / "things.yaml"
        saved = time.monotonic()
        deck.write_text(deck.read_text().replace("{name: Beta,", "{name: Bravo,"))
        name, second = events.next()
        took = time.monotonic() - saved
        assert name == "update" and second["version"] == first["version"] + 1
        assert took < 2.0, f"the page heard of the change {took:.2f} s after it was saved"
    finally:
        events.close()
    after = {c["name"]: c for c in state(running.url)["cards"]}
    assert "Beta" not in after and after["Bravo"]["key"] == before["Beta"]["key"]
    assert after["Bravo"]["face"] != before["Beta"]["face"]
    assert after["Alpha"]["face"] == before["Alpha"]["face"]            # unchanged cards keep their image
    assert get(running.url, before["Beta"]["face"])[0] == 404          # only the newest images are served
    assert get(running.url, after["Bravo"]["face"])[0] == 200
    assert "Bravo" in get(running.url, "/fragment")[2].decode()


def test_errors_are_shown_and_the_cards_come_back(served):
    running, game = served
    v = state(running.url)["version"]
    face = game / "templates" / "face.yaml"
    good = face.read_text()
    face.write_text(good.replace("{{ card.name }}", "{{ card.name | nosuchfilter }}"))
    broken = wait_for(lambda: (s := state(running.url))["version"] > v and s)
    assert broken["stale"] is True and len(broken["cards"]) == 7          # the last cards that laid out
    assert broken["errors"] and all(e.startswith("templates/face.yaml:3: error:") for e in broken["errors"])
    page = parse(get(running.url, "/")[2].decode())
    banner = page.by_id("errors")
    assert "the cards below are the last ones that laid out" in banner.text()
    assert "templates/face.yaml:3" in banner.text()
    assert page.find_all("div", "stale")
    face.write_text(good)
    fixed = wait_for(lambda: (s := state(running.url))["version"] > broken["version"] and s)
    assert fixed["stale"] is False and fixed["errors"] == [] and len(fixed["cards"]) == 7
    assert "errors" not in get(running.url, "/fragment")[2].decode().split("<section class=\"deck\"")[0]


def test_a_deck_file_that_stops_loading_keeps_its_last_cards(served):
    running, game = served
    v = state(running.url)["version"]
    tokens = game / "tokens.yaml"
    good = tokens.read_text()
    tokens.write_text(good.replace("{name: Moon, color:", "{name: Moon, color: [oops,"))
    broken = wait_for(lambda: (s := state(running.url))["version"] > v and s)
    assert broken["stale"] is False and [c["name"] for c in broken["cards"]][-2:] == ["Sun", "Moon"]
    assert len(broken["errors"]) == 1 and broken["errors"][0].startswith("tokens.yaml:6: error: invalid YAML")
    page = parse(get(running.url, "/")[2].decode())
    deck = page.by_id("deck-tokens")
    assert "stale" in deck.classes and "tokens.yaml does not load" in deck.text()
    assert "stale" not in page.by_id("deck-things").classes
    moon = next(t for t in card_tiles(deck) if t.find_all("span", "name")[0].text() == "Moon")
    assert "tokens.yaml:6" in moon.find_all("ul", "problems")[0].text()        # the error, on the card it is in
    assert all(get(running.url, img.attrs["src"])[0] == 200 for img in grid_images(page))
    tokens.write_text(good)
    fixed = wait_for(lambda: (s := state(running.url))["version"] > broken["version"] and s)
    assert fixed["errors"] == [] and "stale" not in parse(get(running.url, "/")[2].decode()).by_id(
        "deck-tokens").classes


def test_a_broken_game_yaml_keeps_the_page_alive(served):
    running, game = served
    v = state(running.url)["version"]
    (game / "game.yaml").write_text("title: [Gallery\n")
    broken = wait_for(lambda: (s := state(running.url))["version"] > v and s)
    assert broken["stale"] is True and len(broken["cards"]) == 7
    assert len(broken["errors"]) == 1 and broken["errors"][0].startswith("game.yaml:1: error: invalid YAML:")
    assert get(running.url, "/")[0] == 200 and get(running.url, broken["images"][0])[0] == 200
    (game / "game.yaml").write_text("title: Gallery again\n")
    fixed = wait_for(lambda: (s := state(running.url))["version"] > broken["version"] and s)
    assert (fixed["stale"], fixed["errors"], fixed["title"], len(fixed["cards"])) == (False, [], "Gallery again", 7)


def test_binds_to_loopback_only(served):
    running, _ = served
    host, port = running.server.socket.getsockname()
    assert host == "127.0.0.1" and running.url == f"http://127.0.0.1:{port}/"
    assert running.server.socket.family == socket.AF_INET
    with pytest.raises(ConnectionRefusedError):                  # another address of this computer
        socket.create_connection(("127.0.0.2", port), timeout=3).close()
    try:
        outside = socket.gethostbyname(socket.gethostname())
    except OSError:
        outside = ""
    if outside and not outside.startswith("127."):
        with pytest.raises(OSError):
            socket.create_connection((outside, port), timeout=3).close()


@pytest.mark.parametrize("path", [
    "/img/../../etc/passwd", "/img/..%2f..%2fetc%2fpasswd", "/static/../serve/server.py", "/static/..%2fpage.html",
    "/full/" + "0" * 64 + ".png", "/img/" + "a" * 64 + ".png", "/card/nothing.json", "/card/..%2f..%2fx.json",
    "/gallery/x.png", "/../things.yaml", "/things.yaml", "/build", "/static/", "/%00",
])
def test_refuses_every_other_address(served, path):
    running, _ = served
    status, _, body = get(running.url, path)
    assert (status, body) == (404, b"not found\n")


def test_refuses_other_hosts(served):
    running, _ = served
    assert get(running.url, "/", {"Host": "evil.example:80"})[0] == 403
    assert get(running.url, "/state.json", {"Host": f"localhost:{running.server.port}"})[0] == 200


def test_command_prints_its_address_first_and_stops_on_ctrl_c(tmp_path):
    game = make_game(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-m", "cardgen", "serve", str(game)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    try:
        first = proc.stdout.readline()
        assert first.startswith("http://127.0.0.1:") and first.endswith("/\n")
        url = first.strip()
        wait_for(lambda: state(url)["cards"])
        in_use = subprocess.run([sys.executable, "-m", "cardgen", "serve", str(game), "--port",
                                 url.rsplit(":", 1)[1].rstrip("/")], capture_output=True, text=True, env=env,
                                timeout=60)
        assert in_use.returncode == 1 and in_use.stdout == ""
        assert "is in use; choose another with --port N" in in_use.stderr
    finally:
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=20)
    assert proc.returncode == 0 and out.endswith("stopped\n")
    assert "checked in " in out and "7 cards, 0 errors, 1 warning" in out


def test_serve_help():
    r = subprocess.run([sys.executable, "-m", "cardgen", "serve", "--help"], capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=60)
    assert r.returncode == 0
    assert "Usage: python -m cardgen serve [OPTIONS] [GAME]" in r.stdout
    assert "--port N" in r.stdout and "--open" in r.stdout and "127.0.0.1" in r.stdout


# -- in a real browser -----------------------------------------------------------------------------

def _browser():
    """Headless Chromium through selenium and chromedriver, or a skip saying what is missing."""
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install selenium)")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    driver = shutil.which("chromedriver")
    if not chromium or not driver:
        why = "needs chromium and chromedriver (apt-get install chromium chromium-driver)"
        if os.environ.get("CARDGEN_REQUIRE_BROWSER"):     # CI installs them: a skip there hides a failure
            pytest.fail(why)
        pytest.skip(why)
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,2400", "--hide-scrollbars"):
        options.add_argument(arg)
    return webdriver.Chrome(options=options, service=Service(driver))


ALL_LOADED = """
const imgs = Array.from(document.querySelectorAll('#cards .grid img.side'));
return imgs.length && imgs.every(i => i.complete && i.naturalWidth > 0) ? imgs.length : 0;
"""


def test_in_a_browser_the_page_follows_an_edit_without_reloading(served, tmp_path):
    from selenium.webdriver.support.ui import WebDriverWait

    running, game = served
    browser = _browser()
    try:
        browser.get(running.url)
        wait = WebDriverWait(browser, WAIT)
        assert wait.until(lambda b: b.execute_script(ALL_LOADED)) == distinct_sides(game) == 10
        wait.until(lambda b: "live" in b.find_element("id", "status").text)
        browser.execute_script("window.__cardgenMarker = 4217;")
        old = browser.execute_script("return document.querySelector('[data-key=\"things~1\"] img.side').src")
        deck = game / "things.yaml"
        deck.write_text(deck.read_text().replace("{name: Beta,", "{name: Bravo Renamed,"))
        wait.until(lambda b: b.execute_script(
            "return document.querySelector('[data-key=\"things~1\"] .name').textContent") == "Bravo Renamed")
        assert browser.execute_script("return window.__cardgenMarker") == 4217        # not reloaded
        assert wait.until(lambda b: b.execute_script(ALL_LOADED)) == 10
        new = browser.execute_script("return document.querySelector('[data-key=\"things~1\"] img.side').src")
        assert new != old
        # a click shows the card's data and its source lines; the filter finds it by name
        browser.find_element("css selector", '[data-key="things~2"] img.side').click()
        wait.until(lambda b: "cuont: 3" in b.find_element("id", "panel").text)
        panel = browser.find_element("id", "panel").text
        assert "Gamma" in panel and "unknown key 'cuont'" in panel
        browser.find_element("id", "q").send_keys("bravo")
        shown = browser.execute_script(
            "return Array.from(document.querySelectorAll('.tile[data-key]')).filter(t => !t.hidden)"
            ".map(t => t.querySelector('.name').textContent)")
        assert shown == ["Bravo Renamed"]
        browser.find_element("id", "q").clear()
        browser.execute_script("document.getElementById('q').dispatchEvent(new Event('input'))")
        shot = tmp_path / "preview.png"
        browser.save_screenshot(str(shot))
        with Image.open(shot) as im:
            assert im.size[0] >= 1000
        if os.environ.get("CARDGEN_SCREENSHOT"):
            shutil.copy(shot, os.environ["CARDGEN_SCREENSHOT"])
    finally:
        browser.quit()


def test_the_preview_has_the_colour_vision_control(served):
    """The live page is made from the gallery's template: the same control and the same four
    filters (the readability check's matrices), applied by the page's own script and style."""
    running, _ = served
    html = get(running.url, "/")[2].decode()
    page = parse(html)
    (vision,) = [n for n in page.iter() if n.attrs.get("id") == "vision"]
    assert [o.attrs["value"] for o in vision.find_all("option")] == ["", "protanopia", "deuteranopia",
                                                                      "tritanopia", "greyscale"]
    assert html.count("<feColorMatrix") == 4
    assert b"vision" in get(running.url, "/static/filter.js")[2]
    assert b"url(#vision-deuteranopia)" in get(running.url, "/static/preview.css")[2]


def test_serve_set_previews_a_build_variant(tmp_path):
    root = tmp_path / "g"
    (root / "templates" / "g").mkdir(parents=True)
    (root / "game.yaml").write_text('title: Sets\npalette: {accent: "#ff0000"}\n')
    (root / "templates" / "g" / "face.yaml").write_text(
        'elements:\n  - {name: bg, type: rect, box: bleed, fill: "{{ game.palette.accent }}"}\n')
    (root / "d.yaml").write_text("deck: D\ntemplate: g/face\ncards:\n  - {name: One}\n")
    for sets, colour in (((), (255, 0, 0)), (("palette.accent=#0000ff",), (0, 0, 255))):
        running = Running(root, root, port=0, out=tmp_path / "out", sets=sets)
        try:
            cards = wait_for(lambda running=running: state(running.url)["cards"])
            _, _, data = get(running.url, cards[0]["face"])
            with Image.open(io.BytesIO(data)) as im:
                assert im.convert("RGB").getpixel((187, 300)) == colour
        finally:
            running.close()


def _two_language_game(root: Path) -> Path:
    """A game in English and German: one card, `One` / `Eins`, with a `text:` field and no back."""
    (root / "templates" / "g").mkdir(parents=True)
    (root / "game.yaml").write_text("title: Words\ntitle@de: Wörter\nlanguages: [en, de]\n")
    (root / "templates" / "g" / "face.yaml").write_text(
        'elements:\n  - {name: t, type: text, box: safe, text: "{{ card.name }}"}\n')
    (root / "d.yaml").write_text("deck: D\ndeck@de: Stapel D\ntemplate: g/face\n"
                                 "cards:\n  - {name: One, name@de: Eins, count: 2}\n")
    return root


def test_serve_lang_previews_a_language_with_its_texts_and_words(tmp_path):
    """`cardgen serve --lang de`: the German card texts, and the page's own words in German."""
    root = _two_language_game(tmp_path / "g")
    seen = {}
    for lang in (None, "de", "fr"):
        running = Running(root, root, port=0, out=tmp_path / "out", lang=lang)
        try:
            got = wait_for(lambda running=running: (s := state(running.url))["cards"] or s["errors"])
            _, _, page = get(running.url, "/")
            seen[lang] = (got, state(running.url), page.decode())
        finally:
            running.close()
    _, en, en_page = seen[None]
    _, de, de_page = seen["de"]
    assert [(c["name"], c["deck"]) for c in en["cards"]] == [("One", "D")] and en["title"] == "Words"
    assert [(c["name"], c["deck"]) for c in de["cards"]] == [("Eins", "Stapel D")] and de["title"] == "Wörter"
    assert '<html lang="en">' in en_page and "2 cards · 1 distinct · 1 deck" in en_page and "All decks" in en_page
    for said in ('<html lang="de">', "<title>Wörter · Vorschau</title>", "2 Karten · 1 verschiedene · 1 Stapel",
                 "Alle Stapel", "Mit Problemen", "Eins (Vorderseite)"):
        assert said in de_page, said
    assert "All decks" not in de_page
    fr = seen["fr"][1]
    assert fr["cards"] == [] and any("--lang fr: not one of game.yaml's `languages:` (en, de)" in e
                                     for e in fr["errors"]), fr["errors"]


def test_in_a_browser_the_german_preview_speaks_german(tmp_path):
    """The live page's own script (its status line, the card panel) says its words in the
    language previewed, as the page does."""
    from selenium.webdriver.support.ui import WebDriverWait

    root = _two_language_game(tmp_path / "g")
    running = Running(root, root, port=0, out=tmp_path / "out", lang="de")
    browser = _browser()
    try:
        wait_for(lambda: state(running.url)["cards"])
        browser.get(running.url)
        wait = WebDriverWait(browser, WAIT)
        assert wait.until(lambda b: b.execute_script(ALL_LOADED)) == 1
        wait.until(lambda b: b.find_element("id", "status").text == "live · keine Probleme")
        assert browser.find_element("css selector", "a.to-table").text == "Tisch"
        browser.find_element("css selector", ".tile[data-key] img.side").click()
        wait.until(lambda b: "Eins" in b.find_element("id", "panel").text)
        panel = browser.find_element("id", "panel")
        assert [h.get_attribute("textContent") for h in panel.find_elements("css selector", "h3")] == ["Daten", "Quelle"]
        img = panel.find_element("css selector", ".pics img")
        assert (img.get_attribute("title"), img.get_attribute("alt")) == ("In voller Größe zeigen", "Eins (Vorderseite)")
        browser.find_element("id", "q").send_keys("eins")
        assert browser.find_element("id", "shown").text == "1 von 1 gezeigt"
    finally:
        browser.quit()
        running.close()


def post(url: str, path: str, body: bytes, headers: dict | None = None) -> tuple[int, bytes]:
    host, port = url.removeprefix("http://").rstrip("/").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        conn.request("POST", path, body=body, headers=headers or {})
        r = conn.getresponse()
        return r.status, r.read()
    finally:
        conn.close()


def test_the_language_list_switches_the_preview_from_its_own_page_only(tmp_path):
    root = _two_language_game(tmp_path / "g")
    running = Running(root, root, port=0, out=tmp_path / "out")
    try:
        wait_for(lambda: state(running.url)["cards"])
        page = get(running.url, "/")[2].decode()
        assert '<select id="lang"' in page and '<option value="en" selected>en</option>' in page
        assert '<option value="de">de</option>' in page and '<option value="qps">qps</option>' in page
        mine = {"Origin": running.url.rstrip("/")}
        assert post(running.url, "/lang", b"de")[0] == 403                       # no Origin: not a page of it
        assert post(running.url, "/lang", b"de", {"Origin": "http://evil.example"})[0] == 403
        assert post(running.url, "/other", b"de", mine)[0] == 404
        assert post(running.url, "/lang", b"fr", mine) == (400, b"'fr' is not one of the game's languages "
                                                                b"(en, de, qps)\n")
        assert post(running.url, "/lang", b"x" * 40, mine)[0] == 400
        assert [c["name"] for c in state(running.url)["cards"]] == ["One"]         # none of these switched it
        assert post(running.url, "/lang", b"DE", mine) == (204, b"")
        assert [c["name"] for c in state(running.url)["cards"]] == ["Eins"]
        page = get(running.url, "/")[2].decode()
        assert '<html lang="de">' in page and '<option value="de" selected>de</option>' in page
        assert get(running.url, "/lang")[0] == 404
    finally:
        running.close()


def test_in_a_browser_the_language_list_reloads_the_page_in_german(tmp_path):
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import Select, WebDriverWait

    root = _two_language_game(tmp_path / "g")
    running = Running(root, root, port=0, out=tmp_path / "out")
    browser = _browser()
    try:
        wait_for(lambda: state(running.url)["cards"])
        browser.get(running.url)
        # the page reloads itself in the chosen language: an element found just before that is gone
        wait = WebDriverWait(browser, WAIT, ignored_exceptions=(StaleElementReferenceException,))
        wait.until(lambda b: b.find_element("id", "status").text == "live · no problems")
        Select(browser.find_element("id", "lang")).select_by_value("de")
        wait.until(lambda b: b.find_element("id", "status").text == "live · keine Probleme")
        assert browser.execute_script("return document.documentElement.lang") == "de"
        assert browser.find_element("css selector", ".tile[data-key] .name").text == "Eins"
        assert Select(browser.find_element("id", "lang")).first_selected_option.text == "de"
    finally:
        browser.quit()
        running.close()


# -- the table (/table) ----------------------------------------------------------------------------

SPELLS = {"Fire": ("Attack", 3, "#dd4422"), "Ice": ("Attack", 2, "#55aadd"), "Heal": ("Support", 4, "#55bb66"),
          "Shield": ("Support", 1, "#bbbbbb"), "Wild": ("Any", 1, "#aa66cc")}


def spells_game(root: Path) -> Path:
    from pages import BACK, FACE

    game = root / "spells"
    (game / "templates").mkdir(parents=True)
    (game / "game.yaml").write_text("title: Spells\n")
    (game / "templates" / "face.yaml").write_text(FACE)
    (game / "templates" / "back.yaml").write_text(BACK)
    cards = "".join(f'  - {{name: {n}, type: {t}, count: {k}, color: "{c}"}}\n' for n, (t, k, c) in SPELLS.items())
    (game / "spells.yaml").write_text(f"deck: Spells\ntemplate: face\nback: back\ncards:\n{cards}")
    return game


def at_least(N: int, K: int, n: int, k: int) -> Fraction:
    """P(at least k of K marked cards among the first n of N), the hypergeometric tail."""
    return sum((Fraction(comb(K, i) * comb(N - K, n - i), comb(N, n)) for i in range(k, min(K, n) + 1)), Fraction(0))


def shown_percent(p: Fraction) -> str:
    """As the table shows it: hundredths of a percent, rounded half up."""
    q = math.floor(p * 10000 + Fraction(1, 2))
    return f"{q // 100}.{q % 100:02d} %"


def test_table_json_describes_each_deck_its_copies_and_kinds(tmp_path):
    game = spells_game(tmp_path)
    running = Running(game, game, port=0)
    try:
        wait_for(lambda: state(running.url)["cards"])
        status, headers, body = get(running.url, "/table.json")
        assert status == 200 and headers["content-type"] == "application/json; charset=utf-8"
        (deck,) = json.loads(body)["decks"]
        assert [(c["name"], c["count"]) for c in deck["cards"]] == [(n, v[1]) for n, v in SPELLS.items()]
        images = set(state(running.url)["images"])
        assert all(c["face"] in images and c["back"] in images for c in deck["cards"])   # the preview's bitmaps
        assert [(g["field"], g["value"], g["count"]) for g in deck["kinds"]] == [("type", "Attack", 5),
                                                                              ("type", "Support", 5)]
        status, headers, page = get(running.url, "/table")
        assert status == 200 and "default-src 'none'" in headers["content-security-policy"]
        assert b"http" not in page and b"/static/table.js" in page                # nothing from elsewhere
        assert get(running.url, "/static/table.js")[0] == get(running.url, "/static/table.css")[0] == 200
        assert get(running.url, "/table", {"Host": "evil.example:80"})[0] == 403
    finally:
        running.close()


def test_in_a_browser_the_table_shuffles_draws_flips_and_gives_exact_odds(tmp_path):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.support.ui import WebDriverWait

    game = spells_game(tmp_path)
    running = Running(game, game, port=0)
    browser = _browser()
    try:
        wait_for(lambda: state(running.url)["cards"])
        browser.get(running.url + "table")
        wait = WebDriverWait(browser, WAIT)
        wait.until(lambda b: b.execute_script("return document.body.dataset.ready"))

        def count(zone: str) -> int:
            return int(browser.find_element("css selector", f'[data-zone="{zone}"] .count').text)

        N = sum(v[1] for v in SPELLS.values())
        assert (count("deck:spells"), count("hand:1"), count("discard:spells"), count("play")) == (N, 0, 0, 0)
        order = browser.execute_script("return cardgenTable.order('spells')")
        assert order == [k for i, v in enumerate(SPELLS.values()) for k in [f"spells~{i}"] * v[1]]  # file order
        # a seeded shuffle: the same seed, the same order; another seed, another one
        seed = browser.find_element("id", "seed")
        orders = []
        for text in ("42", "42", "7"):
            seed.clear()
            seed.send_keys(text)                       # the table starts again as the seed is typed
            browser.find_element("xpath", '//div[@data-deck="spells"]//button[text()="Shuffle"]').click()
            orders.append(browser.execute_script("return cardgenTable.order('spells')"))
        assert orders[0] == orders[1] != orders[2] and sorted(orders[0]) == sorted(order) and orders[0] != order
        # draw 5: the pile loses five, the hand holds its top five, face up
        top5 = orders[2][:5]
        browser.find_element("xpath", '//div[@data-deck="spells"]//button[text()="Draw"]').click()
        assert (count("deck:spells"), count("hand:1")) == (N - 5, 5)
        hand = browser.find_elements("css selector", '[data-zone="hand:1"] img.card')
        faces = {c["key"]: c for c in json.loads(get(running.url, "/table.json")[2])["decks"][0]["cards"]}
        assert [i.get_attribute("data-side") for i in hand] == ["face"] * 5
        assert [i.get_attribute("src").removeprefix(running.url.rstrip("/")) for i in hand] == \
            [faces[k]["face"] for k in top5]
        # flip: the card shows the deck's back
        ActionChains(browser).double_click(hand[0]).perform()
        first = browser.find_element("css selector", '[data-zone="hand:1"] img.card')
        assert first.get_attribute("data-side") == "back"
        assert first.get_attribute("src").endswith(faces[top5[0]]["back"])
        # move: select a card in the hand, click the discard pile
        browser.find_elements("css selector", '[data-zone="hand:1"] img.card')[1].click()
        browser.find_element("css selector", '[data-zone="discard:spells"]').click()
        assert (count("hand:1"), count("discard:spells"), count("deck:spells")) == (4, 1, N - 5)
        # the odds panel: each card and kind, at least k in the first n, against fractions and math.comb
        for n, k in ((5, 1), (7, 2), (11, 1), (3, 3)):
            for name, value in (("odds-n", n), ("odds-k", k)):
                box = browser.find_element("id", name)
                box.clear()
                box.send_keys(str(value))
            rows = browser.execute_script(
                "return Array.from(document.querySelectorAll('.odds-deck tr')).map(r => "
                "[r.dataset.kind || r.dataset.key, r.querySelector('.chance').textContent, "
                "r.querySelector('.chance').dataset.exact])")
            want = [("type=Attack", 5), ("type=Support", 5)] + [(f"spells~{i}", v[1]) for i, v in
                                                                  enumerate(SPELLS.values())]
            assert len(rows) == len(want)
            for (what, shown, exact), (label, K) in zip(rows, want):
                p = at_least(N, K, n, k)
                assert what == label and exact == f"{p.numerator}/{p.denominator}" and shown == shown_percent(p)
        # big numbers stay exact (BigInt binomials): a 400-card deck
        p = at_least(400, 37, 60, 4)
        assert browser.execute_script("return cardgenTable.atLeast(400, 37, 60, 4)") == \
            f"{p.numerator}/{p.denominator}"
        browser.find_element("id", "odds-n").clear()
        browser.find_element("id", "odds-n").send_keys("5")
        browser.find_element("id", "odds-k").clear()
        browser.find_element("id", "odds-k").send_keys("1")
        shot = tmp_path / "table.png"
        browser.save_screenshot(str(shot))
        if os.environ.get("CARDGEN_SCREENSHOT_TABLE"):
            shutil.copy(shot, os.environ["CARDGEN_SCREENSHOT_TABLE"])
    finally:
        browser.quit()
        running.close()
