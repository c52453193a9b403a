"""Time in a session: what its turn clock owes and the bots' held-back chains, played
before anything else (``settle``); when the clock will next owe a move
(``Snapshot.next_deadline``); the clock after a move (``clock_moved``) or a seat change
(``restarted``). A new game's clock is ``Clock.new`` (creation) or ``Clock.fresh`` (a
rematch).

Every request that touches a session first settles it: a seat the clock holds for is
told (its first request after the deal: ``Clock.told``), then each passed deadline's
forced default moves (``engine.forced_move``, logged ``"by": "clock"`` at the deadline), a
``timeout`` event, the bots' replies, in a chain while deadlines have passed, committed
with one compare-and-set over the version read (a racing replica loses, re-reads and
finds the timeout played: one timeout, never two). A game whose seats all went to bots
(timeouts, leaves) goes on the same way: the bots' next chain, so a game nobody plays
any more still ends.
"""

from __future__ import annotations

import time
from dataclasses import replace

import engine
from engine import Event, Move, Phase, State

from . import events as session_events
from . import records
from .bots import BotPlayer
from .config import Env
from .models import LostReason, Meta, Snapshot, bot_to_move, waiting_person
from .records import logged
from .repo import Change, Repository

#: Compare-and-set tries of a settlement; past them the session is answered as read
#: (the next request settles it).
SETTLE_TRIES = 3


