"""The seat tokens tickets wait to hand over, kept in the match store sealed with each
ticket's secret (``sealed.py``): put when a ticket sits, taken once (handed over, or
used to give the seat back). A blob that does not open is a fault: logged loudly, and
refused with ``TicketTokenUnreadable`` (never a 500)."""

from __future__ import annotations

import logging

from .errors import TicketTokenUnreadable
from .sealed import seal, unseal
from .store import MatchStore

log = logging.getLogger("service.matchmaking")


class KeptTokens:
    def __init__(self, store: MatchStore) -> None:
        self.store = store

    def keep(self, ticket_id: str, token: str, secret: str, ttl: float) -> None:
        self.store.put_token(ticket_id, seal(token, secret, ticket_id), ttl)

    def hand_over(self, ticket_id: str, secret: str) -> str | None:
        """The token, the first time it is asked (None after, or when none was kept)."""
        sealed = self.store.take_token(ticket_id)
        return None if sealed is None else self._open(sealed, secret, ticket_id)

    def take_back(self, ticket_id: str, secret: str, ttl: float) -> str | None:
        """The token, taken to give its seat back; a blob that does not open is put back
        as it was (``TicketTokenUnreadable``: nothing changed)."""
        sealed = self.store.take_token(ticket_id)
        if sealed is None:
            return None
        try:
            return self._open(sealed, secret, ticket_id)
        except TicketTokenUnreadable:
            self.store.put_token(ticket_id, sealed, ttl)
            raise

    @staticmethod
    def _open(sealed: str, secret: str, ticket_id: str) -> str:
        try:
            return unseal(sealed, secret, ticket_id)
        except TicketTokenUnreadable as e:
            log.error("match ticket %s: %s: %s", ticket_id, e.code, e.detail)
            raise
