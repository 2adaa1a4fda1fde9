"""A sheet server on 127.0.0.1 for the tests of fetched Google Sheets, and a way to reach it
as if it were on the internet: names resolve (in the test only) to public-looking addresses,
and the connection cardgen makes to the checked address is sent to the local server, without
TLS.  cardgen's own address checks see only the public addresses; nothing else is contacted.
"""
from __future__ import annotations

import http.server
import socket
import threading
import time
import urllib.parse
from typing import ClassVar

SHEET = "name,count,text\nA,2,From the web\nB,1,Again\n"
PUBLIC = "93.184.216.34"        # what the test names resolve to (never connected to)


class Handler(http.server.BaseHTTPRequestHandler):
    hits: ClassVar[list[str]] = []

    def _send(self, code: int, body: bytes, ctype: str = "text/csv; charset=utf-8", **headers: str) -> None:
        try:
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            for k, v in headers.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)
        except OSError:
            pass

    def do_GET(self):
        type(self).hits.append(self.path)
        path, _, query = self.path.partition("?")
        if path.startswith("/ok"):
            self._send(200, SHEET.encode())
        elif path.startswith("/html"):
            self._send(200, b"<!DOCTYPE html><html>Sign in</html>", "text/html")
        elif path.startswith("/slow"):
            time.sleep(5.0)           # far past every test's deadline, so a deadline not kept shows
            self._send(200, SHEET.encode())
        elif path.startswith("/redirect"):
            to = urllib.parse.parse_qs(query)["to"][0]
            self._send(302, b"", "text/plain", Location=to)
        elif path.startswith("/huge"):
            try:
                self.send_response(200)
                self.send_header("Content-Type", "text/csv")
                self.send_header("Content-Length", str(10 ** 12))
                self.end_headers()
            except OSError:
                pass
        elif path.startswith("/endless"):             # no length: more than any limit, sent fast
            try:
                self.send_response(200)
                self.send_header("Content-Type", "text/csv")
                self.end_headers()
                self.wfile.write(b"name\n")
                while True:
                    self.wfile.write(b"x" * 65536 + b"\n")
            except OSError:
                pass
        elif path.startswith("/drip"):                # one byte every two seconds, for ever
            try:
                self.send_response(200)
                self.send_header("Content-Type", "text/csv")
                self.send_header("Content-Length", "1000000")
                self.end_headers()
                self.wfile.flush()
                while True:
                    self.wfile.write(b"x")
                    self.wfile.flush()
                    time.sleep(2.0)
            except OSError:
                pass
        elif path.startswith("/headdrip"):            # even the status line, a byte at a time
            try:
                for ch in b"HTTP/1.1 200 OK\r\nX-Slow: " + b"y" * 1000:
                    self.wfile.write(bytes([ch]))
                    self.wfile.flush()
                    time.sleep(0.5)
            except OSError:
                pass
        else:
            self._send(404, b"nope", "text/plain")

    def log_message(self, *args):
        pass


class Server(http.server.ThreadingHTTPServer):
    """The local server; `accepted` counts the connections it took."""

    daemon_threads = True
    accepted = 0

    def get_request(self):
        got = super().get_request()
        self.accepted += 1
        return got


def start() -> Server:
    Handler.hits = []
    srv = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
    return srv


def stop(srv: Server) -> None:
    srv.shutdown()
    srv.server_close()


def route(monkeypatch, srv: Server | None, names: dict[str, list[str]] | None = None) -> list[tuple]:
    """Within the test: `names` (default: sheets.example.test) resolve to the addresses given
    (other names do not resolve: no name is ever looked up for real), numeric hosts as usual;
    cardgen's connection to a checked address goes to `srv` (None: fails) with no TLS.
    Returns the socket addresses cardgen connected to, in order."""
    from cardgen.load import sheetfetch

    names = {"sheets.example.test": [PUBLIC], **(names or {})}
    real = socket.getaddrinfo
    connected: list[tuple] = []

    def getaddrinfo(host, port, family=0, type=0, proto=0, flags=0):
        if isinstance(host, str) and host.lower().rstrip(".") in names:
            out = []
            for ip in names[host.lower().rstrip(".")]:
                fam = socket.AF_INET6 if ":" in ip else socket.AF_INET
                out.append((fam, socket.SOCK_STREAM, 6, "", (ip, port, 0, 0) if ":" in ip else (ip, port)))
            return out
        return real(host, port, family, type, proto, flags | socket.AI_NUMERICHOST)

    def connect(family, sockaddr, timeout):
        connected.append(sockaddr)
        if srv is None:
            raise ConnectionRefusedError(111, "Connection refused")
        return socket.create_connection(("127.0.0.1", srv.server_port), timeout=timeout)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setattr(sheetfetch, "_connect", connect)
    monkeypatch.setattr(sheetfetch, "_tls", lambda sock, host: sock)
    return connected
