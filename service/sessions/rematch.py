"""Rematches: after the game, the next game with the same seats.

The first call makes the next game (a new server seed, the next dealer, the same seats,
variant, options and clock settings; no seat has a token yet) and links it from the
finished session with a compare-and-set; a call that loses that race deletes the game it
made and answers the linked one. Each call then claims its seat in the next game: a
token for the caller derived from its token in the finished game and the next game's id
(``tokens.derived``), with the next game as that seat sees it (the seat is there and
told of the deal: the clock holds for the seats that have not asked yet). A second
claim by the same seat gets the same token and changes nothing (the next game's version
stays; a stream opened with that token goes on). A seat a bot took after its timeouts
is claimed with the token it lost (``claimant``): its person plays it again in the next
game (a ``seat_returned`` event there), as ``Seats.take_back`` gives it back while the
game runs.
"""

from __future__ import annotations

from dataclasses import replace
from typing import cast

import orjson

import engine
from engine import Event

from . import access, problems, tokens
from .config import Env
from .creation import Creation, new_nonce, new_sid, server_seed
from .events import session_event
from .models import LostReason, Meta, Reply, Snapshot, Status
from .presence import Presence
from .repo import Change, Repository
from .streams import MAX_EVENTS_PAGE
from .timekeeper import restarted
from .views import Views, event_row


class Rematches:
    def __init__(
        self, env: Env, repo: Repository, creation: Creation, views: Views, presence: Presence
    ) -> None:
        self.env = env
        self.repo = repo
        self.creation = creation
        self.views = views
        self.presence = presence

    def rematch(self, sid: str, token: str | None) -> Reply:
        """The next game of ``sid`` (made by the first call, found by the others), and a
        new token for the caller's seat in it."""
        c, _ = self.repo.load(sid)
        seat, back = claimant(c.meta, token)
        if c.status is not Status.OVER:
            raise problems.game_not_over()
        next_sid = c.meta.rematch or self._make(c)
        # holder_seat refused a missing token: ``token`` is a seat's here.
        new_token = tokens.derived(cast(str, token), f"rematch:{next_sid}")
        hashed = tokens.digest(new_token)

        def claim(n: Snapshot) -> Change[None]:
            held = n.meta.seats[seat]
            if held.token_sha256 == hashed:
                return Change(None)  # claimed already: nothing changes
            events: list[Event] = []
            if back and held.bot is not None:  # its person takes it back from the bot
                held = replace(held, bot=None)
                events = [session_event("seat_returned", player=seat)]
            meta = n.meta.with_seat(replace(held, token_sha256=hashed))
            if meta.clock is not None:
                meta = replace(meta, clock=meta.clock.told(seat, self.env.now()))
                if events and n.state is not None and engine.waiting_for(n.state) == seat:
                    meta = restarted(meta, self.env.now())  # its turn from now
            seen = self.presence.due(next_sid, seat)
            quiet = not events
            return Change(None, n.then(n.state, meta, len(events), quiet), events, [], seen)

        n, _ = self.repo.change(next_sid, claim)
        rows = self.repo.store.events(next_sid, 0, MAX_EVENTS_PAGE)
        events = [event_row(seq, raw, seat) for seq, raw in rows]
        body = self.views.answer(n, seat, seat, events, token=new_token, previous_session_id=sid)
        return Reply.of(orjson.dumps(body), n)

    def _make(self, c: Snapshot) -> str:
        """Make the next game and link it from ``c``'s session: its id, or the id of the
        one another call linked first (then the one made here is deleted)."""
        old = c.dealt()
        seed, dealer = server_seed(), (old.dealer + 1) % len(c.meta.seats)
        meta = self.next_meta(c.meta, seed, dealer)
        dealt = problems.judged(
            engine.start, meta.variant, len(meta.seats), seed, dealer, meta.options
        )
        made = new_sid()
        self.creation.open(made, meta, dealt)

        def link(c: Snapshot) -> Change[str]:
            if c.meta.rematch is not None:
                return Change(c.meta.rematch)
            event = session_event("rematch", session_id=made)
            return Change(made, c.then(c.state, replace(c.meta, rematch=made), 1), [event])

        def give_up(last: Snapshot) -> str:
            if last.meta.rematch is None:
                self.repo.delete(made)
                raise problems.version_mismatch(last.version, last.etag)
            return last.meta.rematch

        _, linked = self.repo.change(c.sid, link, start=c, give_up=give_up)
        if linked != made:
            self.repo.delete(made)
        return linked

    def next_meta(self, meta: Meta, seed: int, dealer: int) -> Meta:
        """The meta of the game after one of ``meta``: ``seed`` (the server's), ``dealer``,
        the same seats (none with a token yet, nor a quick-match ticket: the next game
        is no ticket's ``match.found``) and host, variant, options and clock
        settings (counted in nobody's quotas)."""
        now = self.env.now()
        clock = None
        if meta.clock is not None:  # it holds until each person has claimed its seat
            clock = meta.clock.fresh(len(meta.seats), now).dealt(
                now, meta.persons, self.env.config.start_grace_seconds
            )
        return replace(
            meta,
            seats=tuple(replace(s, token_sha256=None, lost=(), ticket=None) for s in meta.seats),
            created=now, client_seeded=False, seed=seed, seed_nonce=new_nonce(), dealer=dealer,
            public=False, invite_sha256=None, rematch=None, creator=None, clock=clock,
        )  # fmt: skip


def claimant(meta: Meta, token: str | None) -> tuple[int, bool]:
    """The seat ``token`` claims in the next game of ``meta``'s, and whether it takes the
    seat back from the bot that took it after its timeouts (a former token of the seat,
    the newest, the seat still that bot's). Any other token: its problem (401)."""
    seat = access.token_seat(meta, token)
    if seat is not None:
        return seat, False
    found = access.lost_token(meta, token)
    if found is not None:
        seat, lost = found
        held = meta.seats[seat]
        if lost.reason is LostReason.TIMEOUTS and held.bot is not None and held.lost[-1] == lost:
            return seat, True
    return access.holder_seat(meta, token), False  # raises the token's problem
