"""Seat and spectator answers never show a hidden card: random full games of every
variant played through the session API, checked after every move."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from flask import Flask

import engine
from tests.sessions.conftest import Api

GAMES = int(os.environ.get("SESSION_LEAK_GAMES", "1"))
MAX_MOVES = 3000


def card_ids(value: Any) -> Iterator[int]:
    """Every card id named in a JSON value (cards are ``{"id": ..., "code": ...}``)."""
    if isinstance(value, dict):
        if isinstance(value.get("id"), int) and "code" in value:
            yield value["id"]
        for v in value.values():
            yield from card_ids(v)
    elif isinstance(value, list):
        for v in value:
            yield from card_ids(v)


def check_seat(
    api: Api,
    sid: str,
    seat: int | None,
    token: str | None,
    state: engine.State,
    raw_events: dict[int, dict[str, Any]],
    after: int,
) -> dict[str, Any]:
    body = api.get(sid, token).get_json()
    view = body["view"]
    others = {c for s, h in enumerate(state.hands) if s != seat for c in h}
    # UNO Flip names cards by per-round labels and shows the other side of opponents'
    # cards by design ("backs"): its card ids are not catalog ids, so only counts are
    # compared. Events are checked against the hands after their move: not the
    # setup's (the cut cards are shuffled back and dealt) nor the end of a round's
    # (hands are shown to score).
    check_ids = "backs" not in view
    if seat is None:
        assert view["hand"] == [] and body["legal_moves"] == []
    elif check_ids:
        assert sorted(c["id"] for c in view["hand"]) == sorted(state.hands[seat])
    else:
        assert len({c["id"] for c in view["hand"]}) == len(state.hands[seat])
    check_event_ids = check_ids and after > 0 and state.phase is engine.Phase.PLAY
    if check_ids:
        assert not others & set(card_ids(view)), (seat, others & set(card_ids(view)))
    events = api.events(sid, token, after=after).get_json()["events"]
    assert [e["seq"] for e in events] == sorted(raw_events)
    for ev in events:
        raw = raw_events[ev["seq"]]
        # Exactly the engine's redaction for this seat: a secret reaches only its seats
        # (a challenger may see the challenged hand; a giver the card given).
        assert {k: v for k, v in ev.items() if k != "seq"} == engine.redact(raw, seat)
        secret = raw.get("secret")
        if secret is not None and (seat is None or seat not in secret["to"]):
            assert not set(secret["data"]) & set(ev), (seat, ev)
        assert "secret" not in ev
        if check_event_ids:
            public = engine.redact(raw, None)
            assert not others & set(card_ids(public)), (seat, ev)
    return body


def play_random_game(app: Flask, variant: engine.Variant, seed: int) -> None:
    api = Api(app.test_client())
    store = app.extensions["sessions"].store
    players = min(variant.max_players, 2 + seed % 2)
    r = api.create(variant.id, players, seed=seed, options={"target": 30})
    assert r.status_code == 201, r.get_data(as_text=True)
    created = r.get_json()
    sid = created["session_id"]
    tokens = [s["token"] for s in created["seats"]]
    version, seen = created["version"], 0
    rnd = random.Random(seed)
    for _ in range(MAX_MOVES):
        loaded = store.load(sid)
        state = engine.from_dict(orjson.loads(loaded.state))
        raw = {seq: orjson.loads(e) for seq, e in store.events(sid, seen, 10_000)}
        check_seat(api, sid, None, None, state, raw, seen)
        bodies = [
            check_seat(api, sid, seat, tok, state, raw, seen) for seat, tok in enumerate(tokens)
        ]
        seen = loaded.seq
        if state.phase is engine.Phase.GAME_OVER:
            return
        options = [(s, m) for s, b in enumerate(bodies) for m in b["legal_moves"]]
        assert options, "nobody can move"
        turn = [(s, m) for s, m in options if m["type"] not in ("uno", "catch")]
        seat, move = rnd.choice(turn if turn and rnd.random() < 0.9 else options)
        r = api.move(sid, tokens[seat], move, version)
        assert r.status_code == 200, r.get_data(as_text=True)
        version += 1
    pytest.fail(f"{variant.id}: no game over after {MAX_MOVES} moves")


@pytest.mark.parametrize("variant", engine.all_variants(), ids=lambda v: v.id)
def test_random_games_never_show_a_hidden_card(app: Flask, variant: engine.Variant) -> None:
    for game in range(GAMES):
        play_random_game(app, variant, 1000 + game)
