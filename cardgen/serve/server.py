"""The preview's web server: the standard library's `ThreadingHTTPServer`, bound to
127.0.0.1 only, answering GET and HEAD for a fixed set of addresses, and one POST.

    /                   the page (every card, the problems, the filter)
    /fragment           the page's changing part, for the page to swap in when told
    /events             server-sent events: `update` with the new version after every change
    /state.json         the cards and their images, as data (tests, scripts)
    /card/<key>.json    one card: its data, its source lines, its problems
    /img/<id>.png       a card side as the page shows it; /full/<id>.png at print resolution
    /static/<name>      the page's own style sheet and scripts
    /table              the table: shuffle, deal, draw, flip, move cards, draw odds (all in the page)
    /table.json         what the table needs of the game: each deck's cards, copies, pictures, kinds
    POST /lang          the page's language list: show the game in the language the body names
                        (one of game.yaml's `languages:`), from a page of this server only (`Origin`)

Images are served by content hash, and only those of the newest check; any other address,
a `..` included, is 404.  Requests naming another host than 127.0.0.1 or localhost are
refused, so a web page elsewhere cannot read the preview through a DNS trick.  Pages carry
a content security policy allowing nothing but this server.

Connections are bounded (`cardgen.core.limits`, docs/security.md), so that connections left
open and idle, by a stalled tab or a hostile page, never keep others out: a connection has
CARDGEN_MAX_PREVIEW_HEAD_SECONDS to send its request and CARDGEN_MAX_PREVIEW_SEND_SECONDS to take
the answer; at most CARDGEN_MAX_PREVIEW_CONNECTIONS are open at once, and a new one that would
pass that closes the oldest still waiting for its request (or, if none is, is told 503); at
most CARDGEN_MAX_PREVIEW_STREAMS event streams are open, a new one ending the oldest.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import select
import socket
import sys
import threading
import time
from collections.abc import Sequence
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

from cardgen.core import limits
from cardgen.core.errors import escape_controls
from cardgen.outputs import album as A
from cardgen.serve.preview import Preview
from cardgen.serve.table import table_state

HOST = "127.0.0.1"
STATIC = {"preview.css": "text/css; charset=utf-8", "filter.js": "text/javascript; charset=utf-8",
          "live.js": "text/javascript; charset=utf-8", "table.js": "text/javascript; charset=utf-8",
          "table.css": "text/css; charset=utf-8"}
CSP = ("default-src 'none'; img-src 'self'; style-src 'self'; script-src 'self'; connect-src 'self'; "
       "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
IMAGE = re.compile(r"/(img|full)/([0-9a-f]{16,64})\.png")
CARD = re.compile(r"/card/([^/]+)\.json")
MAX_LANG_BODY = 32           # bytes: POST /lang's body, a language code
PING_EVERY = 15.0            # seconds between keep-alive comments on the event stream
STREAM_LOOK_EVERY = 1.0      # seconds between looks at whether an event stream's page has gone


BUSY = (b"HTTP/1.0 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nRetry-After: 1\r\n"
        b"Connection: close\r\nContent-Length: 32\r\n\r\ntoo many connections; try again\n")


class PreviewServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = False

    def __init__(self, preview: Preview, port: int = 0):
        self.preview = preview
        self._guard = threading.RLock()
        # every open connection -> the time by which its request must have arrived (None once it has)
        self._open: dict[socket.socket, float | None] = {}
        self._streams: list[Handler] = []            # open event streams, oldest first
        super().__init__((HOST, port), Handler)

    # -- bounding connections ---------------------------------------------------------------------
    def process_request(self, request, client_address) -> None:
        with self._guard:
            full = len(self._open) >= limits.MAX_PREVIEW_CONNECTIONS
            waiting = [(deadline, s) for s, deadline in self._open.items() if deadline is not None] if full else []
            if waiting:
                self._drop(min(waiting, key=lambda w: w[0])[1])
            if not full or waiting:
                self._open[request] = time.monotonic() + limits.MAX_PREVIEW_HEAD_SECONDS
        if full and not waiting:
            self._busy(request)
            return
        super().process_request(request, client_address)

    def _busy(self, request: socket.socket) -> None:
        with contextlib.suppress(OSError):
            request.settimeout(1.0)
            request.sendall(BUSY)
        self.shutdown_request(request)

    def _drop(self, conn: socket.socket) -> None:
        """Close `conn` under its handler (whose next read ends); the caller holds `_guard`."""
        self._open.pop(conn, None)
        with contextlib.suppress(OSError):
            conn.shutdown(socket.SHUT_RDWR)

    def request_read(self, conn: socket.socket) -> None:
        with self._guard:
            if conn in self._open:
                self._open[conn] = None

    def shutdown_request(self, request) -> None:
        with self._guard:
            self._open.pop(request, None)
        super().shutdown_request(request)

    def service_actions(self) -> None:
        """Every half second (serve_forever's poll): close the connections whose request is late."""
        now = time.monotonic()
        with self._guard:
            for conn, deadline in list(self._open.items()):
                if deadline is not None and now > deadline:
                    self._drop(conn)

    def stream_opened(self, handler: Handler) -> None:
        with self._guard:
            self._streams.append(handler)
            while len(self._streams) > limits.MAX_PREVIEW_STREAMS:
                oldest = self._streams.pop(0)
                oldest.ended.set()
                self._drop(oldest.connection)
        self.preview.wake()

    def stream_closed(self, handler: Handler) -> None:
        with self._guard:
            if handler in self._streams:
                self._streams.remove(handler)

    @property
    def open_connections(self) -> int:
        with self._guard:
            return len(self._open)

    @property
    def open_streams(self) -> int:
        with self._guard:
            return len(self._streams)

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

    def setup(self) -> None:
        self.ended = threading.Event()
        super().setup()
        self.connection.settimeout(limits.MAX_PREVIEW_HEAD_SECONDS)   # each read; the server bounds the request

    def parse_request(self) -> bool:
        ok = super().parse_request()
        if ok:
            self.server.request_read(self.connection)
            self.connection.settimeout(limits.MAX_PREVIEW_SEND_SECONDS)
        return ok

    def log_message(self, format, *args):   # quiet: the terminal shows what changed, not every request
        pass

    # -- answering ----------------------------------------------------------------------------------
    def do_HEAD(self):
        self._answer(head=True)

    def do_GET(self):
        self._answer(head=False)

    def do_POST(self):
        self._answer(head=False, post=True)

    def _answer(self, head: bool, post: bool = False) -> None:
        try:
            self._post() if post else self._route(head)
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
                                                  version=snap.version, words=snap.words, lang=snap.lang,
                                                  languages=snap.languages), snap.title, snap.body)
            self._send(HTTPStatus.OK, html.encode(), "text/html; charset=utf-8", head, version=snap.version)
            return
        if path == "/fragment":
            self._send(HTTPStatus.OK, snap.body.encode(), "text/html; charset=utf-8", head, version=snap.version)
            return
        if path == "/table":
            self._send(HTTPStatus.OK, A.asset("table.html").encode(), "text/html; charset=utf-8", head,
                       version=snap.version)
            return
        if path == "/table.json":
            self._json(table_state(snap), head, snap.version)
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

    def _post(self) -> None:
        """POST /lang, from a page of this server: the preview shows the language the body names
        (every open page is told, and reloads in it)."""
        plain = "text/plain; charset=utf-8"
        origins = {f"http://{HOST}:{self.server.port}", f"http://localhost:{self.server.port}"}
        if not self._host_ok() or self.headers.get("Origin") not in origins:
            self._send(HTTPStatus.FORBIDDEN, b"not from this preview's page\n", plain, False)
            return
        if unquote(urlsplit(self.path).path) != "/lang":
            self._send(HTTPStatus.NOT_FOUND, b"not found\n", plain, False)
            return
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if not 0 < length <= MAX_LANG_BODY:
            self._send(HTTPStatus.BAD_REQUEST, b"the body names a language code\n", plain, False)
            return
        why = self.server.preview.switch(self.rfile.read(length).decode("utf-8", "replace").strip())
        if why is not None:
            self._send(HTTPStatus.BAD_REQUEST, escape_controls(why).encode() + b"\n", plain, False)
            return
        self._send(HTTPStatus.NO_CONTENT, b"", plain, False)

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
        """Server-sent events: the current version at once, then every new one, until the page
        goes away (noticed within a second) or a newer stream passes CARDGEN_MAX_PREVIEW_STREAMS."""
        preview = self.server.preview
        seen = -1
        # (counted before the page has its headers: streams end oldest first in the order the
        # pages saw them open, whatever order the handlers' threads run in)
        self.server.stream_opened(self)
        try:
            self._headers(HTTPStatus.OK, "text/event-stream; charset=utf-8", None)
            self.wfile.write(b"retry: 1000\n\n")
            self.wfile.flush()
            pinged = time.monotonic()
            while not preview.closing.is_set() and not self.ended.is_set():
                snap = preview.wait_newer(seen, STREAM_LOOK_EVERY, self.ended)
                if preview.closing.is_set() or self.ended.is_set() or self._gone():
                    break
                if snap.version != seen:
                    seen = snap.version
                    self.wfile.write(f"event: update\ndata: {json.dumps(snap.event())}\n\n".encode())
                elif time.monotonic() - pinged >= PING_EVERY:
                    self.wfile.write(b": still here\n\n")
                else:
                    continue
                self.wfile.flush()
                pinged = time.monotonic()
        except (ConnectionError, OSError):
            return
        finally:
            self.server.stream_closed(self)

    def _gone(self) -> bool:
        """Whether the page closed its end of the stream (it sends nothing once it has asked)."""
        try:
            ready, _, _ = select.select([self.connection], [], [], 0)
            return bool(ready) and self.connection.recv(1, socket.MSG_PEEK) == b""
        except (OSError, ValueError):
            return True


def state(snap) -> dict:
    """The newest check as data: every card with its image addresses and problems."""
    cards = []
    for key, view in snap.cards.items():
        back = snap.backs.get(key)
        cards.append({"key": key, "deck": A.clean(view.deck.title), "name": A.clean(view.name), "count": view.count,
                      "face": view.face.src, "back": back.src if back is not None else "",
                      "problems": [p.text() for p in view.problems]})
    return {"version": snap.version, "title": A.clean(snap.title), "stale": snap.stale,
            "errors": [p.text() for p in snap.errors], "cards": cards,
            "images": sorted(f"/img/{i}.png" for i in snap.sides)}


class Running:
    """A preview being served: the server in one thread, the watcher in another."""

    def __init__(self, game: Path, project: Path, port: int = 0, out: Path | None = None, watch: bool = True,
                 sets: Sequence[str] = (), lang: str | None = None):
        self.preview = Preview(game, project, out, sets, lang)
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

    def close(self) -> bool:
        """Stop serving and watching; True once every thread has ended (False: one is still in
        the middle of a check or a drawing after 5 s each)."""
        self.preview.close()
        self.server.shutdown()
        self.server.server_close()
        for t in self._threads:
            t.join(5)
        return not any(t.is_alive() for t in self._threads)
