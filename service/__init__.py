"""The UNO-family rules service: a Flask app over the pure ``engine``.

``create_app(config=None)`` builds the app: the stateless rules API (``/v1/variants``,
``/v1/games``), server-held sessions (``/v1/sessions``), health and readiness, the
OpenAPI document and its browsable page (``/docs/``), the games' rules (``/docs/rules``),
the browser playground (``/play``).
Settings: ``DEFAULTS``, then the environment (``ENV_SETTINGS``), then ``config``.
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING, Any

import engine
from service.replay_limits import DEFAULT_PAGE_MOVES, replay_max_bytes

if TYPE_CHECKING:  # Flask is loaded by create_app: the notifier imports this package without it
    from flask import Flask

DEFAULTS: dict[str, Any] = {
    # Requests larger than this are 413 payload_too_large (a full state is a few KiB).
    "MAX_CONTENT_LENGTH": 1024 * 1024,
    # POST /v1/games/replay plays a page of a game record, at most this many moves
    # (a longer record is sent in pages: docs/records.md).
    "REPLAY_PAGE_MOVES": DEFAULT_PAGE_MOVES,
    # Its body limit; unset, derived from REPLAY_PAGE_MOVES (``replay_max_bytes``: a
    # page of the heaviest moves pretty-printed, 160,768 bytes at 200 moves).
    "REPLAY_MAX_CONTENT_LENGTH": replay_max_bytes(DEFAULT_PAGE_MOVES),
    # Request JSON nested deeper than this is 400 invalid_json.
    "MAX_JSON_DEPTH": 32,
}
#: Integer settings also read from the environment.
ENV_SETTINGS = (
    "MAX_CONTENT_LENGTH",
    "MAX_JSON_DEPTH",
    "REPLAY_PAGE_MOVES",
    "REPLAY_MAX_CONTENT_LENGTH",
)

log = logging.getLogger("service")


def _env_settings() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in ENV_SETTINGS:
        raw = os.environ.get(name, "").strip()
        if raw:
            try:
                value = int(raw)
            except ValueError:
                raise ValueError(f"{name} must be an integer, got {raw!r}") from None
            if value < 1:
                raise ValueError(f"{name} must be positive, got {value}")
            out[name] = value
    return out


def create_app(config: dict[str, Any] | None = None) -> Flask:
    from flask import Flask

    from service.http import NoCookieSessions

    app = Flask(__name__)
    app.session_interface = NoCookieSessions()
    app.config.update(DEFAULTS)
    explicit = {**_env_settings(), **(config or {})}
    app.config.update(explicit)
    if "REPLAY_MAX_CONTENT_LENGTH" not in explicit:  # derived from the page set
        app.config["REPLAY_MAX_CONTENT_LENGTH"] = replay_max_bytes(app.config["REPLAY_PAGE_MOVES"])

    # Imported here, not at the top: ``python -m service.sealing`` runs that module as
    # ``__main__`` and would find it imported twice (runpy's RuntimeWarning).
    from service import (
        docs,
        http,
        matchmaking,
        observability,
        playground,
        problems,
        ratelimit,
        rules_docs,
        sessions,
        spec,
    )
    from service.games import bp as games_bp
    from service.health import bp as health_bp
    from service.sealing import Keyring
    from service.variants import bp as variants_bp

    http.install(app)
    observability.init_app(app)
    problems.register(app)
    keys = app.config.get("STATE_TOKEN_KEYS")
    ring = Keyring.parse(keys) if keys else Keyring.from_env()
    if ring.ephemeral:
        log.warning(
            "sealed state tokens: no STATE_TOKEN_KEYS, using a key made at start "
            "(tokens die with this process and do not cross replicas)"
        )
    app.extensions["state_keys"] = ring
    # Load the variant registry at start-up, so no request pays for the first load.
    engine.all_variants()
    app.register_blueprint(variants_bp)
    app.register_blueprint(games_bp)
    app.register_blueprint(health_bp)
    spec.init_app(app)
    docs.init_app(app)
    rules_docs.init_app(app)
    playground.init_app(app)
    sessions.init_app(app)
    matchmaking.init_app(app)
    ratelimit.init_app(app)
    return app
