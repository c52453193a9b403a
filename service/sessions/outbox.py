"""What a commit writes for the notifier: the webhooks its change causes, the turn's
clock warning, the clock's next deadline for the sweeper, and how long the session
lives.

``Outbox.notices`` reads a change (the session before and after it, its events and
move-log entries) and gives ``store.Notices``, which the store writes in the same
script as the change (``outbox_keys``: the session's outbox, in its slot), so a change
answered 2xx has its notifications stored, and a change that lost its compare-and-set
has none. A session writes notifications when it was created with ``notify`` and the
deployment has a webhook (``WEBHOOK_URL``); its next deadline is indexed when it has a
clock and the sweeper is on (``CLOCK_SWEEPER``).

Each webhook's body follows the Standard Webhooks shape ``{type, timestamp, data}``;
``WEBHOOK_EVENTS`` names each type once with the fields of its ``data`` beside the
common ``session_id``, ``version`` and ``variant`` (the spec's ``webhooks`` has one
entry per type: tests/notifier/test_outbox.py checks they agree). A webhook carries no
card and nothing hidden: seats, names, the seat's ``external_id`` (the app's reference,
which its backend gave), deadlines, and at the end the scores every seat sees. Its
``webhook-id`` is ``<sid>.<version>.<n>`` (``.w`` for the clock warning): the same on
every try.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import orjson

from engine import Event

from .config import Env
from .events import rfc3339
from .models import Meta, Snapshot, wire_bot
from .store import Notices

#: Each webhook type and the fields of its ``data`` beside ``COMMON``.
WEBHOOK_EVENTS: dict[str, tuple[str, ...]] = {
    # A person took an open seat.
    "seat.joined": ("seat", "name", "external_id"),
    # The cards are dealt: every seat (``SEATS``).
    "game.started": ("seats",),
    # The game waits for ``seat``'s move (``deadline``: when its clock runs out, or null).
    "turn.started": ("seat", "external_id", "deadline"),
    # ``seat``'s turn runs out at ``deadline`` (``WEBHOOK_WARNING_SECONDS`` before it).
    "turn.clock_warning": ("seat", "external_id", "deadline"),
    # ``seat``'s time ran out at ``deadline``: the clock played ``forced_moves`` for it.
    "turn.timed_out": ("seat", "external_id", "deadline", "forced_moves"),
    # A bot plays ``seat`` from now on (``reason``: ``timeouts`` or ``left``).
    "seat.bot_took_over": ("seat", "external_id", "reason"),
    # ``seat``'s person took it back from the bot that took it after its timeouts.
    "seat.returned": ("seat", "external_id"),
    # The game is over: the ``winners`` (seats) and every seat's ``scores``.
    "game.over": ("seats", "winners", "scores"),
}
#: The fields every webhook's ``data`` carries.
COMMON = ("session_id", "version", "variant")
#: The fields of each entry of ``seats``.
SEATS = ("seat", "name", "bot", "external_id")


def webhook(kind: str, at: float, common: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """A webhook's body of ``kind`` with exactly its fields."""
    want = WEBHOOK_EVENTS[kind]
    if set(fields) != set(want):
        raise ValueError(f"a {kind!r} webhook has the fields {want}, not {sorted(fields)}")
    return {"type": kind, "timestamp": rfc3339(at), "data": {**common, **fields}}


def seats_of(meta: Meta) -> list[dict[str, Any]]:
    """Every seat as a webhook shows it: its ``bot`` spelled as in every answer
    (``models.wire_bot``: false, true for the simple bot, or the level's name)."""
    return [
        {"seat": s.seat, "name": s.name, "bot": wire_bot(s.bot), "external_id": s.external_id}
        for s in meta.seats
    ]


