"""Sessions benchmark: many concurrent sessions played through ``POST /v1/sessions/{id}/moves``
on gunicorn (``service/gunicorn_conf.py``, gevent workers) on loopback, next to the same
server's ``GET /healthz`` measured the same way in the same run.

The load generator is Python: client processes, each with a few threads, each thread
one keep-alive ``http.client`` connection (wrk's Lua cannot follow a game: each move
depends on the previous answer). A thread creates a 2-seat session (bots off), then
plays it move after move with the returned version (``If-Match``) and the seats'
tokens; to know the other seat's legal moves without an extra request it replays the
game locally from the seed it chose (the engine is deterministic), and reads the new
version from the ``ETag`` (the answer's body is not parsed). Only the moves are
counted; a finished game is replaced by a new session. Every thread starts at the same
instant (its first session made before it), and only requests that end inside the
measured window count.

The clients share the 2 cores with the server, so next to requests/s the run reports
CPU: the server's (gunicorn workers plus ``redis-server``, from ``/proc``) per request,
the clients' share of the machine, and ``cpu_ratio``: healthz's server CPU per
request over the moves'. That ratio does not depend on how much CPU the clients (or
anything else on the machine) take; the requests/s ratio is the target's measure.

Three servers: the embedded in-process store (one worker: its sessions are per
process) and, when ``redis-server`` is installed, a real Redis on a free loopback port
and a three-master Redis Cluster on loopback ports (two workers each). Neither recycles its workers (``GUNICORN_MAX_REQUESTS=0``; see ``run``).
And ``replicas``: one Redis with a replica (both on loopback), the same load with
``REDIS_MIN_REPLICAS`` 0 (``replica0``) and 1 (``replica1``: every move waits for the
replica, ``WAIT 1``): what the guarantee costs (docs/redis-durability.md).
``python benchmarks/sessions_bench.py [--quick] [--stores=memory,redis,cluster,replicas]``;
``run(quick, stores) -> dict``.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.servers import children, cpu_seconds, free_port, gunicorn  # noqa: E402

VARIANT = "uno_classic"


@contextmanager
def redis_server() -> Iterator[tuple[str, int] | None]:
    """A throwaway ``redis-server`` (no persistence) on a free port: (url, pid), or None."""
    exe = shutil.which("redis-server")
    if exe is None:
        yield None
        return
    port = free_port()
    proc = subprocess.Popen(
        [exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        import redis

        client = redis.Redis(port=port, socket_connect_timeout=0.2)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                break
            except redis.RedisError:
                if time.monotonic() > deadline:
                    raise RuntimeError("redis-server did not start") from None
                time.sleep(0.05)
        client.close()
        yield f"redis://127.0.0.1:{port}/0", proc.pid
    finally:
        proc.terminate()
        proc.wait(10)


# ---------------------------------------------------------------------- the clients
class Conn:
    """One keep-alive connection; ``request`` answers (status, body, seconds)."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.c = http.client.HTTPConnection(host, port, timeout=10)

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, bytes, float]:
        """A move (a request with ``If-Match``) answers its ``ETag`` instead of the body."""
        h = {"Content-Type": "application/json"} if body is not None else {}
        h.update(headers or {})
        t0 = time.perf_counter()
        try:
            self.c.request(method, path, body, h)
            resp = self.c.getresponse()
            data = resp.read()
        except (OSError, http.client.HTTPException):
            self.c.close()
            self.c = http.client.HTTPConnection(self.host, self.port, timeout=10)
            return 0, b"", time.perf_counter() - t0
        if "If-Match" in h and resp.status == 200:
            data = (resp.getheader("ETag") or "").encode()
        return resp.status, data, time.perf_counter() - t0


def _wait(start: float) -> None:
    left = start - time.monotonic()
    if left > 0:
        time.sleep(left)


def _healthz_thread(
    host: str, port: int, start: float, until: float, out: list[float], errors: list[int]
) -> None:
    conn = Conn(host, port)
    conn.request("GET", "/healthz")  # connect before the window
    _wait(start)
    while time.monotonic() < until:
        status, _, dt = conn.request("GET", "/healthz")
        if time.monotonic() > until:
            break
        if status == 200:
            out.append(dt)
        else:
            errors.append(status)


