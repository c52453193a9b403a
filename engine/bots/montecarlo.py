"""The hard level's search: flat determinized Monte Carlo.

For each of ``budget // candidates`` samples (full states consistent with the seat's
view), every candidate move (normal's best ``CANDIDATES``) is applied to the same
sample and played out with a fast policy (each seat takes its best-ranked move type,
says UNO, plays before drawing; ties at random) for at most ``DEPTH`` moves. A playout
scores 1 when the seat wins the round, 0 when another seat does, and by the hand
sizes when the depth runs out. The candidate with the best mean wins; ties go to
normal's order. Every playout counts against ``budget``, so a move's cost is bounded
by ``budget * DEPTH`` engine moves whatever the wall clock does.
"""

from __future__ import annotations

import random
from functools import cache
from typing import Any

from ..errors import EngineError
from ..moves import Move, MoveType
from ..registry import find_variant
from ..state import Phase, State
from .knowledge import ATTACKS, BotKnowledge, Ctx

#: Playouts per hard move (see docs/bots.md for the measured cost).
DEFAULT_BUDGET = 24
#: How many of normal's best moves hard compares.
CANDIDATES = 3
#: The longest playout, in moves.
DEPTH = 12

PLAY = Phase.PLAY
UNO = MoveType.UNO
PLAY_MOVE = MoveType.PLAY
#: The mean a candidate must beat normal's first choice by to be preferred.
PRIOR = 0.05


def search(
    know: BotKnowledge, ctx: Ctx, ranked: list[Move], rnd: random.Random, budget: int
) -> Move:
    candidates = ranked[:CANDIDATES]
    samples = max(1, budget // len(candidates))
    totals = [0.0] * len(candidates)
    counts = [0] * len(candidates)
    variant = find_variant(ctx.variant.id)
    for _ in range(samples):
        state = know.sample(ctx, rnd)
        for i, move in enumerate(candidates):
            try:
                after, _ = variant.apply(state, move)
            except EngineError:
                continue  # a sample the move does not fit (should not happen): skip it
            totals[i] += playout(after, ctx.seat, rnd)
            counts[i] += 1
    best = max(
        range(len(candidates)),
        key=lambda i: (
            (totals[i] / counts[i] if counts[i] else -1.0) + (PRIOR if i == 0 else 0.0),
            -i,
        ),
    )
    return candidates[best]


def policy(
    state: State, actor: int, moves: list[Move], rank: dict[MoveType, int], rnd: random.Random
) -> Move:
    """The fast playout policy, on the state itself (a playout's state is the bot's own
    sample): the best-ranked move type; a move that says UNO; a play in a colour the
    hand holds most, Wilds kept for last, an attack on a seat about to go out; the most
    cards matched (DOS). Ties at random (one ``rnd.random()`` a move, in list order).
    The hand's colours and the threat are worked out only when a move needs them."""
    if len(moves) == 1:
        return moves[0]
    colour, wild, attack = _faces(state.variant)[state.side]
    hand = state.hands[actor]
    big_hand = len(hand) > 2
    counts: dict[object, int] | None = None
    threat: bool | None = None
    draw = rnd.random
    best: Move = moves[0]
    best_value = -1e9
    for m in moves:
        mtype, _, card, color, _, chain, uno, cards = m
        value = -10.0 * rank[mtype] + draw()
        if uno:
            value += 100.0
        if card is not None and mtype is PLAY_MOVE:
            if counts is None:
                counts = {}
                for c in hand:
                    if not wild[c]:
                        counts[colour[c]] = counts.get(colour[c], 0) + 1
            if wild[card]:
                value += (counts.get(color, 0) if color is not None else 0) - (
                    6.0 if big_hand else 0.0
                )
            else:
                value += counts.get(colour[card], 0) - 1
            if attack[card]:
                if threat is None:
                    threat = min(len(h) for i, h in enumerate(state.hands) if i != actor) <= 2
                if threat:
                    value += 4.0
            if chain:
                value += 3.0 * len(chain)
        elif cards:
            value += 10.0 * len(cards)
        if value > best_value:
            best, best_value = m, value
    return best


@cache
def _faces(variant_id: str) -> tuple[tuple[Any, Any, tuple[bool, ...]], ...]:
    """Per side: the catalog's colour and wild tables, and whether each card's kind is
    one of ``ATTACKS``."""
    cat = find_variant(variant_id).catalog
    return tuple(
        (cat.color[s], cat.wild[s], tuple(k in ATTACKS for k in cat.kind[s]))
        for s in range(cat.sides)
    )


def playout(state: State, seat: int, rnd: random.Random) -> float:
    """Play ``state`` on with the fast policy; the seat's result in [0, 1]."""
    variant = find_variant(state.variant)
    rank = variant.bot_rank
    legal = variant.legal_moves  # catalog ids, applied as listed
    apply = variant.apply_listed
    for _ in range(DEPTH):
        if state.phase is not PLAY:
            break
        if state.exposed:
            says = [m for s in state.exposed for m in legal(state, s) if m.type is UNO]
            if says:
                state, _ = apply(state, says[0])
                continue
        pend = state.pending
        actor = pend.player if pend is not None else state.current
        moves = legal(state, actor)
        if not moves:
            break
        move = moves[0] if len(moves) == 1 else policy(state, actor, moves, rank, rnd)
        state, _ = apply(state, move)
    if state.phase is not PLAY:
        return 1.0 if state.round_winner == seat else 0.0
    sizes = [len(h) for h in state.hands]
    own = sizes[seat]
    best_other = min(s for i, s in enumerate(sizes) if i != seat)
    return min(1.0, max(0.0, 0.5 + 0.1 * (best_other - own)))
