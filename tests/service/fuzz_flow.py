"""A real flow through every operation of ``openapi.yaml``, each request a schemathesis
case built with the schema's own API (``APIOperation.Case``) from the answers before it,
sent and checked with every check (``Case.call_and_validate``): the variants and rules
pages, the health and playground files, a stateless game, and two sessions: a public one
that a second person joins and plays to its end (one round, ``target`` 1), its record
replayed, then its rematch, left and the first one deleted; a clocked session whose
seat a bot takes after its time runs out, taken back by its person (the flow's
``advance`` moves the service's clock); and a quick-match ticket, polled and cancelled.

``test_fuzz`` runs it after schemathesis' generated phases, so that every operation is
shown to answer a 2xx under every check whatever those phases reached in a run (and
whichever of its tests ran); ``fuzz_sessions`` makes its live sessions with it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from schemathesis import Case
from schemathesis.core import NOT_SET
from schemathesis.core.transport import Response
from schemathesis.specs.openapi.schemas import OpenApiSchema

#: The game the flow plays: two people, one round (a won round ends a game of 1 point).
VARIANT = "uno_classic"
SEED = 3
OPTIONS = {"target": 1}
#: Moves at most in that game (each seat plays its first listed `play`, else its first
#: listed move); the game ends well within it.
MAX_MOVES = 400


class Flow:
    """Sends a case of an operation (by its ``operationId``) and checks it with every
    check and ``extra_checks``; an answer that is not a 2xx fails the flow."""

    def __init__(
        self,
        schema: OpenApiSchema,
        extra_checks: Sequence[Callable[..., Any]],
        advance: Callable[[float], None] | None = None,
    ) -> None:
        self.schema = schema
        self.extra_checks = list(extra_checks)
        #: Moves the service's clock on by so many seconds (for the turn clock's story).
        self.advance = advance

    def case(
        self,
        operation_id: str,
        *,
        token: str | None = None,
        path: dict[str, Any] | None = None,
        query: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        body: Any = NOT_SET,
    ) -> Case:
        operation = self.schema.find_operation_by_id(operation_id)
        sent = dict(headers or {})
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        return operation.Case(path_parameters=path, query=query, headers=sent, body=body)

    def send(self, operation_id: str, **parts: Any) -> Response:
        case = self.case(operation_id, **parts)
        response = case.call_and_validate(additional_checks=self.extra_checks)
        assert 200 <= response.status_code < 300, (
            f"{operation_id}: {response.status_code} {response.content[:500]!r}"
        )
        return response

    def json(self, operation_id: str, **parts: Any) -> Any:
        return self.send(operation_id, **parts).json()


def waiting_seat(view: dict[str, Any]) -> int:
    pending = view.get("pending")
    return int(pending["player"] if pending else view["current_player"])


def pick(moves: list[dict[str, Any]]) -> dict[str, Any]:
    """The first listed play, else the first listed move."""
    return next((m for m in moves if m["type"] == "play"), moves[0])


def play_out(flow: Flow, sid: str, tokens: dict[int, str], view: dict[str, Any]) -> None:
    """Plays session ``sid`` to its end from ``view``, each move by the seat the game
    waits for (``tokens``: seat -> token): its listed moves, then one of them at the
    version they were listed at."""
    on = {"session_id": sid}
    for _ in range(MAX_MOVES):
        seat = waiting_seat(view)
        listed = flow.send("listSessionLegalMoves", path=on, token=tokens[seat])
        answer = flow.json(
            "applySessionMove", path=on, token=tokens[seat],
            headers={"If-Match": listed.headers["etag"][0]},
            body={"move": pick(listed.json()["moves"])},
        )  # fmt: skip
        if answer["status"] == "over":
            return
        view = answer["view"]
    raise AssertionError(f"the game did not end in {MAX_MOVES} moves")


def run(flow: Flow) -> None:
    """Every operation of the spec, each answered 2xx, in an order where each request
    takes its ids, tokens, versions and moves from the answers before it."""
    browse(flow)
    play_stateless(flow)
    play_sessions(flow)
    take_back(flow)
    quick_match(flow)


def browse(flow: Flow) -> None:
    """The read-only pages: variants, rules, health, metrics, the document, the playground."""
    ids = [v["id"] for v in flow.json("listVariants")["variants"]]
    assert VARIANT in ids
    flow.send("getVariant", path={"variant": VARIANT})
    flow.send("getRulesIndex")
    flow.send("getRules", path={"variant": VARIANT})
    for operation_id in ("getLiveness", "getReadiness", "getMetrics", "getOpenApiDocument",
                         "getPlayground"):  # fmt: skip
        flow.send(operation_id)
    asset = flow.schema.find_operation_by_id("getPlaygroundAsset").path_parameters.get("asset")
    assert asset is not None
    for name in asset.definition["schema"]["enum"]:
        flow.send("getPlaygroundAsset", path={"asset": name})


def play_stateless(flow: Flow) -> None:
    """The stateless rules API on one game: create, list, validate and apply a move,
    view and score the state after it."""
    game = flow.json("createGame", body={"variant": VARIANT, "players": 2, "seed": SEED})
    state = game["state"]
    seat = waiting_seat(game["view"])
    moves = flow.json("listLegalMoves", body={"state": state, "player": seat})["moves"]
    move = pick(moves)
    flow.send("validateMove", body={"state": state, "move": move})
    state = flow.json("applyMove", body={"state": state, "move": move})["state"]
    flow.send("viewGame", body={"state": state, "player": seat})
    flow.send("scoreGame", body={"state": state})


def play_sessions(flow: Flow) -> None:
    """A public session for two: listed in the lobby, joined, its views, events, record
    and stream read, played to its end by both seats; its record replayed; the rematch
    read and left; the first session deleted."""
    created = flow.json(
        "createSession",
        body={"variant": VARIANT, "players": [{"name": "Ann"}, {"open": True}],
              "public": True, "seed": SEED, "options": OPTIONS},
    )  # fmt: skip
    sid = created["session_id"]
    tokens = {s["seat"]: s["token"] for s in created["seats"] if s.get("token")}
    lobby = flow.json("listSessions", query={"variant": VARIANT})
    assert sid in [s["session_id"] for s in lobby["sessions"]]
    joined = flow.json("joinSession", path={"session_id": sid}, body={"name": "Bob"})
    tokens[joined["seat"]] = joined["token"]
    on = {"session_id": sid}
    view = flow.json("getSession", path=on, token=tokens[0])["view"]
    flow.send("getSessionEvents", path=on, token=tokens[0], query={"after": 0})
    flow.send("getSessionRecord", path=on, token=tokens[0])
    flow.send("streamSessionEvents", path=on, token=tokens[0],
              query={"timeout": 0.2, "max_events": 3})  # fmt: skip
    play_out(flow, sid, tokens, view)
    record = flow.json("getSessionRecord", path=on)
    flow.send("replayGame", body=record)
    rematch = flow.json("rematchSession", path=on, token=tokens[0])
    again = {"session_id": rematch["session_id"]}
    flow.send("getSession", path=again, token=rematch["token"])
    flow.send("leaveSession", path=again, token=rematch["token"])
    flow.send("deleteSession", path=on, token=tokens[0])


#: The clocked session's turn (seconds) and how long the service holds its first turn
#: at most before every seat has read (``SESSION_START_GRACE_SECONDS``'s default).
TURN_SECONDS = 5
START_GRACE = 15


def take_back(flow: Flow) -> None:
    """A clocked session of two whose first mover lets the time run out: a bot takes
    the seat (one timeout ends it), and its person takes it back with the old token."""
    assert flow.advance is not None, "the flow needs the service's clock to tell the story"
    created = flow.json(
        "createSession",
        body={"variant": VARIANT, "players": [{"name": "Cy"}, {"name": "Dee"}], "seed": SEED,
              "clock": {"turn_seconds": TURN_SECONDS, "max_timeouts": 1}},
    )  # fmt: skip
    on = {"session_id": created["session_id"]}
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    mover = created["clock"]["seat"]
    flow.advance(START_GRACE + TURN_SECONDS + 1)
    after = flow.json("getSession", path=on, token=tokens[1 - mover])
    assert after["seats"][mover]["bot"] is not False, after["seats"]
    flow.send("returnToSeat", path=on, token=tokens[mover])


def quick_match(flow: Flow) -> None:
    """A ticket for a table of four (nobody else asks: it waits), polled with its
    secret, then cancelled: its seat is given back."""
    ticket = flow.json(
        "createTicket", body={"variant": VARIANT, "seats": 4, "name": "Eve", "wait_seconds": 600}
    )
    on = {"ticket_id": ticket["ticket_id"]}
    assert flow.json("getTicket", path=on, token=ticket["secret"])["status"] == "waiting"
    assert flow.json("cancelTicket", path=on, token=ticket["secret"])["status"] == "cancelled"
