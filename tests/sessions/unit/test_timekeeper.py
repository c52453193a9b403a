"""The timekeeper: what the clock owes is played at the deadline, once, committed over
the version read; the next deadline; the clock after a move."""

from __future__ import annotations

from dataclasses import replace

import orjson

import engine
from service.sessions.clock import Clock
from service.sessions.manager import SessionManager
from service.sessions.models import Meta, Seat, Snapshot
from service.sessions.timekeeper import clock_moved, restarted

from .conftest import T0, SpyStore, Time, created

TURN = 30


def clocked(mgr: SessionManager, **clock: int) -> Snapshot:
    made = created(mgr, 2, clock={"turn_seconds": TURN, **clock})
    c = mgr.cache.peek(str(made["session_id"]))
    assert c is not None
    return c


def test_nothing_is_owed_before_the_deadline(
    mgr: SessionManager, store: SpyStore, clock: Time
) -> None:
    c = clocked(mgr)
    clock.t = T0 + TURN - 1
    assert mgr.timekeeper.settle(c) is c and store.named("commit") == []
    assert c.next_deadline(mgr.config) == T0 + TURN


def test_a_passed_deadline_plays_the_forced_moves_at_the_deadline_once(
    mgr: SessionManager, store: SpyStore, clock: Time
) -> None:
    c = clocked(mgr)
    seat = c.waiting_person()
    assert seat is not None
    clock.t = T0 + TURN + 5
    settled = mgr.timekeeper.settle(c)
    assert settled.version == c.version + 1 and settled.waiting_person() != seat
    events = [orjson.loads(e) for _, e in store.events(c.sid, c.seq, 100)]
    assert events[0]["type"] == "timeout" and events[0]["player"] == seat
    log = [orjson.loads(m) for m in store.moves(c.sid)]
    assert log and {m["by"] for m in log} == {"clock"} and log[0]["at"] == int((T0 + TURN) * 1000)
    assert settled.meta.clock is not None and settled.meta.clock.timeouts[seat] == 1
    assert settled.meta.clock.started == T0 + TURN  # the next seat waits from the deadline
    assert mgr.timekeeper.settle(settled) is settled  # nothing more is owed


def test_a_replica_that_loses_the_race_settles_what_the_winner_wrote(
    mgr: SessionManager, store: SpyStore, clock: Time
) -> None:
    c = clocked(mgr)
    clock.t = T0 + TURN + 5
    won = mgr.timekeeper.settle(c)
    logged = len(store.moves(c.sid))
    mgr.cache.clear()
    again = mgr.timekeeper.settle(c)  # from the old copy: loses, reads, finds it played
    assert again.version == won.version and len(store.moves(c.sid)) == logged
    timeouts = [e for _, e in store.events(c.sid, 0, 1000) if b'"timeout"' in e]
    assert len(timeouts) == 1


def test_timeouts_in_a_row_hand_the_seat_to_a_bot(
    mgr: SessionManager, store: SpyStore, clock: Time
) -> None:
    c = clocked(mgr, max_timeouts=1)
    seat = c.waiting_person()
    assert seat is not None
    clock.t = T0 + TURN
    owed, events, moves = mgr.timekeeper.owed(c, clock.t)
    assert owed.version == c.version and owed.meta.seats[seat].bot is not None
    types = [e["type"] for e in events]
    assert types[0] == "timeout" and "bot_took_seat" in types and moves


def test_the_next_deadline(mgr: SessionManager) -> None:
    c = clocked(mgr, bank_seconds=7)
    assert c.next_deadline(mgr.config) == T0 + TURN + 7
    assert replace(c, meta=replace(c.meta, clock=None)).next_deadline(mgr.config) is None
    assert replace(c, state=None).next_deadline(mgr.config) is None
    mgr.config = replace(mgr.config, max_moves=c.dealt().move_count)
    assert c.next_deadline(mgr.config) is None  # the session is full


def test_the_clock_after_a_move() -> None:
    state, _ = engine.start("uno_classic", 2, 3)
    seat = engine.waiting_for(state)
    assert seat is not None
    move = next(m for m in engine.legal_moves(state, seat) if m.type is engine.MoveType.DRAW)
    after, _ = engine.apply(state, move)
    meta = Meta("uno_classic", (Seat(0, "a", None, "h"), Seat(1, "b", None, "i")), T0)
    assert clock_moved(meta, seat, state, after, T0 + 1) is meta  # no clock
    timed = replace(meta, clock=Clock.new({"turn_seconds": 10, "bank_seconds": 20}, 2, T0))
    moved = clock_moved(timed, seat, state, after, T0 + 25).clock
    assert moved is not None and moved.bank[seat] == 5  # 15 s beyond the turn came from the bank
    assert moved.started == T0 + 25  # the mover's move: the game waits anew from it
    other = clock_moved(timed, 1 - seat, state, state, T0 + 25).clock  # a side move
    assert other is not None and other.started == T0 and other.bank == timed.clock.bank  # type: ignore[union-attr]


def test_a_seat_change_restarts_the_clock_when_one_runs() -> None:
    meta = Meta("uno_classic", (Seat(0, "a", None, "h"),), T0)
    assert restarted(meta, T0 + 5) is meta
    timed = replace(meta, clock=Clock.new({"turn_seconds": 10}, 1, T0))
    again = restarted(timed, T0 + 5).clock
    assert again is not None and again.started == T0 + 5 and again.bank == (0.0,)
