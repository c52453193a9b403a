"""Every session problem is built in problems.py, with the status, code and headers the
contract gives it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import engine
from service.sessions import problems
from service.sessions.problems import SessionProblem

SESSIONS = Path(problems.__file__).resolve().parent


def test_no_other_session_module_builds_a_problem() -> None:
    """A session code is spelled in problems.py only: the other modules call its builders."""
    builders = {"ApiProblem", "SessionProblem"}
    found = []
    for path in sorted(SESSIONS.glob("*.py")):
        if path.name == "problems.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", getattr(node.func, "attr", ""))
                if name in builders:
                    found.append(f"{path.name}:{node.lineno}")
    assert not found


@pytest.mark.parametrize(
    ("problem", "status", "code"),
    [
        (problems.not_found("abcdefgh"), 404, "session_not_found"),
        (problems.session_waiting(2), 409, "session_waiting"),
        (problems.session_started(), 409, "session_started"),
        (problems.session_full(None), 409, "session_full"),
        (problems.game_not_over(), 409, "game_not_over"),
        (problems.move_limit_reached(20), 409, "move_limit_reached"),
        (problems.invalid_invitation(), 403, "invalid_invitation"),
        (problems.not_your_seat(0, 1), 403, "not_your_seat"),
        (problems.idempotency_key_reused(), 422, "idempotency_key_reused"),
        (problems.client_seed_refused(), 422, "client_seed_not_allowed"),
        (problems.unreadable("cursor", "bad"), 400, "invalid_request"),
    ],
)
def test_each_problem_has_its_status_and_code(
    problem: SessionProblem, status: int, code: str
) -> None:
    assert (problem.status, problem.code) == (status, code) and problem.detail


def test_version_problems_name_the_current_version_in_the_body_and_the_etag() -> None:
    for p, status in ((problems.version_mismatch(7), 412), (problems.if_match_required(7), 428)):
        assert p.status == status and p.extra == {"current_version": 7, "current_etag": "7"}
        assert p.headers == {"ETag": '"7"'}
    named = problems.version_mismatch(7, "7.3f9a0c1d5e7b2a46")
    assert named.extra["current_etag"] == "7.3f9a0c1d5e7b2a46"
    assert named.headers == {"ETag": '"7.3f9a0c1d5e7b2a46"'}


def test_a_401_challenges_and_a_503_says_when_to_retry() -> None:
    assert problems.missing_token("x").headers == {"WWW-Authenticate": 'Bearer realm="sessions"'}
    assert problems.invalid_token().headers["WWW-Authenticate"].endswith('error="invalid_token"')
    p = problems.unavailable(3)
    assert (p.status, p.code, p.headers) == (503, "store_unavailable", {"Retry-After": "3"})


def test_an_unreadable_field_is_named_in_the_errors() -> None:
    assert problems.unreadable("If-Match", "no").extra == {"errors": {"If-Match": ["invalid"]}}
    assert problems.session_full(3).detail.endswith("(seat 3)")


def test_judged_answers_an_engine_rules_error_as_422_with_its_code() -> None:
    state, _ = engine.start("uno_classic", 2, 3)
    assert problems.judged(engine.legal_moves, state, 0) == engine.legal_moves(state, 0)
    other = 1 - (engine.waiting_for(state) or 0)
    with pytest.raises(SessionProblem) as e:
        problems.judged(
            engine.apply, state, engine.Move.from_dict({"type": "draw", "player": other})
        )
    assert e.value.status == 422 and e.value.code == "not_your_turn"
    with pytest.raises(SessionProblem) as e:
        problems.judged(engine.start, "no_such_variant", 2, 1)
    assert e.value.code == "unknown_variant"
