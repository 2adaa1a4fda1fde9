"""The preview is bounded in connections and time: connections held open and idle (or sending
their request a byte at a time) are closed after CARDGEN_MAX_PREVIEW_HEAD_SECONDS and never keep
another page out; at most CARDGEN_MAX_PREVIEW_CONNECTIONS are open and at most
CARDGEN_MAX_PREVIEW_STREAMS event streams, a new stream ending the oldest.  All on 127.0.0.1."""
from __future__ import annotations

import socket
import threading
import time

import pytest
from pages import make_game
from test_serve import Events, get, state, wait_for

from cardgen.core import limits
from cardgen.serve.server import Running

CONNECTIONS, STREAMS, HEAD = 6, 3, 1


@pytest.fixture
def small(tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "MAX_PREVIEW_CONNECTIONS", CONNECTIONS)
    monkeypatch.setattr(limits, "MAX_PREVIEW_STREAMS", STREAMS)
    monkeypatch.setattr(limits, "MAX_PREVIEW_HEAD_SECONDS", HEAD)
    game = make_game(tmp_path)
    running = Running(game, game, port=0)
    try:
        wait_for(lambda: state(running.url)["cards"])
        yield running
    finally:
        running.close()


def _close(ev: Events) -> None:
    ev.resp.close()        # the response holds the socket open too
    ev.close()


def _closed_by_server(s: socket.socket, within: float) -> bool:
    s.settimeout(within)
    try:
        return s.recv(1) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def test_idle_connections_never_keep_a_page_out(small):
    running = small
    assert running.server.server_address[0] == "127.0.0.1"
    threads = threading.active_count()
    port = running.server.port
    idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(4 * CONNECTIONS)]
    slow = socket.create_connection(("127.0.0.1", port))
    stop = threading.Event()

    def trickle():                      # a request head one byte every 0.2 s: never finished
        for ch in b"GET / HTTP/1.0\r\nX-Slow: " + b"a" * 1000:
            if stop.wait(0.2):
                return
            try:
                slow.send(bytes([ch]))
            except OSError:
                return

    sender = threading.Thread(target=trickle, daemon=True)
    sender.start()
    try:
        time.sleep(0.3)
        for _ in range(3):               # pages are still served at once, again and again
            start = time.monotonic()
            status, _, body = get(running.url, "/state.json")
            assert status == 200 and b'"cards"' in body
            assert time.monotonic() - start < 2.0
        assert running.server.open_connections <= CONNECTIONS
        assert threading.active_count() - threads <= CONNECTIONS + 2
        # each idle connection is closed by the server: at once if a newer one needed its place,
        # else once it has had HEAD seconds to send its request
        start = time.monotonic()
        assert all(_closed_by_server(s, HEAD + 2.0) for s in idle)
        assert _closed_by_server(slow, HEAD + 2.0)
        assert time.monotonic() - start < HEAD + 3.0
        wait_for(lambda: running.server.open_connections == 0, timeout=5)
        wait_for(lambda: threading.active_count() <= threads, timeout=5)
    finally:
        stop.set()
        for s in (*idle, slow):
            s.close()


@pytest.mark.parametrize("first_counted_late", [False, True])
def test_event_streams_are_bounded_the_oldest_ends(small, first_counted_late):
    running = small
    if first_counted_late:      # the first stream's thread slow to count it: it is still the oldest
        counted = running.server.stream_opened
        late = [0.5]

        def slow(handler):
            if late:
                time.sleep(late.pop())
            counted(handler)
        running.server.stream_opened = slow
    streams = [Events(running.url) for _ in range(STREAMS + 2)]
    try:
        for ev in streams:
            assert ev.next()[0] == "update"             # each was told the current version
        wait_for(lambda: running.server.open_streams == STREAMS, timeout=5)
        for ev in streams[:2]:                          # the two oldest were ended by the newer ones
            ev.resp.fp.raw._sock.settimeout(5)
            with pytest.raises(AssertionError, match="stream closed"):
                ev.next()
        status, _, _ = get(running.url, "/")            # and pages are still served
        assert status == 200
        assert running.server.open_connections <= STREAMS + 1
    finally:
        for ev in streams:
            _close(ev)
    wait_for(lambda: running.server.open_streams == 0, timeout=5)      # closed pages noticed within a second


def test_a_full_server_says_busy_rather_than_waiting(small):
    """With every place taken by streams that have sent their request (none idle to close), a
    new connection is told 503 at once instead of waiting."""
    running = small
    limits.MAX_PREVIEW_STREAMS = CONNECTIONS          # (restored by the fixture's monkeypatch)
    streams = [Events(running.url) for _ in range(CONNECTIONS)]
    try:
        wait_for(lambda: running.server.open_streams == CONNECTIONS, timeout=5)
        start = time.monotonic()
        status, headers, body = get(running.url, "/")
        assert (status, headers["retry-after"], body) == (503, "1", b"too many connections; try again\n")
        assert time.monotonic() - start < 2.0
    finally:
        for ev in streams:
            _close(ev)
    wait_for(lambda: running.server.open_streams == 0, timeout=5)
    assert get(running.url, "/")[0] == 200
