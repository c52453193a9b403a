"""The quick match's domain errors, each with its stable ``code``; the blueprint
(``api.py``) maps them to problem+json. Nothing else spells a quick-match code."""

from __future__ import annotations


class MatchError(Exception):
    """A refusal of a ticket call: ``status`` and ``code`` as the client sees them."""

    status = 400
    code = "invalid_request"

    def __init__(self, detail: str, retry_after: int | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.retry_after = retry_after


class TicketNotFound(MatchError):
    status = 404
    code = "ticket_not_found"


class TicketSecretMissing(MatchError):
    status = 401
    code = "missing_token"


class TicketSecretWrong(MatchError):
    status = 401
    code = "invalid_ticket_secret"


class TicketSeated(MatchError):
    """A cancel that came after the ticket's table was dealt."""

    status = 409
    code = "ticket_matched"


class TicketTokenUnreadable(MatchError):
    """The seat token kept for a ticket does not open with its secret: altered in the
    store (``sealed.py``). A real fault, logged; the client gets this code, not a 500."""

    status = 409
    code = "ticket_token_unreadable"


class TooManyTickets(MatchError):
    status = 429
    code = "too_many_tickets"


class SeatsOutOfRange(MatchError):
    """Seats the variant cannot be played with."""

    status = 422
    code = "invalid_player_count"


class QueueBusy(MatchError):
    """The queue's lock was held past the time a request may wait for it."""

    status = 503
    code = "store_unavailable"
