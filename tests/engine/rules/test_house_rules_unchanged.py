"""Classic UNO with every house rule off is classic UNO as it was before the house rules
(``docs/rules/uno_classic.md``, "House rules"): random games recorded with the code of
before (``classic_games.json``) replay to the same states, events, views, scores and
legal moves, move by move, with no options and with every house rule sent as off.

``python -m tests.engine.rules.test_house_rules_unchanged`` records the games again
(only ever with the code of before: the fixture is the reference)."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest

import engine
from engine import Move, State
from tests.support import random_game

V = "uno_classic"
FIXTURE = Path(__file__).with_name("classic_games.json")
#: Every house rule sent with its off value: the same game as no options at all.
ALL_OFF = {
    "stacking": "none",
    "seven_zero": False,
    "jump_in": False,
    "draw_to_match": False,
    "forced_play": False,
    "uno_penalty": 2,
}


def digest(state: State, events: list[dict[str, Any]]) -> str:
    """What a move changes, as everybody sees it: the state's JSON, the events (every
    secret shown), every seat's and a spectator's view and legal moves, the score."""
    seats = range(state.num_players)
    seen = {
        "state": engine.to_dict(state),
        "events": events,
        "views": [engine.view(state, s) for s in [None, *seats]],
        "legal": [[m.to_dict() for m in engine.legal_moves(state, s)] for s in seats],
        "score": engine.score(state),
    }
    text = json.dumps(seen, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def record_games(count: int = 24) -> list[dict[str, Any]]:
    """``count`` random classic games (2 to 10 players, short targets), each with its
    moves and the digest after the set-up and after every move."""
    rnd = random.Random("house-rules-unchanged")
    games = []
    for n in range(count):
        players = 2 + n % 9
        seed = rnd.randrange(2**64)
        options = {"target": rnd.choice([60, 150, 300])}
        moves: list[dict[str, Any]] = []
        digests: list[str] = []
        for _before, move, after, events in random_game(V, players, seed, rnd, options):
            if move is not None:
                moves.append(move.to_dict())
            digests.append(digest(after, events))
        games.append(
            {
                "players": players,
                "seed": seed,
                "options": options,
                "moves": moves,
                "digests": digests,
            }
        )
    return games


GAMES: list[dict[str, Any]] = json.loads(FIXTURE.read_text()) if FIXTURE.exists() else []


@pytest.mark.parametrize("house", [{}, ALL_OFF], ids=["no house options", "all sent as off"])
@pytest.mark.parametrize("game", range(len(GAMES)))
def test_a_recorded_classic_game_plays_as_it_did_before_the_house_rules(
    game: int, house: dict[str, Any]
) -> None:
    rec = GAMES[game]
    state, events = engine.start(
        V, rec["players"], rec["seed"], options={**rec["options"], **house}
    )
    assert digest(state, events) == rec["digests"][0], "the set-up"
    for i, raw in enumerate(rec["moves"], 1):
        state, events = engine.apply(state, Move.from_dict(raw))
        assert digest(state, events) == rec["digests"][i], f"move {i}: {raw}"
    assert state.phase is engine.Phase.GAME_OVER


def test_the_fixture_holds_whole_games() -> None:
    assert len(GAMES) == 24
    assert sum(len(g["moves"]) for g in GAMES) > 5000


if __name__ == "__main__":
    FIXTURE.write_text(json.dumps(record_games(), separators=(",", ":")) + "\n")
    print(f"wrote {FIXTURE}")
