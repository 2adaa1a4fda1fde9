"""A fake of The Game Crafter's API on 127.0.0.1 for the tests of `cardgen upload tgc`: the
calls cardgen makes (../shared/reference/tables-and-services-facts.md §5), answered in TGC's
envelope (`{"result": ...}` / `{"error": {...}}`), objects kept in memory, every request
recorded (method, path, fields, uploaded files), checking what it receives: a session on
every call but the sign-in, the fields each object needs, ids that exist, files that are PNGs.
"""
from __future__ import annotations

import email.parser
import email.policy
import hashlib
import http.server
import itertools
import json
import threading
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

USER, PASSWORD, KEY = "designer", "s3cret-pass", "KEY-123"
CONTAINERS = {"deck": ("decks", "cards", "card", "deck_id"),
              "twosidedsluggedset": ("twosidedsluggedsets", "members", "twosidedslugged", "set_id"),
              "twosidedset": ("twosidedsets", "members", "twosided", "set_id"),
              "onesidedgloss": ("onesidedglosses", None, None, None)}
MEMBERS = {v[2]: (k, v[3]) for k, v in CONTAINERS.items() if v[2]}


@dataclass
class Request:
    method: str
    path: str
    fields: dict[str, str]
    files: list[tuple[str, bytes]] = field(default_factory=list)     # (filename, bytes)

    @property
    def call(self) -> str:
        return f"{self.method} {self.path}"


