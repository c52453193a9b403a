"""A session's levelled bot sees the game's events of the current round, redacted for
its seat, exactly as ``benchmarks/bots_bench.py`` gives them to its bots: on every store
(the memory store, one Redis, the cluster), from this process's cached copy or from a
read of the store (the history comes in the load's round trip), and only what its seat
may see."""

from __future__ import annotations

import contextlib
import dataclasses
import random
import threading
from collections.abc import Iterator
from typing import Any

import orjson
import pytest

import engine
import engine.bots
from benchmarks import bots_bench
from service.sessions import bots as session_bots
from service.sessions.bots import READS_HISTORY, BotHistory, round_start
from service.sessions.manager import SessionManager
from service.sessions.models import Snapshot
from service.sessions.redis_store import RedisStore
from tests.sessions.conftest import Api, turn_seat

SEED = 987_654_321_987


class Call:
    """One ``engine.bots.choose`` call a session made, with the state it came from."""

    def __init__(self, level: str, view: dict[str, Any], history: list[Any], legal: Any, rnd: Any):
        self.level, self.view, self.history, self.legal = level, view, list(history), list(legal)
        self.rnd_state = rnd.getstate()
        self.move: Any = None


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Call]]:
    """Every levelled bot's input in the sessions of the test (and the move it chose)."""
    seen: list[Call] = []
    real = engine.bots.choose

    def spy(level: str, view: Any, history: Any, legal: Any, rnd: Any, *rest: Any) -> Any:
        call = Call(level, view, history, legal, rnd)
        call.move = real(level, view, history, legal, rnd, *rest)
        seen.append(call)
        return call.move

    monkeypatch.setattr(engine.bots, "choose", spy)
    yield seen


def _person_move(body: dict[str, Any], rnd: random.Random) -> dict[str, Any]:
    """A person's move: the simple bot's choice among its legal moves (never a catch)."""
    legal = [engine.Move.from_dict(m) for m in body["legal_moves"] if m["type"] != "catch"]
    rank = engine.find_variant(body["view"]["variant"]).bot_rank
    return session_bots.choose(legal, rnd, rank).to_dict()  # type: ignore[no-any-return]


def play_session(
    api: Api, variant: str, level: Any, moves: int, cold_every: int = 2, rounds: int = 1
) -> tuple[str, str]:
    """A 2-seat session (a person, then a bot of ``level``) seeded with ``SEED`` as the
    bench seeds its games, played ``moves`` person moves (or to its end; with
    ``rounds``, until ``moves`` more into round ``rounds``, at most 400); every
    ``cold_every``-th move is made with this process's cache emptied first, so the
    history comes from the store (0: never)."""
    r = api.create(variant, [{"name": "me"}, {"bot": level}], seed=SEED)
    assert r.status_code == 201, r.get_data(as_text=True)
    body = r.get_json()
    sid, tok = body["session_id"], body["seats"][0]["token"]
    mgr: SessionManager = api.c.application.extensions["sessions"]
    rnd = random.Random(1)
    left = moves
    for i in range(400):
        state = api.get(sid, tok).get_json()
        # A loaded machine can leave bot moves owed past their CPU budget
        # (SESSION_BOT_CPU_MS): reads settle them, as a phone's polls do.
        for _ in range(50):
            view = state["view"]
            if view["phase"] in ("round_over", "game_over") or turn_seat(view) == 0:
                break
            state = api.get(sid, tok).get_json()
        if state["view"]["phase"] == "game_over":
            break
        if state["view"]["round"] >= rounds:
            left -= 1
            if left < 0:
                break
        assert turn_seat(state["view"]) == 0 or state["view"]["phase"] == "round_over"
        if cold_every and i % cold_every == 0:
            mgr.cache.clear()
        r = api.move(sid, tok, _person_move(state, rnd), state["version"])
        assert r.status_code == 200, r.get_data(as_text=True)
    return sid, tok


