"""What the notifier survives, on one Redis and on the cluster: a receiver that fails for
a while (500s, timeouts), a worker killed mid-delivery, a service process killed right
after a move's 200; a receiver answering 410; a notification that never gets through
(a dead letter ops can read)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from typing import Any

import orjson
import pytest

from tests.notifier.conftest import FAST, ROOT, Deployment, wait_until
from tests.notifier.test_delivery import started, types
from tests.redis_procs import free_port
from tests.sessions.conftest import first_move, mover, turn_seat

pytestmark = [pytest.mark.redis, pytest.mark.slow]


def play(api: Any, sid: str, tokens: list[str], moves: int) -> None:
    """``moves`` moves of whoever is to move (each answered 200)."""
    for _ in range(moves):
        seat, body = mover(api, sid, tokens)
        r = api.move(sid, tokens[seat], first_move(body), body["version"])
        assert r.status_code == 200, r.get_data(as_text=True)


def in_order(found: list[dict[str, Any]]) -> list[str]:
    """The webhook-ids in the order first received (a duplicate is a later retry)."""
    seen: dict[str, None] = {}
    for w in found:
        seen.setdefault(w["id"], None)
    return list(seen)


def drained(deployment: Deployment, sid: str, timeout: float = 20) -> list[dict[str, Any]]:
    """Wait until ``sid``'s outbox is empty (each entry delivered: none is a dead letter
    here); the webhooks received (a retry's duplicate once), checked: each version's ids
    numbered from 0 without a gap, versions in order."""
    store = deployment.store()
    wait_until(lambda: store.outbox(sid) == [], timeout)
    got = deployment.receiver.delivered(sid)
    named = [i.split(".") for i in in_order(got)]  # <sid>.<version>.<commit>.<n>
    ids = [(int(parts[1]), int(parts[-1])) for parts in named]
    assert ids == sorted(ids), ids
    for (v, n), (pv, pn) in zip(ids[1:], ids, strict=False):
        assert n == (pn + 1 if v == pv else 0), ids
    once: dict[str, dict[str, Any]] = {}
    for w in got:
        assert once.setdefault(w["id"], w) == w  # a duplicate is the same webhook
    return list(once.values())


def test_a_failing_receiver_that_recovers_gets_everything_in_order(
    deployment: Deployment,
) -> None:
    receiver = deployment.receiver
    api = deployment.api()
    deployment.worker()
    receiver.answer(status=500)
    sid, tokens = started(api)
    play(api, sid, tokens, 3)
    wait_until(lambda: len(receiver.requests()) >= 3, 10)
    receiver.answer(sleep=1.5)  # past the worker's 1 s timeout
    wait_until(lambda: len(receiver.requests()) >= 4, 10)
    began = time.monotonic()
    play(api, sid, tokens, 2)  # a slow receiver never slows a move: delivery is elsewhere
    assert time.monotonic() - began < 1.5  # one wait for the receiver would be 1.5 s
    receiver.answer()
    got = drained(deployment, sid)  # everything, in order through the retries
    assert types(got)[:3] == ["seat.joined", "game.started", "turn.started"]
    assert {r["status"] for r in receiver.requests()} >= {500, 200}
    # A retry carries the id of the first try.
    first_tries = [r["headers"]["webhook-id"] for r in receiver.requests() if r["status"] == 500]
    assert set(first_tries) <= set(in_order(got))


def test_a_worker_killed_mid_delivery_loses_nothing(deployment: Deployment) -> None:
    receiver = deployment.receiver
    api = deployment.api()
    first = deployment.worker()
    receiver.answer(sleep=0.8)  # each delivery takes a while: kill during one
    sid, tokens = started(api)
    play(api, sid, tokens, 2)
    wait_until(lambda: receiver.requests(), 10)
    first.kill()
    receiver.answer()
    deployment.worker()  # takes over the killed worker's delivery (XAUTOCLAIM)
    got = drained(deployment, sid)
    assert types(got)[:3] == ["seat.joined", "game.started", "turn.started"]


def test_a_service_killed_right_after_a_move_loses_nothing(deployment: Deployment) -> None:
    receiver = deployment.receiver
    deployment.worker()
    port = free_port()
    env = {**os.environ, **deployment.env}
    service = subprocess.Popen(
        [sys.executable, "-m", "service", "--dev", "--port", str(port)], cwd=ROOT, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}/v1/sessions"

    def call(method: str, url: str, body: Any = None, **headers: str) -> Any:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(url, data, method=method, headers=headers)
        req.add_header("content-type", "application/json")
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status, orjson.loads(resp.read())

    try:
        wait_until(lambda: _up(base), 20)
        _, made = call("POST", base, {"variant": "uno_classic", "players": 2, "notify": True})
        sid = made["session_id"]
        tokens = [s["token"] for s in made["seats"]]
        # Moves until one hands the turn over (so it causes a webhook), then the kill.
        for _ in range(6):
            _, seen = call("GET", f"{base}/{sid}")
            seat = turn_seat(seen["view"])
            auth = {"Authorization": f"Bearer {tokens[seat]}"}
            _, mine = call("GET", f"{base}/{sid}", **auth)
            status, moved = call(
                "POST", f"{base}/{sid}/moves", {"move": first_move(mine)},
                **auth, **{"If-Match": f'"{mine["version"]}"'},
            )  # fmt: skip
            assert status == 200
            if turn_seat(moved["view"]) != seat:
                break
        service.kill()  # right after the 200: nothing of the process is left
    finally:
        service.kill()
        service.wait(5)
    version = moved["version"]
    wait_until(lambda: any(w["data"]["version"] == version for w in receiver.delivered(sid)), 10)
    got = drained(deployment, sid)
    assert types(got)[:2] == ["game.started", "turn.started"]
    assert got[-1]["type"] == "turn.started" and got[-1]["data"]["version"] == version


def _up(base: str) -> bool:
    try:
        urllib.request.urlopen(base.replace("/v1/sessions", "/healthz"), timeout=1)
        return True
    except OSError:
        return False


def test_a_receiver_answering_410_stops_that_session_only(deployment: Deployment) -> None:
    receiver = deployment.receiver
    api = deployment.api()
    deployment.worker()
    stopped, stopped_tokens = started(api)
    kept, kept_tokens = started(api)
    receiver.answer(gone=[stopped])
    play(api, stopped, stopped_tokens, 2)
    play(api, kept, kept_tokens, 2)
    drained(deployment, kept)
    gone = [r for r in receiver.requests() if r["status"] == 410]
    assert len(gone) == 1  # the first 410 stops the session's deliveries
    play(api, stopped, stopped_tokens, 1)
    play(api, kept, kept_tokens, 1)
    drained(deployment, kept)
    time.sleep(0.5)
    assert len([r for r in receiver.requests() if r["status"] == 410]) == 1
    assert deployment.store().outbox(stopped) == []


def test_a_notification_past_the_retry_window_is_a_dead_letter(deployment: Deployment) -> None:
    receiver = deployment.receiver
    deployment.env["WEBHOOK_RETRY_SECONDS"] = "0.3"
    api = deployment.api()
    deployment.worker()
    receiver.answer(status=503)
    sid, _ = started(api)
    store = deployment.store()
    wait_until(lambda: store.outbox(sid) == [], 20)
    assert receiver.delivered(sid) == []
    tries = [r for r in receiver.requests() if r["status"] == 503]
    assert len({r["headers"]["webhook-id"] for r in tries}) == 3  # joined, started, turn
    out = subprocess.run(
        [sys.executable, "-m", "service.notifier", "--dead-letters", "10"], cwd=ROOT,
        env={**os.environ, **FAST, **deployment.env}, capture_output=True, timeout=30,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr.decode()
    letters = [json.loads(line) for line in out.stdout.decode().splitlines()]
    mine = [d for d in letters if d["sid"] == sid]
    assert [d["body"]["type"] for d in reversed(mine)] == [
        "seat.joined", "game.started", "turn.started",
    ]  # fmt: skip
    assert all("503" in d["reason"] for d in mine)
