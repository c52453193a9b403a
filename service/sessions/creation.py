"""A new session: its seats and settings, the seed nobody but the service knows (unless
the creator may choose it), and the deal with the bots' first moves; or, with open
seats, a session that waits (nothing dealt: the meta keeps the seed and the setup until
the last seat is taken), listed in the lobby when public.
"""

from __future__ import annotations

import secrets
from typing import Any

import orjson

import engine
from engine import Event, State
from service.fairness import new_nonce

from . import access, identity, problems, tokens
from .bots import BotPlayer
from .clock import Clock
from .config import Env
from .lobby import Lobby
from .models import BotLevel, Meta, OnLeave, Reply, Seat, Snapshot, SpectatorAccess
from .presence import Presence
from .quotas import Quotas
from .records import logged
from .repo import Repository
from .views import Views, redacted


def server_seed() -> int:
    """A seed nobody but the service knows (revealed when the game is over)."""
    return secrets.randbits(64)


def new_sid() -> str:
    return secrets.token_urlsafe(16)


class Creation:
    def __init__(
        self,
        env: Env,
        repo: Repository,
        bots: BotPlayer,
        lobby: Lobby,
        views: Views,
        quotas: Quotas,
        presence: Presence,
    ) -> None:
        self.env = env
        self.quotas = quotas
        self.repo = repo
        self.bots = bots
        self.lobby = lobby
        self.views = views
        self.presence = presence

    def create(self, req: dict[str, Any], client: str | None = None) -> Reply:
        """The session ``req`` asks for (``CreateSession``): the session as the first
        named person's seat sees it (that seat is there and told of the deal), with
        each named person's token and the invitation and spectator codes, once.
        ``client`` (``quotas.client_key``): who asks, counted in its quotas (429 when
        one is full); None counts nobody (a session the service makes itself)."""
        players: list[dict[str, Any]] = req["players"]
        if all(s.get("bot") for s in players):
            raise problems.invalid_request(
                "at least one seat must be a person", {"players": ["every seat is a bot"]}
            )
        if req.get("notify") and not self.env.config.notifying:
            raise problems.notifications_not_configured()
        key = self.env.config.identity_key
        externals = [identity.external_id(key, s, f"players.{i}") for i, s in enumerate(players)]
        seed, client_seeded = self._seed(req.get("seed"))
        variant, dealer, options = req["variant"], req.get("dealer"), req.get("options")
        state, setup = problems.judged(engine.start, variant, len(players), seed, dealer, options)
        toks = [None if s["bot"] or s.get("open") else tokens.new_token() for s in players]
        waiting = any(s.get("open") for s in players)
        spectators = SpectatorAccess(req.get("spectators", "anyone"))
        codes = {
            "invitation_code": tokens.new_token() if waiting else None,
            "spectator_code": tokens.new_token() if spectators is SpectatorAccess.CODE else None,
        }
        now = self.env.now()
        seats = new_seats(players, toks, externals)
        first = next((s.seat for s in seats if s.person), None)
        meta = Meta(
            state.variant, seats, now, client_seeded,
            seed=seed, dealer=dealer, options=options, public=bool(req.get("public")),
            invite_sha256=access.hashed(codes["invitation_code"]),
            spectators=spectators,
            spectator_sha256=access.hashed(codes["spectator_code"]),
            on_leave=OnLeave(req.get("on_leave", "bot")),
            clock=self._clock(req.get("clock"), seats, first, now, dealt=not waiting),
            notify=bool(req.get("notify")),
            seed_nonce=new_nonce(),
            host=first,
            creator=client,
            claim_until_ms=self.quotas.live_until(None) if client else None,
        )  # fmt: skip
        sid = new_sid()
        give_back = None
        if client and meta.claim_until_ms is not None:
            give_back = self.quotas.take_session(client, sid, waiting, meta.claim_until_ms)
        try:
            seen = self.presence.due(sid, first)
            c, events = self.open(sid, meta, None if waiting else (state, setup), seen)
        except BaseException:
            if give_back is not None:
                give_back()
            raise
        if waiting and meta.public:
            self.lobby.add(c.sid, meta)
        body = self.views.answer(c, first, first, redacted(events, 1, first), toks, **codes)
        if first is not None:
            body["token"] = toks[first]
        return Reply(orjson.dumps(body), 1)

    def _clock(
        self,
        spec: dict[str, Any] | None,
        seats: tuple[Seat, ...],
        first: int | None,
        now: float,
        dealt: bool,
    ) -> Clock | None:
        """The clock ``spec`` asks for; dealt now, it holds for the persons but ``first``
        (the creator's answer tells that seat)."""
        if spec is None:
            return None
        clock = Clock.new(spec, len(seats), now)
        if not dealt:
            return clock
        untold = tuple(s.seat for s in seats if s.person and s.seat != first)
        return clock.dealt(now, untold, self.env.config.start_grace_seconds)

    def open(
        self,
        sid: str,
        meta: Meta,
        dealt: tuple[State, list[Event]] | None,
        seen: tuple[int, int] | None = None,
    ) -> tuple[Snapshot, list[Event]]:
        """Store the session ``sid`` at version 1: ``dealt`` (the state and the deal's
        events) with the bots' first moves, or nothing dealt (None: it waits for its
        open seats); ``seen``: a seat there (presence). The snapshot stored and its
        events."""
        state: State | None = None
        events: list[Event] = []
        moves: list[bytes] = []
        if dealt is not None:
            state, setup = dealt
            state, bot_events, made = self.bots.play(
                sid, 0, state, meta, setup, cpu_until=self.bots.cpu_deadline()
            )  # the rest is owed to the next request (Timekeeper)
            events = setup + bot_events
            moves = logged(made, "bot", meta.created)
        c = self.repo.create(Snapshot(sid, 1, len(events), state, meta), events, moves)
        if seen is not None:
            self.repo.store.touch(sid, *seen)
        return c, events

    def _seed(self, seed: int | None) -> tuple[int, bool]:
        """The game's seed and whether the creator chose it (refused unless allowed)."""
        if seed is None:
            return server_seed(), False
        if not self.env.config.allow_client_seed:
            raise problems.client_seed_refused()
        return seed, True


def new_seats(
    players: list[dict[str, Any]], toks: list[str | None], externals: list[str | None]
) -> tuple[Seat, ...]:
    """The seats as requested: a default name, the hash of each person's token (an open
    seat has neither), each person's ``external_id`` as asserted (``identity``)."""
    return tuple(
        Seat(
            i,
            s.get("name") or f"Player {i + 1}",
            BotLevel.from_wire(s["bot"]),
            t and tokens.digest(t),
            bool(s.get("open")),
            external_id=e,
        )
        for i, (s, t, e) in enumerate(zip(players, toks, externals, strict=True))
    )
