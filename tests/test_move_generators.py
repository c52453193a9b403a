"""Differential tests for the variants' rewritten move generators (issue 18): the
generator the engine uses now and the one it replaced agree, in order, on every state
of many random games. The replaced generators live on here only, as the reference."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

import pytest

import engine
from engine import Move, MoveType, Phase, State
from engine.cards import Color
from engine.moves import MatchPart
from engine.variants.dos import Dos

T = MoveType


def reference_dos_match_moves(
    variant: Dos, state: State, player: int, only: int | None
) -> list[Move]:
    """DOS's match listing before issue 18, unchanged."""
    opts = variant._options
    hand = state.hands[player]
    byn: dict[int, list[tuple[int, int, tuple[tuple[MatchPart, Color], ...]]]] = {}
    for i, c in enumerate(hand):
        for n, parts in opts[c].items():
            byn.setdefault(n, []).append((i, c, parts))
    out: list[Move] = []
    append = out.append
    for entry in state.ext.row:
        if entry.matched:
            continue
        for total, tparts in opts[entry.card].items():
            for _, c, parts in byn.get(total, ()):
                if only is None or c == only:
                    for tp, _ in tparts:
                        for hp, _ in parts:
                            append(Move(T.MATCH, player, target=tp, cards=(hp,)))
            for n1 in range(1, total // 2 + 1):
                b1 = byn.get(n1)
                b2 = byn.get(total - n1)
                if not b1 or not b2:
                    continue
                same = n1 * 2 == total
                for i, c1, p1 in b1:
                    for j, c2, p2 in b2:
                        if i == j or (same and j < i):
                            continue
                        if only is not None and only != c1 and only != c2:
                            continue
                        first, second = (p1, p2) if i < j else (p2, p1)
                        for tp, _ in tparts:
                            for a, _ in first:
                                for b, _ in second:
                                    append(Move(T.MATCH, player, target=tp, cards=(a, b)))
    return out


def random_states(variant_id: str, games: int, seed: int) -> Iterator[State]:
    """Every state of ``games`` random games (random legal moves), players varied."""
    variant = engine.find_variant(variant_id)
    rnd = random.Random(seed)
    for g in range(games):
        players = variant.min_players + g % (variant.max_players - variant.min_players + 1)
        state, _ = variant.new_game(players, rnd.randrange(2**64), options={"target": 60})
        while state.phase is not Phase.GAME_OVER:
            yield state
            seat = 0 if state.phase is Phase.ROUND_OVER else (
                state.pending.player if state.pending is not None else state.current
            )
            legal = variant.legal_moves(state, seat)
            state, _ = variant.apply(state, variant.encode_move(state, rnd.choice(legal)))


def dos_match_moves_agree(state: State) -> int:
    """Compare on every seat with and without a required card; return the moves seen."""
    dos = engine.find_variant("dos")
    assert isinstance(dos, Dos)
    seen = 0
    for seat in range(state.num_players):
        hand = state.hands[seat]
        for only in (None, *hand[:2]):
            new = dos.match_moves(state, seat, only)
            assert new == reference_dos_match_moves(dos, state, seat, only)
            assert all(type(m) is Move for m in new)
            seen += len(new)
    return seen


CHECKS: dict[str, Callable[[State], int]] = {"dos": dos_match_moves_agree}


@pytest.mark.parametrize("variant_id", sorted(CHECKS))
def test_rewritten_generators_agree_with_the_replaced_ones(variant_id: str) -> None:
    check = CHECKS[variant_id]
    states = moves = 0
    for state in random_states(variant_id, games=12, seed=18):
        moves += check(state)
        states += 1
    # The games reached many states with moves to compare (not a vacuous pass).
    assert states > 1000 and moves > 5000, (states, moves)
