"""The quick match: a ticket is seated at once at the oldest filling table of its queue
that it fits (a public session waiting for seats, joined through the sessions' ``join``),
or at a new one (``create``, with the ticket's seat count: its ``seats.max``); the table
is dealt when its last seat is taken (by a ticket or by a lobby join), or when the
earliest deadline of its tickets passes (``fill_with_bots``: bots take the empty seats).

Every step on a queue runs while holding the queue's lock (``MatchStore.locked``), so
tickets are seated in the order they came, one at a time, by whichever replica takes
it. The sessions are used through ``SessionManager``'s public calls only (create, join,
the parts it builds: ``creation.create``, ``seats.join`` / ``leave`` /
``fill_with_bots``, and ``get``); their refusals (``SessionError``) are read by their
``code``.
"""

from __future__ import annotations

import hmac
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import orjson

from service.sessions import SessionManager
from service.sessions.problems import SessionError
from service.sessions.tokens import digest, new_token

from . import metrics
from .config import MatchConfig
from .errors import (
    TicketNotFound,
    TicketSeated,
    TicketSecretMissing,
    TicketSecretWrong,
    TooManyTickets,
)
from .kept import KeptTokens
from .models import PACE_CLOCKS, Table, Ticket, TicketStatus, queue_of
from .store import MatchStore

log = logging.getLogger("service.matchmaking")

#: Sessions' refusals that say a table was dealt meanwhile (a lobby join took its last seat).
DEALT = frozenset({"session_started", "session_full"})
GONE = "session_not_found"
#: Due queues one sweep settles at most.
SWEEP_BATCH = 20


