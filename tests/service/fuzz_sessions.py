"""Live sessions that schemathesis' per-operation phases aim at: each operation on a
session gets, by its config's ``parameters``, the id of a session where a schema-valid
request can succeed (a game in play to read, move in, leave or delete; a public one with
open seats to join; a finished one to rematch) and, for a move, the ``If-Match`` of its
version. The seat token comes from the auth hook (``test_fuzz.SeatTokens``), which sees
these sessions' tokens when they are made through it.
"""

from __future__ import annotations

from typing import Any

from werkzeug.test import Client

from tests.service.fuzz_flow import MAX_MOVES, OPTIONS, SEED, VARIANT, pick, waiting_seat


def _create(client: Client, body: dict[str, Any]) -> tuple[dict[str, Any], str]:
    answer = client.post("/v1/sessions", json=body)
    assert answer.status_code == 201, answer.get_data(as_text=True)
    return answer.get_json(), answer.headers["ETag"]


def _finished(client: Client) -> str:
    """A two-person game of one round, played to its end: its session id."""
    created, _ = _create(
        client, {"variant": VARIANT, "players": 2, "seed": SEED, "options": OPTIONS}
    )
    sid = created["session_id"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    view = created["view"]
    for _ in range(MAX_MOVES):
        auth = {"Authorization": f"Bearer {tokens[waiting_seat(view)]}"}
        listed = client.get(f"/v1/sessions/{sid}/legal-moves", headers=auth)
        answer = client.post(
            f"/v1/sessions/{sid}/moves",
            json={"move": pick(listed.get_json()["moves"])},
            headers={**auth, "If-Match": listed.headers["ETag"]},
        )
        assert answer.status_code == 200, answer.get_data(as_text=True)
        if answer.get_json()["status"] == "over":
            return sid
        view = answer.get_json()["view"]
    raise AssertionError(f"the game did not end in {MAX_MOVES} moves")


def live_sessions(client: Client) -> dict[str, dict[str, str]]:
    """operationId -> the ``parameters`` that aim it at a live session."""
    playing = {"variant": VARIANT, "players": 2, "seed": SEED}

    def in_play() -> str:
        return str(_create(client, playing)[0]["session_id"])

    read = in_play()
    moving, etag = _create(client, playing)
    lobby, _ = _create(
        client,
        {"variant": VARIANT, "players": [{"name": "Ann"}, {"open": True}, {"open": True}],
         "public": True},
    )  # fmt: skip
    aims = {
        operation_id: {"path.session_id": read}
        for operation_id in ("getSession", "listSessionLegalMoves", "getSessionEvents",
                             "getSessionRecord", "streamSessionEvents")
    }  # fmt: skip
    aims["applySessionMove"] = {"path.session_id": moving["session_id"], "header.If-Match": etag}
    aims["joinSession"] = {"path.session_id": lobby["session_id"]}
    aims["leaveSession"] = {"path.session_id": in_play()}
    aims["deleteSession"] = {"path.session_id": in_play()}
    aims["rematchSession"] = {"path.session_id": _finished(client)}
    return aims