def bench_histories(variant: str, log: list[engine.Move]) -> list[tuple[int, list[Any]]]:
    """The (seat, history) ``bots_bench.play`` gives each bot decision of the game made
    of ``log``'s moves (with the same seed): its own loop, made to play those moves."""
    out: list[tuple[int, list[Any]]] = []
    done = iter(log)
    real_apply = engine.apply

    class End(Exception):
        pass

    def replay_choose(level: str, view: Any, history: Any, legal: Any, *rest: Any) -> Any:
        out.append((int(view["player"]), list(history)))
        return pending[0]

    def apply(state: Any, move: Any) -> Any:
        # The next round: the bench has the seat the game waits for start it, a session
        # whichever seat comes first (its bot); the move is the same but for its player.
        same = move.type is pending[0].type is engine.MoveType.NEXT_ROUND
        assert same or move == pending[0], "the bench left the session's game"
        got = real_apply(state, pending[0])
        pending[0] = next(done, None)
        if pending[0] is None:
            raise End
        return got

    pending: list[Any] = [next(done)]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(bots_bench.bots, "choose", replay_choose)
        mp.setattr(bots_bench.engine, "apply", apply)
        with contextlib.suppress(End):
            bots_bench.play(variant, ["normal", "hard"], SEED, 1, whole_game=True)
    return out


@pytest.mark.one_process  # every bot decision made: a copy behind may make one in vain
@pytest.mark.parametrize("variant", ["uno_classic", "uno_flip"])
def test_a_sessions_hard_bot_gets_the_benchs_history_and_makes_its_move(
    api: Api, calls: list[Call], variant: str
) -> None:
    sid, _ = play_session(api, variant, "hard", 10, rounds=2)
    store = api.c.application.extensions["sessions"].store
    log = [engine.Move.from_dict(orjson.loads(m)["move"]) for m in store.moves(sid)]
    bench = bench_histories(variant, log)
    # The bench asks its bots only in play (the session's bot also starts the next round).
    ours = [c for c in calls if c.view["phase"] in ("play", "draft")]
    assert len(ours) > 5 and len(bench) >= len(ours)
    rounds = {c.view["round"] for c in ours}
    assert len(rounds) > 1, "the game should reach a second round"
    hard = [(seat, h) for seat, h in bench if seat == 1]
    assert len(hard) == len(ours)
    for call, (seat, history) in zip(ours, hard, strict=True):
        assert call.view["player"] == seat
        assert call.history == history
        # ... and so the bench's bot, with the session bot's generator, moves alike.
        rnd = random.Random()
        rnd.setstate(call.rnd_state)
        assert engine.bots.choose("hard", call.view, history, call.legal, rnd) == call.move


def test_a_session_bot_never_sees_another_hand_or_the_seed(api: Api, calls: list[Call]) -> None:
    sid, tok = play_session(api, "uno_pocket_pizza", "hard", 40)
    assert calls
    for call in calls:
        seat = call.view["player"]
        text = orjson.dumps([call.view, call.history]).decode()
        assert str(SEED) not in text and "secret" not in text
        assert call.history == engine.redact_all(call.history, seat)
        for ev in call.history:
            if ev.get("player") not in (None, seat) and ev["type"] == "drew":
                assert "cards" not in ev
        assert call.view["hand_sizes"][seat] == len(call.view["hand"])


def test_round_start_and_the_history_of_a_round() -> None:
    state, setup = engine.start("uno_classic", 2, 3)
    assert round_start(setup) == 0  # the first round starts with the dealer's cut
    history = BotHistory(
        [{"type": "started"}, *setup, {"type": "timeout", "player": 0, "deadline": "x", "moves": 0}]
    )
    assert history.events == setup  # the session's own events are not the game's
    seat = 1
    assert history.seen_by(seat) == engine.redact_all(setup, seat)
    drew = {"type": "drew", "player": 0, "count": 1, "reason": "draw"}
    history.extend([drew])
    assert history.seen_by(seat)[-1] == engine.redact(drew, seat)
    deal = [{"type": "round_started", "round": 2, "dealer": 1}, drew]
    history.extend([{"type": "round_over"}, *deal])
    assert history.events == deal and history.seen_by(seat) == engine.redact_all(deal, seat)
    assert round_start([drew]) is None


