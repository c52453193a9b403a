"""Seat changes: a person joins an open seat (the last one deals the cards), a seat
leaves (before the start it is open again, after it a bot plays it: its moves within
``SESSION_BOT_CPU_MS``, the rest owed to the next requests), a bot takes a seat.

Each change is a compare-and-set that replaces the meta (``Repository.change``), retried
after a lost race, so a race for the last seat has one winner.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import engine
from engine import Event, State

from . import access, problems, tokens
from .bots import BotPlayer
from .config import Env
from .events import session_event
from .lobby import Lobby
from .models import BotLevel, Meta, Reply, Seat, Snapshot
from .records import logged
from .repo import Change, Repository
from .views import seat_changed


class Seats:
    def __init__(self, env: Env, repo: Repository, bots: BotPlayer, lobby: Lobby) -> None:
        self.env = env
        self.repo = repo
        self.bots = bots
        self.lobby = lobby

    def join(self, sid: str, req: dict[str, Any]) -> Reply:
        """Take an open seat (with the invitation code, or none for a public session):
        the seat's token, once. The last open seat deals the cards."""
        token = tokens.new_token()
        name: str = req["name"]

        def step(c: Snapshot) -> Change[int]:
            meta = c.meta
            access.check_invitation(meta, req.get("code"))
            if c.state is not None:
                raise problems.session_started()
            seat = open_seat(meta, req.get("seat"))
            meta = meta.with_seat(Seat(seat, name, None, tokens.digest(token)))
            events = [session_event("joined", player=seat, name=name)]
            state: State | None = None
            moves: list[bytes] = []
            if not meta.open_seats:
                state, dealt, moves = self.deal(sid, c.version, meta)
                if meta.clock is not None:  # the clock starts with the game
                    meta = replace(meta, clock=meta.clock.restart(self.env.now()))
                events += dealt
            return Change(seat, c.then(state, meta, len(events)), events, moves)

        c, seat = self.repo.change(sid, step)
        if c.state is not None and c.meta.public:
            self.lobby.unlist([(sid, c.meta.variant)])
        return seat_changed(c, seat, token=token)

    def deal(self, sid: str, version: int, meta: Meta) -> tuple[State, list[Event], list[bytes]]:
        """The game dealt from the setup kept in ``meta`` (a ``started`` event, the deal's
        events, the bots' first moves), for the commit over ``version``."""
        if meta.seed is None:
            raise RuntimeError(f"session {sid}: its meta keeps no seed")
        state, setup = problems.judged(
            engine.start, meta.variant, len(meta.seats), meta.seed, meta.dealer, meta.options
        )
        state, bot_events, made = self.bots.play(sid, version, state, meta, setup)
        events = [session_event("started"), *setup, *bot_events]
        return state, events, logged(made, "bot", self.env.now())

    def leave(self, sid: str, token: str | None) -> Reply:
        """The token's seat leaves: before the start the seat is open again, after it a
        bot plays it (``OnLeave.BOT``). Its token no longer works."""

        def step(c: Snapshot) -> Change[int]:
            seat = access.holder_seat(c.meta, token)
            name = c.meta.seats[seat].name
            state, moves = c.state, []
            if state is None:
                meta = c.meta.with_seat(Seat(seat, f"Player {seat + 1}", None, None, open=True))
                events = [session_event("left", player=seat, name=name, replaced_by="open")]
            else:
                meta = hand_to_bot(c.meta, seat)
                events = [session_event("left", player=seat, name=name, replaced_by="bot")]
                state, bot_events, made = self.bots.play(
                    sid, c.version, state, meta, events, before=c.history,
                    cpu_until=self.bots.cpu_deadline(),  # the rest is owed (Timekeeper)
                )  # fmt: skip
                events += bot_events
                now = self.env.now()
                moves = logged(made, "bot", now)
                if made and meta.clock is not None:  # the game waits for a move from now
                    meta = replace(meta, clock=meta.clock.restart(now))
            return Change(seat, c.then(state, meta, len(events)), events, moves)

        c, seat = self.repo.change(sid, step)
        return seat_changed(c, seat)


def hand_to_bot(meta: Meta, seat: int) -> Meta:
    """``meta`` with ``seat`` played by the simple bot from now on (its token no longer
    works)."""
    return meta.with_seat(
        replace(meta.seats[seat], bot=BotLevel.SIMPLE, token_sha256=None, open=False)
    )


def open_seat(meta: Meta, wanted: int | None) -> int:
    """The seat a join takes: ``wanted``, else the lowest open one (409 when none is)."""
    if wanted is None:
        if meta.open_seats:
            return meta.open_seats[0]
    elif wanted < len(meta.seats) and meta.seats[wanted].open:
        return wanted
    raise problems.session_full(wanted)