def _moves_thread(
    host: str,
    port: int,
    start: float,
    until: float,
    seed: int,
    out: list[float],
    errors: list[int],
    created: list[int],
) -> None:
    import orjson

    import engine

    conn = Conn(host, port)
    rnd = random.Random(seed)
    while time.monotonic() < until:
        game_seed = rnd.getrandbits(63)
        status, data, _ = conn.request(
            "POST",
            "/v1/sessions",
            orjson.dumps({"variant": VARIANT, "players": 2, "seed": game_seed}),
        )
        if status != 201:
            errors.append(status)
            time.sleep(0.05)
            continue
        new = orjson.loads(data)
        sid, tag = new["session_id"], f'"{new.get("etag", new["version"])}"'  # the ETag
        tokens = [s["token"] for s in new["seats"]]
        created.append(1)
        _wait(start)  # the first session is made before the window
        state, _ = engine.start(VARIANT, 2, game_seed)
        path = f"/v1/sessions/{sid}/moves"
        while time.monotonic() < until and state.phase is not engine.Phase.GAME_OVER:
            seat = state.pending.player if state.pending else state.current
            moves = engine.legal_moves(state, seat)
            turn = [m for m in moves if m.type.value not in ("uno", "catch")] or moves
            move = rnd.choice(turn)
            status, etag, dt = conn.request(
                "POST",
                path,
                orjson.dumps({"move": move.to_dict()}),
                {"Authorization": f"Bearer {tokens[seat]}", "If-Match": tag},
            )
            if time.monotonic() > until:
                break
            if status != 200:
                errors.append(status)
                break
            out.append(dt)
            tag = etag.decode()
            state, _ = engine.apply(state, move)
        conn.request(
            "DELETE", f"/v1/sessions/{sid}", headers={"Authorization": f"Bearer {tokens[0]}"}
        )


def _client(
    kind: str, host: str, port: int, start: float, seconds: float, threads: int, seed: int
) -> dict[str, Any]:
    """One client process: ``threads`` connections for ``seconds``; latencies in seconds."""
    import engine

    engine.all_variants()  # load the registry before the threads share it
    until = start + seconds
    lat: list[float] = []
    errors: list[int] = []
    created: list[int] = []
    target = _moves_thread if kind == "moves" else _healthz_thread
    ts = []
    for i in range(threads):
        args = (host, port, start, until, lat, errors) if kind != "moves" else (
            host, port, start, until, seed * 1000 + i, lat, errors, created
        )  # fmt: skip
        ts.append(threading.Thread(target=target, args=args))
    cpu0 = time.process_time()
    for t in ts:
        t.start()
    _wait(start)
    cpu1 = time.process_time()
    for t in ts:
        t.join()
    return {
        "latencies": lat,
        "errors": errors,
        "seconds": seconds,
        "sessions": len(created),
        # this process's CPU in the window (threads finish their last request after it)
        "cpu_s": time.process_time() - cpu1,
        "setup_cpu_s": cpu1 - cpu0,
    }


def load(
    kind: str,
    host: str,
    port: int,
    seconds: float,
    procs: int,
    threads: int,
    server_pids: list[int] | None = None,
    master: int | None = None,
) -> dict[str, Any]:
    """Closed-loop load from ``procs`` x ``threads`` connections: requests/s, p50, p99,
    and the CPU of the server (``master`` with its workers, ``server_pids``) and of the
    clients in the window."""
    server_pids = server_pids or []
    masters = (master,) if master else ()
    with ProcessPoolExecutor(procs) as pool:
        list(pool.map(abs, range(procs)))  # the workers exist before the clock starts
        # monotonic is system-wide on Linux: every client process starts at this instant
        start = time.monotonic() + 1.0
        futures = [
            pool.submit(_client, kind, host, port, start, seconds, threads, p + 1)
            for p in range(procs)
        ]
        _wait(start)
        workers0 = set(children(master)) if master else set()
        server0 = cpu_seconds(server_pids, masters)
        time.sleep(seconds)
        server_cpu = cpu_seconds(server_pids, masters) - server0
        recycled = len(workers0 - set(children(master))) if master else 0
        parts = [f.result() for f in futures]
    lat = sorted(x for p in parts for x in p["latencies"])
    errors = [e for p in parts for e in p["errors"]]

    def pct(q: float) -> float:
        return lat[min(len(lat) - 1, int(q * len(lat)))] * 1000 if lat else 0.0

    client_cpu = sum(p["cpu_s"] for p in parts)
    cores = len(os.sched_getaffinity(0))
    return {
        "requests": len(lat),
        "requests_per_s": len(lat) / seconds,
        "p50_ms": pct(0.50),
        "p99_ms": pct(0.99),
        "errors": len(errors),
        "error_statuses": sorted(set(errors)),
        "connections": procs * threads,
        "sessions_created": sum(p["sessions"] for p in parts),
        "workers_recycled": recycled,
        "server_cpu_us_per_request": server_cpu / len(lat) * 1e6 if lat else 0.0,
        "server_cpu_share": server_cpu / (seconds * cores),
        "client_cpu_share": client_cpu / (seconds * cores),
    }


