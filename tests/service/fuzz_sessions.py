"""Live sessions that schemathesis' per-operation phases aim at: each operation on a
session gets, by its config's ``parameters``, the id of a session where a schema-valid
request can succeed (a game in play to read, move in, leave or delete; a public one with
open seats to join; a finished one to rematch) and, for a move, the ``If-Match`` of the
version it was made at; a ticket's operations, a waiting ticket. Without them those phases only see made-up ids (404). The seat
token comes from the auth hook (``test_fuzz.SeatTokens``), which sees these sessions'
tokens as they are made through it.
"""

from __future__ import annotations

from typing import Any

from tests.service.fuzz_flow import OPTIONS, SEED, VARIANT, Flow, play_out

#: Two people (a seat token each), dealt.
IN_PLAY = {"variant": VARIANT, "players": 2, "seed": SEED}
#: Ann and two open seats, listed in the lobby (joined without a code).
OPEN = {"variant": VARIANT, "players": [{"name": "Ann"}, {"open": True}, {"open": True}],
        "public": True}  # fmt: skip
#: The operations that read a session.
READERS = ("getSession", "listSessionLegalMoves", "getSessionEvents", "getSessionRecord",
           "streamSessionEvents")  # fmt: skip


def live_sessions(flow: Flow) -> dict[str, dict[str, str]]:
    """operationId -> the ``parameters`` that aim it at a live session, made (and for
    the rematch, played to its end) with ``flow``."""

    def create(body: dict[str, Any]) -> tuple[dict[str, Any], str]:
        made = flow.send("createSession", body=body)
        return made.json(), made.headers["etag"][0]

    read = create(IN_PLAY)[0]["session_id"]
    moving, version = create(IN_PLAY)
    over, _ = create({**IN_PLAY, "options": OPTIONS})
    play_out(flow, over["session_id"], {s["seat"]: s["token"] for s in over["seats"]}, over["view"])
    aims = {name: {"path.session_id": read} for name in READERS}
    aims["applySessionMove"] = {"path.session_id": moving["session_id"], "header.If-Match": version}
    aims["joinSession"] = {"path.session_id": create(OPEN)[0]["session_id"]}
    aims["leaveSession"] = {"path.session_id": create(IN_PLAY)[0]["session_id"]}
    # A running game is not deleted (409): the host deletes a finished one.
    done, _ = create({**IN_PLAY, "options": OPTIONS})
    play_out(flow, done["session_id"], {s["seat"]: s["token"] for s in done["seats"]}, done["view"])
    aims["deleteSession"] = {"path.session_id": done["session_id"]}
    aims["rematchSession"] = {"path.session_id": over["session_id"]}
    # A ticket for a table nobody else asks for waits (the fuzzer's own tickets would
    # fill a plain one and deal it): polled, then cancelled.
    alone = {"variant": VARIANT, "seats": 10, "options": {"target": 777},
             "pace": "correspondence", "wait_seconds": 1800}  # fmt: skip
    for name in ("getTicket", "cancelTicket"):
        ticket = flow.json("createTicket", body=alone)
        aims[name] = {"path.ticket_id": ticket["ticket_id"]}
    return aims
