"""The move log's entries and the game's record: a seat's while the game runs, anyone's
once it is over, then kept by the process (no second read); a log that does not replay
to the state is a bug, never an answer."""

from __future__ import annotations

import random
from typing import Any

import orjson
import pytest

import engine
from engine import record_builder
from service.sessions.bots import next_bot_move
from service.sessions.manager import SessionManager
from service.sessions.models import MoveRequest
from service.sessions.problems import SessionError
from service.sessions.records import Records, logged

from .conftest import T0, SpyStore, Time, created, finished_state, put_state


def played_out(mgr: SessionManager) -> str:
    """A two-person session of one round, its moves made through the move part."""
    made = created(mgr, 2, options={"target": 1})
    sid, toks = str(made["session_id"]), [s["token"] for s in made["seats"]]
    rnd = random.Random(3)
    for _ in range(2000):
        c = mgr.cache.peek(sid)
        assert c is not None and c.state is not None
        move = next_bot_move(c.state, {0, 1}, rnd)
        if move is None:
            return sid
        mgr.moves.move(sid, MoveRequest(toks[move.player], c.version, None, move.to_dict()))
    raise AssertionError("the game did not end")


def test_an_entry_says_who_moved_when_and_the_move() -> None:
    move = engine.Move.from_dict({"type": "draw", "player": 1})
    assert [orjson.loads(e) for e in logged([move], "clock", T0 + 0.0015)] == [
        {"by": "clock", "at": int(T0 * 1000) + 1, "move": {"type": "draw", "player": 1}}
    ]


def test_a_running_games_record_is_a_seats_only_without_the_seed(mgr: SessionManager) -> None:
    made = created(mgr, [{"name": "Ann"}, {"bot": True}])
    sid, tok = str(made["session_id"]), made["seats"][0]["token"]
    with pytest.raises(SessionError) as e:
        mgr.record(sid, None)
    assert e.value.code == "missing_token"
    record = orjson.loads(mgr.record(sid, tok).body)
    assert record["seed"] is None and record["result"] is None
    assert record["players"] == [{"name": "Ann", "bot": False}, {"name": "Player 2", "bot": True}]


def test_a_finished_games_record_is_anyones_and_kept(mgr: SessionManager, store: SpyStore) -> None:
    sid = played_out(mgr)
    record = mgr.record(sid, None)
    assert orjson.loads(record.body)["seed"] == "7" and len(store.named("pieces")) == 1
    assert mgr.record(sid, None).body == record.body and len(store.named("pieces")) == 1
    assert store.named("moves") == []  # its pieces stored with its moves: none played


def test_a_log_that_does_not_replay_to_the_state_is_a_bug(
    mgr: SessionManager, store: SpyStore
) -> None:
    made = created(mgr, 2)
    c = mgr.cache.peek(str(made["session_id"]))
    assert c is not None
    put_state(store, c, finished_state(7))  # a state no logged move led to
    with pytest.raises(RuntimeError):
        mgr.record(c.sid, None)


def test_a_writes_record_pieces_come_from_the_steps_it_applied_not_a_second_play(
    mgr: SessionManager, store: SpyStore, clock: Time, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Creation (the bots' first moves), a person's moves with the bots' replies and a
    passed deadline's forced moves: no move is played again to make the pieces, and
    the pieces are those of the log played from the deal."""
    replays: list[int] = []
    play = record_builder._play

    def counted(*args: Any, **kw: Any) -> Any:
        replays.append(1)
        return play(*args, **kw)

    monkeypatch.setattr(record_builder, "_play", counted)
    seats = [{"name": "Ann"}, {"bot": True}, {"bot": True}]
    made = created(mgr, seats, clock={"turn_seconds": 30})
    sid, token = str(made["session_id"]), made["seats"][0]["token"]
    for _ in range(6):
        c = mgr.cache.peek(sid)
        assert c is not None and c.state is not None
        move = next(
            m for m in engine.legal_moves(c.state, 0) if m.type.value not in ("uno", "catch")
        )
        mgr.moves.move(sid, MoveRequest(token, c.version, None, move.to_dict()))
    c = mgr.cache.peek(sid)
    assert c is not None
    clock.t += 31
    settled = mgr.timekeeper.settle(c)
    assert settled.version == c.version + 1
    assert replays == []
    logged_moves = store.moves(sid)
    stored = store.pieces(sid)
    assert stored is not None and len(stored) == len(logged_moves) > 6
    assert settled.state is not None
    deal = Records.new_builder(settled, settled.state).state
    again, reached = record_builder.pieces(
        deal, map(orjson.loads, logged_moves), len(seats), deal.move_count
    )
    assert replays and again == stored and reached == settled.state
