"""No private event reaches a stream after its seat is gone (issue 37, case 4).

A seat opens its event stream, then loses the seat: it leaves (a bot plays it on), or
its clock runs out and a bot takes it. The bot then draws cards for that seat. Before
the fix the old stream, still redacted for that seat, showed the bot's drawn cards for
up to ``SESSION_STREAM_SECONDS``; now its last event is the one that handed the seat
on, then ``event: stream_end`` with the reason. A rematch claimed twice by one seat
gives the same token (nothing rotates under an open stream); a token that stops
holding its seat without any event (the store changed under it) is caught at the next
heartbeat.

Run against the code before the fix (the parent of the fixing commit), the leave and
timeout tests fail: the stream shows the bot's drawn cards."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import orjson
import pytest
from flask import Flask

from tests.hardening.conftest import created
from tests.sessions.conftest import Api, problem, turn_seat

#: Seconds a test stream lasts at most, and its heartbeat (so a stream that should have
#: ended is seen to go on quickly).
STREAM_SECONDS = 6
HEARTBEAT = 0.2
T0 = 1_800_000_000.0


class Stream:
    """A seat's stream read in a thread: every frame, as ``{id?, event, data}``."""

    def __init__(self, app: Flask, sid: str, token: str) -> None:
        self.frames: list[dict[str, Any]] = []
        self.open = threading.Event()
        self.done = threading.Event()
        client = app.test_client()
        url = f"/v1/sessions/{sid}/stream?timeout={STREAM_SECONDS}"
        headers = {"Authorization": f"Bearer {token}"}
        self.thread = threading.Thread(target=self._read, args=(client, url, headers))
        self.thread.start()
        assert self.open.wait(10), "the stream did not open"

    def _read(self, client: Any, url: str, headers: dict[str, str]) -> None:
        resp = client.get(url, headers=headers, buffered=False)
        assert resp.status_code == 200, resp.get_data(as_text=True)
        self.open.set()
        text = ""
        try:
            for chunk in resp.response:
                text += chunk.decode() if isinstance(chunk, bytes) else chunk
                *blocks, text = text.split("\n\n")
                self.frames += [f for f in map(frame, blocks) if f]
                if self.done.is_set():
                    break
        finally:
            resp.close()
            self.done.set()

    def close(self, wait: float = 2.0) -> list[dict[str, Any]]:
        """Give the stream ``wait`` seconds more, then stop reading: every frame."""
        self.done.wait(wait)
        self.done.set()
        self.thread.join(STREAM_SECONDS + 5)
        return self.frames


def frame(block: str) -> dict[str, Any] | None:
    rec: dict[str, Any] = {}
    for line in block.splitlines():
        if not line or line.startswith(":"):
            continue
        key, _, value = line.partition(": ")
        rec[key] = orjson.loads(value) if key == "data" else value
    return rec if "data" in rec else None


def spectator_events(api: Api, sid: str) -> dict[int, dict[str, Any]]:
    return {e["seq"]: e for e in api.all_events(sid)}


def private_after(
    frames: list[dict[str, Any]], public: dict[int, dict[str, Any]], after: int
) -> list[dict[str, Any]]:
    """The events numbered above ``after`` that show more than a spectator sees."""
    return [
        f["data"]
        for f in frames
        if "id" in f and int(f["id"]) > after and f["data"] != public[int(f["id"])]
    ]


def play_until(api: Api, sid: str, token: str, seat: int, done: Callable[[], bool]) -> None:
    """``seat`` plays (its first legal move that is not UNO or a catch, drawing when it
    can) until ``done()``."""
    for _ in range(300):
        if done():
            return
        body = api.get(sid, token).get_json()
        if body["status"] == "over":
            return
        if turn_seat(body["view"]) != seat:
            continue
        own = [m for m in body["legal_moves"] if m["type"] not in ("uno", "catch")]
        move = next((m for m in own if m["type"] == "draw"), own[0])
        r = api.move(sid, token, move, body["version"])
        assert r.status_code in (200, 412), r.get_data(as_text=True)
    raise AssertionError("the condition did not come within 300 turns")


def bot_drew_for(api: Api, sid: str, seat: int, after: int) -> Callable[[], bool]:
    def drew() -> bool:
        return any(
            e["type"] == "drew" and e["player"] == seat and e["seq"] > after
            for e in api.all_events(sid)
        )

    return drew


@pytest.fixture
def app(make: Callable[..., Flask]) -> Flask:
    return make(SESSION_HEARTBEAT_SECONDS=str(HEARTBEAT))


