"""HTTP benchmark: ``POST /v1/games/apply`` on gunicorn with the production config
under wrk (a Lua body), next to the same server's ``GET /healthz`` ceiling measured in
the same run; then the p99 latency of ``apply`` at half of its measured throughput
(wrk's per-request ``delay()`` paces the load). Last, the floor: a second server with
one benchmark-only route (``benchmarks/floor_app.py``) that reads the same body and
answers the same bytes with no rules work, next to that server's ``/healthz``; what
separates ``apply`` from the floor is the rules work, what separates the floor from
``/healthz`` is the framework's cost of a POST of this size.

Needs ``wrk`` (Debian package ``wrk``); the section is skipped with a note without it.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.servers import cpu_seconds, gunicorn  # noqa: E402

DONE_LUA = """
done = function(summary, latency, requests)
  io.write(string.format('{"requests": %d, "duration_us": %d, "errors": %d, "status_errors": %d,'
    .. ' "p50_us": %d, "p90_us": %d, "p99_us": %d, "mean_us": %d}\\n',
    summary.requests, summary.duration,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    summary.errors.status,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.mean))
end
"""


def wrk(url: str, seconds: float, connections: int, script: str) -> dict[str, Any]:
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
        f.write(script + DONE_LUA)
        path = f.name
    try:
        out = subprocess.run(
            ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--timeout", "5s", "-s", path, url],
            capture_output=True, text=True, timeout=seconds + 30, check=True,
        ).stdout  # fmt: skip
    finally:
        os.unlink(path)
    line = next(ln for ln in out.splitlines() if ln.startswith("{"))
    res = json.loads(line)
    res["requests_per_s"] = res["requests"] / (res["duration_us"] / 1e6)
    return res


def post_script(path: str, body: dict[str, Any], delay_ms: float | None = None) -> str:
    payload = json.dumps(json.dumps(body))  # a Lua-compatible quoted string
    script = (
        f'wrk.method = "POST"\nwrk.path = "{path}"\n'
        f'wrk.headers["Content-Type"] = "application/json"\nwrk.body = {payload}\n'
    )
    if delay_ms is not None:
        script += f"delay = function() return {delay_ms:.3f} end\n"
    return script


def apply_body() -> dict[str, Any]:
    """A mid-game classic state and a legal move for it (the same request every time)."""
    import random

    import engine

    state = engine.new_game("uno_classic", 4, 12345)
    rnd = random.Random(5)
    for _ in range(25):
        seat = state.pending.player if state.pending else state.current
        state, _ = engine.apply(state, rnd.choice(engine.legal_moves(state, seat)))
    seat = state.pending.player if state.pending else state.current
    move = engine.legal_moves(state, seat)[0]
    return {"state": engine.to_dict(state), "move": move.to_dict()}


def apply_answer(body: dict[str, Any]) -> bytes:
    """What ``POST /v1/games/apply`` answers to ``body`` (the floor route sends it back)."""
    import orjson

    import engine

    state, events = engine.apply(engine.from_dict(body["state"]), engine.Move.from_dict(body["move"]))
    viewer = body["move"]["player"]
    return orjson.dumps(
        {
            "state": engine.to_dict(state),
            "events": engine.redact_all(events, viewer),
            "view": engine.view(state, viewer),
        }
    )


def timed(url: str, seconds: int, script: str, master: int) -> dict[str, Any]:
    """``wrk`` at 16 connections, with the server's CPU per request (master and workers)."""
    cpu0 = cpu_seconds([], (master,))
    res = wrk(url, seconds, 16, script)
    cpu = cpu_seconds([], (master,)) - cpu0
    res["server_cpu_us_per_request"] = cpu / max(res["requests"], 1) * 1e6
    return res


