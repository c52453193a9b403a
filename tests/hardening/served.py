"""The server as a hostile client meets it (issue 46): gunicorn with one gevent worker on
one Redis, loopback only. What a worker spends is read from the kernel: its CPU from
``/proc/<pid>/schedstat`` (nanoseconds on a CPU, every thread), its peak resident memory
from ``VmHWM`` in ``/proc/<pid>/status``; ``/readyz`` is asked every 100 ms meanwhile.

``Served`` is one such server (``served()`` starts it); ``raw_request`` sends a request
as an attacker would, the whole body written whatever the server answers."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.servers import process_cpu_seconds
from tests.ops.test_gunicorn_serves import server, wait_for_healthz

#: The budgets of issue 46: what one hostile request may cost the worker, and how long
#: ``/readyz`` may take while three senders run.
CPU_BUDGET = 0.020
MEMORY_BUDGET = 20 * 2**20
READY_BUDGET = 0.250
SENDERS = 3


def workers_of(master: int) -> list[int]:
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    return sorted(map(int, children))


def peak_rss(pid: int) -> int:
    """The most resident memory the process has held (bytes)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM")


class Readyz:
    """``/readyz`` every 100 ms in a thread: how long each answer took."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.took: list[float] = []
        self.failed: list[str] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._poll, daemon=True)
        self.thread.start()

    def _poll(self) -> None:
        while not self.stop.is_set():
            started = time.monotonic()
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
                conn.request("GET", "/readyz")
                status = conn.getresponse().status
                conn.close()
                if status != 200:
                    self.failed.append(f"status {status}")
            except OSError as e:
                self.failed.append(repr(e))
            self.took.append(time.monotonic() - started)
            self.stop.wait(0.1)

    def finish(self) -> float:
        """Stop asking; the longest answer (seconds)."""
        self.stop.set()
        self.thread.join(15)
        return max(self.took, default=0.0)


@dataclass
class Attack:
    """What an attack cost: worker CPU a request, the worker's peak growth, /readyz."""

    requests: int
    cpu: float
    grown: int
    ready: float
    statuses: list[int] = field(default_factory=list)

    @property
    def cpu_each(self) -> float:
        return self.cpu / max(1, self.requests)

    def __str__(self) -> str:
        return (
            f"{self.requests} requests: worker CPU {self.cpu_each * 1000:.1f} ms each, "
            f"peak RSS +{self.grown / 2**20:.1f} MiB, /readyz at most {self.ready * 1000:.0f} ms"
        )


@dataclass
class Served:
    port: int
    master: int
    worker: int

    def call(self, method: str, path: str, body: Any = None, **headers: str) -> tuple[int, Any]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        data = None if body is None else json.dumps(body)
        if data is not None:
            headers.setdefault("Content-Type", "application/json")
        conn.request(method, path, body=data, headers=headers)
        resp = conn.getresponse()
        raw = resp.read()
        conn.close()
        try:
            return resp.status, json.loads(raw) if raw else None
        except ValueError:
            return resp.status, raw

    def attack(self, send: Callable[[int], int], per_sender: int) -> Attack:
        """``send(i)`` (returning a status) ``per_sender`` times in each of three senders,
        ``/readyz`` asked meanwhile: what it cost the worker."""
        ready = Readyz(self.port)
        cpu, rss = process_cpu_seconds(self.worker), peak_rss(self.worker)
        try:
            with ThreadPoolExecutor(SENDERS) as pool:
                statuses = list(pool.map(send, range(SENDERS * per_sender)))
        finally:
            slowest = ready.finish()
        out = Attack(
            SENDERS * per_sender,
            process_cpu_seconds(self.worker) - cpu,
            peak_rss(self.worker) - rss,
            slowest,
            statuses,
        )
        print(out)  # shown with -s: the figures docs/security.md quotes
        assert not ready.failed, ready.failed[:3]
        assert workers_of(self.master) == [self.worker], "the worker was replaced"
        return out

    def within_budget(self, attack: Attack) -> None:
        assert attack.cpu_each < CPU_BUDGET, str(attack)
        assert attack.grown < MEMORY_BUDGET, str(attack)
        assert attack.ready < READY_BUDGET, str(attack)


@contextmanager
def served(redis_url: str, **settings: str) -> Iterator[Served]:
    """gunicorn, one gevent worker on the Redis at ``redis_url`` (``settings``: more
    environment); every address its own client (``TRUSTED_PROXIES=1``)."""
    env = {
        "REDIS_URL": redis_url,
        "SESSION_KEY_PREFIX": f"s{time.monotonic_ns()}:",
        "TRUSTED_PROXIES": "1",
        "LOG_LEVEL": "warning",
        **settings,
    }
    with server("gevent", 1, env, stdout=-3) as (conf, proc):
        assert proc.stderr is not None
        threading.Thread(target=proc.stderr.read, daemon=True).start()
        port = int(conf["PORT"])
        wait_for_healthz(f"http://127.0.0.1:{port}/healthz", proc)
        [worker] = workers_of(proc.pid)
        yield Served(port, proc.pid, worker)


def raw_request(
    port: int,
    method: str,
    path: str,
    body: bytes = b"",
    headers: dict[str, str] | None = None,
    chunked: bool = False,
    keep_alive: float = 0.0,
) -> int:
    """Send a request as an attacker does: the whole body written as fast as the
    connection takes it, whatever the server answers meanwhile; the status read back (0:
    none came, the connection was closed first). ``keep_alive``: seconds the connection
    is then held open, as a client's keep-alive would (a server that drains a refused
    body does it then)."""
    head = [f"{method} {path} HTTP/1.1", "Host: x", "Content-Type: application/json"]
    head += [f"{k}: {v}" for k, v in (headers or {}).items()]
    head.append("Transfer-Encoding: chunked" if chunked else f"Content-Length: {len(body)}")
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    answer = b""
    try:
        sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode())
        step = 64 * 1024
        for at in range(0, len(body), step):
            piece = body[at : at + step]
            sock.sendall(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
        if chunked:
            sock.sendall(b"0\r\n\r\n")
    except OSError:
        pass  # the server closed: the answer may still be there to read
    try:
        sock.settimeout(10)
        while b"\r\n" not in answer:
            got = sock.recv(4096)
            if not got:
                break
            answer += got
        if keep_alive:
            sock.settimeout(keep_alive)
            while sock.recv(65536):
                pass
    except OSError:
        pass
    finally:
        sock.close()
    parts = answer.split(b" ", 2)
    return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
