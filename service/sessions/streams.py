"""A session's event stream: the events above a number, then each commit's as it comes,
redacted for the caller's seat, framed as Server-Sent Events.

A stream subscribes before it reads the log (so nothing committed in between is
missed), reads the log page by page (one write a page), then waits on the subscription: for a commit, up
to one heartbeat interval (an idle wait yields a keep-alive), or, in a clocked session,
until the clock's next deadline. After a commit or a deadline a clocked session is
settled, so the stream sees a timeout when it falls due; while the bots are owed a move
(every seat a bot, or a leave's chain stopped at its budget) it is settled after each
seat change and each idle wait (a seat's stream, whose person waits for the bots: after
each commit too), one chain at a time, so a stream sees such a game go on to its end. Settling goes through ``ReadSettler`` (one request at a time, within
``SESSION_BOT_CPU_MS``).

A seat's stream lasts as long as its token holds the seat: a ``left`` or
``bot_took_seat`` event of that seat (after the stream opened) is the last event it
sends, and at every heartbeat the token is checked against the session's seats again
(a token that no longer holds the seat, whatever replaced it, ends the stream before
any further event). Either way the stream's last frame is ``event: stream_end`` with the
reason (``END_REASONS``): the code the token answers from then on (``LostReason.code``,
``seat_left`` or ``seat_taken_by_bot``, as ``access.not_a_seat_token`` says), or
``token_replaced`` when the seat kept no record of the token; no private event of that
seat follows. It also ends at its deadline, when the session is gone or when the store
fails, and after a full page (``MAX_EVENTS_PAGE`` events) when more are waiting: a stream
of a long game's history costs what one page costs, and the client resumes after the
page's last event (``Last-Event-ID``), as at any end.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Literal

import orjson

from engine import Event

from . import access, tokens
from .config import Env
from .models import LostReason, Snapshot
from .presence import Presence
from .problems import SessionError
from .repo import Repository
from .settling import ReadSettler
from .store import StoreUnavailable, Subscription
from .views import event_row

#: The most events one read of the log returns (a page of ``GET .../events`` too).
MAX_EVENTS_PAGE = 1000
#: Why a seat's stream ended (``stream_end``'s ``reason``): the code its token answers
#: from then on (the seat left, a bot took it after its timeouts: ``LostReason.code``),
#: or ``token_replaced`` (the token no longer holds it and the seat kept no record of it).
END_REASONS = (*(reason.code for reason in LostReason), "token_replaced")
#: The session events that hand a seat to someone else, and the reason each gives.
SEAT_ENDINGS = {"left": LostReason.LEFT.code, "bot_took_seat": LostReason.TIMEOUTS.code}

log = logging.getLogger("service.sessions")


@dataclass(frozen=True)
class End:
    """A stream's last frame: why it ended (one of ``END_REASONS``)."""

    reason: str


@dataclass(frozen=True)
class Flush:
    """After a page of events: what the stream holds goes out before it reads or waits
    again (a page is one write, not one a event)."""


FLUSH = Flush()
#: What a stream yields: ``(seq, redacted event)``; ``FLUSH`` after each page of them;
#: None after an idle heartbeat; ``End`` last when the seat was lost.
Item = tuple[int, Event] | End | Flush | None


@dataclass(frozen=True)
class SeatWatch:
    """A seat's stream's token and the seat it held when the stream opened (at event
    ``opened``): what ends the stream."""

    token: str
    seat: int
    opened: int

    def ended_by(self, seq: int, ev: Event) -> str | None:
        """The reason this event (number ``seq``) ends the stream, or None."""
        if seq <= self.opened or ev.get("player") != self.seat:
            return None
        return SEAT_ENDINGS.get(str(ev.get("type")))

    def lost(self, c: Snapshot) -> str | None:
        """Why the token no longer holds the seat in ``c``, or None while it does."""
        if tokens.seat_of(self.token, c.meta.hashes) == self.seat:
            return None
        found = access.lost_token(c.meta, self.token)
        return found[1].reason.code if found is not None else "token_replaced"


