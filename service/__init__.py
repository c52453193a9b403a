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
from collections.abc import Callable
from typing import Any

from flask import Flask, Request
from flask.sessions import SessionInterface, SessionMixin
from werkzeug.routing import MapAdapter
from werkzeug.wsgi import get_host

import engine

DEFAULTS: dict[str, Any] = {
    # Requests larger than this are 413 payload_too_large (a full state is a few KiB).
    "MAX_CONTENT_LENGTH": 1024 * 1024,
    # POST /v1/games/replay takes a whole game record: a record of SESSION_MAX_MOVES
    # (20,000) moves weighs about 2 MiB (docs/records.md).
    "REPLAY_MAX_CONTENT_LENGTH": 8 * 1024 * 1024,
    # Request JSON nested deeper than this is 400 invalid_json.
    "MAX_JSON_DEPTH": 32,
}
#: Integer settings also read from the environment.
ENV_SETTINGS = ("MAX_CONTENT_LENGTH", "MAX_JSON_DEPTH", "REPLAY_MAX_CONTENT_LENGTH")

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


class NoCookieSessions(SessionInterface):
    """No cookie sessions: the API never reads or sets Flask's ``session`` (its seats
    hold bearer tokens). Each request gets Flask's null session at once, without looking
    for a secret key first (Flask's default interface does that on every request)."""

    def open_session(self, app: Flask, request: Any) -> SessionMixin:
        return self.make_null_session(app)

    def save_session(self, app: Flask, session: SessionMixin, response: Any) -> None:
        return None


#: The most host names ``ServiceApp`` keeps IDNA-encoded (the Host header is the
#: client's: the table is emptied when full).
MAX_HOSTS = 256


def _wsgi_str(value: str | None) -> str | None:
    """A WSGI environ string as werkzeug reads it (latin-1 bytes decoded as UTF-8)."""
    if value is None or value.isascii():
        return value
    return value.encode("latin1").decode(errors="replace")


class ServiceApp(Flask):
    """Flask, with three per-request costs of features the service does not use taken
    out: cookie sessions (``NoCookieSessions``); the ``async def`` check that
    ``ensure_sync`` makes for every hook and view on every request: here it is made
    once per function (an ``async def`` view would still be wrapped, as in Flask); and
    in ``create_url_adapter``, the second reading of the Host header and its IDNA
    encoding on every request (``bind_to_environ``): here the host is read once and
    its encoding kept per host name. With ``SERVER_NAME``, ``TRUSTED_HOSTS``, host or
    subdomain matching set, Flask's own method runs. tests/service/test_app_class.py
    holds the adapters to Flask's."""

    session_interface = NoCookieSessions()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._sync: dict[Callable[..., Any], Callable[..., Any]] = {}
        #: Host (as ``get_host`` gives it) -> the server name ``Map.bind`` makes of it.
        self._server_names: dict[str, str] = {}

    def create_url_adapter(self, request: Request | None) -> MapAdapter | None:
        config = self.config
        if (
            request is None
            or config["SERVER_NAME"] is not None
            or config["TRUSTED_HOSTS"] is not None
            or request.trusted_hosts is not None
            or self.url_map.host_matching
            or self.subdomain_matching
        ):
            return super().create_url_adapter(request)
        env = request.environ
        host = request.host = get_host(env)  # type: ignore[misc]
        server_name = self._server_names.get(host)
        if server_name is None:
            # Map.bind lowercases and IDNA-encodes (BadHost, a 400, if it cannot).
            server_name = self.url_map.bind(host).server_name
            if len(self._server_names) >= MAX_HOSTS:
                self._server_names.clear()
            self._server_names[host] = server_name
        scheme = env["wsgi.url_scheme"]
        connection = env.get("HTTP_CONNECTION")
        if (
            connection
            and env.get("HTTP_UPGRADE", "").lower() == "websocket"
            and any(v.strip(" \t") == "upgrade" for v in connection.lower().split(","))
        ):
            scheme = "wss" if scheme == "https" else "ws"
        script_name = _wsgi_str(env.get("SCRIPT_NAME"))
        path_info = _wsgi_str(env.get("PATH_INFO"))
        return MapAdapter(
            self.url_map,
            server_name,
            "/" if script_name is None else script_name,
            self.url_map.default_subdomain or "",
            scheme,
            "/" if path_info is None else path_info,
            env["REQUEST_METHOD"],
            _wsgi_str(env.get("QUERY_STRING")),
        )

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        try:
            return self._sync[func]
        except KeyError:
            sync = self._sync[func] = super().ensure_sync(func)
            return sync
        except TypeError:  # an unhashable callable: Flask's own check, every time
            return super().ensure_sync(func)


def create_app(config: dict[str, Any] | None = None) -> Flask:
    app = ServiceApp(__name__)
    app.config.update(DEFAULTS)
    app.config.update(_env_settings())
    app.config.update(config or {})

    # Imported here, not at the top: ``python -m service.sealing`` runs that module as
    # ``__main__`` and would find it imported twice (runpy's RuntimeWarning).
    from service import (
        docs,
        http,
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
    ratelimit.init_app(app)
    return app