def test_only_the_levels_that_read_the_history_keep_one() -> None:
    assert set(READS_HISTORY) <= set(engine.bots.LEVELS) and "easy" not in READS_HISTORY
    state, setup = engine.start("uno_classic", 2, 4)
    seat = engine.waiting_for(state)
    assert seat is not None
    view, legal = engine.view(state, seat), engine.legal_moves(state, seat)
    picks = {
        engine.bots.choose("easy", view, h, legal, random.Random(7)).to_dict().__repr__()
        for h in ([], engine.redact_all(setup, seat))
    }
    assert len(picks) == 1  # easy's choice does not read the history


@pytest.mark.parametrize("level", ["easy", True])
def test_a_session_without_a_reading_bot_keeps_no_history(api: Api, level: Any) -> None:
    sid, _ = play_session(api, "uno_classic", level, 6)
    store = api.c.application.extensions["sessions"].store
    loaded = store.load(sid)
    assert loaded.history_from == 0 and loaded.history is None
    cached = api.c.application.extensions["sessions"].cache.peek(sid)
    assert cached is not None and cached.history == ()


def test_the_stored_history_is_the_rounds_events(api: Api) -> None:
    sid, _ = play_session(api, "uno_classic", "normal", 80)
    mgr: SessionManager = api.c.application.extensions["sessions"]
    loaded = mgr.store.load(sid)
    assert loaded is not None and loaded.history_from > 0 and loaded.history is not None
    rows = mgr.store.events(sid, 0, 100_000)
    events = [orjson.loads(e) for _, e in rows]
    start = round_start(events)
    assert start is not None and rows[start][0] == loaded.history_from
    assert loaded.history == tuple(e for _, e in rows[start:])
    # The cached copy holds the same, so a move from it needs no read.
    cached = mgr.cache.peek(sid)
    assert cached is not None and cached.history == loaded.history
    # A load at the version the caller holds brings no history.
    again = mgr.store.load(sid, history_known=loaded.version)
    assert again is not None and again.history is None and again.history_from == loaded.history_from


def test_a_move_of_a_hard_bot_session_is_one_round_trip(api: Api, store_kind: str) -> None:
    if store_kind == "memory":
        pytest.skip("round trips are Redis's")
    sid, tok = play_session(api, "uno_classic", "hard", 3, cold_every=1000)
    mgr: SessionManager = api.c.application.extensions["sessions"]
    store: RedisStore = mgr.store  # type: ignore[assignment]
    sent: list[bytes] = []
    mover = threading.get_ident()

    def count(cold: bool) -> int:
        state = api.get(sid, tok).get_json()
        if cold:
            mgr.cache.clear()
        conn = _connection_class(store)
        original = conn.send_packed_command

        def counting(self: Any, command: Any, check_health: bool = True) -> None:
            if threading.get_ident() == mover:  # not the sweepers' threads
                sent.append(command if isinstance(command, bytes) else b"".join(command))
            original(self, command, check_health)

        conn.send_packed_command = counting
        sent.clear()
        try:
            r = api.move(sid, tok, _person_move(state, random.Random(3)), state["version"])
        finally:
            conn.send_packed_command = original
        assert r.status_code == 200, r.get_data(as_text=True)
        return len(sent)

    assert count(cold=False) == 1  # the commit: the round's events were in the cache
    assert count(cold=True) == 2  # one read (state, meta and the round's events), the commit
    assert b"XREVRANGE" in sent[0] and b"EVALSHA" in sent[1]


def _connection_class(store: RedisStore) -> Any:
    client = store.redis
    if store.cluster:
        node = client.get_node_from_key("x")
        return node.redis_connection.connection_pool.connection_class
    return client.connection_pool.connection_class


