"""Issue 46, case 4: the clock sweeper is fair and skips what cannot progress.

Before: the sweeper's next-deadline check looked at the move cap, not the byte cap, so a
session at its byte cap kept its passed deadline and was read again on every poll; the
deadlines are read oldest first, 100 a batch, so with 101 such sessions a normal clocked
game was not swept in 15 s. Now a session at a cap is unindexed once read, and a session
swept that is still due goes behind every other one due then."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from service.notifier.settings import NotifierSettings
from service.notifier.sweeper import FAILED_DEFER_MS
from service.notifier.worker import Worker
from service.sessions.config import SessionConfig
from tests.notifier.test_worker import T0, swept
from tests.sessions.conftest import store_url

STUCK = 100
#: A 10-seat game's stored bytes after its deal are ~560, a 2-seat game's ~300: a
#: sweeper capped between them finds the first full and the second able to go on.
CAP = "500"


def clock_moves(store: Any, sid: str) -> list[dict[str, Any]]:
    return [m for m in map(orjson.loads, store.moves(sid)) if m["by"] == "clock"]


def sessions(request: pytest.FixtureRequest) -> tuple[dict[str, str], Any, Any, list[str], str]:
    """``STUCK`` clocked 10-seat games whose deadlines pass first (T0 + 1 s), then a
    2-seat game's (T0 + 2 s), indexed for the sweeper: the settings, the test's clock,
    the store, the stuck sessions and the game."""
    env, clock, mgr, api = swept(
        store_url("redis", request), SESSION_SESSIONS_PER_CLIENT=str(STUCK + 10)
    )
    stuck = []
    for _ in range(STUCK):
        r = api.create("uno_classic", 10, seed=5, clock={"turn_seconds": 1})
        assert r.status_code == 201, r.get_data(as_text=True)
        stuck.append(r.get_json()["session_id"])
    r = api.create("uno_classic", 2, seed=5, clock={"turn_seconds": 2})
    game = r.get_json()["session_id"]
    store = mgr.store
    assert all(store.deadline_index(sid) == int((T0 + 1) * 1000) for sid in stuck)
    assert store.deadline_index(game) == int((T0 + 2) * 1000)
    return env, clock, store, stuck, game


@pytest.mark.redis
def test_a_clocked_game_is_swept_on_time_beside_100_stuck_sessions(
    request: pytest.FixtureRequest,
) -> None:
    env, clock, store, stuck, game = sessions(request)
    # The sweeper's cap is below the stuck sessions' bytes (as when they grew to it).
    env = {**env, "SESSION_MAX_BYTES": CAP}
    worker = Worker(NotifierSettings.load(env), SessionConfig.load(env), now=clock)
    polls = 0
    try:
        clock.t += 2.5
        while polls < 3 and not clock_moves(store, game):
            worker.poll()  # the poller polls again at once while a batch was full
            polls += 1
        assert clock_moves(store, game), f"the game's clock was not played in {polls} polls"
        # Each stuck session was read once, then left out of the index: not re-read.
        assert [sid for sid in stuck if store.deadline_index(sid) is not None] == []
        assert all(store.moves(sid) == [] for sid in stuck)
    finally:
        worker.stop()
        store.close()


@pytest.mark.redis
def test_100_sessions_that_fail_to_settle_do_not_starve_a_clock(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session whose settling fails (a fault: logged) is put off a minute; the others'
    clocks go on at the next poll."""
    env, clock, store, stuck, game = sessions(request)
    worker = Worker(NotifierSettings.load(env), SessionConfig.load(env), now=clock)
    settle = worker.sessions.timekeeper.settle
    broken = set(stuck)

    def failing(c: Any, *args: Any, **kwargs: Any) -> Any:
        if c.sid in broken:
            raise RuntimeError("a session that cannot be settled")
        return settle(c, *args, **kwargs)

    monkeypatch.setattr(worker.sessions.timekeeper, "settle", failing)
    try:
        clock.t += 2.5
        for _ in range(3):
            worker.poll()
            if clock_moves(store, game):
                break
        assert clock_moves(store, game), "the game's clock was not played in 3 polls"
        later = int((clock.t + FAILED_DEFER_MS / 1000) * 1000)
        assert {store.deadline_index(sid) for sid in stuck} == {later}
    finally:
        worker.stop()
        store.close()
