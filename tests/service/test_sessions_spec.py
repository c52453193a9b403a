"""The /v1/sessions part of openapi.yaml against the session API (the session rules
themselves are tested in tests/sessions): one game's calls, each answer validated."""

from __future__ import annotations

from typing import Any

from tests.service.harness import ApiClient, problem, turn_seat


def auth(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def test_a_session_game_fits_the_spec(api: ApiClient) -> None:
    resp = api.post(
        "/v1/sessions",
        json={"variant": "uno_classic", "players": [{"name": "ann"}, {"bot": True}], "seed": 3},
    )
    assert resp.status_code == 201, resp.get_data(as_text=True)
    created: dict[str, Any] = resp.get_json()
    sid = created["session_id"]
    token = created["seats"][0]["token"]
    assert created["seats"][1]["token"] is None

    got = api.get(f"/v1/sessions/{sid}", headers=auth(token))
    assert got.status_code == 200 and got.get_json()["seat"] == 0
    spectator = api.get(f"/v1/sessions/{sid}")
    assert spectator.status_code == 200 and spectator.get_json()["view"]["hand"] == []

    legal = api.get(f"/v1/sessions/{sid}/legal-moves", headers=auth(token))
    assert legal.status_code == 200
    version = got.get_json()["version"]
    assert turn_seat(got.get_json()["view"]) == 0  # the bot has moved already
    move = legal.get_json()["moves"][0]
    moved = api.post(
        f"/v1/sessions/{sid}/moves",
        json={"move": move},
        headers={**auth(token), "If-Match": f'"{version}"'},
    )
    assert moved.status_code == 200, moved.get_data(as_text=True)
    stale = api.post(
        f"/v1/sessions/{sid}/moves",
        json={"move": move},
        headers={**auth(token), "If-Match": f'"{version}"'},
    )
    problem(stale, 412, "version_mismatch")
    events = api.get(f"/v1/sessions/{sid}/events?after=0", headers=auth(token))
    assert events.status_code == 200 and events.get_json()["events"]

    problem(api.get(f"/v1/sessions/{sid}", headers=auth("nope")), 401, "invalid_token")
    problem(api.get("/v1/sessions/nosuchsession1"), 404, "session_not_found")
    problem(api.request("DELETE", f"/v1/sessions/{sid}", headers=auth(token)), 409,
            "session_in_progress")  # fmt: skip
    api.post(f"/v1/sessions/{sid}/leave", headers=auth(token))  # a bot plays the seat on
    waiting = api.post(
        "/v1/sessions",
        json={"variant": "uno_classic", "players": [{"name": "ann"}, {"open": True}]},
    ).get_json()
    path, code = f"/v1/sessions/{waiting['session_id']}", waiting["invitation_code"]
    problem(api.post(f"{path}/join", json={"name": "\u202ebo", "code": code}), 400, "invalid_name")
    guest = api.post(f"{path}/join", json={"name": "bo", "code": code})
    assert guest.status_code == 200 and guest.get_json()["client_seeded"] is False
    other = guest.get_json()["token"]
    problem(api.request("DELETE", path, headers=auth(other)), 403, "not_host")


def test_bot_levels_fit_the_spec(api: ApiClient) -> None:
    seats = [{"name": "ann"}, {"bot": "hard"}, {"bot": "normal"}, {"bot": "easy"}, {"bot": True}]
    resp = api.post("/v1/sessions", json={"variant": "uno_flip", "players": seats, "seed": 4})
    assert resp.status_code == 201, resp.get_data(as_text=True)
    created: dict[str, Any] = resp.get_json()
    assert [s["bot"] for s in created["seats"]] == [False, "hard", "normal", "easy", True]
    token = created["seats"][0]["token"]
    got = api.get(f"/v1/sessions/{created['session_id']}", headers=auth(token))
    assert got.status_code == 200 and turn_seat(got.get_json()["view"]) == 0
    problem(
        api.post("/v1/sessions", json={"variant": "uno_flip", "players": [{"bot": "best"}]}),
        400,
        "invalid_request",
    )


def test_a_clocked_session_fits_the_spec(api: ApiClient, api_app: Any) -> None:
    """The clock in every answer, and the timeout and bot_took_seat events, as the spec
    describes them (each answer validated)."""
    now = [1_800_000_000.0]
    api_app.extensions["sessions"].now = lambda: now[0]
    resp = api.post(
        "/v1/sessions",
        json={
            "variant": "uno_classic",
            "players": 2,
            "seed": 3,
            "clock": {"turn_seconds": 30, "bank_seconds": 5, "max_timeouts": 1},
        },
    )
    assert resp.status_code == 201, resp.get_data(as_text=True)
    created: dict[str, Any] = resp.get_json()
    sid, clock = created["session_id"], created["clock"]
    # The clock holds until seat 1 (not told by the create) reads, 15 s at most.
    assert clock["held_for"] == [1] and clock["held_until"] == "2027-01-15T08:00:15.000Z"
    assert clock["seat"] == turn_seat(created["view"]) and clock["seconds_left"] == 35
    assert clock["running"] is False  # the turn's whole time, not counting down yet
    tokens = [s["token"] for s in created["seats"]]
    told = api.get(f"/v1/sessions/{sid}", headers=auth(tokens[1])).get_json()["clock"]
    assert told["held_for"] == [] and told["held_until"] is None and told["seconds_left"] == 35
    assert told["running"] is True and told["deadline"] == clock["deadline"]
    now[0] += 35
    waiting = api.get(f"/v1/sessions/{sid}", headers=auth(tokens[1 - clock["seat"]]))
    assert waiting.status_code == 200
    body = waiting.get_json()
    assert body["clock"]["timeouts"][clock["seat"]] == 1
    assert body["seats"][clock["seat"]]["bot"] is True
    legal = api.get(f"/v1/sessions/{sid}/legal-moves", headers=auth(tokens[body["seat"]]))
    move = next(m for m in legal.get_json()["moves"] if m["type"] == "draw")
    moved = api.post(
        f"/v1/sessions/{sid}/moves",
        json={"move": move},
        headers={**auth(tokens[body["seat"]]), "If-Match": f'"{body["version"]}"'},
    )
    assert moved.status_code == 200, moved.get_data(as_text=True)
    slow = clock["seat"]
    assert moved.get_json()["clock"]["timeouts"] == [int(s == slow) for s in (0, 1)]
    events = api.get(f"/v1/sessions/{sid}/events?after=0").get_json()["events"]
    assert {"timeout", "bot_took_seat"} <= {e["type"] for e in events}
