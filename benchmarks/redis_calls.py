"""What the Redis client costs the service per session store call, in process:
``python benchmarks/redis_calls.py [--calls N] [--no-instructions]``; ``run(calls) -> dict``.

A throwaway ``redis-server`` and a three-master Redis Cluster on loopback ports
(``tests/redis_procs.py``). The calls are ``RedisStore``'s own (so the key layout and
the scripts' arguments are always the store's): ``commit`` (a move's: a 1.5 KB state,
two events, one logged move), ``load`` (the state, meta and presence pipeline) and
``ping``, a bare ``PING`` to the node that holds the session (the floor: one round
trip). Three targets: one Redis; the cluster as the store uses it (each call to the
client of the slot's node); the cluster through redis-py's cluster client only
(``RedisStore(slot_clients=False)``, the store before issue 18's cluster work and the
path a call takes when a slot has moved).

Two figures per call: instructions of the client process under valgrind's callgrind
(the same warm-up run with and without ``calls`` calls, the difference divided by
``calls``: load-independent; skipped without valgrind), and the client's CPU per call
(``time.process_time``), the median of alternating slices. ``redis-server``'s own CPU
is in neither.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.redis_procs import LocalCluster, RedisServer, free_port  # noqa: E402

#: target -> (which server, slot_clients)
TARGETS = {
    "redis": ("redis", True),
    "cluster": ("cluster", True),
    "cluster-client": ("cluster", False),
}
OPS = ("commit", "load", "ping")
WARM = 50
SID = "benchSession0123456789"


def calls_of(url: str, slot_clients: bool) -> tuple[dict[str, Callable[[], Any]], Any]:
    """The store on ``url`` with a session made, and a function per op (each checked)."""
    from service.sessions.redis_store import RedisStore
    from service.sessions.store import CommitRequest

    # A prefix of its own (runs in parallel share the servers), a timeout valgrind's pace
    # does not reach.
    prefix = f"bench{os.getpid()}-{int(slot_clients)}:"
    store = RedisStore(url, prefix=prefix, slot_clients=slot_clients, timeout=10)
    store.create(SID, b'{"variant":"uno_classic"}', b"s" * 1500, [b'{"type":"dealt"}'])
    state, events, moves = b"x" * 1500, [b'{"type":"played"}', b'{"type":"drew"}'], [b'{"m":1}']
    version = [1]
    key = store._keys(SID)[0]

    def commit() -> None:
        res = store.commit(CommitRequest(SID, version[0], state, events, moves=moves))
        assert res.status == "ok", res
        version[0] += 1

    def load() -> None:
        assert store.load(SID) is not None

    if store.cluster:
        client = store.redis
        node = client.get_node_from_key(key)

        def ping() -> None:
            assert client.get_redis_connection(node).ping()

    else:

        def ping() -> None:
            assert store.redis.ping()

    return {"commit": commit, "load": load, "ping": ping}, store


def child(url: str, slot_clients: bool, op: str | None, calls: int) -> None:
    ops, store = calls_of(url, slot_clients)
    for _ in range(WARM):
        for fn in ops.values():
            fn()
    if op is not None:
        fn = ops[op]
        for _ in range(calls):
            fn()
    store.close()


def count(url: str, slot_clients: bool, op: str | None, calls: int) -> int:
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
         __file__, "--child", url, str(int(slot_clients)), op or "-", str(calls)],
        capture_output=True, text=True, check=True, cwd=ROOT,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )  # fmt: skip
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise RuntimeError(f"callgrind printed no total: {done.stderr[-500:]}")
    return int(found.group(1))


def instructions(urls: dict[str, str], calls: int) -> dict[str, dict[str, float]]:
    jobs = {
        (target, op): (urls[server], slot_clients, op)
        for target, (server, slot_clients) in TARGETS.items()
        for op in (None, *OPS)
    }
    with ThreadPoolExecutor(2) as pool:
        totals = dict(
            zip(
                jobs, pool.map(lambda j: count(j[0], j[1], j[2], calls), jobs.values()), strict=True
            )
        )
    return {
        target: {op: (totals[target, op] - totals[target, None]) / calls for op in OPS}
        for target in TARGETS
    }


def cpu(urls: dict[str, str], calls: int, slices: int) -> dict[str, dict[str, float]]:
    made = {t: calls_of(urls[server], sc) for t, (server, sc) in TARGETS.items()}
    for ops, _ in made.values():
        for _ in range(WARM):
            for fn in ops.values():
                fn()
    samples: dict[tuple[str, str], list[float]] = {(t, op): [] for t in TARGETS for op in OPS}
    for _ in range(slices):
        for target, (ops, _) in made.items():
            for op, fn in ops.items():
                t0 = time.process_time()
                for _ in range(calls):
                    fn()
                samples[target, op].append((time.process_time() - t0) / calls * 1e6)
    for _, store in made.values():
        store.close()
    return {t: {op: statistics.median(samples[t, op]) for op in OPS} for t in TARGETS}


def run(calls: int = 300, slices: int = 5, count_instructions: bool = True) -> dict[str, Any]:
    server = RedisServer(free_port())
    cluster = LocalCluster(3)
    server.start()
    try:
        cluster.start()
        urls = {"redis": server.url, "cluster": cluster.seed_url}
        out: dict[str, Any] = {"calls": calls, "slices": slices}
        out["client_cpu_us"] = cpu(urls, calls, slices)
        if not count_instructions:
            out["instructions"] = {"skipped": "--no-instructions"}
        elif shutil.which("valgrind") is None:
            out["instructions"] = {"skipped": "valgrind is not installed"}
        else:
            out["instructions"] = instructions(urls, calls)
        return out
    finally:
        cluster.stop()
        server.stop()


def print_table(res: dict[str, Any]) -> None:
    print(
        f"\nSession store calls, client side ({res['calls']} calls; CPU: median of {res['slices']} slices)"
    )
    ins = res["instructions"]
    for target in TARGETS:
        for op in OPS:
            n = ins.get(target, {}).get(op) if "skipped" not in ins else None
            count_txt = f"{n:10,.0f} instructions" if n is not None else " " * 23
            print(
                f"  {target:15} {op:7} {count_txt}  {res['client_cpu_us'][target][op]:7.1f} us CPU"
            )
    if "skipped" in ins:
        print(f"  instructions skipped: {ins['skipped']}")


def main() -> int:
    if len(sys.argv) == 6 and sys.argv[1] == "--child":
        _, _, url, sc, op, n = sys.argv
        child(url, sc == "1", None if op == "-" else op, int(n))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--no-instructions", action="store_true")
    args = parser.parse_args()
    res = run(args.calls, count_instructions=not args.no_instructions)
    print_table(res)
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
