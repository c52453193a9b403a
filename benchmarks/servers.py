"""The servers the benchmarks start, and the CPU they use: a free loopback port,
gunicorn with the production config, CPU seconds of processes from ``/proc``."""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


#: The kernel's ephemeral ports (``ip_local_port_range``), read once.
_EPHEMERAL = Path("/proc/sys/net/ipv4/ip_local_port_range")
#: How many ports below the ephemeral range ``free_port`` draws from.
_SERVER_PORTS = 12_000


def _ephemeral_low() -> int:
    try:
        return int(_EPHEMERAL.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


#: The ports ``free_port`` handed out in this process: a server stopped to be started
#: again on its port (a failover, a restart) does not hold it meanwhile, and a cluster
#: node's bus port is drawn before the later nodes bind theirs.
_HANDED_OUT: set[int] = set()


def free_port() -> int:
    """A free loopback port for a server, drawn below the kernel's ephemeral range: a
    port the kernel hands out (bind to 0) may be taken by a client's outgoing connection
    before the server binds it, which two test workers' many connections made happen.
    Never one handed out before in this process; each pytest-xdist worker draws from a
    part of the range of its own, so two workers' servers cannot draw the same port."""
    low = _ephemeral_low()
    start, end = _worker_range(max(1024, low - _SERVER_PORTS), low)
    draw = random.SystemRandom()
    for _ in range(200):
        port = draw.randrange(start, end)
        if port in _HANDED_OUT:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        _HANDED_OUT.add(port)
        return port
    with socket.socket() as s:  # the range is full: any port the kernel gives
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    _HANDED_OUT.add(port)
    return port


def _worker_range(start: int, end: int) -> tuple[int, int]:
    """This pytest-xdist worker's part of ``[start, end)`` (``gw<i>`` of
    ``PYTEST_XDIST_WORKER_COUNT``); the whole of it outside a worker."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    count = os.environ.get("PYTEST_XDIST_WORKER_COUNT", "")
    if not (worker.startswith("gw") and worker[2:].isdigit() and count.isdigit()):
        return start, end
    index, parts = int(worker[2:]), max(1, int(count))
    size = (end - start) // parts
    return start + index % parts * size, start + (index % parts + 1) * size


def over_http(
    base: str,
    method: str,
    path: str,
    body: Any = None,
    headers: dict[str, str] | None = None,
    timeout: float = 30,
) -> tuple[int, Any]:
    """One request to the server at ``base`` on a new connection (so any of its workers
    may take it): its status and JSON answer."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method)
    req.add_header("Content-Type", "application/json")
    req.add_header("Connection", "close")
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def _stat(pid: int) -> list[str]:
    """The fields of ``/proc/<pid>/stat`` after the command name (field 3 first)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def process_cpu_seconds(pid: int) -> float:
    """The CPU the live threads of process ``pid`` have run, in seconds: the scheduler's
    count in nanoseconds (``/proc/<pid>/task/*/schedstat``), not clock ticks."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (OSError, IndexError, ValueError):
            continue  # a thread that ended meanwhile
    return total / 1e9


def cpu_seconds(pids: list[int], masters: tuple[int, ...] = ()) -> float:
    """CPU seconds so far of ``pids`` and of ``masters`` with all their children: the
    live ones (``process_cpu_seconds``), and the reaped ones through the master's
    cutime/cstime (gunicorn recycles workers: a worker that exits in a window still
    counts; the kernel keeps those in clock ticks only)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in {*pids, *masters, *(c for m in masters for c in children(m))}:
        try:
            total += process_cpu_seconds(pid)
            if pid in masters:
                fields = _stat(pid)
                total += (int(fields[13]) + int(fields[14])) / tick  # cutime, cstime
        except OSError:
            continue
    return total


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (gunicorn's workers)."""
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if int(_stat(int(d.name))[1]) == pid:
                    out.append(int(d.name))
            except (OSError, ValueError, IndexError):
                continue
    return out


@contextmanager
def gunicorn(
    env_extra: dict[str, str],
    app: str = "service:create_app()",
    options: tuple[str, ...] = (),
    conf: Path | None = ROOT / "service" / "gunicorn_conf.py",
    ready_path: str = "/readyz",
    start_seconds: float = 20,
) -> Iterator[tuple[str, int, int]]:
    """gunicorn with the production config (``service/gunicorn_conf.py``; ``conf=None``:
    stock gunicorn, no config file) serving ``app`` on a free loopback port, no access
    lines, its logs in a file (a pipe nobody reads fills up and stalls the workers),
    ``options`` added to its command line: (host, port, master pid). ``start_seconds``:
    how long it may take to answer (``serve``)."""
    port = free_port()
    env = {
        **os.environ,
        "PORT": str(port),
        "BIND_HOST": "127.0.0.1",
        "GUNICORN_ACCESSLOG": "off",
        "LOG_LEVEL": "warning",
        **env_extra,
    }
    if "REDIS_URL" not in env_extra:
        env.pop("REDIS_URL", None)
    config = ["-c", str(conf)] if conf is not None else []
    cmd = [
        sys.executable, "-m", "gunicorn", *config, "--bind", f"127.0.0.1:{port}", *options, app,
    ]  # fmt: skip
    ready = f"http://127.0.0.1:{port}{ready_path}"
    with serve("gunicorn", cmd, env, ready, start_seconds) as pid:
        yield "127.0.0.1", port, pid


@contextmanager
def serve(
    name: str, cmd: list[str], env: dict[str, str], ready_url: str, start_seconds: float = 20
) -> Iterator[int]:
    """Run the server ``cmd`` (from the project's root, its logs in a file: a pipe nobody
    reads fills up and stalls the workers) until ``ready_url`` answers 200
    (``start_seconds`` at most; its log's end in the error otherwise); its pid; SIGTERM
    when done."""
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=err)
        try:
            deadline = time.monotonic() + start_seconds
            while True:
                try:
                    with urllib.request.urlopen(ready_url, timeout=1) as r:
                        if r.status == 200:
                            break
                except OSError:
                    if proc.poll() is not None or time.monotonic() > deadline:
                        err.seek(0)
                        tail = err.read().decode(errors="replace")[-2000:]
                        raise RuntimeError(f"{name} did not start: {tail}") from None
                    time.sleep(0.1)
            yield proc.pid
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)


def rss_bytes(pid: int) -> int:
    """The resident set size of ``pid`` (``VmRSS`` in ``/proc/<pid>/status``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0