def measure(
    env: dict[str, str],
    seconds: float,
    procs: int,
    threads: int,
    extra_pids: list[int],
    alone: bool = False,
) -> dict[str, Any]:
    """``alone``: the moves of one connection too (``moves_alone``: a move's latency
    without a queue)."""
    extra: dict[str, Any] = {}
    with gunicorn(env) as (host, port, master):
        load("healthz", host, port, 1.0, procs, threads)  # warm-up
        health = load("healthz", host, port, seconds, procs, threads, extra_pids, master)
        moves = load("moves", host, port, seconds, procs, threads, extra_pids, master)
        if alone:
            extra["moves_alone"] = load("moves", host, port, seconds, 1, 1, extra_pids, master)
    h_cpu, m_cpu = health["server_cpu_us_per_request"], moves["server_cpu_us_per_request"]
    return {
        **extra,
        "workers": int(env["WEB_CONCURRENCY"]),
        "healthz": health,
        "moves": moves,
        "ratio_moves_to_healthz": moves["requests_per_s"] / health["requests_per_s"]
        if health["requests_per_s"]
        else 0.0,
        "cpu_ratio": h_cpu / m_cpu if m_cpu else 0.0,
    }


STORES = ("memory", "redis", "cluster", "replicas")


def run(quick: bool, stores: tuple[str, ...] = STORES) -> dict[str, Any]:
    seconds = 3.0 if quick else 10.0
    procs, threads = 4, 2
    out: dict[str, Any] = {
        "generator": f"python http.client keep-alive, {procs} processes x {threads} threads",
        "variant": VARIANT,
        "seconds": seconds,
        # Moves' requests/s over the same server's /healthz (issue 18).
        "targets": {"redis": 0.6, "cluster": 0.5},
    }
    if "memory" in stores:
        # One worker, never recycled: the in-process store's sessions live in that worker.
        out["memory"] = measure(
            {"WEB_CONCURRENCY": "1", "GUNICORN_MAX_REQUESTS": "0"}, seconds, procs, threads, []
        )
    if "redis" in stores:
        with redis_server() as server:
            if server is None:
                out["redis"] = {"skipped": "redis-server is not installed"}
            else:
                url, pid = server
                # No recycling here either, so that a worker restart (~0.6 s of CPU and a
                # cold session cache) never lands inside a window: the production default
                # (every 100,000 +-10,000 requests) would not fire in a run this short, but
                # a lower GUNICORN_MAX_REQUESTS in the environment would. The table flags
                # any restart.
                out["redis"] = measure(
                    {"WEB_CONCURRENCY": "2", "GUNICORN_MAX_REQUESTS": "0", "REDIS_URL": url},
                    seconds,
                    procs,
                    threads,
                    [pid],
                )
    if "cluster" in stores:
        if shutil.which("redis-server") is None or shutil.which("redis-cli") is None:
            out["cluster"] = {"skipped": "redis-server is not installed"}
        else:
            out["cluster"] = cluster_measure(seconds, procs, threads)
    if "replicas" in stores:
        if shutil.which("redis-server") is None:
            out["replica0"] = out["replica1"] = {"skipped": "redis-server is not installed"}
        else:
            out.update(replicas_measure(seconds, procs, threads))
    print_table(out)
    return out


def cluster_measure(seconds: float, procs: int, threads: int) -> dict[str, Any]:
    """The same on a three-master Redis Cluster (``tests/redis_procs.LocalCluster``)."""
    from tests.redis_procs import LocalCluster

    cluster = LocalCluster(3)
    cluster.start()
    try:
        env = {"WEB_CONCURRENCY": "2", "GUNICORN_MAX_REQUESTS": "0", "REDIS_URL": cluster.url}
        return measure(env, seconds, procs, threads, cluster.pids)
    finally:
        cluster.stop()


