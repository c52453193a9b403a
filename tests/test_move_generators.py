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
from engine.state import Work
from engine.variant import Variant
from engine.variants.all_wild import TARGETED, WX, AllWild
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


def reference_all_wild_legal_turn(variant: AllWild, state: State, player: int) -> list[Move]:
    """UNO All Wild's turn listing before issue 18 (``play_moves`` inlined), unchanged
    but for its cache."""
    moves: list[Move] = []
    hands = state.hands
    for card in hands[player]:
        hand_size = len(hands[player])
        kind = variant._kinds[card]
        opponents = [t for t in range(state.num_players) if t != player]
        if kind is WX and hand_size > 1:
            moves.extend(
                Move(T.PLAY, player, card, target=t, uno=u)
                for t in opponents
                for u in ((False, True) if len(hands[t]) == 1 else (False,))
            )
            continue
        unos = (False, True) if hand_size == 2 else (False,)
        if kind in TARGETED:
            moves.extend(
                Move(T.PLAY, player, card, target=t, uno=u) for t in opponents for u in unos
            )
        else:
            moves.extend(Move(T.PLAY, player, card, uno=u) for u in unos)
    if variant.may_draw(state, player):
        moves.append(Move(T.DRAW, player))
    return moves


def random_states(variant_id: str, games: int, seed: int) -> Iterator[State]:
    """Every state of ``games`` random games (random legal moves), players varied."""
    variant = engine.find_variant(variant_id)
    rnd = random.Random(seed)
    for g in range(games):
        players = variant.min_players + g % (variant.max_players - variant.min_players + 1)
        state, _ = variant.new_game(players, rnd.randrange(2**64), options={"target": 60})
        while state.phase is not Phase.GAME_OVER:
            yield state
            seat = (
                0
                if state.phase is Phase.ROUND_OVER
                else (state.pending.player if state.pending is not None else state.current)
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


def all_wild_turns_agree(state: State) -> int:
    """Compare the turn listing of every seat (as if it were that seat's turn) and the
    plays of the card a decision names."""
    aw = engine.find_variant("uno_all_wild")
    assert isinstance(aw, AllWild)
    if state.phase is not Phase.PLAY:
        return 0
    seen = 0
    for seat in range(state.num_players):
        new = aw.legal_turn(state, seat)
        assert new == reference_all_wild_legal_turn(aw, state, seat)
        seen += len(new)
    pend = state.pending
    if pend is not None and pend.card is not None and pend.type.value == "play_drawn":
        old = [
            m for m in reference_all_wild_legal_turn(aw, state, pend.player) if m.card == pend.card
        ]
        assert aw.legal_play_drawn(state, pend.player) == old
    return seen


#: variant -> (the comparison on one state, random games to compare on)
CHECKS: dict[str, tuple[Callable[[State], int], int]] = {
    "dos": (dos_match_moves_agree, 12),
    "uno_all_wild": (all_wild_turns_agree, 40),  # a game is a round or two
}


@pytest.mark.parametrize("variant_id", sorted(CHECKS))
def test_rewritten_generators_agree_with_the_replaced_ones(variant_id: str) -> None:
    check, games = CHECKS[variant_id]
    states = moves = 0
    for state in random_states(variant_id, games, seed=18):
        moves += check(state)
        states += 1
    # The games reached many states with moves to compare (not a vacuous pass).
    assert states > 1000 and moves > 5000, (states, moves)


@pytest.mark.parametrize("players", range(2, 11))
def test_all_wild_cut_for_dealer_is_the_base_cut(players: int) -> None:
    """UNO All Wild works its cut out at once (every card cuts zero); the base cut,
    played card by card, gives the same events, dealer and generator."""
    aw = engine.find_variant("uno_all_wild")
    assert isinstance(aw, AllWild) and aw._cut_always_ties
    dealers = set()
    for seed in range(40):
        start, _ = aw.new_game(players, seed)
        mine, base = Work.of(start), Work.of(start)
        mine_events: list[dict[str, object]] = []
        base_events: list[dict[str, object]] = []
        dealer = aw.cut_for_dealer(mine, mine_events)
        assert dealer == Variant.cut_for_dealer(aw, base, base_events)
        assert mine_events == base_events and mine.rng == base.rng
        dealers.add(dealer)
    assert len(dealers) > 1  # the generator picks, not a fixed seat
