"""Seat changes: a join with the code takes an open seat and the last one deals; a seat
that leaves is open again before the start and a bot's after it."""

from __future__ import annotations

import orjson
import pytest

import engine
from service.sessions import tokens
from service.sessions.manager import SessionManager
from service.sessions.models import BotLevel, LostReason, LostToken, Meta, Seat, Snapshot, Status
from service.sessions.problems import SessionError
from service.sessions.seats import open_seat, returnable

from .conftest import T0, SpyStore, Time, body, created


def waiting(mgr: SessionManager, **kw: object) -> dict[str, object]:
    return created(mgr, [{"name": "Ann"}, {"open": True}, {"open": True}], **kw)


def code_of(fn: object, *args: object) -> str:
    with pytest.raises(SessionError) as e:
        fn(*args)  # type: ignore[operator]
    return e.value.code


def test_a_join_takes_the_lowest_open_seat_or_the_one_asked(mgr: SessionManager) -> None:
    made = waiting(mgr)
    sid, code = str(made["session_id"]), made["invitation_code"]
    second = body(mgr.seats.join(sid, {"name": "Cy", "code": code, "seat": 2}))
    assert second["seat"] == 2 and second["status"] == "waiting" and second["version"] == 2
    c = mgr.cache.peek(sid)
    assert c is not None and c.meta.seats[2] == Seat(2, "Cy", None, tokens.digest(second["token"]))
    assert code_of(mgr.seats.join, sid, {"name": "Di", "code": code, "seat": 2}) == "session_full"
    last = body(mgr.seats.join(sid, {"name": "Bo", "code": code}))
    assert last["seat"] == 1 and last["status"] == "playing"
    assert code_of(mgr.seats.join, sid, {"name": "Ed", "code": code}) == "session_started"


def test_the_last_join_deals_and_starts_the_clock(
    mgr: SessionManager, store: SpyStore, clock: Time
) -> None:
    made = created(mgr, [{"name": "Ann"}, {"open": True}], clock={"turn_seconds": 9})
    sid = str(made["session_id"])
    clock.t += 60
    mgr.seats.join(sid, {"name": "Bo", "code": made["invitation_code"]})
    c = mgr.cache.peek(sid)
    assert c is not None and c.state is not None and c.meta.clock is not None
    assert c.meta.clock.started == T0 + 60
    types = [orjson.loads(e)["type"] for _, e in store.events(sid, 0, 100)]
    assert types[:2] == ["joined", "started"] and "round_started" in types


def test_a_join_needs_the_code_unless_the_session_is_public(
    mgr: SessionManager, store: SpyStore
) -> None:
    sid = str(waiting(mgr)["session_id"])
    assert code_of(mgr.seats.join, sid, {"name": "Bo"}) == "invalid_invitation"
    public = waiting(mgr, public=True)
    psid = str(public["session_id"])
    mgr.seats.join(psid, {"name": "Bo"})
    mgr.seats.join(psid, {"name": "Cy"})
    assert store.lobby_page(None, None, 10) == []  # started: off the lobby


def test_a_seat_that_leaves_before_the_start_is_open_again(mgr: SessionManager) -> None:
    made = waiting(mgr)
    sid = str(made["session_id"])
    joined = body(mgr.seats.join(sid, {"name": "Bo", "code": made["invitation_code"]}))
    left = body(mgr.seats.leave(sid, joined["token"]))
    assert left["seat"] == 1 and left["seats"][1] == {
        "seat": 1,
        "name": "Player 2",
        "bot": False,
        "open": True,
        "connected": False,
        "last_seen": None,
    }
    assert code_of(mgr.seats.leave, sid, joined["token"]) == "seat_left"


def test_a_seat_that_leaves_a_game_is_played_by_a_bot(mgr: SessionManager) -> None:
    made = created(mgr, 2)
    sid = str(made["session_id"])
    tok = [s["token"] for s in made["seats"]]
    left = body(mgr.seats.leave(sid, tok[1]))
    assert left["seats"][1]["bot"] is True and left["status"] == "playing"
    c = mgr.cache.peek(sid)
    assert c is not None and c.meta.seats[1].token_sha256 is None
    assert c.waiting_person() in (0, None)  # the bot moved when its turn came


def test_a_bot_takes_a_seat_and_a_join_finds_one() -> None:
    meta = Meta("uno_classic", (Seat(0, "a", None, "h"), Seat(1, "b", None, None, True)), 1.0)
    handed = meta.handed_to_bot(0, 5.0, LostReason.TIMEOUTS)
    assert handed.seats[0].bot is BotLevel.SIMPLE and handed.seats[0].token_sha256 is None
    assert handed.seats[0].lost is not None and not handed.seats[0].open
    assert open_seat(meta, None) == 1 and open_seat(meta, 1) == 1
    for wanted in (0, 5):
        with pytest.raises(SessionError):
            open_seat(meta, wanted)
    assert Status.WAITING.value == "waiting"


def test_a_return_is_refused_once_the_seat_changed_hands() -> None:
    """``returnable``: a token a bot took the seat from after its timeouts, the seat still
    that bot's; a token the seat lost before another (``seat_return_taken``), a seat a
    person holds again, a token that left (``seat_return_left``)."""
    state, _ = engine.start("uno_classic", 2, 4)
    old = LostToken(tokens.digest("old"), T0, LostReason.TIMEOUTS, "bot")
    newer = LostToken(tokens.digest("newer"), T0 + 5, LostReason.TIMEOUTS, "bot")
    left = LostToken(tokens.digest("left"), T0, LostReason.LEFT, "bot")
    ann = Seat(0, "Ann", None, tokens.digest("ann"))

    def snap(seat: Seat) -> Snapshot:
        return Snapshot("s" * 8, 3, 9, state, Meta("uno_classic", (ann, seat), T0))

    bot = Seat(1, "Bob", BotLevel.SIMPLE, None, lost=(left, old, newer))
    assert returnable(snap(bot), "newer") == (1, newer)
    assert code_of(returnable, snap(bot), "old") == "seat_return_taken"
    assert code_of(returnable, snap(bot), "left") == "seat_return_left"
    assert code_of(returnable, snap(bot), "ann") == "invalid_token"
    person = Seat(1, "Bob", None, tokens.digest("another"), lost=(newer,))
    assert code_of(returnable, snap(person), "newer") == "seat_return_taken"