class Timekeeper:
    def __init__(self, env: Env, repo: Repository, bots: BotPlayer) -> None:
        self.env = env
        self.repo = repo
        self.bots = bots

    def settle(
        self,
        c: Snapshot,
        now: float | None = None,
        caller: int | None = None,
        tries: int = SETTLE_TRIES,
    ) -> Snapshot:
        """The session after what its clock owes at ``now`` (default: the time now) and
        the bots' next chain when a bot is to move (``owed``), committed over
        ``c.version``; ``c`` itself when nothing is owed. ``caller``: the seat making the
        request (by its token), told of the deal if the clock holds for it. A replica
        that loses the compare-and-set reads the session again (the winner played the
        timeout) and settles what is still owed, up to ``tries`` times in all; then it
        answers the session as read. The bots' moves of every try together stop at one
        ``SESSION_BOT_CPU_MS`` budget (a try after it plays one move a chain at most)."""
        if c.state is None or (c.meta.clock is None and not c.bot_to_move()):
            return c
        at = self.env.now() if now is None else now
        cpu_until = self.bots.cpu_deadline()

        def step(c: Snapshot) -> Change[None]:
            told = c
            clock = c.meta.clock
            if caller is not None and clock is not None and caller in clock.held_for:
                told = replace(c, meta=replace(c.meta, clock=clock.told(caller, at)))
            new, events, moves = self.owed(told, at, cpu_until)
            if not moves and new.meta == c.meta:
                return Change(None)
            quiet = not events and not moves  # only a seat told: the game is the same
            return Change(None, c.then(new.state, new.meta, len(events), quiet), events, moves)

        settled, _ = self.repo.change(c.sid, step, start=c, tries=tries, give_up=lambda _: None)
        return settled

    def tell(self, c: Snapshot, caller: int, now: float | None = None) -> Snapshot:
        """The session with ``caller`` told of the deal (``Clock.told``) when the clock
        holds for it, committed quietly over ``c.version`` and nothing else played (a
        reader that found another request settling the session); ``c`` otherwise."""
        at = self.env.now() if now is None else now

        def step(c: Snapshot) -> Change[None]:
            clock = c.meta.clock
            if clock is None or caller not in clock.held_for:
                return Change(None)
            meta = replace(c.meta, clock=clock.told(caller, at))
            return Change(None, c.then(c.state, meta, 0, True), [], [])

        told, _ = self.repo.change(c.sid, step, start=c, tries=SETTLE_TRIES, give_up=lambda _: None)
        return told

    def owed(
        self, c: Snapshot, now: float, cpu_until: float | None = None
    ) -> tuple[Snapshot, list[Event], list[bytes]]:
        """What the clock owes at ``now``: for each passed deadline in turn, the forced
        moves of the seat that ran out (while it still owes a decision, its default
        too), a ``timeout`` event, the hand-over to a bot after ``max_timeouts`` in a
        row, and the bots' replies; all at the deadline. A bot to move (its last chain
        stopped at ``max_bot_moves``; with or without a clock) plays the next chain where
        it stopped: at the clock's start (it waited for the bots from then), or at
        ``now`` without a clock. The forced moves and the bots' moves together stay within
        ``max_bot_moves`` (a timeout is begun only while some is left, and its forced
        moves, at most one turn's, always end that turn; the bots stop at what is left);
        the next request goes on; so with ``cpu_until`` (``BotPlayer.play``): past it no
        further timeout or chain is begun. Returns the session after them (its version
        unchanged: the caller commits), their events and move-log entries."""
        state, meta = c.dealt(), c.meta
        config = self.env.config
        events: list[Event] = []
        moves: list[bytes] = []
        budget = config.max_bot_moves
        chain = 0
        while budget > 0:
            if state.move_count >= config.max_moves or c.stored >= config.max_bytes:
                break  # the session is full
            if chain and cpu_until is not None and time.thread_time() >= cpu_until:
                break  # this request's time for the bots is up: the next goes on
            seat = waiting_person(state, meta)
            if seat is None and bot_to_move(state, meta):
                # A bot's move at a request: the bots' last chain stopped at its budget.
                # They go on where it stopped: with a clock, at the time the game began
                # to wait for them (a budget splits the work, it does not move the
                # clock); without one, at ``now``.
                chain += 1
                state, bot_events, made = self.bots.play(
                    c.sid, c.version, state, meta, events, f":bots:{chain}", c.history, budget,
                    cpu_until,
                )  # fmt: skip
                if not made:
                    break
                events += bot_events
                moves += logged(made, "bot", now if meta.clock is None else meta.clock.started)
                budget -= len(made)
                continue
            clock = meta.clock
            if seat is None or clock is None:
                break  # the game is over, or no clock runs
            deadline = clock.deadline(seat)
            if deadline > now:
                break
            state, forced, played = self._forced(state, seat)
            events.append(session_events.timeout(seat, deadline, len(forced)))
            events += played
            moves += logged(forced, "clock", deadline)
            clock = clock.timed_out(seat)
            if clock.hand_over(seat, config.max_timeouts):
                clock = clock.told(seat, deadline)  # a bot needs no telling
                meta = meta.handed_to_bot(seat, deadline, LostReason.TIMEOUTS)
                events.append(session_events.bot_took_seat(seat, "timeouts"))
            meta = replace(meta, clock=clock)
            chain += 1
            budget -= len(forced)
            state, bot_events, made = self.bots.play(
                c.sid, c.version, state, meta, events, f":clock:{chain}", c.history, budget,
                cpu_until,
            )  # fmt: skip
            events += bot_events
            moves += logged(made, "bot", deadline)
            meta = replace(meta, clock=clock.restart(deadline))
            budget -= len(made)
        return replace(c, state=state, meta=meta), events, moves

    def _forced(self, state: State, seat: int) -> tuple[State, list[Move], list[Event]]:
        """``seat``'s forced default moves until it owes nothing more of its turn (or the
        session is full): the state after them, the moves and their events."""
        forced: list[Move] = []
        played: list[Event] = []
        while state.move_count < self.env.config.max_moves:
            move = engine.forced_move(state, seat)
            if move is None:
                break
            state, evs = records.apply(state, move)
            forced.append(move)
            played += evs
            pend = state.pending
            if pend is None or pend.player != seat:
                break  # the seat owes nothing more of this turn
        return state, forced, played

    def sweep(self, sid: str) -> tuple[bool, float | None]:
        """The clock sweeper's settling of ``sid`` (``NotFoundError``: it is gone):
        whether a commit was made (its commit indexed the next deadline), and when the
        session should next be swept (``Snapshot.sweep_at``)."""
        c, _ = self.repo.load(sid)
        settled = self.settle(c)
        return settled.version != c.version, settled.sweep_at(self.env.config, self.env.now())


def restarted(meta: Meta, at: float) -> Meta:
    """The meta with its clock (if any) counting the move the game waits for from ``at``
    (the deal, a seat handed to a bot that then moved)."""
    return meta if meta.clock is None else replace(meta, clock=meta.clock.restart(at))


def clock_moved(
    meta: Meta, seat: int, before: State, after: State, at: float, move: Move | None = None
) -> Meta:
    """The meta after ``seat``'s ``move`` at ``at`` (and the bots' replies): the clock
    charged and, when the game now waits for another move, restarted at ``at``. A turn
    move by a seat the game did not wait for (classic UNO's jump-in) took the turn: the
    next turn starts then too, even when it falls to the seat that was waited for (the
    turn it lost is not charged to its bank); an UNO call or a catch restarts nothing."""
    clock = meta.clock
    if clock is None:
        return meta
    waited = engine.waiting_for(before)
    clock = clock.moved(seat, waited, at)
    side = engine.find_variant(before.variant).side_moves  # UNO calls, catches
    jumped_in = (
        before.phase is Phase.PLAY and move is not None and move.type not in side and seat != waited
    )
    if waited == seat or jumped_in or engine.waiting_for(after) != waited:
        clock = clock.restart(at)
    return replace(meta, clock=clock)
