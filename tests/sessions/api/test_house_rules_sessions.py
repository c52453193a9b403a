"""Classic UNO's jump-in in a session, on every store (in process, one Redis, the
cluster): a seat that is not to move has its jump-in listed and accepted; moves on one
card race on If-Match as any moves do (the first wins, the other gets 412 and reloads);
the turn clock of the next player starts at a jump-in."""

from __future__ import annotations

from functools import cache
from typing import Any

from flask import Flask

import engine
from service.sessions.events import rfc3339
from tests.sessions.conftest import Api, api, app, client, problem, store_kind

FIXTURES = (api, app, client, store_kind)  # the fixtures these tests take
OPTIONS = {"jump_in": True}
PLAYERS = 3
T0 = 1_800_000_000.0
TURN = 30


@cache
def deal(back_to_waited: bool) -> tuple[int, int, int, dict[str, Any]]:
    """A seed whose deal lets a seat jump in at once: (seed, the jumper, the seat to
    move, the jump-in); ``back_to_waited``: the turn after the jumper is the seat that
    was to move (it loses its turn and moves next)."""
    for seed in range(1000):
        state = engine.new_game("uno_classic", PLAYERS, seed, options=OPTIONS)
        if state.pending is not None:
            continue
        for seat in range(PLAYERS):
            jumps = engine.legal_moves(state, seat) if seat != state.current else []
            if jumps and (state.next_seat(seat) == state.current) == back_to_waited:
                return seed, seat, state.current, jumps[0].to_dict()
    raise AssertionError("no deal with a jump-in")


def open_table(api: Api, back_to_waited: bool = False, **extra: Any) -> tuple[str, list[str]]:
    seed = deal(back_to_waited)[0]
    players = [{"name": name} for name in ("Ann", "Bob", "Cid")]
    r = api.create("uno_classic", players, seed=seed, options=OPTIONS, **extra)
    assert r.status_code == 201, r.get_data(as_text=True)
    body = r.get_json()
    assert body["version"] == 1
    return body["session_id"], [s["token"] for s in body["seats"]]


def test_a_jump_in_from_a_seat_not_to_move_is_listed_and_accepted(api: Api) -> None:
    seed, jumper, waited, jump = deal(False)
    sid, tokens = open_table(api)
    listed = api.legal(sid, tokens[jumper]).get_json()
    assert jump in listed["moves"]
    assert jump in api.get(sid, tokens[jumper]).get_json()["legal_moves"]
    r = api.move(sid, tokens[jumper], jump, 1)
    assert r.status_code == 200, r.get_data(as_text=True)
    answer = r.get_json()
    assert answer["version"] == 2
    assert [e["type"] for e in answer["events"]][:2] == ["jumped_in", "played"]
    assert answer["events"][0]["target"] == waited
    # The session is where the engine's jump-in leads: play goes on from the jumper.
    after, _ = engine.apply(engine.new_game("uno_classic", PLAYERS, seed, options=OPTIONS), jump)
    assert api.get(sid).get_json()["view"] == engine.view(after, None)


def test_the_first_of_two_moves_on_one_card_wins_the_other_gets_412(api: Api) -> None:
    _, jumper, waited, jump = deal(False)
    # The jump-in first: the seat that was to move finds the session moved on.
    sid, tokens = open_table(api)
    assert api.move(sid, tokens[jumper], jump, 1).status_code == 200
    problem(api.move(sid, tokens[waited], {"type": "draw"}, 1), 412, "version_mismatch")
    problem(api.move(sid, tokens[jumper], jump, 1), 412, "version_mismatch")  # sent twice
    # The turn first: the jump-in comes too late, and after a reload the engine judges it.
    sid, tokens = open_table(api)
    assert api.move(sid, tokens[waited], {"type": "draw"}, 1).status_code == 200
    problem(api.move(sid, tokens[jumper], jump, 1), 412, "version_mismatch")
    version = api.get(sid, tokens[jumper]).get_json()["version"]
    again = api.move(sid, tokens[jumper], jump, version)
    assert again.status_code in (200, 422), again.get_data(as_text=True)


def test_the_next_players_clock_starts_at_a_jump_in(api: Api, app: Flask) -> None:
    """Even when the next turn is the one of the seat that lost its turn: its time
    counts from the jump-in, and its bank pays nothing for the turn it lost."""
    now = [T0]
    app.extensions["sessions"].now = lambda: now[0]
    _, jumper, waited, jump = deal(True)
    clock = {"turn_seconds": TURN, "bank_seconds": 20}
    sid, tokens = open_table(api, True, clock=clock)
    now[0] = T0 + 25
    r = api.move(sid, tokens[jumper], jump, 1)
    assert r.status_code == 200, r.get_data(as_text=True)
    body = api.get(sid).get_json()
    assert body["view"]["current_player"] == waited
    assert body["clock"]["seat"] == waited
    assert body["clock"]["deadline"] == rfc3339(T0 + 25 + TURN + 20)
    assert body["clock"]["bank_left"] == [20, 20, 20]
