"""The event stream: the log from a number on, redacted for the caller; a wait that ends
at a commit, a heartbeat, the clock's deadline or the stream's end; Server-Sent Events
framing."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import orjson

import engine
from service.sessions.manager import SessionManager
from service.sessions.store import CommitRequest
from service.sessions.streams import Item, sse

from .conftest import T0, SpyStore, Time, created


def test_a_stream_replays_the_log_redacted_for_the_seat(
    mgr: SessionManager, store: SpyStore
) -> None:
    made = created(mgr, 2)
    sid, tok = str(made["session_id"]), made["seats"][1]["token"]
    seat, items = mgr.streams.open(sid, tok, 2, time.monotonic())  # its end has come
    got = list(items)
    rows = store.events(sid, 2, 1000)
    assert seat == 1 and got == [
        (s, {"seq": s, **engine.redact(orjson.loads(e), 1)}) for s, e in rows
    ]


def test_the_wait_ends_at_a_commit_a_heartbeat_a_deadline_or_the_end(
    mgr: SessionManager, store: SpyStore, clock: Time
) -> None:
    sid = str(created(mgr, 2)["session_id"])
    mgr.config = replace(mgr.config, heartbeat_seconds=0.01)
    streams = mgr.streams
    with store.subscribe(sid) as sub:
        soon = time.monotonic() + 5
        assert streams.wait(sub, time.monotonic() - 1) == "end"
        assert streams.wait(sub, soon) == "idle"
        assert streams.wait(sub, soon, deadline=clock.t - 1) == "deadline"
        loaded = store.load(sid)
        assert loaded is not None
        store.commit(CommitRequest(sid, loaded.version, loaded.state))
        assert streams.wait(sub, soon) == "changed"
        store.delete(sid)
        assert streams.wait(sub, soon) == "changed"  # the deletion's notice


def test_a_stream_ends_when_its_session_is_gone(mgr: SessionManager, store: SpyStore) -> None:
    """The heartbeat's read finds the session gone: the stream ends (long before its
    deadline)."""
    made = created(mgr, 2)
    sid, last = str(made["session_id"]), int(made["last_event"])
    mgr.config = replace(mgr.config, heartbeat_seconds=0.01)
    _, items = mgr.streams.open(sid, None, last, time.monotonic() + 5)
    store.delete(sid)
    started = time.monotonic()
    assert [item for item in items if item is not None] == []
    assert time.monotonic() - started < 2


def test_a_clocked_stream_plays_the_timeout_when_it_falls_due(
    mgr: SessionManager, clock: Time
) -> None:
    made = created(mgr, 2, clock={"turn_seconds": 30})
    sid, last = str(made["session_id"]), int(made["last_event"])
    mgr.config = replace(mgr.config, heartbeat_seconds=0.01)
    _, items = mgr.streams.open(sid, None, last, time.monotonic() + 5)
    clock.t = T0 + 31  # the deadline passes while the stream waits
    seen: list[Any] = []
    for item in items:
        seen.append(item)
        if item is not None:
            break
    assert seen[-1] is not None and seen[-1][1]["type"] == "timeout"
    items.close()  # type: ignore[attr-defined]


def test_events_are_framed_as_server_sent_events_up_to_a_count() -> None:
    closed: list[bool] = []

    def items() -> Iterator[Item]:
        try:
            yield None
            yield 3, {"seq": 3, "type": "drew", "player": 0}
            yield 4, {"seq": 4, "type": "passed", "player": 0}
            yield 5, {"seq": 5, "type": "never"}
        finally:
            closed.append(True)

    frames = b"".join(sse(items(), 1000, max_events=2))
    assert frames == (
        b"retry: 1000\n\n: keep-alive\n\n"
        b'id: 3\nevent: drew\ndata: {"seq":3,"type":"drew","player":0}\n\n'
        b'id: 4\nevent: passed\ndata: {"seq":4,"type":"passed","player":0}\n\n'
    )
    assert closed == [True]
