"""A client of The Game Crafter's REST API (https://www.thegamecrafter.com/api), standard
library only: forms url-encoded (files multipart), `session_id` in the query, replies
`{"result": ...}` or `{"error": {"code", "message"}}`.

- **Where it connects.** Only to `www.thegamecrafter.com` over HTTPS, its certificate checked,
  to addresses checked public before connecting (`cardgen.load.sheetfetch`: never this
  computer or a private network, whatever the name resolves to).  The one exception is the
  tests' fake server: `CARDGEN_TGC_TEST_API=http://127.0.0.1:PORT/api` in the environment
  (an address of this computer, plain HTTP, 127.0.0.1 and nothing else); a game folder
  cannot set it.
- **Pace.** At most 3 requests a second (TGC allows 240 a minute); a 429 is retried after its
  `Retry-After` (or a doubling wait), a 502/503/504 likewise, a 500 only for GET, PUT and
  DELETE (a POST answered 500 may have been done: the next run finds what it made).
- **Secrets.** The password and the session id are sent and never said: no message, log or
  file of cardgen holds them (`TgcError` messages are cleaned of both).
"""
from __future__ import annotations

import contextlib
import json
import os
import time
import urllib.parse
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

API = "https://www.thegamecrafter.com/api"
TEST_ENV = "CARDGEN_TGC_TEST_API"
MIN_INTERVAL = 1 / 3            # s between requests: 3 a second
MAX_TRIES = 6
MAX_WAIT = 120.0                # s: the longest Retry-After honoured
TIMEOUT = 60.0                  # s per request (an upload: UPLOAD_TIMEOUT)
UPLOAD_TIMEOUT = 600.0


