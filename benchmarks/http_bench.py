"""HTTP benchmark: ``POST /v1/games/apply`` (a mid-game 3-player classic state) on
gunicorn with the production config (``service/gunicorn_conf.py``, one gevent worker,
as the anchor has one) under wrk
(a Lua body, 16 keep-alive connections, closed loop), against two anchors measured in
the same run, in alternating slices (anchor, healthz, apply, anchor, ...):

- **the anchor**: a bare Flask app with one route answering a small JSON
  (``benchmarks/anchor_app.py``) on stock gunicorn (no config file: the default sync
  worker, one worker) under the same wrk load; the figure is the server's CPU per
  request (master and workers, from ``/proc``), which does not depend on how much CPU
  wrk got. Target: ``apply`` costs at most the anchor's CPU per request.
- the same server's ``GET /healthz`` (reported);
- ``apply`` on a second such server that writes its access lines (``LOG_LEVEL=info``,
  the service's default; every other server here runs at ``warning``, no access lines,
  as the anchor writes none): what production pays for them (reported).

Then the p99 latency of ``apply`` at half of its measured throughput (wrk's per-request
``delay()`` paces the load), the p99 against the p50 of the saturated slices (no
connection may starve: p99 under 10x p50), the resident memory of each worker, and the
floor: a second server with one benchmark-only route (``benchmarks/floor_app.py``)
that reads the same body and answers the same bytes with no rules work, next to that
server's ``/healthz``.

``python benchmarks/http_bench.py [--quick] [--servers]``: ``--servers`` compares the
worker classes gunicorn can run with SSE still working (gevent; gevent_pywsgi, gevent's
own HTTP server, without gunicorn's post_request hook; gthread, whose streams each hold a
thread; sync, whose streams block a worker) against the same anchor.

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
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.servers import children, cpu_seconds, gunicorn, rss_bytes  # noqa: E402

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


#: Seats of the benchmark's game.
PLAYERS = 3


def apply_body() -> dict[str, Any]:
    """A mid-game classic 3-seat state and a legal move for it (the same request every
    time)."""
    import random

    import engine

    state = engine.new_game("uno_classic", PLAYERS, 12345)
    rnd = random.Random(5)
    for _ in range(25):
        seat = state.pending.player if state.pending else state.current
        state, _ = engine.apply(state, rnd.choice(engine.legal_moves(state, seat)))
    seat = state.pending.player if state.pending else state.current
    move = engine.legal_moves(state, seat)[0]
    return {"state": engine.to_dict(state), "move": move.to_dict()}


def body_players(body: dict[str, Any]) -> int:
    """The seats of an apply body's state."""
    return int(body["state"]["players"])


def apply_answer(body: dict[str, Any]) -> bytes:
    """What ``POST /v1/games/apply`` answers to ``body`` (the floor route sends it back)."""
    import orjson

    import engine

    state, events = engine.apply(
        engine.from_dict(body["state"]), engine.Move.from_dict(body["move"])
    )
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


@contextmanager
def anchor_server() -> Iterator[tuple[str, int, int]]:
    """The anchor: ``benchmarks/anchor_app.py`` on stock gunicorn, one sync worker."""
    with gunicorn(
        {}, app="benchmarks.anchor_app:app", options=("--workers", "1"), conf=None, ready_path="/"
    ) as server:
        yield server


def slices(targets: dict[str, tuple[str, int, str]], seconds: int, count: int) -> dict[str, Any]:
    """``wrk`` on each target in turns (A B C A B C ...), so that the machine's load swings
    hit all alike; per target the medians of requests/s, p50, p99 and the server's CPU per
    request, and the slices themselves. ``targets``: name -> (url, master pid, script)."""
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in targets}
    for _ in range(count):
        for name, (url, master, script) in targets.items():
            runs[name].append(timed(url, seconds, script, master))
    out: dict[str, Any] = {}
    for name, rows in runs.items():

        def med(key: str, rows: list[dict[str, Any]] = rows) -> float:
            return statistics.median(row[key] for row in rows)

        out[name] = {
            "requests_per_s": med("requests_per_s"),
            "p50_us": med("p50_us"),
            "p99_us": med("p99_us"),
            "server_cpu_us_per_request": med("server_cpu_us_per_request"),
            "errors": sum(row["errors"] + row["status_errors"] for row in rows),
            "slices": [
                {
                    k: row[k]
                    for k in ("requests_per_s", "p50_us", "p99_us", "server_cpu_us_per_request")
                }
                for row in rows
            ],
        }
    return out


