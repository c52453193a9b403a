"""``/healthz`` (liveness) and ``/readyz`` (readiness: the session store answers)."""

from __future__ import annotations

from flask import Blueprint, Response, current_app

from service.http import json_response

bp = Blueprint("health", __name__)


@bp.get("/healthz")
def healthz() -> Response:
    """Liveness: the process answers. No dependency is checked."""
    return json_response({"status": "ok"})


@bp.get("/readyz")
def readyz() -> Response:
    """Readiness: the session store is reachable (Redis when configured)."""
    from service.sessions import readiness

    sessions = readiness(current_app)
    ok = bool(sessions.get("ok", True))
    body = {"status": "ok" if ok else "unavailable", "sessions": sessions}
    return json_response(body, 200 if ok else 503)
