"""``GET /openapi.yaml``: the API description, read once when the app is made."""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Flask, Response, current_app
from werkzeug.exceptions import NotFound

#: The repository's (and the image's, /app/openapi.yaml) description, beside ``service/``.
OPENAPI = Path(__file__).resolve().parent.parent / "openapi.yaml"
YAML = "application/yaml"

bp = Blueprint("openapi", __name__)


@bp.get("/openapi.yaml")
def openapi() -> Response:
    spec: bytes = current_app.extensions["openapi_bytes"]
    if not spec:
        raise NotFound()
    return Response(spec, mimetype=YAML)


def init_app(app: Flask, path: Path = OPENAPI) -> None:
    app.extensions["openapi_bytes"] = path.read_bytes() if path.exists() else b""
    app.register_blueprint(bp)
