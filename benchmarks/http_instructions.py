"""Instructions per HTTP request in process, counted by valgrind's callgrind: the
Flask app called as a WSGI app with a gunicorn-like environ (no server, no socket), a
figure that does not move with the machine's load.

Three targets: the anchor (``benchmarks/anchor_app.py``'s ``GET /``), the service's
``GET /healthz`` and its ``POST /v1/games/apply`` (``http_bench.apply_body``: 3 seats,
mid-game). Each app runs under callgrind once warmed up with no counted call, and once
more with ``calls`` calls of a target after the same warm-up; the difference divided
by ``calls`` is one request's cost, start-up and imports cancelled out.

``python benchmarks/http_instructions.py [--calls N]``; ``run(calls) -> dict``. Needs
``valgrind``; the section is skipped without it. Slow (minutes): not part of run.py.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: Warm-up calls of every route of an app before anything is counted.
WARM = 30
#: target -> (app, method, path)
TARGETS = {
    "anchor": ("anchor", "GET", "/"),
    "healthz": ("service", "GET", "/healthz"),
    "apply": ("service", "POST", "/v1/games/apply"),
}


def _environ(method: str, path: str, body: bytes) -> dict[str, Any]:
    env: dict[str, Any] = {
        "REQUEST_METHOD": method, "SCRIPT_NAME": "", "PATH_INFO": path, "QUERY_STRING": "",
        "RAW_URI": path, "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "8000",
        "SERVER_PROTOCOL": "HTTP/1.1", "REMOTE_ADDR": "127.0.0.1", "REMOTE_PORT": "40000",
        "HTTP_HOST": "127.0.0.1:8000", "HTTP_USER_AGENT": "wrk", "wsgi.input": io.BytesIO(body),
        "wsgi.input_terminated": True, "wsgi.url_scheme": "http", "wsgi.errors": sys.stderr,
        "wsgi.multithread": True, "wsgi.multiprocess": False, "wsgi.run_once": False,
        "wsgi.version": (1, 0),
    }  # fmt: skip
    if body:
        env["CONTENT_TYPE"] = "application/json"
        env["CONTENT_LENGTH"] = str(len(body))
    return env


def child(app_name: str, target: str | None, calls: int) -> None:
    """Load ``app_name``, warm every one of its routes, then call ``target`` ``calls``
    times (each answer checked)."""
    sys.path.insert(0, str(ROOT))
    import orjson

    from benchmarks.http_bench import apply_body

    if app_name == "anchor":
        from benchmarks.anchor_app import app
    else:
        from service import create_app

        app = create_app()
    body = orjson.dumps(apply_body())
    routes = {n: t for n, t in TARGETS.items() if t[0] == app_name}

    def call(name: str) -> None:
        _, method, path = TARGETS[name]
        status: list[str] = []

        def start_response(line: str, headers: Any, exc_info: Any = None) -> Any:
            status.append(line)

        chunks = app(_environ(method, path, body if method == "POST" else b""), start_response)
        b"".join(chunks)
        getattr(chunks, "close", lambda: None)()
        if not status[0].startswith("200"):
            raise RuntimeError(f"{name}: {status[0]}")

    for _ in range(WARM):
        for name in routes:
            call(name)
    for _ in range(calls if target else 0):
        call(str(target))


def count(app_name: str, target: str | None, calls: int) -> int:
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
         __file__, "--child", app_name, target or "-", str(calls)],
        capture_output=True, text=True, check=True, cwd=ROOT,
        env={**os.environ, "PYTHONHASHSEED": "0", "LOG_LEVEL": "warning", "STATE_TOKEN_KEYS": ""},
    )  # fmt: skip
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise RuntimeError(f"callgrind printed no total: {done.stderr[-500:]}")
    return int(found.group(1))


def run(calls: int = 200) -> dict[str, Any]:
    if shutil.which("valgrind") is None:
        return {"skipped": "valgrind is not installed (apt-get install valgrind)"}
    jobs = {
        "anchor:0": ("anchor", None),
        "service:0": ("service", None),
        **{name: (app, name) for name, (app, _, _) in TARGETS.items()},
    }
    with ThreadPoolExecutor(2) as pool:
        totals = dict(
            zip(jobs, pool.map(lambda j: count(j[0], j[1], calls), jobs.values()), strict=True)
        )
    out: dict[str, Any] = {"calls": calls, "targets": {}}
    for name, (app, _, _) in TARGETS.items():
        out["targets"][name] = (totals[name] - totals[f"{app}:0"]) / calls
    anchor = out["targets"]["anchor"]
    out["vs_anchor"] = {name: n / anchor for name, n in out["targets"].items()}
    return out


def print_table(res: dict[str, Any]) -> None:
    print(f"\nHTTP in process, instructions per request (callgrind, {res.get('calls', 0)} calls)")
    if "skipped" in res:
        print(f"  skipped: {res['skipped']}")
        return
    for name, n in res["targets"].items():
        print(f"  {name:10} {n:12,.0f} instructions   {res['vs_anchor'][name]:.2f}x the anchor")


def main() -> int:
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        child(sys.argv[2], None if sys.argv[3] == "-" else sys.argv[3], int(sys.argv[4]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=200)
    print_table(run(parser.parse_args().calls))
    return 0


if __name__ == "__main__":
    sys.exit(main())
