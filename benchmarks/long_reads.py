"""What reading a long game costs (issue 46, case 3): a game of one person and nine bots
played to ``--moves`` moves on one Redis, then read through gunicorn with one gevent
worker: the person's ``GET .../record`` (the first read in each of ``--fresh`` new
workers, the first read in the worker, again at the same
version, and after each of its next moves), and an anonymous ``GET .../stream`` from the
first event. Prints the worker's CPU per read (``/proc/<pid>/schedstat``), its peak RSS
growth (``VmHWM``) and the answer's size.

    python -m benchmarks.long_reads [--moves 5000] [--reads 5] [--fresh 3] [--cluster]

Starts a throwaway ``redis-server`` on a loopback port, or a three-master cluster with
``--cluster`` (stopped at the end)."""

from __future__ import annotations

import argparse
import http.client
import uuid
from collections.abc import Callable
from typing import Any

from benchmarks.servers import process_cpu_seconds
from service import create_app
from tests.hardening.long_game import long_game
from tests.hardening.served import Served, peak_rss, served
from tests.redis_procs import LocalCluster, RedisServer, free_port
from tests.sessions.conftest import Api


def fetch(port: int, path: str, token: str | None = None) -> tuple[int, int]:
    """One GET read to its end: the status and the answer's bytes."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", path, headers={"Authorization": f"Bearer {token}"} if token else {})
    resp = conn.getresponse()
    size = len(resp.read())
    conn.close()
    return resp.status, size


def measured(s: Served, read: Callable[[], tuple[int, int]]) -> dict[str, Any]:
    """One read's worker CPU (ms), peak RSS growth (MiB), status and size."""
    cpu, rss = process_cpu_seconds(s.worker), peak_rss(s.worker)
    status, size = read()
    return {
        "cpu_ms": round((process_cpu_seconds(s.worker) - cpu) * 1000, 1),
        "rss_mib": round((peak_rss(s.worker) - rss) / 2**20, 1),
        "status": status,
        "bytes": size,
    }


def run(moves: int = 5000, reads: int = 5, fresh: int = 3, cluster: bool = False) -> dict[str, Any]:
    redis: RedisServer | LocalCluster = LocalCluster() if cluster else RedisServer(free_port())
    redis.start()
    try:
        prefix = f"l{uuid.uuid4().hex[:6]}:"
        app = create_app(
            {"REDIS_URL": redis.url, "SESSION_KEY_PREFIX": prefix, "LOG_LEVEL": "warning"}
        )
        api = Api(app.test_client())
        sid, token, made = long_game(api, moves)
        events = len(app.extensions["sessions"].store.events(sid, 0, 10**6))
        out: dict[str, Any] = {"moves": made, "events": events}
        record = f"/v1/sessions/{sid}/record"
        firsts = []
        for _ in range(fresh):  # a worker's first read: nothing of the record kept yet
            with served(redis.url, SESSION_KEY_PREFIX=prefix) as s:
                firsts.append(measured(s, lambda: fetch(s.port, record, token)))
        out["record, a fresh worker's first read"] = firsts
        with served(redis.url, SESSION_KEY_PREFIX=prefix) as s:
            out["record, first read"] = measured(s, lambda: fetch(s.port, record, token))
            out["record, same version"] = measured(s, lambda: fetch(s.port, record, token))
            after_move = []
            for _ in range(reads):
                own = api.get(sid, token).get_json()
                move = next(m for m in own["legal_moves"] if m["type"] not in ("uno", "catch"))
                assert api.move(sid, token, move, own["version"]).status_code == 200
                after_move.append(measured(s, lambda: fetch(s.port, record, token)))
            out["record, after each move"] = after_move
            stream = f"/v1/sessions/{sid}/stream?max_events={events}"
            out["stream from the start"] = [
                measured(s, lambda: fetch(s.port, stream)) for _ in range(reads)
            ]
        app.extensions["sessions"].store.close()
        return out
    finally:
        redis.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=5000)
    parser.add_argument("--reads", type=int, default=5)
    parser.add_argument("--fresh", type=int, default=3, help="fresh workers' first reads")
    parser.add_argument("--cluster", action="store_true", help="a three-master Redis Cluster")
    args = parser.parse_args(argv)
    for name, value in run(args.moves, args.reads, args.fresh, args.cluster).items():
        print(f"{name}: {value}")


if __name__ == "__main__":
    main()
