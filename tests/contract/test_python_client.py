"""The Python client openapi-python-client 0.29.1 generates from ``openapi.yaml``, with
no hand edits, plays every variant: stateless (the caller holds the state), sealed with
a seat, and as a session with If-Match. Every answer is parsed into the client's
models in strict mode (``raise_on_unexpected_status``), errors included."""

from __future__ import annotations

import datetime
import importlib.util
import os
import random
import re
import subprocess
import sys
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

import engine
from service import create_app
from tests.contract.clients import Generated, generate_python_client
from tests.service.harness import close
from tools.code_scan import ROOT

#: The number of moves after which a game is not going to end (a one-round game takes
#: far fewer; the target is 1 point).
MAX_MOVES = 2000
#: An integrator's script that plays a session game through the generated client.
SCRIPT = ROOT / "clients" / "python" / "session_game.py"


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Generated:
    return generate_python_client(tmp_path_factory.mktemp("python-client"))


@pytest.fixture(scope="module")
def app() -> Iterator[Any]:
    app = create_app({"TESTING": True})
    yield app
    close(app)


class Api:
    """The generated client's modules, and clients talking to the app over WSGI."""

    def __init__(self, generated: Generated, app: Any) -> None:
        self.g = generated
        self.models = generated.module("models")
        self.app = app
        pkg = generated.package
        self.client = pkg.Client(base_url="http://localhost", raise_on_unexpected_status=True,
                                 httpx_args={"transport": httpx.WSGITransport(app=app)})  # fmt: skip
        self._pkg = pkg

    def seat_client(self, token: str) -> Any:
        return self._pkg.AuthenticatedClient(
            base_url="http://localhost",
            token=token,
            raise_on_unexpected_status=True,
            httpx_args={"transport": httpx.WSGITransport(app=self.app)},
        )

    def op(self, tag: str, name: str) -> Any:
        return self.g.module(f"api.{tag}.{name}")

    def options(self, variant: str) -> Any:
        """The variant's typed options model (``UnoClassicOptions``, ``DosOptions``, ...)."""
        return getattr(self.models, _camel(variant) + "Options")(target=1)


@pytest.fixture(scope="module")
def api(generated: Generated, app: Any) -> Api:
    return Api(generated, app)


def _camel(snake: str) -> str:
    return "".join(part.capitalize() for part in snake.split("_"))


def _waiting(view: Any, models: Any) -> int:
    pending = view.pending
    return int(pending.player) if pending is not None else int(view.current_player)


def _players(variant: str) -> int:
    v = engine.find_variant(variant)
    return min(max(v.min_players, 3), v.max_players)


VARIANTS = [v.id for v in engine.all_variants()]


# ---------------------------------------------------------------- generation
def test_the_generator_prints_no_warning(generated: Generated) -> None:
    assert not re.search(r"(?i)warning|error|cannot|skipping", generated.output), generated.output
    assert generated.output.strip() == f"Generating {generated.site.parent / 'client'}"


def test_every_operation_has_a_typed_function(generated: Generated) -> None:
    root = Path(str(generated.package.__file__)).parent
    funcs = {p.stem for p in root.glob("api/*/*.py")} - {"__init__"}
    spec_ids = {
        re.sub(r"(?<!^)(?=[A-Z])", "_", op["operationId"]).lower()
        for item in _spec()["paths"].values()
        for method, op in item.items()
        if method in {"get", "post", "delete", "put", "patch"}
    }
    assert funcs == spec_ids


def _spec() -> dict[str, Any]:
    from tests.service.harness import spec_document

    return spec_document()


