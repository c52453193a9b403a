"""Settling a session for a reader (a read, the event log, the record, a stream): what
the session owes (``Timekeeper.settle``) played by one request at a time, and only for
a request allowed to see the session (the caller checks the token first).

A reader settles only when something is due (a bot to move, a passed deadline): it
takes the session's lease (``SessionStore.claim``, one holder, ``LEASE_MS`` at most),
plays what is owed within ``SESSION_BOT_CPU_MS`` and commits once; a compare-and-set it
loses is not tried again (the session is read again and answered as the winner left
it). A reader that finds the lease held plays nothing: it reads the session again
every ``POLL_SECONDS`` until the holder's commit shows (its answer then shows what the
holder played), at most ``WAIT_SECONDS``, then answers the session as read. A person's
move settles on its own (``Moves``), without the lease: it must be judged on the
settled state.
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
        deadline = self.timekeeper.next_deadline(c)
        return c.bot_to_move() or (deadline is not None and deadline <= now)

    def settle(self, c: Snapshot) -> Snapshot:
        """``c`` settled by this request (see the module), or as read when nothing is due
        or another request holds the lease."""
        now = self.env.now()
        if not self.due(c, now):
            return c
        key, holder = f"settle:{c.sid}", secrets.token_hex(8)
        now_ms = int(time.time() * 1000)  # a lease is real time, whatever the game's clock
        if not self.store.claim(key, holder, 1, now_ms + LEASE_MS, now_ms):
            return self._after_holder(c)
        try:
            return self.timekeeper.settle(c, now, tries=1)
        finally:
            with contextlib.suppress(StoreUnavailable):  # the lease expires on its own
                self.store.release(key, holder)

    def _after_holder(self, c: Snapshot) -> Snapshot:
        """The session once the lease holder's commit shows (a later version than ``c``),
        or ``c`` after ``WAIT_SECONDS``."""
        give_up = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < give_up:
            time.sleep(POLL_SECONDS)
            later, _ = self.repo.load(c.sid)
            if later.version > c.version:
                return later
        return c