def replicas_measure(seconds: float, procs: int, threads: int) -> dict[str, Any]:
    """The same on one Redis with a replica (``tests/redis_procs.RedisServer``), with
    ``REDIS_MIN_REPLICAS`` 0 and 1: ``{"replica0": ..., "replica1": ...}``."""
    from tests.redis_procs import RedisServer

    primary = RedisServer(free_port())
    replica = RedisServer(free_port(), replica_of=primary)
    out: dict[str, Any] = {}
    try:
        primary.start()
        replica.start()
        for n in (0, 1):
            env = {
                "WEB_CONCURRENCY": "2", "GUNICORN_MAX_REQUESTS": "0", "REDIS_URL": primary.url,
                "REDIS_MIN_REPLICAS": str(n),
            }  # fmt: skip
            pids = [primary.pid, replica.pid]
            out[f"replica{n}"] = measure(env, seconds, procs, threads, pids, alone=True)
    finally:
        replica.stop()
        primary.stop()
    return out


def print_table(res: dict[str, Any]) -> None:
    print(
        f"\nSessions: POST /v1/sessions/{{id}}/moves on gunicorn (gevent), {res['generator']},"
        f" {res['seconds']:.0f} s each"
    )
    print(
        "  store    workers  endpoint                 req/s    p50 ms   p99 ms  errors  ratio"
        "   server CPU us/req  server/client CPU share  cpu_ratio"
    )
    for store in ("memory", "redis", "cluster", "replica0", "replica1"):
        r = res.get(store)
        if r is None:
            continue
        if "skipped" in r:
            print(f"  {store:8} skipped: {r['skipped']}")
            continue
        for name, label in (("healthz", "GET /healthz (anchor)"), ("moves", "POST .../moves")):
            row = r[name]
            ratio = "1.00x" if name == "healthz" else f"{r['ratio_moves_to_healthz']:.2f}x"
            cpu_ratio = "1.00x" if name == "healthz" else f"{r['cpu_ratio']:.2f}x"
            print(
                f"  {store:8} {r['workers']:7}  {label:22} {row['requests_per_s']:8,.0f}"
                f"  {row['p50_ms']:8.2f} {row['p99_ms']:8.2f} {row['errors']:7}  {ratio}"
                f"  {row['server_cpu_us_per_request']:18,.0f}"
                f"  {row['server_cpu_share']:11.0%} / {row['client_cpu_share']:<11.0%}"
                f"  {cpu_ratio}"
                + (f"  (statuses {row['error_statuses']})" if row["errors"] else "")
                + (
                    f"  ({row['workers_recycled']} worker(s) recycled)"
                    if row["workers_recycled"]
                    else ""
                )
            )
    for store, target in res["targets"].items():
        r = res.get(store)
        if r is None or "skipped" in r:
            continue
        ratio = r["ratio_moves_to_healthz"]
        verdict = "met" if ratio >= target else "NOT met"
        print(
            f"  target ({store}): moves at least {target:.1f}x the same server's /healthz: {ratio:.2f}x, {verdict}"
        )
    print(
        "  server CPU: gunicorn master and workers (+ the redis-server processes); shares are"
        " of all cores;"
        " cpu_ratio: healthz's server CPU per request / the moves'"
    )
    if "requests_per_s" in res.get("replica0", {}).get("moves", {}) and "moves" in res.get(
        "replica1", {}
    ):
        zero, one = res["replica0"]["moves"], res["replica1"]["moves"]
        print(
            "  replica0/replica1: one Redis and its replica, REDIS_MIN_REPLICAS 0 / 1: moves"
            f" {one['requests_per_s'] / zero['requests_per_s']:.2f}x the requests/s, p50"
            f" {one['p50_ms'] - zero['p50_ms']:+.2f} ms, server CPU"
            f" {one['server_cpu_us_per_request'] - zero['server_cpu_us_per_request']:+,.0f} us"
            " a move"
        )
        zero, one = res["replica0"]["moves_alone"], res["replica1"]["moves_alone"]
        print(
            "  one connection alone, REDIS_MIN_REPLICAS 0 / 1: p50"
            f" {zero['p50_ms']:.2f} / {one['p50_ms']:.2f} ms, p99"
            f" {zero['p99_ms']:.2f} / {one['p99_ms']:.2f} ms,"
            f" {zero['requests_per_s']:,.0f} / {one['requests_per_s']:,.0f} moves/s"
        )


if __name__ == "__main__":
    picked = [a.split("=", 1)[1] for a in sys.argv if a.startswith("--stores=")]
    res = run("--quick" in sys.argv, tuple(picked[0].split(",")) if picked else STORES)
    if "--json" in sys.argv:
        print(json.dumps(res, indent=2))
