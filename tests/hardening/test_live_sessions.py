"""Issue 46, case 5: the sessions quota counts live sessions, not creations.

Before: a place was held ``SESSION_TTL_SECONDS`` from the create, so 20 creations an
hour made ~13,400 live sessions (~277 MB) per address in 28 days, correspondence games
and games played for hours living on past their places. Now a place is held while its
session lives, and a session gone (deleted, or expired: its meta gone) gives it back
when the quota is next found full."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from flask import Flask

from service.sessions import quotas
from tests.hardening.conftest import created
from tests.hardening.test_quotas import client_at
from tests.sessions.conftest import Api, first_move, mover, problem, two_humans

QUOTA = 3
HOUR, DAY = 3600, 86_400
BOTS = [{"name": "A"}, {"bot": True}]


@pytest.fixture
def app(make: Callable[..., Flask]) -> Flask:
    return make(SESSION_SESSIONS_PER_CLIENT=str(QUOTA), SESSION_TTL_SECONDS=str(HOUR))


def later(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    """The quotas' clock (real time) ``seconds`` on; the sessions' own expiry is not."""
    now = quotas.now_ms()
    monkeypatch.setattr(quotas, "now_ms", lambda: now + int(seconds * 1000))


def test_a_session_played_past_its_ttl_keeps_its_place(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three live sessions: two hours on (each still stored) a fourth is 429, as it was
    in the first hour; it was 201 before, as the places had run out."""
    mallory = client_at(app, "10.0.0.70")
    for _ in range(QUOTA):
        created(mallory.create("uno_classic", BOTS))
    later(monkeypatch, 2 * HOUR)
    problem(mallory.create("uno_classic", BOTS), 429, "too_many_sessions")
    r = mallory.c.post("/v1/sessions", data=b"not json", content_type="application/json")
    problem(r, 429, "too_many_sessions")  # refused unread, as before


def test_a_correspondence_game_keeps_its_place_for_weeks(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 14-day turn keeps its session for 14 days and an hour; its place is held at
    least as long (past a week's hold too)."""
    mallory = client_at(app, "10.0.0.71")
    for _ in range(QUOTA):
        created(mallory.create("uno_classic", BOTS, clock={"turn_seconds": 14 * DAY}))
    later(monkeypatch, 14 * DAY)
    problem(mallory.create("uno_classic", BOTS), 429, "too_many_sessions")


def test_a_game_played_for_weeks_holds_its_place_on(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game whose moves keep it past its place's hold: a move near the hold's end
    holds the place on (``Meta.claim_until_ms``)."""
    api = client_at(app, "10.0.0.72")
    sid, tokens, _ = two_humans(api)
    for _ in range(QUOTA - 1):  # kept for 14 days by their clocks
        created(api.create("uno_classic", BOTS, clock={"turn_seconds": 14 * DAY}))
    mgr = app.extensions["sessions"]
    before = mgr.repo.load(sid)[0].meta.claim_until_ms
    assert before is not None
    later(monkeypatch, before / 1000 - quotas.now_ms() / 1000 - HOUR)  # an hour before
    seat, body = mover(api, sid, tokens)
    assert api.move(sid, tokens[seat], first_move(body), body["version"]).status_code == 200
    after = mgr.repo.load(sid)[0].meta.claim_until_ms
    assert after is not None and after > before + quotas.RENEW_SECONDS * 1000
    later(monkeypatch, before / 1000 - quotas.now_ms() / 1000 + DAY)  # past the first hold
    problem(api.create("uno_classic", BOTS), 429, "too_many_sessions")


def test_a_session_gone_gives_its_place_back(app: Flask) -> None:
    """A session that expired (gone from the store, its place not given back by a
    deletion) frees its place when the quota is found full: the create is 201, at once
    and before its body is read too."""
    mallory = client_at(app, "10.0.0.73")
    made = [created(mallory.create("uno_classic", BOTS))["session_id"] for _ in range(QUOTA)]
    store = app.extensions["sessions"].store
    assert store.delete(made[0])  # as an expiry does: no request, no release
    app.extensions["sessions"].cache.forget(made[0])
    created(mallory.create("uno_classic", BOTS))
    problem(mallory.create("uno_classic", BOTS), 429, "too_many_sessions")


def test_no_client_holds_more_live_sessions_than_its_quota(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A day of creates, an hour apart, each kept alive: never more than the quota."""
    mallory: Api = client_at(app, "10.0.0.74")
    live = 0
    for _ in range(24):
        later(monkeypatch, HOUR)
        if mallory.create("uno_classic", BOTS, clock={"turn_seconds": 2 * DAY}).status_code == 201:
            live += 1
    assert live == QUOTA