def test_answers_type_what_they_always_carry(generated: Generated) -> None:
    """A listed move's always-present fields are plain types (no ``None``, no ``Unset``),
    a hand card has its id, a session read its clock and seats, and a spectator's reads
    take a client without a token."""
    m = generated.module("models")

    def hints(obj: Any) -> dict[str, Any]:
        # The models name each other under TYPE_CHECKING: resolve them from the package.
        return typing.get_type_hints(obj, localns={**vars(m), **vars(generated.package)})

    for model, field, want in [
        (m.MovePlay, "card", int), (m.MoveGive, "card", int), (m.MovePlace, "card", int),
        (m.MoveCatch, "target", int), (m.MoveChooseTarget, "target", int),
        (m.MoveChooseColor, "color", m.Color), (m.MoveMatch, "target", m.MatchPart),
        (m.CardRef, "id", int), (m.MovePlay, "player", int),
        (m.SessionState, "version", int), (m.SessionState, "status", m.SessionStatus),
        (m.SessionState, "session_id", str), (m.SessionSeat, "name", str),
        (m.SessionSeat, "open_", bool), (m.SessionSeat, "connected", bool),
        (m.LobbySeat, "name", str), (m.LobbyEntry, "created_at", datetime.datetime),
    ]:  # fmt: skip
        assert hints(model)[field] is want, (model, field)
    state = hints(m.SessionState)
    assert typing.get_args(state["seats"]) == (m.SessionSeat,)  # list[SessionSeat]
    assert typing.get_origin(state["events"]) is list  # every seat answer has its events
    assert set(typing.get_args(state["clock"])) == {type(None), m.SessionClock}
    for op in ("get_session", "get_session_events", "get_session_record", "stream_session_events"):
        client = hints(generated.module(f"api.sessions.{op}").sync_detailed)["client"]
        assert generated.package.Client in typing.get_args(client), op
    needs_token = hints(generated.module("api.sessions.list_session_legal_moves").sync_detailed)
    assert needs_token["client"] is generated.package.AuthenticatedClient


# ---------------------------------------------------------------- variants and health
def test_a_seat_is_named_by_an_identity_assertion_in_the_generated_client(
    generated: Generated,
) -> None:
    """A join (and a person's seat on create) sends ``identity``, the backend's signed
    assertion; its problems are typed codes."""
    m = generated.module("models")
    join = m.SessionJoinRequest(name="Bo", identity="eyJhbGciOiJIUzI1NiJ9.e30.sig")
    assert join.to_dict() == {"name": "Bo", "identity": "eyJhbGciOiJIUzI1NiJ9.e30.sig"}
    codes = {c.value for c in m.ProblemCode}
    assert {
        "identity_assertion_missing", "identity_assertion_expired",
        "identity_assertion_bad_signature", "identity_assertion_wrong_audience",
        "identity_assertion_invalid", "identity_assertion_mismatch",
        "identity_assertions_not_configured",
    } <= codes  # fmt: skip


def test_variants_and_health_parse(api: Api) -> None:
    m = api.models
    listed = api.op("variants", "list_variants").sync(client=api.client)
    assert isinstance(listed, m.VariantList)
    assert sorted(v.id.value for v in listed.variants) == sorted(VARIANTS)
    for summary in listed.variants:
        detail = api.op("variants", "get_variant").sync(summary.id.value, client=api.client)
        assert isinstance(detail, m.VariantDetail)
        assert len(detail.catalog) == detail.deck_size
        kind = m.DoubleSidedCard if detail.double_sided else m.SingleSidedCard
        assert all(isinstance(card, kind) for card in detail.catalog)
    missing = api.op("variants", "get_variant").sync("chess", client=api.client)
    assert isinstance(missing, m.Problem) and missing.code is m.ProblemCode.UNKNOWN_VARIANT
    assert isinstance(api.op("health", "get_liveness").sync(client=api.client), m.Liveness)
    ready = api.op("health", "get_readiness").sync(client=api.client)
    assert isinstance(ready, m.Readiness) and ready.status.value == "ok"
    assert "openapi: 3.1" in api.op("health", "get_open_api_document").sync(client=api.client)
    assert isinstance(api.op("health", "get_metrics").sync(client=api.client), str)