class Outbox:
    """A session's deadlines are its own (``Snapshot.next_deadline``, ``sweep_at``)."""

    def __init__(self, env: Env) -> None:
        self.env = env

    def ttl(self, new: Snapshot) -> float | None:
        """How long ``new`` lives from now: the store's TTL past its clock's deadline
        (a turn of days keeps the session for days); None: the store's TTL."""
        deadline = new.next_deadline(self.env.config) if new.meta.clock is not None else None
        if deadline is None:
            return None
        return self.env.config.ttl + max(0.0, deadline - self.env.now())

    def notices(
        self, base: Snapshot | None, new: Snapshot, events: Sequence[Event], moves: Sequence[bytes]
    ) -> Notices | None:
        """What the change from ``base`` (None: a new session) to ``new`` writes for the
        notifier, or None (the session neither notifies nor is swept)."""
        config = self.env.config
        notifying = config.notifying and new.meta.notify
        sweeping = config.sweeping and (new.meta.clock is not None or notifying)
        if not (sweeping or notifying):
            return None
        now = self.env.now()
        deadline = new.next_deadline(config)
        swept = new.sweep_at(config, now) if sweeping else None
        deadline_ms = None if swept is None else int(swept * 1000)
        if not notifying:
            return Notices(deadline_ms=deadline_ms, now_ms=int(now * 1000))
        common = {"session_id": new.sid, "version": new.version, "variant": new.meta.variant}
        bodies = list(self._caused(base, new, events, moves, now, deadline, common))
        entries = tuple(entry(f"{new.sid}.{new.version}.{i}", b) for i, b in enumerate(bodies))
        warning, due = None, 0
        seat = new.waiting_person()
        lead = config.webhook_warning_seconds
        if seat is not None and deadline is not None and lead > 0 and deadline - lead > now:
            ext = new.meta.seats[seat].external_id
            body = webhook(
                "turn.clock_warning", deadline - lead, common,
                seat=seat, external_id=ext, deadline=rfc3339(deadline),
            )  # fmt: skip
            warning, due = entry(f"{new.sid}.{new.version}.w", body), int((deadline - lead) * 1000)
        keep = (config.webhook_retry_seconds + (self.ttl(new) or config.ttl)) * 1000
        outbox_max = config.webhook_outbox_max
        return Notices(entries, warning, due, deadline_ms, int(now * 1000), int(keep), outbox_max)

    def _caused(
        self,
        base: Snapshot | None,
        new: Snapshot,
        events: Sequence[Event],
        moves: Sequence[bytes],
        now: float,
        deadline: float | None,
        common: dict[str, Any],
    ) -> Iterator[dict[str, Any]]:
        """The webhooks of the change, in the order of its events; the turn last."""
        meta = new.meta

        def ext(seat: int) -> str | None:
            return meta.seats[seat].external_id

        if base is None and new.state is not None:
            yield webhook("game.started", now, common, seats=seats_of(meta))
        timed_out = False
        for e in events:
            kind = e.get("type")
            if kind == "joined":
                seat = e["player"]
                yield webhook(
                    "seat.joined", now, common, seat=seat, name=e["name"], external_id=ext(seat)
                )
            elif kind == "started":
                yield webhook("game.started", now, common, seats=seats_of(meta))
            elif kind == "timeout":
                timed_out = True
                seat = e["player"]
                yield webhook(
                    "turn.timed_out", now, common, seat=seat, external_id=ext(seat),
                    deadline=e["deadline"], forced_moves=e["moves"],
                )  # fmt: skip
            elif kind == "bot_took_seat" or (kind == "left" and e["replaced_by"] == "bot"):
                seat = e["player"]
                reason = e["reason"] if kind == "bot_took_seat" else "left"
                yield webhook(
                    "seat.bot_took_over", now, common, seat=seat, external_id=ext(seat),
                    reason=reason,
                )  # fmt: skip
            elif kind == "seat_returned":
                seat = e["player"]
                yield webhook("seat.returned", now, common, seat=seat, external_id=ext(seat))
            elif kind == "game_over":
                yield webhook(
                    "game.over", now, common, seats=seats_of(meta),
                    winners=list(e["winners"]), scores=list(e["scores"]),
                )  # fmt: skip
        seat = new.waiting_person()
        if seat is not None and (turn_began(base, seat, moves, timed_out) or released(base, new)):
            shown = None  # the deadline as the answers show it (never moving earlier)
            if deadline is not None and meta.clock is not None:
                shown = rfc3339(meta.clock.shown_deadline(seat, now))
            yield webhook(
                "turn.started", now, common, seat=seat, external_id=ext(seat), deadline=shown
            )


def turn_began(base: Snapshot | None, seat: int, moves: Sequence[bytes], timed_out: bool) -> bool:
    """Whether the game began to wait for ``seat`` in this change: it waited for another
    seat (or nothing was dealt), or some other seat moved, or a clock ran out."""
    if base is None or base.state is None or timed_out or base.waiting_person() != seat:
        return True
    return any(orjson.loads(m)["move"]["player"] != seat for m in moves)


def released(base: Snapshot | None, new: Snapshot) -> bool:
    """Whether the clock's hold after the deal ended in this change (every person told
    before ``held_until``): the turn's deadline moved, so its ``turn.started`` is sent
    again with the deadline it has now."""
    before = None if base is None else base.meta.clock
    after = new.meta.clock
    return bool(before and before.held_for) and after is not None and not after.held_for


def entry(webhook_id: str, body: dict[str, Any]) -> bytes:
    """An outbox entry: the webhook-id, a newline, the body as sent."""
    return webhook_id.encode() + b"\n" + orjson.dumps(body)


def parse_entry(raw: bytes) -> tuple[str, bytes]:
    """An outbox entry's webhook-id and body."""
    webhook_id, _, body = raw.partition(b"\n")
    return webhook_id.decode(), body
