"""Server-held game sessions (``/v1/sessions``), in Redis or in process.

``init_app(app)`` reads the settings (``config.py``), builds the store (Redis when
``REDIS_URL`` is set, else the in-process ``MemoryStore``, which the log and
``/readyz`` report), registers the blueprint and puts the ``SessionManager`` in
``app.extensions["sessions"]``. ``readiness(app)`` is what ``/readyz`` reports.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import engine

from .config import SessionConfig
from .manager import SessionManager
from .memory import MemoryStore
from .store import SessionStore, StoreUnavailable

if TYPE_CHECKING:  # Flask is the API's: the notifier imports this package without it
    from flask import Flask

__all__ = [
    "SessionConfig", "SessionManager", "SessionStore", "StoreUnavailable", "init_app",
    "make_store", "readiness",
]  # fmt: skip

log = logging.getLogger(__name__)


def make_store(config: SessionConfig) -> SessionStore:
    if config.redis_url:
        from .durability import Durability
        from .redis_store import RedisStore

        return RedisStore(
            config.redis_url,
            ttl=config.ttl,
            max_events=config.max_events,
            prefix=config.key_prefix,
            max_idem=config.max_idem,
            timeout=config.redis_timeout,
            lobby_size=config.lobby_size,
            max_connections=config.redis_max_connections,
            durability=Durability(config.redis_min_replicas, config.redis_wait_timeout_ms),
        )
    return MemoryStore(
        config.ttl, config.max_events, max_idem=config.max_idem, lobby_size=config.lobby_size
    )


def init_app(app: Flask, store: SessionStore | None = None) -> SessionManager:
    """Register ``/v1/sessions`` on ``app``. ``store`` (or ``app.config["SESSION_STORE"]``):
    a ready store instead of one built from the settings (tests)."""
    from .api import bp

    config = SessionConfig.load(app.config)
    store = store or app.config.get("SESSION_STORE")
    if store is None:
        store = make_store(config)
    if store.kind == "memory":
        log.warning(
            "sessions: no REDIS_URL, keeping sessions in this process (lost on restart, "
            "not shared between workers)"
        )
    else:
        log.info("sessions: %s store, key prefix %r", store.kind, config.key_prefix)
    # Load the variant registry at start-up, so no request pays for the first load.
    engine.all_variants()
    from service.observability import count_moves

    mgr = SessionManager(store, config, count_moves)
    app.extensions["sessions"] = mgr
    app.register_blueprint(bp)
    return mgr


def readiness(app: Flask) -> dict[str, Any]:
    """``{"store": "memory"|"redis"|"redis-cluster", "ok": bool}``; not ok (the store
    cannot take a write) means ``/readyz`` fails."""
    mgr: SessionManager | None = app.extensions.get("sessions")
    if mgr is None:
        return {"store": None, "ok": True}
    return mgr.ready()
