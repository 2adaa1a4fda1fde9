"""The preview's web server: the standard library's `ThreadingHTTPServer`, bound to
127.0.0.1 only, answering GET and HEAD for a fixed set of addresses.

    /                   the page (every card, the problems, the filter)
    /fragment           the page's changing part, for the page to swap in when told
    /events             server-sent events: `update` with the new version after every change
    /state.json         the cards and their images, as data (tests, scripts)
    /card/<key>.json    one card: its data, its source lines, its problems
    /img/<id>.png       a card side as the page shows it; /full/<id>.png at print resolution
    /static/<name>      the page's own style sheet and scripts

Images are served by content hash, and only those of the newest check; any other address,
a `..` included, is 404.  Requests naming another host than 127.0.0.1 or localhost are
refused, so a web page elsewhere cannot read the preview through a DNS trick.  Pages carry
a content security policy allowing nothing but this server.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

from cardgen.core.errors import escape_controls
from cardgen.outputs import album as A
from cardgen.serve.preview import Preview

HOST = "127.0.0.1"
STATIC = {"preview.css": "text/css; charset=utf-8", "filter.js": "text/javascript; charset=utf-8",
          "live.js": "text/javascript; charset=utf-8"}
CSP = ("default-src 'none'; img-src 'self'; style-src 'self'; script-src 'self'; connect-src 'self'; "
       "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
IMAGE = re.compile(r"/(img|full)/([0-9a-f]{16,64})\.png")
CARD = re.compile(r"/card/([^/]+)\.json")
PING_EVERY = 15.0            # seconds between keep-alive comments on the event stream


class PreviewServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = False

    def __init__(self, preview: Preview, port: int = 0):
        self.preview = preview
        super().__init__((HOST, port), Handler)

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}/"


class Handler(BaseHTTPRequestHandler):
    server: PreviewServer
    server_version = "cardgen-preview"
    sys_version = ""

    def log_message(self, format, *args):   # quiet: the terminal shows what changed, not every request
        pass

    # -- answering ----------------------------------------------------------------------------------
    def do_HEAD(self):
        self._answer(head=True)

    def do_GET(self):
        self._answer(head=False)

    def _answer(self, head: bool) -> None:
        try:
            self._route(head)
        except ConnectionError:
            pass                                 # the browser went away
        except Exception as exc:                 # a cardgen bug: one answer, one line, the server lives on
            if os.environ.get("CARDGEN_DEBUG"):
                raise
            sys.stderr.write(f"preview: internal error on {escape_controls(self.path[:200])} "
                             f"({type(exc).__name__}: {escape_controls(str(exc))})\n")
            with contextlib.suppress(Exception):
                self._send(HTTPStatus.INTERNAL_SERVER_ERROR, b"internal error\n", "text/plain; charset=utf-8", head)

    def _route(self, head: bool) -> None:
        if not self._host_ok():
            self._send(HTTPStatus.FORBIDDEN, b"wrong host\n", "text/plain; charset=utf-8", head)
            return
        path = unquote(urlsplit(self.path).path)
        preview = self.server.preview
        snap = preview.snapshot
        if path == "/events" and not head:
            self._events()
            return
        if path in ("/", "/index.html"):
            html = A.page_html(snap.album, A.Page(live=True, errors=snap.errors, stale=snap.stale,
                                                  version=snap.version), snap.title, snap.body)
            self._send(HTTPStatus.OK, html.encode(), "text/html; charset=utf-8", head, version=snap.version)
            return
        if path == "/fragment":
            self._send(HTTPStatus.OK, snap.body.encode(), "text/html; charset=utf-8", head, version=snap.version)
            return
        if path == "/state.json":
            self._json(state(snap), head, snap.version)
            return
        m = CARD.fullmatch(path)
        if m and m.group(1) in snap.cards:
            view = snap.cards[m.group(1)]
            assert snap.game is not None
            self._json(A.card_detail(view, snap.game, snap.backs.get(view.key)), head, snap.version)
            return
        m = IMAGE.fullmatch(path)
        if m:
            data = preview.image(m.group(2), full=m.group(1) == "full")
            if data is not None:
                self._send(HTTPStatus.OK, data, "image/png", head, cache="public, max-age=31536000, immutable")
                return
        name = path.removeprefix("/static/")
        if path.startswith("/static/") and name in STATIC:
            self._send(HTTPStatus.OK, A.asset(name).encode(), STATIC[name], head)
            return
        self._send(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain; charset=utf-8", head)

    def _host_ok(self) -> bool:
        host = self.headers.get("Host")
        return host is None or host in (f"{HOST}:{self.server.port}", f"localhost:{self.server.port}")

    def _headers(self, status: HTTPStatus, ctype: str, length: int | None, cache: str = "no-store",
                 version: int | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        if length is not None:
            self.send_header("Content-Length", str(length))
        self.send_header("Cache-Control", cache)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        if ctype.startswith("text/html"):
            self.send_header("Content-Security-Policy", CSP)
        if version is not None:
            self.send_header("X-Cardgen-Version", str(version))
        self.end_headers()

    def _send(self, status: HTTPStatus, body: bytes, ctype: str, head: bool, cache: str = "no-store",
              version: int | None = None) -> None:
        self._headers(status, ctype, len(body), cache, version)
        if not head:
            with contextlib.suppress(ConnectionError):
                self.wfile.write(body)

    def _json(self, data: dict, head: bool, version: int) -> None:
        self._send(HTTPStatus.OK, json.dumps(data, ensure_ascii=False).encode(), "application/json; charset=utf-8",
                   head, version=version)

    def _events(self) -> None:
        """Server-sent events: the current version at once, then every new one."""
        preview = self.server.preview
        self._headers(HTTPStatus.OK, "text/event-stream; charset=utf-8", None)
        seen = -1
        try:
            self.wfile.write(b"retry: 1000\n\n")
            while not preview.closing.is_set():
                snap = preview.wait_newer(seen, PING_EVERY)
                if preview.closing.is_set():
                    break
                if snap.version != seen:
                    seen = snap.version
                    self.wfile.write(f"event: update\ndata: {json.dumps(snap.event())}\n\n".encode())
                else:
                    self.wfile.write(b": still here\n\n")
                self.wfile.flush()
        except (ConnectionError, OSError):
            return


def state(snap) -> dict:
    """The newest check as data: every card with its image addresses and problems."""
    cards = []
    for key, view in snap.cards.items():
        back = snap.backs.get(key)
        cards.append({"key": key, "deck": A.clean(view.deck.name), "name": A.clean(view.name), "count": view.count,
                      "face": view.face.src, "back": back.src if back is not None else "",
                      "problems": [p.text() for p in view.problems]})
    return {"version": snap.version, "title": A.clean(snap.title), "stale": snap.stale,
            "errors": [p.text() for p in snap.errors], "cards": cards,
            "images": sorted(f"/img/{i}.png" for i in snap.sides)}


class Running:
    """A preview being served: the server in one thread, the watcher in another."""

    def __init__(self, game: Path, project: Path, port: int = 0, out: Path | None = None, watch: bool = True):
        self.preview = Preview(game, project, out)
        self.server = PreviewServer(self.preview, port)
        self.url = self.server.url
        self._threads = [threading.Thread(target=self.server.serve_forever, name="cardgen-serve", daemon=True)]
        if watch:
            self._threads.append(threading.Thread(target=self.preview.watch, name="cardgen-watch", daemon=True))
        for t in self._threads:
            t.start()

    def wait(self) -> None:
        """Until Ctrl-C (KeyboardInterrupt) or `close()`."""
        while any(t.is_alive() for t in self._threads):
            for t in self._threads:
                t.join(0.5)

    def close(self) -> None:
        self.preview.close()
        self.server.shutdown()
        self.server.server_close()
        for t in self._threads:
            t.join(5)
