"""What a session's commits write for the notifier (``service.sessions.outbox``), in
process (the in-process store keeps the outbox as Redis does): one webhook per cause,
the turn's warning, the sweeper's deadline; ``external_id`` in no answer; the spec's
``webhooks`` and the code agree; turns of days and sessions that live as long."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml
from flask import Flask

from service.sessions.memory import MemoryStore
from service.sessions.outbox import COMMON, SEATS, WEBHOOK_EVENTS, parse_entry
from tests.notifier.conftest import IDENTITY_KEY, asserted
from tests.sessions.conftest import Api, make_app, problem, store_url, turn_seat

ROOT = Path(__file__).resolve().parents[2]
T0 = 1_800_000_000.0
HOOK = {"WEBHOOK_URL": "https://hooks.example.com/uno", "WEBHOOK_WARNING_SECONDS": "10",
        "IDENTITY_ASSERTION_KEY": IDENTITY_KEY}  # fmt: skip


class Clocks:
    """The manager's wall clock and the in-process store's monotonic one, moved together."""

    def __init__(self) -> None:
        self.t = T0

    def wall(self) -> float:
        return self.t

    def mono(self) -> float:
        return self.t - T0


@pytest.fixture
def clocks() -> Clocks:
    return Clocks()


def app_with(clocks: Clocks, **config: Any) -> Flask:
    """The app at ``clocks``; the clock starts at the deal unless ``config`` sets a hold
    (``SESSION_START_GRACE_SECONDS``)."""
    store = MemoryStore(3600, 10_000, clock=clocks.mono)
    config = {"SESSION_START_GRACE_SECONDS": "0", **config}
    app = make_app({"TESTING": True, "SESSION_STORE": store, **config})
    app.extensions["sessions"].now = clocks.wall
    return app


@pytest.fixture
def app(clocks: Clocks) -> Flask:
    return app_with(clocks, **HOOK)


@pytest.fixture
def api(app: Flask) -> Api:
    return Api(app.test_client())


def outbox(app: Flask, sid: str) -> list[dict[str, Any]]:
    """The session's outbox: each entry's body, with its id."""
    out = []
    for raw in app.extensions["sessions"].store.outbox(sid):
        webhook_id, body = parse_entry(raw)
        out.append({"id": webhook_id, **orjson.loads(body)})
    return out


def kinds(found: list[dict[str, Any]]) -> list[str]:
    return [w["type"] for w in found]


def create(api: Api, **extra: Any) -> tuple[str, str, str]:
    """A notifying session: seat 0 ``u-0``, seat 1 open; its id, token, invitation code."""
    r = api.create(
        "uno_classic", [{"name": "Ann", "identity": asserted("u-0")}, {"open": True}],
        notify=True, seed=5, options={"target": 1}, **extra,
    )  # fmt: skip
    assert r.status_code == 201, r.get_data(as_text=True)
    body = r.get_json()
    return body["session_id"], body["seats"][0]["token"], body["invitation_code"]


def join(api: Api, sid: str, code: str) -> str:
    r = api.c.post(
        f"/v1/sessions/{sid}/join", json={"name": "Bo", "code": code, "identity": asserted("u-1")}
    )
    assert r.status_code == 200, r.get_data(as_text=True)
    return str(r.get_json()["token"])


# ---------------------------------------------------------------- the causes
def test_the_join_that_deals_writes_joined_started_and_the_first_turn(app: Flask, api: Api) -> None:
    sid, _, code = create(api, clock={"turn_seconds": 60})
    assert outbox(app, sid) == []  # nothing happened yet that a backend needs
    join(api, sid, code)
    got = outbox(app, sid)
    assert kinds(got) == ["seat.joined", "game.started", "turn.started"]
    assert [w["id"] for w in got] == [f"{sid}.2.{i}" for i in range(3)]
    common = {"session_id": sid, "version": 2, "variant": "uno_classic"}
    assert got[0]["data"] == {**common, "seat": 1, "name": "Bo", "external_id": "u-1"}
    assert got[1]["data"] == {
        **common,
        "seats": [
            {"seat": 0, "name": "Ann", "bot": False, "external_id": "u-0"},
            {"seat": 1, "name": "Bo", "bot": False, "external_id": "u-1"},
        ],
    }
    seat = turn_seat(api.get(sid).get_json()["view"])
    deadline = api.get(sid).get_json()["clock"]["deadline"]
    assert got[2]["data"] == {
        **common,
        "seat": seat,
        "external_id": f"u-{seat}",
        "deadline": deadline,
    }
    assert got[2]["timestamp"] == "2027-01-15T08:00:00.000Z"  # T0, the commit's time
    # The turn's warning waits, due 10 s before the deadline, for this version only.
    warning = app.extensions["sessions"].store._sessions[sid].warning
    body = orjson.loads(parse_entry(warning[0])[1])
    assert body["type"] == "turn.clock_warning" and body["data"]["deadline"] == deadline
    assert warning[1:] == (int((T0 + 50) * 1000), 2)
    assert app.extensions["sessions"].store.deadline_index(sid) == int((T0 + 60) * 1000)


def test_a_move_that_hands_the_turn_over_writes_the_next_turn(app: Flask, api: Api) -> None:
    sid, ann, code = create(api)
    tokens = [ann, join(api, sid, code)]
    for _ in range(20):
        before = len(outbox(app, sid))
        spectator = api.get(sid).get_json()
        seat = turn_seat(spectator["view"])
        body = api.get(sid, tokens[seat]).get_json()
        move = next(m for m in body["legal_moves"] if m["type"] not in ("uno", "catch"))
        r = api.move(sid, tokens[seat], move, body["version"])
        assert r.status_code == 200
        after = turn_seat(r.get_json()["view"]) if r.get_json()["status"] == "playing" else None
        new = outbox(app, sid)[before:]
        if after is None:
            assert kinds(new) == ["game.over"]
            break
        if after == seat:  # the mover goes on (a draw, a skip): no new turn
            assert new == []
        else:
            assert kinds(new) == ["turn.started"]
            assert new[0]["data"]["seat"] == after and new[0]["data"]["deadline"] is None


def test_timeouts_write_the_timeout_the_hand_over_and_the_next_turn(
    app: Flask, api: Api, clocks: Clocks
) -> None:
    sid, _, code = create(api, clock={"turn_seconds": 30, "max_timeouts": 1})
    join(api, sid, code)
    seat = turn_seat(api.get(sid).get_json()["view"])
    n = len(outbox(app, sid))
    clocks.t += 31  # the first read after the deadline plays it
    assert api.get(sid).status_code == 200
    got = outbox(app, sid)[n:]
    assert kinds(got) == ["turn.timed_out", "seat.bot_took_over", "turn.started"]
    assert got[0]["data"]["seat"] == seat and got[0]["data"]["external_id"] == f"u-{seat}"
    assert got[0]["data"]["deadline"] == "2027-01-15T08:00:30.000Z"
    assert got[0]["data"]["forced_moves"] >= 1
    assert got[1]["data"]["reason"] == "timeouts" and got[1]["data"]["seat"] == seat
    assert got[2]["data"]["seat"] == 1 - seat


def test_a_leave_after_the_start_writes_the_bot_taking_the_seat(app: Flask, api: Api) -> None:
    sid, ann, code = create(api)
    join(api, sid, code)
    n = len(outbox(app, sid))
    assert api.leave(sid, ann).status_code == 200
    got = outbox(app, sid)[n:]
    assert kinds(got)[0] == "seat.bot_took_over"
    assert got[0]["data"]["reason"] == "left" and got[0]["data"]["external_id"] == "u-0"


def join_leave_pairs(clocks: Clocks, pairs: int, **config: Any) -> tuple[Flask, str]:
    """A session with two open seats whose seat 1 is joined and left ``pairs`` times
    (each join writes a ``seat.joined``, nobody delivers them)."""
    app = app_with(clocks, **config)
    api = Api(app.test_client())
    r = api.create(
        "uno_classic", [{"name": "Ann", "identity": asserted("u-0")}, {"open": True}, {"open": True}],
        notify="WEBHOOK_URL" in config, seed=5,
    )  # fmt: skip
    assert r.status_code == 201, r.get_data(as_text=True)
    sid, code = r.get_json()["session_id"], r.get_json()["invitation_code"]
    for _ in range(pairs):
        assert api.leave(sid, join(api, sid, code)).status_code == 200
    return app, sid


def stored(app: Flask, sid: str) -> int:
    loaded = app.extensions["sessions"].store.load(sid)
    assert loaded is not None
    return int(loaded.stored)


def test_the_outbox_keeps_its_head_and_the_newest_up_to_its_cap(clocks: Clocks) -> None:
    """Issue 46, case 4: 5,000 join/leave pairs with a failing receiver wrote 5,000
    entries (3.4 MB). At ``WEBHOOK_OUTBOX_MAX`` the oldest waiting entries go; the head
    (the one in delivery, its retries counted) stays; the receiver sees the gap in
    ``version``. Every entry written counts in the session's stored bytes, dropped or
    not."""
    quiet, q = join_leave_pairs(clocks, 12, IDENTITY_ASSERTION_KEY=IDENTITY_KEY)
    roomy, r = join_leave_pairs(clocks, 12, **HOOK, WEBHOOK_OUTBOX_MAX="100")
    capped, c = join_leave_pairs(clocks, 12, **HOOK, WEBHOOK_OUTBOX_MAX="5")
    everything = outbox(roomy, r)
    assert kinds(everything) == ["seat.joined"] * 12
    kept = outbox(capped, c)
    versions = [w["data"]["version"] for w in everything]
    assert [w["data"]["version"] for w in kept] == versions[:1] + versions[-4:]
    assert capped.extensions["sessions"].store._sessions[c].dropped == 7
    written = sum(map(len, roomy.extensions["sessions"].store.outbox(r)))
    assert stored(roomy, r) == stored(quiet, q) + written == stored(capped, c)
    cached = capped.extensions["sessions"].repo.cache.get(c)
    assert cached is not None and cached.stored == stored(capped, c)


def test_without_notify_a_session_writes_no_outbox(app: Flask, api: Api) -> None:
    r = api.create("uno_classic", 2, clock={"turn_seconds": 30})
    sid = r.get_json()["session_id"]
    assert outbox(app, sid) == []


def test_notify_without_a_webhook_is_422(clocks: Clocks) -> None:
    api = Api(app_with(clocks).test_client())
    problem(api.create("uno_classic", 2, notify=True), 422, "notifications_not_configured")


def test_the_sweeper_index_is_written_only_when_sweeping(clocks: Clocks) -> None:
    app = app_with(clocks, CLOCK_SWEEPER="on")
    api = Api(app.test_client())
    sid = api.create("uno_classic", 2, clock={"turn_seconds": 30}).get_json()["session_id"]
    assert app.extensions["sessions"].store.deadline_index(sid) == int((T0 + 30) * 1000)
    quiet = app_with(clocks)
    api = Api(quiet.test_client())
    sid = api.create("uno_classic", 2, clock={"turn_seconds": 30}).get_json()["session_id"]
    assert quiet.extensions["sessions"].store.deadline_index(sid) is None


def test_the_turn_and_the_sweeper_follow_the_clock_held_after_the_deal(clocks: Clocks) -> None:
    """Held for Ann (not told of the deal Bo's join made), the first turn's deadline is
    the hold's end plus the turn for the sweeper, while ``turn.started`` shows it as the
    answers do (not running: the turn from now); Ann's first read starts the clock: the
    sweeper's index has the earlier deadline, a second ``turn.started`` a later one."""
    app = app_with(clocks, CLOCK_SWEEPER="on", SESSION_START_GRACE_SECONDS="15", **HOOK)
    api = Api(app.test_client())
    store = app.extensions["sessions"].store
    sid, ann, code = create(api, clock={"turn_seconds": 60})
    join(api, sid, code)
    held = outbox(app, sid)
    assert kinds(held)[-1] == "turn.started"
    assert held[-1]["data"]["deadline"] == "2027-01-15T08:01:00.000Z"  # T0 + 60, not running
    assert store.deadline_index(sid) == int((T0 + 75) * 1000)
    clocks.t += 5
    assert api.get(sid, ann).status_code == 200  # Ann is told: the clock starts now
    again = outbox(app, sid)[len(held) :]
    assert kinds(again) == ["turn.started"]
    assert again[0]["data"]["deadline"] == "2027-01-15T08:01:05.000Z"  # T0 + 5 + 60
    assert again[0]["data"]["seat"] == held[-1]["data"]["seat"]
    assert store.deadline_index(sid) == int((T0 + 65) * 1000)


# ---------------------------------------------------------------- nothing shown
def test_external_id_is_in_no_answer(app: Flask, api: Api) -> None:
    """Not in the creator's answer, the join's, any seat's or a spectator's read, the
    events, the record, the stream, the lobby."""
    r = api.create(
        "uno_classic", [{"name": "Ann", "identity": asserted("secret-ref-0")}, {"open": True}],
        notify=True, public=True,
    )  # fmt: skip
    body = r.get_json()
    sid, ann, code = body["session_id"], body["seats"][0]["token"], body["invitation_code"]
    answers = [r.get_data(as_text=True), api.c.get("/v1/sessions").get_data(as_text=True)]
    r = api.c.post(
        f"/v1/sessions/{sid}/join",
        json={"name": "Bo", "code": code, "identity": asserted("secret-ref-1")},
    )
    bo = r.get_json()["token"]
    answers.append(r.get_data(as_text=True))
    for token in (ann, bo, None):
        auth = api.auth(token)
        for path in ("", "/events", "/record", "/stream?timeout=0.05"):
            answers.append(
                api.c.get(f"/v1/sessions/{sid}{path}", headers=auth).get_data(as_text=True)
            )
    for text in answers:
        assert "secret-ref" not in text and "external_id" not in text
    assert any("secret-ref-1" in str(w) for w in outbox(app, sid))  # the webhooks have it


def test_the_lobby_says_the_pace(clocks: Clocks) -> None:
    # Three public games of one client: the lobby lists them all at 3 a creator a page.
    api = Api(app_with(clocks, SESSION_LOBBY_PER_CLIENT="3", **HOOK).test_client())
    for clock in (None, {"turn_seconds": 30}, {"turn_seconds": 2 * 86_400}):
        clocks.t += 1  # the lobby lists the newest first
        extra = {} if clock is None else {"clock": clock}
        r = api.create("uno_classic", [{"name": "A"}, {"open": True}], public=True, **extra)
        assert r.status_code == 201
    paces = [s["pace"] for s in api.c.get("/v1/sessions").get_json()["sessions"]]
    assert paces == [
        {"kind": "correspondence", "turn_seconds": 172_800},
        {"kind": "live", "turn_seconds": 30},
        {"kind": "untimed", "turn_seconds": None},
    ]


# ---------------------------------------------------------------- correspondence play
def test_a_turn_may_last_14_days_not_more(api: Api) -> None:
    assert api.create("uno_classic", 2, clock={"turn_seconds": 14 * 86_400}).status_code == 201
    too_long = api.create("uno_classic", 2, clock={"turn_seconds": 14 * 86_400 + 1})
    problem(too_long, 400, "invalid_request")


def test_a_correspondence_game_outlives_the_old_expiry(
    app: Flask, api: Api, clocks: Clocks
) -> None:
    """A 2-day clock: the session lives past its deadline, though the store's TTL is an
    hour; the timeout is played two days on, and the next turn again has two days."""
    r = api.create("uno_classic", 2, seed=5, clock={"turn_seconds": 2 * 86_400})
    sid = r.get_json()["session_id"]
    seat = r.get_json()["clock"]["seat"]
    clocks.t += 86_400 + 1800  # a day and a half hour: long past the 30 min (and 1 h) TTL
    got = api.get(sid)
    assert got.status_code == 200 and got.get_json()["clock"]["seat"] == seat
    clocks.t += 86_400  # past the deadline: the read plays the timeout
    body = api.get(sid).get_json()
    assert body["clock"]["seat"] == 1 - seat
    assert body["clock"]["seconds_left"] == pytest.approx(2 * 86_400 - 1800)
    clocks.t += 2 * 86_400 - 1800 + 3600 + 1  # past the next deadline and the hour after it
    assert api.get(sid).status_code == 404


# ---------------------------------------------------------------- the spec agrees
def spec() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "openapi.yaml").read_text())  # type: ignore[no-any-return]


