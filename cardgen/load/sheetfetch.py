"""Sheets fetched from a link (a published Google Sheet, or any CSV link): https to public
addresses only, every address checked before connecting, redirects checked the same way, a
total deadline and size limit; and the cache of fetched sheets, stamped as this user's for
this output folder (docs/security.md#sheet-links, #the-fetched-sheet-cache)."""
from __future__ import annotations

import contextlib
import hashlib
import hmac
import ipaddress
import os
import re
import stat
import time
import urllib.parse
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardgen.core import limits
from cardgen.core.errors import CardgenError, Loc, Report
from cardgen.core.paths import read_up_to

# -- settings: what the build says (--refresh, where the cache is) ----------------------------

@dataclass(frozen=True)
class SheetSettings:
    """Build-wide settings for reading Google Sheets: `out` is the build folder (the cache is
    `<out>/<game>/.cache/sheets/`), `refresh` fetches even a recent cached copy."""

    out: Path | None = None
    refresh: bool = False
    timeout: float = float(limits.MAX_FETCH_SECONDS)     # the whole fetch: look-up, connection, redirects, bytes


_DEFAULT_SETTINGS = SheetSettings()
_SETTINGS: ContextVar[SheetSettings] = ContextVar("cardgen_sheet_settings")


@contextlib.contextmanager
def settings(value: SheetSettings) -> Iterator[None]:
    """Use `value` while the block runs (the build wraps its loading in this)."""
    token = _SETTINGS.set(value)
    try:
        yield
    finally:
        _SETTINGS.reset(token)


def cache_dir(project: Path, slug: str) -> Path:
    """Where a game's fetched sheets are kept: beside the raster cache in its build folder."""
    out = _SETTINGS.get(_DEFAULT_SETTINGS).out or project / "build"
    return out / slug / ".cache" / "sheets"



MAX_DOWNLOAD = limits.MAX_SHEET_BYTES         # a fetched sheet (CARDGEN_MAX_SHEET_BYTES)


# -- Google Sheets (or any CSV link) -------------------------------------------------------------

class FetchError(Exception):
    """The sheet could not be fetched; the message says why in a few words."""


class Refused(FetchError):
    """The link (or a redirect) names an address cardgen never connects to."""


MAX_REDIRECTS = 5
LOCAL_ONLY = ("an address of this computer or a private network; cardgen fetches sheets only from the internet "
              "(a published Google Sheet's https:// link)")


def check_url(url: str) -> str | None:
    """Why `url` may not be fetched, or None: only https:// links to a named or numeric host."""
    try:
        parts = urllib.parse.urlsplit(url.strip())
        _ = parts.port      # (a port that is not a number: ValueError)
    except ValueError:
        return "it is not a valid link"
    if parts.scheme != "https" or not parts.hostname:
        return "only https:// links can be fetched (File > Share > Publish to web gives one)"
    return None


_V4_IN_V6 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))


