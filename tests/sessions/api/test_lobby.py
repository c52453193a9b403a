"""Multiplayer sessions: open seats filled by invitation or from the public lobby,
leaving, rematch, spectator access and presence, on every store."""

from __future__ import annotations

import re
import threading
import time
import uuid
from dataclasses import replace
from typing import Any

import orjson
import pytest
from flask import Flask
from flask.testing import FlaskClient

import engine
from service.sessions.events import SESSION_EVENTS, rfc3339
from tests.sessions.api.test_move_log import bots_play_it_out, stored_state
from tests.sessions.conftest import Api, make_app, problem, store_config, turn_seat

SEED = 5


class Lobby(Api):
    """The session API with the lobby endpoints."""

    def join(self, sid: str, name: str, code: str | None = None, **kw: Any) -> Any:
        body = {"name": name, **kw}
        if code is not None:
            body["code"] = code
        return self.c.post(f"/v1/sessions/{sid}/join", json=body)

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


#: The addresses open games are created from: each by a client of its own (a client's
#: quotas and its share of a lobby page are tested in tests/hardening).
CREATORS = (f"10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}" for i in range(1, 1 << 24))


def open_game(api: Lobby, seats: int = 4, **kw: Any) -> dict[str, Any]:
    """Ann (seat 0) and ``seats - 1`` open seats, created from a client of its own."""
    players = [{"name": "Ann"}] + [{"open": True}] * (seats - 1)
    r = api.c.post(
        "/v1/sessions",
        json={"variant": "uno_classic", "players": players, **kw},
        environ_overrides={"REMOTE_ADDR": next(CREATORS)},
    )
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
    log = lobby.events(sid).get_json()
    assert log["status"] == "playing"
    types = [e["type"] for e in log["events"]]
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
    from tests.support import spec_document

    schemas = spec_document()["components"]["schemas"]
    mapping = schemas["Event"]["discriminator"]["mapping"]
    for kind, wanted in SESSION_EVENTS.items():
        assert kind in mapping, kind
        member = schemas[mapping[kind].rsplit("/", 1)[1]]
        assert set(member["properties"]) == {"type", "seq", *wanted}, kind
        assert set(member["required"]) == {"type", *wanted}, kind


# ---------------------------------------------------------------- the public lobby
RFC3339_MS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


def fake_clock(app: Flask, start: float = 1_800_000_000.0) -> None:
    """The manager's clock: a second later at every reading (distinct created times)."""
    times = iter(range(int(start), int(start) + 10**6))
    app.extensions["sessions"].now = lambda: float(next(times))


def listed(api: Lobby, query: str = "status=waiting") -> list[str]:
    r = api.listing(query)
    assert r.status_code == 200, r.get_data(as_text=True)
    return [e["session_id"] for e in r.get_json()["sessions"]]


