"""A simple legal-move bot, the same for every variant.

A bot never looks at anything but its own legal moves (so it needs no variant code):
it says UNO when it owes it, catches a seat that did not, and otherwise prefers
getting rid of cards (play, match, place, give) over drawing, passing or ending a turn
(each variant's ``bot_rank``, declared with its move types), and a move that says UNO
over one that does not. Ties are broken by a seeded
generator, so a session replays the same way.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping

import engine
from engine import Event, Move, MoveType, Phase, State

T = MoveType
SIDE = (T.UNO, T.CATCH)


def choose(moves: list[Move], rnd: random.Random, rank: Mapping[MoveType, int]) -> Move:
    """The bot's pick among ``moves`` (not empty); ``rank``: lower is better."""
    best = min(rank[m.type] for m in moves)
    pool = [m for m in moves if rank[m.type] == best]
    if any(m.uno for m in pool):
        pool = [m for m in pool if m.uno]
    return rnd.choice(pool)


def next_bot_move(state: State, bots: Collection[int], rnd: random.Random) -> Move | None:
    """The move some bot seat makes now, or None when the game waits for a human
    (or is over). UNO declarations first, then catches, then the turn or decision."""
    if state.phase is Phase.GAME_OVER:
        return None
    legal = [(seat, engine.legal_moves(state, seat)) for seat in sorted(bots)]
    for kind in SIDE:
        for _, moves in legal:
            side = [m for m in moves if m.type is kind]
            if side:
                return side[0]
    turn = [own for _, moves in legal if (own := [m for m in moves if m.type not in SIDE])]
    if not turn:
        return None
    return choose(turn[0], rnd, engine.find_variant(state.variant).bot_rank)


def play_bots(
    state: State, bots: Collection[int], rnd: random.Random, limit: int
) -> tuple[State, list[Event], list[Move]]:
    """Let the bots move until a human must (at most ``limit`` moves).

    Returns the new state, the events of the bots' moves and the moves they made."""
    events: list[Event] = []
    made: list[Move] = []
    if not bots:
        return state, events, made
    while len(made) < limit:
        move = next_bot_move(state, bots, rnd)
        if move is None:
            break
        state, evs = engine.apply(state, move)
        events.extend(evs)
        made.append(move)
    return state, events, made
