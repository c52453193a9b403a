"""The session's data: the enums, the meta as stored, the snapshot's questions."""

from __future__ import annotations

from dataclasses import replace

import orjson
import pytest

import engine
import engine.bots
from service.sessions import schemas
from service.sessions.api import status_of
from service.sessions.clock import Clock
from service.sessions.models import (
    BotLevel,
    Meta,
    OnLeave,
    Seat,
    Snapshot,
    SpectatorAccess,
    Status,
    bot_to_move,
    waiting_person,
)
from service.sessions.problems import SessionError
from tests.support import spec_document

from .conftest import finished_state

SPEC = spec_document()


def meta(*bots: BotLevel | None, **kw: object) -> Meta:
    seats = tuple(Seat(i, f"p{i}", b, None if b else f"h{i}") for i, b in enumerate(bots))
    return Meta("uno_classic", seats, 1.5, seed=9, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("wire", "level"),
    [(False, None), (True, BotLevel.SIMPLE), ("easy", BotLevel.EASY), ("hard", BotLevel.HARD)],
)
def test_a_bot_level_reads_and_writes_as_the_wire_spells_it(wire: object, level: object) -> None:
    assert BotLevel.from_wire(wire) is level  # type: ignore[arg-type]
    if level is not None:
        assert level.wire == wire  # type: ignore[attr-defined]


def test_an_unknown_level_is_refused() -> None:
    with pytest.raises(ValueError):
        BotLevel.from_wire("expert")


def test_the_levels_are_the_engines_and_the_schemas() -> None:
    levels = tuple(b.value for b in BotLevel if b is not BotLevel.SIMPLE)
    assert levels == engine.bots.LEVELS == schemas.BOT_LEVELS
    assert {b for b in BotLevel if b.reads_history} == {BotLevel.NORMAL, BotLevel.HARD}


def test_the_enums_are_the_schemas_and_the_specs_choices() -> None:
    spec = SPEC["components"]["schemas"]
    create = spec["SessionCreate"]["properties"]
    assert tuple(a.value for a in SpectatorAccess) == schemas.SPECTATORS
    assert spec["SpectatorAccess"]["enum"] == list(schemas.SPECTATORS)
    assert create["on_leave"]["enum"] == [o.value for o in OnLeave] == list(schemas.ON_LEAVE)
    assert spec["SessionStatus"]["enum"] == [s.value for s in Status]


def test_the_meta_is_stored_as_before_the_enums() -> None:
    clock = Clock.new({"turn_seconds": 30}, 3, 2.0)
    m = meta(None, BotLevel.SIMPLE, BotLevel.HARD, spectators=SpectatorAccess.CODE, clock=clock)
    raw = orjson.loads(m.to_json())
    assert list(raw) == [
        "variant", "seats", "created", "client_seeded", "seed", "dealer", "options", "public",
        "invite_sha256", "spectators", "spectator_sha256", "on_leave", "rematch", "clock", "host",
        "creator", "quiet_from",
    ]  # fmt: skip
    assert [s["bot"] for s in raw["seats"]] == [False, True, "hard"]
    assert list(raw["seats"][0]) == ["seat", "name", "bot", "token_sha256", "open"]
    assert raw["spectators"] == "code" and raw["on_leave"] == "bot"
    again = Meta.from_json(m.to_json())
    assert again == m and again.clock == clock


def test_a_meta_stored_before_open_seats_and_settings_reads_with_their_defaults() -> None:
    old = b'{"variant":"dos","created":1.0,"seats":[{"seat":0,"name":"a","bot":true,"token_sha256":null}]}'
    m = Meta.from_json(old)
    assert m.seats[0] == Seat(0, "a", BotLevel.SIMPLE, None, False)
    assert (m.spectators, m.on_leave, m.clock, m.public) == (
        SpectatorAccess.ANYONE, OnLeave.BOT, None, False,
    )  # fmt: skip


def test_the_meta_answers_its_seats_questions() -> None:
    m = meta(None, BotLevel.EASY, BotLevel.NORMAL)
    assert m.bots == {1, 2} and m.bot_levels == {1: BotLevel.EASY, 2: BotLevel.NORMAL}
    assert m.levelled and not meta(None, BotLevel.EASY).levelled
    assert m.hashes == ["h0", None, None]
    opened = m.with_seat(Seat(0, "Player 1", None, None, open=True))
    assert opened.open_seats == [0] and opened.seats[1:] == m.seats[1:] and m.open_seats == []


def test_a_snapshot_knows_where_the_session_stands() -> None:
    waiting = Snapshot("s" * 8, 1, 0, None, meta(None, None))
    assert waiting.status is Status.WAITING
    with pytest.raises(SessionError) as e:
        replace(waiting, meta=waiting.meta.with_seat(Seat(1, "x", None, None, True))).dealt()
    assert (status_of(e.value), e.value.code) == (409, "session_waiting")
    assert "1 more seat" in e.value.detail
    state, _ = engine.start("uno_classic", 2, 3)
    playing = replace(waiting, state=state)
    assert playing.status is Status.PLAYING and playing.dealt() is state
    assert replace(waiting, state=finished_state()).status is Status.OVER


def test_the_next_version_counts_its_events_and_leaves_the_history_to_the_repository() -> None:
    state, _ = engine.start("uno_classic", 2, 3)
    c = Snapshot("s" * 8, 4, 10, state, meta(None, None), history_from=3, history=(b"x",))
    n = c.then(None, c.meta, 5)
    assert (n.sid, n.version, n.seq, n.state) == (c.sid, 5, 15, None)
    assert (n.history_from, n.history) == (0, None)


def test_who_the_game_waits_for() -> None:
    state, _ = engine.start("uno_classic", 2, 3)
    seat = engine.waiting_for(state)
    assert seat is not None
    people, with_bot = (
        meta(None, None),
        meta(*(BotLevel.SIMPLE if i == seat else None for i in range(2))),
    )
    assert waiting_person(state, people) == seat and not bot_to_move(state, people)
    assert waiting_person(state, with_bot) is None and bot_to_move(state, with_bot)
    assert Snapshot("s" * 8, 1, 0, None, with_bot).bot_to_move() is False