class Fail(Exception):
    def __init__(self, status: int, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.code = status, message, code or status


class Fake:
    """The API's state and the requests seen; `inject` answers the next matching calls with an
    HTTP status (429 with a Retry-After) instead."""

    def __init__(self) -> None:
        self.requests: list[Request] = []
        self.objects: dict[str, dict[str, Any]] = {}
        self.ids = itertools.count(1)
        self.session: str | None = None
        self.injected: list[tuple[str, int, dict[str, str]]] = []
        self.lock = threading.Lock()
        self.objects["F0"] = {"type": "folder", "id": "F0", "name": "root"}

    def inject(self, call: str, status: int, **headers: str) -> None:
        self.injected.append((call, status, headers))

    def calls(self) -> list[str]:
        return [r.call for r in self.requests]

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [o for o in self.objects.values() if o["type"] == kind]

    def _new(self, kind: str, prefix: str, **fields: Any) -> dict[str, Any]:
        oid = f"{prefix}{next(self.ids)}"
        obj = {"type": kind, "id": oid, **fields}
        self.objects[oid] = obj
        return obj

    def _get(self, oid: str, kind: str | None = None) -> dict[str, Any]:
        obj = self.objects.get(oid)
        if obj is None or (kind and obj["type"] != kind):
            raise Fail(404, f"no {kind or 'object'} {oid}", 440)
        return obj

    @staticmethod
    def _need(fields: dict[str, str], *names: str) -> None:
        missing = [n for n in names if not fields.get(n)]
        if missing:
            raise Fail(400, f"missing {', '.join(missing)}", 441)

    @staticmethod
    def _page(items: list[dict[str, Any]], fields: dict[str, str]) -> dict[str, Any]:
        n, per = int(fields.get("_page_number", 1)), int(fields.get("_items_per_page", 100))
        pages = max(1, -(-len(items) // per))
        return {"items": items[(n - 1) * per:n * per], "paging": {"page_number": n, "total_pages": pages,
                                                                   "total_items": len(items)}}

    def handle(self, req: Request) -> Any:       # noqa: C901 (one route per branch)
        m, parts, f = req.method, req.path.strip("/").split("/")[1:], req.fields
        if m == "POST" and parts == ["session"]:
            if (f.get("username"), f.get("password"), f.get("api_key_id")) != (USER, PASSWORD, KEY):
                raise Fail(401, "The password you entered is incorrect.", 443)
            self.session = "SESSION-XYZ"
            return {"id": self.session, "user_id": "U1"}
        if f.get("session_id") != self.session or self.session is None:
            raise Fail(401, "You must be logged in.", 401)
        if m == "DELETE" and parts[0] == "session":
            self.session = None
            return {"success": 1}
        if m == "GET" and parts == ["user", "U1"]:
            return {"id": "U1", "root_folder_id": "F0"}
        if m == "GET" and parts == ["user", "U1", "designers"]:
            return self._page([{"id": "D1", "name": "Me"}], f)
        if m == "GET" and parts == ["designer", "D1", "games"]:
            return self._page([o for o in self.of("game") if o["designer_id"] == "D1"], f)
        if m == "POST" and parts == ["game"]:
            self._need(f, "designer_id", "name")
            return self._public(self._new("game", "G", **self._fields(f)))
        if m == "POST" and parts == ["folder"]:
            self._need(f, "name", "parent_id")
            self._get(f["parent_id"], "folder")
            return self._public(self._new("folder", "F", name=f["name"], parent_id=f["parent_id"]))
        if m == "POST" and parts == ["file"]:
            self._need(f, "name", "folder_id")
            self._get(f["folder_id"], "folder")
            if len(req.files) != 1 or not req.files[0][1].startswith(b"\x89PNG\r\n\x1a\n"):
                raise Fail(400, "file: one PNG expected", 442)
            data = req.files[0][1]
            return self._public(self._new("file", "FILE", name=f["name"], folder_id=f["folder_id"],
                                          filename=req.files[0][0], sha256=hashlib.sha256(data).hexdigest(),
                                          data=data))
        if m == "GET" and len(parts) == 3 and parts[0] == "game" and parts[2] == "bulk-pricing":
            game = self._get(parts[1], "game")
            cards = sum(int(o.get("quantity", 0)) for o in self.objects.values()
                        if o["type"] in MEMBERS and self._game_of(o) == game["id"])
            return {"items": [{"quantity": q, "price": round(5 + 0.1 * cards, 2) * (0.9 if q > 1 else 1)}
                              for q in (1, 10)]}
        if len(parts) == 3 and m == "GET" and parts[0] == "game":
            game = self._get(parts[1], "game")
            kind = next((k for k, v in CONTAINERS.items() if v[0] == parts[2]), None)
            if kind is None:
                raise Fail(404, f"no relationship {parts[2]}", 440)
            return self._page([self._public(o) for o in self.of(kind) if o["game_id"] == game["id"]], f)
        if len(parts) == 3 and m == "GET" and parts[0] in CONTAINERS:
            self._get(parts[1], parts[0])
            rel, member = CONTAINERS[parts[0]][1], CONTAINERS[parts[0]][2]
            if parts[2] != rel:
                raise Fail(404, f"no relationship {parts[2]}", 440)
            parent = CONTAINERS[parts[0]][3]
            return self._page([self._public(o) for o in self.of(member or "") if o[parent] == parts[1]], f)
        if len(parts) == 1 and m == "POST" and parts[0] in CONTAINERS:
            self._need(f, "game_id", "name", "identity")
            self._get(f["game_id"], "game")
            self._files(f)
            return self._public(self._new(parts[0], "C", **self._fields(f)))
        if len(parts) == 1 and m == "POST" and parts[0] in MEMBERS:
            container, parent = MEMBERS[parts[0]]
            self._need(f, parent, "name", "face_id")
            self._get(f[parent], container)
            self._files(f)
            return self._public(self._new(parts[0], "M", **self._fields(f)))
        if len(parts) == 2 and parts[0] in ("game", *CONTAINERS, *MEMBERS):
            obj = self._get(parts[1], parts[0])
            if m == "GET":
                return self._public(obj)
            if m == "PUT":
                self._files(f)
                obj.update(self._fields(f))
                return self._public(obj)
            if m == "DELETE":
                del self.objects[parts[1]]
                for o in [o for o in self.objects.values() if parts[1] in (o.get("deck_id"), o.get("set_id"))]:
                    del self.objects[o["id"]]
                return {"success": 1}
        if m == "GET" and len(parts) == 2 and parts[0] == "folder":
            return self._public(self._get(parts[1], "folder"))
        raise Fail(404, f"no such call: {req.call}", 440)

    def _game_of(self, member: dict[str, Any]) -> str | None:
        container = self.objects.get(member.get("deck_id") or member.get("set_id") or "")
        return container.get("game_id") if container else None

    def _files(self, f: dict[str, str]) -> None:
        for k, v in f.items():
            if k.endswith("_id") and k in ("face_id", "back_id") and v:
                self._get(v, "file")

    @staticmethod
    def _fields(f: dict[str, str]) -> dict[str, str]:
        return {k: v for k, v in f.items() if k != "session_id"}

    @staticmethod
    def _public(o: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in o.items() if k not in ("data", "type")}


def _parse(handler: http.server.BaseHTTPRequestHandler, method: str) -> Request:
    url = urllib.parse.urlsplit(handler.path)
    fields = {k: v[-1] for k, v in urllib.parse.parse_qs(url.query, keep_blank_values=True).items()}
    files: list[tuple[str, bytes]] = []
    length = int(handler.headers.get("Content-Length") or 0)
    body = handler.rfile.read(length) if length else b""
    ctype = handler.headers.get("Content-Type", "")
    if body and ctype.startswith("multipart/form-data"):
        msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            f"Content-Type: {ctype}\r\n\r\n".encode() + body)
        for part in msg.iter_parts():
            name = part.get_param("name", header="content-disposition")
            payload = part.get_payload(decode=True)
            if part.get_filename():
                files.append((part.get_filename(), payload))
            else:
                fields[str(name)] = payload.decode()
    elif body:
        fields.update({k: v[-1] for k, v in urllib.parse.parse_qs(body.decode(), keep_blank_values=True).items()})
    return Request(method, url.path, fields, files)


def serve(fake: Fake) -> tuple[http.server.ThreadingHTTPServer, str]:
    """Start a server for `fake` on 127.0.0.1 (a free port); (server, its API base URL)."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _answer(self, method: str) -> None:
            req = _parse(self, method)
            with fake.lock:
                fake.requests.append(req)
                hit = next((x for x in fake.injected if x[0] == req.call), None)
                if hit is not None:
                    fake.injected.remove(hit)
                    self._send(hit[1], {"error": {"code": hit[1], "message": "slow down"}}, hit[2])
                    return
                try:
                    status, reply = 200, {"result": fake.handle(req)}
                except Fail as exc:
                    status, reply = exc.status, {"error": {"code": exc.code, "message": exc.message}}
            self._send(status, reply, {})

        def _send(self, status: int, reply: Any, headers: dict[str, str]) -> None:
            body = json.dumps(reply).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for k, v in headers.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            self._answer("GET")

        def do_POST(self) -> None:
            self._answer("POST")

        def do_PUT(self) -> None:
            self._answer("PUT")

        def do_DELETE(self) -> None:
            self._answer("DELETE")

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/api"
