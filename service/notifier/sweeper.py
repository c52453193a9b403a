"""The clock sweeper: plays the timeouts of sessions nobody is looking at.

Each commit of a clocked session indexes its next deadline in its slot
(``outbox_keys``: ``notify:deadlines``); a session whose bots owe moves a request's CPU
budget left undone, while a person holds a seat, is indexed as due at once
(``Snapshot.sweep_at``), so the sweeper plays them on. The sweeper reads the
deadlines passed and settles each session with the service's own code, through the
session part the API calls too (``Timekeeper.sweep``, which settles it: the forced
default moves, ``by: clock``, the timeout event, the bots' replies, in one
compare-and-set over the version read), so a request and the sweeper, or two sweepers,
never both play a timeout: the loser of the compare-and-set reads the session again and
finds nothing owed. The commit indexes the next deadline and writes the notifications
(the timeout, the next turn) like any other.

Fair across sessions: the deadlines are read oldest first, a batch at a time, and each
session swept that is still due (its bots owe more, its compare-and-set was lost) is
indexed again just after the time of the sweep, behind every session due then; one
that failed is put off by ``FAILED_DEFER_MS``. A session at a cap (its bytes or moves)
can move no more: its deadline is unindexed (``Snapshot.sweep_at``), not read again.
So no session, nor 100 stuck ones, keeps another's clock from being played.
"""

from __future__ import annotations

import logging

from service.sessions.manager import SessionManager
from service.sessions.problems import NotFoundError
from service.sessions.store import StoreUnavailable

from . import metrics
from .queue import NotifyQueue

log = logging.getLogger("service.notifier")

#: How long a session whose settling failed (not the store: a fault, logged) waits
#: before the sweeper tries it again.
FAILED_DEFER_MS = 60_000


class Sweeper:
    def __init__(self, sessions: SessionManager, queue: NotifyQueue, batch: int = 100) -> None:
        self.sessions = sessions
        self.queue = queue
        self.batch = batch

    def sweep(self, tag: str, now_ms: int) -> int:
        """Settle the sessions of ``tag``'s slot whose deadline passed by ``now_ms``;
        how many were read."""
        due = self.queue.due_deadlines(tag, now_ms, self.batch)
        for sid, score in due:
            try:
                self.settle(sid, score)
            except StoreUnavailable as e:
                log.warning("sweeper: session %s: the store failed: %s", sid, e)
                continue
            except Exception:  # one session's fault must not stop the others' clocks
                log.exception("sweeper: session %s could not be settled", sid)
                metrics.SWEEPS.labels("failed").inc()
                self.queue.defer_deadline(sid, now_ms + FAILED_DEFER_MS)
                continue
            self.queue.defer_deadline(sid, now_ms + 1)
        return len(due)

    def settle(self, sid: str, indexed: float) -> None:
        """Settle ``sid`` (its deadline indexed at ``indexed`` passed)."""
        try:
            committed, deadline = self.sessions.timekeeper.sweep(sid)
        except NotFoundError:
            self.queue.rescore_deadline(sid, indexed, None)
            metrics.SWEEPS.labels("gone").inc()
            return
        if committed:
            metrics.SWEEPS.labels("settled").inc()
            return  # its commit (this sweeper's or a racing one's) indexed the next deadline
        metrics.SWEEPS.labels("none").inc()
        # Nothing committed here (another process played it first, or the index was
        # behind): index the session's deadline, unless a commit did meanwhile. A
        # deadline still past stays (the compare-and-set was lost: the next poll).
        ms = None if deadline is None else int(deadline * 1000)
        if ms is None or ms > indexed:
            self.queue.rescore_deadline(sid, indexed, ms)
