"""Instructions per session move in process, counted by valgrind's callgrind: the
Flask app called as a WSGI app (``http_instructions``'s environ, no server, no socket)
with ``POST /v1/sessions/{id}/moves``, a figure that does not move with the machine's
load.

Two stores: the in-process one and, when ``redis-server`` is installed, a real Redis
on a free loopback port (one round trip per move); ``redis-notify`` is that Redis with
a webhook configured and the session created with ``notify`` (each move also writes
its webhooks to the session's outbox, in the same script); ``cluster`` is a
three-master Redis Cluster (``tests.redis_procs.LocalCluster``). Each child makes a 2-seat classic
session (bots off), works out the game's moves with the engine, and sends ``WARM`` of
them, then ``calls`` more in the counted run; the uncounted run works out the same
moves and sends only the warm-up. The difference divided by ``calls`` is one move's
cost in the service (the client's engine work, start-up and imports cancel out).
``/healthz`` is counted the same way, as the figure the sessions benchmark divides by.

To compare two versions of the service (issue 44: what being right on every replica
costs), ``--tree PATH`` counts another checkout's service with this driver (its
modules first on the child's ``sys.path``); run it once per tree, side by side.

``python benchmarks/session_instructions.py [--calls N] [--stores memory,redis,cluster]
[--tree PATH]``; ``run(calls, stores, tree) -> dict``. Needs ``valgrind``. Slow
(minutes): not part of run.py.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.http_instructions import _environ  # noqa: E402

#: Moves sent before anything is counted.
WARM = 30
VARIANT = "uno_classic"


def game_moves(n: int) -> tuple[int, list[tuple[int, bytes]]]:
    """The first seed from 1 whose 2-seat game lasts ``n`` moves, and those moves as
    (seat, request body): random legal turn moves (no UNO calls or catches), as the
    sessions benchmark plays."""
    import random

    import orjson

    import engine

    seed = 0
    while True:
        seed += 1
        rnd = random.Random(seed)
        state, _ = engine.start(VARIANT, 2, seed)
        out: list[tuple[int, bytes]] = []
        while len(out) < n and state.phase is not engine.Phase.GAME_OVER:
            seat = state.pending.player if state.pending else state.current
            moves = engine.legal_moves(state, seat)
            move = rnd.choice([m for m in moves if m.type.value not in ("uno", "catch")] or moves)
            out.append((seat, orjson.dumps({"move": move.to_dict()})))
            state, _ = engine.apply(state, move)
        if len(out) == n:
            return seed, out


def child(target: str, calls: int) -> None:
    """Make the app (the store from ``REDIS_URL``; the service of ``SERVICE_TREE``
    when set), a session, and send ``WARM`` moves and ``/healthz`` calls, then
    ``calls`` of ``target`` (``move`` or ``healthz``; ``-`` for none). Every answer is
    checked."""
    import orjson

    tree = os.environ.get("SERVICE_TREE")
    if tree:
        sys.path.insert(0, tree)

    from service import create_app

    app = create_app()
    seed, moves = game_moves(WARM + calls)

    def call(method: str, path: str, body: bytes = b"", **headers: str) -> tuple[bytes, dict]:
        env = _environ(method, path, body)
        env.update({"HTTP_" + k.upper().replace("-", "_"): v for k, v in headers.items()})
        got: list[Any] = []

        def start_response(line: str, hdrs: Any, exc_info: Any = None) -> Any:
            got.extend((line, dict(hdrs)))

        chunks = app(env, start_response)
        data = b"".join(chunks)
        getattr(chunks, "close", lambda: None)()
        if got[0][:3] not in ("200", "201"):
            raise RuntimeError(f"{method} {path}: {got[0]} {data[:300]!r}")
        return data, got[1]

    create = {"variant": VARIANT, "players": 2, "seed": seed}
    if os.environ.get("WEBHOOK_URL"):
        create["notify"] = True
    made, _ = call("POST", "/v1/sessions", orjson.dumps(create))
    new = orjson.loads(made)
    path = f"/v1/sessions/{new['session_id']}/moves"
    tokens = [s["token"] for s in new["seats"]]
    tag = f'"{new.get("etag", new["version"])}"'  # a tree before ETags named commits

    def move(i: int) -> None:
        nonlocal tag
        seat, body = moves[i]
        _, headers = call("POST", path, body, authorization=f"Bearer {tokens[seat]}", if_match=tag)
        tag = headers["ETag"]

    for i in range(WARM):
        move(i)
        call("GET", "/healthz")
    for i in range(calls if target != "-" else 0):
        if target == "move":
            move(WARM + i)
        else:
            call("GET", "/healthz")


def count(
    target: str, calls: int, redis_url: str | None, notify: bool = False, tree: str = ""
) -> int:
    env = {**os.environ, "PYTHONHASHSEED": "0", "LOG_LEVEL": "warning", "STATE_TOKEN_KEYS": ""}
    env.pop("REDIS_URL", None)
    env.pop("WEBHOOK_URL", None)
    env["SERVICE_TREE"] = tree
    if redis_url:
        env["REDIS_URL"] = redis_url
    if notify:
        env["WEBHOOK_URL"] = "https://hooks.example.com/uno"
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
         __file__, "--child", target, str(calls)],
        capture_output=True, text=True, check=True, cwd=ROOT, env=env,
    )  # fmt: skip
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise RuntimeError(f"callgrind printed no total: {done.stderr[-500:]}")
    return int(found.group(1))


def run(
    calls: int = 100, stores: tuple[str, ...] = ("memory", "redis"), tree: str = ""
) -> dict[str, Any]:
    if shutil.which("valgrind") is None:
        return {"skipped": "valgrind is not installed (apt-get install valgrind)"}
    out: dict[str, Any] = {"calls": calls, "stores": {}}
    for store in stores:
        with store_url(store) as url:
            if store != "memory" and url is None:
                out["stores"][store] = {"skipped": "redis-server is not installed"}
                continue
            notify = store == "redis-notify"
            base = count("-", calls, url, notify, tree)
            row = {
                t: (count(t, calls, url, notify, tree) - base) / calls for t in ("move", "healthz")
            }
            row["move_vs_healthz"] = row["move"] / row["healthz"]
            out["stores"][store] = row
    return out


@contextmanager
def store_url(store: str) -> Iterator[str | None]:
    """The ``REDIS_URL`` of a throwaway server for ``store`` (None: the in-process
    store, or no ``redis-server``)."""
    from benchmarks.sessions_bench import redis_server

    if store == "cluster":
        if shutil.which("redis-server") is None:
            yield None
            return
        from tests.redis_procs import LocalCluster

        cluster = LocalCluster(3)
        cluster.start()
        try:
            yield cluster.url
        finally:
            cluster.stop()
        return
    with redis_server() as server:
        yield server[0] if server and store in ("redis", "redis-notify") else None


def print_table(res: dict[str, Any]) -> None:
    print(f"\nSession moves in process, instructions per request ({res.get('calls', 0)} calls)")
    if "skipped" in res:
        print(f"  skipped: {res['skipped']}")
        return
    for store, row in res["stores"].items():
        if "skipped" in row:
            print(f"  {store:8} skipped: {row['skipped']}")
            continue
        print(
            f"  {store:8} move {row['move']:12,.0f}   healthz {row['healthz']:10,.0f}"
            f"   move/healthz {row['move_vs_healthz']:.2f}"
        )


def main() -> int:
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--stores", default="memory,redis")
    parser.add_argument("--tree", default="", help="another checkout's service to count")
    args = parser.parse_args()
    print_table(run(args.calls, tuple(s for s in args.stores.split(",") if s), args.tree))
    return 0


if __name__ == "__main__":
    sys.exit(main())
