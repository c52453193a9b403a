"""The HTTP anchor: a bare Flask app, one route answering a small JSON.

``benchmarks/http_bench.py`` serves it on stock gunicorn (no config file: the default
sync worker, one worker) under the same wrk load as the service, and reads the
workers' CPU per request from ``/proc``: the cost of the cheapest Flask request on
the most ordinary server, against which the service's ``apply`` is judged. Never
part of the service.
"""

from __future__ import annotations

from flask import Flask

app = Flask(__name__)


@app.get("/")
def hello() -> dict[str, bool]:
    return {"ok": True}
