"""Session errors: the service's ``ApiProblem`` (its error table renders problem+json,
``{type, title, status, detail, code}``), with the session codes spelled once."""

from __future__ import annotations

from typing import Any

from service.problems import ApiProblem

SessionProblem = ApiProblem


def not_found(sid: str) -> ApiProblem:
    return ApiProblem(404, "session_not_found", f"no session {sid!r} (it may have expired)")


def unavailable(retry_after: int) -> ApiProblem:
    return ApiProblem(
        503,
        "store_unavailable",
        "the session store cannot be reached; try again shortly",
        headers={"Retry-After": str(retry_after)},
    )


def invalid_request(detail: str, errors: dict[str, Any]) -> ApiProblem:
    return ApiProblem(400, "invalid_request", detail, errors=errors)


def client_seed_refused() -> ApiProblem:
    return ApiProblem(
        422,
        "client_seed_not_allowed",
        "this service chooses every session's seed (ALLOW_CLIENT_SEED is off): leave seed out",
        errors={"seed": ["not allowed here"]},
    )
