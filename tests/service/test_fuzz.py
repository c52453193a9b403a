"""schemathesis over ``openapi.yaml`` against the app in process (WSGI), with every check:

- each operation on its own (examples, coverage, fuzzing: positive and negative inputs),
  an operation on a session aimed at a live one (``fuzz_sessions``: in play, open,
  finished) so that a schema-valid request can succeed there;
- the stateful phase over the session operations, which follows the spec's OpenAPI
  ``links`` from ``createSession`` on;
- ``fuzz_flow``: a real flow through every operation, each request a schemathesis case.

Seat tokens come from ``SeatTokens`` (an auth hook of this test's own: the token of the
seat the game waits for). The last test asserts that every operation of the spec
answered a 2xx that passed every check (a session's operation: to a seat's token).

``positive_data_acceptance`` expects a 2xx for a schema-valid request; besides the
statuses schemathesis allows by default, a schema-valid request may get a 412 or 428 (a
version precondition) and a 422 whose code is a rule of the game or a check no JSON
Schema can state (``a_422_is_a_rule``); any other 422 fails.

``FUZZ_EXAMPLES`` (default 25 per operation) scales the run; ``make fuzz`` runs longer.
"""

from __future__ import annotations

import json
import logging
import math
import os
import time
from collections.abc import Callable, Iterable
from typing import Any

import pytest
import schemathesis
from flask import Flask
from hypothesis import HealthCheck, settings
from hypothesis.errors import FlakyStrategyDefinition
from hypothesis.stateful import run_state_machine_as_test
from schemathesis.config import SchemathesisConfig
from werkzeug.test import Client

from service import create_app
from tests.service import fuzz_flow
from tests.service.fuzz_sessions import live_sessions
from tools.code_scan import scan

pytestmark = pytest.mark.slow
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "25"))
#: The same inputs on every run (a CI run is repeatable); FUZZ_RANDOM=1 draws new ones.
DERANDOMIZE = os.environ.get("FUZZ_RANDOM", "") != "1"

#: 422 codes a schema-valid request may get that are not the engine's: checks no JSON
#: Schema can state (a token that is not genuine or of another record, a record whose
#: moves do not replay or whose pages pass the move limit,
#: a key reused for another move, a seed or deck the server does not take here).
NOT_SCHEMA_422 = frozenset({
    "invalid_state_token", "idempotency_key_reused", "record_move_illegal",
    "record_result_differs", "record_seed_missing", "seed_commitment_mismatch",
    "client_seed_not_allowed", "notifications_not_configured",
    "identity_assertions_not_configured", "identity_assertion_missing",
    "identity_assertion_invalid", "identity_assertion_expired",
    "identity_assertion_bad_signature", "identity_assertion_wrong_audience",
    "identity_assertion_mismatch", "wait_too_long", "invalid_resume_token",
    "resume_token_mismatch", "move_limit_reached",
})  # fmt: skip
#: The rules of the game: every code the engine raises.
RULE_CODES = frozenset(s.code for s in scan()[0] if s.where.startswith("engine/"))

#: Each operation's own settings (besides the live sessions' ``parameters``).
OPERATION_SETTINGS: dict[str, dict[str, Any]] = {
    # ignored_auth re-sends a request without its token after it succeeded; a DELETE that
    # succeeded removed the session, so the re-sent one is rightly 404 session_not_found
    # (a DELETE without a token of a live session is 401).
    "deleteSession": {"checks": {"ignored_auth": {"enabled": False}}},
    # schemathesis leaves out the operation that served the schema document unless a
    # filter names it: this names it.
    "getOpenApiDocument": {"enabled": True},
}


def _config(aims: dict[str, dict[str, str]]) -> SchemathesisConfig:
    """The run's config; ``aims``: operationId -> the ``parameters`` fixed for it."""
    operations: dict[str, dict[str, Any]] = {k: dict(v) for k, v in OPERATION_SETTINGS.items()}
    for name, parameters in aims.items():
        operations.setdefault(name, {})["parameters"] = parameters
    return SchemathesisConfig.from_dict(
        {
            "checks": {
                "positive_data_acceptance": {
                    "expected-statuses": ["2xx", "3xx", "401", "403", "404", "409", "412",
                                          "422", "428", "429"],
                },
            },
            "generation": {"max-examples": EXAMPLES},
            "operations": [{"include-operation-id": k, **v} for k, v in operations.items()],
        }
    )  # fmt: skip