class TgcError(Exception):
    """A call failed; the message is one line, fit to print."""

    def __init__(self, message: str, status: int = 0, code: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.code = code


class SignInRefused(TgcError):
    pass


def base_url() -> str:
    """The API's address: TGC's, or the tests' fake server (`TEST_ENV`, 127.0.0.1 only)."""
    test = os.environ.get(TEST_ENV)
    if not test:
        return API
    parts = urllib.parse.urlsplit(test)
    try:
        port = parts.port
    except ValueError:
        port = None
    if parts.scheme != "http" or parts.hostname != "127.0.0.1" or port is None or parts.query or parts.fragment:
        raise TgcError(f"{TEST_ENV} must be http://127.0.0.1:PORT/... (the tests' fake server), not {test[:80]!r}")
    return test.rstrip("/")


@dataclass
class Upload:
    """A file sent as a multipart form's `file` field."""

    name: str
    data: bytes
    mime: str = "image/png"


@dataclass
class Client:
    """Calls of one signed-in session (`sign_in`), paced and retried."""

    base: str = field(default_factory=base_url)
    interval: float = field(default_factory=lambda: MIN_INTERVAL)
    sleep: Callable[[float], None] = time.sleep
    session_id: str | None = None
    secrets: list[str] = field(default_factory=list)
    _last: float = -1e9
    calls: int = 0

    # -- calls -----------------------------------------------------------------------------
    def sign_in(self, username: str, password: str, api_key_id: str) -> dict:
        self.secrets = [s for s in (password, api_key_id) if s]
        try:
            result = self.call("POST", "/session", {"username": username, "password": password,
                                                    "api_key_id": api_key_id}, auth=False)
        except TgcError as exc:
            if 400 <= exc.status < 500:       # (TGC's errors are 4xx codes of its own: 440 and up too)
                raise SignInRefused(f"The Game Crafter refused the sign-in: {exc} (check TGC_USERNAME, TGC_PASSWORD "
                                    f"and TGC_API_KEY_ID)", exc.status, exc.code) from None
            raise
        sid = result.get("id") if isinstance(result, dict) else None
        if not isinstance(sid, str) or not sid:
            raise TgcError("The Game Crafter's sign-in answer has no session id")
        self.session_id = sid
        self.secrets.append(sid)
        return result

    def sign_out(self) -> None:
        if self.session_id:
            with contextlib.suppress(TgcError):
                self.call("DELETE", f"/session/{self.session_id}")
            self.session_id = None

    def get(self, path: str, **query: Any) -> Any:
        return self.call("GET", path, query)

    def items(self, path: str, limit: int = 100, pages: int = 50) -> list[dict]:
        """Every item of a paged list (`_page_number`, `_items_per_page`)."""
        out: list[dict] = []
        for page in range(1, pages + 1):
            result = self.call("GET", path, {"_page_number": page, "_items_per_page": limit})
            got = result.get("items", []) if isinstance(result, dict) else []
            out += [i for i in got if isinstance(i, dict)]
            paging = result.get("paging", {}) if isinstance(result, dict) else {}
            total = paging.get("total_pages") if isinstance(paging, dict) else None
            if len(got) < limit or (isinstance(total, int) and page >= total):
                break
        return out

    def call(self, method: str, path: str, fields: dict[str, Any] | None = None, upload: Upload | None = None,
             auth: bool = True) -> Any:
        """One call, retried as the module says; its `result`, or TgcError."""
        fields = {k: v for k, v in (fields or {}).items() if v is not None}
        query: dict[str, Any] = {"session_id": self.session_id} if auth and self.session_id else {}
        if method in ("GET", "DELETE"):
            query.update(fields)
            body, ctype = b"", ""
        elif upload is not None:
            body, ctype = _multipart(fields, upload)
        else:
            body = urllib.parse.urlencode({k: _text(v) for k, v in fields.items()}).encode()
            ctype = "application/x-www-form-urlencoded"
        target = self.base + path + ("?" + urllib.parse.urlencode({k: _text(v) for k, v in query.items()})
                                     if query else "")
        wait = 1.0
        for attempt in range(1, MAX_TRIES + 1):
            self._pace()
            status, headers, data = self._send(method, target, body, ctype, UPLOAD_TIMEOUT if upload else TIMEOUT)
            retry = status == 429 or status in (502, 503, 504) or (status == 500 and method != "POST")
            if retry and attempt < MAX_TRIES:
                after = _retry_after(headers.get("Retry-After"))
                self.sleep(min(MAX_WAIT, after if after is not None else wait))
                wait *= 2
                continue
            return self._result(method, path, status, data)
        raise AssertionError("unreachable")

    # -- internals ---------------------------------------------------------------------------
    def _pace(self) -> None:
        gap = self._last + self.interval - time.monotonic()
        if gap > 0:
            self.sleep(gap)
        self._last = time.monotonic()
        self.calls += 1

    def _clean(self, text: str) -> str:
        from cardgen.core.errors import escape_controls

        for s in self.secrets:
            if s:
                text = text.replace(s, "***")
        return escape_controls(" ".join(text.split()))[:300]

    def _result(self, method: str, path: str, status: int, data: bytes) -> Any:
        shown = path.split("?")[0]
        if self.session_id:
            shown = shown.replace(self.session_id, "***")
        try:
            reply = json.loads(data.decode("utf-8")) if data else {}
        except (UnicodeDecodeError, ValueError):
            reply = None
        if isinstance(reply, dict) and isinstance(reply.get("error"), dict):
            err = reply["error"]
            message = self._clean(str(err.get("message") or "no message"))
            raise TgcError(f"{method} {shown}: {message}" + (f" (HTTP {status})" if status >= 400 else ""),
                           status, str(err.get("code") or ""))
        if status >= 400 or not isinstance(reply, dict) or "result" not in reply:
            what = "an answer that is not The Game Crafter's JSON" if reply is None or status < 400 else "no message"
            raise TgcError(f"{method} {shown}: HTTP {status}, {what}", status)
        return reply["result"]

    def _send(self, method: str, url: str, body: bytes, ctype: str, timeout: float) -> tuple[int, Any, bytes]:
        """One HTTP exchange: (status, headers, body).  TgcError when there is no answer."""
        import http.client

        parts = urllib.parse.urlsplit(url)
        host, port = parts.hostname or "", parts.port
        target = urllib.parse.urlunsplit(("", "", parts.path, parts.query, ""))
        try:
            if parts.scheme == "http":        # the tests' fake server (`base_url` allows 127.0.0.1 only)
                if host != "127.0.0.1":
                    raise TgcError(f"refusing to send to {host}: only The Game Crafter over https")
                conn: http.client.HTTPConnection = http.client.HTTPConnection(host, port, timeout=timeout)
            else:
                conn = _https(host, port or 443, timeout)
            try:
                headers = {"User-Agent": "cardgen", "Accept": "application/json", "Connection": "close"}
                if body or method in ("POST", "PUT"):
                    headers["Content-Type"] = ctype or "application/x-www-form-urlencoded"
                    headers["Content-Length"] = str(len(body))
                conn.request(method, target, body=body or None, headers=headers)
                resp = conn.getresponse()
                data = resp.read(64 * 1024 * 1024)
                return resp.status, resp.headers, data
            finally:
                conn.close()
        except TgcError:
            raise
        except Exception as exc:       # (OSError, TLS, HTTP protocol errors: said in one line)
            from cardgen.load.sheetfetch import FetchError

            if isinstance(exc, FetchError):
                raise TgcError(f"cannot reach The Game Crafter: {self._clean(str(exc))}") from None
            raise TgcError(f"cannot reach The Game Crafter ({type(exc).__name__}: "
                           f"{self._clean(str(exc)) or 'no answer'})") from None


def _https(host: str, port: int, timeout: float) -> Any:
    """An HTTPS connection to `host` over an address checked public (`sheetfetch._resolve`), its
    certificate checked for `host`."""
    import http.client

    from cardgen.load.sheetfetch import _connect, _resolve, _tls

    deadline = time.monotonic() + timeout
    failure: BaseException | None = None
    for family, sockaddr in _resolve(host, port, deadline):
        raw = None
        try:
            raw = _connect(family, sockaddr, timeout)
            sock = _tls(raw, host)
        except OSError as exc:
            failure = exc
            if raw is not None:
                raw.close()
            continue
        conn = http.client.HTTPSConnection(host, port, timeout=timeout)
        conn.sock = sock
        return conn
    raise OSError(str(failure) if failure else f"no address for {host}")


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _multipart(fields: dict[str, Any], upload: Upload) -> tuple[bytes, str]:
    boundary = "cardgen-" + uuid.uuid4().hex
    parts: list[bytes] = []
    for k, v in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n'.encode()
                     + _text(v).encode() + b"\r\n")
    safe = upload.name.replace('"', "_").replace("\r", "_").replace("\n", "_")
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{safe}"\r\n'
                 f"Content-Type: {upload.mime}\r\n\r\n".encode() + upload.data + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def _retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (a number; an HTTP date is read as such)."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    from email.utils import parsedate_to_datetime

    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
