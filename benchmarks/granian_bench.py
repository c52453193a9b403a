"""granian, the server issue 18 measured at 1.45x less CPU a request, against gunicorn
(the production config, one gevent worker) and the anchor, on the same Flask app:

- ``POST /v1/games/apply`` at 16 connections, alternating slices, CPU per request,
  with granian's WSGI interface at several ``--blocking-threads`` (one worker each);
- the event streams: granian's WSGI runs each request, an SSE stream included, on one
  of its blocking threads for as long as it lasts. With ``streams`` streams open on a
  session, how long ``GET /healthz`` takes on each server.

``python benchmarks/granian_bench.py [--quick]``. granian is not a dependency of the
service: ``make bench`` installs the version below beside RLCard; without it the script
says so and stops. Slow (minutes): not part of run.py.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.http_bench import anchor_server, apply_body, post_script, ratios, slices, wrk  # noqa: E402
from benchmarks.servers import free_port, gunicorn, serve  # noqa: E402

#: The version ``make bench`` installs.
GRANIAN = "granian==2.8.9"
#: ``--blocking-threads`` of the granian servers compared.
THREADS = (1, 8, 64)


@contextmanager
def granian(threads: int) -> Iterator[tuple[str, int, int]]:
    """granian (WSGI, one worker, ``threads`` blocking threads, no access lines) serving
    the service's app on a free loopback port: (host, port, main pid)."""
    port = free_port()
    env = {**os.environ, "LOG_LEVEL": "warning"}
    env.pop("REDIS_URL", None)
    cmd = [
        sys.executable, "-m", "granian", "--interface", "wsgi", "--workers", "1",
        "--blocking-threads", str(threads), "--host", "127.0.0.1", "--port", str(port),
        "--no-access-log", "--factory", "service:create_app",
    ]  # fmt: skip
    with serve("granian", cmd, env, f"http://127.0.0.1:{port}/readyz") as pid:
        yield "127.0.0.1", port, pid


#: How long the stream probe waits for ``/healthz``.
HEALTHZ_WAIT = 10.0


def healthz_with_streams(base: str, streams: int, seconds: float) -> float | None:
    """Open ``streams`` event streams of ``seconds`` on a new session, then time one
    ``GET /healthz`` (seconds; None: no answer within ``HEALTHZ_WAIT``). The streams
    are left to end by themselves."""
    req = urllib.request.Request(
        base + "/v1/sessions",
        data=json.dumps(
            {"variant": "uno_classic", "players": [{"name": "a"}, {"name": "b"}]}
        ).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=10) as r:
        sid = json.load(r)["session_id"]

    def hold() -> None:
        url = f"{base}/v1/sessions/{sid}/stream?timeout={seconds}"
        try:
            with urllib.request.urlopen(url, timeout=seconds + 5) as r:
                r.read()
        except OSError:
            pass

    for _ in range(streams):
        threading.Thread(target=hold, daemon=True).start()
    time.sleep(min(2.0, seconds / 3))
    start = time.monotonic()
    try:
        with urllib.request.urlopen(base + "/healthz", timeout=HEALTHZ_WAIT) as r:
            r.read()
    except OSError:
        return None
    return time.monotonic() - start


def run(quick: bool) -> dict[str, Any]:
    if importlib.util.find_spec("granian") is None:
        return {"skipped": f"granian is not installed (pip install {GRANIAN}; make bench does)"}
    seconds, count = (2, 3) if quick else (3, 5)
    body = apply_body()
    script = post_script("/v1/games/apply", body)
    with ExitStack() as stack:
        ah, ap, am = stack.enter_context(anchor_server())
        gh, gp, gm = stack.enter_context(gunicorn({"WEB_CONCURRENCY": "1"}))
        targets = {
            "anchor": (f"http://{ah}:{ap}/", am, ""),
            "gunicorn gevent x1": (f"http://{gh}:{gp}/v1/games/apply", gm, script),
        }
        bases = {"gunicorn gevent x1": f"http://{gh}:{gp}"}
        for threads in THREADS:
            host, port, pid = stack.enter_context(granian(threads))
            name = f"granian x1, {threads} threads"
            targets[name] = (f"http://{host}:{port}/v1/games/apply", pid, script)
            bases[name] = f"http://{host}:{port}"
        for url, _, lua in targets.values():
            wrk(url, 1, 16, lua)  # warm-up
        res: dict[str, Any] = slices(targets, seconds, count)
        for name in bases:
            res[name]["vs_anchor"] = ratios(res, name, "anchor")
        # Each server with as many streams open as the most threads compared, plus one.
        streams = max(THREADS) + 1
        for name, base in bases.items():
            res[name]["healthz_s_with_streams"] = healthz_with_streams(base, streams, 6.0)
        res["streams"] = streams
    return res


def print_table(res: dict[str, Any]) -> None:
    print("\nPOST /v1/games/apply: gunicorn (gevent) and granian (WSGI), wrk -t1 -c16; medians")
    if "skipped" in res:
        print(f"  skipped: {res['skipped']}")
        return
    streams = res["streams"]
    print(
        f"  server                        req/s   p50 ms   p99 ms  CPU us/req  CPU vs anchor  /healthz with {streams} streams open"
    )
    for name, row in res.items():
        if not isinstance(row, dict):
            continue
        ratio = f"{row['vs_anchor']['cpu_per_request']:.2f}x" if "vs_anchor" in row else "1.00x"
        held = ""
        if "healthz_s_with_streams" in row:
            took = row["healthz_s_with_streams"]
            held = (
                f"{took * 1000:,.1f} ms"
                if took is not None
                else f"no answer in {HEALTHZ_WAIT:.0f} s"
            )
        print(
            f"  {name:26} {row['requests_per_s']:8,.0f} {row['p50_us'] / 1000:8.2f} {row['p99_us'] / 1000:8.2f}"
            f" {row['server_cpu_us_per_request']:11,.0f}   {ratio:>12}   {held}"
        )


if __name__ == "__main__":
    print_table(run("--quick" in sys.argv))