@schemathesis.check
def a_422_is_a_rule(ctx: Any, response: Any, case: schemathesis.Case) -> bool | None:
    """A schema-valid request answered 422 carries a rule's code (or a check no schema
    can state): a 422 for a shape the spec could say is the spec's to say."""
    meta = case.meta
    if response.status_code != 422 or meta is None or not meta.generation.mode.is_positive:
        return None
    code = json.loads(response.content).get("code")
    if code not in RULE_CODES | NOT_SCHEMA_422:
        raise AssertionError(f"a schema-valid request got 422 {code!r}, not a rule of the game")
    return None


class SeatTokens:
    """WSGI middleware that keeps the seat tokens of every session the fuzzer makes (the
    answers of createSession, joinSession and rematchSession), and schemathesis' auth
    provider: on an operation of a session it knows, the token of the seat the game
    waits for (else of any of its seats; the host's for a delete); on a ticket's, the
    ticket's secret (the answers of createTicket)."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.tokens: dict[str, dict[int, str]] = {}
        #: ticket id -> its secret (the answers of createTicket).
        self.secrets: dict[str, str] = {}

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        path, method = environ.get("PATH_INFO", ""), environ.get("REQUEST_METHOD", "")
        body = self.app(environ, start_response)
        if method != "POST" or not (
            path in ("/v1/sessions", "/v1/matches") or path.endswith(("/join", "/rematch"))
        ):
            return body
        data = _read(body)
        self._record(data)
        return [data]

    def _record(self, data: bytes) -> None:
        try:
            answer = json.loads(data)
        except ValueError:
            return
        if isinstance(answer, dict) and "ticket_id" in answer:
            if answer.get("secret"):
                self.secrets[answer["ticket_id"]] = answer["secret"]
            return
        if not isinstance(answer, dict) or "session_id" not in answer:
            return
        seats = self.tokens.setdefault(answer["session_id"], {})
        for seat in answer.get("seats") or []:
            if seat.get("token"):
                seats[seat["seat"]] = seat["token"]
        if answer.get("token"):
            seats[answer["seat"]] = answer["token"]

    def seated(self, case: schemathesis.Case) -> bool:
        """Whether ``case`` sent a seat token of the session it names."""
        sid = (case.path_parameters or {}).get("session_id")
        auth = str(case.headers.get("Authorization", "")).removeprefix("Bearer ")
        return isinstance(sid, str) and auth in self.tokens.get(sid, {}).values()

    # ---------------------------------------------------------------- auth provider
    def get(self, case: schemathesis.Case, ctx: Any) -> str | None:
        ticket = (case.path_parameters or {}).get("ticket_id")
        if isinstance(ticket, str):
            return self.secrets.get(ticket)
        sid = (case.path_parameters or {}).get("session_id")
        seats = self.tokens.get(sid) if isinstance(sid, str) else None
        if not seats:
            return None
        if case.operation.definition.raw["operationId"] == "deleteSession":
            return seats[min(seats)]  # the host: the first seat a person holds
        any_token = next(iter(seats.values()))
        read = Client(self.app).get(
            f"/v1/sessions/{sid}", headers={"Authorization": f"Bearer {any_token}"}
        )
        view = (read.get_json(silent=True) or {}).get("view") if read.status_code == 200 else None
        if view:
            pending = view.get("pending")
            waiting = pending["player"] if pending else view["current_player"]
            return seats.get(waiting, any_token)
        return any_token

    def set(self, case: schemathesis.Case, data: str | None, ctx: Any) -> None:
        if data is not None:
            case.headers["Authorization"] = f"Bearer {data}"


def _read(body: Iterable[bytes]) -> bytes:
    try:
        return b"".join(body)
    finally:
        close = getattr(body, "close", None)
        if close is not None:
            close()


def _app() -> SeatTokens:
    logging.getLogger("service").setLevel(logging.ERROR)
    # One client (the fuzzer) makes thousands of sessions: the per-client quotas, which
    # tests/hardening holds, are lifted here so that its flows are not refused with 429.
    app = create_app({
        "TESTING": True, "SESSION_STREAM_SECONDS": 0.2, "SESSION_HEARTBEAT_SECONDS": 0.1,
        "SESSION_SESSIONS_PER_CLIENT": 1_000_000, "SESSION_WAITING_PER_CLIENT": 1_000_000,
        "SESSION_STREAMS_PER_CLIENT": 1_000, "MATCH_TICKETS_PER_CLIENT": 1_000_000,
    })  # fmt: skip
    app.extensions["sessions"].now = service_clock.now
    return SeatTokens(app)


class ServiceClock:
    """The sessions' wall clock: the real time plus what the flow moved it on by."""

    def __init__(self) -> None:
        self.ahead = 0.0

    def now(self) -> float:
        return time.time() + self.ahead

    def advance(self, seconds: float) -> None:
        self.ahead += seconds


