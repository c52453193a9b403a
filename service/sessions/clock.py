"""Turn clocks: how long a seat may take over a move, and the state that decides it.

A session created with ``"clock": {"turn_seconds": T, "bank_seconds": B,
"max_timeouts": M}`` gives the seat the game waits for (``engine.waiting_for``; never a
bot) T seconds for each move, counted from the moment the game began to wait for it
(the previous move, or a deadline). Each seat also has a time bank of B seconds for
the whole game (default 0): time a move takes beyond T comes out of the bank. So the
seat's deadline is ``started + T + bank left``. A move in time keeps T and the bank
minus what it used beyond T. When the deadline passes, the service plays the seat's
forced default moves (``engine.forced_move``) at the deadline, the bank is empty from
then on and the seat's timeouts in a row grow by one; M in a row (optional) hand the
seat to a bot, and so do the service's ``SESSION_MAX_TIMEOUTS`` in a row whatever M
says (a service policy: forced moves cannot go on forever). Any move the seat makes
itself resets its timeouts in a row.

The clock starts when every person has been told the game began (``dealt``): it holds
(``held_for``: the persons not told yet) until each of them has made a request with its
token after the deal (``told``), or until ``held_until`` (the deal plus the start grace,
``SESSION_START_GRACE_SECONDS``), whichever comes first. The answer that deals (a join, a
create, a rematch) tells its own seat. While it holds, the deadline that will be owed
counts from ``held_until`` (``deadline``); the deadline an answer shows is not running
and never later than the one the turn gets (``view``), so no seat ever sees its
deadline move earlier.

The clock's state lives in the session's meta (``Clock.to_json``), written with the
commit of each move, so every replica reads the same deadlines.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from .events import rfc3339


@dataclass(frozen=True)
class Clock:
    turn_seconds: float
    bank_seconds: float
    max_timeouts: int | None
    #: When the game began to wait for the current move (epoch seconds).
    started: float
    #: Bank seconds left per seat.
    bank: tuple[float, ...]
    #: Timeouts in a row per seat.
    timeouts: tuple[int, ...]
    #: The persons not told of the deal yet: the clock holds for them (see the module).
    held_for: tuple[int, ...] = ()
    #: When the hold ends at the latest (epoch seconds; None: no hold).
    held_until: float | None = None

    @classmethod
    def new(cls, spec: dict[str, Any], seats: int, at: float) -> Clock:
        bank = float(spec.get("bank_seconds", 0))
        return cls(
            float(spec["turn_seconds"]),
            bank,
            spec.get("max_timeouts"),
            at,
            (bank,) * seats,
            (0,) * seats,
        )

    @property
    def start(self) -> float:
        """When the current wait counts from: ``started``, or the hold's end while the
        clock holds."""
        if self.held_until is None:
            return self.started
        return max(self.started, self.held_until)

    def deadline(self, seat: int) -> float:
        return self.start + self.turn_seconds + self.bank[seat]

    def bank_left(self, seat: int, at: float) -> float:
        """``seat``'s bank at ``at``, were it the seat the game waits for."""
        over = max(0.0, at - self.start - self.turn_seconds)
        return max(0.0, self.bank[seat] - over)

    def dealt(self, at: float, untold: tuple[int, ...], grace: float) -> Clock:
        """The game was dealt at ``at``: the clock holds for the persons ``untold`` (not
        told by the answer that dealt) for ``grace`` seconds at most (0: no hold)."""
        if not untold or grace <= 0:
            return replace(self, started=at, held_for=(), held_until=None)
        return replace(self, started=at, held_for=tuple(sorted(untold)), held_until=at + grace)

    def told(self, seat: int, at: float) -> Clock:
        """``seat`` was told of the deal at ``at`` (its first request, or it no longer
        needs telling: it left, a bot took it). The last one told starts the clock: at
        ``at``, or at ``held_until`` when that came first."""
        if seat not in self.held_for:
            return self
        rest = tuple(s for s in self.held_for if s != seat)
        if rest:
            return replace(self, held_for=rest)
        until = self.held_until if self.held_until is not None else at
        return replace(
            self, started=max(self.started, min(at, until)), held_for=(), held_until=None
        )

    def moved(self, seat: int, waited_for: int | None, at: float) -> Clock:
        """``seat`` moved at ``at`` (the game waited for ``waited_for``): the waited-for
        seat pays what it used beyond the turn time from its bank; the mover's timeouts in
        a row start again from zero."""
        bank = list(self.bank)
        if waited_for == seat:
            bank[seat] = self.bank_left(seat, at)
        timeouts = list(self.timeouts)
        timeouts[seat] = 0
        return replace(self, bank=tuple(bank), timeouts=tuple(timeouts))

    def timed_out(self, seat: int) -> Clock:
        bank = list(self.bank)
        bank[seat] = 0.0
        timeouts = list(self.timeouts)
        timeouts[seat] += 1
        return replace(self, bank=tuple(bank), timeouts=tuple(timeouts))

    def returned(self, seat: int) -> Clock:
        """``seat``'s person took it back from a bot: its timeouts in a row start again
        from zero (its bank stays as the timeouts left it)."""
        timeouts = list(self.timeouts)
        timeouts[seat] = 0
        return replace(self, timeouts=tuple(timeouts))

    def hand_over(self, seat: int, cap: int | None = None) -> bool:
        """Whether ``seat``'s timeouts in a row now hand it to a bot: ``max_timeouts``
        of them, or ``cap`` (the service's ``SESSION_MAX_TIMEOUTS``), whichever is less."""
        limits = [m for m in (self.max_timeouts, cap) if m is not None]
        return bool(limits) and self.timeouts[seat] >= min(limits)

    def fresh(self, seats: int, at: float) -> Clock:
        """The same settings for a new game (a rematch) starting at ``at``."""
        return replace(
            self, started=at, bank=(self.bank_seconds,) * seats, timeouts=(0,) * seats,
            held_for=(), held_until=None,
        )  # fmt: skip

    def restart(self, at: float) -> Clock:
        """The game waits for a new move from ``at``."""
        return replace(self, started=at)

    def holds(self, at: float) -> bool:
        """Whether the clock holds at ``at`` (some person not told yet, ``held_until``
        not reached): the turn's time is not running."""
        return self.held_until is not None and at < self.held_until

    def shown_deadline(self, seat: int, at: float) -> float:
        """``seat``'s deadline as an answer or a webhook made at ``at`` shows it: the
        deadline, or while the clock holds the one the turn would have were the clock to
        start at ``at`` (never later than the one it gets: see ``view``)."""
        start = max(at, self.started) if self.holds(at) else self.start
        return start + self.turn_seconds + self.bank[seat]

    def view(self, waiting: int | None, at: float) -> dict[str, Any]:
        """The clock as every seat sees it at ``at`` (``waiting``: the person the game
        waits for, or None: a bot's move or the game's end).

        A deadline shown never moves earlier for the same turn: while the clock holds
        (``running`` false) the deadline is the one the turn would have were it to start
        at ``at``, with its whole time left, which is never later than the deadline it
        gets when the hold ends (at ``at`` or after, ``held_until`` at the latest)."""
        holds = self.holds(at)
        deadline = None if waiting is None else self.shown_deadline(waiting, at)
        bank = [self.bank_left(s, at) if s == waiting else b for s, b in enumerate(self.bank)]
        return {
            "turn_seconds": self.turn_seconds,
            "bank_seconds": self.bank_seconds,
            "max_timeouts": self.max_timeouts,
            "seat": waiting,
            "deadline": rfc3339(deadline) if deadline is not None else None,
            "seconds_left": round(max(0.0, deadline - at), 3) if deadline is not None else None,
            "running": deadline is not None and not holds,
            "bank_left": [round(b, 3) for b in bank],
            "timeouts": list(self.timeouts),
            "held_for": list(self.held_for) if holds else [],
            "held_until": rfc3339(self.held_until) if holds and self.held_until else None,
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "turn_seconds": self.turn_seconds,
            "bank_seconds": self.bank_seconds,
            "max_timeouts": self.max_timeouts,
            "started": self.started,
            "bank": list(self.bank),
            "timeouts": list(self.timeouts),
            "held_for": list(self.held_for),
            "held_until": self.held_until,
        }

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> Clock:
        return cls(
            raw["turn_seconds"],
            raw["bank_seconds"],
            raw["max_timeouts"],
            raw["started"],
            tuple(raw["bank"]),
            tuple(raw["timeouts"]),
            tuple(raw.get("held_for", ())),
            raw.get("held_until"),
        )
