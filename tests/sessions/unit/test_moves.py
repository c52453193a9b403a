"""A seat's move: checked in the contract's order, one compare-and-set from the cached
copy, idempotent under a key, bounded by the session's move limit."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

import engine
from service.sessions import problems
from service.sessions.api import status_of
from service.sessions.manager import SessionManager
from service.sessions.models import MoveRequest, Snapshot
from service.sessions.moves import checked, fingerprint, replay, seat_move
from service.sessions.problems import SessionError
from service.sessions.store import CommitRequest

from .conftest import SpyStore, body, created


def game(mgr: SessionManager) -> tuple[str, list[str], Snapshot, int, dict[str, Any]]:
    """A two-person session, the seat to move and a move it may make."""
    made = created(mgr, 2)
    sid = str(made["session_id"])
    c = mgr.cache.peek(sid)
    assert c is not None and c.state is not None
    seat = engine.waiting_for(c.state)
    assert seat is not None
    move = next(
        m for m in engine.legal_moves(c.state, seat) if m.type.value not in ("uno", "catch")
    )
    return sid, [s["token"] for s in made["seats"]], c, seat, move.to_dict()


def code_of(fn: Any, *args: Any) -> tuple[int, str]:
    with pytest.raises(SessionError) as e:
        fn(*args)
    return status_of(e.value), e.value.code


def test_a_move_from_the_cached_copy_is_one_store_call(
    mgr: SessionManager, store: SpyStore
) -> None:
    sid, toks, c, seat, move = game(mgr)
    store.calls.clear()
    reply = mgr.moves.move(sid, MoveRequest(toks[seat], c.version, None, move))
    answer = body(reply)
    assert reply.version == 2 and answer["version"] == 2 and not reply.replayed
    assert [name for name, _ in store.calls] == ["commit"]
    sent: CommitRequest = store.named("commit")[0]
    # The seat was seen at the create, within half a presence period: not written again.
    assert sent.expected_version == 1 and sent.seen is None
    assert answer["events"][0]["seq"] == c.seq + 1 and answer["seat"] == seat


def test_a_retry_under_the_same_key_is_replayed_and_another_move_refused(
    mgr: SessionManager,
) -> None:
    sid, toks, c, seat, move = game(mgr)
    first = mgr.moves.move(sid, MoveRequest(toks[seat], 1, "k-1", move))
    again = mgr.moves.move(sid, MoveRequest(toks[seat], 1, "k-1", move))
    assert again.replayed and again.body == first.body and again.version == 2
    mgr.cache.clear()  # from a read too
    assert mgr.moves.move(sid, MoveRequest(toks[seat], 1, "k-1", move)).replayed
    other = {"type": "draw"} if move["type"] != "draw" else {"type": "pass"}
    assert code_of(mgr.moves.move, sid, MoveRequest(toks[seat], 1, "k-1", other)) == (
        422, "idempotency_key_reused",
    )  # fmt: skip


def test_a_stale_version_is_412_and_the_limit_409(mgr: SessionManager, store: SpyStore) -> None:
    sid, toks, c, seat, move = game(mgr)
    assert code_of(mgr.moves.move, sid, MoveRequest(toks[seat], 7, None, move)) == (
        412, "version_mismatch",
    )  # fmt: skip
    store.commit(CommitRequest(sid, 1, store.load(sid).state))  # type: ignore[union-attr]
    assert code_of(mgr.moves.move, sid, MoveRequest(toks[seat], 1, None, move))[0] == 412
    mgr.config = replace(mgr.config, max_moves=c.dealt().move_count)
    assert code_of(mgr.moves.move, sid, MoveRequest(toks[seat], 2, None, move)) == (
        409, "move_limit_reached",
    )  # fmt: skip


def test_the_request_is_checked_in_the_contracts_order(mgr: SessionManager) -> None:
    sid, toks, c, seat, move = game(mgr)
    bad_if_match = problems.unreadable("If-Match", "no")
    bad_key = problems.unreadable("Idempotency-Key", "no")
    other = {**move, "player": 1 - seat}
    # the session and the token come first
    assert code_of(mgr.moves.move, "nosuchsession", MoveRequest(None, bad_if_match, bad_key, {})) == (
        404, "session_not_found",
    )  # fmt: skip
    assert code_of(mgr.moves.move, sid, MoveRequest(None, bad_if_match, bad_key, other))[0] == 401
    # then If-Match, the move, the key
    assert code_of(checked, c, seat, MoveRequest("", bad_if_match, bad_key, other)) == (
        400, "invalid_request",
    )  # fmt: skip
    assert code_of(checked, c, seat, MoveRequest("", None, bad_key, other)) == (
        428, "if_match_required",
    )  # fmt: skip
    assert code_of(checked, c, seat, MoveRequest("", 1, bad_key, other)) == (403, "not_your_seat")
    with pytest.raises(SessionError) as e:
        checked(c, seat, MoveRequest("", 1, bad_key, move))
    assert e.value is bad_key


def test_a_key_is_scoped_to_its_seat_and_bound_to_its_move_and_version() -> None:
    c_move = {"type": "draw"}
    ask = checked(_snap(), 1, MoveRequest("", 3, "key", c_move))
    assert ask.idem_key is not None and ask.idem_key.startswith("1:") and len(ask.idem_key) == 42
    assert ask.fingerprint == fingerprint(1, 3, seat_move(1, c_move).to_dict())
    assert fingerprint(1, 3, {"type": "draw", "player": 1}) != fingerprint(
        1, 4, {"type": "draw", "player": 1}
    )
    assert checked(_snap(), 1, MoveRequest("", 3, None, c_move)).idem_key is None


def test_a_stored_answer_replays_only_for_its_fingerprint() -> None:
    stored = b"fp\n" + b'{"version": 5}'
    assert replay(stored, b"fp").version == 5
    with pytest.raises(SessionError):
        replay(stored, b"other")


def _snap() -> Snapshot:
    from service.sessions.models import Meta, Seat

    state, _ = engine.start("uno_classic", 2, 3)
    meta = Meta("uno_classic", (Seat(0, "a", None, "h"), Seat(1, "b", None, "i")), 1.0)
    return Snapshot("session0", 3, 0, state, meta)