def ratios(res: dict[str, Any], subject: str, anchor: str) -> dict[str, float]:
    """``subject``'s CPU per request over ``anchor``'s (at most 1 is the target) and its
    requests/s over the anchor's, from the medians; the per-slice CPU ratios' median."""
    a, b = res[anchor], res[subject]
    per_slice = [
        y["server_cpu_us_per_request"] / x["server_cpu_us_per_request"]
        for x, y in zip(a["slices"], b["slices"], strict=True)
    ]
    return {
        "cpu_per_request": b["server_cpu_us_per_request"] / a["server_cpu_us_per_request"],
        "cpu_per_request_slice_median": statistics.median(per_slice),
        "requests_per_s": b["requests_per_s"] / a["requests_per_s"],
    }


def worker_rss(master: int) -> list[int]:
    """The resident memory of each of ``master``'s workers, bytes."""
    out = []
    for pid in children(master):
        try:
            out.append(rss_bytes(pid))
        except OSError:
            continue
    return sorted(out)


def run(quick: bool) -> dict[str, Any]:
    if shutil.which("wrk") is None:
        return {"skipped": "wrk is not installed (apt-get install wrk)"}
    seconds, count = (2, 3) if quick else (3, 5)
    body = apply_body()
    script = post_script("/v1/games/apply", body)
    # One worker, as the anchor has (the --servers table has two).
    with (
        anchor_server() as (ah, ap, am),
        gunicorn({"WEB_CONCURRENCY": "1"}) as (host, port, master),
        gunicorn({"WEB_CONCURRENCY": "1", "LOG_LEVEL": "info"}) as (lh, lp, lm),
    ):
        anchor, base = f"http://{ah}:{ap}/", f"http://{host}:{port}"
        logged = f"http://{lh}:{lp}/v1/games/apply"
        wrk(anchor, 1, 16, "")  # warm-up
        wrk(base + "/v1/games/apply", 1, 16, script)
        wrk(logged, 1, 16, script)
        res = slices(
            {
                "anchor": (anchor, am, ""),
                "healthz": (base + "/healthz", master, ""),
                "apply": (base + "/v1/games/apply", master, script),
                "apply_logged": (logged, lm, script),
            },
            seconds,
            count,
        )
        conns = 4
        paced = wrk(
            base + "/v1/games/apply",
            seconds * 2,
            conns,
            post_script(
                "/v1/games/apply",
                body,
                delay_ms=conns * 1000 / (res["apply"]["requests_per_s"] / 2),
            ),
        )
        rss = worker_rss(master)
        anchor_rss = worker_rss(am)
    # The floor: the same server plus a route that reads the same body and answers the
    # same bytes with no rules work (benchmarks/floor_app.py), next to its own /healthz.
    with tempfile.NamedTemporaryFile(suffix=".json") as answer:
        answer.write(apply_answer(body))
        answer.flush()
        env = {"WEB_CONCURRENCY": "2", "BENCH_FLOOR_ANSWER": answer.name}
        with gunicorn(env, app="benchmarks.floor_app:create_app()") as (host, port, master):
            base = f"http://{host}:{port}"
            wrk(base + "/healthz", 1, 16, "")  # warm-up
            floor = slices(
                {
                    "healthz": (base + "/healthz", master, ""),
                    "floor": (base + "/bench/floor", master, post_script("/bench/floor", body)),
                },
                seconds,
                count,
            )
    apply = res["apply"]
    return {
        "seconds_per_slice": seconds,
        "slices": count,
        "players": PLAYERS,
        "request_bytes": len(json.dumps(body)),
        **res,
        "apply_vs_anchor": ratios(res, "apply", "anchor"),
        "apply_vs_healthz": ratios(res, "apply", "healthz"),
        "healthz_vs_anchor": ratios(res, "healthz", "anchor"),
        "apply_logged_vs_apply": ratios(res, "apply_logged", "apply"),
        "apply_p99_over_p50": apply["p99_us"] / max(apply["p50_us"], 1),
        "apply_at_half_load": paced,
        "worker_rss_bytes": rss,
        "anchor_worker_rss_bytes": anchor_rss,
        "floor": floor,
        "floor_vs_healthz": ratios(floor, "floor", "healthz"),
        "targets": {"apply_cpu_vs_anchor": 1.0, "half_load_p99_ms": 3.0, "p99_over_p50": 10.0},
    }


