"""The answers' bodies: a seat sees its own cards only, a spectator none; nothing hidden
in the seats, the lobby or a seat change; events numbered and redacted."""

from __future__ import annotations

import orjson

import engine
from service.fairness import commitment
from service.sessions.cache import SnapshotCache
from service.sessions.clock import Clock
from service.sessions.config import Env
from service.sessions.events import rfc3339
from service.sessions.models import BotLevel, Meta, Seat, Snapshot
from service.sessions.presence import Presence
from service.sessions.views import Views, event_row, legal_moves, lobby_entry, redacted, seat_rows

from .conftest import T0, Time

SID = "session0"


NONCE = "0123456789abcdef" * 2


def snapshot(state: engine.State | None = None, clock: Clock | None = None) -> Snapshot:
    seats = (Seat(0, "Ann", None, "secret-hash"), Seat(1, "Bot", BotLevel.HARD, None))
    meta = Meta("uno_classic", seats, T0, seed=42, clock=clock, seed_nonce=NONCE)
    return Snapshot(SID, 3, 9, state, meta)


def views_of(env: Env) -> Views:
    return Views(env, Presence(env, SnapshotCache(env)))


def test_a_seat_sees_its_hand_and_moves_and_a_spectator_neither(env: Env) -> None:
    state, _ = engine.start("uno_classic", 2, 4)
    views = views_of(env)
    mine = views.answer(snapshot(state), 0, 0, [])
    assert mine["view"] == engine.view(state, 0) and mine["seat"] == 0
    assert mine["legal_moves"] == [m.to_dict() for m in engine.legal_moves(state, 0)]
    watcher = views.answer(snapshot(state), None, None, [])
    assert watcher["view"]["hand"] == [] and watcher["legal_moves"] == []
    assert (mine["status"], mine["version"], mine["last_event"]) == ("playing", 3, 9)
    assert "42" not in orjson.dumps(watcher).decode().replace(SID, "")  # no seed shown


def test_a_waiting_session_commits_to_its_seed_without_showing_it(env: Env) -> None:
    answer = views_of(env).answer(snapshot(), None, None, [])
    assert answer["status"] == "waiting" and answer["view"] is None
    assert answer["seed_commitment"] == {
        "game_id": SID,
        "sha256": commitment(SID, 42, NONCE),
        "seed": None,
        "nonce": None,
    }
    assert NONCE not in orjson.dumps(answer).decode()


def test_the_clock_is_seen_at_the_time_now(env: Env, clock: Time) -> None:
    state, _ = engine.start("uno_classic", 2, 4)
    seat = engine.waiting_for(state)
    assert seat is not None
    clocked = Clock.new({"turn_seconds": 30}, 2, T0)
    person = (Seat(seat, "Ann", None, "h"), Seat(1 - seat, "Bot", BotLevel.HARD, None))
    c = Snapshot(
        SID,
        3,
        9,
        state,
        Meta("uno_classic", tuple(sorted(person, key=lambda s: s.seat)), T0, clock=clocked),
    )
    clock.t = T0 + 10
    view = views_of(env).clock(c)
    assert view is not None and (view["seat"], view["seconds_left"]) == (seat, 20)
    bot = c.meta.with_seat(Seat(seat, "Bot", BotLevel.SIMPLE, None))
    waits_for_bot = views_of(env).clock(Snapshot(SID, 3, 9, state, bot))
    assert waits_for_bot is not None and waits_for_bot["seat"] is None  # a bot has no deadline
    assert views_of(env).clock(snapshot(state)) is None


def test_the_seats_everyone_sees_hold_no_token_hash(env: Env) -> None:
    seats = seat_rows(snapshot().meta, frozenset({0}), seen={0: 1_800_000_000_500, 1: 7})
    assert seats == [
        {"seat": 0, "name": "Ann", "bot": False, "open": False, "connected": True,
         "last_seen": "2027-01-15T08:00:00.500Z"},
        {"seat": 1, "name": "Bot", "bot": "hard", "open": False, "connected": False,
         "last_seen": None},  # a bot is never seen
    ]  # fmt: skip
    body = views_of(env).answer(snapshot(), 1, None, [], token="t")
    assert body["version"] == 3 and body["token"] == "t"
    presence = ("connected", "last_seen")
    assert [{k: v for k, v in s.items() if k not in presence} for s in body["seats"]] == [
        {k: v for k, v in s.items() if k not in presence} for s in seats
    ]
    assert "secret-hash" not in orjson.dumps(body).decode()


def test_a_lobby_entry_hides_what_an_open_seat_is_not_yet() -> None:
    meta = snapshot().meta.with_seat(Seat(0, "Player 1", None, None, open=True))
    entry = lobby_entry(SID, meta)
    assert entry["seats"][0] == {"seat": 0, "name": "Player 1", "bot": False, "open": True}
    assert entry["open_seats"] == 1 and entry["created_at"] == rfc3339(T0)
    assert set(entry) == {
        "session_id", "variant", "client_seeded", "created_at", "seats", "open_seats", "pace"
    }  # fmt: skip
    assert entry["client_seeded"] is meta.client_seeded


def test_events_are_numbered_and_redacted_for_the_seat() -> None:
    _, events = engine.start("uno_classic", 2, 4)
    rows = redacted(events, 5, 1)
    assert [r["seq"] for r in rows] == list(range(5, 5 + len(events)))
    assert rows[0] == {"seq": 5, **engine.redact(events[0], 1)}
    assert event_row(5, orjson.dumps(events[0]), None) == {
        "seq": 5,
        **engine.redact(events[0], None),
    }
    assert (
        legal_moves(None, 0) == [] and legal_moves(engine.start("uno_classic", 2, 4)[0], None) == []
    )
