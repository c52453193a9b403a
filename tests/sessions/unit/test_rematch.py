"""Rematches: the first call makes the next game and links it, the others find it; each
seat gets a new token in it once; a call that loses the link race drops its game."""

from __future__ import annotations

from dataclasses import replace

import pytest

from service.sessions import tokens
from service.sessions.manager import SessionManager
from service.sessions.problems import SessionError
from service.sessions.repo import Change

from .conftest import SpyStore, body, created, finished_state, put_state


def finished(mgr: SessionManager, store: SpyStore) -> tuple[str, list[str]]:
    made = created(mgr, [{"name": "Ann"}, {"name": "Bo"}], clock={"turn_seconds": 30})
    sid = str(made["session_id"])
    c = mgr.cache.peek(sid)
    assert c is not None
    put_state(store, c, finished_state())
    return sid, [s["token"] for s in made["seats"]]


def test_a_game_not_over_has_no_rematch(mgr: SessionManager) -> None:
    made = created(mgr, 2)
    with pytest.raises(SessionError) as e:
        mgr.rematches.rematch(str(made["session_id"]), made["seats"][0]["token"])
    assert e.value.code == "game_not_over"


def test_the_next_game_has_the_same_seats_the_next_dealer_and_new_tokens(
    mgr: SessionManager, store: SpyStore
) -> None:
    sid, toks = finished(mgr, store)
    first = body(mgr.rematches.rematch(sid, toks[1]))
    nsid = first["session_id"]
    assert first["previous_session_id"] == sid and first["seat"] == 1 and nsid != sid
    second = body(mgr.rematches.rematch(sid, toks[0]))
    assert second["session_id"] == nsid and second["seat"] == 0
    old, new = mgr.repo.load(sid)[0], mgr.repo.load(nsid)[0]
    assert old.meta.rematch == nsid and new.meta.rematch is None
    assert new.meta.hashes == [tokens.digest(second["token"]), tokens.digest(first["token"])]
    assert new.state is not None and old.state is not None
    assert new.state.dealer == (old.state.dealer + 1) % 2
    assert new.meta.seed != old.meta.seed and new.meta.client_seeded is False
    assert new.meta.clock is not None and new.meta.clock.started == mgr.now()
    assert [s.name for s in new.meta.seats] == ["Ann", "Bo"]


def test_a_call_that_loses_the_link_race_answers_the_linked_game(
    mgr: SessionManager, store: SpyStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    sid, toks = finished(mgr, store)
    other = body(mgr.rematches.rematch(sid, toks[0]))["session_id"]
    c = mgr.repo.load(sid)[0]
    # This process still holds the copy from before the link: it makes a game of its own.
    stale = replace(c, meta=replace(c.meta, rematch=None), version=c.version - 1)
    made: list[str] = []
    real_open = mgr.creation.open

    def spy_open(new_sid: str, *a: object) -> object:
        made.append(new_sid)
        return real_open(new_sid, *a)  # type: ignore[arg-type]

    monkeypatch.setattr(mgr.creation, "open", spy_open)
    assert mgr.rematches._make(stale) == other
    assert len(made) == 1 and store.load(made[0]) is None  # its own game was deleted
    with pytest.raises(SessionError):
        mgr.repo.change(made[0], lambda n: Change(None))
