"""Several processes on one Redis (or the cluster), each with a copy of the sessions it
served: no answer is decided on a copy not known to be current (issue 44).

Two apps here are two service replicas (two processes' caches) on one store. The
reproductions answer what one process would answer: a join dealt on the other replica
does not make the first move 409 or 401; a quiet commit made on the other replica (a
seat told of the deal) does not make a move or a rematch claim 412; and after a
failover that lost a version a process had cached, its copy is not taken for the new
state that carries the same number (``test_stale_failover``)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from functools import partial
from typing import Any, NamedTuple, cast

import orjson
import pytest
from flask import Flask

import engine
from tests.redis_procs import LocalSentinel, RedisServer
from tests.sessions.api.test_lobby import Lobby, open_game, play_to_the_end
from tests.sessions.conftest import (
    Api,
    SpreadClient,
    first_move,
    make_app,
    mover,
    turn_seat,
)
from tests.sessions.stores.test_durability import Game, answered, durable_app, until_served

pytestmark = [pytest.mark.redis]


@pytest.fixture
def pq(redis_url: str) -> Iterator[tuple[Lobby, Lobby]]:
    """Replicas P and Q (an app each, a process cache each) on one store and prefix."""
    config = {
        "REDIS_URL": redis_url,
        "SESSION_KEY_PREFIX": f"s{uuid.uuid4().hex[:6]}:",
        "SESSION_START_GRACE_SECONDS": 60,
    }
    p, q = make_app(dict(config)), make_app(dict(config))
    yield Lobby(p.test_client()), Lobby(q.test_client())
    for app in (p, q):
        app.extensions["sessions"].store.close()


def dealt_across(p: Lobby, q: Lobby, **kw: Any) -> tuple[str, list[str]]:
    """Ann creates on P with two open seats, Bob joins on P, Cy's join on Q deals: the
    session id and the three tokens (P's copy last saw the session waiting)."""
    body = open_game(p, 3, **kw)
    sid, code = body["session_id"], body["invitation_code"]
    tokens = [body["seats"][0]["token"]]
    for api, name in ((p, "Bob"), (q, "Cy")):
        r = api.join(sid, name, code)
        assert r.status_code == 200, r.get_data(as_text=True)
        tokens.append(r.get_json()["token"])
    return sid, tokens


def test_a_join_dealt_on_another_replica_does_not_decide_the_first_move(
    pq: tuple[Lobby, Lobby],
) -> None:
    """Reproduction 1: the seat to move reads on Q and sends its first listed move to P,
    whose copy still shows the session waiting (and without the joined seat's token)."""
    p, q = pq
    for _ in range(4):
        sid, tokens = dealt_across(p, q)
        seat = turn_seat(q.get(sid).get_json()["view"])
        body = q.get(sid, tokens[seat]).get_json()
        r = p.move(sid, tokens[seat], first_move(body), body["version"])
        assert r.status_code == 200, r.get_data(as_text=True)
        assert r.get_json()["version"] == body["version"] + 1


def test_a_seat_that_left_on_another_replica_is_told_so_on_every_replica(
    pq: tuple[Lobby, Lobby],
) -> None:
    """Bob joins on P (P's copy seats him), leaves on Q, and sends a move to P with the
    ETag of the session he was shown when it was made: 401 ``seat_left``, what one
    process answers, on either replica, not 412 (was 412 on P: its copy still seated
    Bob and the read that found the newer version judged only the version)."""
    p, q = pq
    body = open_game(p, 2, options={"target": 30})
    sid = body["session_id"]
    r = p.join(sid, "Bob", body["invitation_code"])
    assert r.status_code == 200, r.get_data(as_text=True)
    bob = r.get_json()["token"]
    assert q.leave(sid, bob).status_code == 200
    for api in (p, q):
        r = api.move(sid, bob, {"type": "draw"}, f'"{body["etag"]}"')
        assert r.status_code == 401, r.get_data(as_text=True)
        assert r.get_json()["code"] == "seat_left"


def if_match(body: dict[str, Any], form: str) -> str:
    """The If-Match a client builds from ``body``: its ``etag`` (the version and the
    game's commit id), or the bare number clients sent before commit ids."""
    return f'"{body["etag"]}"' if form == "etag" else f'"{body["version"]}"'


@pytest.mark.parametrize("form", ["etag", "bare"])
def test_a_quiet_commit_on_another_replica_leaves_the_version_good(
    pq: tuple[Lobby, Lobby], form: str
) -> None:
    """Reproduction 2: a clocked three-person game; the mover reads on P, another seat's
    first read goes to Q (it is told of the deal: a quiet commit), the mover's move to
    P answers the version it read, as docs/sessions.md promises: by its ETag, which
    names the game's commit (a quiet commit keeps it), or by its bare number."""
    p, q = pq
    sid, tokens = dealt_across(p, q, clock={"turn_seconds": 30})
    seat = turn_seat(p.get(sid).get_json()["view"])
    body = p.get(sid, tokens[seat]).get_json()
    other = next(s for s in range(3) if s != seat and s != 2)  # seat 2 was told by its join
    told = q.get(sid, tokens[other]).get_json()
    assert told["version"] == body["version"] + 1  # the quiet commit
    game = body["etag"].partition(".")[2]
    assert game and told["etag"] == f"{told['version']}.{game}"  # the game's commit, kept
    r = p.move(sid, tokens[seat], first_move(body), if_match(body, form))
    assert r.status_code == 200, r.get_data(as_text=True)
    moved = r.get_json()
    assert moved["version"] == told["version"] + 1
    assert moved["etag"].partition(".")[2] not in ("", game)  # a move is a new game commit
    for stale in (body, told):  # older than the move: 412 on either replica
        for api in (p, q):
            r = api.move(sid, tokens[seat], first_move(body), if_match(stale, form))
            assert r.status_code == 412 and r.get_json()["current_etag"] == moved["etag"]


# ---------------------------------------------------------------- a failover
def cut_off_all(primary: RedisServer, replicas: list[RedisServer], timeout: float = 10) -> None:
    """Every replica stopped (SIGSTOP), then its link closed by the primary (``CLIENT
    KILL TYPE replica``): a stopped replica cannot connect again, so nothing the
    primary writes from now on reaches any replica."""
    for replica in replicas:
        replica.pause()
    main = primary.client()
    deadline = time.monotonic() + timeout
    try:
        while cast(dict[str, Any], main.info("replication"))["connected_slaves"]:
            if time.monotonic() > deadline:
                raise RuntimeError("the replicas could not be cut off from their primary")
            main.execute_command("CLIENT KILL TYPE replica")
            time.sleep(0.02)
    finally:
        main.close()


def candidates(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The moves a seat's answer lists that play the game on (no UNO call or catch)."""
    return [m for m in body["legal_moves"] if m["type"] not in ("uno", "catch")]


def shown(resp: Any) -> dict[str, Any]:
    """A session's answer, without presence (``connected``: what this process knows;
    ``last_seen``: a refused request is seen too)."""
    body: dict[str, Any] = resp.get_json()
    for seat in body["seats"]:
        seat.pop("connected", None)
        seat.pop("last_seen", None)
    return body


def expected_answer(app: Flask, sid: str, move: dict[str, Any], version: int) -> int:
    """What one process answers ``move`` sent with ``If-Match: version``, judged on the
    session as stored now (no copy of any process): 200, 412 or 422."""
    loaded = app.extensions["sessions"].store.load(sid)
    assert loaded is not None
    if loaded.version != version:
        return 412
    try:
        engine.apply(engine.from_dict(orjson.loads(loaded.state)), move)
    except engine.EngineError:
        return 422
    return 200


@pytest.mark.slow
@pytest.mark.parametrize("min_replicas", [1, 0])
def test_after_a_failover_a_stale_copy_undoes_no_move(
    watched: tuple[RedisServer, list[RedisServer], LocalSentinel], min_replicas: int
) -> None:
    """Reproduction 3: instances A and B through Sentinel. The replicas are cut off; a
    move on A (503 with ``REDIS_MIN_REPLICAS=1``, 200 with 0) and A's next read make A
    cache a version only the old primary holds. The primary dies, a replica (a
    version behind) is promoted and the other follows it, and B's move M2 makes that version number again with
    another state. A's move sent with the ETag it read is 412 (the ETag names the lost
    commit); sent with the bare number it read, it is judged on B's state, as one
    process would judge it. M2 is not undone and every record replays."""
    primary, replicas, sentinel = watched
    a_app, b_app = (durable_app(sentinel.url, min_replicas, "f:") for _ in range(2))
    a, b = Api(a_app.test_client()), Api(b_app.test_client())
    game = Game(a)
    answered(game.move(a), 200)
    while len(candidates(mover(a, game.sid, game.tokens)[1])) < 2:  # M2 must differ
        answered(game.move(a), 200)
    cut_off_all(primary, replicas)
    answered(game.move(a, "lost"), 503 if min_replicas else 200)
    seat_y, body_y = mover(a, game.sid, game.tokens)  # A's copy: the version to be lost
    lost_version = body_y["version"]
    primary.crash()
    for replica in replicas:
        replica.resume()
    deadline = time.monotonic() + 30
    while sentinel.primary_port() == primary.port and time.monotonic() < deadline:
        time.sleep(0.1)
    assert sentinel.primary_port() in {r.port for r in replicas}
    lost = game.acked.pop() if not min_replicas else game.refused[0][1]  # 0: allowed loss
    until_served(partial(b.get, game.sid), 30)
    # M2: another move than the lost one, so the lost version's number, another state.
    seat, body = mover(b, game.sid, game.tokens)
    m2 = next(m for m in candidates(body) if m != lost)
    answered(b.move(game.sid, game.tokens[seat], m2, body["version"]), 200)
    game.acked.append(m2)
    assert b.get(game.sid).get_json()["version"] == lost_version
    move = first_move(body_y)
    assert body_y["etag"] != b.get(game.sid).get_json()["etag"]  # one number, two states
    for api in (a, b):
        r = until_served(partial(api.move, game.sid, game.tokens[seat_y], move,
                                 f'"{body_y["etag"]}"'), 30)  # fmt: skip
        assert r.status_code == 412, r.get_data(as_text=True)
        assert r.get_json()["current_etag"] == b.get(game.sid).get_json()["etag"]
    want = expected_answer(b_app, game.sid, move, lost_version)
    r = until_served(partial(a.move, game.sid, game.tokens[seat_y], move, lost_version), 30)
    assert r.status_code == want, r.get_data(as_text=True)
    if want == 200:
        game.acked.append(move)
    # Both instances show one state under one version, and the record replays it.
    # (Presence, "connected", is each process's own knowledge: a failover lost a read.)
    assert shown(a.get(game.sid)) == shown(b.get(game.sid))
    assert game.logged(a_app) == game.logged(b_app) == game.acked
    for app in (a_app, b_app):
        app.extensions["sessions"].store.close()


class LostMove(NamedTuple):
    """A move P answered on a two-person classic game that a failover will lose: the
    store, the session, its tokens, the seat that moved and the answer it moved from
    (with two moves or more, so M2 can differ), the move, and the session's keys as a
    replica held them before it (``fail_over`` puts them back)."""

    store: Any
    sid: str
    toks: list[str]
    seat: int
    before: dict[str, Any]
    move: dict[str, Any]
    replica: dict[str, Any]


def a_move_to_lose(p: Lobby) -> LostMove:
    body = p.create("uno_classic", [{"name": "Ann"}, {"name": "Bob"}]).get_json()
    sid, toks = body["session_id"], [s["token"] for s in body["seats"]]
    seat, before = mover(p, sid, toks)
    while len(candidates(before)) < 2:
        assert p.move(sid, toks[seat], first_move(before), f'"{before["etag"]}"').status_code == 200
        seat, before = mover(p, sid, toks)
    store = cast(Flask, p.c.application).extensions["sessions"].store
    replica = {key: store.redis.dump(key) for key in store._keys(sid)}
    lost = first_move(before)
    assert p.move(sid, toks[seat], lost, f'"{before["etag"]}"').status_code == 200
    return LostMove(store, sid, toks, seat, before, lost, replica)


def fail_over(store: Any, replica: dict[str, Any]) -> None:
    """The failover: the session's keys put back as the promoted replica had them."""
    for key, dumped in replica.items():
        store.redis.delete(key)
        if dumped is not None:
            store.redis.restore(key, 0, dumped)


def test_the_etag_of_a_state_a_failover_lost_is_refused_on_every_replica(
    pq: tuple[Lobby, Lobby],
) -> None:
    """Reproduction 3 without Sentinel: the session's keys are put back as they were
    before a move (what a promoted replica holds when the primary died before the move
    reached it), after P had answered that move and cached it. Q's move M2 makes that
    version number again with another state. The ETag P's client read (the lost
    state's) is 412 ``version_mismatch`` on P (whose copy is that state) and on Q,
    naming the stored state's ETag, and nothing is undone; the bare number it read is
    judged, as one process would judge it, on the state now stored."""
    p, q = pq
    store, sid, toks, seat, before, lost, replica = a_move_to_lose(p)
    seat_y, body_y = mover(p, sid, toks)  # P's copy and its client's: the lost state
    fail_over(store, replica)
    again = q.get(sid, toks[seat]).get_json()
    assert again["etag"] == before["etag"]
    m2 = next(m for m in candidates(again) if m != lost)
    r = q.move(sid, toks[seat], m2, f'"{again["etag"]}"')
    assert r.status_code == 200, r.get_data(as_text=True)
    now = r.get_json()
    assert now["version"] == body_y["version"] and now["etag"] != body_y["etag"]
    stored = shown(q.get(sid))
    move = first_move(body_y)
    for api in (p, q):
        r = api.move(sid, toks[seat_y], move, f'"{body_y["etag"]}"')
        assert r.status_code == 412, r.get_data(as_text=True)
        problem = r.get_json()
        assert problem["code"] == "version_mismatch"
        assert problem["current_etag"] == now["etag"] and r.headers["ETag"] == f'"{now["etag"]}"'
        assert shown(api.get(sid)) == stored  # M2 is not undone
    want = expected_answer(cast(Flask, p.c.application), sid, move, body_y["version"])
    r = p.move(sid, toks[seat_y], move, body_y["version"])  # the bare number
    assert r.status_code == want, r.get_data(as_text=True)
    after = shown(q.get(sid))
    assert after["version"] == now["version"] + 1 if want == 200 else after == stored


def test_a_record_a_replica_built_before_a_failover_is_not_joined_to_the_new_moves(
    pq: tuple[Lobby, Lobby],
) -> None:
    """P reads a seat's record after a move a failover then loses; Q plays two other
    moves on the store as the replica had it. P's next read of that record has the moves
    stored now, not the lost one followed by the stored pieces of the newer moves (its
    builder's last move is checked against the stored piece of that move)."""
    p, q = pq
    store, sid, toks, seat, before, lost, replica = a_move_to_lose(p)
    record = partial(p.c.get, f"/v1/sessions/{sid}/record", headers=p.auth(toks[0]))
    assert record().get_json()["moves"][-1]["move"] == lost  # P's builder holds it
    fail_over(store, replica)
    m2 = next(m for m in candidates(before) if m != lost)
    assert q.move(sid, toks[seat], m2, f'"{before["etag"]}"').status_code == 200
    seat, now = mover(q, sid, toks)
    assert q.move(sid, toks[seat], first_move(now), f'"{now["etag"]}"').status_code == 200
    logged = [orjson.loads(raw)["move"] for raw in store.moves(sid)]
    got = [m["move"] for m in record().get_json()["moves"]]
    assert got == logged
    fresh = q.c.get(f"/v1/sessions/{sid}/record", headers=q.auth(toks[0]))
    assert record().get_data() == fresh.get_data()


@pytest.mark.slow  # a game played to its end first
def test_a_rematch_claim_on_another_replica_leaves_the_version_good(
    pq: tuple[Lobby, Lobby],
) -> None:
    """Reproduction 2 for rematch claims: the next game of a clocked game holds for the
    seats until each claims it; the mover reads the next game on P, the last seat's
    claim goes to Q (a quiet commit), the mover's move to P answers the version read."""
    p, q = pq
    r = p.create(
        "uno_classic", [{"name": n} for n in ("Ann", "Bob", "Cy")],
        options={"target": 30}, clock={"turn_seconds": 3600},
    )  # fmt: skip
    body = r.get_json()
    sid, toks = body["session_id"], [s["token"] for s in body["seats"]]
    play_to_the_end([p], sid, toks)
    first = p.rematch(sid, toks[0]).get_json()
    nxt, new = first["session_id"], {0: first["token"]}
    seat = turn_seat(first["view"])
    last = next(s for s in (1, 2) if s != seat)
    for s in (1, 2):
        if s != last:
            new[s] = p.rematch(sid, toks[s]).get_json()["token"]
    body = p.get(nxt, new[seat]).get_json()
    claimed = q.rematch(sid, toks[last]).get_json()
    assert claimed["version"] == body["version"] + 1  # the quiet commit
    assert claimed["etag"].partition(".")[2] == body["etag"].partition(".")[2]
    r = p.move(nxt, new[seat], first_move(body), f'"{body["etag"]}"')
    assert r.status_code == 200, r.get_data(as_text=True)
    assert r.get_json()["version"] == claimed["version"] + 1


def test_the_spread_client_sends_its_requests_to_each_replica_in_turn(redis_url: str) -> None:
    """``SESSION_REPLICAS=2`` runs the session suites through ``SpreadClient``."""
    config = {"REDIS_URL": redis_url, "SESSION_KEY_PREFIX": f"x{uuid.uuid4().hex[:6]}:"}
    apps = [make_app(dict(config)) for _ in range(2)]
    served: list[int] = []
    for i, app in enumerate(apps):
        app.before_request(partial(served.append, i))
    spread = SpreadClient.over(apps[0], apps[1:])
    try:
        for _ in range(4):
            assert spread.get("/healthz").status_code == 200
        assert served == [1, 0, 1, 0]
    finally:
        for app in apps:
            app.extensions["sessions"].store.close()