service_clock = ServiceClock()
seat_tokens = _app()
#: The document as served, with the run's settings; the stateful phase's schema below.
served = schemathesis.openapi.from_wsgi("/openapi.yaml", seat_tokens, config=_config({}))
#: The same, each operation on a session aimed at a live session (``fuzz_sessions``):
#: the per-operation phases' schema.
schema = schemathesis.openapi.from_wsgi(
    "/openapi.yaml", seat_tokens,
    config=_config(live_sessions(fuzz_flow.Flow(served, [a_422_is_a_rule], service_clock.advance))),
)  # fmt: skip
HTTP_METHODS = frozenset({"get", "put", "post", "delete", "options", "head", "patch", "trace"})
#: Every operation of the spec: operationId -> (its path, its definition).
OPERATIONS = {
    op["operationId"]: (path, op)
    for path, item in schema.raw_schema["paths"].items()
    for method, op in item.items()
    if method in HTTP_METHODS
}
SPEC_OPERATIONS = frozenset(OPERATIONS)
#: The operations on a session (their path names one).
SESSION_OPERATIONS = frozenset(k for k, (path, _) in OPERATIONS.items() if "{session_id}" in path)
#: Those that take a seat token (all but joinSession): their 2xx counts when a seat's
#: token of that session was sent.
SEATED_OPERATIONS = frozenset(
    k for k in SESSION_OPERATIONS if OPERATIONS[k][1].get("security") != []
)
#: operationId -> the phases in which it answered a 2xx that passed every check
#: (``examples``, ``coverage``, ``fuzzing``, ``stateful``; ``flow`` for ``fuzz_flow``),
#: kept by the hook below (registered after the live sessions above were made).
ANSWERED: dict[str, set[str]] = {}
#: The operations whose per-operation test ran in this session.
TESTED_ALONE: set[str] = set()


@schemathesis.auth(refresh_interval=None)
class SeatAuth:
    """The auth hook: ``SeatTokens`` picks the token (none for a session it did not see)."""

    def get(self, case: schemathesis.Case, ctx: Any) -> str | None:
        return seat_tokens.get(case, ctx)

    def set(self, case: schemathesis.Case, data: str | None, ctx: Any) -> None:
        seat_tokens.set(case, data, ctx)


@schemathesis.hook
def after_validate(ctx: Any, case: schemathesis.Case, response: Any, results: list[Any]) -> None:
    """Keeps which operation answered a 2xx that passed every check, and in which phase."""
    if not 200 <= response.status_code < 300 or any(r.failure is not None for r in results):
        return
    operation_id = case.operation.definition.raw["operationId"]
    if operation_id in SEATED_OPERATIONS and not seat_tokens.seated(case):
        return
    phase = case.meta.phase.name.value if case.meta is not None else "flow"
    ANSWERED.setdefault(operation_id, set()).add(phase)


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, derandomize=DERANDOMIZE,
          suppress_health_check=list(HealthCheck))  # fmt: skip
def test_every_operation_keeps_its_contract(case: schemathesis.Case) -> None:
    TESTED_ALONE.add(case.operation.definition.raw["operationId"])
    case.call_and_validate(additional_checks=[a_422_is_a_rule])


#: The stateful phase's operations: the sessions', and the variants' list (its link gives
#: createSession a variant the server plays); the session ids come from the links. An
#: exclusion: with per-operation entries in its config, schemathesis 4.32 ORs an
#: ``include`` with a filter that selects everything.
session_schema = served.exclude(path_regex=r"^/(?!v1/sessions|v1/variants$)")


