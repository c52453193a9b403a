"""A new session: seats, tokens once, the seed, the deal and the bots' first moves; a
session with open seats waits, with nothing dealt, listed when public."""

from __future__ import annotations

from dataclasses import replace

import orjson
import pytest

from service.sessions import tokens
from service.sessions.api import status_of
from service.sessions.manager import SessionManager
from service.sessions.models import BotLevel, SpectatorAccess, Status
from service.sessions.problems import SessionError

from .conftest import T0, SpyStore, created


def test_every_named_person_gets_a_token_once_and_the_meta_keeps_its_hash(
    mgr: SessionManager, store: SpyStore
) -> None:
    body = created(mgr, [{"name": "Ann"}, {"bot": "hard"}, {"bot": True}])
    sid, seats = body["session_id"], body["seats"]
    assert [s["bot"] for s in seats] == [False, "hard", True]
    assert seats[0]["token"] and seats[1]["token"] is None and seats[2]["token"] is None
    c = mgr.cache.peek(sid)
    assert c is not None and c.version == 1 and c.status is Status.PLAYING
    assert c.meta.hashes == [tokens.digest(seats[0]["token"]), None, None]
    assert [s.bot for s in c.meta.seats] == [None, BotLevel.HARD, BotLevel.SIMPLE]
    assert body["seat"] == 0 and body["events"][0]["seq"] == 1
    assert body["invitation_code"] is None and body["spectator_code"] is None
    for entry in map(orjson.loads, store.moves(sid)):  # the bots' first moves, if any
        assert entry["by"] == "bot" and entry["at"] == int(T0 * 1000)


def test_a_session_of_bots_only_is_refused(mgr: SessionManager) -> None:
    with pytest.raises(SessionError) as e:
        created(mgr, [{"bot": True}, {"bot": "easy"}])
    assert (status_of(e.value), e.value.code) == (400, "invalid_request")


def test_a_client_seed_is_refused_when_the_service_chooses_every_seed(
    mgr: SessionManager,
) -> None:
    assert created(mgr, seed=5)["client_seeded"] is True
    mgr.config = replace(mgr.config, allow_client_seed=False)
    with pytest.raises(SessionError) as e:
        created(mgr, seed=5)
    assert e.value.code == "client_seed_not_allowed"
    req = {"variant": "uno_classic", "players": [{"bot": False, "open": False}] * 2}
    assert orjson.loads(mgr.creation.create(req).body)["client_seeded"] is False


def test_a_session_with_open_seats_waits_with_nothing_dealt(
    mgr: SessionManager, store: SpyStore
) -> None:
    body = created(mgr, [{"name": "Ann"}, {"open": True}], public=True)
    sid = body["session_id"]
    assert body["status"] == "waiting" and body["view"] is None and body["events"] == []
    assert body["invitation_code"] and body["seats"][1]["token"] is None
    c = mgr.cache.peek(sid)
    assert c is not None and c.state is None and c.meta.seed == 7 and c.meta.open_seats == [1]
    assert store.lobby_page(None, None, 10) == [(int(T0 * 1000), sid)]


def test_the_spectator_code_is_given_once_and_kept_as_a_hash(mgr: SessionManager) -> None:
    body = created(mgr, spectators="code")
    c = mgr.cache.peek(body["session_id"])
    assert c is not None and c.meta.spectators is SpectatorAccess.CODE
    assert c.meta.spectator_sha256 == tokens.digest(body["spectator_code"])


def test_a_clock_starts_with_the_session(mgr: SessionManager) -> None:
    body = created(mgr, clock={"turn_seconds": 30, "bank_seconds": 5})
    assert body["clock"]["turn_seconds"] == 30
    c = mgr.cache.peek(body["session_id"])
    assert c is not None and c.meta.clock is not None and c.meta.clock.started == T0


def test_a_rules_error_of_the_setup_is_422(mgr: SessionManager) -> None:
    with pytest.raises(SessionError) as e:
        created(mgr, dealer=9)
    assert status_of(e.value) == 422
