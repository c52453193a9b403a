"""The facade: one settings object and one wall clock for every part, what the metrics
read, readiness."""

from __future__ import annotations

from dataclasses import replace

import pytest

from service.sessions.config import SessionConfig
from service.sessions.manager import SessionManager
from service.sessions.memory import MemoryStore
from service.sessions.store import StoreUnavailable

from .conftest import SpyStore, Time, created


def test_the_settings_and_the_clock_are_every_parts(mgr: SessionManager, clock: Time) -> None:
    mgr.config = replace(mgr.config, max_bot_moves=3)
    parts = (mgr.timekeeper, mgr.seats, mgr.moves, mgr.streams, mgr.creation, mgr.presence)
    assert all(p.env.config.max_bot_moves == 3 for p in parts)
    later = Time(clock.t + 100)
    mgr.now = later
    assert all(p.env.now is later for p in parts) and mgr.cache.peek("x") is None


def test_stats_count_the_cached_and_the_stored_sessions(mgr: SessionManager) -> None:
    assert mgr.stats() == {"cached": 0, "stored": 0}
    created(mgr, 2)
    created(mgr, 2)
    mgr.cache.clear()
    assert mgr.stats() == {"cached": 0, "stored": 2}
    created(mgr, 2)
    assert mgr.stats() == {"cached": 1, "stored": 3}


def test_a_store_that_cannot_count_says_so() -> None:
    class Uncounted(SpyStore):
        def count(self) -> None:  # type: ignore[override]
            return None

    assert SessionManager(Uncounted(), SessionConfig()).stats()["stored"] is None


def test_ready_is_a_write_the_store_can_take(monkeypatch: pytest.MonkeyPatch) -> None:
    store = MemoryStore(60, 10)
    mgr = SessionManager(store, SessionConfig())
    assert mgr.ready() == {"store": "memory", "ok": True}

    def full() -> None:
        raise StoreUnavailable("OutOfMemoryError")

    monkeypatch.setattr(store, "ping", full)
    assert mgr.ready() == {"store": "memory", "ok": False}
