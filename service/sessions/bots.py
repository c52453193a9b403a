"""The session bots: the simple bot (``"bot": true``) and the levels of ``engine.bots``
(``"easy"``, ``"normal"``, ``"hard"``).

The simple bot never looks at anything but its own legal moves (so it needs no variant
code): it says UNO when it owes it, catches a seat that did not, and otherwise prefers
getting rid of cards (play, match, place, give) over drawing, passing or ending a turn
(each variant's ``bot_rank``, declared with its move types), and a move that says UNO
over one that does not.

A levelled bot is given what its seat may know and nothing else: the seat's view
(``engine.view``), the events of this request (the person's move, the bots' moves
before) redacted for the seat
(``engine.redact_all``) and the seat's legal moves (``engine.bots.choose``).

Ties are broken by a seeded generator, so a session replays the same way.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence

import engine
import engine.bots
from engine import Event, Move, MoveType, Phase, State

T = MoveType
SIDE = (T.UNO, T.CATCH)


def choose(moves: list[Move], rnd: random.Random, rank: Mapping[MoveType, int]) -> Move:
    """The simple bot's pick among ``moves`` (not empty); ``rank``: lower is better."""
    best = min(rank[m.type] for m in moves)
    pool = [m for m in moves if rank[m.type] == best]
    if any(m.uno for m in pool):
        pool = [m for m in pool if m.uno]
    return rnd.choice(pool)


def _levels(bots: Collection[int] | Mapping[int, bool | str]) -> Mapping[int, bool | str]:
    return bots if isinstance(bots, Mapping) else dict.fromkeys(bots, True)


def next_bot_move(
    state: State,
    bots: Collection[int] | Mapping[int, bool | str],
    rnd: random.Random,
    history: Sequence[Event] = (),
) -> Move | None:
    """The move some bot seat makes now, or None when the game waits for a human
    (or is over). UNO declarations first, then catches, then the turn or decision.

    ``bots``: the bot seats, or bot seat -> level (``True``: the simple bot);
    ``history``: the events so far (unredacted: each bot sees its seat's redaction)."""
    if state.phase is Phase.GAME_OVER:
        return None
    levels = _levels(bots)
    legal = [(seat, engine.legal_moves(state, seat)) for seat in sorted(levels)]
    for kind in SIDE:
        for _, moves in legal:
            side = [m for m in moves if m.type is kind]
            if side:
                return side[0]
    for seat, moves in legal:
        own = [m for m in moves if m.type not in SIDE]
        if not own:
            continue
        level = levels[seat]
        if level is True:
            return choose(own, rnd, engine.find_variant(state.variant).bot_rank)
        view = engine.view(state, seat)
        return engine.bots.choose(str(level), view, engine.redact_all(history, seat), own, rnd)
    return None


def play_bots(
    state: State,
    bots: Collection[int] | Mapping[int, bool | str],
    rnd: random.Random,
    limit: int,
    history: Sequence[Event] = (),
) -> tuple[State, list[Event], list[Move]]:
    """Let the bots move until a human must (at most ``limit`` moves). ``history``: the
    events before (unredacted; each levelled bot sees them redacted for its seat).

    Returns the new state, the events of the bots' moves and the moves they made."""
    events: list[Event] = []
    made: list[Move] = []
    if not bots:
        return state, events, made
    seen = list(history)
    while len(made) < limit:
        move = next_bot_move(state, bots, rnd, seen)
        if move is None:
            break
        state, evs = engine.apply(state, move)
        events.extend(evs)
        seen.extend(evs)
        made.append(move)
    return state, events, made