# ---------------------------------------------------------------- stateless
@pytest.mark.parametrize("variant", VARIANTS)
def test_a_stateless_game_to_the_end(api: Api, variant: str) -> None:
    m = api.models
    rng = random.Random(variant)
    body = m.CreateGameRequest(
        variant=variant, players=_players(variant), seed=7, options=api.options(variant)
    )
    created = api.op("games", "create_game").sync(client=api.client, body=body)
    assert isinstance(created, m.CreatedGame) and isinstance(created.state, m.State)
    state, view = created.state, created.view
    seen: set[str] = set()
    for _ in range(MAX_MOVES):
        if view.phase is m.Phase.GAME_OVER:
            break
        seat = _waiting(view, m)
        moves = api.op("games", "list_legal_moves").sync(
            client=api.client, body=m.LegalMovesRequest(state=state, player=seat)
        )
        assert isinstance(moves, m.SeatMoves) and moves.player == seat and moves.moves
        move = rng.choice(moves.moves)
        applied = api.op("games", "apply_move").sync(
            client=api.client, body=m.MoveRequest(state=state, move=move)
        )
        assert isinstance(applied, m.Applied), applied
        seen.update(type(e).__name__ for e in applied.events)
        state, view = applied.state, applied.view
    assert view.phase is m.Phase.GAME_OVER
    assert {"EventRoundOver", "EventGameOver"} <= seen
    score = api.op("games", "score_game").sync(client=api.client, body=m.StateRequest(state=state))
    assert isinstance(score, m.Score) and score.game_over and score.winners
    # Nobody moves after the game; every seat's list is empty.
    by_seat = api.op("games", "list_legal_moves").sync(
        client=api.client, body=m.LegalMovesRequest(state=state)
    )
    assert isinstance(by_seat, m.MovesBySeat) and all(not s.moves for s in by_seat.by_seat)


def test_classic_unos_house_rules_are_typed_options_and_their_games_parse(
    generated: Generated, api: Api
) -> None:
    """The house rules are typed fields of ``UnoClassicOptions``; a game with all of them
    on parses throughout: the penalty decision, jump-ins (any seat's listed moves), swaps
    and passes of hands."""
    m = api.models
    fields = typing.get_type_hints(
        m.UnoClassicOptions, localns={**vars(m), **vars(generated.package)}
    )
    for name, want in [
        ("stacking", m.StackingOption), ("seven_zero", bool), ("jump_in", bool),
        ("draw_to_match", bool), ("forced_play", bool), ("uno_penalty", int),
    ]:  # fmt: skip
        assert want in typing.get_args(fields[name]), (name, fields[name])
    options = m.UnoClassicOptions(
        target=200, stacking=m.StackingOption.UP, seven_zero=True, jump_in=True,
        draw_to_match=True, forced_play=True, uno_penalty=4,
    )  # fmt: skip
    body = m.CreateGameRequest(variant="uno_classic", players=4, seed=11, options=options)
    created = api.op("games", "create_game").sync(client=api.client, body=body)
    assert isinstance(created, m.CreatedGame)
    assert created.view.house_rules.to_dict() == {
        "stacking": "up", "seven_zero": True, "jump_in": True, "draw_to_match": True,
        "forced_play": True, "uno_penalty": 4,
    }  # fmt: skip
    rng = random.Random(5)
    state, view = created.state, created.view
    seen: set[str] = set()
    for _ in range(MAX_MOVES):
        if view.phase is m.Phase.GAME_OVER:
            break
        listed = api.op("games", "list_legal_moves").sync(
            client=api.client, body=m.LegalMovesRequest(state=state)
        )
        assert isinstance(listed, m.MovesBySeat)
        waiting = _waiting(view, m)
        jumps = [mv for s in listed.by_seat if s.player != waiting for mv in s.moves]
        jumps = [mv for mv in jumps if isinstance(mv, m.MovePlay)]
        own = next(s.moves for s in listed.by_seat if s.player == waiting)
        move = rng.choice(jumps if jumps and rng.random() < 0.5 else own)
        applied = api.op("games", "apply_move").sync(
            client=api.client, body=m.MoveRequest(state=state, move=move)
        )
        assert isinstance(applied, m.Applied), applied
        seen.update(type(e).__name__ for e in applied.events)
        state, view = applied.state, applied.view
        if view.pending is not None:
            seen.add(type(view.pending).__name__)
    assert view.phase is m.Phase.GAME_OVER
    wanted = {"PendingPenalty", "EventSwapped", "EventHandsPassed", "EventJumpedIn"}
    assert wanted <= seen, wanted - seen