class SessionStates(session_schema.as_state_machine()):  # type: ignore[misc]
    """The stateful phase over the session operations: createSession, then what its links
    lead to (a scenario may also start at a POST with a made-up session id: a 404)."""

    def before_call(self, case: schemathesis.Case) -> None:
        """A generated seat names nobody: an ``external_id`` or ``identity`` the fuzzer
        makes up is always refused (422, tests/notifier/test_identity.py holds those),
        and the scenarios need sessions to follow. The per-operation phases send them."""
        if case.operation.definition.raw["operationId"] in ("createSession", "joinSession"):
            body = case.body if isinstance(case.body, dict) else {}
            players = body.get("players")
            for seat in [body, *(players if isinstance(players, list) else [])]:
                if isinstance(seat, dict):
                    seat.pop("external_id", None)
                    seat.pop("identity", None)

    def validate_response(self, response: Any, case: schemathesis.Case, **kwargs: Any) -> None:
        kwargs["additional_checks"] = [*(kwargs.get("additional_checks") or ()), a_422_is_a_rule]
        super().validate_response(response, case, **kwargs)


#: KNOWN GAP: the stateful phase follows links from sessions it makes with generated
#: bodies, so which session operations it reaches depends on the draw and on the deal;
#: it reaches 7 or 8 of the 10 a run, never rematchSession (a game ends after dozens of
#: moves, a scenario has 12 steps) and seldom joinSession. The test asserts a floor; the
#: per-operation phases, aimed at live sessions, reach every one.
REACHED_AT_LEAST = 6
#: Scenarios in one run of the stateful phase: in more, hypothesis often finds
#: "inconsistent data generation" (a scenario's steps depend on the app's random deals
#: and tokens, which replaying its draws does not repeat). A longer run
#: (``FUZZ_EXAMPLES``) repeats runs, the first with the fixed draws, the others with new
#: ones.
SCENARIOS_PER_RUN = 50
#: Runs besides those asked for: in place of one cut short by "inconsistent data
#: generation", or while the floor below is not reached (which operations a run reaches
#: depends on the draws and the deals).
EXTRA_RUNS = 4


def test_sessions_through_their_links() -> None:
    """The stateful phase: from createSession along the spec's links with real seat
    tokens, every check on every step, no failure; at least ``REACHED_AT_LEAST`` session
    operations answer a 2xx that passed every check (to a seat's token), getSession one
    of them."""
    runs = math.ceil(2 * EXAMPLES / SCENARIOS_PER_RUN)
    completed = 0

    def reached() -> set[str]:
        return {name for name in SESSION_OPERATIONS if "stateful" in ANSWERED.get(name, ())}

    def enough() -> bool:
        got = reached()
        return completed >= runs and "getSession" in got and len(got) >= REACHED_AT_LEAST

    for attempt in range(runs + EXTRA_RUNS):
        if enough():
            break
        try:
            run_state_machine_as_test(
                SessionStates,
                settings=settings(max_examples=min(2 * EXAMPLES, SCENARIOS_PER_RUN),
                                  deadline=None, stateful_step_count=12,
                                  derandomize=DERANDOMIZE and attempt == 0,
                                  suppress_health_check=list(HealthCheck)),
            )  # fmt: skip
        except FlakyStrategyDefinition:
            # A run met a scenario whose steps changed when replayed (the app's deals,
            # tokens and commit ids are random, so even the fixed draws do not repeat a
            # scenario exactly); every step it sent was checked (a failure raises its own
            # error). Another run, with new draws, takes its place.
            continue
        completed += 1
    assert completed >= runs, f"{runs + EXTRA_RUNS} runs, {completed} not cut short"
    assert "getSession" in reached()
    assert len(reached()) >= REACHED_AT_LEAST, f"only {sorted(reached())} answered a seat 2xx"


def test_every_operation_answers_a_2xx_under_every_check() -> None:
    """Every operation of the spec answered a 2xx that passed every check (a session's
    operation: to a seat's token), in ``fuzz_flow`` (a real flow through every
    operation, so the claim holds whatever ran before) and in schemathesis' own cases:
    each operation whose per-operation test ran got one there."""
    by_phases = {name: sorted(phases) for name, phases in ANSWERED.items()}
    fuzz_flow.run(fuzz_flow.Flow(schema, [a_422_is_a_rule], service_clock.advance))
    missing = SPEC_OPERATIONS - ANSWERED.keys()
    assert not missing, f"never answered a 2xx that passed every check: {sorted(missing)}"
    # schemathesis' own cases reach each operation whose per-operation test ran.
    unreached = sorted(TESTED_ALONE - by_phases.keys())
    assert not unreached, f"schemathesis' cases never answered these a 2xx: {unreached}"
    for name in sorted(SPEC_OPERATIONS):
        print(f"{name}: {', '.join(by_phases.get(name, ['the flow only']))}")