def test_a_bot_moving_after_a_timeout_sees_the_rounds_events(api: Api, calls: list[Call]) -> None:
    mgr: SessionManager = api.c.application.extensions["sessions"]
    now = [1_800_000_000.0]
    mgr.now = lambda: now[0]
    r = api.create(
        "uno_classic", [{"name": "me"}, {"bot": "hard"}], seed=SEED, clock={"turn_seconds": 30}
    )
    assert r.status_code == 201, r.get_data(as_text=True)
    sid, tok = r.get_json()["session_id"], r.get_json()["seats"][0]["token"]
    rnd = random.Random(5)
    for _ in range(4):
        state = api.get(sid, tok).get_json()
        now[0] += 1
        assert api.move(sid, tok, _person_move(state, rnd), state["version"]).status_code == 200
    mgr.cache.clear()  # the clock's request reads the session (and the round's events)
    before = len(calls)
    now[0] += 31
    assert api.get(sid, tok).get_json()["view"]["phase"] == "play"
    after = calls[before:]
    assert after, "the bot should reply to the clock's move"
    rows = mgr.store.events(sid, 0, 100_000)
    assert any(orjson.loads(e)["type"] == "timeout" for _, e in rows)
    game = [e for e in map(orjson.loads, (e for _, e in rows)) if e["type"] != "timeout"]
    start = round_start(game)
    assert start is not None
    for call in after:
        full = engine.redact_all(game[start:], call.view["player"])
        assert call.history == full[: len(call.history)]
        assert len(call.history) > 10  # the round so far, not only this request's events


def test_the_bots_page_states_the_history_bound_the_store_keeps() -> None:
    from service.sessions.store import HISTORY_EVENTS
    from tests.docs_pages import page

    text = " ".join(page("bots.md").split())
    assert f"newest {HISTORY_EVENTS:,} events" in text


def test_the_cache_keeps_the_bots_history_within_its_byte_budget(
    api: Api, calls: list[Call]
) -> None:
    """Past ``SESSION_CACHE_HISTORY_BYTES`` the least recently cached sessions lose their
    history (not their state), and their bots still get the round's events: read again
    with the state."""
    mgr: SessionManager = api.c.application.extensions["sessions"]
    first, _ = play_session(api, "uno_classic", "hard", 6, cold_every=0)

    def kept(sid: str) -> Snapshot:
        hit = mgr.cache.peek(sid)
        assert hit is not None
        return hit

    size = sum(map(len, kept(first).history or ()))
    assert size > 0 and mgr.cache.history_bytes == size
    # Room for the first session's history only: a second session's pushes it out.
    mgr.config = dataclasses.replace(mgr.config, cache_history_bytes=size)
    second, _ = play_session(api, "uno_classic", "hard", 6, cold_every=0)
    held = sum(map(len, kept(second).history or ()))
    assert kept(first).history is None
    assert kept(first).state is not None
    assert mgr.cache.history_bytes == held <= mgr.config.cache_history_bytes
    # No room at all: every move reads the history again, and the bot's is still the
    # bench's, move for move.
    mgr.config = dataclasses.replace(mgr.config, cache_history_bytes=0)
    calls.clear()
    sid, _ = play_session(api, "uno_classic", "hard", 10, cold_every=0, rounds=2)
    assert mgr.cache.history_bytes == 0
    assert all(hit.history is None for hit in mgr.cache.snapshots())
    store = mgr.store
    log = [engine.Move.from_dict(orjson.loads(m)["move"]) for m in store.moves(sid)]
    hard = [(seat, h) for seat, h in bench_histories("uno_classic", log) if seat == 1]
    ours = [c for c in calls if c.view["phase"] in ("play", "draft")]
    assert len(ours) > 5 and len(hard) == len(ours)
    for call, (seat, history) in zip(ours, hard, strict=True):
        assert call.view["player"] == seat and call.history == history


def test_the_config_documents_the_history_budget() -> None:
    from service.sessions import config

    assert "``SESSION_CACHE_HISTORY_BYTES`` | 33554432" in (config.__doc__ or "")
    assert config.SessionConfig.load({}).cache_history_bytes == 33554432
    assert (
        config.SessionConfig.load({"SESSION_CACHE_HISTORY_BYTES": "1000"}).cache_history_bytes
        == 1000
    )
