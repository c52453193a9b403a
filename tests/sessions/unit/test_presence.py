"""Presence: a seat is written as seen at most once per half period per process, an
open stream keeps it, and a seat is connected when seen within the period."""

from __future__ import annotations

from service.sessions import tokens
from service.sessions.cache import SnapshotCache
from service.sessions.config import Env
from service.sessions.models import BotLevel, Meta, Seat, Snapshot
from service.sessions.presence import Presence

from .conftest import T0, SpyStore, Time


def test_a_seat_is_recorded_once_per_half_period(env: Env, clock: Time) -> None:
    presence = Presence(env, SnapshotCache(env))
    half = env.config.presence_seconds / 2
    assert presence.due("s", None) is None
    assert presence.due("s", 1) == (1, int(T0 * 1000))
    clock.t += half - 1
    assert presence.due("s", 1) is None and presence.due("other", 1) is not None
    clock.t += 1
    assert presence.due("s", 1) == (1, int(clock.t * 1000))


def test_the_seat_of_a_token_is_known_from_the_cached_copy_only(env: Env) -> None:
    cache = SnapshotCache(env)
    presence = Presence(env, cache)
    token = tokens.new_token()
    meta = Meta(
        "uno_classic", (Seat(0, "a", None, None), Seat(1, "b", None, tokens.digest(token))), T0
    )
    assert presence.known_seat("s", token) is None
    cache.put(Snapshot("s", 1, 0, None, meta))
    assert presence.known_seat("s", token) == 1
    assert presence.known_seat("s", None) is None and presence.known_seat("s", "") is None


def test_connected_is_seen_within_the_period_and_never_a_bot(env: Env, clock: Time) -> None:
    presence = Presence(env, SnapshotCache(env))
    seats = (Seat(0, "a", None, "h"), Seat(1, "b", None, "h"), Seat(2, "c", BotLevel.SIMPLE, None))
    meta = Meta("uno_classic", seats, T0)
    period = env.config.presence_seconds
    now_ms = int(clock.t * 1000)
    seen = {0: now_ms - int(period * 1000), 1: now_ms - int(period * 1000) - 1, 2: now_ms}
    presence.learn("s", seen)
    assert presence.connected("s", meta) == frozenset({0})


def test_an_open_stream_touches_its_seat(env: Env, clock: Time) -> None:
    store = SpyStore()
    store.create("s", b"{}", b"null", [])
    presence = Presence(env, SnapshotCache(env))
    presence.keep(store, "s", 0)
    presence.keep(store, "s", 0)  # within half a period: not written again
    loaded = store.load("s")
    assert loaded is not None and loaded.seen == {0: int(clock.t * 1000)}