class Streams:
    def __init__(
        self, env: Env, repo: Repository, settler: ReadSettler, presence: Presence
    ) -> None:
        self.env = env
        self.repo = repo
        self.store = repo.store
        self.settler = settler
        self.timekeeper = settler.timekeeper
        self.presence = presence

    def open(
        self, sid: str, token: str | None, after: int, until: float
    ) -> tuple[int | None, Iterator[Item]]:
        """The caller's seat and an iterator of ``(seq, redacted event)`` from ``after``
        on, yielding ``None`` after each idle heartbeat interval. It ends at ``until``
        (``time.monotonic()``), when the seat is lost (``End`` last), when the session is
        gone or when the store fails."""
        c, _ = self.repo.load(sid)
        access.reader_seat(c.meta, token)  # nothing is played for a caller who may not read
        c = self.settler.settle(c, caller=access.token_seat(c.meta, token))
        seat = access.reader_seat(c.meta, token)
        watch = SeatWatch(token, seat, c.seq) if seat is not None and token else None
        sub = self.store.subscribe(sid)
        clocked = c.meta.clock is not None
        return seat, self.follow(
            sid, seat, sub, after, until, clocked, c.next_deadline(self.env.config),
            c.bot_to_move(), watch,
        )  # fmt: skip

    def follow(
        self,
        sid: str,
        seat: int | None,
        sub: Subscription,
        after: int,
        until: float,
        clocked: bool = False,
        deadline: float | None = None,
        owed: bool = False,
        watch: SeatWatch | None = None,
    ) -> Iterator[Item]:
        """``open``'s iterator: the events above ``after`` page by page, a wait on ``sub``
        when the log is read to its end, ``None`` after each idle wait. A ``clocked``
        session is settled after a commit or at its next ``deadline``; one whose bots are
        ``owed`` a move (or whose seats changed) after each wait. ``watch``: the seat's
        token, checked against each event and at each heartbeat. ``sub`` is closed when
        it ends."""
        last = after
        try:
            with sub:
                while True:
                    self.presence.keep(self.store, sid, seat)
                    rows = self.store.events(sid, last, MAX_EVENTS_PAGE)
                    changed_seats = False
                    for seq, raw in rows:
                        last = seq
                        ev = event_row(seq, raw, seat)
                        yield seq, ev
                        changed_seats = changed_seats or ev["type"] in SEAT_ENDINGS
                        reason = watch.ended_by(seq, ev) if watch is not None else None
                        if reason is not None:
                            yield End(reason)
                            return
                    if rows:
                        yield FLUSH
                    if len(rows) == MAX_EVENTS_PAGE:
                        # More are waiting: the stream ends after one page; the client
                        # resumes after its last event (Last-Event-ID), as at its end.
                        return
                    if not changed_seats:
                        woke = self.wait(sub, until, deadline)
                        if woke == "end":
                            return
                        if woke == "idle":
                            yield None
                        elif not (clocked or (owed and watch is not None)):
                            continue
                    # A seat changed hands (a leave's bots may be owed moves), a heartbeat
                    # (the token checked again), a commit or a deadline of a clocked
                    # session, or bots owed a move while a person waits for them (a
                    # seat's stream; a spectator's plays one chain a heartbeat): read the
                    # session, settle what is due.
                    c, _ = self.repo.load(sid)
                    if watch is not None and (reason := watch.lost(c)) is not None:
                        yield from self._until_lost(sid, seat, last, watch, reason)
                        return
                    c = self.settler.settle(c)
                    deadline, owed = c.next_deadline(self.env.config), c.bot_to_move()
        except StoreUnavailable as e:
            log.error("session store unavailable, ending the stream: %s", e)
            return
        except SessionError:  # the session is gone
            return

    def _until_lost(
        self, sid: str, seat: int | None, last: int, watch: SeatWatch, reason: str
    ) -> Iterator[Item]:
        """The token no longer holds the seat: the events after ``last`` up to the one
        that handed the seat on (when it is among them: those before it came while the
        seat was the caller's), then ``End``."""
        shown: list[Item] = []
        for seq, raw in self.store.events(sid, last, MAX_EVENTS_PAGE):
            ev = event_row(seq, raw, seat)
            shown.append((seq, ev))
            ended = watch.ended_by(seq, ev)
            if ended is not None:
                yield from shown
                yield End(ended)
                return
        yield End(reason)

    def wait(
        self, sub: Subscription, until: float, deadline: float | None = None
    ) -> Literal["changed", "idle", "deadline", "end"]:
        """Wait for a commit up to one heartbeat interval or the clock's ``deadline``:
        ``changed``; ``deadline`` when that came first; ``idle`` when nothing came (a
        heartbeat is due); ``end`` at ``until``."""
        left = until - time.monotonic()
        if left <= 0:
            return "end"
        wait = min(self.env.config.heartbeat_seconds, left)
        due = deadline - self.env.now() if deadline is not None else None
        if due is not None and due <= wait:
            if due <= 0 or not sub.wait(due):
                return "deadline"
            return "changed"
        if sub.wait(wait):
            return "changed"
        return "idle"


def sse(items: Iterable[Item], retry_ms: int, max_events: int = 0) -> Iterator[bytes]:
    """A stream's items as Server-Sent Events: ``retry:`` first, then ``id: <seq>``,
    ``event: <type>``, ``data: <json>`` per event and a comment line per heartbeat; at
    most ``max_events`` events (0: no limit); an ``End`` as ``event: stream_end`` with
    ``data: {"type": "stream_end", "reason": ...}`` (no ``id``: a reconnection resumes
    after the last event). A page's events go out as one piece (at ``FLUSH``). Closes
    ``items`` when it ends."""
    sent = 0
    held: list[bytes] = []
    yield f"retry: {retry_ms}\n\n".encode()
    try:
        for item in items:
            if isinstance(item, Flush):
                if held:
                    yield b"".join(held)
                    held.clear()
                continue
            if item is None:
                held.append(b": keep-alive\n\n")
                yield b"".join(held)
                held.clear()
                continue
            if isinstance(item, End):
                data = orjson.dumps({"type": "stream_end", "reason": item.reason})
                held.append(b"event: stream_end\ndata: " + data + b"\n\n")
                break
            seq, ev = item
            held.append(
                f"id: {seq}\nevent: {ev['type']}\ndata: ".encode() + orjson.dumps(ev) + b"\n\n"
            )
            sent += 1
            if max_events and sent >= max_events:
                break
        if held:
            yield b"".join(held)
    finally:
        close = getattr(items, "close", None)
        if close is not None:
            close()
