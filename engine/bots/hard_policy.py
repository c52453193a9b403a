"""The hard level's policy: normal's heuristic (``BotKnowledge.score``) plus what a
seat can infer from its view and its redacted history, and a light search of its own
turn.

``rank(know, pol, ctx, rnd)`` has ``engine.bots.rank``'s shape (the legal moves, best first),
so a search may use it as its move ordering; ``choose`` is the hard level's move.
What it adds to normal's values (``HardPolicy``):

- wild draw cards that can be challenged: played when the hand is innocent (it holds
  no card of the colour in play), never when it is guilty and the card is not its
  last but one; a challenge only when the offender's play looks guilty (the victim was
  close to going out, or the offender kept a single card);
- colours: named and kept in play when the next seat's draws say it lacks them.

``TurnPlan`` searches the seat's own turn on one determinization: every sequence of
its own moves while the turn stays its own, each end scored by the cards left and
given, the Wilds kept and the next seat's counted odds to play on what is left. Per
variant (``engine.bots.variants.BOTS`` pairs each with its policy): in classic UNO, UNO Duo and UNO Pocket Pizza Pizza the searched
turn picks the move (Pocket Pizza: with its own give after a Wild Dip; UNO Duo: scored
in points, with the Draw Two volley, ``DuoPlan``); in DOS the turn planned on the view
by ``engine.bots.dos_turn`` (its own match generator, no engine moves) picks the move;
elsewhere the searched turn
picks only a turn that goes out for sure (UNO All Wild: also when the other seat
holds one card); in UNO Flip and UNO All Wild the Monte Carlo search
(``engine.bots.montecarlo``) then runs over the ranking. ``docs/bots.md`` has the
numbers behind each choice.

Everything it reads is the seat's own: its view, its history and its legal moves (a
sampled state is the bot's own guess).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING, Any, cast

from ..cards import COLORLESS_WILDS, Color, Kind
from ..errors import EngineError
from ..moves import MatchPart, Move, MoveType
from ..state import Pending, Phase, State
from . import dos_turn, montecarlo
from .knowledge import ATTACKS, DRAWS, BotKnowledge, Ctx

if TYPE_CHECKING:
    from .variants import DuoKnowledge

T = MoveType
PLAY = Phase.PLAY
#: The default budget (``engine.bots.DEFAULT_BUDGET``'s value) and the engine moves
#: the turn search may apply per unit of budget.
BUDGET = 24
NODES_PER_BUDGET = 16
#: A searched turn's value when the seat goes out in it.
WIN = 1000.0


class HardPolicy:
    """The base hard policy (classic UNO's); variants override what differs."""

    #: Value of keeping the next seat on a colour its draws say it lacks.
    VOID_COLOUR = 2.0
    #: Value of an innocent challengeable wild draw card (beyond normal's).
    INNOCENT = 8.0
    #: Value of a guilty one that is not the hand's last but one.
    GUILTY = -20.0

    #: The decisions within the seat's own turn that ``TurnPlan`` searches (pending
    #: types; ``None``: the turn itself).
    PLANNED: frozenset[str | None] = frozenset({None, "play_drawn"})
    #: The move types that start a searched turn.
    ROOTS = frozenset({T.PLAY, T.MATCH, T.PASS, T.END_TURN})

    #: Whether a searched turn is played only when it goes out for sure.
    WINS_ONLY = False
    #: Whether the hard level runs the Monte Carlo search over this ranking.
    SEARCH = False
    #: The turn search's engine moves per unit of budget.
    NODES_PER_BUDGET = NODES_PER_BUDGET

    def plan_class(self) -> type[TurnPlan]:
        return TurnPlan

    def wins_only(self, ctx: Ctx) -> bool:
        return self.WINS_ONLY

    def plans(self, ctx: Ctx) -> bool:
        """Whether this decision is searched with ``TurnPlan`` (the seat's own turn or a
        decision within it, some card to play)."""
        view = ctx.view
        pend = view.get("pending")
        if pend is None:
            mine = view["current_player"] == ctx.seat
        else:
            mine = pend.get("player") == ctx.seat and pend.get("type") in self.PLANNED
        return (
            view["phase"] == "play"
            and mine
            and (pend is not None or None in self.PLANNED)
            and any(m.type in (T.PLAY, T.MATCH) for m in ctx.legal)
        )

    def value(self, know: BotKnowledge, ctx: Ctx, move: Move) -> float:
        base = know.score(ctx, move)
        added = self._added.get(move.type)
        return base if added is None else base + added(know, ctx, move)

    @cached_property
    def _added(self) -> dict[MoveType, Callable[[BotKnowledge, Ctx, Move], float]]:
        """What this policy adds to normal's value, by move type (made once a policy)."""
        return self.additions()

    def additions(self) -> dict[MoveType, Callable[[BotKnowledge, Ctx, Move], float]]:
        return {
            T.PLAY: self.play_value,
            T.CHOOSE_COLOR: self.colour_value,
            T.CHALLENGE: self.challenge_value,
        }

    # ------------------------------------------------------------------ plays
    def play_value(self, know: BotKnowledge, ctx: Ctx, move: Move) -> float:
        card = know.move_card(ctx, move)
        if card is None:
            return 0.0
        side = ctx.side
        kind = know.kind(card, side)
        value = 0.0
        left = len(ctx.view["hand"]) - 1 - len(move.chain or ())
        if kind in ctx.variant.challenge_cards and left >= 1:  # type: ignore[attr-defined]
            value += (
                self.INNOCENT
                if not self.guilty(know, ctx, card)
                else (self.GUILTY if left >= 2 else 0.0)
            )
        colour = move.color if kind in COLORLESS_WILDS else know.color(card, side)
        if colour is not None:
            value += self.colour_bonus(know, ctx, colour)
        return value

    def guilty(self, know: BotKnowledge, ctx: Ctx, card: int) -> bool:
        """Whether a challenge would find a card of the colour in play in the hand."""
        active = ctx.view.get("active_color")
        side = ctx.side
        wild = know.variant.catalog.wild[side]
        for c in know.hand(ctx):
            colour = know.color(c, side)
            if not wild[c] and colour is not None and colour.value == active:
                return True
        return False

    # ------------------------------------------------------------------ colours
    def colour_bonus(self, know: BotKnowledge, ctx: Ctx, colour: Color) -> float:
        """Keeping the next seat on a colour its last draw says it lacks."""
        nxt = ctx.next_seat(ctx.seat)
        void = know.voids(ctx).get(nxt)
        return self.VOID_COLOUR if void and colour in void else 0.0

    def colour_value(self, know: BotKnowledge, ctx: Ctx, move: Move) -> float:
        return self.colour_bonus(know, ctx, move.color) if move.color is not None else 0.0

    # ------------------------------------------------------------------ challenges
    def guilt_odds(self, know: BotKnowledge, ctx: Ctx) -> float:
        """How likely the pending wild draw card's player held the colour in play.

        A wild draw card played on a seat not close to going out is most often a last
        resort (nothing else fitted); one played on a seat about to go out, or that
        leaves its player one card, is often played with the colour in hand."""
        pend = ctx.view.get("pending") or {}
        offender = ctx.next_seat(pend.get("player", ctx.seat), -1)
        if ctx.sizes[ctx.seat] <= 2:
            return 0.65
        if ctx.sizes[offender] <= 1:
            return 0.3
        return 0.05

    def challenge_value(self, know: BotKnowledge, ctx: Ctx, move: Move) -> float:
        """Replace normal's value: challenge when the odds pay (accept scores 0)."""
        (draw, guilty, innocent), _ = know.challenge_costs(ctx)
        p = self.guilt_odds(know, ctx)
        # accept: we draw ``draw``; challenge: the offender draws ``guilty`` and we keep
        # the turn, or we draw ``innocent``.
        gain = p * (draw + guilty + 1) - (1 - p) * (innocent - draw)
        return gain - know.score(ctx, move)


class TurnPlan:
    """A light search of the seat's own turn on one determinization: every sequence of
    its own moves while the turn stays its own (with two players a Skip, a Reverse or
    a draw card gives another move), each end scored by ``leaf``. ``NODES`` bounds the
    engine moves it applies."""

    NODES = BUDGET * NODES_PER_BUDGET
    #: Per card in the seat's hand.
    CARD = 10.0
    #: Per card an opponent took during the turn.
    GIVEN = 5.0
    #: Per Wild kept (while the hand holds more than one card).
    WILD = 6.0
    #: Per card of the hand in the colour left in play.
    STAY = 1.5
    #: The next seat's chance to play on what is left, weighted by its hand size.
    REPLY = {1: 80.0, 2: 12.0}
    REPLY_ELSE = 3.0
    #: Per non-wild action card kept (Skip, Reverse, draw cards).
    ACTION = 0.0
    #: Per draw card kept while no other seat holds two cards or fewer.
    HOLD_DRAW = 0.0
    #: Per colour the hand holds.
    COLOURS = 0.0
    #: The chance a seat can follow the colour it last named with a Wild.
    NAMED = 0.85
    #: How likely an opponent is to challenge a wild draw card from a hand of 2+.
    CHALLENGE_ODDS = 0.9

    def __init__(
        self,
        know: BotKnowledge,
        ctx: Ctx,
        rnd: random.Random,
        roots: frozenset[MoveType],
        nodes: int = BUDGET * NODES_PER_BUDGET,
    ) -> None:
        self.NODES = nodes
        self.know = know
        self.ctx = ctx
        self.seat = ctx.seat
        self.variant = ctx.variant
        self.roots = roots
        self.state = self.rebuild(know.sample(ctx, rnd))
        self.nodes = 0
        self.limit = self.NODES
        self.base_sizes = [len(h) for h in self.state.hands]
        cat = self.variant.catalog
        self.wild = cat.wild
        self.colour = cat.color
        self.symbol = cat.symbol
        self.kind = cat.kind
        self.code = cat.code
        self.reply_memo: dict[tuple[int, object, int, int], float] = {}

    def rebuild(self, state: State) -> State:
        """The sample with the view's pending decision (one of the seat's own)."""
        pend = self.ctx.view.get("pending")
        if pend is None:
            return state
        kind = next(k for k in self.variant.pending_moves if k.value == pend["type"])
        card = None
        ref = pend.get("card")
        if ref is not None:
            ids = [r["id"] for r in self.ctx.view["hand"]]
            card = state.hands[self.seat][ids.index(ref["id"])]
        return state._replace(pending=Pending(kind, self.seat, card))

    def values(self) -> dict[Move, float]:
        """Each root move's value (the best end of the turn it starts); each root gets
        an equal share of ``NODES``."""
        out: dict[Move, float] = {}
        apply = self.variant.apply
        roots = [m for m in self.ctx.legal if m.type in self.roots]
        share = max(8, self.NODES // max(1, len(roots)))
        for move in roots:
            try:
                after, _ = apply(self.state, move)
            except EngineError:
                continue
            self.nodes = 1
            self.limit = share
            out[move] = self.node(after, 1)
        return out

    def unseen_share(self, counts: Callable[[int], bool], none: float) -> float:
        """The share of the cards this seat cannot see in the sample (the other hands
        and the draw pile) for which ``counts`` holds; ``none`` when there are none."""
        pool = self.hidden(self.state)
        return sum(counts(c) for c in pool) / len(pool) if pool else none

    def hidden(self, state: State) -> list[int]:
        """The cards of ``state`` this seat cannot see: the other hands, the draw pile."""
        pool = [c for s, h in enumerate(state.hands) if s != self.seat for c in h]
        pool += state.draw_pile
        return pool

    def face_key(self, state: State, m: Move) -> tuple[object, ...]:
        """Moves that differ only in which of two identical cards they use are one."""
        code = self.code[state.side]
        return (
            m.type,
            code[m.card] if m.card is not None else None,
            m.color,
            m.target
            if not isinstance(m.target, MatchPart)
            else (code[m.target.card], m.target[1:]),
            tuple(code[c] for c in m.chain) if m.chain else None,
            tuple((code[p.card], p[1:]) for p in m.cards) if m.cards else None,
        )

    def node(self, state: State, depth: int) -> float:
        if state.phase is not PLAY:
            return WIN if state.round_winner == self.seat else -WIN
        pend = state.pending
        actor = pend.player if pend is not None else state.current
        if actor != self.seat:
            if (
                pend is not None
                and pend.type.value == "challenge"
                and pend.get("offender") == self.seat
            ):
                return self.challenge(state, depth)
            return self.leaf(state)
        if depth > 6 or self.nodes >= self.limit:
            return self.leaf(state)
        moves = self.variant.legal_moves(state, self.seat)
        offered = set(moves)
        best = None
        encode = self.variant.encode_move
        apply = self.variant.apply
        seen: set[tuple[object, ...]] = set()
        for m in moves:
            if m.type in (T.UNO, T.CATCH):
                continue
            if not m.uno and m._replace(uno=True) in offered:
                continue
            key = self.face_key(state, m)
            if key in seen:
                continue
            seen.add(key)
            if m.type is T.DRAW:
                v = self.leaf(state) - self.CARD * 0.6
            else:
                if self.nodes >= self.limit:
                    continue
                try:
                    after, _ = apply(state, encode(state, m))
                except EngineError:
                    continue
                self.nodes += 1
                v = self.node(after, depth + 1)
            if best is None or v > best:
                best = v
        return self.leaf(state) if best is None else best

    def challenge(self, state: State, depth: int) -> float:
        pend = state.pending
        if pend is None:
            return self.leaf(state)
        victim = pend.player
        moves = {m.type: m for m in self.variant.legal_moves(state, victim)}
        p = self.CHALLENGE_ODDS if len(state.hands[self.seat]) >= 2 else 0.0
        total = 0.0
        for kind, weight in ((T.CHALLENGE, p), (T.ACCEPT, 1.0 - p)):
            if weight <= 0 or kind not in moves:
                continue
            try:
                after, _ = self.variant.apply(state, moves[kind])
            except EngineError:
                continue
            self.nodes += 1
            total += weight * self.node(after, depth + 1)
        return total

    def leaf(self, state: State) -> float:
        seat = self.seat
        hand = state.hands[seat]
        side = state.side
        wild = self.wild[side]
        colour = self.colour[side]
        value = -self.CARD * len(hand)
        for s, h in enumerate(state.hands):
            if s != seat:
                value += self.GIVEN * (len(h) - self.base_sizes[s])
        if len(hand) > 1:
            value += self.WILD * sum(1 for c in hand if wild[c])
        if self.ACTION or self.HOLD_DRAW or self.COLOURS:
            kind = self.kind[side]
            low = min(len(h) for s, h in enumerate(state.hands) if s != seat) <= 2
            held = set()
            for c in hand:
                if wild[c]:
                    continue
                held.add(colour[c])
                k = kind[c]
                if k in ATTACKS:
                    value += self.ACTION
                    if k in DRAWS and not low:
                        value += self.HOLD_DRAW
            value += self.COLOURS * len(held)
        active = state.active_color
        value += self.STAY * sum(1 for c in hand if not wild[c] and colour[c] is active)
        nxt = state.pending.player if state.pending is not None else state.current
        n = len(state.hands[nxt])
        value -= self.REPLY.get(n, self.REPLY_ELSE) * self.reply_odds(state, nxt)
        return value

    def reply_odds(self, state: State, seat: int) -> float:
        """The chance that ``seat`` holds a card that plays on the top: each of its cards
        drawn from the cards this seat cannot see (its draws' voids respected)."""
        side = state.side
        top = state.discard[-1] if state.discard else -1
        active = state.active_color
        n = len(state.hands[seat])
        key = (side, active, self.symbol[side][top] if top >= 0 else -1, n)
        memo = self.reply_memo.get(key)
        if memo is not None:
            return memo
        void = self.know.voids(self.ctx).get(seat) or set()
        if active is not None and active not in void and named(self.ctx).get(seat) is active:
            self.reply_memo[key] = odds = max(self.NAMED, 1.0 - (1.0 - 0.25) ** n)
            return odds
        pool = self.hidden(state)
        wild, colour, symbol = self.wild[side], self.colour[side], self.symbol[side]
        top_symbol = symbol[top] if top >= 0 else -1
        if top_symbol < 0:
            top_symbol = -2
        hits = 0
        for c in pool:
            if wild[c]:
                hits += None not in void
            elif colour[c] is active:
                hits += active not in void
            elif symbol[c] == top_symbol:
                hits += 1
        f = hits / len(pool) if pool else 0.0
        odds = 1.0 - (1.0 - f) ** n
        self.reply_memo[key] = odds
        return odds


class DosTurnPlan(TurnPlan):
    """DOS: the turn planned on the view by ``engine.bots.dos_turn`` (no engine moves);
    the sampled state is built only when read."""

    def __init__(
        self,
        know: BotKnowledge,
        ctx: Ctx,
        rnd: random.Random,
        roots: frozenset[MoveType],
        nodes: int = BUDGET * NODES_PER_BUDGET,
    ) -> None:
        self.know = know
        self.ctx = ctx
        self.seat = ctx.seat
        self.variant = ctx.variant
        self.rnd = rnd

    @cached_property
    def state(self) -> State:  # type: ignore[override]
        return self.rebuild(self.know.sample(self.ctx, self.rnd))

    def values(self) -> dict[Move, float]:
        return dos_turn.DosTurn(self.ctx).values(self.ctx.legal)


class DosPolicy(HardPolicy):
    """DOS: the whole turn (matches, the end of the turn, the bonus placements) is
    planned at each of its decisions (``DosTurnPlan``), and the plan picks the move."""

    PLANNED = frozenset({None, "matching", "drawn", "bonus_place"})
    ROOTS = frozenset({T.MATCH, T.END_TURN, T.PLACE})

    def plan_class(self) -> type[TurnPlan]:
        return DosTurnPlan

    def plans(self, ctx: Ctx) -> bool:
        view = ctx.view
        pend = view.get("pending")
        if view["phase"] != "play":
            return False
        if pend is None:
            return view["current_player"] == ctx.seat and any(m.type is T.MATCH for m in ctx.legal)
        return pend.get("player") == ctx.seat and pend.get("type") in self.PLANNED


#: UNO All Wild with two players: the kinds after which the player moves again.
KEEPS_TURN = frozenset(
    {Kind.WILD_REVERSE, Kind.WILD_SKIP, Kind.WILD_SKIP_TWO, Kind.WILD_DRAW_TWO, Kind.WILD_DRAW_FOUR}
)


class AllWildPlan(TurnPlan):
    """UNO All Wild with two players: every card plays, so a turn is any number of
    cards that give another move and one that ends the turn; a hand holding at most one
    turn-ending card goes out on its next turn. The end of a turn is scored by the
    turn-ending cards each hand holds (the other hand's counted from the cards this
    seat cannot see, except those it knows it gave)."""

    ENDS = 10.0
    KEEPS = 2.0
    #: A turn-ending card given to the other seat.
    GIVEN_ENDS = 6.0
    #: The other seat going out on its next turn.
    LOSS = 150.0
    #: Per card a kept draw card will make the other seat draw, while it holds 3+.
    HOLD = 4.0

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        kind = self.kind[0]
        self.ends = [k not in KEEPS_TURN for k in kind]
        self.mine = set(self.state.hands[self.seat])
        self.f = self.unseen_share(self.ends.__getitem__, 0.5)
        self.base_ends = [self.expected_ends(h) for h in self.state.hands]

    def expected_ends(self, hand: tuple[int, ...]) -> float:
        known = [c for c in hand if c in self.mine]
        return sum(self.ends[c] for c in known) + self.f * (len(hand) - len(known))

    def out_odds(self, hand: tuple[int, ...]) -> float:
        """The chance a hand holds at most one turn-ending card."""
        known = [c for c in hand if c in self.mine]
        e = sum(self.ends[c] for c in known)
        n = len(hand) - len(known)
        f = self.f
        if e >= 2:
            return 0.0
        p0 = (1 - f) ** n
        if e == 1:
            return p0
        return p0 + n * f * (1 - f) ** max(0, n - 1)

    def leaf(self, state: State) -> float:
        if state.num_players != 2:
            return super().leaf(state)
        seat = self.seat
        hand = state.hands[seat]
        ends = sum(self.ends[c] for c in hand)
        value = -self.ENDS * ends - self.KEEPS * (len(hand) - ends)
        other = 1 - seat
        opp = state.hands[other]
        if len(opp) > 2 and len(hand) > 1:
            amounts = self.variant.draw_amounts  # type: ignore[attr-defined]
            kind = self.kind[0]
            value += self.HOLD * sum(amounts.get(kind[c], 0) for c in hand)
        value += self.GIVEN_ENDS * (self.expected_ends(opp) - self.base_ends[other])
        value -= self.LOSS * self.out_odds(opp)
        return value


class AllWildPolicy(HardPolicy):
    """UNO All Wild: normal's values, unless the turn can go out for sure or another
    seat holds ``DANGER`` cards or fewer (then the searched turn)."""

    WINS_ONLY = True
    DANGER = 1
    SEARCH = True

    def plan_class(self) -> type[TurnPlan]:
        return AllWildPlan

    def wins_only(self, ctx: Ctx) -> bool:
        return min(n for s, n in enumerate(ctx.sizes) if s != ctx.seat) > self.DANGER


def named(ctx: Ctx) -> dict[int, Color]:
    """Seat -> the colour it last named with a Wild this round (a seat names a colour
    it holds), as the history shows; forgotten once the seat draws on that colour."""
    if "named" in ctx.memo:
        return ctx.memo["named"]  # type: ignore[no-any-return]
    out: dict[int, Color] = {}
    active: Color | None = None
    for ev in ctx.history:
        kind = ev.get("type")
        seat = ev.get("player")
        if kind == "round_started" or kind == "flipped":
            out.clear()
        elif kind in ("played", "color_chosen") and ev.get("color") and isinstance(seat, int):
            active = Color(ev["color"])
            out[seat] = active
        elif kind == "drew" and ev.get("reason") == "draw" and seat in out and out[seat] is active:
            del out[seat]
    ctx.memo["named"] = out
    return out


class HybridPolicy(HardPolicy):
    """Normal's values (with the base's challenge, wild draw and colour knowledge),
    unless the searched turn goes out for sure: in these variants the whole searched
    turn measured no better than that (see ``docs/bots.md``)."""

    WINS_ONLY = True


class SearchHybrid(HybridPolicy):
    """The hybrid, with the Monte Carlo search over its best moves (UNO Flip)."""

    SEARCH = True


class PizzaPlan(TurnPlan):
    """UNO Pocket Pizza Pizza: the base's turn, and each end of the turn also counts
    the points of the numbers and action cards the hand keeps (``POINT`` a point): the
    winner of the round scores the cards left, so of two plays that leave as many
    cards the one that sheds more points is better."""

    POINT = 0.5
    #: Held while a coloured card plays and both hands hold this many cards or more.
    HELD = frozenset({Kind.WILD_DIP, Kind.WILD_DRAW_TWO})
    EARLY = 3
    HOLD = 25.0

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.points = self.variant.catalog.points[0]

    def values(self) -> dict[Move, float]:
        """The base's values, with Wild Dip and Wild Draw Two held (``HOLD`` off their
        value) while a card of a colour plays, both hands hold ``EARLY`` cards or more
        and the play does not go out for sure."""
        out = super().values()
        ctx = self.ctx
        if min(ctx.sizes) < self.EARLY:
            return out
        kind, wild = self.kind[0], self.wild[0]
        plays = [(m, v) for m, v in out.items() if m.type is T.PLAY and m.card is not None]
        held = [m for m, v in plays if kind[m.card] in self.HELD and v < WIN]  # type: ignore[index]
        if held and any(not wild[m.card] for m, _ in plays):  # type: ignore[index]
            for m in held:
                out[m] -= self.HOLD
        return out

    def leaf(self, state: State) -> float:
        value = super().leaf(state)
        wild, points = self.wild[0], self.points
        return value - self.POINT * sum(points[c] for c in state.hands[self.seat] if not wild[c])


class PizzaPolicy(HardPolicy):
    """UNO Pocket Pizza Pizza: the searched turn picks the move (as in classic UNO;
    with two players a Skip, Reverse or Draw One gives another move, and a 5-card hand
    often goes out in one turn), with a better give after a Wild Dip. The
    receiver plays next on the colour just named, so the card given is one it cannot
    play at once (not that colour, no Wild or action card); among those the highest
    in points (the winner of the round scores the cards left in the other hands). Its
    turn is ``PizzaPlan``'s (points kept count; Wild Dip and Wild Draw Two held early),
    and it challenges by the guilt rates measured of normal's Wild Draw Two."""

    #: Giving a card of the colour in play (the receiver plays it at once).
    GIVE_ACTIVE = -12.0
    #: Giving a Wild or an action card.
    GIVE_STRONG = -10.0
    #: Per point of the card given.
    GIVE_POINT = 0.2

    #: How often normal's Wild Draw Two was guilty (measured, 3,000 rounds): played on a
    #: seat holding two cards or fewer from a hand it leaves two or more (0.40), or
    #: leaving its player one card (0.16-0.25); else never (0 of 262).
    GUILT_CLOSE = 0.4
    GUILT_LAST = 0.2

    def plan_class(self) -> type[TurnPlan]:
        return PizzaPlan

    def guilt_odds(self, know: BotKnowledge, ctx: Ctx) -> float:
        pend = ctx.view.get("pending") or {}
        offender = ctx.next_seat(pend.get("player", ctx.seat), -1)
        if ctx.sizes[offender] <= 1:
            return self.GUILT_LAST
        return self.GUILT_CLOSE if ctx.sizes[ctx.seat] <= 2 else 0.0

    def additions(self) -> dict[MoveType, Callable[[BotKnowledge, Ctx, Move], float]]:
        return {**super().additions(), T.GIVE: self.give_value}

    def give_value(self, know: BotKnowledge, ctx: Ctx, move: Move) -> float:
        """Replace normal's value of a give."""
        card = know.move_card(ctx, move)
        if card is None:
            return 0.0
        side = ctx.side
        kind = know.kind(card, side)
        colour = know.color(card, side)
        active = ctx.view.get("active_color")
        value = 100.0 if move.uno else 0.0
        if kind in COLORLESS_WILDS or kind in ATTACKS:
            value += self.GIVE_STRONG
        elif colour is not None and colour.value == active:
            value += self.GIVE_ACTIVE
        value += self.GIVE_POINT * know.points(card, side)
        if colour is not None and kind not in COLORLESS_WILDS:
            value -= 0.5 * know.colour_counts(ctx, [card])[colour]
        return value - know.score(ctx, move)


class DuoPlan(TurnPlan):
    """UNO Duo: the player who goes out scores 0 and the other scores the cards left in
    its own hand. So an end of turn also counts the points the hand would lose, by the
    chance the other seat goes out first (``DANGER``, by its hand size), and a turn
    that goes out counts the cards the other seat is left with (a last Draw Two or Wild
    Draw Four adds to them). A Draw Two played starts a volley: the other seat returns
    it with its counted odds of holding one, else it draws the whole total and this seat
    moves again (searched on). The odds leave out the draft discards known to lie under
    the draw pile, and after the other seat drew a volley's total (it held no Draw Two)
    count only the cards it drew since."""

    #: Per point of the hand, times ``DANGER``.
    POINT = 1.0
    #: The chance the other seat goes out before this seat, by its hand size.
    DANGER = {1: 0.7, 2: 0.3, 3: 0.12}
    DANGER_ELSE = 0.05
    #: Per card the other seat holds when this seat goes out.
    OUT_CARD = 5.0

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        kind = self.kind[0]
        know = cast("DuoKnowledge", self.know)  # DuoPolicy's pair (engine.bots.variants.BOTS)
        self.known: frozenset[int] = frozenset(know.draft_cards(self.ctx)[0])
        self.since_volley: dict[int, int] = know.since_volley(self.ctx)
        self.draw_two = self.unseen_share(lambda c: kind[c] is Kind.DRAW_TWO, 0.0)
        self.points = self.variant.catalog.points[0]

    def hidden(self, state: State) -> list[int]:
        """The base's, without the draft discards known to lie under the draw pile."""
        pool = super().hidden(state)
        known = self.known
        return [c for c in pool if c not in known] if known else pool

    def node(self, state: State, depth: int) -> float:
        if state.phase is not PLAY:
            if state.round_winner == self.seat:
                return WIN + self.OUT_CARD * len(state.hands[1 - self.seat])
            return -WIN
        pend = state.pending
        if pend is not None and pend.player != self.seat and pend.type.value == "volley":
            return self.volley(state, depth)
        return super().node(state, depth)

    def volley(self, state: State, depth: int) -> float:
        """The other seat answers a volley: a Draw Two of its own (its counted odds;
        then this seat, short of one itself, draws the total), or it draws."""
        victim = state.pending.player  # type: ignore[union-attr]
        stack = state.ext.draw_stack
        n = len(state.hands[victim])
        since = self.since_volley.get(victim)
        if since is not None:  # it last drew a volley: it held no Draw Two then
            n = min(n, since + n - self.base_sizes[victim])
        q = 1.0 - (1.0 - self.draw_two) ** n
        kind = self.kind[0]
        mine = any(kind[c] is Kind.DRAW_TWO for c in state.hands[self.seat])
        returned = self.leaf(state) - self.CARD * (stack + 2) * (0.5 if mine else 1.0)
        if self.nodes >= self.limit:
            drawn = self.leaf(state) + self.GIVEN * stack
        else:
            try:
                after, _ = self.variant.apply(state, Move(T.DRAW, victim))
            except EngineError:
                return returned
            self.nodes += 1
            drawn = self.node(after, depth + 1)
        return q * returned + (1.0 - q) * drawn

    def leaf(self, state: State) -> float:
        value = super().leaf(state)
        n = len(state.hands[1 - self.seat])
        danger = self.DANGER.get(n, self.DANGER_ELSE)
        points = self.points
        return value - self.POINT * danger * sum(points[c] for c in state.hands[self.seat])


class DuoPolicy(HardPolicy):
    """UNO Duo: the searched turn picks the move (a Skip, a Reverse run, a Wild Draw
    Four or a Draw Two the other seat cannot return keep the turn), scored in points
    (``DuoPlan``)."""

    #: A challenge of a Wild Draw Four played on this seat while it holds two cards or
    #: fewer: the offender's hand size from which the play looks guilty (a large hand
    #: most often holds the colour in play and plays the card as an attack; a small one
    #: as a last resort), and the odds either side of it.
    BIG_HAND = 7
    GUILTY_BIG = 0.7
    GUILTY_SMALL = 0.15

    def plan_class(self) -> type[TurnPlan]:
        return DuoPlan

    def guilt_odds(self, know: BotKnowledge, ctx: Ctx) -> float:
        if ctx.sizes[ctx.seat] > 2:
            return super().guilt_odds(know, ctx)
        pend = ctx.view.get("pending") or {}
        offender = ctx.next_seat(pend.get("player", ctx.seat), -1)
        return self.GUILTY_BIG if ctx.sizes[offender] >= self.BIG_HAND else self.GUILTY_SMALL


def choose(
    know: BotKnowledge, pol: HardPolicy, ctx: Ctx, rnd: random.Random, budget: int = BUDGET
) -> Move:
    """The hard level's move: the policy's best, or where the variant's policy says so
    (``SEARCH``), the Monte Carlo search (``engine.bots.montecarlo``) over the
    policy's best moves on the seat's own turn, unless the turn goes out for sure."""
    ranked = rank(know, pol, ctx, rnd, budget)
    if not pol.SEARCH or len(ranked) < 2 or ctx.memo.get("sure_win"):
        return ranked[0]
    view = ctx.view
    if view["phase"] != "play" or view.get("pending") is not None:
        return ranked[0]
    if view["current_player"] != ctx.seat:
        return ranked[0]
    return montecarlo.search(know, ctx, ranked, rnd, budget)


def rank(
    know: BotKnowledge, pol: HardPolicy, ctx: Ctx, rnd: random.Random, budget: int = BUDGET
) -> list[Move]:
    """The legal moves, best first by the hard policy (ties in random order).
    ``budget``: the turn search's size (``NODES_PER_BUDGET`` engine moves a unit)."""
    offered = set(ctx.legal)
    plan: dict[Move, float] = {}
    if pol.plans(ctx):
        search = pol.plan_class()(know, ctx, rnd, pol.ROOTS, pol.NODES_PER_BUDGET * max(1, budget))
        plan = search.values()
        ctx.memo["sure_win"] = any(v >= WIN for v in plan.values())
        if pol.wins_only(ctx) and not any(v >= WIN for v in plan.values()):
            plan = {}  # no sure way out this turn: the policy's values decide
    keyed = [
        (plan[m] if m in plan else pol.value(know, ctx, m) - 1e4 * bool(plan), rnd.random(), i)
        for i, m in enumerate(ctx.legal)
        if m.uno or m._replace(uno=True) not in offered
    ]
    keyed.sort(reverse=True)
    return [ctx.legal[i] for _, _, i in keyed]


__all__ = ["HardPolicy", "choose", "rank"]
