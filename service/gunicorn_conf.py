"""gunicorn settings, read from the environment: ``gunicorn -c service/gunicorn_conf.py``.

Loaded by path, not imported as ``service.gunicorn_conf``, so the master process does
not import the application (or anything gevent must patch) before the workers fork.

| variable | default | setting |
|---|---|---|
| ``BIND_HOST`` / ``PORT`` | ``0.0.0.0`` / ``8000`` | ``bind`` |
| ``WEB_CONCURRENCY`` | 2 x usable cores + 1, at most 9; 1 unless state is shared (below) | ``workers`` |
| ``GUNICORN_WORKER_CLASS`` | ``gevent`` (SSE streams need it); or ``sync`` | ``worker_class`` |
| ``GUNICORN_WORKER_CONNECTIONS`` | 1000 | ``worker_connections`` (gevent) |
| ``WEB_TIMEOUT`` | 30 | ``timeout`` (seconds) |
| ``GUNICORN_GRACEFUL_TIMEOUT`` | 20 | ``graceful_timeout`` (seconds) |
| ``GUNICORN_KEEPALIVE`` | 5 | ``keepalive`` (seconds) |
| ``GUNICORN_MAX_REQUESTS`` / ``_JITTER`` | 100000 / 10000 with ``REDIS_URL``, else 0 | worker recycling; 0 turns it off (recycling a worker would lose in-process sessions) |
| ``GUNICORN_WARMUP_TIMEOUT`` | 5 | seconds a new worker may spend warming before it takes traffic (``post_worker_init``, ``service.warmup``); 0 turns the warm-up off |
| ``GUNICORN_ACCESSLOG`` | ``off`` (the app logs one JSON access line a request) | ``-``: gunicorn's own line too, on stdout |
| ``LOG_LEVEL`` | ``info`` | ``loglevel`` |
| ``PROMETHEUS_MULTIPROC_DIR`` | a new directory under ``$TMPDIR``, removed at exit | where every worker writes its metrics (``on_starting``) |

Each worker builds its own app. Without ``REDIS_URL`` sessions live in that worker, and
without ``STATE_TOKEN_KEYS`` its sealing key is made at its start (either may instead be a
file named by ``REDIS_URL_FILE`` / ``STATE_TOKEN_KEYS_FILE``; the master reads both at
start, so a wrong path stops it at once), so a second worker
would not know the first one's sessions or tokens: then the default is one worker (gevent
still serves many connections). An explicit ``WEB_CONCURRENCY`` always wins.

Metrics: prometheus_client in multiprocess mode. Before the first worker starts,
``on_starting`` makes ``PROMETHEUS_MULTIPROC_DIR`` exist and empties it of metric files
(values left by an earlier run would be added to this one's), and exports it to the
workers; ``child_exit`` marks a dead worker's live gauges gone (its counters stay, so
totals never go back). One scrape of ``/metrics`` then sums every worker's files.
"""

from __future__ import annotations

import gc
import importlib.util
import math
import os
import shutil
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

WORKER_CLASSES = ("gevent", "sync")
METRICS_DIR = "PROMETHEUS_MULTIPROC_DIR"
#: The directory ``on_starting`` made (and ``on_exit`` removes), when none was given.
_made_metrics_dir: str | None = None
MAX_DEFAULT_WORKERS = 9