def test_the_lobby_lists_public_waiting_sessions_newest_first(lobby: Lobby, app: Flask) -> None:
    fake_clock(app)
    private = open_game(lobby, 2)["session_id"]
    made = [open_game(lobby, 3, public=True) for _ in range(5)]
    duo = lobby.create("uno_duo", [{"name": "Dee"}, {"open": True}], public=True).get_json()
    full = lobby.create("uno_classic", [{"name": "Fay"}, {"bot": True}], public=True).get_json()
    newest_first = [b["session_id"] for b in reversed(made)]
    assert listed(lobby, "status=waiting&variant=uno_classic") == newest_first
    assert listed(lobby) == [duo["session_id"], *newest_first]
    assert listed(lobby, "variant=uno_duo") == [duo["session_id"]]
    assert private not in listed(lobby) and full["session_id"] not in listed(lobby)
    # Pages of two, by cursor, cover the same list once.
    pages: list[str] = []
    cursor = None
    for _ in range(5):
        q = "variant=uno_classic&limit=2" + (f"&cursor={cursor}" if cursor else "")
        page = lobby.listing(q).get_json()
        pages += [e["session_id"] for e in page["sessions"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert pages == newest_first
    # An entry names the seats (an open one as every answer names it) and nothing secret.
    entry = lobby.listing("variant=uno_duo").get_json()["sessions"][0]
    assert entry["seats"][0]["name"] == "Dee" and entry["seats"][1] == {
        "seat": 1, "name": "Player 2", "bot": False, "open": True
    }  # fmt: skip
    assert duo["seats"][1]["name"] == "Player 2"  # the creator's answer says the same
    assert entry["open_seats"] == 1 and RFC3339_MS.match(entry["created_at"])
    times = [e["created_at"] for e in lobby.listing("variant=uno_classic").get_json()["sessions"]]
    assert times == sorted(set(times), reverse=True)  # newest first, each its own time
    assert rfc3339(1_800_000_000) < times[-1]
    text = lobby.listing().get_data(as_text=True)
    for b in [*made, duo]:
        assert b["invitation_code"] not in text and b["seats"][0]["token"] not in text
    # A public session is joined without a code.
    j = joined(lobby.join(duo["session_id"], "Eve"))
    assert j["status"] == "playing"


def test_the_lobby_never_shows_a_started_deleted_or_expired_session(
    lobby: Lobby, app: Flask
) -> None:
    store = app.extensions["sessions"].store
    started, deleted, vanished, waiting = (open_game(lobby, 2, public=True) for _ in range(4))
    joined(lobby.join(started["session_id"], "Bob"))
    assert lobby.delete(deleted["session_id"], deleted["seats"][0]["token"]).status_code == 204
    store.delete(vanished["session_id"])  # gone behind the manager's back, as if expired
    assert listed(lobby) == [waiting["session_id"]]
    # The listing took the vanished one off the index on the way.
    assert [sid for _, sid in store.lobby_page(None, None, 10)] == [waiting["session_id"]]
    assert listed(lobby, "variant=uno_classic") == [waiting["session_id"]]
    assert [sid for _, sid in store.lobby_page("uno_classic", None, 10)] == [waiting["session_id"]]


def test_an_expired_session_leaves_the_lobby(
    store_kind: str, request: pytest.FixtureRequest
) -> None:
    # A 1 s TTL: the first listing has a second to spare on a slow machine.
    app = make_app(store_config(store_kind, request, SESSION_TTL_SECONDS=1.0))
    try:
        api = Lobby(app.test_client())
        sid = open_game(api, 2, public=True)["session_id"]
        assert listed(api) == [sid]
        time.sleep(1.2)
        assert listed(api) == []
    finally:
        app.extensions["sessions"].store.close()


def test_the_lobby_index_is_bounded(store_kind: str, request: pytest.FixtureRequest) -> None:
    app = make_app(store_config(store_kind, request, SESSION_LOBBY_SIZE=3))
    try:
        api = Lobby(app.test_client())
        fake_clock(app)
        made = [open_game(api, 2, public=True)["session_id"] for _ in range(5)]
        store = app.extensions["sessions"].store
        assert [sid for _, sid in store.lobby_page(None, None, 10)] == made[::-1][:3]
        assert listed(api) == made[::-1][:3]
    finally:
        app.extensions["sessions"].store.close()


@pytest.mark.parametrize(
    ("query", "code"),
    [("status=playing", "invalid_request"), ("variant=chess", "invalid_request"),
     ("cursor=zz", "invalid_request"), ("limit=0", "invalid_request"),
     ("limit=101", "invalid_request")],
)  # fmt: skip
def test_a_bad_lobby_query_is_a_400(lobby: Lobby, query: str, code: str) -> None:
    problem(lobby.listing(query), 400, code)


# ---------------------------------------------------------------- leaving
def test_a_seat_that_leaves_before_the_start_is_open_again(lobby: Lobby) -> None:
    body = open_game(lobby, 3)
    sid, code = body["session_id"], body["invitation_code"]
    bob = joined(lobby.join(sid, "Bob", code))
    r = lobby.leave(sid, bob["token"])
    assert r.status_code == 200, r.get_data(as_text=True)
    left = r.get_json()
    assert left["status"] == "waiting" and left["seats"][1]["open"] is True
    gone = problem(lobby.get(sid, bob["token"]), 401, "seat_left")
    assert (gone["seat"], gone["reason"], gone["replaced_by"]) == (1, "left", "open")
    last = lobby.events(sid).get_json()["events"][-1]
    assert last == {
        "seq": left["last_event"], "type": "left", "player": 1, "name": "Bob", "replaced_by": "open"
    }  # fmt: skip
    eve = joined(lobby.join(sid, "Eve", code, seat=1))
    assert eve["seat"] == 1 and eve["status"] == "waiting"


def test_a_seat_that_leaves_after_the_start_is_played_by_a_bot(lobby: Lobby) -> None:
    body = open_game(lobby, 2, options={"target": 30})
    sid = body["session_id"]
    ann = body["seats"][0]["token"]
    bob = joined(lobby.join(sid, "Bob", body["invitation_code"]))
    r = lobby.leave(sid, bob["token"])
    assert r.status_code == 200, r.get_data(as_text=True)
    assert r.get_json()["seats"][1]["bot"] is True and r.get_json()["status"] == "playing"
    gone = problem(lobby.move(sid, bob["token"], {"type": "draw"}, 1), 401, "seat_left")
    assert (gone["seat"], gone["reason"], gone["replaced_by"]) == (1, "left", "bot")
    events = lobby.events(sid, ann).get_json()["events"]
    assert {"type": "left", "player": 1, "name": "Bob", "replaced_by": "bot"} in [
        {k: v for k, v in e.items() if k != "seq"} for e in events
    ]
    # The bot plays seat 1: Ann alone plays the game to its end.
    for _ in range(3000):
        view = lobby.get(sid, ann).get_json()
        if view["status"] == "over":
            break
        assert turn_seat(view["view"]) == 0, "the bot left its turn unplayed"
        move = next(m for m in view["legal_moves"] if m["type"] not in ("uno", "catch"))
        assert lobby.move(sid, ann, move, view["version"]).status_code == 200
    assert lobby.get(sid).get_json()["view"]["phase"] == "game_over"


@pytest.mark.one_process  # sets this app's max_bot_moves
def test_a_game_everyone_left_is_played_to_its_end_by_the_bots(lobby: Lobby, app: Flask) -> None:
    """No clock: the last person leaves, bots hold every seat; their chain stops at
    ``max_bot_moves`` and each later read plays the next, until the game ends; its
    record replays."""
    manager = app.extensions["sessions"]
    manager.config = replace(manager.config, max_bot_moves=8)
    body = lobby.create("uno_classic", [{"name": "Ann"}, {"name": "Bob"}]).get_json()
    sid, toks = body["session_id"], [s["token"] for s in body["seats"]]
    for tok in toks:
        assert lobby.leave(sid, tok).status_code == 200
    record = bots_play_it_out(lobby, app, sid, budget=8)
    assert {m["by"] for m in record["moves"]} == {"bot"}


@pytest.mark.one_process  # sets this app's max_bot_moves
def test_a_stream_of_a_game_everyone_left_sees_it_to_its_end(lobby: Lobby, app: Flask) -> None:
    """No clock, every seat a bot: a spectator's stream plays the bots' next chain at
    each idle heartbeat once their last chain stopped at ``max_bot_moves``, so it sees
    the game to its end without reconnecting (it waited until the stream's end)."""
    manager = app.extensions["sessions"]
    manager.config = replace(manager.config, max_bot_moves=8, heartbeat_seconds=0.02)
    body = lobby.create(
        "uno_classic", [{"name": "Ann"}, {"name": "Bob"}], options={"target": 300}
    ).get_json()
    sid, toks = body["session_id"], [s["token"] for s in body["seats"]]
    for tok in toks:
        assert lobby.leave(sid, tok).status_code == 200
    before = stored_state(app, sid)
    assert before.phase is not engine.Phase.GAME_OVER
    resp = lobby.c.get(f"/v1/sessions/{sid}/stream?timeout=60", buffered=False)
    seen = b""
    start = time.monotonic()
    try:
        for chunk in resp.iter_encoded():
            seen += chunk
            if b"event: game_over" in seen:
                break
    finally:
        resp.close()
    assert b"event: game_over" in seen, seen[-300:]
    assert time.monotonic() - start < 30
    # More than the stream's opening read could play: chains at its heartbeats.
    assert stored_state(app, sid).move_count - before.move_count > 2 * 8
    assert lobby.get(sid).get_json()["view"]["phase"] == "game_over"


def test_leave_needs_a_seat_token(lobby: Lobby) -> None:
    sid = open_game(lobby, 2)["session_id"]
    problem(lobby.leave(sid, None), 401, "missing_token")
    problem(lobby.leave(sid, "nope"), 401, "invalid_token")


# ---------------------------------------------------------------- rematch
def finished_pair(api: Lobby) -> tuple[str, list[str]]:
    """Ann and Bob, a game played to its end."""
    r = api.create("uno_classic", [{"name": "Ann"}, {"name": "Bob"}], options={"target": 30})
    body = r.get_json()
    sid, toks = body["session_id"], [s["token"] for s in body["seats"]]
    play_to_the_end([api], sid, toks)
    return sid, toks


def test_a_rematch_is_the_next_game_with_the_same_seats(lobby: Lobby, app: Flask) -> None:
    body = lobby.create("uno_classic", [{"name": "Ann"}, {"name": "Bob"}]).get_json()
    problem(lobby.rematch(body["session_id"], body["seats"][0]["token"]), 409, "game_not_over")
    sid, toks = finished_pair(lobby)
    old = lobby.get(sid).get_json()
    first = lobby.rematch(sid, toks[0])
    assert first.status_code == 200, first.get_data(as_text=True)
    a = first.get_json()
    b = lobby.rematch(sid, toks[1]).get_json()
    new = a["session_id"]
    assert b["session_id"] == new != sid and a["previous_session_id"] == sid
    assert (a["seat"], b["seat"]) == (0, 1) and a["token"] != b["token"]
    assert [s["name"] for s in a["seats"]] == ["Ann", "Bob"] and a["status"] == "playing"
    rematches = [e for e in lobby.all_events(sid) if e["type"] == "rematch"]
    assert [e["session_id"] for e in rematches] == [new]
    mine = lobby.get(new, a["token"]).get_json()
    assert mine["seat"] == 0 and mine["status"] == "playing"
    assert lobby.get(new, b["token"]).get_json()["seat"] == 1
    problem(lobby.get(new, toks[0]), 401, "invalid_token")  # the old token is the old game's
    # A new seed, the next dealer, the same options.
    store = app.extensions["sessions"].store
    old_state = engine.from_dict(orjson.loads(store.load(sid).state))
    new_state = engine.from_dict(orjson.loads(store.load(new).state))
    assert new_state.dealer == (old_state.dealer + 1) % 2
    assert new_state.seed != old_state.seed and new_state.options == old_state.options
    assert mine["seed_commitment"]["sha256"] != old["seed_commitment"]["sha256"]


def test_racing_rematches_make_one_session(lobby: Lobby, app: Flask) -> None:
    sid, toks = finished_pair(lobby)
    answers: list[Any] = []
    gate = threading.Barrier(4)

    def rematch(tok: str) -> None:
        api = Lobby(app.test_client())
        gate.wait()
        answers.append(api.rematch(sid, tok))

    threads = [threading.Thread(target=rematch, args=(toks[i % 2],)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r.status_code == 200 for r in answers), [r.get_json() for r in answers]
    assert len({r.get_json()["session_id"] for r in answers}) == 1
    assert sum(e["type"] == "rematch" for e in lobby.all_events(sid)) == 1


# ---------------------------------------------------------------- spectators
def reads(api: Lobby, sid: str, token: str | None) -> list[Any]:
    """Every read of a session: the state, the event log, the stream."""
    return [api.get(sid, token), api.events(sid, token), api.stream(sid, token)]


def test_spectators_anyone_reads_without_a_token(lobby: Lobby) -> None:
    body = lobby.create("uno_classic", [{"name": "Ann"}, {"bot": True}]).get_json()
    assert body["spectator_code"] is None
    for r in reads(lobby, body["session_id"], None):
        assert r.status_code == 200, r.get_data(as_text=True)


def test_spectators_code_reads_with_the_spectator_code_only(lobby: Lobby) -> None:
    body = lobby.create(
        "uno_classic", [{"name": "Ann"}, {"bot": True}], spectators="code"
    ).get_json()
    sid, code, ann = body["session_id"], body["spectator_code"], body["seats"][0]["token"]
    assert code
    for r in reads(lobby, sid, None):
        problem(r, 401, "missing_token")
    for r in reads(lobby, sid, "not-the-code"):
        problem(r, 401, "invalid_token")
    for r in reads(lobby, sid, code):
        assert r.status_code == 200, r.get_data(as_text=True)
    spectator = lobby.get(sid, code).get_json()
    assert spectator["seat"] is None and spectator["view"]["hand"] == []
    problem(lobby.legal(sid, code), 401, "invalid_token")
    problem(lobby.move(sid, code, {"type": "draw"}, 1), 401, "invalid_token")
    problem(lobby.leave(sid, code), 401, "invalid_token")
    assert lobby.get(sid, ann).get_json()["seat"] == 0


def test_spectators_seats_reads_with_a_seat_token_only(lobby: Lobby) -> None:
    body = lobby.create(
        "uno_classic", [{"name": "Ann"}, {"bot": True}], spectators="seats"
    ).get_json()
    sid, ann = body["session_id"], body["seats"][0]["token"]
    assert body["spectator_code"] is None
    for r in reads(lobby, sid, None):
        problem(r, 401, "missing_token")
    for r in reads(lobby, sid, ann):
        assert r.status_code == 200, r.get_data(as_text=True)


def test_a_bad_spectator_mode_is_a_400(lobby: Lobby) -> None:
    problem(lobby.create("uno_classic", 2, spectators="friends"), 400, "invalid_request")
    problem(lobby.create("uno_classic", 2, on_leave="forfeit"), 400, "invalid_request")


# ---------------------------------------------------------------- two service instances
@pytest.mark.parametrize("how", ["invitation", "lobby"])
def test_four_phones_fill_a_game_and_play_it_on_two_replicas(
    replicas: tuple[Api, Api], how: str
) -> None:
    """Ann creates on one instance; three phones find the game (her invitation code, or
    the public lobby), join through either instance, and all four play it to the end."""
    a, b = (Lobby(api.c) for api in replicas)
    body = open_game(a, 4, public=how == "lobby", options={"target": 30})
    sid = body["session_id"]
    toks = [body["seats"][0]["token"]]
    for i, name in enumerate(["Bob", "Cy", "Di"]):
        phone = (b, a)[i % 2]
        if how == "lobby":
            assert sid in listed(phone, "status=waiting&variant=uno_classic")
            answer = joined(phone.join(sid, name))
        else:
            answer = joined(phone.join(sid, name, body["invitation_code"]))
        toks.append(answer["token"])
    assert answer["status"] == "playing"
    assert sid not in listed(a) and sid not in listed(b)
    for api in (a, b):
        seats = api.get(sid, toks[3]).get_json()["seats"]
        assert [s["name"] for s in seats] == ["Ann", "Bob", "Cy", "Di"]
    final = play_to_the_end([a, b], sid, toks)
    assert final["status"] == "over"


def test_a_join_race_across_replicas_has_one_winner(replicas: tuple[Api, Api]) -> None:
    a, b = (Lobby(api.c) for api in replicas)
    body = open_game(a, 2)
    sid, code = body["session_id"], body["invitation_code"]
    b.get(sid)  # both replicas cache the waiting session
    answers: list[Any] = []
    gate = threading.Barrier(2)

    def join(api: Lobby, name: str) -> None:
        gate.wait()
        answers.append(api.join(sid, name, code))

    threads = [threading.Thread(target=join, args=(api, n)) for api, n in ((a, "A"), (b, "B"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r.status_code for r in answers) == [200, 409]
    winner = next(r.get_json() for r in answers if r.status_code == 200)
    for api in (a, b):
        assert api.get(sid, winner["token"]).get_json()["seat"] == 1


# ---------------------------------------------------------------- presence
def connected(api: Lobby, sid: str, token: str | None = None) -> list[bool]:
    return [s["connected"] for s in api.get(sid, token).get_json()["seats"]]


@pytest.mark.one_process  # sets this app's clock
def test_presence_shows_the_seats_seen_recently(lobby: Lobby, app: Flask) -> None:
    now = [1_800_000_000.0]
    mgr = app.extensions["sessions"]
    mgr.now = lambda: now[0]
    period = mgr.config.presence_seconds
    body = lobby.create("uno_classic", [{"name": "Ann"}, {"name": "Bob"}, {"bot": True}]).get_json()
    sid, ann, bob = body["session_id"], body["seats"][0]["token"], body["seats"][1]["token"]
    # The creator is there (its create), Bob once he reads.
    assert connected(lobby, sid) == [True, False, False]
    assert connected(lobby, sid, ann) == [True, False, False]
    stored = mgr.store.load(sid).seen
    assert stored == {0: int(now[0] * 1000)}
    now[0] += period / 4  # within half a period: not written again
    connected(lobby, sid, ann)
    assert mgr.store.load(sid).seen == stored
    # An open stream keeps Bob connected.
    r = lobby.stream(sid, bob)
    assert r.status_code == 200 and r.get_data().startswith(b"retry:")
    assert connected(lobby, sid) == [True, True, False]
    now[0] += period + 1
    assert connected(lobby, sid) == [False, False, False]
    # A move records its seat with the commit.
    view = lobby.get(sid).get_json()["view"]
    seat = turn_seat(view)
    tok = (ann, bob)[seat]  # the bot has moved: a person's turn
    mine = lobby.get(sid, tok).get_json()
    now[0] += period + 1
    move = next(m for m in mine["legal_moves"] if m["type"] not in ("uno", "catch"))
    assert lobby.move(sid, tok, move, mine["version"]).status_code == 200
    assert connected(lobby, sid)[seat] is True


def test_joins_are_rate_limited_like_every_call(
    store_kind: str, request: pytest.FixtureRequest
) -> None:
    """Guessing invitation codes meets the global limit (and a code has 256 bits)."""
    prefix = f"rl{uuid.uuid4().hex[:8]}:"
    config = store_config(store_kind, request, RATE_LIMIT="4/hour", RATE_LIMIT_KEY_PREFIX=prefix)
    app = make_app(config)
    try:
        api = Lobby(app.test_client())
        players = [{"name": "Ann"}, {"open": True}]
        sid = api.create("uno_classic", players).get_json()["session_id"]  # the 1st of 4
        answers = [api.join(sid, "Eve", f"guess-{i}") for i in range(5)]
        assert [r.status_code for r in answers] == [403, 403, 403, 429, 429]
        problem(answers[-1], 429, "rate_limited")
    finally:
        app.extensions["sessions"].store.close()