def alternate(
    base: str, master: int, path: str, script: str, seconds: int, slices: int
) -> dict[str, Any]:
    """``/healthz`` and ``path`` in turns (A B A B ...), so that the machine's load swings
    hit both alike: the medians of each, of the per-slice ratios and of the server's CPU
    per request (a ratio that does not depend on how much CPU wrk got)."""
    pairs = [
        (timed(base + "/healthz", seconds, "", master), timed(base + path, seconds, script, master))
        for _ in range(slices)
    ]

    def med(i: int, key: str) -> float:
        return statistics.median(pair[i][key] for pair in pairs)

    return {
        "healthz_requests_per_s": med(0, "requests_per_s"),
        "requests_per_s": med(1, "requests_per_s"),
        "p99_us": med(1, "p99_us"),
        "ratio": statistics.median(b["requests_per_s"] / a["requests_per_s"] for a, b in pairs),
        "slice_ratios": [b["requests_per_s"] / a["requests_per_s"] for a, b in pairs],
        "healthz_server_cpu_us_per_request": med(0, "server_cpu_us_per_request"),
        "server_cpu_us_per_request": med(1, "server_cpu_us_per_request"),
        "cpu_ratio": med(0, "server_cpu_us_per_request") / med(1, "server_cpu_us_per_request"),
    }


def run(quick: bool) -> dict[str, Any]:
    if shutil.which("wrk") is None:
        return {"skipped": "wrk is not installed (apt-get install wrk)"}
    seconds, slices = (2, 3) if quick else (3, 5)
    body = apply_body()
    with gunicorn({"WEB_CONCURRENCY": "2"}) as (host, port, master):
        base = f"http://{host}:{port}"
        wrk(base + "/healthz", 1, 16, "")  # warm-up
        apply = alternate(
            base, master, "/v1/games/apply", post_script("/v1/games/apply", body), seconds, slices
        )
        conns = 4
        paced = wrk(
            base + "/v1/games/apply",
            seconds * 2,
            conns,
            post_script("/v1/games/apply", body, delay_ms=conns * 1000 / (apply["requests_per_s"] / 2)),
        )
    # The floor: the same server plus a route that reads the same body and answers the
    # same bytes with no rules work (benchmarks/floor_app.py), next to its own /healthz.
    with tempfile.NamedTemporaryFile(suffix=".json") as answer:
        answer.write(apply_answer(body))
        answer.flush()
        env = {"WEB_CONCURRENCY": "2", "BENCH_FLOOR_ANSWER": answer.name}
        with gunicorn(env, app="benchmarks.floor_app:create_app()") as (host, port, master):
            base = f"http://{host}:{port}"
            wrk(base + "/healthz", 1, 16, "")  # warm-up
            floor = alternate(
                base, master, "/bench/floor", post_script("/bench/floor", body), seconds, slices
            )
    return {
        "seconds_per_slice": seconds,
        "slices": slices,
        "apply": apply,
        "apply_at_half_load": paced,
        "floor": floor,
        "request_bytes": len(json.dumps(body)),
        "target_ratio": 0.8,
    }


def print_table(res: dict[str, Any]) -> None:
    print("\nHTTP: gunicorn (service/gunicorn_conf.py) on loopback, wrk -t1 -c16")
    if "skipped" in res:
        print(f"  skipped: {res['skipped']}")
        return
    a, p, f = res["apply"], res["apply_at_half_load"], res["floor"]
    print(f"  {res['slices']} alternating slices of {res['seconds_per_slice']} s each; medians")
    print("  route                        req/s   /healthz req/s   ratio   CPU us/req   cpu_ratio")
    for name, row in (("POST /v1/games/apply", a), ("floor: no rules work", f)):
        print(
            f"  {name:22} {row['requests_per_s']:10,.0f} {row['healthz_requests_per_s']:16,.0f}"
            f"   {row['ratio']:5.2f}x {row['server_cpu_us_per_request']:12,.0f}"
            f"   {row['cpu_ratio']:8.2f}x"
        )
    print(
        f"  apply at half load     {p['requests_per_s']:10,.0f} req/s, p50 {p['p50_us'] / 1000:.2f} ms,"
        f" p99 {p['p99_us'] / 1000:.2f} ms   ({res['request_bytes']} B body)"
    )
    print("  floor: a route that reads apply's body and answers apply's bytes (benchmarks/floor_app.py)")
