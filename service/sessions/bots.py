"""The session bots: the simple bot (``"bot": true``) and the levels of ``engine.bots``
(``"easy"``, ``"normal"``, ``"hard"``).

The simple bot never looks at anything but its own legal moves (so it needs no variant
code): it says UNO when it owes it, catches a seat that did not, and otherwise prefers
getting rid of cards (play, match, place, give) over drawing, passing or ending a turn
(each variant's ``bot_rank``, declared with its move types), and a move that says UNO
over one that does not.

A levelled bot is given what its seat may know and nothing else: the seat's view
(``engine.view``), the game's events of the current round so far redacted for the seat
(``engine.redact_all``; ``BotHistory``) and the seat's legal moves
(``engine.bots.choose``): what ``benchmarks/bots_bench.py`` gives its bots. A round's
events start with its deal (``round_started``; in the first round the dealer's cut
before it); the session's own events (``SESSION_EVENTS``) are not the game's and are
left out.

Ties are broken by a seeded generator, so a session replays the same way.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Iterable, Mapping, Sequence

import engine
import engine.bots
from engine import Event, Move, MoveType, Phase, State

from .events import SESSION_EVENTS

T = MoveType
SIDE = (T.UNO, T.CATCH)
#: The levels whose choice reads the history ("easy" plays a random legal move): a
#: session keeps and reads the round's events only for these.
READS_HISTORY: frozenset[bool | str] = frozenset({"normal", "hard"})


def choose(moves: list[Move], rnd: random.Random, rank: Mapping[MoveType, int]) -> Move:
    """The simple bot's pick among ``moves`` (not empty); ``rank``: lower is better."""
    best = min(rank[m.type] for m in moves)
    pool = [m for m in moves if rank[m.type] == best]
    if any(m.uno for m in pool):
        pool = [m for m in pool if m.uno]
    return rnd.choice(pool)


def round_start(events: Sequence[Event]) -> int | None:
    """The index in ``events`` where the last round in them starts (its
    ``round_started``, or the ``dealer_cut`` just before it), or None."""
    for i in range(len(events) - 1, -1, -1):
        if events[i].get("type") == "round_started":
            return i - 1 if i > 0 and events[i - 1].get("type") == "dealer_cut" else i
    return None


class BotHistory:
    """The game's events of the current round, and each seat's redaction of them
    (made when a bot of that seat first needs it, then kept up as events come)."""

    def __init__(self, events: Iterable[Event] = ()) -> None:
        self.events: list[Event] = []
        self._seats: dict[int, list[Event]] = {}
        self.extend(events)

    def extend(self, events: Iterable[Event]) -> None:
        """Add the events that followed (a new round's deal starts the history afresh)."""
        game = [e for e in events if e.get("type") not in SESSION_EVENTS]
        start = round_start(game)
        if start is not None:
            self.events, self._seats = game[start:], {}
            return
        self.events.extend(game)
        for seat, seen in self._seats.items():
            seen.extend(engine.redact_all(game, seat))

    def seen_by(self, seat: int) -> list[Event]:
        """The round's events redacted for ``seat`` (the caller must not change them)."""
        seen = self._seats.get(seat)
        if seen is None:
            seen = self._seats[seat] = engine.redact_all(self.events, seat)
        return seen


def _levels(bots: Collection[int] | Mapping[int, bool | str]) -> Mapping[int, bool | str]:
    return bots if isinstance(bots, Mapping) else dict.fromkeys(bots, True)


def next_bot_move(
    state: State,
    bots: Collection[int] | Mapping[int, bool | str],
    rnd: random.Random,
    history: Sequence[Event] | BotHistory = (),
) -> Move | None:
    """The move some bot seat makes now, or None when the game waits for a human
    (or is over). UNO declarations first, then catches, then the turn or decision.

    ``bots``: the bot seats, or bot seat -> level (``True``: the simple bot);
    ``history``: the events so far (unredacted: each bot sees its seat's redaction of
    the current round's, ``BotHistory``)."""
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
        known = history if isinstance(history, BotHistory) else BotHistory(history)
        return engine.bots.choose(str(level), view, known.seen_by(seat), own, rnd)
    return None


def play_bots(
    state: State,
    bots: Collection[int] | Mapping[int, bool | str],
    rnd: random.Random,
    limit: int,
    history: Sequence[Event] = (),
) -> tuple[State, list[Event], list[Move]]:
    """Let the bots move until a human must (at most ``limit`` moves). ``history``: the
    events before, at least the current round's (unredacted; each levelled bot sees the
    round's redacted for its seat, ``BotHistory``).

    Returns the new state, the events of the bots' moves and the moves they made."""
    events: list[Event] = []
    made: list[Move] = []
    if not bots:
        return state, events, made
    seen = BotHistory(history)
    while len(made) < limit:
        move = next_bot_move(state, bots, rnd, seen)
        if move is None:
            break
        state, evs = engine.apply(state, move)
        events.extend(evs)
        seen.extend(evs)
        made.append(move)
    return state, events, made
