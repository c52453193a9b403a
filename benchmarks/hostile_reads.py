"""What a bot-only session costs its readers (issue 37, case 2): one person and nine
``hard`` bots (UNO Flip), the person leaves, then N anonymous ``GET``s at once, each from
its own app (a gunicorn worker of its own) on one Redis. Prints the worker CPU of the
leave and of each GET (``time.thread_time``: the thread's own CPU, whatever the others
do) and the version each GET answered. With ``--served``: the same GETs sent at once
to gunicorn with one gevent worker (``tests/hardening/served.py``), ``--rounds`` times:
the worker's CPU for each round (``/proc/<pid>/schedstat``) and each GET's wall time.

    python -m benchmarks.hostile_reads [--readers 5 10] [--variant uno_flip] [--served]

Starts a throwaway ``redis-server`` on a loopback port (stopped at the end)."""

from __future__ import annotations

import argparse
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from benchmarks.servers import process_cpu_seconds
from service import create_app
from tests.hardening.served import served
from tests.redis_procs import RedisServer, free_port


def bot_session(client: Any, variant: str, bots: int = 9) -> str:
    """A session of one person and ``bots`` hard bots whose person has left, to the
    highest target a game takes (so the bots play on for thousands of moves)."""
    players = [{"name": "Ann"}] + [{"bot": "hard"} for _ in range(bots)]
    body = {"variant": variant, "players": players, "options": {"target": 100_000}}
    r = client.post("/v1/sessions", json=body)
    assert r.status_code == 201, r.get_data(as_text=True)
    body = r.get_json()
    sid, token = body["session_id"], body["seats"][0]["token"]
    start = time.thread_time()
    left = client.post(f"/v1/sessions/{sid}/leave", headers={"Authorization": f"Bearer {token}"})
    cpu = time.thread_time() - start
    assert left.status_code == 200, left.get_data(as_text=True)
    print(f"leave: {cpu * 1000:.0f} ms CPU, version {left.get_json()['version']}")
    return str(sid)


def readers(apps: list[Any], sid: str) -> list[tuple[float, int, int]]:
    """One anonymous GET per app at once: (CPU seconds, status, version) each."""
    out: list[tuple[float, int, int]] = [(0.0, 0, 0)] * len(apps)
    go = threading.Barrier(len(apps))

    def read(i: int) -> None:
        client = apps[i].test_client()
        go.wait()
        start = time.thread_time()
        r = client.get(f"/v1/sessions/{sid}")
        cpu = time.thread_time() - start
        out[i] = (cpu, r.status_code, (r.get_json() or {}).get("version", 0))

    threads = [threading.Thread(target=read, args=(i,)) for i in range(len(apps))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def served_readers(url: str, readers: int, variant: str, rounds: int) -> None:
    """``readers`` anonymous GETs at once to one gevent worker, ``rounds`` times, of a
    session whose person left nine hard bots: the worker's CPU a GET, each GET's wall
    time."""
    with served(url) as s:
        players = [{"name": "Ann"}] + [{"bot": "hard"} for _ in range(9)]
        create = {"variant": variant, "players": players, "options": {"target": 100_000}}
        status, body = s.call("POST", "/v1/sessions", create)
        assert status == 201, body
        sid, token = body["session_id"], body["seats"][0]["token"]
        auth = {"Authorization": f"Bearer {token}"}
        assert s.call("POST", f"/v1/sessions/{sid}/leave", **auth)[0] == 200

        def read(i: int) -> tuple[int, float]:
            started = time.monotonic()
            got = s.call("GET", f"/v1/sessions/{sid}", **{"X-Forwarded-For": f"10.8.0.{i}"})
            return got[0], time.monotonic() - started

        for _ in range(rounds):
            cpu = process_cpu_seconds(s.worker)
            with ThreadPoolExecutor(readers) as pool:
                rows = list(pool.map(read, range(1, readers + 1)))
            spent = process_cpu_seconds(s.worker) - cpu
            walls = sorted(w * 1000 for _, w in rows)
            print(
                f"{readers} GETs at once, one gevent worker: worker CPU {spent * 1000:.0f} ms "
                f"({spent / readers * 1000:.1f} ms a GET), wall {walls[0]:.0f}-{walls[-1]:.0f} ms, "
                f"statuses {sorted({st for st, _ in rows})}"
            )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--readers", type=int, nargs="+", default=[5, 10])
    parser.add_argument("--variant", default="uno_flip")
    parser.add_argument("--served", action="store_true")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    server = RedisServer(free_port())
    server.start()
    try:
        if args.served:
            for n in args.readers:
                served_readers(server.url, n, args.variant, args.rounds)
            return
        config = {"REDIS_URL": server.url, "SESSION_KEY_PREFIX": f"h{uuid.uuid4().hex[:6]}:"}
        for n in args.readers:
            apps = [create_app(dict(config)) for _ in range(n)]
            sid = bot_session(apps[0].test_client(), args.variant)
            rows = readers(apps, sid)
            cpus = sorted(cpu * 1000 for cpu, _, _ in rows)
            print(
                f"{n} concurrent anonymous GETs: CPU per request max {cpus[-1]:.0f} ms, "
                f"median {cpus[len(cpus) // 2]:.0f} ms, total {sum(cpus):.0f} ms; "
                f"statuses {sorted({s for _, s, _ in rows})}, "
                f"versions {sorted({v for _, _, v in rows})}"
            )
            for app in apps:
                app.extensions["sessions"].store.close()
    finally:
        server.stop()


if __name__ == "__main__":
    main()