@pytest.mark.parametrize("variant", VARIANTS)
def test_an_illegal_move_parses_as_a_problem(api: Api, variant: str) -> None:
    m = api.models
    body = m.CreateGameRequest(variant=variant, players=_players(variant), seed=3)
    created = api.op("games", "create_game").sync(client=api.client, body=body)
    other = (_waiting(created.view, m) + 1) % _players(variant)
    move = m.MoveDraw(type_="draw", player=other)
    refused = api.op("games", "apply_move").sync(
        client=api.client, body=m.MoveRequest(state=created.state, move=move)
    )
    assert isinstance(refused, m.Problem), refused
    assert refused.status == 422 and refused.code is m.ProblemCode.NOT_YOUR_TURN
    verdict = api.op("games", "validate_move").sync(
        client=api.client, body=m.MoveRequest(state=created.state, move=move)
    )
    assert isinstance(verdict, m.Verdict)
    assert verdict.legal is False and verdict.code is m.ProblemCode.NOT_YOUR_TURN


# ---------------------------------------------------------------- sealed with a seat
@pytest.mark.parametrize("variant", VARIANTS)
def test_a_sealed_seat_plays_its_turns_and_sees_only_its_seat(api: Api, variant: str) -> None:
    m = api.models
    rng = random.Random(variant)
    plain = api.op("games", "create_game").sync(
        client=api.client, body=m.CreateGameRequest(variant=variant, players=2, seed=11)
    )
    seat = _waiting(plain.view, m)
    body = m.CreateGameRequest(variant=variant, players=2, seed=11, sealed=True, seat=seat)
    created = api.op("games", "create_game").sync(client=api.client, body=body)
    assert isinstance(created, m.CreatedGame) and isinstance(created.state_token, str)
    token, view = created.state_token, created.view
    assert view.player == seat
    played = 0
    while _waiting(view, m) == seat and view.phase is not m.Phase.GAME_OVER and played < 50:
        moves = api.op("games", "list_legal_moves").sync(
            client=api.client, body=m.LegalMovesRequest(state_token=token, player=seat)
        )
        assert isinstance(moves, m.SeatMoves)
        applied = api.op("games", "apply_move").sync(
            client=api.client, body=m.MoveRequest(state_token=token, move=rng.choice(moves.moves))
        )
        assert isinstance(applied, m.Applied) and isinstance(applied.state_token, str)
        token, view = applied.state_token, applied.view
        played += 1
    assert played >= 1
    seen = api.op("games", "view_game").sync(
        client=api.client, body=m.ViewRequest(state_token=token, player=seat)
    )
    assert isinstance(seen, m.ViewAnswer) and seen.view.player == seat
    other = api.op("games", "view_game").sync(
        client=api.client, body=m.ViewRequest(state_token=token, player=1 - seat)
    )
    assert isinstance(other, m.Problem) and other.code is m.ProblemCode.SEAT_NOT_ALLOWED


