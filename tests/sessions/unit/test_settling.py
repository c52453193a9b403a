"""A reader that finds another request settling the session (its lease held) waits
for that request's commit by asking the store only the session's version, then loads
the session once and answers the settled version."""

from __future__ import annotations

import threading
import time

from service.sessions import settling
from service.sessions.manager import SessionManager
from service.sessions.models import Snapshot

from .conftest import T0, SpyStore, Time, created

TURN = 30


def owing(mgr: SessionManager, clock: Time) -> Snapshot:
    """A clocked two-seat session whose deadline passed: a read owes the clock's moves."""
    made = created(mgr, 2, clock={"turn_seconds": TURN})
    c = mgr.cache.peek(str(made["session_id"]))
    assert c is not None
    clock.t = T0 + TURN + 5
    assert mgr.settler.due(c, clock.t)
    return c


def held(mgr: SessionManager, c: Snapshot) -> None:
    """Another request holds the session's lease (it is settling it)."""
    now_ms = int(time.time() * 1000)
    assert mgr.store.claim(f"settle:{c.sid}", "other", 1, now_ms + settling.LEASE_MS, now_ms)


def test_a_waiting_reader_polls_the_version_and_loads_once_the_holder_committed(
    mgr: SessionManager, store: SpyStore, clock: Time
) -> None:
    c = owing(mgr, clock)
    held(mgr, c)
    store.calls.clear()
    settled: list[Snapshot] = []

    def holder() -> None:  # the lease holder's commit, some polls later
        time.sleep(8 * settling.POLL_SECONDS)
        settled.append(mgr.timekeeper.settle(c))

    t = threading.Thread(target=holder)
    t.start()
    answer = mgr.settler.settle(c)
    t.join(5)
    [won] = settled
    assert won.version == c.version + 1
    assert answer.version == won.version and answer.commit == won.commit
    assert answer.state == won.state
    polls = store.named("version")
    assert len(polls) >= 3, "the reader did not wait for the holder"
    # The holder's own load (none: it settles the copy it holds) and the reader's one.
    assert store.named("load") == [c.sid]


def test_a_waiting_reader_whose_holder_never_commits_answers_the_session_as_read(
    mgr: SessionManager, store: SpyStore, clock: Time
) -> None:
    c = owing(mgr, clock)
    held(mgr, c)
    store.calls.clear()
    started = time.monotonic()
    assert mgr.settler.settle(c) is c
    assert time.monotonic() - started >= settling.WAIT_SECONDS
    assert store.named("load") == [] and len(store.named("version")) > 3