def _load_secretfiles() -> Any:
    """service/secretfiles.py by path: importing ``service`` would load the app in the master."""
    spec = importlib.util.spec_from_file_location(
        "_gunicorn_secretfiles", Path(__file__).with_name("secretfiles.py")
    )
    if spec is None or spec.loader is None:
        raise ImportError("service/secretfiles.py is missing beside gunicorn_conf.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


secretfiles = _load_secretfiles()


def _int(name: str, default: int, minimum: int = 0) -> int:
    """An integer setting from the environment, or the default when unset or empty."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"{name} must be an integer, got {raw!r}") from None
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
    return value


def usable_cpus(cgroup_cpu_max: Path = Path("/sys/fs/cgroup/cpu.max")) -> int:
    """Cores this process may use: its CPU affinity, lowered by a cgroup v2 CPU quota."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    cpus = cpus or 1
    try:
        quota, period = cgroup_cpu_max.read_text().split()[:2]
        if quota != "max":
            cpus = min(cpus, max(1, math.ceil(int(quota) / int(period))))
    except (OSError, ValueError):
        pass
    return cpus


def default_workers() -> int:
    """2 x cores + 1, capped: with gevent each worker already serves many connections."""
    return min(2 * usable_cpus() + 1, MAX_DEFAULT_WORKERS)


def state_is_shared(environ: Mapping[str, str] = os.environ) -> bool:
    """True when every worker sees the same sessions (Redis) and sealing keys."""
    return all(secretfiles.read(name, environ) for name in ("REDIS_URL", "STATE_TOKEN_KEYS"))


def _workers() -> int:
    explicit = _int("WEB_CONCURRENCY", 0, 1)
    if explicit:
        return explicit
    if state_is_shared():
        return default_workers()
    print(
        "gunicorn_conf: no REDIS_URL or no STATE_TOKEN_KEYS, so one worker (sessions and the "
        "sealing key would be per worker); set WEB_CONCURRENCY to choose",
        file=sys.stderr,
    )
    return 1


def _worker_class() -> str:
    value = os.environ.get("GUNICORN_WORKER_CLASS", "").strip() or "gevent"
    if value not in WORKER_CLASSES:
        raise ValueError(f"GUNICORN_WORKER_CLASS must be one of {WORKER_CLASSES}, got {value!r}")
    return value


def _accesslog() -> str | None:
    value = os.environ.get("GUNICORN_ACCESSLOG", "off").strip()
    return None if value.lower() in ("", "off", "none", "false", "0") else value


# The application: the factory, called in each worker after gevent has patched it.
wsgi_app = "service:create_app()"

# All interfaces by default: in a container the pod's IP is the way in (bandit B104 is
# accepted for this in security/accepted.toml); BIND_HOST narrows it.
bind = [f"{os.environ.get('BIND_HOST', '').strip() or '0.0.0.0'}:{_int('PORT', 8000, 1)}"]
workers = _workers()
worker_class = _worker_class()
worker_connections = _int("GUNICORN_WORKER_CONNECTIONS", 1000, 1)
timeout = _int("WEB_TIMEOUT", 30, 1)
graceful_timeout = _int("GUNICORN_GRACEFUL_TIMEOUT", 20, 1)
keepalive = _int("GUNICORN_KEEPALIVE", 5, 1)
# Recycling is a safety net against slow leaks, and not free: a worker's start costs about
# 0.6 s of CPU (imports and create_app), which every 5,000 requests was ~110 us a request.
max_requests = _int("GUNICORN_MAX_REQUESTS", 100_000 if secretfiles.read("REDIS_URL") else 0)
max_requests_jitter = _int("GUNICORN_MAX_REQUESTS_JITTER", 10_000) if max_requests else 0
# A worker warms before it takes traffic, for at most this long (0: it does not warm).
_warmup_timeout = _int("GUNICORN_WARMUP_TIMEOUT", 5)

# The heartbeat file on tmpfs: on a disk (or overlayfs) fchmod can stall a worker.
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
# No control socket: it would be created under $HOME, which a read-only pod does not have.
control_socket_disable = True

loglevel = os.environ.get("LOG_LEVEL", "info").strip().lower() or "info"
errorlog = "-"
accesslog = _accesslog()
access_log_format = (
    '{"time": "%(t)s", "remote": "%(h)s", "method": "%(m)s", "path": "%(U)s", '
    '"query": "%(q)s", "status": %(s)s, "bytes": "%(b)s", "duration_us": %(D)s, '
    '"request_id": "%({x-request-id}i)s", "user_agent": "%(a)s", "pid": "%(p)s"}'
)


def post_worker_init(worker: Any) -> None:
    """The worker has loaded the app: warm it (``service.warmup``: the store's client and
    connections, a first request through the app; at most ``GUNICORN_WARMUP_TIMEOUT``
    seconds), then move everything allocated so far (modules, the app, catalogs, the
    connections) out of the cyclic collector's reach, so that the full collections a
    busy worker runs do not rescan it (about 5% of the CPU of an apply, measured)."""
    if _warmup_timeout:
        from service.warmup import warm  # in the worker: the master never loads the app

        warm(worker.wsgi, _warmup_timeout)
    gc.collect()
    gc.freeze()


def pre_request(worker: Any, req: Any) -> None:
    """Give the app a way to close this request's connection after its answer: a body
    it refused unread (over its limit, rate-limited, ...) is then not drained by
    gunicorn, 1 KiB at a time, before the next request (360-510 ms of worker CPU for
    8 MiB, measured). gunicorn ignores an app's ``Connection: close``; the request's
    ``force_close`` is what its own errors use. The callable rides on the request's
    body, which is the app's ``wsgi.input`` (``service.http.CLOSE_CONNECTION``)."""
    worker.log.debug("%s %s", req.method, req.path)  # gunicorn's default hook
    req.body.uno_close_connection = req.force_close


def post_request(worker: Any, req: Any, environ: Any, resp: Any) -> None:
    """gevent: after each answer, let every other connection run before this one reads
    its next request (``gevent.idle`` returns once the event loop has polled and served
    everything else that was ready). gevent switches greenlets only when one would
    block, and a busy keep-alive client's next request is often in the socket by the
    time the worker reads it: one connection could then be served request after request
    while the others wait. Measured at 16 closed-loop connections on ``/healthz``: p99
    7.3-7.7 ms against a p50 of 4.6 ms with this; 170-350 ms without, and as bad when
    the worker yielded only if the next request was readable as it answered (wrk's next
    request often lands a few microseconds after that check)."""
    if worker_class != "gevent":
        return
    import gevent

    gevent.idle()


def prepare_metrics_dir(environ: dict[str, str] | os._Environ[str] = os.environ) -> str:
    """``PROMETHEUS_MULTIPROC_DIR``, existing and without metric files (``*.db``); a new
    private directory when it is unset (then put in ``environ`` for the workers)."""
    global _made_metrics_dir
    path = environ.get(METRICS_DIR, "").strip()
    if not path:
        path = _made_metrics_dir = tempfile.mkdtemp(prefix="uno-metrics-")
        environ[METRICS_DIR] = path
    os.makedirs(path, exist_ok=True)
    for entry in os.scandir(path):
        if entry.name.endswith(".db") and entry.is_file():
            os.remove(entry.path)
    return path


def on_starting(server: Any) -> None:
    """In the master, before any worker: the metrics directory (see the module doc)."""
    prepare_metrics_dir()


def child_exit(server: Any, worker: Any) -> None:
    """In the master, after a worker exited: drop its live gauges (sessions cached and
    held: a dead worker holds none); its counters and histograms stay in the totals."""
    from prometheus_client import multiprocess

    path = os.environ.get(METRICS_DIR, "").strip()
    if path:
        multiprocess.mark_process_dead(worker.pid, path)


def on_exit(server: Any) -> None:
    """The directory ``on_starting`` made goes with the server; a given one stays."""
    if _made_metrics_dir is not None:
        shutil.rmtree(_made_metrics_dir, ignore_errors=True)
