"""The process's snapshot cache: least recently used sessions go past its size, a newer
version is never replaced by an older one, and the bots' history stays within its byte
budget (dropped from the least recently cached, their state kept)."""

from __future__ import annotations

from dataclasses import replace

from service.sessions.cache import SnapshotCache
from service.sessions.config import Env
from service.sessions.models import Meta, Seat, Snapshot


def snap(sid: str, version: int = 1, history: tuple[bytes, ...] | None = ()) -> Snapshot:
    meta = Meta("uno_classic", (Seat(0, "a", None, "h"),), 1.0)
    return Snapshot(sid, version, 0, None, meta, 1 if history else 0, history)


def test_the_least_recently_used_session_goes_past_the_size(env: Env) -> None:
    env.config = replace(env.config, cache_size=2)
    cache = SnapshotCache(env)
    for sid in ("a", "b"):
        cache.put(snap(sid))
    assert cache.get("a") is not None  # now "b" is the least recently used
    cache.put(snap("c"))
    assert cache.peek("b") is None and {s.sid for s in cache.snapshots()} == {"a", "c"}
    assert len(cache) == 2


def test_an_older_version_does_not_replace_a_newer_one(env: Env) -> None:
    cache = SnapshotCache(env)
    cache.put(snap("a", 3))
    cache.put(snap("a", 2))
    hit = cache.get("a")
    assert hit is not None and hit.version == 3
    cache.put(snap("a", 4))
    assert cache.peek("a") == snap("a", 4)


def test_the_history_is_dropped_past_its_budget_and_the_state_kept(env: Env) -> None:
    env.config = replace(env.config, cache_history_bytes=10)
    cache = SnapshotCache(env)
    cache.put(snap("a", history=(b"12345", b"123")))
    assert cache.history_bytes == 8
    cache.put(snap("b", history=(b"1234",)))
    a = cache.peek("a")
    assert a is not None and a.history is None and a.version == 1
    assert cache.history_bytes == 4
    # a new version of a session counts its new history, not both
    cache.put(snap("b", 2, history=(b"123456",)))
    assert cache.history_bytes == 6


def test_forget_and_clear_uncount_the_history(env: Env) -> None:
    cache = SnapshotCache(env)
    cache.put(snap("a", history=(b"xy",)))
    cache.put(snap("b", history=(b"xyz",)))
    cache.forget("a")
    assert cache.peek("a") is None and cache.history_bytes == 3
    cache.clear()
    assert len(cache) == 0 and cache.history_bytes == 0


def test_the_settings_are_read_when_used(env: Env) -> None:
    cache = SnapshotCache(env)
    for sid in "abc":
        cache.put(snap(sid))
    env.config = replace(env.config, cache_size=1)
    cache.put(snap("d"))
    assert [s.sid for s in cache.snapshots()] == ["d"]
