"""What a bot knows about each game: one ``BotKnowledge`` per variant.

A bot reads only its seat's view (``engine.view(state, seat)``), the public history
redacted for that seat (``engine.redact``) and its seat's legal moves. ``BotKnowledge``
turns those into:

- ``score(ctx, move)``: the normal level's heuristic value of a legal move (higher is
  better; ties are broken by the bot's seeded generator);
- ``sample(ctx, rnd)``: a full ``State`` consistent with the view (the determinization
  the hard level plays out): the seat's own hand and every face-up card as shown, the
  hidden cards (other hands, the draw pile, the discard pile under its top) dealt at
  random from the cards the seat cannot see, the generator seeded from ``rnd``.

Classic UNO's knowledge is the base; each variant's (``engine.bots.variants``) overrides
only what differs. ``engine.bots.variants.BOTS`` pairs each variant with its knowledge
and its hard policy (tests/engine/bots/test_bots.py fails when a variant has none).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import Any

from .. import rng as prng
from ..cards import COLORLESS_WILDS, Color, Kind
from ..events import Event
from ..moves import Move, MoveType
from ..registry import find_variant
from ..state import Phase, State
from ..variant import Variant

T = MoveType

#: Kinds that hurt the next player (played early when that player is close to going out).
ATTACKS = frozenset(
    {
        Kind.SKIP,
        Kind.REVERSE,
        Kind.DRAW_ONE,
        Kind.DRAW_TWO,
        Kind.DRAW_FIVE,
        Kind.SKIP_EVERYONE,
        Kind.WILD_DRAW_TWO,
        Kind.WILD_DRAW_FOUR,
        Kind.WILD_DRAW_COLOR,
        Kind.WILD_REVERSE,
        Kind.WILD_SKIP,
        Kind.WILD_TARGETED_DRAW_TWO,
        Kind.WILD_SKIP_TWO,
    }
)
#: Kinds that make the next player draw (held back while nobody threatens to go out).
DRAWS = frozenset(
    {
        Kind.DRAW_ONE,
        Kind.DRAW_TWO,
        Kind.DRAW_FIVE,
        Kind.WILD_DRAW_TWO,
        Kind.WILD_DRAW_FOUR,
        Kind.WILD_DRAW_COLOR,
        Kind.WILD_TARGETED_DRAW_TWO,
    }
)
SIDES = {"light": 0, "dark": 1}


def shuffle(rnd: random.Random, x: list[Any]) -> None:
    """``rnd.shuffle(x)``: for a plain ``random.Random`` its very steps (the same
    numbers drawn in the same order, so the same order and the same generator state
    after it) without a method call per card; tests/engine/bots/test_hard_search_choices.py checks
    it against ``random.Random.shuffle``."""
    if type(rnd) is not random.Random:
        rnd.shuffle(x)
        return
    getrandbits = rnd.getrandbits
    for i, n, k in _steps(len(x)):
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        x[i], x[j] = x[j], x[i]


@cache
def _steps(size: int) -> tuple[tuple[int, int, int], ...]:
    """``random.Random.shuffle``'s steps for a list of ``size``: the place swapped, the
    bound of the index drawn and the bits drawn for it."""
    return tuple((i, i + 1, (i + 1).bit_length()) for i in range(size - 1, 0, -1))


@dataclass
class Ctx:
    """One decision: the seat, its view, its redacted history and its legal moves."""

    seat: int
    view: dict[str, Any]
    history: list[Event]
    legal: list[Move]
    variant: Variant
    memo: dict[str, Any] = field(default_factory=dict)

    @property
    def side(self) -> int:
        return SIDES.get(self.view.get("side", "light"), 0)

    @property
    def sizes(self) -> list[int]:
        return self.view["hand_sizes"]  # type: ignore[no-any-return]

    def next_seat(self, seat: int, steps: int = 1) -> int:
        direction = 1 if self.view["direction"] == "clockwise" else -1
        return (seat + direction * steps) % len(self.sizes)

    def threat(self) -> bool:
        """Whether the next player is close to going out."""
        return self.sizes[self.next_seat(self.seat)] <= 2


class BotKnowledge:
    """Classic UNO's bot knowledge; variants override what differs."""

    variant_id = "uno_classic"

    @cached_property
    def variant(self) -> Variant:
        return find_variant(self.variant_id)

    # ------------------------------------------------------------------ card facts
    @cached_property
    def _by_code(self) -> tuple[dict[str, int], ...]:
        """Per side: a face code -> one catalog id with that face."""
        cat = self.variant.catalog
        return tuple(
            {code: i for i, code in reversed(list(enumerate(cat.code[s])))}
            for s in range(cat.sides)
        )

    def card_id(self, ref: dict[str, Any], side: int) -> int:
        """The catalog id of a card as a view shows it (its id, where ids are catalog ids)."""
        return int(ref["id"])

    def face_id(self, ref: dict[str, Any], side: int) -> int:
        """A catalog id with the face ``ref`` shows (for kind, colour and points)."""
        return self._by_code[side][ref["code"]]

    def kind(self, card: int, side: int) -> Kind:
        return self.variant.catalog.kind[side][card]

    def color(self, card: int, side: int) -> Color | None:
        return self.variant.catalog.color[side][card]

    def points(self, card: int, side: int) -> int:
        return self.variant.catalog.points[side][card]

    def move_card(self, ctx: Ctx, move: Move) -> int | None:
        """The catalog id (or a card with the same face) that ``move`` names."""
        if move.card is None:
            return None
        for ref in ctx.view["hand"]:
            if ref["id"] == move.card:
                return self.face_id(ref, ctx.side)
        return None

    def hand(self, ctx: Ctx) -> list[int]:
        """The seat's hand as catalog ids with the faces it shows."""
        if "hand" not in ctx.memo:
            ctx.memo["hand"] = [self.face_id(r, ctx.side) for r in ctx.view["hand"]]
        return ctx.memo["hand"]  # type: ignore[no-any-return]

    def colour_counts(self, ctx: Ctx, without: Iterable[int] = ()) -> Counter[Color]:
        skip = Counter(without)
        out: Counter[Color] = Counter()
        for c in self.hand(ctx):
            if skip[c]:
                skip[c] -= 1
                continue
            col = self.color(c, ctx.side)
            if col is not None and self.kind(c, ctx.side) not in COLORLESS_WILDS:
                out[col] += 1
        return out

    # ------------------------------------------------------------------ the normal level
    def score(self, ctx: Ctx, move: Move) -> float:
        """The normal level's value of ``move`` (higher is better)."""
        handler = self._scorers.get(move.type)
        return 0.0 if handler is None else handler(ctx, move)

    @cached_property
    def _scorers(self) -> dict[MoveType, Callable[[Ctx, Move], float]]:
        return {
            T.UNO: lambda ctx, m: 1000.0,
            T.CATCH: lambda ctx, m: 900.0,
            T.NEXT_ROUND: lambda ctx, m: 0.0,
            T.PLAY: self.score_play,
            T.DRAW: self.score_draw,
            T.PASS: self.score_pass,
            T.CHOOSE_COLOR: self.score_color,
            T.CHALLENGE: self.score_challenge,
            T.ACCEPT: lambda ctx, m: 0.0,
            T.CHOOSE_TARGET: self.score_target,
            T.GIVE: self.score_give,
            T.DRAFT_KEEP: self.score_draft_keep,
            T.DRAFT_DISCARD: lambda ctx, m: 0.0,
            T.MATCH: self.score_match,
            T.PLACE: self.score_place,
            T.END_TURN: lambda ctx, m: 1.0,
        }

    def score_play(self, ctx: Ctx, move: Move) -> float:
        card = self.move_card(ctx, move)
        if card is None:
            return 5.0
        side = ctx.side
        kind = self.kind(card, side)
        chain = [self.face_id_of(ctx, c) for c in (move.chain or ())]
        played = [card, *chain]
        left = len(self.hand(ctx)) - len(played)
        value = 10.0 + 3.0 * len(chain) + self.points(card, side) / 25
        if move.uno:
            value += 100.0
        counts = self.colour_counts(ctx, played)
        colour = move.color if kind in COLORLESS_WILDS else self.color(card, side)
        if colour is not None:
            value += 1.0 * counts[colour]  # stay in a colour the hand holds
        if kind in COLORLESS_WILDS:
            value -= 0 if left <= 1 else 6.0  # keep Wilds for later
        threat = ctx.threat()
        if kind in ATTACKS:
            value += 4.0 if threat else 0.0
        if kind in DRAWS and not threat and left > 1:
            value -= 2.0  # keep draw cards for the player about to go out
        if move.target is not None and isinstance(move.target, int):
            value += self.target_value(ctx, kind, move.target)
        if penalty(ctx):
            value += 50.0  # stacking passes the whole penalty on
        elif kind is Kind.NUMBER and self.points(card, side) == 0 and house(ctx, "seven_zero"):
            value += self.swap_value(ctx, ctx.next_seat(ctx.seat, -1))  # a 0 passes hands
        return value + self.play_extra(ctx, card, kind, move)

    def face_id_of(self, ctx: Ctx, card: int) -> int:
        for ref in ctx.view["hand"]:
            if ref["id"] == card:
                return self.face_id(ref, ctx.side)
        return card

    def play_extra(self, ctx: Ctx, card: int, kind: Kind, move: Move) -> float:
        """A variant's further value of a play (UNO Flip: the side it turns to)."""
        return 0.0

    def target_value(self, ctx: Ctx, kind: Kind, target: int) -> float:
        """The value of naming ``target``: a 7's swap (house rule seven-zero): the
        smaller the hand received the better; else (All Wild) hit the seat closest to
        going out."""
        if kind is Kind.NUMBER:
            return self.swap_value(ctx, target)
        return -float(ctx.sizes[target])

    def swap_value(self, ctx: Ctx, other: int) -> float:
        """What getting ``other``'s hand for the rest of the seat's own is worth: the
        cards it saves (a swap with a bigger hand costs)."""
        left = len(ctx.view["hand"]) - 1
        return 3.0 * (left - ctx.sizes[other]) - 1.0

    def score_draw(self, ctx: Ctx, move: Move) -> float:
        """Drawing by choice is a last resort; taking a penalty is what is left when
        nothing stacks or a challenge does not pay (as accepting: 0)."""
        return 0.0 if penalty(ctx) else 3.0

    def score_pass(self, ctx: Ctx, move: Move) -> float:
        return 6.0

    def score_color(self, ctx: Ctx, move: Move) -> float:
        return float(self.colour_counts(ctx)[move.color]) if move.color else 0.0

    def guilty_odds(self, ctx: Ctx, offender: int) -> float:
        """How likely the offender held a card of the colour in play: each of their
        cards is taken to be of it with probability 1/4 (wilds aside)."""
        return 1.0 - 0.75 ** max(0, ctx.sizes[offender])

    def challenge_costs(self, ctx: Ctx) -> tuple[tuple[int, int, int], Kind | None]:
        """The pending wild draw card's costs: what accepting draws, what a guilty
        offender draws, what a failed challenge draws (the variant's
        ``challenge_cards``; 4, 4, 6 when the top is not known), and the card's kind."""
        top = ctx.view.get("discard_top")
        if top is None:
            return (4, 4, 6), None
        kind = self.kind(self.face_id(top, ctx.side), ctx.side)
        draw, guilty, innocent = self.variant.challenge_cards.get(kind, (4, 4, 6))  # type: ignore[attr-defined]
        stack = penalty(ctx)
        if stack:  # house rule stacking: the whole penalty, plus 2 for a wrong challenge
            return (stack, stack, stack + innocent - draw), kind
        return (draw, guilty, innocent), kind

    def score_challenge(self, ctx: Ctx, move: Move) -> float:
        """Challenge when the expected cost of challenging is below accepting's (0)."""
        pend = ctx.view.get("pending") or {}
        (draw, guilty, innocent), kind = self.challenge_costs(ctx)
        extra = 4 if kind is Kind.WILD_DRAW_COLOR else 0  # drawn until the colour
        offender = ctx.next_seat(pend.get("player", ctx.seat), -1)
        p = self.guilty_odds(ctx, offender)
        challenge_cost = (1 - p) * (innocent + extra) - p * 0.5 * (guilty + extra)
        return float((draw + extra) - challenge_cost) - 0.5  # a tie: accept

    def score_target(self, ctx: Ctx, move: Move) -> float:
        target = move.target if isinstance(move.target, int) else ctx.seat
        return -float(ctx.sizes[target])

    def score_give(self, ctx: Ctx, move: Move) -> float:
        """Pizza's give: hand the next player a low card we need least."""
        card = self.move_card(ctx, move)
        if card is None:
            return 0.0
        kind = self.kind(card, ctx.side)
        value = 10.0 - self.points(card, ctx.side) / 5
        if kind in COLORLESS_WILDS or kind in ATTACKS:
            value -= 8.0
        colour = self.color(card, ctx.side)
        if colour is not None:
            value -= self.colour_counts(ctx, [card])[colour]
        return value + (100.0 if move.uno else 0.0)

    def score_draft_keep(self, ctx: Ctx, move: Move) -> float:
        ref = (ctx.view.get("pending") or {}).get("card")
        if ref is None:
            return 1.0
        card = self.face_id(ref, ctx.side)
        kind = self.kind(card, ctx.side)
        if kind is not Kind.NUMBER:
            return 1.0
        colour = self.color(card, ctx.side)
        return 1.0 if colour is not None and self.colour_counts(ctx)[colour] else -1.0

    def score_match(self, ctx: Ctx, move: Move) -> float:
        return 0.0

    def score_place(self, ctx: Ctx, move: Move) -> float:
        return 0.0

    # ------------------------------------------------------------------ determinization
    def public_cards(self, ctx: Ctx) -> list[int]:
        """Catalog ids of the face-up cards the view shows (the discard top)."""
        top = ctx.view.get("discard_top")
        return [self.card_id(top, ctx.side)] if top is not None else []

    def played_since_shuffle(self, ctx: Ctx) -> list[int]:
        """Cards the history shows going onto the discard pile since its last
        reshuffle (this round), as catalog ids: they are under the discard top."""
        out: list[int] = []
        for ev in reversed(ctx.history):
            kind = ev.get("type")
            if kind in ("reshuffled", "round_started"):
                break
            if kind in ("played", "turned_up") and isinstance(ev.get("card"), dict):
                out.append(self.card_id(ev["card"], ctx.side))
        out.reverse()
        return out

    def sample(self, ctx: Ctx, rnd: random.Random) -> State:
        """A full state consistent with the seat's view (see the module docstring)."""
        view = ctx.view
        own, under, unseen = self.unseen(ctx)
        pool = list(unseen)
        shuffle(rnd, pool)
        voids = self.voids(ctx)
        colour = self.variant.catalog.color[ctx.side]
        hands: list[tuple[int, ...]] = []
        for seat, size in enumerate(view["hand_sizes"]):
            if seat == ctx.seat:
                hands.append(own)
                continue
            void = voids.get(seat)
            if void:  # deal what the seat's last draw says it lacked only if need be
                fits = [c for c in pool if colour[c] not in void][:size]
                if len(fits) < size:
                    dealt = set(fits)
                    fits += [c for c in pool if c not in dealt][: size - len(fits)]
                taken = set(fits)
                pool = [c for c in pool if c not in taken]
                hands.append(tuple(fits))
            else:
                hands.append(tuple(pool[:size]))
                pool = pool[size:]
        draw = tuple(pool[: view["draw_pile_size"]])
        rest = pool[view["draw_pile_size"] :]
        return self.build(ctx, rnd, hands, draw, self.discard_of(ctx, rest, under), None)

    def unseen(self, ctx: Ctx) -> tuple[tuple[int, ...], list[int], tuple[int, ...]]:
        """The seat's hand, the cards known to lie under the discard top, and the cards
        the seat cannot see in catalog order (what ``sample`` shuffles): the same at
        every sample of a decision, so worked out once a decision."""
        memo = ctx.memo.get("unseen")
        if memo is not None:
            return memo  # type: ignore[no-any-return]
        view = ctx.view
        side = ctx.side
        own = tuple(self.card_id(r, side) for r in view["hand"])
        public = self.public_cards(ctx)
        seen = set(own) | set(public)
        under = [c for c in dict.fromkeys(self.played_since_shuffle(ctx)) if c not in seen]
        under = under[-max(0, view["discard_size"] - 1) :] if view["discard_size"] > 1 else []
        seen |= set(under)
        unseen = tuple(c for c in self.variant.catalog.ids if c not in seen)
        ctx.memo["unseen"] = memo = (own, under, unseen)
        return memo

    def voids(self, ctx: Ctx) -> dict[int, set[Color | None]]:
        """Seat -> the colours it most likely lacks: a seat that drew of its own accord
        held no card of the colour in play (nor a Wild: ``None``), as far as the
        history shows, until it next takes cards."""
        if "voids" in ctx.memo:
            return ctx.memo["voids"]  # type: ignore[no-any-return]
        out: dict[int, set[Color | None]] = {}
        ctx.memo["voids"] = out
        active: Color | None = None
        side = ctx.side
        for ev in ctx.history:
            kind = ev.get("type")
            if kind in ("played", "turned_up") and isinstance(ev.get("card"), dict):
                chosen = ev.get("color")
                face = self._by_code[side].get(ev["card"].get("code", ""))
                active = (
                    Color(chosen)
                    if chosen
                    else (self.color(face, side) if face is not None else None)
                )
            elif kind == "color_chosen" and ev.get("color"):
                active = Color(ev["color"])
            elif kind == "flipped" or kind == "round_started":
                out.clear()
                active = None
            elif kind == "drew" and isinstance(ev.get("player"), int):
                seat = ev["player"]
                if ev.get("reason") == "draw" and active is not None:
                    out[seat] = {active, None}
                else:
                    out.pop(seat, None)
        out.pop(ctx.seat, None)
        return out

    def discard_of(self, ctx: Ctx, rest: list[int], under: list[int]) -> tuple[int, ...]:
        top = self.public_cards(ctx)[:1]
        return (*rest, *under, *top)

    def build(
        self,
        ctx: Ctx,
        rnd: random.Random,
        hands: list[tuple[int, ...]],
        draw: tuple[int, ...],
        discard: tuple[int, ...],
        ext: Any,
    ) -> State:
        view = ctx.view
        fixed = ctx.memo.get("build")
        if fixed is None:  # what every sample of the decision shares
            variant = self.variant
            options = dict(variant.resolve_options(view.get("house_rules") or {}))
            options["target"] = view.get("target", options.get("target"))
            active = view.get("active_color")
            fixed = ctx.memo["build"] = (
                tuple(sorted(options.items())),
                Phase(view["phase"]),
                1 if view["direction"] == "clockwise" else -1,
                Color(active) if active else None,
                tuple(view["uno_exposed"]),
                tuple(view["scores"]),
            )
        options_items, phase, direction, active_color, exposed, scores = fixed
        return State(
            self.variant.id,
            len(hands),
            options_items,
            0,
            prng.seed(rnd.getrandbits(64)),
            phase=phase,
            round=view["round"],
            dealer=view["dealer"],
            direction=direction,
            current=view["current_player"],
            side=ctx.side,
            hands=tuple(hands),
            draw_pile=draw,
            discard=discard,
            active_color=active_color,
            pending=None,
            exposed=exposed,
            scores=scores,
            move_count=view["move_count"],
            ext=self.ext(ctx, rnd, hands, draw) if ext is None else ext,
        )

    def ext(
        self, ctx: Ctx, rnd: random.Random, hands: list[tuple[int, ...]], draw: tuple[int, ...]
    ) -> Any:
        return None


def penalty(ctx: Ctx) -> int:
    """The penalty the seat faces (classic UNO's house rule stacking), else 0."""
    pend = ctx.view.get("pending") or {}
    return int(pend.get("draw_stack") or 0) if pend.get("type") == "penalty" else 0


def house(ctx: Ctx, rule: str) -> Any:
    """The value of a house rule in play (classic UNO; the view's ``house_rules``)."""
    return (ctx.view.get("house_rules") or {}).get(rule)
