"""Settling a session for a reader (a read, the event log, the record, a stream): what
the session owes (``Timekeeper.settle``) played by one request at a time, and only for
a request allowed to see the session (the caller checks the token first).

A reader settles only when something is due (a bot to move, a passed deadline): it
takes the session's lease (``SessionStore.claim``, one holder, ``LEASE_MS`` at most),
plays what is owed within ``SESSION_BOT_CPU_MS`` and commits once; a compare-and-set it
loses is not tried again (the session is read again and answered as the winner left
it). A reader that finds the lease held plays nothing: it reads the session's version
(``SessionStore.version``, one small read) every ``POLL_SECONDS`` until the holder's
commit shows, then loads the session once (its answer then shows what the holder
played); after ``WAIT_SECONDS`` at most it answers the session as read. A caller
the clock holds for (``Clock.held_for``) is told of the deal either way: with what it
plays, or, after the holder's commit, on its own (``Timekeeper.tell``, a quiet commit
that plays nothing). A person's move settles on its own (``Moves``), without the lease:
it must be judged on the settled state.
"""

from __future__ import annotations

import contextlib
import secrets
import time

from .config import Env
from .models import Snapshot
from .repo import Repository
from .store import StoreUnavailable
from .timekeeper import Timekeeper

#: How long a reader holds a session's lease at most (it lets go when it is done; a
#: holder that died frees it after this).
LEASE_MS = 2000
#: How often, and how long at most, a reader that found the lease held reads the
#: session again for the holder's commit.
POLL_SECONDS = 0.01
WAIT_SECONDS = 0.5


class ReadSettler:
    def __init__(self, env: Env, repo: Repository, timekeeper: Timekeeper) -> None:
        self.env = env
        self.repo = repo
        self.store = repo.store
        self.timekeeper = timekeeper

    def due(self, c: Snapshot, now: float) -> bool:
        """Something is owed at ``now``: a bot is to move, or the clock's deadline passed."""
        if c.state is None:
            return False
        deadline = c.next_deadline(self.env.config)
        return c.bot_to_move() or (deadline is not None and deadline <= now)

    def settle(self, c: Snapshot, caller: int | None = None) -> Snapshot:
        """``c`` settled by this request (see the module), or as read when nothing is due
        or another request holds the lease; ``caller`` (the seat whose token made the
        request, if any) told of the deal when the clock holds for it."""
        if c.state is None or (c.meta.clock is None and not c.bot_to_move()):
            return c  # nothing can be owed (``Timekeeper.settle``'s own test)
        now = self.env.now()
        if not self.due(c, now):
            return self._told(c, caller, now)
        key, holder = f"settle:{c.sid}", secrets.token_hex(8)
        now_ms = int(time.time() * 1000)  # a lease is real time, whatever the game's clock
        if not self.store.claim(key, holder, 1, now_ms + LEASE_MS, now_ms):
            return self._told(self._after_holder(c), caller, now)
        try:
            return self.timekeeper.settle(c, now, caller=caller, tries=1)
        finally:
            with contextlib.suppress(StoreUnavailable):  # the lease expires on its own
                self.store.release(key, holder)

    @staticmethod
    def _holds_for(c: Snapshot, caller: int | None) -> bool:
        clock = c.meta.clock
        return caller is not None and clock is not None and caller in clock.held_for

    def _told(self, c: Snapshot, caller: int | None, now: float) -> Snapshot:
        """``c`` with ``caller`` told of the deal (a quiet commit), if the clock holds for it."""
        if caller is None or not self._holds_for(c, caller):
            return c
        return self.timekeeper.tell(c, caller, now)

    def _after_holder(self, c: Snapshot) -> Snapshot:
        """The session once the lease holder's commit shows (a later version than ``c``),
        or ``c`` after ``WAIT_SECONDS``. The wait asks only the stored version
        (``SessionStore.version``, one small read); the session is loaded once, when
        the version moved (or the session is gone: the load answers that)."""
        give_up = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < give_up:
            time.sleep(POLL_SECONDS)
            version = self.store.version(c.sid)
            if version is None or version > c.version:
                later, _ = self.repo.load(c.sid)
                return later if later.version > c.version else c
        return c
