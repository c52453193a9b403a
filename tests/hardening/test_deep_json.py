"""Deep JSON costs next to nothing: a body nested far past ``MAX_JSON_DEPTH`` (``[[[...``
to every route that takes JSON, as far as its byte limit: 1 MiB, the replay route's
``REPLAY_MAX_CONTENT_LENGTH``) is refused with 400 ``invalid_json`` while it is read, before
anything parses it, within a budget per request of the worker's CPU time and memory.

The service runs on a loopback server in this process (werkzeug's, one thread); each
request's cost is measured around the app in the thread that serves it: CPU with
``time.thread_time`` (the thread's CPU clock; reading the socket included), memory as
``tracemalloc``'s peak (in a second, separate run of the same request: tracing slows the code down).
Parsed first, as before the pre-scan, 8 MiB of ``[`` took about 100 MB."""

from __future__ import annotations

import http.client
import json
import threading
import time
import tracemalloc
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from werkzeug.serving import make_server

from service import create_app
from tests.hardening.conftest import ISSUE_37_CPU_BUDGET, MEMORY_BUDGET
from tests.service.harness import close

SPEC = Path(__file__).resolve().parents[2] / "openapi.yaml"


def json_routes() -> list[str]:
    """Every operation of the contract that takes a JSON body (POST, here)."""
    paths = yaml.safe_load(SPEC.read_text())["paths"]
    out = []
    for path, ops in paths.items():
        for method, op in ops.items():
            if isinstance(op, dict) and "application/json" in op.get("requestBody", {}).get(
                "content", {}
            ):
                assert method == "post", (method, path)
                out.append(path)
    return out


class Meter:
    """WSGI middleware: the CPU seconds or the peak traced bytes of each request, in
    the thread that serves it, the response body produced included."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.memory = False
        self.costs: list[float] = []

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        if self.memory:
            tracemalloc.start()
            try:
                body = self._run(environ, start_response)
                self.costs.append(tracemalloc.get_traced_memory()[1])
            finally:
                tracemalloc.stop()
            return body
        before = time.thread_time()
        body = self._run(environ, start_response)
        self.costs.append(time.thread_time() - before)
        return body

    def _run(self, environ: dict[str, Any], start_response: Any) -> list[bytes]:
        answer = self.app(environ, start_response)
        try:
            return list(answer)
        finally:
            getattr(answer, "close", lambda: None)()


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[int, Meter, Any]]:
    app = create_app({"TESTING": True, "LOG_LEVEL": "warning"})
    meter = Meter(app.wsgi_app)
    app.wsgi_app = meter  # type: ignore[method-assign]
    server = make_server("127.0.0.1", 0, app, threaded=False)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_port, meter, app
    finally:
        server.shutdown()
        thread.join(10)
        close(app)


def post(port: int, path: str, body: bytes) -> tuple[int, dict[str, Any]]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request("POST", path, body=body, headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read() or b"null")
    finally:
        conn.close()


def shapes(size: int) -> dict[str, bytes]:
    """Bodies of ``size`` bytes nested as deep as they can be."""
    half = size // 2
    return {
        "open": b"[" * size,
        "balanced": b"[" * half + b"]" * (size - half),
        "objects": (b'{"a":' * (size // 5)).ljust(size, b" "),
    }


def test_every_json_route_is_measured() -> None:
    assert len(json_routes()) == 11 and "/v1/games/replay" in json_routes()
    assert "/v1/matches" in json_routes()


@pytest.mark.parametrize("route", json_routes())
def test_a_deep_body_is_refused_within_the_budget(
    served: tuple[int, Meter, Any], route: str
) -> None:
    port, meter, app = served
    status, created = post(port, "/v1/sessions", b'{"variant": "uno_classic", "players": 2}')
    assert status == 201, created  # the meter lets the ordinary requests through
    path = route.replace("{session_id}", created["session_id"])
    replay = route.endswith("/replay")
    size = app.config["REPLAY_MAX_CONTENT_LENGTH" if replay else "MAX_CONTENT_LENGTH"]
    from service.replay_limits import replay_max_bytes

    assert size == (replay_max_bytes(app.config["REPLAY_PAGE_MOVES"]) if replay else 2**20)
    depth = app.config["MAX_JSON_DEPTH"]
    for shape, body in shapes(size).items():
        assert len(body) == size
        costs = []
        for memory in (False, True):
            meter.memory = memory
            meter.costs.clear()
            try:
                status, answer = post(port, path, body)
            finally:
                meter.memory = False
            assert (status, answer["code"]) == (400, "invalid_json"), (shape, answer)
            assert answer["detail"] == f"the request body nests deeper than {depth} levels"
            assert len(meter.costs) == 1
            costs.append(meter.costs[0])
        cpu, peak = costs
        assert cpu < ISSUE_37_CPU_BUDGET, f"{path} {shape}: {cpu * 1000:.1f} ms of CPU"
        assert peak < MEMORY_BUDGET, f"{path} {shape}: {peak / 2**20:.1f} MB"
