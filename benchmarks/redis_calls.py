"""What redis-py costs the client per session commit, measured in a tight loop:
``python benchmarks/redis_calls.py [--calls N]``.

A throwaway ``redis-server`` on a free loopback port; the store's ``COMMIT`` script
with a 1.5 KB state and two events, called in alternating slices three ways: through
``register_script`` (what ``RedisStore`` uses), through redis-py's own ``evalsha``,
and through ``execute_command("EVALSHA", ...)``. Each figure is the client process's
CPU per call (``time.process_time``), the median of the slices. ``Script.__call__``
is ``evalsha`` with a NOSCRIPT fallback, so the three should cost the same.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.redis_procs import RedisServer, free_port  # noqa: E402


def run(calls: int = 2000, slices: int = 7) -> dict[str, Any]:
    from service.sessions.redis_store import COMMIT, make_client

    server = RedisServer(free_port())
    server.start()
    try:
        client = make_client(server.url)
        keys = [f"bench:{{s}}:{k}" for k in ("state", "meta", "events", "idem", "idemq", "notify")]
        client.hset(keys[0], mapping={"v": 1, "seq": 0, "s": b"x"})
        script = client.register_script(COMMIT)
        state = b"x" * 1500
        version = [1]

        def args() -> list[Any]:
            v = version[0]
            version[0] += 1
            return [v, 3_600_000, 10_000, "PUBLISH", state, "", b"", 32, b'{"e":1}', b'{"e":2}']

        ways: dict[str, Callable[[], Any]] = {
            "register_script": lambda: script(keys=keys, args=args()),
            "evalsha": lambda: client.evalsha(script.sha, len(keys), *keys, *args()),
            "execute_command": lambda: client.execute_command(
                "EVALSHA", script.sha, len(keys), *keys, *args()
            ),
        }
        for way in ways.values():
            assert way()[0] == b"ok"
        cpu: dict[str, list[float]] = {name: [] for name in ways}
        for _ in range(slices):
            for name, way in ways.items():
                t0 = time.process_time()
                for _ in range(calls):
                    way()
                cpu[name].append((time.process_time() - t0) / calls * 1e6)
        client.close()
        return {
            "calls_per_slice": calls,
            "slices": slices,
            "client_cpu_us_per_commit": {k: statistics.median(v) for k, v in cpu.items()},
        }
    finally:
        server.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    res = run(parser.parse_args().calls)
    for name, us in res["client_cpu_us_per_commit"].items():
        print(f"{name:16} {us:7.1f} us client CPU per commit")
    print(json.dumps(res))