def resolve(doc: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    """``node``, its ``$ref`` followed."""
    while "$ref" in node:
        found: Any = doc
        for part in node["$ref"].removeprefix("#/").split("/"):
            found = found[part]
        node = found
    return node


def test_the_spec_declares_each_webhook_with_its_fields() -> None:
    doc = spec()
    hooks = doc["webhooks"]
    declared: dict[str, set[str]] = {}
    for op in hooks.values():
        schema = resolve(doc, op["post"]["requestBody"]["content"]["application/json"]["schema"])
        kind = resolve(doc, schema["properties"]["type"])["const"]
        data = resolve(doc, schema["properties"]["data"])
        fields = set()
        for part in data.get("allOf", [data]):
            fields |= set(resolve(doc, part)["properties"])
        declared[kind] = fields
    assert declared == {k: set(COMMON) | set(v) for k, v in WEBHOOK_EVENTS.items()}
    seat = resolve(doc, doc["components"]["schemas"]["WebhookSeat"])
    assert set(seat["properties"]) == set(SEATS)


# ---------------------------------------------------------------- both stores agree
def notice_calls(s: Any) -> list[tuple[str, Any]]:
    """One sequence of writes with notices; every answer, the outbox and the index."""
    from service.sessions.store import CommitRequest, Notices

    out: list[tuple[str, Any]] = []
    sid = "notices-1"

    def note(name: str, value: Any) -> None:
        out.append((name, value))
        out.append((name + ": outbox", s.outbox(sid)))
        out.append((name + ": deadline", s.deadline_index(sid)))

    first = Notices((b"a.1.0\n{}", b"a.1.1\n{}"), b"a.1.w\n{}", 5_000, 9_000, 1_000, 60_000)
    note("create", s.create(sid, b"meta", b"s1", [b"e1"], [b"m1"], 0, first))
    note("moves after create", s.moves(sid))
    second = Notices((b"a.2.0\n{}",), None, 0, None, 2_000, 60_000)
    req = CommitRequest(sid, 1, b"s2", [b"e2", b"e3"], moves=[b"m2", b"m3"], notices=second)
    note("commit", s.commit(req))
    note("moves", s.moves(sid))
    note("events", s.events(sid, 0, 10))
    note("a conflict writes none", s.commit(CommitRequest(sid, 1, b"sx", [], notices=first)))
    swept = Notices(deadline_ms=12_000, now_ms=3_000)  # a session that does not notify
    note("deadline only", s.commit(CommitRequest(sid, 2, b"s3", [], moves=[b"m4"], notices=swept)))
    note("moves at last", s.moves(sid))
    note("no notices at all", s.commit(CommitRequest(sid, 3, b"s4", [b"e4"], moves=[b"m5"])))
    note("moves, the end", s.moves(sid))
    # At the outbox's cap the oldest after the head go; every entry's bytes are stored.
    many = tuple(b"a.5.%d\n{}" % i for i in range(4))
    full = Notices(many, None, 0, None, 4_000, 60_000, 3)
    note("a full outbox", s.commit(CommitRequest(sid, 4, b"s5", [], notices=full)))
    note("stored", (loaded := s.load(sid)) and loaded.stored)
    return out


@pytest.mark.redis
@pytest.mark.parametrize("kind", ["redis", "cluster"])
def test_both_stores_write_the_same_notices(kind: str, request: pytest.FixtureRequest) -> None:
    from service.sessions.redis_store import RedisStore

    redis = RedisStore(store_url(kind, request), ttl=60, prefix=f"a{uuid.uuid4().hex[:6]}:")
    try:
        assert notice_calls(redis) == notice_calls(MemoryStore(60, 100))
    finally:
        redis.close()
