"""Quick-match settings: from the app config first, then the environment, then defaults.

| setting (config key = environment variable) | default | meaning |
|---|---|---|
| ``MATCH_TICKETS_PER_CLIENT`` | 4 | tickets one client (an address, as the quotas count it) may have waiting at once (then 429 ``too_many_tickets``): phones behind one NAT share an address |
| ``MATCH_WAIT_LIVE_SECONDS`` | 30 | how long a live ticket waits for people before bots fill its table's empty seats, when it names no ``wait_seconds`` |
| ``MATCH_WAIT_CORRESPONDENCE_SECONDS`` | 1200 | the same for a correspondence ticket |
| ``MATCH_MAX_WAIT_SECONDS`` | 1800 | the longest ``wait_seconds`` a ticket may name (below ``SESSION_TTL_SECONDS``: its table must outlive it) |
| ``MATCH_TICKET_TTL_SECONDS`` | 3600 | a ticket is forgotten this long after its wait ends (its token with it, when nobody collected it) |
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .models import Pace

DEFAULTS: dict[str, int] = {
    "MATCH_TICKETS_PER_CLIENT": 4,
    "MATCH_WAIT_LIVE_SECONDS": 30,
    "MATCH_WAIT_CORRESPONDENCE_SECONDS": 1200,
    "MATCH_MAX_WAIT_SECONDS": 1800,
    "MATCH_TICKET_TTL_SECONDS": 3600,
}


@dataclass(frozen=True)
class MatchConfig:
    tickets_per_client: int
    wait_live: int
    wait_correspondence: int
    max_wait: int
    ticket_ttl: int

    @classmethod
    def load(cls, config: Mapping[str, Any] | None = None) -> MatchConfig:
        """The settings of ``config``, else the environment, else ``DEFAULTS``; a value
        that is not a positive integer is a ``ValueError`` naming it (at start)."""
        got: dict[str, int] = {}
        for name, default in DEFAULTS.items():
            raw = (config or {}).get(name, os.environ.get(name, default))
            try:
                value = int(raw)
            except (TypeError, ValueError):
                raise ValueError(f"{name} must be an integer, got {raw!r}") from None
            if value < 1:
                raise ValueError(f"{name} must be positive, got {value}")
            got[name] = value
        if (
            max(got["MATCH_WAIT_LIVE_SECONDS"], got["MATCH_WAIT_CORRESPONDENCE_SECONDS"])
            > got["MATCH_MAX_WAIT_SECONDS"]
        ):
            raise ValueError("MATCH_WAIT_*_SECONDS must not exceed MATCH_MAX_WAIT_SECONDS")
        return cls(
            got["MATCH_TICKETS_PER_CLIENT"],
            got["MATCH_WAIT_LIVE_SECONDS"],
            got["MATCH_WAIT_CORRESPONDENCE_SECONDS"],
            got["MATCH_MAX_WAIT_SECONDS"],
            got["MATCH_TICKET_TTL_SECONDS"],
        )

    def default_wait(self, pace: Pace) -> int:
        return self.wait_live if pace is Pace.LIVE else self.wait_correspondence