class Matchmaker:
    def __init__(
        self,
        store: MatchStore,
        sessions: SessionManager,
        config: MatchConfig,
        now: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.sessions = sessions
        self.config = config
        self.now = now
        self.tokens = KeptTokens(store)

    # ------------------------------------------------------------------ calls
    def submit(self, req: dict[str, Any], client: str) -> tuple[Ticket, str]:
        """A new ticket for ``req`` (checked by the schema and ``check_request``), seated
        at a table; the ticket and its secret (shown once). Its ``identity`` (an
        assertion, checked by the sessions) goes to the seat and is not kept."""
        self.sweep()
        secret = new_token()
        pace = req["pace"]
        ticket = Ticket(
            ticket_id=secrets.token_urlsafe(12),
            secret_sha256=digest(secret),
            queue=queue_of(req["variant"], req.get("options"), pace),
            variant=req["variant"],
            options=req.get("options") or None,
            seats_min=req["seats_min"],
            seats_max=req["seats_max"],
            pace=pace,
            wait_seconds=req.get("wait_seconds") or self.config.default_wait(pace),
            name=req["name"],
            created=self.now(),
            client=client,
        )
        limit = self.config.tickets_per_client
        if not self.store.admit(
            client, ticket.ticket_id, ticket.deadline + 1, limit, ticket.created
        ):
            raise TooManyTickets(
                f"this client has {limit} tickets waiting, its quota; wait for one to be "
                "matched, or cancel one",
                retry_after=1,
            )
        try:
            with self.store.locked(ticket.queue):
                ticket = self._seat(ticket, self._person(ticket, req.get("identity")), secret)
        except BaseException:
            self.store.release(client, ticket.ticket_id)
            raise
        return ticket, secret

    def poll(self, ticket_id: str, secret: str | None) -> tuple[Ticket, str | None]:
        """The ticket as it stands (its table settled first when it is due or was dealt
        from the lobby), and its seat token the first time it is matched."""
        self._held(ticket_id, secret)  # nothing is swept for a caller who may not read
        self.sweep()
        ticket = self._held(ticket_id, secret)
        if ticket.status is TicketStatus.WAITING:
            due = ticket.deadline <= self.now()
            if due or self._session_status(ticket.session_id) != "waiting":
                self.settle(ticket.queue, check=ticket.session_id)
                ticket = self._held(ticket_id, secret)
        return ticket, self.hand_over(ticket, secret)

    def hand_over(self, ticket: Ticket, secret: str | None) -> str | None:
        """The seat's token, once the ticket is matched, the first time it is asked (the
        holder's ``secret`` opens it); else None."""
        if ticket.status is not TicketStatus.MATCHED or secret is None:
            return None
        return self.tokens.hand_over(ticket.ticket_id, secret)

    def cancel(self, ticket_id: str, secret: str | None) -> Ticket:
        """The ticket's seat given back before its table is dealt (409 ``ticket_matched``
        after). A cancelled or expired ticket answers as it is."""
        ticket = self._held(ticket_id, secret)
        with self.store.locked(ticket.queue):
            ticket = self._held(ticket_id, secret)
            if ticket.status is TicketStatus.MATCHED:
                raise TicketSeated("the ticket's table was dealt: play, or leave the session")
            if ticket.status is not TicketStatus.WAITING:
                return ticket
            tables = self.store.tables(ticket.queue)
            table = next((t for t in tables if ticket_id in t.tickets), None)
            if table is not None and self._session_status(table.session_id) != "waiting":
                self._matched(table, "people")
                self.store.put_tables(ticket.queue, [t for t in tables if t is not table])
                raise TicketSeated("the ticket's table was dealt: play, or leave the session")
            ttl = ticket.wait_seconds + self.config.ticket_ttl
            token = None if secret is None else self.tokens.take_back(ticket_id, secret, ttl)
            if table is not None:
                table.tickets.remove(ticket_id)
                if token is not None:
                    self._quiet(lambda: self.sessions.seats.leave(table.session_id, token))
                if not table.tickets:  # no ticket waits there: an ordinary lobby session now
                    tables.remove(table)
                self.store.put_tables(ticket.queue, tables)
            ticket = ticket.with_status(TicketStatus.CANCELLED)
            self.store.put_ticket(ticket, self.config.ticket_ttl)
        self.store.release(ticket.client, ticket_id)
        metrics.TICKETS.labels("cancelled").inc()
        self._count_waiting()
        return ticket

    # ------------------------------------------------------------------ the deadline
    def sweep(self) -> int:
        """Settle the queues with a table whose deadline passed: bots fill the tables'
        empty seats and deal. Any replica's request (and each worker's sweeper thread)
        calls it; the queue's lock makes one of them do it. How many queues it read."""
        due = self.store.due(self.now(), SWEEP_BATCH)
        for queue in due:
            self.settle(queue)
        return len(due)

    def settle(self, queue: str, check: str | None = None) -> None:
        """Under ``queue``'s lock: each table whose deadline passed filled with bots and
        dealt; the table of session ``check`` finished when it was dealt from the lobby."""
        with self.store.locked(queue):
            now = self.now()
            kept: list[Table] = []
            for table in self.store.tables(queue):
                if table.deadline <= now:
                    outcome = self._fill(table)
                elif table.session_id == check and self._session_status(check) != "waiting":
                    outcome = self._finish(table, "people")
                else:
                    outcome = False
                if not outcome:
                    kept.append(table)
            self.store.put_tables(queue, kept)
        self._count_waiting()

    # ------------------------------------------------------------------ seating
    @staticmethod
    def _person(ticket: Ticket, identity: str | None) -> dict[str, Any]:
        """The seat's person as a join or a create names it."""
        person: dict[str, Any] = {"name": ticket.name}
        if identity is not None:
            person["identity"] = identity
        return person

    def _seat(self, ticket: Ticket, person: dict[str, Any], secret: str) -> Ticket:
        """Seat ``ticket``'s ``person`` (the queue's lock held): at the oldest table it
        fits, else at a new one. The ticket as stored."""
        kept: list[Table] = []
        seated: Ticket | None = None
        for table in self.store.tables(ticket.queue):
            if seated is None and ticket.fits(table.size):
                try:
                    body = self._reply(self.sessions.seats.join(table.session_id, dict(person)))
                except SessionError as e:
                    if e.code in DEALT or e.code == GONE:
                        self._finish(table, "people" if e.code in DEALT else None)
                        continue
                    raise
                seated = self._sat(ticket, table, body, secret)
                if body["status"] != "waiting":
                    self._matched(table, "people")
                    continue
            kept.append(table)
        if seated is None:
            body = self._reply(self.sessions.creation.create(self._new_table(ticket, person), None))
            table = Table(body["session_id"], ticket.seats_max, ticket.deadline)
            seated = self._sat(ticket, table, body, secret)
            kept.append(table)
        self.store.put_tables(ticket.queue, kept)
        self._count_waiting()
        return self.store.ticket(ticket.ticket_id) or seated

    def _new_table(self, ticket: Ticket, person: dict[str, Any]) -> dict[str, Any]:
        """The session a new table is: public (listed in the lobby while it fills), the
        ticket's person at the first seat, the others open, the pace's clock."""
        players: list[dict[str, Any]] = [{**person, "bot": False, "open": False}]
        players += [{"bot": False, "open": True}] * (ticket.seats_max - 1)
        req: dict[str, Any] = {"variant": ticket.variant, "players": players, "public": True}
        # With a webhook configured, the table notifies: an app whose phone is closed learns
        # its ticket's table was dealt from ``game.started`` (the ticket names the session).
        req["notify"] = self.sessions.config.notifying
        req.update(spectators="anyone", on_leave="bot", clock=dict(PACE_CLOCKS[ticket.pace]))
        if ticket.options:
            req["options"] = ticket.options
        return req

    def _sat(self, ticket: Ticket, table: Table, body: dict[str, Any], secret: str) -> Ticket:
        """Record ``ticket`` at ``table``: its seat, and its token sealed under a key
        derived from its secret (``kept.py``), from the session's answer."""
        table.tickets.append(ticket.ticket_id)
        table.deadline = min(table.deadline, ticket.deadline)
        ticket = replace(
            ticket, session_id=table.session_id, seat=body["seat"], seated_at=self.now()
        )
        ttl = ticket.wait_seconds + self.config.ticket_ttl
        self.tokens.keep(ticket.ticket_id, body["token"], secret, ttl)
        self.store.put_ticket(ticket, ttl)
        return ticket

    def _fill(self, table: Table) -> bool:
        """Bots take the table's empty seats and the game is dealt; True when the table
        is done with (dealt, by this or before, or gone)."""
        try:
            self.sessions.seats.fill_with_bots(table.session_id)
        except SessionError as e:
            if e.code in DEALT:
                return self._finish(table, "people")
            if e.code == GONE:
                return self._finish(table, None)
            log.error("match table %s: bots could not fill it: %s", table.session_id, e.code)
            return False
        self._matched(table, "bots")
        return True

    def _finish(self, table: Table, filled_by: str | None) -> bool:
        """A table dealt (``filled_by``) or gone (None): its tickets matched or expired."""
        if filled_by is None:
            for ticket_id in table.tickets:
                self._close(ticket_id, TicketStatus.EXPIRED, "expired")
        else:
            self._matched(table, filled_by)
        return True

    def _matched(self, table: Table, filled_by: str) -> None:
        now = self.now()
        for ticket_id in table.tickets:
            ticket = self._close(ticket_id, TicketStatus.MATCHED, "matched", now)
            if ticket is not None:
                metrics.TIME_TO_SEAT.labels(filled_by).observe(max(0.0, now - ticket.created))

    def _close(
        self, ticket_id: str, status: TicketStatus, outcome: str, at: float | None = None
    ) -> Ticket | None:
        ticket = self.store.ticket(ticket_id)
        if ticket is None or ticket.status is not TicketStatus.WAITING:
            return None
        ticket = ticket.with_status(status, at)
        self.store.put_ticket(ticket, self.config.ticket_ttl)
        self.store.release(ticket.client, ticket_id)
        metrics.TICKETS.labels(outcome).inc()
        return ticket

    # ------------------------------------------------------------------ helpers
    def _held(self, ticket_id: str, secret: str | None) -> Ticket:
        ticket = self.store.ticket(ticket_id)
        if ticket is None:
            raise TicketNotFound(f"no ticket {ticket_id!r} (it may have expired)")
        if secret is None:
            raise TicketSecretMissing("send the ticket's secret: Authorization: Bearer <secret>")
        if not hmac.compare_digest(digest(secret), ticket.secret_sha256):
            raise TicketSecretWrong("that is not this ticket's secret")
        return ticket

    def _session_status(self, sid: str | None) -> str | None:
        """The session's status as a spectator reads it (None: gone)."""
        if sid is None:
            return None
        try:
            body = self._reply(self.sessions.get(sid, None))
        except SessionError as e:
            if e.code == GONE:
                return None
            raise
        return str(body["status"])

    @staticmethod
    def _reply(reply: Any) -> dict[str, Any]:
        return orjson.loads(reply.body)  # type: ignore[no-any-return]

    @staticmethod
    def _quiet(call: Callable[[], Any]) -> None:
        try:
            call()
        except SessionError as e:
            log.info("match: a seat given back was refused: %s", e.code)

    def _count_waiting(self) -> None:
        try:
            metrics.TICKETS_WAITING.set(self.store.waiting())
        except Exception as e:  # the gauge must never fail a request
            log.warning("match: tickets waiting not counted: %s", e)
