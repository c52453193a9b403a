"""Quick match (``/v1/matches``): a person asks to play and gets a seat at a filling
table, shared by every replica and worker (``matcher.py`` says how).

``init_app(app)`` builds the match store beside the sessions' (Redis when
``REDIS_URL`` is set, under the sessions' key prefix; else in this process), the
``Matchmaker`` over the sessions' ``SessionManager``, registers the blueprint, and
starts each worker's sweeper thread on its first request (``MATCH_SWEEP_SECONDS``, 1;
0: none), which deals the tables whose wait is over when no phone asks.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import weakref

from flask import Flask

from .config import MatchConfig
from .matcher import Matchmaker
from .store import MatchStore, MemoryMatchStore

__all__ = ["SWEEP_SECONDS", "MatchConfig", "MatchStore", "Matchmaker", "init_app"]

log = logging.getLogger("service.matchmaking")
#: How often each worker's sweeper settles the due queues, by default (seconds).
SWEEP_SECONDS = 1.0


def make_store(app: Flask) -> MatchStore:
    sessions = app.extensions["sessions"]
    if sessions.store.kind == "memory":
        return MemoryMatchStore()
    from .redis_store import RedisMatchStore

    config = sessions.config
    return RedisMatchStore(config.redis_url, prefix=config.key_prefix)


def init_app(app: Flask) -> Matchmaker:
    from .api import bp

    config = MatchConfig.load(app.config)
    store = app.config.get("MATCH_STORE") or make_store(app)
    mm = Matchmaker(store, app.extensions["sessions"], config)
    app.extensions["matchmaking"] = mm
    app.register_blueprint(bp)
    raw = app.config.get("MATCH_SWEEP_SECONDS", os.environ.get("MATCH_SWEEP_SECONDS"))
    seconds = SWEEP_SECONDS if raw is None else float(raw)
    if seconds > 0:
        sweeper = Sweeper(mm, seconds)
        app.before_request(sweeper.start)
    return mm


class Sweeper:
    """A daemon thread per worker that settles the due queues every ``seconds`` (started
    on the worker's first request: a thread made before gunicorn forks would not run in
    the workers). It holds the matchmaker weakly and ends with it, or when its store is
    closed, so an app that is done with (a test's) leaves no thread behind."""

    def __init__(self, mm: Matchmaker, seconds: float) -> None:
        self.mm = weakref.ref(mm)
        self.seconds = seconds
        self._pid: int | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        if self._pid == os.getpid():
            return
        with self._lock:
            if self._pid == os.getpid():
                return
            self._pid = os.getpid()
            threading.Thread(target=self._run, name="match-sweeper", daemon=True).start()

    def _run(self) -> None:
        while True:
            time.sleep(self.seconds)
            mm = self.mm()
            if mm is None or mm.store.closed:
                return
            try:
                mm.sweep()
            except Exception as e:  # noqa: BLE001 - a failed sweep waits for the next
                log.warning("match sweeper: %s", e)
            del mm
