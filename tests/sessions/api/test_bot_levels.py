"""Bot levels in sessions: a seat's ``bot`` is ``true`` (the simple bot), ``false`` or a
level; the answer says which; Meta stored before the levels still reads; the bots of a
session replay alike."""

from __future__ import annotations

import random
from typing import Any

import orjson
import pytest

import engine
import engine.bots
from service.sessions.bots import play_bots
from service.sessions.models import BotLevel, Meta, Seat
from tests.sessions.conftest import Api, problem, turn_seat
from tests.support import spec_document


@pytest.fixture
def store_kind() -> str:
    return "memory"  # the levels are the same on every store: one is enough here


def test_each_level_plays_a_session_and_the_answer_names_it(api: Api) -> None:
    seats: list[dict[str, Any]] = [
        {"name": "me"},
        {"bot": "hard"},
        {"bot": "normal"},
        {"bot": "easy"},
    ]
    r = api.create("uno_classic", seats, seed=11, options={"target": 30})
    assert r.status_code == 201, r.get_data(as_text=True)
    body = r.get_json()
    assert [s["bot"] for s in body["seats"]] == [False, "hard", "normal", "easy"]
    sid, tok, version = body["session_id"], body["seats"][0]["token"], body["version"]
    assert [s["bot"] for s in api.get(sid, tok).get_json()["seats"]] == [
        False,
        "hard",
        "normal",
        "easy",
    ]
    for _ in range(40):
        state = api.get(sid, tok).get_json()
        view = state["view"]
        if view["phase"] == "game_over":
            break
        assert turn_seat(view) == 0 or view["phase"] == "round_over"  # bots never wait
        move = next(m for m in state["legal_moves"] if m["type"] != "catch")
        r = api.move(sid, tok, move, state["version"])
        assert r.status_code == 200, r.get_data(as_text=True)
    assert state["version"] > version


@pytest.mark.parametrize("bot", ["expert", 1, None, "Hard", ["hard"]])
def test_an_unknown_bot_level_is_a_400(api: Api, bot: Any) -> None:
    body = problem(
        api.create("uno_classic", [{"name": "me"}, {"bot": bot}]), 400, "invalid_request"
    )
    assert "players" in str(body)


def test_meta_stored_before_the_levels_still_reads() -> None:
    old = (
        b'{"variant": "uno_classic", "created": 1.0, "client_seeded": false, "seats": ['
        b'{"seat": 0, "name": "me", "bot": false, "token_sha256": "ab"},'
        b'{"seat": 1, "name": "bot", "bot": true, "token_sha256": null}]}'
    )
    meta = Meta.from_json(old)
    assert meta.bots == frozenset({1}) and meta.bot_levels == {1: BotLevel.SIMPLE}
    new = Meta("dos", (Seat(0, "me", None, "ab"), Seat(1, "b", BotLevel.HARD, None)), 2.0)
    again = Meta.from_json(new.to_json())
    assert again == new and again.bot_levels == {1: BotLevel.HARD}
    assert orjson.loads(new.to_json())["seats"][1]["bot"] == "hard"  # stored as before


@pytest.mark.parametrize("variant", [v.id for v in engine.all_variants()])
def test_the_bots_of_a_session_replay_alike(variant: str) -> None:
    levels = {1: BotLevel.HARD, 0: BotLevel.NORMAL}
    state, _ = engine.start(variant, 2, 5)
    runs = [play_bots(state, levels, random.Random("sid:3"), 30) for _ in range(2)]
    assert runs[0] == runs[1]
    assert len(runs[0][2]) > 0


def test_the_spec_lists_the_engine_bot_levels() -> None:

    spec = spec_document()
    assert tuple(spec["components"]["schemas"]["BotLevel"]["enum"]) == engine.bots.LEVELS


def test_a_session_bot_gets_its_seats_view_and_redacted_history_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[tuple[dict[str, Any], list[Any]]] = []
    real = engine.bots.choose

    def spy(level: str, view: dict[str, Any], history: Any, legal: Any, rnd: Any) -> Any:
        seen.append((view, list(history)))
        return real(level, view, history, legal, rnd)

    monkeypatch.setattr(engine.bots, "choose", spy)
    state, setup = engine.start("uno_classic", 3, 8)
    first = state.pending.player if state.pending is not None else state.current
    levels = {first: BotLevel.HARD, (first + 1) % 3: BotLevel.EASY}
    after, events, made = play_bots(state, levels, random.Random(2), 6, setup)
    assert made and seen
    for view, history in seen:
        seat = view["player"]
        assert seat in levels and view["hand_sizes"][seat] == len(view["hand"])
        assert all("secret" not in e for e in history)
        drawn = [e for e in history if e["type"] == "drew" and e["player"] != seat]
        assert all("cards" not in e for e in drawn)
        assert history[: len(setup)] == engine.redact_all(setup, seat)
