"""The quick match's domain errors, each with its stable ``code``. No HTTP here: each
refines a kind of the sessions' refusals (``service.sessions.problems``: not found,
unauthenticated, stage, quota ...), and the one place that maps a kind to its status
and problem+json (``service.sessions.api``: ``STATUS``, ``problem``) answers them too.
Nothing else spells a quick-match code."""

from __future__ import annotations

from service.sessions.problems import (
    NotFoundError,
    QuotaError,
    RefusedError,
    StageError,
    UnauthenticatedError,
    UnavailableError,
)


class MatchError:
    """What every quick-match refusal adds to its session kind (the class it is mixed
    into, before that kind): its class's ``code``, a ``detail``, ``retry_after``."""

    code = "invalid_request"

    def __init__(self, detail: str, retry_after: int | None = None) -> None:
        # the next class in the MRO is the session kind (a ``SessionError``)
        super().__init__(detail, code=type(self).code, retry_after=retry_after)  # type: ignore[call-arg]


class TicketNotFound(MatchError, NotFoundError):
    code = "ticket_not_found"


class TicketSecretMissing(MatchError, UnauthenticatedError):
    code = "missing_token"

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.presented = False


class TicketSecretWrong(MatchError, UnauthenticatedError):
    code = "invalid_ticket_secret"


class TicketSeated(MatchError, StageError):
    """A cancel that came after the ticket's table was dealt."""

    code = "ticket_matched"


class TicketTokenUnreadable(MatchError, StageError):
    """The seat token kept for a ticket does not open with its secret: altered in the
    store (``sealed.py``). A real fault, logged where it is met; the client gets this
    code, not a 500."""

    code = "ticket_token_unreadable"


class TooManyTickets(MatchError, QuotaError):
    code = "too_many_tickets"


class WaitTooLong(MatchError, RefusedError):
    """A ``wait_seconds`` past the deployment's ``MATCH_MAX_WAIT_SECONDS`` (a setting, so
    the spec's schema cannot state it)."""

    code = "wait_too_long"


class SeatsOutOfRange(MatchError, RefusedError):
    """Seats the variant cannot be played with."""

    code = "invalid_player_count"


class QueueBusy(MatchError, UnavailableError):
    """The queue's lock was held past the time a request may wait for it."""

    code = "store_unavailable"
