"""Seat changes: a person joins an open seat (the last one deals the cards), a seat
leaves (before the start it is open again, after it a bot plays it:
``Meta.handed_to_bot``, as after too many timeouts; its moves within
``SESSION_BOT_CPU_MS``, the rest owed to the next requests), a person takes back the
seat a bot took after its timeouts (``take_back``, with the token it lost). A seat's
token that stops working is kept as its former token (``Seat.lost``), so its holder is
told what became of the seat (``access.not_a_seat_token``).

Each change is a compare-and-set that replaces the meta (``Repository.change``), retried
after a lost race, so a race for the last seat has one winner.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import orjson

import engine
from engine import Event, State

from . import access, identity, problems, tokens
from .bots import BotPlayer
from .config import Env
from .events import session_event
from .lobby import Lobby
from .models import BotLevel, LostReason, LostToken, Meta, Reply, Seat, Snapshot, Status
from .presence import Presence
from .records import logged
from .repo import Change, Repository
from .timekeeper import restarted
from .views import Views, redacted


class Seats:
    def __init__(
        self,
        env: Env,
        repo: Repository,
        bots: BotPlayer,
        lobby: Lobby,
        views: Views,
        presence: Presence,
    ) -> None:
        self.env = env
        self.repo = repo
        self.bots = bots
        self.lobby = lobby
        self.views = views
        self.presence = presence

    def join(self, sid: str, req: dict[str, Any]) -> Reply:
        """Take an open seat (with the invitation code, or none for a public session):
        the session as that seat sees it (the first turn's view when this join deals)
        and the seat's token, once. The joiner is there (presence) and told of the deal;
        the clock holds for the others (``Clock.dealt``)."""
        token = tokens.new_token()
        name: str = req["name"]
        ext = identity.external_id(self.env.config.identity_key, req, "")

        def step(c: Snapshot) -> Change[tuple[int, list[Event]]]:
            meta = c.meta
            access.check_invitation(meta, req.get("code"))
            if c.state is not None:
                raise problems.session_started()
            self.within_caps(c)
            seat = open_seat(meta, req.get("seat"))
            old = meta.seats[seat]
            meta = meta.with_seat(
                Seat(seat, name, None, tokens.digest(token), lost=old.lost, external_id=ext)
            )
            events = [session_event("joined", player=seat, name=name)]
            state: State | None = None
            moves: list[bytes] = []
            if not meta.open_seats:
                state, dealt, moves = self.deal(sid, c.version, meta)
                if meta.clock is not None:  # the clock starts once everyone is told
                    untold = tuple(s for s in meta.persons if s != seat)
                    clock = meta.clock.dealt(self.env.now(), untold, self.grace)
                    meta = replace(meta, clock=clock)
                events += dealt
            seen = self.presence.due(sid, seat)
            return Change((seat, events), c.then(state, meta, len(events)), events, moves, seen)

        c, (seat, events) = self.repo.change(sid, step)
        if c.state is not None and c.meta.public:
            self.lobby.unlist([(sid, c.meta.variant)])
        body = self.views.answer(c, seat, seat, redacted(events, c.seq - len(events) + 1, seat),
                                 token=token)  # fmt: skip
        return Reply(orjson.dumps(body), c.version)

    def fill_with_bots(self, sid: str) -> Reply:
        """Every open seat taken by the simple bot, and the game dealt (a quick-match
        table whose wait is over): the session as a spectator sees it. 409
        ``session_started`` when it was dealt meanwhile (its last seat joined)."""

        def step(c: Snapshot) -> Change[list[Event]]:
            if c.state is not None:
                raise problems.session_started()
            self.within_caps(c)
            meta = c.meta
            for seat in meta.open_seats:
                old = meta.seats[seat]
                meta = meta.with_seat(Seat(seat, old.name, BotLevel.SIMPLE, None, lost=old.lost))
            events = [session_event("joined", player=s, name=meta.seats[s].name)
                      for s in c.meta.open_seats]  # fmt: skip
            state, dealt, moves = self.deal(sid, c.version, meta)
            if meta.clock is not None:  # the clock starts once everyone is told
                clock = meta.clock.dealt(self.env.now(), meta.persons, self.grace)
                meta = replace(meta, clock=clock)
            events += dealt
            return Change(events, c.then(state, meta, len(events)), events, moves)

        c, events = self.repo.change(sid, step)
        if c.meta.public:
            self.lobby.unlist([(sid, c.meta.variant)])
        body = self.views.answer(c, None, None, redacted(events, c.seq - len(events) + 1, None))
        return Reply(orjson.dumps(body), c.version)

    def within_caps(self, c: Snapshot) -> None:
        """409 ``session_too_large`` for a session whose stored bytes reached
        ``SESSION_MAX_BYTES``: joins and leaves write events too (2,600 join/leave pairs
        pushed one past 1 MB), so they stop there as moves do; its host can still delete
        it (``SessionManager.delete``)."""
        if c.stored >= self.env.config.max_bytes:
            raise problems.session_too_large(c.stored)

    @property
    def grace(self) -> float:
        return self.env.config.start_grace_seconds

    def deal(self, sid: str, version: int, meta: Meta) -> tuple[State, list[Event], list[bytes]]:
        """The game dealt from the setup kept in ``meta`` (a ``started`` event, the deal's
        events, the bots' first moves), for the commit over ``version``."""
        if meta.seed is None:
            raise RuntimeError(f"session {sid}: its meta keeps no seed")
        state, setup = problems.judged(
            engine.start, meta.variant, len(meta.seats), meta.seed, meta.dealer, meta.options
        )
        state, bot_events, made = self.bots.play(
            sid, version, state, meta, setup, cpu_until=self.bots.cpu_deadline()
        )  # the rest is owed to the next request (Timekeeper)
        events = [session_event("started"), *setup, *bot_events]
        return state, events, logged(made, "bot", self.env.now())

    def leave(self, sid: str, token: str | None) -> Reply:
        """The token's seat leaves: before the start the seat is open again, after it a
        bot plays it (``OnLeave.BOT``). Its token no longer works (it answers
        ``seat_left`` from now on). The answer shows what a spectator sees: the seat is
        no longer the caller's."""

        def step(c: Snapshot) -> Change[tuple[int, list[Event]]]:
            seat = access.holder_seat(c.meta, token)
            self.within_caps(c)
            now = self.env.now()
            old = c.meta.seats[seat]
            state, moves = c.state, []
            if state is None:
                lost = old.losing_token(now, LostReason.LEFT, "open")
                meta = c.meta.with_seat(
                    Seat(seat, f"Player {seat + 1}", None, None, open=True, lost=lost)
                )
                events = [session_event("left", player=seat, name=old.name, replaced_by="open")]
            else:
                meta = c.meta.handed_to_bot(seat, now, LostReason.LEFT)
                if meta.clock is not None:  # the clock holds for people only
                    meta = replace(meta, clock=meta.clock.told(seat, now))
                events = [session_event("left", player=seat, name=old.name, replaced_by="bot")]
                state, bot_events, made = self.bots.play(
                    sid, c.version, state, meta, events, before=c.history,
                    cpu_until=self.bots.cpu_deadline(),  # the rest is owed (Timekeeper)
                )  # fmt: skip
                events += bot_events
                moves = logged(made, "bot", now)
                if made:  # the game waits for a move from now
                    meta = restarted(meta, now)
            return Change((seat, events), c.then(state, meta, len(events)), events, moves)

        c, (seat, events) = self.repo.change(sid, step)
        body = self.views.answer(c, seat, None, redacted(events, c.seq - len(events) + 1, None))
        return Reply(orjson.dumps(body), c.version)

    def take_back(self, sid: str, token: str | None) -> Reply:
        """The seat a bot took from ``token`` after its timeouts, played by its person
        again while the game runs (``returnable``): the token works again, the seat's
        timeouts in a row start from zero, everyone sees a ``seat_returned`` event; the
        bot's moves stand. One compare-and-set over the session as read: of two returns
        (or a return and a bot's move) racing, one wins; a return whose token already
        holds its seat changes nothing and answers the seat (a repeat, or the race lost
        to the same token)."""
        bearer = access.sent(token)

        def step(c: Snapshot) -> Change[tuple[int, list[Event]]]:
            held = access.token_seat(c.meta, bearer)
            if held is not None:  # back already: nothing changes
                return Change((held, []))
            seat, lost = returnable(c, bearer)
            now = self.env.now()
            meta = c.meta.taken_back(seat, lost)
            if meta.clock is not None:
                meta = replace(meta, clock=meta.clock.returned(seat))
                if c.state is not None and engine.waiting_for(c.state) == seat:
                    meta = restarted(meta, now)  # its bot had not moved yet: its turn from now
            events = [session_event("seat_returned", player=seat)]
            seen = self.presence.due(sid, seat)
            return Change((seat, events), c.then(c.state, meta, len(events)), events, [], seen)

        c, (seat, events) = self.repo.change(sid, step)
        body = self.views.answer(c, seat, seat, redacted(events, c.seq - len(events) + 1, seat))
        return Reply(orjson.dumps(body), c.version)


def returnable(c: Snapshot, token: str) -> tuple[int, LostToken]:
    """The seat ``token`` may take back, and the token as its seat lost it: a token a bot
    took the seat from after its timeouts, the seat still that bot's, the game not over.
    Else 401 ``invalid_token`` (no former token of a seat), 409 ``seat_return_left`` (its
    person left it), ``seat_return_game_over``, ``seat_return_taken`` (the seat changed
    hands since)."""
    found = access.lost_token(c.meta, token)
    if found is None:
        raise problems.invalid_token()
    seat, lost = found
    held = c.meta.seats[seat]
    if lost.reason is not LostReason.TIMEOUTS:
        raise problems.return_left(seat)
    if c.status is not Status.PLAYING:
        raise problems.return_game_over(seat)
    if held.bot is None or held.lost[-1] != lost:
        raise problems.return_taken(seat)
    return seat, lost


def open_seat(meta: Meta, wanted: int | None) -> int:
    """The seat a join takes: ``wanted``, else the lowest open one (409 when none is)."""
    if wanted is None:
        if meta.open_seats:
            return meta.open_seats[0]
    elif wanted < len(meta.seats) and meta.seats[wanted].open:
        return wanted
    raise problems.session_full(wanted)
