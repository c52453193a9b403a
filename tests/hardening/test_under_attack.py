"""The attacks of issue 37 run against the real server (gunicorn, gevent, two workers,
one Redis, loopback only), while ``/readyz`` is asked every 100 ms: it answers within
1 s throughout, no worker is killed, and each attack request costs the workers under
50 ms of CPU and 20 MB of memory on average.

- Streams: 300 stream requests from 300 addresses (``TRUSTED_PROXIES=1`` and
  ``X-Forwarded-For``: each its own client), then 20 more from one address. Each
  worker holds ``SESSION_STREAMS_PER_WORKER`` (20 here) and answers the rest 503
  ``streams_full``; one address gets ``SESSION_STREAMS_PER_CLIENT`` (8), then 429.
- Bot chains: ten anonymous GETs at once, five times over, of a session of one person
  and nine hard bots (UNO Flip to the highest target) whose person left."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from typing import Any

import pytest

from benchmarks.servers import process_cpu_seconds, rss_bytes
from tests.hardening.conftest import ISSUE_37_CPU_BUDGET, MEMORY_BUDGET
from tests.hardening.served import Readyz, workers_of
from tests.ops.test_gunicorn_serves import server, wait_for_healthz

pytestmark = [pytest.mark.slow, pytest.mark.redis]

PER_WORKER = 20
WORKERS = 2
HEARTBEAT = 1.0


def cpu_and_rss(pid: int) -> tuple[float, int]:
    """A process's CPU seconds and resident bytes."""
    return process_cpu_seconds(pid), rss_bytes(pid)


def call(port: int, method: str, path: str, body: Any = None, **headers: str) -> tuple[int, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    data = None if body is None else json.dumps(body)
    if data is not None:
        headers["Content-Type"] = "application/json"
    conn.request(method, path, body=data, headers=headers)
    resp = conn.getresponse()
    raw = resp.read()
    conn.close()
    return resp.status, json.loads(raw) if raw else None


def open_stream(port: int, sid: str, address: str) -> tuple[socket.socket, int]:
    """A stream request left open: the socket and the answer's status."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(
        f"GET /v1/sessions/{sid}/stream?timeout=30 HTTP/1.1\r\nHost: x\r\n"
        f"X-Forwarded-For: {address}\r\n\r\n".encode()
    )
    head = b""
    while b"\r\n" not in head:
        chunk = sock.recv(256)
        if not chunk:
            break
        head += chunk
    return sock, int(head.split()[1]) if head else 0


@pytest.fixture
def service(redis_server: Any) -> Iterator[tuple[int, int]]:
    env = {
        "REDIS_URL": redis_server.url,
        "SESSION_KEY_PREFIX": f"a{time.monotonic_ns()}:",
        "TRUSTED_PROXIES": "1",
        "SESSION_STREAMS_PER_WORKER": str(PER_WORKER),
        "SESSION_HEARTBEAT_SECONDS": str(HEARTBEAT),
        "LOG_LEVEL": "warning",
    }
    with server("gevent", WORKERS, env, stdout=-3) as (conf, proc):
        # Read the log as it comes: a full pipe would stall the workers (each 503 is
        # logged as an error).
        assert proc.stderr is not None
        drain = threading.Thread(target=proc.stderr.read, daemon=True)
        drain.start()
        port = int(conf["PORT"])
        wait_for_healthz(f"http://127.0.0.1:{port}/healthz", proc)
        yield port, proc.pid


def test_streams_and_bot_chains_leave_the_server_ready(service: tuple[int, int]) -> None:
    port, master = service
    time.sleep(1)  # both workers up
    workers = workers_of(master)
    assert len(workers) == WORKERS
    status, body = call(port, "POST", "/v1/sessions", {"variant": "uno_classic", "players": 2})
    assert status == 201
    sid = body["session_id"]
    ready = Readyz(port)
    try:
        # --- streams: one client's, then many clients'
        with ExitStack() as stack:
            one = [open_stream(port, sid, "10.9.9.9") for _ in range(10)]
            for sock, _ in one:
                stack.callback(sock.close)
            assert [s for _, s in one] == [200] * 8 + [429] * 2
        time.sleep(2 * HEARTBEAT)  # the server finds them closed at the next heartbeat
        with ExitStack() as stack, ThreadPoolExecutor(32) as pool:
            opened = list(pool.map(lambda i: open_stream(port, sid, f"10.1.{i >> 8}.{i & 255}"),
                                   range(300)))  # fmt: skip
            for sock, _ in opened:
                stack.callback(sock.close)
            statuses = [s for _, s in opened]
            # gunicorn's workers take connections as they come: each holds at most its
            # share, and together they hold at most this many.
            assert PER_WORKER <= statuses.count(200) <= PER_WORKER * WORKERS
            assert set(statuses) == {200, 503}
            assert call(port, "GET", f"/v1/sessions/{sid}")[0] == 200  # a bystander
        # --- bot chains
        players = [{"name": "Ann"}] + [{"bot": "hard"}] * 9
        status, body = call(
            port, "POST", "/v1/sessions",
            {"variant": "uno_flip", "players": players, "options": {"target": 100_000}},
        )  # fmt: skip
        bots, token = body["session_id"], body["seats"][0]["token"]
        assert (
            call(port, "POST", f"/v1/sessions/{bots}/leave", Authorization=f"Bearer {token}")[0]
            == 200
        )
        before = {pid: cpu_and_rss(pid) for pid in workers}
        with ThreadPoolExecutor(10) as pool:
            for _ in range(5):
                got = list(pool.map(lambda _: call(port, "GET", f"/v1/sessions/{bots}"), range(10)))
                assert {s for s, _ in got} == {200}
        after = {pid: cpu_and_rss(pid) for pid in workers}
    finally:
        ready.finish()
    cpu = sum(after[p][0] - before[p][0] for p in workers)
    grown = max(after[p][1] - before[p][1] for p in workers)
    print(  # shown with -s: the figures docs/security.md quotes
        f"worker CPU a read {cpu / 50 * 1000:.1f} ms, the most a worker grew "
        f"{grown / 2**20:.1f} MiB, /readyz at most {max(ready.took) * 1000:.0f} ms "
        f"({len(ready.took)} asked)"
    )
    assert cpu / 50 < ISSUE_37_CPU_BUDGET, f"{cpu / 50 * 1000:.0f} ms of worker CPU a read"
    assert grown < MEMORY_BUDGET, f"a worker grew {grown / 2**20:.1f} MiB"
    assert workers_of(master) == workers, "a worker was killed"
    assert not ready.failed, ready.failed[:3]
    assert max(ready.took) < 1.0, f"/readyz took {max(ready.took):.2f} s"
