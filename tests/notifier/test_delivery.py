"""Webhooks end to end, on one Redis and on the three-master cluster: the service writes
the notifications with its commits, workers (processes of their own) deliver them to a
receiver (a process of its own), signed and verifiable with ``standardwebhooks``."""

from __future__ import annotations

import collections
from datetime import datetime
from typing import Any

import pytest

from tests.notifier.conftest import Deployment, asserted, wait_until
from tests.sessions.conftest import Api

pytestmark = [pytest.mark.redis, pytest.mark.slow]


def started(api: Api, **extra: Any) -> tuple[str, list[str]]:
    """A notifying two-seat session (target 1: one round), both seats taken."""
    r = api.create(
        "uno_classic", [{"name": "Ann", "identity": asserted("app-user-0")}, {"open": True}],
        notify=True, options={"target": 1}, **extra,
    )  # fmt: skip
    assert r.status_code == 201, r.get_data(as_text=True)
    body = r.get_json()
    sid, code = body["session_id"], body["invitation_code"]
    joined = api.c.post(
        f"/v1/sessions/{sid}/join",
        json={"name": "Bo", "code": code, "identity": asserted("app-user-1")},
    )
    assert joined.status_code == 200, joined.get_data(as_text=True)
    return sid, [body["seats"][0]["token"], joined.get_json()["token"]]


def types(found: list[dict[str, Any]]) -> list[str]:
    return [w["type"] for w in found]


def test_every_event_type_arrives_once_signed_in_order(deployment: Deployment) -> None:
    deployment.env["WEBHOOK_WARNING_SECONDS"] = "1"
    api = deployment.api()
    deployment.worker()
    sid, tokens = started(api, clock={"turn_seconds": 2, "max_timeouts": 1})
    receiver = deployment.receiver

    def seen(kind: str, n: int = 1) -> bool:
        return types(receiver.delivered(sid)).count(kind) >= n

    # Nobody moves: the warning, then the sweeper plays the timeout (no request at all).
    wait_until(lambda: seen("turn.timed_out"), 10)
    wait_until(lambda: seen("turn.started", 2), 5)
    got = receiver.delivered(sid)
    second = [w for w in got if w["type"] == "turn.started"][1]["data"]["seat"]
    r = api.leave(sid, tokens[second])
    assert r.status_code == 200, str(
        [(w["type"], w["data"].get("seat"), w["timestamp"]) for w in receiver.delivered(sid)]
    )
    wait_until(lambda: seen("game.over"), 10)
    got = receiver.delivered(sid)
    first = got[2]["data"]["seat"]
    # The second turn's warning comes when the leave came more than 1 s into the turn.
    if types(got)[7] == "turn.clock_warning":
        del got[7]
    assert types(got) == [
        "seat.joined", "game.started", "turn.started", "turn.clock_warning", "turn.timed_out",
        "seat.bot_took_over", "turn.started", "seat.bot_took_over", "game.over",
    ], types(got)  # fmt: skip
    # Once per cause: each webhook-id once among the 2xx.
    assert len({w["id"] for w in got}) == len(got)
    ext = {0: "app-user-0", 1: "app-user-1"}
    assert got[0]["data"] | {"version": 0} == {
        "session_id": sid, "version": 0, "variant": "uno_classic", "seat": 1, "name": "Bo",
        "external_id": "app-user-1",
    }  # fmt: skip
    assert [s["external_id"] for s in got[1]["data"]["seats"]] == ["app-user-0", "app-user-1"]
    assert got[2]["data"]["external_id"] == ext[first] and got[2]["data"]["deadline"]
    assert (
        got[3]["data"]["seat"] == first and got[3]["data"]["deadline"] == got[2]["data"]["deadline"]
    )
    assert got[4]["data"]["seat"] == first and got[4]["data"]["forced_moves"] >= 1
    # Played and told within the sweeper's interval (0.1 s here) of the deadline, with no
    # request: the receiver had it within a second.
    deadline = datetime.fromisoformat(got[4]["data"]["deadline"].replace("Z", "+00:00"))
    told = next(r["at"] for r in receiver.requests() if r["headers"]["webhook-id"] == got[4]["id"])
    assert 0 < told - deadline.timestamp() < 1.0
    assert got[5]["data"] | {"version": 0} == {
        "session_id": sid, "version": 0, "variant": "uno_classic", "seat": first,
        "external_id": ext[first], "reason": "timeouts",
    }  # fmt: skip
    assert got[6]["data"]["seat"] == second
    assert got[7]["data"]["reason"] == "left" and got[7]["data"]["seat"] == second
    over = got[8]["data"]
    assert api.get(sid).get_json()["status"] == "over"
    assert len(over["scores"]) == 2 and set(over["winners"]) <= {0, 1}
    # Versions grow along the session's commits.
    versions = [w["data"]["version"] for w in got]
    assert versions == sorted(versions)
    # No card in any payload: nothing but the declared fields.
    for w in got:
        assert "hand" not in str(w) and "card" not in str(w)


def test_two_workers_deliver_each_once_and_play_each_timeout_once(
    deployment: Deployment,
) -> None:
    api = deployment.api()
    for _ in range(2):
        deployment.worker()
    sids = [started(api, clock={"turn_seconds": 1})[0] for _ in range(4)]
    # Two timeouts per session at least, played by whichever sweeper comes first.
    receiver = deployment.receiver
    wait_until(
        lambda: all(types(receiver.delivered(sid)).count("turn.timed_out") >= 2 for sid in sids),
        15,
    )
    for sid in sids:
        got = receiver.delivered(sid)
        counts = collections.Counter(w["id"] for w in got)
        assert max(counts.values()) == 1, counts
        # Each timeout played once: the log's clock moves and the webhooks agree.
        log = [m for m in api.c.get(f"/v1/sessions/{sid}/events").get_json()["events"]
               if m["type"] == "timeout"]  # fmt: skip
        timed_out = [w for w in got if w["type"] == "turn.timed_out"]
        assert [w["data"]["deadline"] for w in timed_out] == [
            e["deadline"] for e in log[: len(timed_out)]
        ]
