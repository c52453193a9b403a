"""The event stream: the log from a number on, redacted for the caller; a wait that ends
at a commit, a heartbeat, the clock's deadline or the stream's end; Server-Sent Events
framing."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import orjson
import pytest

import engine
from service.sessions import streams
from service.sessions.manager import SessionManager
from service.sessions.store import CommitRequest
from service.sessions.streams import FLUSH, End, Item, sse
from tests.docs_pages import ROOT, page

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
        *((s, {"seq": s, **engine.redact(orjson.loads(e), 1)}) for s, e in rows),
        FLUSH,  # the page read goes out in one piece
    ]


def test_a_stream_with_more_than_a_page_waiting_ends_after_one_page(
    mgr: SessionManager, store: SpyStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long history costs one page a stream: it sends the first page (one piece) and
    ends long before its deadline; the client resumes after that page's last event."""
    monkeypatch.setattr(streams, "MAX_EVENTS_PAGE", 2)
    sid = str(created(mgr, 2)["session_id"])
    waiting = store.events(sid, 0, 1000)
    assert len(waiting) > 2
    started = time.monotonic()
    _, items = mgr.streams.open(sid, None, 0, started + 5)
    got = list(items)
    assert time.monotonic() - started < 2
    shown = [(s, {"seq": s, **engine.redact(orjson.loads(e), None)}) for s, e in waiting[:2]]
    assert got == [*shown, FLUSH]
    _, rest = mgr.streams.open(sid, None, waiting[1][0], time.monotonic())
    assert [item[0] for item in rest if isinstance(item, tuple)] == [s for s, _ in waiting[2:4]]


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


def test_a_pages_events_go_out_as_one_piece() -> None:
    """One write a page (each event its own write cost a long history's stream twice
    its CPU); a heartbeat or a stream's end sends what is held at once."""

    def items() -> Iterator[Item]:
        yield 1, {"seq": 1, "type": "drew", "player": 0}
        yield 2, {"seq": 2, "type": "passed", "player": 0}
        yield FLUSH
        yield None
        yield 3, {"seq": 3, "type": "drew", "player": 1}
        yield End("seat_left")

    pieces = list(sse(items(), 1000))
    assert pieces == [
        b"retry: 1000\n\n",
        b'id: 1\nevent: drew\ndata: {"seq":1,"type":"drew","player":0}\n\n'
        b'id: 2\nevent: passed\ndata: {"seq":2,"type":"passed","player":0}\n\n',
        b": keep-alive\n\n",
        b'id: 3\nevent: drew\ndata: {"seq":3,"type":"drew","player":1}\n\n'
        b'event: stream_end\ndata: {"type":"stream_end","reason":"seat_left"}\n\n',
    ]


def test_the_docs_and_the_spec_state_the_streams_page() -> None:
    stated = f"one page of {streams.MAX_EVENTS_PAGE:,} events when more are waiting"
    spec = " ".join((ROOT / "spec" / "paths" / "sessions.yaml").read_text().split())
    assert stated in " ".join(page("sessions.md").split()) and stated in spec