# ---------------------------------------------------------------- sessions
@pytest.mark.parametrize("variant", VARIANTS)
def test_a_session_game_with_if_match(api: Api, variant: str) -> None:
    m = api.models
    rng = random.Random(variant)
    seats = [m.SessionSeatRequest(name="me")] + [
        m.SessionSeatRequest(name=f"bot{i}", bot=True) for i in range(1, _players(variant))
    ]
    body = m.SessionCreate(variant=variant, players=seats, seed=5, options=api.options(variant))
    created = api.op("sessions", "create_session").sync(client=api.client, body=body)
    assert isinstance(created, m.SessionState), created
    sid, version = created.session_id, created.version
    me = api.seat_client(created.seats[0].token)
    view = created.view
    for _ in range(MAX_MOVES):
        if view.phase is m.Phase.GAME_OVER:
            break
        legal = api.op("sessions", "list_session_legal_moves").sync(sid, client=me)
        assert isinstance(legal, m.SessionLegalMoves) and legal.version == version
        # A listed move goes back as it is (no converter).
        move = m.SessionMoveRequest(move=rng.choice(legal.moves))
        answer = api.op("sessions", "apply_session_move").sync(
            sid, client=me, body=move, if_match=f'"{version}"'
        )
        assert isinstance(answer, m.SessionState), answer
        assert answer.version > version and all(isinstance(e.seq, int) for e in answer.events)
        version, view = answer.version, answer.view
    assert view.phase is m.Phase.GAME_OVER
    # A stale version: 412 with the current one.
    draw = m.SessionMoveRequest(move=m.SessionMove(type_=m.MoveType.DRAW))
    stale = api.op("sessions", "apply_session_move").sync(sid, client=me, body=draw, if_match='"1"')
    assert isinstance(stale, m.VersionProblem) and stale.code is m.ProblemCode.VERSION_MISMATCH
    assert stale.current_version == version
    state = api.op("sessions", "get_session").sync(sid, client=api.client)  # a spectator
    assert isinstance(state, m.SessionState) and state.seat is None and state.legal_moves == []
    log = api.op("sessions", "get_session_events").sync(sid, client=api.client, after=0, limit=5)
    assert isinstance(log, m.SessionEvents) and [e.seq for e in log.events] == [1, 2, 3, 4, 5]
    # The stream's frames carry Events as JSON (SseFrame).
    stream = api.op("sessions", "stream_session_events").sync_detailed(
        sid, client=api.client, max_events=3, timeout=1.0
    )
    assert stream.status_code == 200
    frames = [f for f in stream.content.decode().split("\n\n") if "data: " in f]
    assert len(frames) == 3
    for frame in frames:
        fields = dict(line.split(": ", 1) for line in frame.splitlines() if ": " in line)
        model = getattr(m, "Event" + _camel(fields["event"]))
        event = model.from_dict(__import__("json").loads(fields["data"]))
        assert event.seq == int(fields["id"])
    # The finished game's record (a spectator may read it) replays to the game's end.
    rec = api.op("sessions", "get_session_record").sync(sid, client=api.client)
    assert isinstance(rec, m.GameRecord), rec
    assert rec.seed is not None and rec.result is not None and rec.moves
    # A page at a time (REPLAY_PAGE_MOVES), each with the typed resume of the answer before.
    from engine.record_pages import pages
    from service.replay_limits import DEFAULT_PAGE_MOVES as PAGE

    done = None
    for page in pages(rec.to_dict(), PAGE):
        body = m.GameRecord.from_dict({**page, "resume": done.resume if done else None})
        done = api.op("games", "replay_game").sync(client=api.client, body=body)
        assert isinstance(done, m.Replayed), done
    assert done is not None and done.moves_verified == len(rec.moves)
    assert done.score.game_over and done.score.winners == rec.result.winners
    if len(rec.moves) > PAGE:  # the whole record in one request: the typed refusal
        whole = api.op("games", "replay_game").sync(client=api.client, body=rec)
        assert isinstance(whole, m.ReplayPageProblem) and whole.page_moves == PAGE, whole
    altered = pages(rec.to_dict(), PAGE)[0]
    altered["moves"][0]["move"] = {"type": "next_round", "player": 0}  # the round is not over
    refused = api.op("games", "replay_game").sync(
        client=api.client, body=m.GameRecord.from_dict(altered)
    )
    assert isinstance(refused, m.RecordProblem), refused
    assert refused.code is m.ProblemCode.RECORD_MOVE_ILLEGAL and refused.index == 0
    assert api.op("sessions", "delete_session").sync_detailed(sid, client=me).status_code == 204
    gone = api.op("sessions", "get_session").sync(sid, client=api.client)
    assert isinstance(gone, m.Problem) and gone.code is m.ProblemCode.SESSION_NOT_FOUND


def test_a_clocked_session_through_the_generated_client(api: Api) -> None:
    """The clock options, the clock in answers and the timeout event parse into the
    generated models."""
    m = api.models
    now = [1_800_000_000.0]
    api.app.extensions["sessions"].now = lambda: now[0]
    body = m.SessionCreate.from_dict(
        {"variant": "uno_classic", "players": 2, "seed": 5,
         "clock": {"turn_seconds": 30, "bank_seconds": 10, "max_timeouts": 3}}
    )  # fmt: skip
    created = api.op("sessions", "create_session").sync(client=api.client, body=body)
    assert isinstance(created, m.SessionState), created
    # The clock holds for seat 1 (not told yet) for 15 s at most: not running, the turn's
    # whole 40 s shown; then the waited-for seat has 40.
    assert isinstance(created.clock, m.SessionClock) and created.clock.seconds_left == 40
    assert created.clock.running is False
    assert created.clock.held_for == [1] and created.clock.held_until is not None
    now[0] += 15 + 40
    state = api.op("sessions", "get_session").sync(created.session_id, client=api.client)
    assert isinstance(state, m.SessionState) and state.clock.timeouts[created.clock.seat] == 1
    log = api.op("sessions", "get_session_events").sync(
        created.session_id, client=api.client, after=created.last_event, limit=5
    )
    assert isinstance(log, m.SessionEvents)
    first = log.events[0]
    assert isinstance(first, m.EventTimeout) and first.moves >= 1


