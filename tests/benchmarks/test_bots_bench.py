"""The bots benchmark keeps working (its win rates are never asserted here: strength is
measured in benchmarks/bots_bench.py, not in tests)."""

from __future__ import annotations

import math

import pytest

from benchmarks import bots_bench


def test_wilson_interval_matches_the_formula() -> None:
    lo, hi = bots_bench.wilson(70, 100)
    assert math.isclose(lo, 0.6041, abs_tol=1e-4) and math.isclose(hi, 0.7810, abs_tol=1e-4)
    assert bots_bench.wilson(0, 10)[0] == 0.0 and bots_bench.wilson(10, 10)[1] == 1.0
    assert bots_bench.wilson(0, 0) == (0.0, 1.0)


def test_the_stronger_bot_takes_every_seat_in_turn() -> None:
    seats = [bots_bench.seats_for(g, 4, "hard", "normal") for g in range(4)]
    assert [s.index("hard") for s in seats] == [0, 1, 2, 3]
    assert all(s.count("hard") == 1 and s.count("normal") == 3 for s in seats)


@pytest.mark.parametrize("variant", ["uno_classic", "dos", "uno_flip"])
def test_a_benchmark_round_ends_with_a_winner_and_times_the_hard_moves(variant: str) -> None:
    winner, times = bots_bench.play_round(variant, ["hard", "easy"], 2, budget=6)
    assert winner in (0, 1)
    assert times and all(t >= 0 for t in times)
    assert bots_bench.play_round(variant, ["hard", "easy"], 2, budget=6)[0] == winner


@pytest.mark.parametrize("variant", ["uno_all_wild", "dos"])
def test_a_benchmark_game_plays_rounds_to_the_target_score(variant: str) -> None:
    winner, _, state = bots_bench.play(variant, ["normal", "easy"], 3, 6, whole_game=True)
    assert state.phase.value == "game_over" and state.winners == (winner,)
    assert state.round > 1  # more than the one round a round-unit game stops at
    assert winner is not None and max(state.scores) == state.scores[winner]
    _, _, first = bots_bench.play(variant, ["normal", "easy"], 3, 6, whole_game=False)
    assert first.round == 1 and first.phase.value in ("round_over", "game_over")
    assert bots_bench.play_game(variant, ["normal", "easy"], 3, budget=6)[0] == winner
