"""The ``/v1/matches`` blueprint: quick-match tickets. Thin views over ``Matchmaker``;
its domain errors (``errors.py``) become problem+json where the sessions' do
(``service.sessions.api.problem``), a store outage here.

- ``POST /v1/matches``: a ticket (201), with its ``secret``, shown once.
- ``GET /v1/matches/{id}``: the ticket (``Authorization: Bearer <secret>``); matched,
  the first answer also carries the seat's ``token``.
- ``DELETE /v1/matches/{id}``: the ticket cancelled (its seat given back).
"""

from __future__ import annotations

import logging
from typing import Any

import orjson
from flask import Blueprint, Response, current_app, request

from service.http import json_body
from service.redis.client import StoreUnavailable
from service.sessions import identity
from service.sessions.api import bearer, client, problem
from service.sessions.events import rfc3339
from service.sessions.names import clean

from .errors import QueueBusy
from .matcher import Matchmaker
from .models import Ticket
from .schemas import check_request, match_schema

log = logging.getLogger("service.matchmaking")
bp = Blueprint("matches", __name__, url_prefix="/v1/matches")


def matchmaker() -> Matchmaker:
    return current_app.extensions["matchmaking"]  # type: ignore[no-any-return]


@bp.errorhandler(QueueBusy)
def _busy(e: QueueBusy) -> Response:
    log.error("match queue: %s", e.detail)
    return problem(e)


@bp.errorhandler(StoreUnavailable)
def _unavailable(e: StoreUnavailable) -> Response:
    log.error("match store unavailable: %s", e)
    return problem(QueueBusy("the match store cannot be reached; try again shortly", 1))


def ticket_body(ticket: Ticket, token: str | None = None) -> dict[str, Any]:
    """A ticket as its holder sees it (never its secret's hash or its client)."""
    return {
        "ticket_id": ticket.ticket_id,
        "status": ticket.status.value,
        "variant": ticket.variant,
        "options": ticket.options,
        "seats": {"min": ticket.seats_min, "max": ticket.seats_max},
        "pace": ticket.pace.value,
        "wait_seconds": ticket.wait_seconds,
        "created_at": rfc3339(ticket.created),
        "deadline": rfc3339(ticket.deadline),
        "session_id": ticket.session_id,
        "seat": ticket.seat,
        "seated_at": None if ticket.seated_at is None else rfc3339(ticket.seated_at),
        "matched_at": None if ticket.matched_at is None else rfc3339(ticket.matched_at),
        "token": token,
    }


def _answer(body: dict[str, Any], status: int = 200) -> Response:
    resp = Response(orjson.dumps(body), status=status, mimetype="application/json")
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.post("")
def create_ticket() -> Response:
    mm = matchmaker()
    req = check_request(json_body(match_schema), mm.config.max_wait)
    req["name"] = clean(req["name"], "name")
    identity.external_id(mm.sessions.config.identity_key, req, "")  # 422 before any seat
    ticket, secret = mm.submit(req, client())
    body = ticket_body(ticket, mm.hand_over(ticket, secret))
    body["secret"] = secret
    resp = _answer(body, 201)
    resp.headers["Location"] = f"{bp.url_prefix}/{ticket.ticket_id}"
    return resp


@bp.get("/<ticket_id>")
def get_ticket(ticket_id: str) -> Response:
    ticket, token = matchmaker().poll(ticket_id, bearer(request.headers.get("Authorization")))
    return _answer(ticket_body(ticket, token))


@bp.delete("/<ticket_id>")
def cancel_ticket(ticket_id: str) -> Response:
    ticket = matchmaker().cancel(ticket_id, bearer(request.headers.get("Authorization")))
    return _answer(ticket_body(ticket))
