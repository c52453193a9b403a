"""A ticket (one person's request to play) and a table (a public session the quick
match fills), as the match store keeps them: plain JSON objects."""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field, replace
from enum import Enum
from typing import Any

import orjson


class Pace(Enum):
    LIVE = "live"
    CORRESPONDENCE = "correspondence"


#: The turn clock of a table of each pace (the lobby shows it as the table's ``pace``): a
#: live table's seat goes to a bot after two turns missed; a correspondence turn is a day.
PACE_CLOCKS: dict[Pace, dict[str, int]] = {
    Pace.LIVE: {"turn_seconds": 60, "max_timeouts": 2},
    Pace.CORRESPONDENCE: {"turn_seconds": 86_400},
}


class TicketStatus(Enum):
    #: Seated at a table that fills: its session waits for seats.
    WAITING = "waiting"
    #: Its table was dealt (full of people, or bots took the empty seats).
    MATCHED = "matched"
    CANCELLED = "cancelled"
    #: Its table's session was gone before it was dealt (it expired or was deleted).
    EXPIRED = "expired"


@dataclass(frozen=True)
class Ticket:
    ticket_id: str
    secret_sha256: str
    queue: str
    variant: str
    options: dict[str, Any] | None
    seats_min: int
    seats_max: int
    pace: Pace
    wait_seconds: int
    name: str
    created: float
    client: str
    status: TicketStatus = TicketStatus.WAITING
    session_id: str | None = None
    seat: int | None = None
    #: When it sat at its table (under the queue's lock), and when the table was dealt.
    seated_at: float | None = None
    matched_at: float | None = None

    @property
    def deadline(self) -> float:
        """When bots fill its table's empty seats at the latest."""
        return self.created + self.wait_seconds

    def fits(self, size: int) -> bool:
        return self.seats_min <= size <= self.seats_max

    def to_json(self) -> bytes:
        d = asdict(self)
        d["pace"], d["status"] = self.pace.value, self.status.value
        return orjson.dumps(d)

    @classmethod
    def from_json(cls, raw: bytes | str) -> Ticket:
        d = orjson.loads(raw)
        d["pace"], d["status"] = Pace(d["pace"]), TicketStatus(d["status"])
        return cls(**d)

    def with_status(self, status: TicketStatus, at: float | None = None) -> Ticket:
        return replace(self, status=status, matched_at=at if at is not None else self.matched_at)


@dataclass
class Table:
    """A public session the quick match fills: its seats, when bots fill it (the earliest
    deadline of its tickets) and its tickets in the order they sat."""

    session_id: str
    size: int
    deadline: float
    tickets: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def queue_of(variant: str, options: dict[str, Any] | None, pace: Pace) -> str:
    """The queue of tickets that may share a table: the same variant, house rules and
    pace (a digest, so it fits a key and a hash tag)."""
    key = orjson.dumps([variant, options or {}, pace.value], option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(key).hexdigest()[:24]


def tables_from_json(raw: bytes | str | None) -> list[Table]:
    return [] if raw is None else [Table(**t) for t in orjson.loads(raw)]


def tables_to_json(tables: list[Table]) -> bytes:
    return orjson.dumps([t.to_dict() for t in tables])