def test_a_seat_taken_back_from_a_bot_through_the_generated_client(api: Api) -> None:
    """The return, its ``seat_returned`` event, ``running`` and ``last_seen`` parse into
    the generated models; a refused return into ``Problem`` with its code."""
    m = api.models
    now = [1_800_000_000.0]
    api.app.extensions["sessions"].now = lambda: now[0]
    body = m.SessionCreate.from_dict(
        {"variant": "uno_classic", "players": 2, "seed": 5,
         "clock": {"turn_seconds": 30, "max_timeouts": 1}}
    )  # fmt: skip
    created = api.op("sessions", "create_session").sync(client=api.client, body=body)
    assert isinstance(created, m.SessionState) and created.clock.running is False
    seat = created.clock.seat
    now[0] += 15 + 30  # the hold's end, then the turn: a bot has the seat
    me = api.seat_client(created.seats[seat].token)
    lost = api.op("sessions", "get_session").sync(created.session_id, client=me)
    assert isinstance(lost, m.TokenProblem) and lost.code is m.ProblemCode.SEAT_TAKEN_BY_BOT
    back = api.op("sessions", "return_to_seat").sync(created.session_id, client=me)
    assert isinstance(back, m.SessionState) and back.seat == seat, back
    assert back.seats[seat].bot is False and back.seats[seat].last_seen is not None
    assert isinstance(back.events[0], m.EventSeatReturned) and back.clock.running is True
    other = api.seat_client(created.seats[1 - seat].token)
    api.op("sessions", "leave_session").sync(created.session_id, client=other)
    refused = api.op("sessions", "return_to_seat").sync(created.session_id, client=other)
    assert isinstance(refused, m.Problem) and refused.code is m.ProblemCode.SEAT_RETURN_LEFT


def test_a_table_filled_from_the_lobby_then_left_and_rematched(api: Api) -> None:
    """Open seats, the public lobby, join, leave and rematch, all through typed models."""
    m = api.models
    seats = [m.SessionSeatRequest(name="Ann"), m.SessionSeatRequest(open_=True)]
    body = m.SessionCreate(
        variant="uno_classic", players=seats, public=True, spectators=m.SpectatorAccess.CODE,
        options=api.options("uno_classic"),
    )  # fmt: skip
    created = api.op("sessions", "create_session").sync(client=api.client, body=body)
    assert isinstance(created, m.SessionState), created
    assert created.status is m.SessionStatus.WAITING and created.view is None
    assert created.invitation_code and created.spectator_code
    sid = created.session_id
    page = api.op("sessions", "list_sessions").sync(
        client=api.client, variant=m.VariantId("uno_classic")
    )
    assert isinstance(page, m.SessionList) and sid in [e.session_id for e in page.sessions]
    watcher = api.seat_client(created.spectator_code)
    waiting = api.op("sessions", "get_session").sync(sid, client=watcher)
    assert isinstance(waiting, m.SessionState) and waiting.view is None
    joined = api.op("sessions", "join_session").sync(
        sid, client=api.client, body=m.SessionJoinRequest(name="Bob")
    )
    assert isinstance(joined, m.SessionState) and joined.status is m.SessionStatus.PLAYING
    again = api.op("sessions", "join_session").sync(
        sid, client=api.client, body=m.SessionJoinRequest(name="Eve")
    )
    assert isinstance(again, m.Problem) and again.code is m.ProblemCode.SESSION_STARTED
    ann = api.seat_client(created.seats[0].token)
    early = api.op("sessions", "rematch_session").sync(sid, client=ann)
    assert isinstance(early, m.Problem) and early.code is m.ProblemCode.GAME_NOT_OVER
    left = api.op("sessions", "leave_session").sync(sid, client=api.seat_client(joined.token))
    assert isinstance(left, m.SessionState) and left.seats[1].bot is True
    for _ in range(MAX_MOVES):
        state = api.op("sessions", "get_session").sync(sid, client=ann)
        assert isinstance(state, m.SessionState)
        if state.status is m.SessionStatus.OVER:
            break
        move = m.SessionMoveRequest(move=state.legal_moves[0])
        api.op("sessions", "apply_session_move").sync(
            sid, client=ann, body=move, if_match=f'"{state.version}"'
        )
    assert state.status is m.SessionStatus.OVER
    nxt = api.op("sessions", "rematch_session").sync(sid, client=ann)
    assert isinstance(nxt, m.SessionState) and nxt.previous_session_id == sid
    log = api.op("sessions", "get_session_events").sync(sid, client=watcher, after=0, limit=1000)
    assert isinstance(log, m.SessionEvents)
    kinds = [type(e).__name__ for e in log.events]
    assert {"EventJoined", "EventStarted", "EventLeft", "EventRematch"} <= set(kinds)