def _met(ok: bool) -> str:
    return "met" if ok else "NOT met"


def print_table(res: dict[str, Any]) -> None:
    print(
        "\nHTTP: wrk -t1 -c16 on loopback; the service on gunicorn (service/gunicorn_conf.py,"
        " 1 gevent worker); the anchor: benchmarks/anchor_app.py on stock gunicorn (1 sync worker)"
    )
    if "skipped" in res:
        print(f"  skipped: {res['skipped']}")
        return
    print(f"  {res['slices']} alternating slices of {res['seconds_per_slice']} s each; medians")
    print("  target                          req/s   p50 ms   p99 ms   CPU us/req   CPU vs anchor")
    for name, label in (
        ("anchor", "anchor: bare Flask, sync"),
        ("healthz", "GET /healthz"),
        ("apply", f"POST /v1/games/apply ({res['players']}p)"),
        ("apply_logged", "the same, access lines on"),
    ):
        row = res[name]
        ratio = (
            "1.00x"
            if name == "anchor"
            else f"{ratios(res, name, 'anchor')['cpu_per_request']:.2f}x"
        )
        print(
            f"  {label:28} {row['requests_per_s']:8,.0f} {row['p50_us'] / 1000:8.2f} {row['p99_us'] / 1000:8.2f}"
            f" {row['server_cpu_us_per_request']:12,.0f}   {ratio}"
            + (f"  ({row['errors']} errors)" if row["errors"] else "")
        )
    t = res["targets"]
    va, vh = res["apply_vs_anchor"], res["apply_vs_healthz"]
    print(
        f"  apply CPU/request vs the anchor: {va['cpu_per_request']:.2f}x (per-slice median"
        f" {va['cpu_per_request_slice_median']:.2f}x), target <= {t['apply_cpu_vs_anchor']:.0f}x:"
        f" {_met(va['cpu_per_request'] <= t['apply_cpu_vs_anchor'])}"
    )
    print(
        f"  apply vs the same server's /healthz: CPU/request {vh['cpu_per_request']:.2f}x,"
        f" req/s {vh['requests_per_s']:.2f}x"
    )
    vl = res["apply_logged_vs_apply"]
    print(
        f"  apply with its access lines (LOG_LEVEL=info, the default) vs without:"
        f" CPU/request {vl['cpu_per_request']:.2f}x (per-slice median"
        f" {vl['cpu_per_request_slice_median']:.2f}x)"
    )
    ratio = res["apply_p99_over_p50"]
    print(
        f"  apply p99 / p50 at 16 connections: {ratio:.1f}x, target < {t['p99_over_p50']:.0f}x:"
        f" {_met(ratio < t['p99_over_p50'])}"
    )
    p = res["apply_at_half_load"]
    print(
        f"  apply at half load     {p['requests_per_s']:10,.0f} req/s, p50 {p['p50_us'] / 1000:.2f} ms,"
        f" p99 {p['p99_us'] / 1000:.2f} ms, target < {t['half_load_p99_ms']:.0f} ms:"
        f" {_met(p['p99_us'] / 1000 < t['half_load_p99_ms'])}   ({res['request_bytes']} B body)"
    )
    mib = [f"{b / 2**20:.0f}" for b in res["worker_rss_bytes"]]
    amib = [f"{b / 2**20:.0f}" for b in res["anchor_worker_rss_bytes"]]
    print(f"  RSS per worker: {', '.join(mib)} MiB (the anchor's: {', '.join(amib)} MiB)")
    f, vf = res["floor"], res["floor_vs_healthz"]
    print(
        f"  floor: no rules work   {f['floor']['requests_per_s']:10,.0f} req/s,"
        f" {f['floor']['server_cpu_us_per_request']:,.0f} CPU us/req; its /healthz"
        f" {f['healthz']['requests_per_s']:,.0f} req/s: CPU {vf['cpu_per_request']:.2f}x,"
        f" req/s {vf['requests_per_s']:.2f}x"
    )
    print(
        "  floor: a route that reads apply's body and answers apply's bytes (benchmarks/floor_app.py)"
    )


