"""The notifier's costs, on one local Redis: what the outbox write adds to a session move,
and how many webhooks one worker delivers per second to a local receiver.

- **The outbox write.** Two apps on the same Redis, one with a webhook configured (its
  sessions created with ``notify``), one without; each plays the same 2-seat classic
  game's moves through WSGI in process (no server, no socket: the move's own cost), in
  alternating slices (A B A B ...). The figure is the median per-slice µs per move of
  each, and their ratio. A move that hands the turn over writes one ``turn.started``.
- **Delivery.** ``sessions`` notifying sessions are made while no worker runs (each
  writes ``game.started`` and ``turn.started``); then one worker process
  (``python -m service.notifier``, ``NOTIFIER_CONCURRENCY`` deliveries in flight) and a
  receiver in this process (answers 204, counts the ids) run until every webhook came:
  webhooks per second, from the worker's start (its start-up, ~1 s, included and
  reported apart).

``python benchmarks/notify_bench.py [--moves N] [--slices K] [--sessions S]``.
"""

from __future__ import annotations

import argparse
import base64
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.http_instructions import _environ  # noqa: E402
from benchmarks.servers import free_port  # noqa: E402
from benchmarks.session_instructions import game_moves  # noqa: E402
from benchmarks.sessions_bench import redis_server  # noqa: E402

SECRET = "whsec_" + base64.b64encode(b"the notifier benchmark's secret").decode()


def wsgi(app: Any) -> Callable[..., tuple[bytes, dict[str, str]]]:
    def call(method: str, path: str, body: bytes = b"", **headers: str) -> Any:
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

    return call


class Player:
    """One app's session, moved along a fixed list of moves."""

    def __init__(self, app: Any, notify: bool, seed: int, moves: list[tuple[int, bytes]]) -> None:
        import orjson

        self.call = wsgi(app)
        body = {"variant": "uno_classic", "players": 2, "seed": seed}
        if notify:
            body["notify"] = True
        made, _ = self.call("POST", "/v1/sessions", orjson.dumps(body))
        new = orjson.loads(made)
        self.path = f"/v1/sessions/{new['session_id']}/moves"
        self.tokens = [s["token"] for s in new["seats"]]
        self.tag = f'"{new.get("etag", new["version"])}"'  # the ETag a move sends back
        self.moves = moves
        self.i = 0

    def play(self, n: int) -> float:
        """Seconds for the next ``n`` moves."""
        start = time.perf_counter()
        for _ in range(n):
            seat, body = self.moves[self.i]
            self.i += 1
            _, headers = self.call(
                "POST", self.path, body,
                authorization=f"Bearer {self.tokens[seat]}", if_match=self.tag,
            )  # fmt: skip
            self.tag = headers["ETag"]
        return time.perf_counter() - start


def outbox_cost(url: str, moves: int, slices: int) -> dict[str, Any]:
    os.environ["STATE_TOKEN_KEYS"] = ""
    from service import create_app

    common = {"REDIS_URL": url, "SESSION_KEY_PREFIX": f"b{uuid.uuid4().hex[:6]}:"}
    on = create_app({**common, "WEBHOOK_URL": "https://hooks.example.com/uno"})
    off = create_app(dict(common))
    per = moves // slices
    seed, game = game_moves(moves + 20)
    players = {"off": Player(off, False, seed, game), "on": Player(on, True, seed, game)}
    for p in players.values():
        p.play(20)  # warm
    times: dict[str, list[float]] = {"off": [], "on": []}
    for _ in range(slices):
        for name, p in players.items():
            times[name].append(p.play(per) / per * 1e6)
    store = on.extensions["sessions"].store
    sid = players["on"].path.split("/")[3]
    entries = store.outbox(sid)
    out = {k: statistics.median(v) for k, v in times.items()}
    out["ratio"] = out["on"] / out["off"]
    out["webhooks_written"] = len(entries)
    out["bytes_per_webhook"] = sum(map(len, entries)) / max(1, len(entries))
    out["moves"] = per * slices
    for app in (on, off):
        app.extensions["sessions"].store.close()
    return out