def test_two_phones_quick_matched_through_the_generated_client(api: Api) -> None:
    """Tickets, their polls, the token once and the refusals, all typed models."""
    m = api.models
    asked = []
    for name in ("Ann", "Bob"):
        body = m.MatchRequest(variant=m.VariantId("uno_classic"), seats=m.SeatRange(min_=2, max_=2),
                              name=name, pace=m.MatchPace.LIVE)  # fmt: skip
        made = api.op("matches", "create_ticket").sync(client=api.client, body=body)
        assert isinstance(made, m.NewTicket), made
        asked.append(made)
    ann, bob = asked
    assert ann.status is m.TicketStatus.WAITING and ann.token is None
    assert bob.status is m.TicketStatus.MATCHED and bob.token
    assert ann.session_id == bob.session_id and isinstance(ann.created_at, datetime.datetime)
    polled = api.op("matches", "get_ticket").sync(ann.ticket_id, client=api.seat_client(ann.secret))
    assert isinstance(polled, m.Ticket) and polled.status is m.TicketStatus.MATCHED
    assert polled.token and polled.seat == 0
    seen = api.op("sessions", "get_session").sync(
        ann.session_id, client=api.seat_client(polled.token)
    )
    assert isinstance(seen, m.SessionState) and seen.seat == 0
    assert seen.status is m.SessionStatus.PLAYING
    wrong = api.op("matches", "get_ticket").sync(ann.ticket_id, client=api.seat_client(bob.secret))
    assert isinstance(wrong, m.Problem) and wrong.code is m.ProblemCode.INVALID_TICKET_SECRET
    late = api.op("matches", "cancel_ticket").sync(
        ann.ticket_id, client=api.seat_client(ann.secret)
    )
    assert isinstance(late, m.Problem) and late.code is m.ProblemCode.TICKET_MATCHED


def test_a_match_found_webhook_parses_as_its_typed_model(generated: Generated) -> None:
    """An app's backend reads ``match.found`` with the generated models: the ticket, the
    seat and its person; no field for a token."""
    m = generated.module("models")
    body = {
        "type": "match.found", "timestamp": "2027-01-15T08:00:00.000Z",
        "data": {"session_id": "HWXyh6AoBqB4P3CW-OWb_A", "version": 4, "variant": "uno_classic",
                 "ticket_id": "tk_8c1a", "seat": 2, "external_id": "user-ann"},
    }  # fmt: skip
    hook = m.MatchFoundWebhook.from_dict(body)
    assert (hook.data.ticket_id, hook.data.seat) == ("tk_8c1a", 2)
    assert hook.data.to_dict() == body["data"]
    assert not hasattr(hook.data, "token")


# ---------------------------------------------------------------- an integrator's script
def test_a_typed_script_plays_a_session_game_with_no_glue(api: Api, tmp_path: Path) -> None:
    """clients/python/session_game.py, written against the generated client as an
    integrator would (no converter, no null checks on always-present fields), passes
    ``mypy --strict`` and plays a session game to its end, then the rematch."""
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent",
         "--config-file=", "--cache-dir", str(tmp_path / "mypy"), str(SCRIPT)],
        capture_output=True, text=True, timeout=600, check=False, cwd=tmp_path,
        env={**os.environ, "MYPYPATH": str(api.g.site)},
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    spec = importlib.util.spec_from_file_location("session_game", SCRIPT)
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    nxt = script.play(api.client, api.seat_client)
    m = api.models
    assert isinstance(nxt, m.SessionState) and isinstance(nxt.previous_session_id, str)
    assert nxt.status is m.SessionStatus.PLAYING and nxt.view is not None
    assert nxt.seat == 0 and nxt.view.player == 0 and nxt.legal_moves
