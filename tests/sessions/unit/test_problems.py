"""Every session refusal is a domain error built in problems.py (a code, a detail, the
facts; no HTTP); the API edge (``api.py``) gives each kind its status and headers once."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

import engine
from service.matchmaking import errors
from service.sessions import api, problems
from service.sessions.api import STATUS, problem, status_of
from service.sessions.problems import SessionError

SESSIONS = Path(problems.__file__).resolve().parent
#: The modules of service/sessions/ that speak HTTP: the API edge (the blueprint, its
#: request schemas, and ``init_app``, which registers it; Flask only when it runs).
EDGE = {"api.py", "schemas.py", "__init__.py"}


def _call_name(node: ast.Call) -> str:
    return str(getattr(node.func, "id", getattr(node.func, "attr", "")))


def test_no_other_session_module_builds_a_refusal() -> None:
    """A session code is spelled in problems.py only: the other modules call its builders."""
    kinds = {kind.__name__ for kind in STATUS} | {"SessionError", "ApiProblem"}
    found = []
    for path in sorted(SESSIONS.glob("*.py")):
        if path.name == "problems.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and _call_name(node) in kinds:
                found.append(f"{path.name}:{node.lineno}")
    assert not found


def _http_in(path: Path) -> list[str]:
    """Where ``path`` speaks HTTP: ``ApiProblem``, ``problem_response``, the service's
    problem module, Flask or werkzeug, or a status number handed to a call or compared."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        at = f"{path.name}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Name | ast.Attribute):
            name = node.id if isinstance(node, ast.Name) else node.attr
            if name in ("ApiProblem", "problem_response", "problem_body"):
                found.append(f"{at} {name}")
        elif isinstance(node, ast.ImportFrom | ast.Import):
            mods = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            mods += [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if any(re.match(r"^(flask|werkzeug|service\.problems)\b", m) for m in mods):
                found.append(f"{at} imports {mods}")
        elif isinstance(node, ast.Call | ast.Compare):
            values = (
                [*node.args, *(k.value for k in node.keywords)]
                if isinstance(node, ast.Call)
                else [node.left, *node.comparators]
            )
            for v in values:
                if isinstance(v, ast.Constant) and type(v.value) is int and 400 <= v.value < 600:
                    found.append(f"{at} status {v.value}")
    return found


def test_no_session_module_but_the_edge_speaks_http() -> None:
    found = [f for path in sorted(SESSIONS.glob("*.py")) if path.name not in EDGE
             for f in _http_in(path)]  # fmt: skip
    assert not found, found


def test_the_http_check_finds_what_it_looks_for(tmp_path: Path) -> None:
    """The check above is not silent by construction: it finds each thing it forbids."""
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from service.problems import ApiProblem\n"
        "def f(e):\n"
        "    if e.status != 404:\n"
        "        raise ApiProblem(409, 'x', 'y')\n"
    )
    found = " ".join(_http_in(bad))
    assert "imports" in found and "ApiProblem" in found
    assert "status 404" in found and "status 409" in found


def test_every_kind_of_refusal_has_a_status() -> None:
    def kinds(cls: type[SessionError]) -> set[type[SessionError]]:
        return {cls}.union(*(kinds(sub) for sub in cls.__subclasses__()))

    missing = [k.__name__ for k in SessionError.__subclasses__() if k not in STATUS]
    assert not missing
    # a refinement of a kind (the quick match's refusals) answers with its kind's status
    refinements = kinds(SessionError) - {SessionError} - set(STATUS)
    assert errors.TicketNotFound in refinements
    for refined in refinements:
        assert status_of(refined.__new__(refined)) in STATUS.values()


@pytest.mark.parametrize(
    ("refusal", "status", "code"),
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
        (problems.too_many_streams(8, 1), 429, "too_many_streams"),
        (problems.streams_full(1), 503, "streams_full"),
    ],
)
def test_each_refusal_has_its_status_and_code(
    refusal: SessionError, status: int, code: str
) -> None:
    assert (status_of(refusal), refusal.code) == (status, code) and refusal.detail
    resp = problem(refusal)
    body = resp.get_json()
    assert resp.status_code == status and resp.mimetype == "application/problem+json"
    assert (body["status"], body["code"], body["detail"]) == (status, code, refusal.detail)


def test_version_refusals_name_the_current_version_in_the_body_and_the_etag() -> None:
    for p, status in ((problems.version_mismatch(7), 412), (problems.if_match_required(7), 428)):
        assert status_of(p) == status and p.facts == {"current_version": 7}
        resp = problem(p)
        assert resp.headers["ETag"] == '"7"' and resp.get_json()["current_version"] == 7


def test_a_401_challenges_and_a_503_says_when_to_retry() -> None:
    missing = problem(problems.missing_token("x"))
    assert missing.status_code == 401
    assert missing.headers["WWW-Authenticate"] == 'Bearer realm="sessions"'
    invalid = problem(problems.invalid_token())
    assert invalid.headers["WWW-Authenticate"] == 'Bearer realm="sessions", error="invalid_token"'
    lost = problem(problems.seat_lost(1, "2026-01-01T00:00:00Z", "left", "bot"))
    assert lost.headers["WWW-Authenticate"].endswith('error="invalid_token"')
    assert lost.get_json()["seat"] == 1 and "Retry-After" not in lost.headers
    down = problem(problems.unavailable(3))
    assert (down.status_code, down.get_json()["code"]) == (503, "store_unavailable")
    assert down.headers["Retry-After"] == "3" and "retry_after" not in down.get_json()


def test_an_unreadable_field_is_named_in_the_errors() -> None:
    assert problems.unreadable("If-Match", "no").facts == {"errors": {"If-Match": ["invalid"]}}
    assert problems.session_full(3).detail.endswith("(seat 3)")


def test_judged_refuses_an_engine_rules_error_as_422_with_its_code() -> None:
    state, _ = engine.start("uno_classic", 2, 3)
    assert problems.judged(engine.legal_moves, state, 0) == engine.legal_moves(state, 0)
    other = 1 - (engine.waiting_for(state) or 0)
    with pytest.raises(SessionError) as e:
        problems.judged(
            engine.apply, state, engine.Move.from_dict({"type": "draw", "player": other})
        )
    assert status_of(e.value) == 422 and e.value.code == "not_your_turn"
    with pytest.raises(SessionError) as e:
        problems.judged(engine.start, "no_such_variant", 2, 1)
    assert e.value.code == "unknown_variant"


def test_the_notifier_loads_no_flask() -> None:
    """The notifier serves no HTTP: importing it (every module of it) loads no Flask,
    no werkzeug and not the API edge."""
    code = (
        "import pkgutil, importlib, sys, service.notifier as n\n"
        "for m in pkgutil.iter_modules(n.__path__):\n"
        "    importlib.import_module('service.notifier.' + m.name)\n"
        "print(sorted(k for k in sys.modules if k.split('.')[0] in ('flask', 'werkzeug')"
        " or k in ('service.sessions.api', 'service.problems')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True,
        cwd=SESSIONS.parents[1],
    )  # fmt: skip
    assert out.stdout.strip() == "[]", out.stdout
    assert api.__name__ == "service.sessions.api"  # the edge itself is where HTTP lives