class Counter:
    def __init__(self) -> None:
        self.ids: set[str] = set()
        self.lock = threading.Lock()


def receiver(counter: Counter) -> tuple[ThreadingHTTPServer, int]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:  # noqa: N802
            self.rfile.read(int(self.headers.get("content-length", 0)))
            with counter.lock:
                counter.ids.add(self.headers["webhook-id"])
            self.send_response(204)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    port = free_port()
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, port


def delivery(url: str, sessions: int, concurrency: int) -> dict[str, Any]:
    from service import create_app

    counter = Counter()
    server, port = receiver(counter)
    env = {
        "REDIS_URL": url, "SESSION_KEY_PREFIX": f"d{uuid.uuid4().hex[:6]}:",
        "WEBHOOK_URL": f"http://127.0.0.1:{port}/hooks", "WEBHOOK_SECRET": SECRET,
        "WEBHOOK_ALLOW_HTTP": "on", "WEBHOOK_ALLOW_PRIVATE": "on",
        "NOTIFIER_POLL_SECONDS": "0.05", "NOTIFIER_METRICS_PORT": "0",
        "NOTIFIER_CONCURRENCY": str(concurrency), "LOG_LEVEL": "warning",
    }  # fmt: skip
    app = create_app(dict(env))
    call = wsgi(app)
    body = b'{"variant": "uno_classic", "players": 2, "notify": true}'
    for _ in range(sessions):
        call("POST", "/v1/sessions", body)
    expected = 2 * sessions
    fd, log_path = tempfile.mkstemp(prefix="notifier-", suffix=".log")
    log = os.fdopen(fd, "wb")
    start = time.perf_counter()
    worker = subprocess.Popen(
        [sys.executable, "-m", "service.notifier"], cwd=ROOT, env={**os.environ, **env},
        stdout=subprocess.DEVNULL, stderr=log,
    )  # fmt: skip
    first = None
    try:
        while len(counter.ids) < expected:
            if first is None and counter.ids:
                first = time.perf_counter()
            if time.perf_counter() - start > 120:
                raise RuntimeError(
                    f"only {len(counter.ids)} of {expected} webhooks came (log: {log_path})"
                )
            time.sleep(0.01)
        done = time.perf_counter()
    finally:
        worker.terminate()
        worker.wait(20)
        log.close()
        server.shutdown()
        app.extensions["sessions"].store.close()
    first = first or done
    return {
        "webhooks": expected,
        "sessions": sessions,
        "concurrency": concurrency,
        "seconds": done - start,
        "per_second": expected / (done - start),
        "start_up_seconds": first - start,
        "per_second_after_start": expected / max(1e-9, done - first),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=600)
    parser.add_argument("--slices", type=int, default=6)
    parser.add_argument("--sessions", type=int, default=500)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    with redis_server() as found:
        if found is None:
            print("redis-server is not installed")
            return 1
        url = found[0]
        cost = outbox_cost(url, args.moves, args.slices)
        print(
            f"session move in process, one Redis, {cost['moves']} moves a side: "
            f"without notify {cost['off']:.0f} µs, with notify {cost['on']:.0f} µs "
            f"({cost['ratio']:.2f}x); {cost['webhooks_written']} webhooks written, "
            f"{cost['bytes_per_webhook']:.0f} bytes each"
        )
        res = delivery(url, args.sessions, args.concurrency)
        print(
            f"one worker, {res['concurrency']} in flight, {res['webhooks']} webhooks of "
            f"{res['sessions']} sessions to a local receiver: {res['per_second']:.0f}/s "
            f"over {res['seconds']:.1f} s ({res['per_second_after_start']:.0f}/s after its "
            f"{res['start_up_seconds']:.1f} s start-up)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
