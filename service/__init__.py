"""The UNO-family rules service: a Flask app over the pure ``engine``.

``create_app(config=None)`` builds the app: the stateless rules API (``/v1/variants``,
``/v1/games``), server-held sessions (``/v1/sessions``), health and readiness, the
OpenAPI document and its browsable page (``/docs``). Settings come from ``config``,
then the environment.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from flask import Flask

from service.sealing import Keyring

DEFAULTS: dict[str, Any] = {
    "MAX_CONTENT_LENGTH": 1024 * 1024,
}

log = logging.getLogger("service")


def create_app(config: dict[str, Any] | None = None) -> Flask:
    app = Flask(__name__)
    app.config.update(DEFAULTS)
    if "MAX_CONTENT_LENGTH" in os.environ:
        app.config["MAX_CONTENT_LENGTH"] = int(os.environ["MAX_CONTENT_LENGTH"])
    app.config.update(config or {})

    from service import problems
    from service.games import bp as games_bp
    from service.meta import OPENAPI, health_bp, variants_bp

    problems.register(app)
    keys = app.config.get("STATE_TOKEN_KEYS")
    ring = Keyring.parse(keys) if keys else Keyring.from_env()
    if ring.ephemeral:
        log.warning(
            "sealed state tokens: no STATE_TOKEN_KEYS, using a key made at start "
            "(tokens die with this process and do not cross replicas)"
        )
    app.extensions["state_keys"] = ring
    app.extensions["openapi_bytes"] = OPENAPI.read_bytes() if OPENAPI.exists() else b""
    app.register_blueprint(variants_bp)
    app.register_blueprint(games_bp)
    app.register_blueprint(health_bp)

    from service import sessions

    sessions.init_app(app)
    return app
