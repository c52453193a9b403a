"""Multiplayer sessions: open seats filled by invitation or from the public lobby,
leaving, rematch, spectator access and presence, on every store."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.sessions.events import SESSION_EVENTS
from tests.sessions.conftest import Api, problem, turn_seat

SEED = 5


class Lobby(Api):
    """The session API with the lobby endpoints."""

    def join(self, sid: str, name: str, code: str | None = None, **kw: Any) -> Any:
        body = {"name": name, **kw}
        if code is not None:
            body["code"] = code
        return self.c.post(f"/v1/sessions/{sid}/join", json=body)

    def leave(self, sid: str, token: str | None) -> Any:
        return self.c.post(f"/v1/sessions/{sid}/leave", headers=self.auth(token))

    def rematch(self, sid: str, token: str | None) -> Any:
        return self.c.post(f"/v1/sessions/{sid}/rematch", headers=self.auth(token))

    def listing(self, query: str = "status=waiting") -> Any:
        return self.c.get(f"/v1/sessions?{query}")

    def stream(self, sid: str, token: str | None = None) -> Any:
        return self.c.get(
            f"/v1/sessions/{sid}/stream?timeout=0.2&max_events=1", headers=self.auth(token)
        )


@pytest.fixture
def lobby(client: FlaskClient) -> Lobby:
    return Lobby(client)


def open_game(api: Lobby, seats: int = 4, **kw: Any) -> dict[str, Any]:
    """Ann (seat 0) and ``seats - 1`` open seats."""
    players = [{"name": "Ann"}] + [{"open": True}] * (seats - 1)
    r = api.create("uno_classic", players, **kw)
    assert r.status_code == 201, r.get_data(as_text=True)
    return r.get_json()  # type: ignore[no-any-return]


def joined(r: Any) -> dict[str, Any]:
    assert r.status_code == 200, r.get_data(as_text=True)
    return r.get_json()  # type: ignore[no-any-return]


def play_to_the_end(apis: list[Lobby], sid: str, toks: list[str], limit: int = 3000) -> Any:
    """Each seat's client plays its first legal move (not UNO or catch) on its turn;
    the clients alternate between the given service instances."""
    for i in range(limit):
        api = apis[i % len(apis)]
        spectator = api.get(sid, toks[0]).get_json()
        if spectator["view"]["phase"] == "game_over":
            return spectator
        seat = turn_seat(spectator["view"])
        mine = api.get(sid, toks[seat]).get_json()
        move = next(m for m in mine["legal_moves"] if m["type"] not in ("uno", "catch"))
        r = api.move(sid, toks[seat], move, mine["version"])
        assert r.status_code == 200, r.get_data(as_text=True)
    raise AssertionError("the game did not end")


# ---------------------------------------------------------------- open seats, invitations
def test_a_session_with_open_seats_waits_and_deals_when_the_last_is_taken(lobby: Lobby) -> None:
    body = open_game(lobby, 3)
    sid, code = body["session_id"], body["invitation_code"]
    assert body["status"] == "waiting" and body["view"] is None and body["legal_moves"] == []
    assert body["seat"] == 0 and body["seats"][0]["token"]
    assert [s["open"] for s in body["seats"]] == [False, True, True]
    assert [s["token"] for s in body["seats"][1:]] == [None, None]
    assert len(code) >= 16 and body["spectator_code"] is None  # 32 random bytes, base64
    ann = body["seats"][0]["token"]
    # A waiting session answers reads and refuses moves.
    r = lobby.get(sid, ann)
    assert r.status_code == 200 and r.get_json()["status"] == "waiting"
    assert r.get_json()["view"] is None
    problem(lobby.move(sid, ann, {"type": "draw"}, 1), 409, "session_waiting")
    assert lobby.legal(sid, ann).get_json()["moves"] == []
    bob = joined(lobby.join(sid, "Bob", code))
    assert bob["seat"] == 1 and bob["status"] == "waiting" and bob["token"]
    problem(lobby.join(sid, "Eve", "not-the-code"), 403, "invalid_invitation")
    problem(lobby.join(sid, "Eve"), 403, "invalid_invitation")  # private: a code is needed
    problem(lobby.join(sid, "Eve", code, seat=1), 409, "session_full")
    cy = joined(lobby.join(sid, "Cy", code))
    assert cy["seat"] == 2 and cy["status"] == "playing"
    assert [s["name"] for s in cy["seats"]] == ["Ann", "Bob", "Cy"]
    problem(lobby.join(sid, "Eve", code), 409, "session_started")
    # Everyone sees who joined and when the game started; then the deal.
    types = [e["type"] for e in lobby.events(sid).get_json()["events"]]
    assert types[:3] == ["joined", "joined", "started"] and len(types) > 3
    # Each joined token is its seat's (and sees its own hand only).
    for seat, tok in ((0, ann), (1, bob["token"]), (2, cy["token"])):
        view = lobby.get(sid, tok).get_json()
        assert view["seat"] == seat and view["view"]["player"] == seat
        assert len(view["view"]["hand"]) == view["view"]["hand_sizes"][seat] >= 7


def test_codes_and_tokens_are_stored_hashed(lobby: Lobby, app: Flask) -> None:
    body = open_game(lobby, 2, spectators="code")
    sid = body["session_id"]
    bob = joined(lobby.join(sid, "Bob", body["invitation_code"]))
    loaded = app.extensions["sessions"].store.load(sid)
    for secret in (body["invitation_code"], body["spectator_code"], bob["token"]):
        assert secret.encode() not in loaded.meta + loaded.state


@pytest.mark.parametrize(
    "players",
    [[{"open": True, "name": "x"}], [{"open": True, "bot": True}, {"name": "a"}]],
)
def test_an_open_seat_has_no_name_and_is_no_bot(lobby: Lobby, players: Any) -> None:
    problem(lobby.create("uno_classic", players), 400, "invalid_request")


def test_a_join_race_for_the_last_seat_has_one_winner(lobby: Lobby, app: Flask) -> None:
    body = open_game(lobby, 2)
    sid, code = body["session_id"], body["invitation_code"]
    answers: list[Any] = []
    gate = threading.Barrier(4)

    def join(i: int) -> None:
        api = Lobby(app.test_client())
        gate.wait()
        answers.append(api.join(sid, f"P{i}", code))

    threads = [threading.Thread(target=join, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    won = [r for r in answers if r.status_code == 200]
    assert len(won) == 1, [r.get_json() for r in answers]
    for r in answers:
        if r.status_code != 200:
            problem(r, 409, "session_started")
    names = [s["name"] for s in lobby.get(sid).get_json()["seats"]]
    assert names[1] == won[0].get_json()["seats"][1]["name"]


# ---------------------------------------------------------------- session events
def test_the_session_events_are_members_of_the_specs_event_union() -> None:
    from tests.service.harness import spec_document

    schemas = spec_document()["components"]["schemas"]
    mapping = schemas["Event"]["discriminator"]["mapping"]
    for kind, wanted in SESSION_EVENTS.items():
        assert kind in mapping, kind
        member = schemas[mapping[kind].rsplit("/", 1)[1]]
        assert set(member["properties"]) == {"type", "seq", *wanted}, kind
        assert set(member["required"]) == {"type", *wanted}, kind
