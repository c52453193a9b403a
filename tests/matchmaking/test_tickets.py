"""Quick match through the API, on each store: tickets that fit share a table, first
come first seated; the seat's token is handed over once, to the ticket's holder; bots
take the empty seats at the deadline; the quota, cancelling, the lobby's agreement and
every refusal's code."""

from __future__ import annotations

import time
from typing import Any

import orjson
import pytest
from flask import Flask

from service.matchmaking import MatchConfig
from service.matchmaking.errors import TicketTokenUnreadable
from tests.matchmaking.conftest import Phone, faults


def later(app: Flask, seconds: float) -> None:
    """Move the matchmaker's clock ``seconds`` on (the sessions keep theirs)."""
    mm = app.extensions["matchmaking"]
    mm.now = lambda: time.time() + seconds


def session(phone: Phone, sid: str) -> Any:
    return phone.call("GET", f"/v1/sessions/{sid}").get_json()


def test_four_phones_asking_for_four_sit_at_one_table_dealt_with_no_bot(
    phones: list[Phone],
) -> None:
    answers = [p.play(seats=4, name=f"P{i}").get_json() for i, p in enumerate(phones[:4])]
    assert len({a["session_id"] for a in answers}) == 1
    assert [a["status"] for a in answers] == ["waiting"] * 3 + ["matched"]
    assert sorted(a["seat"] for a in answers) == [0, 1, 2, 3]
    polls = [p.poll().get_json() for p in phones[:3]]
    assert {p["status"] for p in polls} == {"matched"}
    tokens = [p["token"] for p in polls] + [answers[3]["token"]]
    assert all(tokens) and len(set(tokens)) == 4
    sid = answers[0]["session_id"]
    seen = session(phones[0], sid)
    assert seen["status"] == "playing"
    assert [s["bot"] for s in seen["seats"]] == [False] * 4
    for phone, token in zip(phones[:4], tokens, strict=True):  # each token is its seat's
        mine = phone.client.get(f"/v1/sessions/{sid}", headers={"Authorization": f"Bearer {token}"})
        assert mine.get_json()["seat"] == phone.ticket["seat"]


def test_the_token_is_handed_over_once(phones: list[Phone]) -> None:
    for i, p in enumerate(phones[:2]):
        p.play(seats=2, name=f"P{i}")
    first = phones[0].poll().get_json()
    again = phones[0].poll().get_json()
    assert first["status"] == again["status"] == "matched"
    assert first["token"] and again["token"] is None


def test_a_phone_alone_gets_bots_after_its_wait(app: Flask, phones: list[Phone]) -> None:
    ann = phones[0]
    made = ann.play(seats=3, wait_seconds=5).get_json()
    assert ann.poll().get_json()["status"] == "waiting"
    assert session(ann, made["session_id"])["status"] == "waiting"
    later(app, 6)
    got = ann.poll().get_json()
    assert got["status"] == "matched" and got["token"]
    seen = session(ann, made["session_id"])
    assert seen["status"] == "playing"
    assert [bool(s["bot"]) for s in seen["seats"]] == [False, True, True]


def test_the_sweep_deals_a_due_table_with_no_phone_asking(app: Flask, phones: list[Phone]) -> None:
    made = phones[0].play(seats=2, wait_seconds=5).get_json()
    later(app, 6)
    assert app.extensions["matchmaking"].sweep() == 1
    assert session(phones[1], made["session_id"])["status"] == "playing"


def test_a_range_joins_a_table_it_fits_and_a_count_that_does_not_opens_another(
    phones: list[Phone],
) -> None:
    four = phones[0].play(seats=4).get_json()
    ranged = phones[1].play(seats={"min": 2, "max": 4}).get_json()
    three = phones[2].play(seats=3).get_json()
    assert ranged["session_id"] == four["session_id"]
    assert three["session_id"] != four["session_id"]


def test_first_come_first_seated_at_the_oldest_table(phones: list[Phone]) -> None:
    """Two tables of four wait (the second for a different house rule cannot take the
    first's tickets); a ticket that fits both kinds sits at its own queue's oldest."""
    a = phones[0].play(seats=4).get_json()
    b = phones[1].play(seats={"min": 3, "max": 3}).get_json()
    c = phones[2].play(seats={"min": 3, "max": 4}).get_json()
    assert c["session_id"] == a["session_id"] != b["session_id"]


def test_a_table_shortens_its_wait_to_its_most_hurried_ticket(
    app: Flask, phones: list[Phone]
) -> None:
    phones[0].play(seats=3, wait_seconds=600)
    quick = phones[1].play(seats=3, wait_seconds=5).get_json()
    later(app, 6)
    assert phones[0].poll().get_json()["status"] == "matched"
    assert session(phones[0], quick["session_id"])["status"] == "playing"


