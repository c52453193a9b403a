"""The public lobby: newest first, a page and its cursor, entries of sessions that
started or went dropped on the way (and from the index)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from service.sessions import lobby
from service.sessions.lobby import Lobby, parse_cursor
from service.sessions.manager import SessionManager
from service.sessions.memory import MemoryStore
from service.sessions.problems import SessionError
from service.sessions.store import lobby_order

from .conftest import SpyStore, Time, body, created


def listed(mgr: SessionManager, clock: Time, n: int, variant: str = "uno_classic") -> list[str]:
    sids = []
    for _ in range(n):
        clock.t += 1
        made = created(mgr, [{"name": "Ann"}, {"open": True}], public=True, variant=variant)
        sids.append(str(made["session_id"]))
    return sids


def test_pages_list_the_newest_first_with_a_cursor_to_the_next(
    mgr: SessionManager, clock: Time
) -> None:
    sids = listed(mgr, clock, 5)
    lobby = Lobby(mgr.env, mgr.store)
    first = body(lobby.page(None, None, 2))
    assert [s["session_id"] for s in first["sessions"]] == sids[::-1][:2]
    second = body(lobby.page(None, first["next_cursor"], 2))
    third = body(lobby.page(None, second["next_cursor"], 2))
    assert [s["session_id"] for s in second["sessions"] + third["sessions"]] == sids[::-1][2:]
    assert third["next_cursor"] is None


def test_a_page_filters_by_variant(mgr: SessionManager, clock: Time) -> None:
    classic = listed(mgr, clock, 1)
    dos = listed(mgr, clock, 1, variant="dos")
    page = body(Lobby(mgr.env, mgr.store).page("dos", None, 10))
    assert [s["session_id"] for s in page["sessions"]] == dos and classic != dos


def test_sessions_that_started_or_went_are_dropped_and_unlisted(
    mgr: SessionManager, store: SpyStore, clock: Time
) -> None:
    started, gone, kept = listed(mgr, clock, 3)
    store.lobby_add(started, "uno_classic", 0)  # a stale entry the join's unlist missed
    mgr.seats.join(started, {"name": "Bo"})
    store.lobby_add(started, "uno_classic", int(clock.t * 1000) - 5_000)
    store.delete(gone)
    page = body(Lobby(mgr.env, store).page(None, None, 10))
    assert [s["session_id"] for s in page["sessions"]] == [kept]
    assert [sid for _, sid in store.lobby_page(None, None, 10)] == [kept]


def test_a_cursor_is_one_this_service_gave() -> None:
    assert parse_cursor(None) is None
    assert parse_cursor("1700000000000.abcdefgh") == (1700000000000, "abcdefgh")
    for bad in ("x", "1.short", "12.abc/defgh", "1234567890123456.abcdefgh"):
        with pytest.raises(SessionError) as e:
            parse_cursor(bad)
        assert e.value.facts == {"errors": {"cursor": ["invalid"]}}


def test_an_unreachable_index_is_logged_not_answered(
    mgr: SessionManager, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from service.sessions.store import StoreUnavailable

    def down(sids: object) -> None:
        raise StoreUnavailable("down")

    monkeypatch.setattr(mgr.store, "lobby_remove", down)
    log = logging.getLogger("service.sessions")  # "service" may not propagate (JSON logs)
    log.addHandler(caplog.handler)
    try:
        Lobby(mgr.env, mgr.store).unlist([("abcdefgh", "dos")])
    finally:
        log.removeHandler(caplog.handler)
    assert "the lobby keeps 1 entries" in caplog.text


def test_the_lobby_order_is_written_once_for_both_stores() -> None:
    """Newest first, ties by the greater id, strictly after the cursor: the one order
    (``store.lobby_order``) the memory store keeps and both stores page by."""
    rows = [(5, "b"), (7, "a"), (5, "c"), (9, "z"), (5, "a")]
    assert lobby_order(rows, None, 3) == [(9, "z"), (7, "a"), (5, "c")]
    assert lobby_order(rows, (5, "c"), 10) == [(5, "b"), (5, "a")]
    for name in ("memory.py", "redis_store.py"):
        source = (Path(lobby.__file__).parent / name).read_text()
        assert "lobby_order(" in source and "reverse=True" not in source, name


def test_the_memory_store_keeps_the_newest_listed() -> None:
    store = MemoryStore(60, 10, lobby_size=2)
    for ms, sid in ((1, "old"), (3, "new"), (2, "mid")):
        store.lobby_add(sid, "uno_classic", ms)
    assert store.lobby_page(None, None, 10) == [(3, "new"), (2, "mid")]
    assert store.lobby_page("uno_classic", (3, "new"), 10) == [(2, "mid")]
