"""The bots under classic UNO's house rules: every level answers every new decision
with a legal move; the normal level stacks when it can and swaps with the smallest hand;
the hard level's guesses play by the house rules in play."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

import engine
from engine import Move, State
from engine.bots import LEVELS, choose, sample_state
from tests.engine.rules.house_table import EngineTable, card, keep, mv, play
from tests.support import stacked_game

FILL = (
    ["G1", "G2", "G3", "G4", "G6", "G7", "G8"],
    ["B1", "B2", "B3", "B4", "B6", "B7", "B8"],
    ["Y1", "Y2", "Y3", "Y4", "Y6", "Y7", "Y8"],
    ["G9", "B9", "Y9", "G5", "B5", "Y5", "G0"],
)


def deal(
    named: list[list[str]], turned: str, draw: Sequence[str] = (), **options: object
) -> EngineTable:
    named = named + [[]] * (len(FILL) - len(named))
    hands = [[*n, *f][:7] for n, f in zip(named, FILL, strict=True)]
    return EngineTable(stacked_game("uno_classic", hands, turned, draw, 0, **options))


def bot(level: str, state: State, seed: int = 1) -> Move:
    seat = engine.waiting_for(state)
    assert seat is not None
    legal = engine.legal_moves(state, seat)
    move = choose(level, engine.view(state, seat), [], legal, random.Random(seed), 8)
    assert move in legal
    engine.apply(state, move)
    return move


def penalty_table() -> EngineTable:
    """Seat 2 faces a penalty of 2 and holds a Draw Two and a Wild Draw Four."""
    t = deal([[], ["RD2"], ["YD2", "WD4"]], "R5", stacking="up")
    t.move(play(t, 1, "RD2"))
    return t


def seven_table() -> EngineTable:
    """Seat 1 holds a 7; seat 3's hand is the smallest."""
    t = deal([[], ["R7", "B1"]], "R5", seven_zero=True)
    keep(t, 3, "G9", "B9")
    return t


def drawn_table() -> EngineTable:
    """Seat 1 drew to match: it may play the R9 or keep it."""
    t = deal([], "R5", draw=["Y9", "G9", "R9"], draw_to_match=True)
    t.move(mv("draw", 1))
    return t


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("make", [penalty_table, seven_table, drawn_table])
def test_every_level_answers_every_new_decision(level: str, make: object) -> None:
    t = make()  # type: ignore[operator]
    for seed in range(6):
        bot(level, t.state, seed)


def test_the_normal_bot_stacks_when_it_can() -> None:
    t = penalty_table()
    for seed in range(10):
        move = bot("normal", t.state, seed)
        assert move.type.value == "play" and move.card in t.state.hands[2]


def test_the_normal_bot_swaps_with_the_smallest_hand() -> None:
    t = seven_table()
    sevens = [m for m in engine.legal_moves(t.state, 1) if m.card == card(t, 1, "R7")]
    assert [m.target for m in sevens] == [2, 3, 0]  # seat 3 holds two cards, the others 7
    for seed in range(10):
        assert bot("normal", t.state, seed) == play_move(t, 1, "R7", 3)


def play_move(t: EngineTable, seat: int, code: str, target: int) -> Move:
    return Move.from_dict(play(t, seat, code, target=target))


def test_the_normal_bot_plays_a_card_it_drew_to_match() -> None:
    t = drawn_table()
    assert bot("normal", t.state).type.value == "play"


def test_the_hard_bots_guess_plays_by_the_house_rules_in_play() -> None:
    t = seven_table()
    view = engine.view(t.state, 1)
    guess = sample_state(view, [], random.Random(2))
    assert guess.options == t.state.options
    # The seat's own 7 plays with a target on the guess as it does on the table.
    assert engine.legal_moves(guess, 1) == engine.legal_moves(t.state, 1)