def refused_address(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Whether `ip` is one cardgen never connects to: anything but a public (global unicast)
    address: loopback, private, shared (CGNAT), link-local, unspecified, multicast, reserved,
    documentation and benchmark ranges, and an IPv6 address carrying an IPv4 one (mapped,
    compatible, NAT64, 6to4) whose IPv4 address is any of those, or tunnelled (Teredo)."""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.scope_id or ip.teredo is not None:
            return True
        inner = ip.ipv4_mapped or ip.sixtofour
        if inner is None and any(ip in net for net in _V4_IN_V6):
            inner = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if inner is None and int(ip) >> 32 == 0:
            return True                       # ::/96: unspecified, loopback, IPv4-compatible
        if inner is not None:
            return refused_address(inner)
        if ip.is_site_local:
            return True
    return (not ip.is_global or ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_multicast
            or ip.is_reserved or ip.is_unspecified)


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    return ipaddress.ip_address(text)


def _resolve(host: str, port: int, deadline: float) -> list[tuple[int, tuple]]:
    """The addresses `host` has (family, socket address), each checked (Refused if any is not
    public: a name that gives one public and one local address is refused too).  A numeric
    host in any spelling the system accepts (`127.1`, `0x7f.1`, `2130706433`, `[::ffff:...]`)
    is read as the number it is, without a name look-up; a name is looked up once, within the
    deadline, and the connection goes to the addresses checked here, never looked up again."""
    import socket

    name = host.lower().rstrip(".")
    if not name or name == "localhost" or name.endswith((".localhost", ".local", ".internal", ".home.arpa")):
        raise Refused(f"{host} is {LOCAL_ONLY}")
    infos: list[Any] = []
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_NUMERICHOST)
    except (OSError, UnicodeError):
        infos = []
    numeric = all(re.fullmatch(r"0x[0-9a-f]*|[0-9]+", label) for label in name.split("."))
    if not infos and (":" in name or "%" in name or numeric):
        raise Refused(f"{host} is {LOCAL_ONLY}")        # (an address in a spelling not read as one: never looked up)
    if not infos:
        found: list[Any] = []
        failed: list[BaseException] = []

        def look_up() -> None:
            try:
                found.extend(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM))
            except (OSError, UnicodeError) as exc:
                failed.append(exc)

        import threading

        worker = threading.Thread(target=look_up, daemon=True)
        worker.start()
        worker.join(max(0.0, deadline - time.monotonic()))
        if worker.is_alive():
            raise FetchError("no answer within the time limit while looking up the name (limit "
                             "CARDGEN_MAX_FETCH_SECONDS)")
        if failed or not found:
            raise FetchError(f"cannot reach the server (no address for {host})")
        infos = found
    out: list[tuple[int, tuple]] = []
    for family, _type, _proto, _canon, sockaddr in infos:
        if family not in (socket.AF_INET, socket.AF_INET6):
            raise Refused(f"{host} is {LOCAL_ONLY}")
        text = str(sockaddr[0])
        try:
            ip = _ip(text)
        except ValueError:
            raise Refused(f"{host} is {LOCAL_ONLY}") from None
        if isinstance(ip, ipaddress.IPv6Address) and len(sockaddr) > 3 and tuple(sockaddr)[3]:
            raise Refused(f"{host} is {LOCAL_ONLY}")           # (a scope: link-local)
        if refused_address(ip):
            shown = host if text == host.strip("[]") else f"{host} ({text})"
            raise Refused(f"{shown} is {LOCAL_ONLY}")
        out.append((family, sockaddr))
    return out


def _too_big() -> FetchError:
    return FetchError(f"the sheet is larger than {MAX_DOWNLOAD / (1024 * 1024):g} MB (limit CARDGEN_MAX_SHEET_BYTES)")


def _connect(family: int, sockaddr: tuple, timeout: float) -> Any:
    """A TCP connection to the (checked) socket address."""
    import socket

    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        sock.connect(sockaddr)
    except BaseException:
        sock.close()
        raise
    return sock


def _tls(sock: Any, host: str) -> Any:
    """TLS over `sock`, the certificate checked for `host` (the system's trusted authorities)."""
    import ssl

    return ssl.create_default_context().wrap_socket(sock, server_hostname=host)


def _get(url: str, deadline: float, timeout: float) -> tuple[int, str, Any, bytes]:
    """One GET of `url`: (status, reason, headers, body); the body at most MAX_DOWNLOAD + 1
    bytes, everything within `deadline` (time.monotonic): the connection is closed when it
    passes, however slowly the server sends."""
    import http.client
    import socket
    import threading

    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or 443
    addresses = _resolve(host, port, deadline)
    held: list[Any] = []            # the connection the deadline cuts (under TLS too)

    def cut() -> None:              # the total deadline: whatever the server is doing
        for held_sock in held:
            with contextlib.suppress(OSError):
                held_sock.shutdown(socket.SHUT_RDWR)

    timer = threading.Timer(max(0.0, deadline - time.monotonic()), cut)
    timer.daemon = True
    timer.start()
    sock: Any = None
    failure: BaseException | None = None
    for family, sockaddr in addresses:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        raw: Any = None
        try:
            raw = _connect(family, sockaddr, left)
            held[:] = [raw]
            sock = _tls(raw, host)
            break
        except OSError as exc:
            failure = exc
            if raw is not None:
                with contextlib.suppress(OSError):
                    raw.close()
    if sock is None:
        timer.cancel()
        if failure is None or isinstance(failure, TimeoutError) or time.monotonic() >= deadline:
            raise FetchError(f"no answer within {timeout:g} s (limit CARDGEN_MAX_FETCH_SECONDS)")
        raise FetchError(f"cannot reach the server ({failure})")
    conn = http.client.HTTPConnection(host, port, timeout=max(0.01, deadline - time.monotonic()))
    conn.sock = sock
    try:
        target = urllib.parse.urlunsplit(("", "", parts.path or "/", parts.query, ""))
        conn.putrequest("GET", target, skip_host=True, skip_accept_encoding=True)
        shown = f"[{host}]" if ":" in host else host
        conn.putheader("Host", shown if port == 443 else f"{shown}:{port}")
        conn.putheader("User-Agent", "cardgen")
        conn.putheader("Accept", "text/csv, text/plain;q=0.9, */*;q=0.1")
        conn.putheader("Connection", "close")
        conn.endheaders()
        resp = conn.getresponse()
        length = resp.getheader("Content-Length")
        if length and length.strip().isdigit() and int(length) > MAX_DOWNLOAD and resp.status == 200:
            raise _too_big()
        body = resp.read(MAX_DOWNLOAD + 1) if resp.status == 200 else b""
        if time.monotonic() >= deadline:
            raise TimeoutError
        return resp.status, resp.reason, resp.headers, body
    except (OSError, http.client.HTTPException, ValueError) as exc:
        if time.monotonic() >= deadline - 0.01 or isinstance(exc, TimeoutError):
            raise FetchError(f"no complete answer within {timeout:g} s (limit CARDGEN_MAX_FETCH_SECONDS)") \
                from None
        raise FetchError(f"cannot read the answer ({type(exc).__name__}: {exc})") from None
    finally:
        timer.cancel()
        conn.close()
        with contextlib.suppress(OSError):
            sock.close()


def _download(url: str, timeout: float) -> str:
    """The text behind `url`: https only, to public addresses only (each redirect checked the
    same way, at most MAX_REDIRECTS), all within `timeout` seconds and MAX_DOWNLOAD bytes."""
    deadline = time.monotonic() + timeout
    for hop in range(MAX_REDIRECTS + 1):
        try:
            status, reason, headers, data = _get(url, deadline, timeout)
        except Refused:
            if hop == 0:
                raise
            raise Refused(f"the link redirects to {url[:80]}, which cardgen does not follow: "
                          f"it is {LOCAL_ONLY}") from None
        if status not in (301, 302, 303, 307, 308):
            break
        newurl = urllib.parse.urljoin(url, headers.get("Location", ""))
        why = check_url(newurl)
        if why is not None:
            raise Refused(f"the link redirects to {newurl[:80]}, which cardgen does not follow: {why}")
        url = newurl
    else:
        raise FetchError(f"the link redirects more than {MAX_REDIRECTS} times")
    if status != 200:
        hint = "; is the sheet published (File > Share > Publish to web)?" if status in (401, 403, 404) else ""
        raise FetchError(f"the server answered {status} {reason}{hint}")
    if len(data) > MAX_DOWNLOAD:
        raise _too_big()
    ctype = headers.get_content_type()
    charset = headers.get_content_charset() or "utf-8"
    try:
        text = data.decode("utf-8-sig" if charset.lower().replace("_", "-") in ("utf-8", "utf8") else charset)
    except (LookupError, UnicodeDecodeError):
        raise FetchError(f"the answer is not {charset} text") from None
    head = text.lstrip()[:200].lower()
    if ctype == "text/html" or head.startswith(("<!doctype", "<html")):
        raise FetchError("the link gives a web page, not CSV; publish the sheet as CSV (File > Share > "
                         "Publish to web, choose the sheet and \"Comma-separated values\")")
    return text


def _age(seconds: float) -> str:
    seconds = max(0.0, seconds)
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    if seconds < 36 * 3600:
        return f"{seconds / 3600:.0f} h"
    return f"{seconds / 86400:.0f} days"


# -- the cache of fetched sheets -------------------------------------------------------------------
# One file per link, `<out>/<game>/.cache/sheets/<sha256 of the link>.sheet`: a first line, the
# HMAC (under this user's secret key, `core.digest.user_key`) of the output folder's path, the
# link, the time and the text, then the time, then the text.  A game folder may come with a
# `build/` of its own holding cache entries (text to be read as cards) or links (`.cache ->
# ~`): an entry is read only if this user's cardgen wrote it for this output folder and this
# link, and never through a link; nothing is written through one either.

_CACHE_MAGIC = b"CGSHEET2\n"


def _cache_path(cache: Path, url: str) -> Path:
    return cache / (hashlib.sha256(url.strip().encode()).hexdigest()[:24] + ".sheet")


def _cache_links(cache: Path) -> bool:
    """True if the cache folder, `.cache`, the game's output folder or (for the default output
    folder, `build/`) the output folder itself is a link."""
    from cardgen.core.paths import through_link

    default_out = _SETTINGS.get(_DEFAULT_SETTINGS).out is None
    return through_link(cache / "x", 5 if default_out else 4)


def _cache_stamp(key: bytes, cache: Path, url: str, fetched: bytes, text: bytes) -> bytes:
    from cardgen.core.digest import mac

    folder = os.fsencode(os.path.realpath(cache.parent.parent))
    return mac(key, b"cardgen fetched sheet", folder, url.strip().encode(), fetched, text).encode()


def _cache_read(cache: Path, url: str) -> tuple[str, float] | None:
    """The cached text of `url` and when it was fetched, if this user's cardgen kept it here."""
    from cardgen.core.digest import user_key

    path = _cache_path(cache, url)
    key = user_key()
    if key is None or _cache_links(cache):
        return None
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_DOWNLOAD + 1024:
            return None
        with os.fdopen(os.dup(fd), "rb") as f:
            blob = read_up_to(f, st.st_size, MAX_DOWNLOAD + 1024)
    except OSError:
        return None
    finally:
        os.close(fd)
    head, _, rest = blob.partition(b"\n")
    stamp, _, rest = rest.partition(b"\n")
    fetched, _, text = rest.partition(b"\n")
    if head + b"\n" != _CACHE_MAGIC or not hmac.compare_digest(stamp, _cache_stamp(key, cache, url, fetched, text)):
        return None
    try:
        return text.decode("utf-8"), float(fetched.decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        return None


def _cache_write(cache: Path, url: str, text: str, now: float) -> None:
    """Keep `text` as the cached copy of `url` (OSError if it cannot be written)."""
    from cardgen.core.atomic import write_bytes
    from cardgen.core.digest import user_key

    key = user_key()
    if key is None or _cache_links(cache):
        return
    cache.mkdir(parents=True, exist_ok=True)
    if _cache_links(cache):
        return
    fetched, data = repr(now).encode("ascii"), text.encode("utf-8")
    write_bytes(_cache_path(cache, url), _CACHE_MAGIC + _cache_stamp(key, cache, url, fetched, data) + b"\n"
                + fetched + b"\n" + data)


def fetch_sheet(url: str, cache: Path | None, refresh_after_s: float, report: Report, loc: Loc) -> str:
    """The CSV text behind `url`: a cached copy younger than `refresh_after_s` (unless the
    build says --refresh), else fetched now and cached; when fetching fails, the cached copy
    with a warning that says how old it is, or an error if there is none.  A link to an
    address of this computer or a private network is an error, cached copy or not."""
    why = check_url(url)
    if why:
        raise CardgenError(loc, f"cannot fetch {url!r}: {why}", code="sheet-url")
    opts = _SETTINGS.get(_DEFAULT_SETTINGS)
    cached = _cache_read(cache, url) if cache else None
    now = time.time()
    if cached and not opts.refresh and 0 <= now - cached[1] < refresh_after_s:
        return cached[0]
    try:
        text = _download(url.strip(), opts.timeout)
    except Refused as exc:
        raise CardgenError(loc, f"cannot fetch {url!r}: {exc}", code="sheet-url") from None
    except FetchError as exc:
        if cached:
            report.warn(loc, f"could not fetch the sheet ({exc}); using the copy fetched {_age(now - cached[1])} ago",
                        "sheet-offline")
            return cached[0]
        raise CardgenError(loc, f"could not fetch the sheet ({exc}) and no copy of it is cached yet",
                           code="sheet-fetch") from None
    if cache:
        try:
            _cache_write(cache, url, text, now)
        except OSError as exc:
            report.warn(loc, f"could not keep a copy of the sheet in {cache} ({exc})", "sheet-cache")
    return text
