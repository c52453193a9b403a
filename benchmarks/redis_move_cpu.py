"""``redis-server`` CPU per session move: the Flask app in process (its test client, no
HTTP server) plays a 2-seat classic game (``session_instructions.game_moves``: random
turn moves from a seed) on a real Redis, or on a three-master Redis Cluster, and the
Redis processes' CPU seconds over the moves (``INFO cpu``: ``used_cpu_user`` +
``used_cpu_sys``, microseconds, summed over the masters) are divided by their number. What the server does for a move does not depend on how busy
the client is, so the figure moves little with the machine's load.

To compare two versions of the service (issue 44: what the commit id and the re-reads
cost), ``--trees A,B`` runs each tree's code in turn (a child per tree and round, the
tree's own modules first on ``sys.path``), ``--rounds`` times, alternating, on the same
servers; the ratio of the medians is B over A.

``python benchmarks/redis_move_cpu.py [--moves N] [--rounds R] [--stores redis,cluster]
[--trees A,B]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def redis_cpu(ports: list[int]) -> float:
    """The CPU seconds the Redis servers on ``ports`` used so far."""
    import redis

    total = 0.0
    for port in ports:
        with redis.Redis(port=port) as r:
            cpu: Any = r.info("cpu")
            total += float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"])
    return total


def child(tree: str, url: str, moves: int, ports: list[int]) -> None:
    """Play ``moves`` moves with ``tree``'s service on ``url``; print the Redis CPU µs a
    move (JSON)."""
    sys.path.insert(0, tree)
    import orjson

    from benchmarks.session_instructions import VARIANT, game_moves
    from service import create_app

    app = create_app({"REDIS_URL": url, "SESSION_KEY_PREFIX": f"b{len(tree)}:"})
    client = app.test_client()
    seed, plan = game_moves(moves)
    made = client.post("/v1/sessions", json={"variant": VARIANT, "players": 2, "seed": seed})
    body = made.get_json()
    sid, tokens = body["session_id"], [s["token"] for s in body["seats"]]
    tag = body.get("etag", body["version"])  # a tree before ETags named commits: none
    start = redis_cpu(ports)
    for seat, raw in plan:
        r = client.post(
            f"/v1/sessions/{sid}/moves", data=raw, content_type="application/json",
            headers={"Authorization": f"Bearer {tokens[seat]}", "If-Match": f'"{tag}"'},
        )  # fmt: skip
        if r.status_code != 200:
            raise RuntimeError(f"move: {r.status_code} {r.get_data()[:300]!r}")
        answer = orjson.loads(r.get_data())
        tag = answer.get("etag", answer["version"])
    used = redis_cpu(ports) - start
    app.extensions["sessions"].store.close()
    print(json.dumps({"us_per_move": used / len(plan) * 1e6}))


def measure(trees: list[str], url: str, ports: list[int], moves: int, rounds: int) -> list[Any]:
    found: dict[str, list[float]] = {t: [] for t in trees}
    for _ in range(rounds):
        for tree in trees:
            done = subprocess.run(
                [sys.executable, __file__, "--child", tree, url, str(moves),
                 ",".join(map(str, ports))],
                capture_output=True, text=True, check=True, cwd=tree,
            )  # fmt: skip
            found[tree].append(json.loads(done.stdout.strip().splitlines()[-1])["us_per_move"])
    return [(t, statistics.median(v), v) for t, v in found.items()]


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        tree, url, moves, ports = sys.argv[2:6]
        child(tree, url, int(moves), [int(p) for p in ports.split(",")])
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("--moves", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--stores", default="redis,cluster")
    parser.add_argument("--trees", default=str(ROOT))
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from tests.redis_procs import LocalCluster, RedisServer, free_port

    trees = args.trees.split(",")
    for kind in args.stores.split(","):
        if kind == "redis":
            server = RedisServer(free_port())
            server.start()
            try:
                rows = measure(trees, server.url, [server.port], args.moves, args.rounds)
            finally:
                server.stop()
        else:
            cluster = LocalCluster(3)
            cluster.start()
            try:
                rows = measure(trees, cluster.url, cluster.ports, args.moves, args.rounds)
            finally:
                cluster.stop()
        for tree, med, each in rows:
            print(f"{kind:8} {tree:30} {med:8.1f} µs/move  ({', '.join(f'{x:.1f}' for x in each)})")
        if len(rows) == 2:
            print(f"{kind:8} ratio {rows[1][1] / rows[0][1]:.3f} (second over first)")


if __name__ == "__main__":
    main()
