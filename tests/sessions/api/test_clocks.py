"""Turn clocks: a seat whose time runs out gets its forced default moves, played at the
deadline by whichever request touches the session first, logged ``"by": "clock"``;
the bank, chains of deadlines, timeouts in a row and the hand-over to a bot; the
stream that wakes at the deadline; two replicas that produce one timeout. On every
session store (memory, one Redis, the cluster).

Here the clock starts at the deal (``SESSION_START_GRACE_SECONDS=0``); its hold until
every person has been told is tested in ``test_phones.py``."""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import replace
from functools import cache
from itertools import pairwise
from typing import Any

import orjson
import pytest
from flask import Flask

import engine
from engine import Move, MoveType, Phase, State
from service.sessions.events import SESSION_EVENTS, rfc3339
from service.sessions.store import CommitRequest
from tests.sessions.api.test_move_log import bots_play_it_out, stored_state
from tests.sessions.conftest import (
    Api,
    make_app,
    problem,
    sse,
    store_config,
    store_url,
    turn_seat,
)
from tests.support import random_game

T0 = 1_800_000_000.0
TURN = 30
VARIANTS = engine.all_variants()


class FakeClock:
    """The manager's clock, moved by the test."""

    def __init__(self, t: float = T0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def app(store_kind: str, request: pytest.FixtureRequest) -> Iterator[Flask]:
    app = make_app(store_config(store_kind, request, SESSION_START_GRACE_SECONDS=0))
    yield app
    app.extensions["sessions"].store.close()


@pytest.fixture
def clock(app: Flask) -> FakeClock:
    fake = FakeClock()
    app.extensions["sessions"].now = fake
    return fake


def create(api: Api, variant: str = "uno_classic", players: Any = 2, **clock: Any) -> Any:
    spec = {"turn_seconds": TURN, **clock}
    r = api.create(variant, players, seed=5, clock=spec)
    assert r.status_code == 201, r.get_data(as_text=True)
    body = r.get_json()
    return body["session_id"], [s["token"] for s in body["seats"]], body


def log_of(app: Flask, sid: str) -> list[dict[str, Any]]:
    return [orjson.loads(raw) for raw in app.extensions["sessions"].store.moves(sid)]


def events_of(api: Api, sid: str, after: int = 0) -> list[dict[str, Any]]:
    return api.events(sid, after=after).get_json()["events"]  # type: ignore[no-any-return]


def situation(state: State) -> str:
    if state.phase is Phase.ROUND_OVER:
        return "round_over"
    return state.pending.type.value if state.pending is not None else "turn"


# ---------------------------------------------------------------- every decision
@cache
def staged(variant_id: str) -> dict[str, State]:
    """A state of each situation of the variant (the plain turn, each decision, the end
    of a round), from seeded engine games (with a draw tried wherever one is legal)."""
    variant = engine.find_variant(variant_id)
    wanted = {"turn", "round_over", *(d.value for d in variant.pending_moves)}
    found: dict[str, State] = {}
    rnd = random.Random(2)
    # Every other game with classic UNO's house rules on (the options left out of states
    # while off, at their last choice): the penalty decision comes only with them.
    house = {
        name: spec.choices[-1]
        for name, spec in variant.options.items()
        if not spec.stored_at_default and spec.choices
    }
    for seed in range(80):
        players = 2 if seed % 2 else min(3, variant.max_players)
        options = house if house and seed % 2 else None
        for _b, _m, state, _e in random_game(variant_id, players, seed, rnd, options):
            seat = engine.waiting_for(state)
            if seat is None:
                continue
            found.setdefault(situation(state), state)
            draw = Move(MoveType.DRAW, seat)
            if state.phase is Phase.PLAY and draw in engine.legal_moves(state, seat):
                after = engine.apply(state, draw)[0]
                if engine.waiting_for(after) is not None:
                    found.setdefault(situation(after), after)
        if set(found) >= wanted:
            break
    assert set(found) >= wanted, sorted(wanted - set(found))
    return {k: v for k, v in found.items() if k in wanted}


def cases() -> list[Any]:
    out = []
    for v in VARIANTS:
        for kind in ["turn", "round_over", *(d.value for d in v.pending_moves)]:
            out.append(pytest.param(v.id, kind, id=f"{v.id}-{kind}"))
    return out


@pytest.mark.parametrize(("variant", "kind"), cases())
def test_every_decision_of_every_variant_times_out_to_its_documented_default(
    api: Api, app: Flask, clock: FakeClock, variant: str, kind: str
) -> None:
    """A session put at the decision (every seat a person): once the deadline passes,
    the first read plays the seat's forced default (what ``engine.forced_move`` says,
    documented in the rules), logged by the clock at the deadline, after a ``timeout``
    event; the seat owes nothing more of its turn."""
    state = staged(variant)[kind]
    sid, toks, body = create(api, variant, state.num_players)
    mgr = app.extensions["sessions"]
    put = mgr.store.commit(CommitRequest(sid, 1, orjson.dumps(engine.to_dict(state)), [], moves=[]))
    assert put.status == "ok"
    seat = engine.waiting_for(state)
    assert seat is not None
    clock.t = T0 + TURN - 0.5
    view = api.get(sid, toks[seat]).get_json()
    assert view["version"] == 2 and view["clock"]["seat"] == seat  # not yet
    assert view["clock"]["seconds_left"] == pytest.approx(0.5)
    clock.t = T0 + TURN
    after = api.get(sid).get_json()
    assert after["version"] == 3
    log = log_of(app, sid)
    assert log, "the clock played nothing"
    first = log[0]
    expected = engine.forced_move(state, seat)
    assert expected is not None
    assert first == {"by": "clock", "at": int((T0 + TURN) * 1000), "move": expected.to_dict()}
    # Replayed, the clock's moves are the forced defaults, move after move.
    replay = state
    for entry in log:
        if entry["by"] == "clock":
            assert entry["move"] == engine.forced_move(replay, seat).to_dict()  # type: ignore[union-attr]
        replay, _ = engine.apply(replay, entry["move"])
    assert engine.to_dict(replay) == engine.to_dict(stored_state(app, sid))
    timeouts = [e for e in events_of(api, sid, body["last_event"]) if e["type"] == "timeout"]
    assert timeouts[0] == {
        "seq": body["last_event"] + 1,
        "type": "timeout",
        "player": seat,
        "deadline": rfc3339(T0 + TURN),
        "moves": sum(1 for e in log if e["by"] == "clock"),
    }
    pend = replay.pending
    assert pend is None or pend.player != seat or replay.phase is not Phase.PLAY


# ---------------------------------------------------------------- a whole game
@pytest.mark.parametrize("variant", [v.id for v in VARIANTS])
def test_a_game_with_timeouts_replays_from_its_log(
    api: Api, app: Flask, clock: FakeClock, variant: str
) -> None:
    """People who sometimes move and sometimes let the clock run out: the log, replayed
    from the seed with ``engine.apply``, gives the session's state, and each clock move
    is the forced default of the state it was played in."""
    v = engine.find_variant(variant)
    players = min(3, v.max_players)
    sid, toks, _ = create(api, variant, players)
    rnd = random.Random(variant)
    for _ in range(120):
        body = api.get(sid).get_json()
        if body["view"]["phase"] == "game_over":
            break
        seat = turn_seat(body["view"]) if body["view"]["phase"] != "round_over" else None
        if seat is None or rnd.random() < 0.4:
            clock.t += TURN  # let the clock play
            continue
        mine = api.get(sid, toks[seat]).get_json()
        moves = [m for m in mine["legal_moves"] if m["type"] not in ("uno", "catch")]
        clock.t += rnd.random() * TURN / 2
        r = api.move(sid, toks[seat], rnd.choice(moves), mine["version"])
        assert r.status_code == 200, r.get_data(as_text=True)
    log = log_of(app, sid)
    assert {e["by"] for e in log} == {"player", "clock"}
    state, _ = engine.start(variant, players, 5)
    for entry in log:
        if entry["by"] == "clock":
            forced = engine.forced_move(state, entry["move"]["player"])
            assert forced is not None and entry["move"] == forced.to_dict()
        state, _ = engine.apply(state, entry["move"])
    assert engine.to_dict(state) == engine.to_dict(stored_state(app, sid))
    stamps = [e["at"] for e in log]
    assert stamps == sorted(stamps)


# ---------------------------------------------------------------- the clock's rules
def test_several_passed_deadlines_are_played_in_a_chain_in_one_commit(
    api: Api, app: Flask, clock: FakeClock
) -> None:
    sid, toks, body = create(api, "uno_classic", 3)
    clock.t = T0 + 3 * TURN + 1
    after = api.get(sid).get_json()
    assert after["version"] == 2  # one commit
    timeouts = [e for e in events_of(api, sid, body["last_event"]) if e["type"] == "timeout"]
    assert [t["deadline"] for t in timeouts] == [rfc3339(T0 + k * TURN) for k in (1, 2, 3)]
    assert len({t["player"] for t in timeouts}) == 3
    # Each forced move started the next seat's clock at the previous deadline.
    assert after["clock"]["deadline"] == rfc3339(T0 + 4 * TURN)
    assert after["clock"]["seconds_left"] == pytest.approx(TURN - 1)
    assert after["clock"]["timeouts"] == [1, 1, 1]


def test_the_bank_pays_for_time_beyond_the_turn_and_is_gone_after_a_timeout(
    api: Api, clock: FakeClock
) -> None:
    sid, toks, body = create(api, "uno_classic", 2, bank_seconds=20)
    seat = body["clock"]["seat"]
    assert body["clock"]["deadline"] == rfc3339(T0 + TURN + 20)
    assert body["clock"]["bank_left"] == [20, 20]
    clock.t = T0 + TURN + 8  # 8 s into the bank
    mine = api.get(sid, toks[seat]).get_json()
    assert mine["clock"]["bank_left"][seat] == pytest.approx(12)
    r = api.move(sid, toks[seat], {"type": "draw"}, mine["version"]).get_json()
    if r["clock"]["seat"] == seat:  # a playable card drawn: keep it
        r = api.move(sid, toks[seat], {"type": "pass"}, r["version"]).get_json()
    other = r["clock"]["seat"]
    assert other != seat
    assert r["clock"]["bank_left"][seat] == pytest.approx(12)
    assert r["clock"]["deadline"] == rfc3339(clock.t + TURN + 20)
    start = clock.t
    clock.t = start + TURN + 20  # the other seat uses its whole bank: a timeout
    late = api.get(sid).get_json()
    assert late["clock"]["bank_left"][other] == 0
    assert late["clock"]["timeouts"][other] == 1
    assert late["clock"]["seat"] == seat
    assert late["clock"]["deadline"] == rfc3339(start + TURN + 20 + TURN + 12)


def test_a_move_after_the_deadline_finds_the_forced_move_played(
    api: Api, app: Flask, clock: FakeClock
) -> None:
    """The person's move is judged at the time of the request: the clock went first,
    so the move answers against the new state (412: the version moved on)."""
    sid, toks, body = create(api, "uno_classic", 2)
    seat = body["clock"]["seat"]
    clock.t = T0 + TURN + 0.001
    r = api.move(sid, toks[seat], {"type": "draw"}, body["version"])
    p = problem(r, 412, "version_mismatch")
    assert p["current_version"] == 2
    assert [e["by"] for e in log_of(app, sid)] == ["clock"] * len(log_of(app, sid))
    # In time, the same move is the person's.
    sid, toks, body = create(api, "uno_classic", 2)
    clock.t += TURN - 0.001
    r = api.move(sid, toks[seat], {"type": "draw"}, body["version"])
    assert r.status_code == 200
    assert log_of(app, sid)[0]["by"] == "player"


def test_max_timeouts_in_a_row_hand_the_seat_to_a_bot(
    api: Api, app: Flask, clock: FakeClock
) -> None:
    sid, toks, body = create(api, "uno_classic", 2, max_timeouts=2)
    slow = body["clock"]["seat"]
    fast = 1 - slow
    for round_ in range(2):
        clock.t += TURN  # the slow seat's time runs out
        view = api.get(sid, toks[fast]).get_json()
        if round_ == 0:
            assert view["clock"]["timeouts"][slow] == 1
            assert view["clock"]["seat"] == fast
            move = next(m for m in view["legal_moves"] if m["type"] == "draw")
            r = api.move(sid, toks[fast], move, view["version"]).get_json()
            if r["clock"]["seat"] == fast:
                r = api.move(sid, toks[fast], {"type": "pass"}, r["version"]).get_json()
            assert r["clock"]["timeouts"][fast] == 0
    after = api.get(sid).get_json()
    assert [s["bot"] for s in after["seats"]][slow] is True
    evs = events_of(api, sid)
    took = [e for e in evs if e["type"] == "bot_took_seat"]
    assert took == [
        {"seq": took[0]["seq"], "type": "bot_took_seat", "player": slow, "reason": "timeouts"}
    ]
    # The slow seat's token says what became of its seat, for the session's life.
    for read in (api.get, api.legal):
        lost = problem(read(sid, toks[slow]), 401, "seat_taken_by_bot")
        assert lost["seat"] == slow and lost["reason"] == "timeouts"
        assert lost["replaced_by"] == "bot" and lost["at"] == took_at(evs, slow)
    problem(api.get(sid, toks[slow][::-1]), 401, "invalid_token")  # not a former token
    # The forced move ended the slow seat's turn; from now on a bot answers for it.
    assert after["clock"]["seat"] == fast
    r = api.move(sid, toks[fast], {"type": "draw"}, after["version"]).get_json()
    if r["clock"]["seat"] == fast:
        r = api.move(sid, toks[fast], {"type": "pass"}, r["version"]).get_json()
    assert r["clock"]["seat"] in (fast, None)
    assert log_of(app, sid)[-1]["by"] == "bot"


def took_at(events: list[dict[str, Any]], seat: int) -> str:
    """The deadline of ``seat``'s last timeout before a bot took it."""
    took = next(i for i, e in enumerate(events) if e["type"] == "bot_took_seat")
    return str(next(e for e in reversed(events[:took]) if e["type"] == "timeout")["deadline"])


def test_a_game_whose_seats_all_went_to_bots_plays_on_past_a_bot_chains_budget(
    api: Api, app: Flask, clock: FakeClock
) -> None:
    """Both people time out and bots take both seats: a chain of bot moves stops at
    ``max_bot_moves``; the next request that touches the session plays on from there,
    so the game ends, and its record replays."""
    manager = app.extensions["sessions"]
    manager.config = replace(manager.config, max_bot_moves=6)
    sid, _, _ = create(api, "uno_classic", 2, max_timeouts=1)
    clock.t += 2 * TURN + 1  # both seats time out, one after the other
    seen = api.get(sid).get_json()
    assert [s["bot"] for s in seen["seats"]] == [True, True]
    bots_play_it_out(api, app, sid, budget=6)
    log = log_of(app, sid)
    assert len(log) == stored_state(app, sid).move_count and log[-1]["by"] == "bot"


def test_timeouts_and_the_bots_replies_share_one_requests_budget(
    api: Api, app: Flask, clock: FakeClock
) -> None:
    """``max_bot_moves`` bounds what one request plays for the clock: the forced moves and
    the bots' replies together. A timeout is begun only while some budget is left and
    ends its seat's turn (only its own forced moves may go past); the bots stop at what
    is left, and the next request goes on from there."""
    budget = 2
    manager = app.extensions["sessions"]
    manager.config = replace(manager.config, max_bot_moves=budget)
    players = [{"name": "Ann"}, {"bot": True}, {"bot": True}]
    sid, _, _ = create(api, "uno_classic", players)
    clock.t += 40 * TURN  # Ann times out again and again; two bots reply each time
    logged = [len(log_of(app, sid))]
    for _ in range(12):
        api.get(sid)
        logged.append(len(log_of(app, sid)))
    log = log_of(app, sid)
    for a, b in pairwise(logged):
        made = [e["by"] for e in log[a:b]]
        assert made, "every request with a passed deadline plays on"
        if len(made) > budget:  # only the last timeout's forced moves go past it
            last_bot = max(i for i, by in enumerate(made) if by == "bot")
            assert set(made[last_bot + 1 :]) == {"clock"} and last_bot < budget, made
    # The budget was reached (a timeout and one bot's reply, where both bots would
    # reply), and both kinds of move were played.
    assert max(b - a for a, b in pairwise(logged)) >= budget
    assert {"clock", "bot"} <= {e["by"] for e in log}
    assert len(log) == stored_state(app, sid).move_count


def test_a_clocked_game_everyone_left_logs_its_bots_moves_in_time_order(
    api: Api, app: Flask, clock: FakeClock
) -> None:
    """Both people leave a clocked game, one after the other, later than the turn began;
    the bots' chains (a budget of 3 a request) are logged from the leave on, never
    before it, and every later chain goes on from where the last one stopped."""
    manager = app.extensions["sessions"]
    manager.config = replace(manager.config, max_bot_moves=3)
    sid, toks, _ = create(api, "uno_classic", [{"name": "Ann"}, {"name": "Bob"}])
    clock.t += TURN / 2  # well within the turn: no timeout
    for tok in toks:
        r = api.leave(sid, tok)
        assert r.status_code == 200, r.get_data(as_text=True)
    left_at = int(clock.t * 1000)
    for _ in range(5):
        clock.t += 1
        api.get(sid)
    stamps = [e["at"] for e in log_of(app, sid)]
    assert len(stamps) > 3 * 2  # chains past the leave's own
    assert stamps == sorted(stamps) and stamps[0] >= left_at, (left_at, stamps)


def test_the_next_persons_time_starts_when_the_bot_that_replaced_a_leaver_moved(
    api: Api, clock: FakeClock
) -> None:
    """The seat the game waits for leaves halfway through its turn; a bot plays the
    turn at once, and the next person's turn time counts from then, whole."""
    sid, toks, body = create(api, "uno_classic", [{"name": "Ann"}, {"name": "Bob"}])
    waited = body["clock"]["seat"]
    clock.t += TURN / 2
    r = api.leave(sid, toks[waited])
    assert r.status_code == 200, r.get_data(as_text=True)
    after = api.get(sid, toks[1 - waited]).get_json()
    assert after["clock"]["seat"] == 1 - waited
    assert after["clock"]["deadline"] == rfc3339(clock.t + TURN)


def test_a_move_in_time_resets_the_timeouts_in_a_row(api: Api, clock: FakeClock) -> None:
    sid, toks, body = create(api, "uno_classic", 2, max_timeouts=2)
    slow = body["clock"]["seat"]
    clock.t += TURN
    view = api.get(sid).get_json()
    assert view["clock"]["timeouts"][slow] == 1
    clock.t += TURN  # the other seat times out too
    view = api.get(sid, toks[slow]).get_json()
    assert view["clock"]["seat"] == slow
    r = api.move(sid, toks[slow], {"type": "draw"}, view["version"]).get_json()
    assert r["clock"]["timeouts"][slow] == 0


def test_a_session_without_a_clock_has_none(api: Api, clock: FakeClock) -> None:
    r = api.create("uno_classic", 2, seed=5).get_json()
    clock.t += 10_000
    body = api.get(r["session_id"]).get_json()
    assert body["clock"] is None and body["version"] == 1


@pytest.mark.parametrize(
    "spec",
    [{}, {"turn_seconds": 0}, {"turn_seconds": "30"}, {"turn_seconds": 30, "max_timeouts": 0},
     {"turn_seconds": 30, "bank_seconds": -1}, {"turn_seconds": 30, "extra": 1}, 5],
)  # fmt: skip
def test_a_bad_clock_is_a_400(api: Api, spec: Any) -> None:
    r = api.create("uno_classic", 2, clock=spec)
    assert problem(r, 400, "invalid_request")["errors"]["clock"]


# ---------------------------------------------------------------- the stream
def test_a_waiting_stream_wakes_at_the_deadline_and_sees_the_timeout(app: Flask, api: Api) -> None:
    """The heartbeat (60 s) is longer than the stream (10 s): a stream that gets the
    timeout woke at the deadline (1 s), not at a heartbeat."""
    mgr = app.extensions["sessions"]
    mgr.config = type(mgr.config)(**{**mgr.config.__dict__, "heartbeat_seconds": 60.0})
    start = time.monotonic()
    mgr.now = lambda: T0 + (time.monotonic() - start)
    r = api.create("uno_classic", 2, seed=5, clock={"turn_seconds": 1})
    body = r.get_json()
    sid, n = body["session_id"], body["last_event"]
    r = api.c.get(f"/v1/sessions/{sid}/stream?timeout=10&max_events=1&after={n}")
    text = r.get_data(as_text=True)
    recs = sse(text)
    assert [x["event"] for x in recs] == ["timeout"]
    assert recs[0]["data"]["player"] == body["clock"]["seat"]
    assert recs[0]["data"]["deadline"] == body["clock"]["deadline"]
    assert ": keep-alive" not in text


def test_session_events_are_in_the_spec_and_pass_redaction_unchanged() -> None:
    from tests.engine.rules.test_declarations import spec_names

    engine_types = {t for v in VARIANTS for t in v.event_types}
    assert spec_names("Event") == engine_types | set(SESSION_EVENTS)
    assert not engine_types & set(SESSION_EVENTS)
    # Each member's fields against SESSION_EVENTS: tests/sessions/api/test_lobby.py.
    ev = {"type": "timeout", "player": 1, "deadline": rfc3339(T0), "moves": 1}
    assert all(engine.redact(ev, seat) == ev for seat in (None, 0, 1))


# ---------------------------------------------------------------- two replicas
@pytest.fixture(params=["redis", "cluster"])
def replicas(request: pytest.FixtureRequest) -> Iterator[tuple[Api, Api, FakeClock, Flask]]:
    url = store_url(str(request.param), request)
    config = {"REDIS_URL": url, "SESSION_KEY_PREFIX": f"c{uuid.uuid4().hex[:6]}:",
              "SESSION_START_GRACE_SECONDS": 0}  # fmt: skip
    a, b = make_app(dict(config)), make_app(dict(config))
    fake = FakeClock()
    for app in (a, b):
        app.extensions["sessions"].now = fake
    yield Api(a.test_client()), Api(b.test_client()), fake, a
    for app in (a, b):
        app.extensions["sessions"].store.close()


def test_two_replicas_reading_at_once_after_a_deadline_play_one_timeout(
    replicas: tuple[Api, Api, FakeClock, Flask],
) -> None:
    a, b, fake, app = replicas
    sid, toks, body = create(a, "uno_classic", 2)
    assert b.get(sid).get_json()["version"] == 1  # both replicas cache version 1
    fake.t = T0 + TURN + 1
    barrier = threading.Barrier(2)
    got: list[Any] = []

    def read(api: Api) -> None:
        barrier.wait()
        got.append(api.get(sid).get_json())

    threads = [threading.Thread(target=read, args=(x,)) for x in (a, b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert [g["version"] for g in got] == [2, 2]
    assert got[0]["view"] == got[1]["view"]
    timeouts = [e for e in events_of(a, sid) if e["type"] == "timeout"]
    assert len(timeouts) == 1
    assert [e["by"] for e in log_of(app, sid)].count("clock") == timeouts[0]["moves"]
