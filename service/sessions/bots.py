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

Ties are broken by a seeded generator, so a session replays the same way:
``BotPlayer`` seeds it with the session and the version the bots' moves are committed
over (``random.Random`` on purpose: reproducible, nothing secret).
"""

from __future__ import annotations

import random
import time
from collections.abc import Collection, Iterable, Mapping, Sequence

import orjson

import engine
import engine.bots
from engine import Event, Move, MoveType, Phase, State

from . import records
from .config import Env
from .events import SESSION_EVENTS
from .models import BotLevel, Meta

T = MoveType
SIDE = (T.UNO, T.CATCH)
#: The levels whose choice reads the history (``BotLevel.reads_history``).
READS_HISTORY: frozenset[BotLevel] = frozenset(b for b in BotLevel if b.reads_history)
#: What the bots' turn yields: the new state, the bots' events, the moves they made.
Played = tuple[State, list[Event], list[Move]]


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


def _levels(bots: Collection[int] | Mapping[int, BotLevel]) -> Mapping[int, BotLevel]:
    return bots if isinstance(bots, Mapping) else dict.fromkeys(bots, BotLevel.SIMPLE)


def next_bot_move(
    state: State,
    bots: Collection[int] | Mapping[int, BotLevel],
    rnd: random.Random,
    history: Sequence[Event] | BotHistory = (),
) -> Move | None:
    """The move some bot seat makes now, or None when the game waits for a human
    (or is over). UNO declarations first, then catches, then the turn or decision.

    ``bots``: the bot seats (simple bots), or bot seat -> level;
    ``history``: the events so far (unredacted: each bot sees its seat's redaction of
    the current round's, ``BotHistory``)."""
    if state.phase is Phase.GAME_OVER:
        return None
    levels = _levels(bots)
    legal = [(seat, engine.legal_moves(state, seat)) for seat in sorted(levels)]
    # Bots never jump in: in play only the seat the game waits for moves (between
    # rounds any seat may start the next one).
    waiting = engine.waiting_for(state) if state.phase is not Phase.ROUND_OVER else None
    for kind in SIDE:
        for _, moves in legal:
            side = [m for m in moves if m.type is kind]
            if side:
                return side[0]
    for seat, moves in legal:
        own = [m for m in moves if m.type not in SIDE]
        if not own or (waiting is not None and seat != waiting):
            continue
        level = levels[seat]
        if level is BotLevel.SIMPLE:
            return choose(own, rnd, engine.find_variant(state.variant).bot_rank)
        view = engine.view(state, seat)
        known = history if isinstance(history, BotHistory) else BotHistory(history)
        return engine.bots.choose(str(level), view, known.seen_by(seat), own, rnd)
    return None


def play_bots(
    state: State,
    bots: Collection[int] | Mapping[int, BotLevel],
    rnd: random.Random,
    limit: int,
    history: Sequence[Event] = (),
    cpu_until: float | None = None,
) -> tuple[State, list[Event], list[Move]]:
    """Let the bots move until a human must (at most ``limit`` moves; with ``cpu_until``,
    a ``time.thread_time()``, none begun that the slowest so far would take past it,
    but the first). ``history``: the events before, at least the current round's
    (unredacted; each levelled bot sees the round's redacted for its seat,
    ``BotHistory``).

    Returns the new state, the events of the bots' moves and the moves they made."""
    events: list[Event] = []
    made: list[Move] = []
    if not bots:
        return state, events, made
    seen = BotHistory(history)
    slowest = 0.0
    while len(made) < limit:
        began = time.thread_time()
        if made and cpu_until is not None and began + slowest >= cpu_until:
            break
        move = next_bot_move(state, bots, rnd, seen)
        if move is None:
            break
        state, evs = records.apply(state, move)
        events.extend(evs)
        seen.extend(evs)
        made.append(move)
        slowest = max(slowest, time.thread_time() - began)
    return state, events, made


class BotPlayer:
    """A session's bots, playing within the settings' budgets (``env.config``)."""

    def __init__(self, env: Env) -> None:
        self.env = env

    def cpu_deadline(self) -> float:
        """The ``time.thread_time()`` past which a request's held-back bot moves stop
        (``SESSION_BOT_CPU_MS`` from now)."""
        return time.thread_time() + self.env.config.bot_cpu_ms / 1000

    def play(
        self,
        sid: str,
        version: int,
        state: State,
        meta: Meta,
        history: list[Event],
        tag: str = "",
        before: tuple[bytes, ...] | None = (),
        budget: int | None = None,
        cpu_until: float | None = None,
    ) -> Played:
        """The bots' moves until a person must move (at most ``budget``, by default
        ``max_bot_moves``, and never past ``max_moves``; with ``cpu_until``, none begun
        after that ``time.thread_time()`` but the first), for the commit over ``version``
        (0: the creation), their ties broken by a generator seeded with the session and
        that version (and ``tag``: the timeout of a chain), so a session replays alike.
        ``history``: this request's events so far, after ``before`` (the session's events
        of the round as stored, ``Snapshot.history``): each levelled bot sees the round's
        game events redacted for its seat."""
        config = self.env.config
        limit = min(
            config.max_bot_moves if budget is None else budget,
            config.max_moves - state.move_count,
        )
        bots = meta.bot_levels
        if not bots or limit <= 0:
            return state, [], []
        rnd = random.Random(f"{sid}:{version}{tag}")
        if before and meta.levelled:
            history = [*map(orjson.loads, before), *history]
        return play_bots(state, bots, rnd, limit, history, cpu_until)
