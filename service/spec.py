"""``GET /openapi.yaml``: the API description, read once when the app is made. It is
``application/yaml``; a client that asks for ``text/plain`` (``Accept``) gets the same
bytes as text, which browsers show and every client generator reads."""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Flask, Response, current_app, request
from werkzeug.exceptions import NotFound

#: The repository's (and the image's, /app/openapi.yaml) description, beside ``service/``.
OPENAPI = Path(__file__).resolve().parent.parent / "openapi.yaml"
YAML = "application/yaml"
TEXT = "text/plain"

bp = Blueprint("openapi", __name__)


@bp.get("/openapi.yaml")
def openapi() -> Response:
    spec: bytes = current_app.extensions["openapi_bytes"]
    if not spec:
        raise NotFound()
    mimetype = request.accept_mimetypes.best_match([YAML, TEXT], default=YAML)
    resp = Response(spec, mimetype=mimetype)
    resp.vary.add("Accept")
    return resp


def init_app(app: Flask, path: Path = OPENAPI) -> None:
    app.extensions["openapi_bytes"] = path.read_bytes() if path.exists() else b""
    app.register_blueprint(bp)
