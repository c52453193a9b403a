"""Fixtures of the session parts' own tests: the parts on an in-process store, no Flask,
the wall clock a number the test moves (``Time``)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import orjson
import pytest

import engine
from service.sessions.bots import play_bots
from service.sessions.config import Env, SessionConfig
from service.sessions.manager import SessionManager
from service.sessions.memory import MemoryStore
from service.sessions.models import MoveRequest, Reply, Snapshot
from service.sessions.store import CommitRequest, SessionStore

T0 = 1_800_000_000.0


@dataclass
class Time:
    """The wall clock of a test: ``t`` seconds, moved by hand."""

    t: float = T0

    def __call__(self) -> float:
        return self.t


class SpyStore(MemoryStore):
    """A ``MemoryStore`` that notes the calls the parts make."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(3600, 1000, **kw)
        self.calls: list[tuple[str, Any]] = []

    def load(self, sid: str, *args: Any, **kw: Any) -> Any:
        self.calls.append(("load", sid))
        return super().load(sid, *args, **kw)

    def version(self, sid: str) -> int | None:
        self.calls.append(("version", sid))
        return super().version(sid)

    def commit(self, request: CommitRequest) -> Any:
        self.calls.append(("commit", request))
        return super().commit(request)

    def moves(self, sid: str, start: int = 0) -> list[bytes]:
        self.calls.append(("moves", sid))
        return super().moves(sid, start)

    def pieces(self, sid: str, start: int = 0) -> list[bytes] | None:
        self.calls.append(("pieces", sid))
        return super().pieces(sid, start)

    def named(self, what: str) -> list[Any]:
        return [arg for name, arg in self.calls if name == what]


@pytest.fixture
def clock() -> Time:
    return Time()


@pytest.fixture
def config() -> SessionConfig:
    """The defaults, but a clock that runs from the deal (no start grace): the parts'
    tests time the clock itself; the grace has tests of its own (test_clocks, test_phones)."""
    return SessionConfig(start_grace_seconds=0.0)


@pytest.fixture
def env(config: SessionConfig, clock: Time) -> Env:
    return Env(config, clock)


@pytest.fixture
def store() -> SpyStore:
    return SpyStore()


@pytest.fixture
def mgr(store: SessionStore, config: SessionConfig, clock: Time) -> SessionManager:
    """Every part, wired as the app wires them, on ``store``."""
    return SessionManager(store, config, now=clock)


def created(mgr: SessionManager, players: Any = 2, **req: Any) -> dict[str, Any]:
    """A session made through the creation part (``players``: a count of people or the
    seats as the schema loads them); its creator's answer."""
    if isinstance(players, int):
        players = [{"bot": False, "open": False}] * players
    seats = [{"bot": False, "open": False, **s} for s in players]
    return body(mgr.creation.create({"variant": "uno_classic", "players": seats, "seed": 7, **req}))


def finished_state(seed: int = 5) -> engine.State:
    """A two-seat classic game played to its end (one round: target 1)."""
    state, _ = engine.start("uno_classic", 2, seed, options={"target": 1})
    state, _, _ = play_bots(state, {0, 1}, random.Random(seed), 10_000)
    assert state.phase is engine.Phase.GAME_OVER
    return state


def put_state(store: SessionStore, c: Snapshot, state: engine.State) -> None:
    """Write ``state`` over the session ``c`` behind the parts' back."""
    res = store.commit(CommitRequest(c.sid, c.version, orjson_state(state)))
    assert res.status == "ok"


def orjson_state(state: engine.State) -> bytes:
    return orjson.dumps(engine.to_dict(state))


def move_request(
    token: str | None,
    move: dict[str, Any],
    version: Any = None,
    key: Any = None,
) -> MoveRequest:
    return MoveRequest(token, version, key, move)


def body(reply: Reply) -> dict[str, Any]:
    out: dict[str, Any] = orjson.loads(reply.body)
    return out
