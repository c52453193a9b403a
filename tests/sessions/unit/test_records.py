"""The move log's entries and the game's record: a seat's while the game runs, anyone's
once it is over, then kept by the process (no second read); a log that does not replay
to the state is a bug, never an answer."""

from __future__ import annotations

import random

import orjson
import pytest

import engine
from service.sessions.bots import next_bot_move
from service.sessions.manager import SessionManager
from service.sessions.models import MoveRequest
from service.sessions.problems import SessionError
from service.sessions.records import logged

from .conftest import T0, SpyStore, created, finished_state, put_state


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
