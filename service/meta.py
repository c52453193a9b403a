"""``/v1/variants``, ``/healthz``, ``/readyz`` and ``/openapi.yaml``."""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, current_app

import engine
from service.http import json_response
from service.problems import ApiProblem

OPENAPI = Path(__file__).resolve().parent.parent / "openapi.yaml"

variants_bp = Blueprint("variants", __name__, url_prefix="/v1/variants")
health_bp = Blueprint("health", __name__)


@variants_bp.get("")
def list_variants() -> Response:
    return json_response({"variants": [v.metadata() for v in engine.all_variants()]})


@variants_bp.get("/<variant_id>")
def get_variant(variant_id: str) -> Response:
    try:
        variant = engine.find_variant(variant_id)
    except engine.UnknownVariant as exc:
        raise ApiProblem(404, "unknown_variant", exc.detail) from None
    return json_response(variant.metadata(with_catalog=True))


@health_bp.get("/healthz")
def healthz() -> Response:
    """Liveness: the process answers. No dependency is checked."""
    return json_response({"status": "ok"})


@health_bp.get("/readyz")
def readyz() -> Response:
    """Readiness: the session store is reachable (Redis when configured)."""
    from service.sessions import readiness

    sessions = readiness(current_app)
    ok = bool(sessions.get("ok", True))
    body = {"status": "ok" if ok else "unavailable", "sessions": sessions}
    return json_response(body, 200 if ok else 503)


@health_bp.get("/openapi.yaml")
def openapi() -> Response:
    spec: bytes = current_app.extensions["openapi_bytes"]
    return Response(spec, mimetype="application/yaml")