def test_a_quick_match_table_is_in_the_lobby_and_a_lobby_join_takes_a_seat(
    phones: list[Phone],
) -> None:
    made = [p.play(seats=3).get_json() for p in phones[:2]]
    sid = made[0]["session_id"]
    lobby = phones[5].call("GET", "/v1/sessions?variant=uno_classic").get_json()
    entry = next(e for e in lobby["sessions"] if e["session_id"] == sid)
    assert entry["open_seats"] == 1 and entry["pace"]["kind"] == "live"
    joined = phones[5].call("POST", f"/v1/sessions/{sid}/join", {"name": "Lobby"})
    assert joined.status_code == 200 and joined.get_json()["status"] == "playing"
    polled = [p.poll().get_json() for p in phones[:2]]
    assert [p["status"] for p in polled] == ["matched", "matched"]
    third = phones[2].play(seats=3).get_json()  # the table is full: a new one
    assert third["session_id"] != sid and third["status"] == "waiting"


def test_a_client_holds_at_most_its_quota_of_waiting_tickets(phones: list[Phone]) -> None:
    ann = phones[0]
    quota = MatchConfig.load().tickets_per_client
    for seats in range(3, 3 + quota):  # each its own table: none is matched
        assert ann.play(seats=seats).status_code == 201
    refused = ann.play(seats=3 + quota)
    assert refused.status_code == 429
    assert refused.get_json()["code"] == "too_many_tickets"
    assert refused.headers["Retry-After"] == "1"
    assert ann.cancel().get_json()["status"] == "cancelled"  # a place back
    assert ann.play(seats=3 + quota).status_code == 201


def test_cancel_gives_the_seat_back_and_a_matched_ticket_cannot_be(phones: list[Phone]) -> None:
    ann, bob = phones[0], phones[1]
    made = ann.play(seats=3).get_json()
    bob.play(seats=3)
    assert bob.cancel().get_json()["status"] == "cancelled"
    seen = session(ann, made["session_id"])
    assert [s["open"] for s in seen["seats"]] == [False, True, True]
    assert bob.poll().get_json()["status"] == "cancelled"
    cy = phones[2]
    cy.play(seats=2)
    dee = phones[3]
    dee.play(seats=2)
    refused = cy.cancel()
    assert refused.status_code == 409 and refused.get_json()["code"] == "ticket_matched"


def test_only_the_tickets_holder_reads_it(phones: list[Phone]) -> None:
    ann = phones[0]
    made = ann.play(seats=2).get_json()
    path = f"/v1/matches/{made['ticket_id']}"
    missing = ann.call("GET", path)
    assert missing.status_code == 401 and missing.get_json()["code"] == "missing_token"
    wrong = ann.call("GET", path, secret="x" * 43)
    assert wrong.status_code == 401 and wrong.get_json()["code"] == "invalid_ticket_secret"
    gone = ann.call("GET", "/v1/matches/nosuchticket", secret=made["secret"])
    assert gone.status_code == 404 and gone.get_json()["code"] == "ticket_not_found"
    assert "secret" not in ann.poll().get_json()


def test_bad_requests_have_their_codes(phones: list[Phone]) -> None:
    p = phones[0]
    cases: list[tuple[dict[str, Any], int, str]] = [
        ({"seats": 11}, 400, "invalid_request"),
        # schema-valid (the spec cannot say min <= max), so a 422 as the fuzzer expects
        ({"seats": {"min": 4, "max": 2}}, 422, "invalid_player_count"),
        ({"seats": 4, "pace": "blitz"}, 400, "invalid_request"),
        ({"seats": 4, "wait_seconds": 10**6}, 422, "wait_too_long"),
        ({"seats": 4, "extra": 1}, 400, "invalid_request"),
        ({"seats": 1}, 422, "invalid_player_count"),
        ({"seats": 4, "options": {"nonsense": True}}, 422, "unknown_option"),
        ({"seats": 4, "variant": "chess"}, 422, "unknown_variant"),
        ({"seats": 4, "name": "a\u202eb"}, 400, "invalid_name"),
    ]
    for extra, status, code in cases:
        r = p.call("POST", "/v1/matches", {"variant": "uno_classic", **extra})
        assert (r.status_code, r.get_json()["code"]) == (status, code), extra
    assert p.call("POST", "/v1/matches", {"variant": "uno_classic", "seats": 4}).status_code == 201


def test_house_rules_decide_the_queue_as_the_game_reads_them(phones: list[Phone]) -> None:
    """A ticket naming a default rule sits with one that leaves it out; another house rule
    is another queue."""
    plain = phones[0].play(seats=3).get_json()
    named = phones[1].play(seats=3, options={"target": 500, "jump_in": False}).get_json()
    jump = phones[2].play(seats=3, options={"jump_in": True}).get_json()
    assert named["session_id"] == plain["session_id"] != jump["session_id"]
    assert jump["options"]["jump_in"] is True


