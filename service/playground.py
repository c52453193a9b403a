"""``/play``: the browser playground, a page that plays a session against bots through
the public API only (``service/playground_assets/``: plain HTML, CSS and ES modules, no
build step, no CDN).

``GET /play`` is ``index.html``; ``GET /play/<asset>`` serves the other files of that
directory (read once when the app is made; an unknown name is a 404 problem). Every
answer carries a strong ETag and ``Cache-Control: no-cache`` (the browser keeps a copy
and revalidates it: a 304 until the file changes), and a Content-Security-Policy that
allows scripts, styles and connections to this origin only (the page has no inline
script or style).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from flask import Blueprint, Flask, Response, current_app, request
from werkzeug.exceptions import NotFound

ASSETS_DIR = Path(__file__).resolve().parent / "playground_assets"
PAGE = "index.html"
#: Content types by file suffix; a file of another suffix is not served.
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".png": "image/png",
    ".svg": "image/svg+xml",
}
CACHE_CONTROL = "no-cache"
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)

bp = Blueprint("playground", __name__)


@dataclass(frozen=True)
class Asset:
    body: bytes
    content_type: str
    etag: str


def load_assets(directory: Path = ASSETS_DIR) -> dict[str, Asset]:
    """Every servable file of ``directory`` by name (its bytes, type and ETag)."""
    out = {}
    for path in sorted(directory.iterdir()):
        ctype = TYPES.get(path.suffix)
        if path.is_file() and ctype is not None:
            body = path.read_bytes()
            out[path.name] = Asset(body, ctype, hashlib.sha256(body).hexdigest()[:32])
    return out


def asset_names(directory: Path = ASSETS_DIR) -> list[str]:
    """The names ``GET /play/<asset>`` serves (every asset but the page itself)."""
    return [name for name in load_assets(directory) if name != PAGE]


def _serve(name: str) -> Response:
    asset = current_app.extensions["playground_assets"].get(name)
    if asset is None:
        raise NotFound()
    resp = Response(asset.body, content_type=asset.content_type)
    resp.set_etag(asset.etag)
    resp.headers["Cache-Control"] = CACHE_CONTROL
    resp.headers["Content-Security-Policy"] = CSP
    resp.headers["X-Content-Type-Options"] = "nosniff"
    resp.headers["Referrer-Policy"] = "no-referrer"
    resp.make_conditional(request)  # 304 when If-None-Match names this ETag
    return resp


@bp.get("/play")
def page() -> Response:
    return _serve(PAGE)


@bp.get("/play/<name>")
def asset(name: str) -> Response:
    if name == PAGE:  # the page has one address
        raise NotFound()
    return _serve(name)


def init_app(app: Flask, directory: Path = ASSETS_DIR) -> None:
    app.extensions["playground_assets"] = load_assets(directory)
    app.register_blueprint(bp)
