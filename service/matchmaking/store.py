"""Where tickets and the queues' tables live: ``MatchStore`` (the interface), and
``MemoryMatchStore`` (one process: tests, ``make run`` without Redis).

Every change of a queue (its tables, the tickets seated there) is made while holding
the queue's lock (``locked``), by whichever replica or worker took it, so one queue
is one line across them all: no ticket is seated twice, no two tables are opened for
tickets that fit one. A ticket's token is handed over once (``take_token``). A
client's tickets waiting are counted in one step (``admit``)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager

from .models import Table, Ticket


class MatchStore:
    kind = "abstract"
    #: Closed: no sweep reads it any more.
    closed = False

    def locked(self, queue: str) -> AbstractContextManager[None]:
        """Hold ``queue``'s lock (``QueueBusy`` when it cannot be had in time)."""
        raise NotImplementedError

    def tables(self, queue: str) -> list[Table]:
        raise NotImplementedError

    def put_tables(self, queue: str, tables: list[Table]) -> None:
        """Keep ``tables`` as the queue's filling tables, and index the queue as due at
        their earliest deadline (none: not due)."""
        raise NotImplementedError

    def ticket(self, ticket_id: str) -> Ticket | None:
        raise NotImplementedError

    def put_ticket(self, ticket: Ticket, ttl: float) -> None:
        raise NotImplementedError

    def put_token(self, ticket_id: str, token: str, ttl: float) -> None:
        raise NotImplementedError

    def take_token(self, ticket_id: str) -> str | None:
        """The seat token, once: the first call has it, later ones None."""
        raise NotImplementedError

    def admit(self, client: str, ticket_id: str, until: float, limit: int, now: float) -> bool:
        """Count ``ticket_id`` among ``client``'s waiting tickets (until ``until``)
        unless it has ``limit`` already."""
        raise NotImplementedError

    def release(self, client: str, ticket_id: str) -> None:
        raise NotImplementedError

    def due(self, now: float, limit: int) -> list[str]:
        """Queues with a table whose deadline passed by ``now``, the oldest first."""
        raise NotImplementedError

    def waiting(self) -> int:
        """Tickets waiting in every queue (what the metrics report)."""
        raise NotImplementedError

    def close(self) -> None:
        self.closed = True


class MemoryMatchStore(MatchStore):
    kind = "memory"

    def __init__(self) -> None:
        self._mutex = threading.Lock()
        self._queue_locks: dict[str, threading.Lock] = {}
        self._tables: dict[str, list[Table]] = {}
        self._due: dict[str, float] = {}
        self._tickets: dict[str, tuple[bytes, float]] = {}
        self._tokens: dict[str, tuple[str, float]] = {}
        self._clients: dict[str, dict[str, float]] = {}

    @contextmanager
    def _locked(self, queue: str) -> Iterator[None]:
        with self._mutex:
            lock = self._queue_locks.setdefault(queue, threading.Lock())
        with lock:
            yield

    def locked(self, queue: str) -> AbstractContextManager[None]:
        return self._locked(queue)

    def tables(self, queue: str) -> list[Table]:
        with self._mutex:
            return [Table(**t.to_dict()) for t in self._tables.get(queue, [])]

    def put_tables(self, queue: str, tables: list[Table]) -> None:
        with self._mutex:
            if tables:
                self._tables[queue] = [Table(**t.to_dict()) for t in tables]
                self._due[queue] = min(t.deadline for t in tables)
            else:
                self._tables.pop(queue, None)
                self._due.pop(queue, None)

    def ticket(self, ticket_id: str) -> Ticket | None:
        with self._mutex:
            got = self._tickets.get(ticket_id)
        if got is None or got[1] < time.time():
            return None
        return Ticket.from_json(got[0])

    def put_ticket(self, ticket: Ticket, ttl: float) -> None:
        with self._mutex:
            self._tickets[ticket.ticket_id] = (ticket.to_json(), time.time() + ttl)

    def put_token(self, ticket_id: str, token: str, ttl: float) -> None:
        with self._mutex:
            self._tokens[ticket_id] = (token, time.time() + ttl)

    def take_token(self, ticket_id: str) -> str | None:
        with self._mutex:
            got = self._tokens.pop(ticket_id, None)
        return None if got is None or got[1] < time.time() else got[0]

    def admit(self, client: str, ticket_id: str, until: float, limit: int, now: float) -> bool:
        with self._mutex:
            held = {t: u for t, u in self._clients.get(client, {}).items() if u > now}
            if len(held) >= limit:
                self._clients[client] = held
                return False
            held[ticket_id] = until
            self._clients[client] = held
            return True

    def release(self, client: str, ticket_id: str) -> None:
        with self._mutex:
            self._clients.get(client, {}).pop(ticket_id, None)

    def due(self, now: float, limit: int) -> list[str]:
        with self._mutex:
            passed = sorted((at, q) for q, at in self._due.items() if at <= now)
        return [q for _, q in passed[:limit]]

    def waiting(self) -> int:
        with self._mutex:
            return sum(len(t.tickets) for ts in self._tables.values() for t in ts)