def test_the_store_keeps_the_seat_token_sealed_with_the_tickets_secret(
    app: Flask, phones: list[Phone]
) -> None:
    from service.matchmaking.sealed import unseal

    store = app.extensions["matchmaking"].store
    ann = phones[0].play(seats=2).get_json()
    kept = store.take_token(ann["ticket_id"])  # what the store holds, put back as it was
    store.put_token(ann["ticket_id"], kept, 60)
    phones[1].play(seats=2)
    token = phones[0].poll().get_json()["token"]
    assert token and token not in kept and kept.startswith("mt1.")
    assert unseal(kept, ann["secret"], ann["ticket_id"]) == token
    other = phones[1].ticket
    with pytest.raises(TicketTokenUnreadable):  # another secret opens nothing
        unseal(kept, other["secret"], ann["ticket_id"])
    with pytest.raises(TicketTokenUnreadable):  # nor the same secret for another ticket
        unseal(kept, ann["secret"], other["ticket_id"])


def _altered(blob: str) -> str:
    """``blob`` with one base64 character of its ciphertext changed."""
    i = len(blob) // 2
    return blob[:i] + ("A" if blob[i] != "A" else "B") + blob[i + 1 :]


@pytest.mark.parametrize("how", ["altered", "another ticket's", "not sealed"])
def test_a_kept_token_that_does_not_open_is_refused_with_its_code(
    app: Flask, phones: list[Phone], how: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A blob changed in the store (a byte, or another ticket's put in its place) is
    refused with ``ticket_token_unreadable`` and logged, never a 500; a cancel refused so
    changes nothing (the blob is put back, the seat still held)."""
    store = app.extensions["matchmaking"].store
    ann, bob = phones[0], phones[1]
    made = ann.play(seats=3).get_json()
    bob.play(seats=3)
    own = store.take_token(made["ticket_id"])
    bad = {
        "altered": _altered(own),
        "another ticket's": store.take_token(bob.ticket["ticket_id"]),
        "not sealed": "a-plain-seat-token",
    }[how]
    store.put_token(made["ticket_id"], bad, 60)
    refused = ann.cancel()
    assert refused.status_code == 409, refused.get_json()
    assert refused.get_json()["code"] == "ticket_token_unreadable"
    logged = faults(capsys.readouterr().err, refused.headers["X-Request-ID"])
    assert logged and "ticket_token_unreadable" in logged[0]["message"]
    assert ann.poll().get_json()["status"] == "waiting"
    seen = session(ann, made["session_id"])
    assert [s["open"] for s in seen["seats"]] == [False, False, True]
    phones[2].play(seats=3)  # the table deals: the hand-over meets the bad blob
    polled = ann.poll()
    assert polled.status_code == 409 and polled.get_json()["code"] == "ticket_token_unreadable"


def test_unseal_refuses_what_seal_did_not_make() -> None:
    from service.matchmaking.sealed import seal, unseal

    blob = seal("tok-en", "s" * 43, "t1")
    assert unseal(blob, "s" * 43, "t1") == "tok-en"
    assert seal("tok-en", "s" * 43, "t1") != blob  # a fresh nonce each time
    for bad, secret, ticket in [
        (blob, "x" * 43, "t1"),
        (blob, "s" * 43, "t2"),
        (_altered(blob), "s" * 43, "t1"),
        (blob[:20], "s" * 43, "t1"),
        ("mt1.!!!", "s" * 43, "t1"),
        ("st1.k.abc", "s" * 43, "t1"),
        ("", "s" * 43, "t1"),
    ]:
        with pytest.raises(TicketTokenUnreadable):
            unseal(bad, secret, ticket)


def test_a_ticket_answer_holds_nothing_of_another_seat(phones: list[Phone]) -> None:
    """Every answer a phone gets about its ticket (made, polled, polled again, cancel
    refused) holds its own fields only: no other phone's token or secret, no hand, no
    seed, no client address."""
    trio = phones[:3]
    seen: list[list[bytes]] = [[p.play(seats=3, name=f"P{i}").data] for i, p in enumerate(trio)]
    for p, got in zip(trio, seen, strict=True):
        got += [p.poll().data, p.poll().data, p.cancel().data]
    tokens = [orjson.loads(got[0])["token"] or orjson.loads(got[1])["token"] for got in seen]
    assert all(tokens) and len(set(tokens)) == 3
    fields = {
        "ticket_id", "status", "variant", "options", "seats", "pace", "wait_seconds",
        "created_at", "deadline", "session_id", "seat", "seated_at", "matched_at", "token",
    }  # fmt: skip
    for i, (p, got) in enumerate(zip(trio, seen, strict=True)):
        others = [t for j, t in enumerate(tokens) if j != i]
        others += [q.ticket["secret"] for j, q in enumerate(trio) if j != i]
        for raw in got:
            assert not any(o.encode() in raw for o in others)
            assert p.address.encode() not in raw
            body = orjson.loads(raw)
            if "code" not in body:  # the cancel refused is a problem
                assert set(body) - {"secret"} == fields
    # the table is watched by anyone (spectators: anyone): no hand and no seed shown
    sid = orjson.loads(seen[0][0])["session_id"]
    public = phones[3].call("GET", f"/v1/sessions/{sid}").get_json()
    assert public["status"] == "playing" and public["seat"] is None
    assert public["view"]["hand"] == [] and public["seed_commitment"]["seed"] is None