def test_a_seat_that_left_gets_no_private_event(app: Flask) -> None:
    api = Api(app.test_client())
    body = created(api.create("uno_classic", [{"name": "Ann"}, {"name": "Bob"}], seed=3))
    sid, (ann, bob) = body["session_id"], [s["token"] for s in body["seats"]]
    stream = Stream(app, sid, ann)
    left = api.leave(sid, ann)
    assert left.status_code == 200, left.get_data(as_text=True)
    left_at = next(e["seq"] for e in api.all_events(sid) if e["type"] == "left")
    play_until(api, sid, bob, 1, bot_drew_for(api, sid, 0, left_at))
    frames = stream.close()
    leaked = private_after(frames, spectator_events(api, sid), left_at)
    assert not leaked, f"seat 0's stream got private events after it left: {leaked[:2]}"
    assert frames[-1]["event"] == "stream_end", frames[-3:]
    assert frames[-1]["data"] == {"type": "stream_end", "reason": "seat_left"}
    assert int(frames[-2]["id"]) == left_at and "id" not in frames[-1]
    # the stream's end and the token's answer from now on say the same
    problem(api.get(sid, ann), 401, frames[-1]["data"]["reason"])


def test_a_seat_a_bot_took_after_timeouts_gets_no_private_event(app: Flask) -> None:
    now = [T0]
    app.extensions["sessions"].now = lambda: now[0]
    api = Api(app.test_client())
    clock = {"turn_seconds": 10, "max_timeouts": 1}
    players = [{"name": "Ann"}, {"name": "Bob"}]
    body = created(api.create("uno_classic", players, seed=3, clock=clock))
    sid, toks = body["session_id"], [s["token"] for s in body["seats"]]
    seat = turn_seat(body["view"])  # the seat whose time runs out first
    for token in toks:  # each person told of the deal: the clock runs (no start grace)
        api.get(sid, token)
    stream = Stream(app, sid, toks[seat])
    now[0] += 11
    api.get(sid)  # settles: the timeout, the hand-over, the bot's replies
    took = [e for e in api.all_events(sid) if e["type"] == "bot_took_seat"]
    assert [e["player"] for e in took] == [seat]
    other = 1 - seat

    def moved_on() -> bool:
        now[0] += 1  # the other seat moves in time
        return bot_drew_for(api, sid, seat, took[0]["seq"])()

    play_until(api, sid, toks[other], other, moved_on)
    frames = stream.close()
    leaked = private_after(frames, spectator_events(api, sid), took[0]["seq"])
    assert not leaked, f"the timed-out seat's stream got private events: {leaked[:2]}"
    assert frames[-1]["data"] == {"type": "stream_end", "reason": "seat_taken_by_bot"}
    assert int(frames[-2]["id"]) == took[0]["seq"]
    lost = problem(api.get(sid, toks[seat]), 401, frames[-1]["data"]["reason"])
    assert lost["reason"] == "timeouts" and lost["replaced_by"] == "bot"


def test_a_rematch_claimed_twice_keeps_the_token(app: Flask) -> None:
    """The second claim of a seat answers the same token and changes nothing: no
    version goes up (the others' If-Match still holds), nothing rotates under a stream."""
    api = Api(app.test_client())
    players = [{"name": "Ann"}, {"bot": True}]
    body = created(api.create("uno_classic", players, seed=3, options={"target": 30}))
    sid, ann = body["session_id"], body["seats"][0]["token"]
    from tests.sessions.api.test_move_log import play_out

    play_out(api, sid, ann, 0)
    rematch = f"/v1/sessions/{sid}/rematch"
    first = api.c.post(rematch, headers=api.auth(ann)).get_json()
    again = api.c.post(rematch, headers=api.auth(ann)).get_json()
    assert again["token"] == first["token"] and again["version"] == first["version"]
    assert api.get(first["session_id"], first["token"]).get_json()["seat"] == 0


def test_a_token_that_stops_holding_its_seat_ends_the_stream_at_the_heartbeat(
    app: Flask,
) -> None:
    """No event says so (the seat's token hash replaced in the store, as a future change
    might): the next heartbeat's check ends the stream before any further event."""
    from dataclasses import replace

    from service.sessions.repo import Change

    api = Api(app.test_client())
    body = created(api.create("uno_classic", [{"name": "Ann"}, {"name": "Bob"}], seed=3))
    sid, (ann, _) = body["session_id"], [s["token"] for s in body["seats"]]
    stream = Stream(app, sid, ann)
    mgr = app.extensions["sessions"]

    def rotate(c: Any) -> Any:
        meta = c.meta.with_seat(replace(c.meta.seats[0], token_sha256="0" * 64))
        return Change(None, c.then(c.state, meta, 0))

    mgr.repo.change(sid, rotate)
    started = time.monotonic()
    frames = stream.close(wait=3 * HEARTBEAT + 2)
    assert frames[-1]["data"] == {"type": "stream_end", "reason": "token_replaced"}
    assert time.monotonic() - started < STREAM_SECONDS - 1
