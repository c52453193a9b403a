"""The service plus one benchmark-only route, to measure the framework's floor.

``POST /bench/floor`` reads and checks an apply body exactly as ``/v1/games/apply``
does (``json_body(schemas.apply_body)``), then answers the bytes of a real apply
answer (the file named by ``BENCH_FLOOR_ANSWER``) without any rules work: no state
read, no move, no view. Its requests/s next to ``/healthz`` is the best ratio any
``apply`` could reach on this stack (gunicorn, gevent, Flask, the service's hooks).
Never part of the service: only ``benchmarks/http_bench.py`` starts it.
"""

from __future__ import annotations

import os
from pathlib import Path

from flask import Flask, Response

from service import create_app as service_app
from service import schemas
from service.http import json_body


def create_app() -> Flask:
    app = service_app()
    answer = Path(os.environ["BENCH_FLOOR_ANSWER"]).read_bytes()

    @app.post("/bench/floor")
    def floor() -> Response:
        json_body(schemas.apply_body)
        return Response(answer, mimetype="application/json")

    return app