#: The worker classes compared by ``--servers``: name -> (gunicorn env, extra options).
SERVERS: dict[str, tuple[dict[str, str], tuple[str, ...]]] = {
    "gevent x2": ({"WEB_CONCURRENCY": "2"}, ()),
    "gevent x1": ({"WEB_CONCURRENCY": "1"}, ()),
    # gevent's own HTTP server under gunicorn: gunicorn's post_request hook (the
    # fairness yield) and its max_requests recycling do not run there.
    "gevent_pywsgi x1": ({"WEB_CONCURRENCY": "1"}, ("--worker-class", "gevent_pywsgi")),
    "gthread x2, 8 threads": (
        {"WEB_CONCURRENCY": "2"},
        ("--worker-class", "gthread", "--threads", "8"),
    ),
    "sync x4": ({"WEB_CONCURRENCY": "4", "GUNICORN_WORKER_CLASS": "sync"}, ()),
}


def compare_servers(quick: bool) -> dict[str, Any]:
    """``apply`` on each of ``SERVERS`` and the anchor, all up at once, in alternating
    slices: CPU per request against the anchor's, requests/s, p50 and p99."""
    seconds, count = (2, 3) if quick else (3, 5)
    body = apply_body()
    script = post_script("/v1/games/apply", body)
    with ExitStack() as stack:
        ah, ap, am = stack.enter_context(anchor_server())
        targets = {"anchor": (f"http://{ah}:{ap}/", am, "")}
        for name, (env, options) in SERVERS.items():
            host, port, master = stack.enter_context(gunicorn(env, options=options))
            targets[name] = (f"http://{host}:{port}/v1/games/apply", master, script)
        for url, _, lua in targets.values():
            wrk(url, 1, 16, lua)  # warm-up
        res = slices(targets, seconds, count)
    for name in SERVERS:
        res[name]["vs_anchor"] = ratios(res, name, "anchor")
    return res


def print_servers(res: dict[str, Any]) -> None:
    print("\nPOST /v1/games/apply by worker class, wrk -t1 -c16, alternating slices; medians")
    print(
        "  server                      req/s   p50 ms   p99 ms  p99/p50  CPU us/req  CPU vs anchor"
    )
    for name, row in res.items():
        ratio = f"{row['vs_anchor']['cpu_per_request']:.2f}x" if "vs_anchor" in row else "1.00x"
        print(
            f"  {name:24} {row['requests_per_s']:8,.0f} {row['p50_us'] / 1000:8.2f} {row['p99_us'] / 1000:8.2f}"
            f" {row['p99_us'] / max(row['p50_us'], 1):7.1f}x {row['server_cpu_us_per_request']:11,.0f}   {ratio}"
        )


if __name__ == "__main__":
    quick_run = "--quick" in sys.argv
    if "--servers" in sys.argv:
        compared = compare_servers(quick_run)
        print_servers(compared)
        print(json.dumps(compared, indent=2))
    else:
        print_table(run(quick_run))
