"""The per-variant bot knowledge: what each game adds to classic UNO's
(``engine.bots.knowledge.BotKnowledge``). A new variant gets its entry here
(docs/ADDING-A-VARIANT.md); tests/engine/bots/test_bots.py fails when one is missing."""

from __future__ import annotations

import random
from functools import cached_property
from typing import Any, NamedTuple

from ..cards import COLORLESS_WILDS, Color, Kind
from ..moves import MatchPart, Move
from ..state import State
from ..variants.dos import DosExt, RowCard
from ..variants.duo import DuoExt
from .hard_policy import AllWildPolicy, DosPolicy, DuoPolicy, HardPolicy, PizzaPolicy, SearchHybrid
from .knowledge import ATTACKS, BotKnowledge, Ctx, shuffle


class DuoKnowledge(BotKnowledge):
    """UNO Duo: the draft (keep what fits the hand), volleys (pass the Draw Two on),
    Reverse runs (shed the whole colour)."""

    variant_id = "uno_duo"

    def draft_cards(self, ctx: Ctx) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """What the round's draft left public: the draft discards still at the bottom of
        the draw pile (top first, in the order they lie there), and those drawn since
        that the seat cannot see (they are in the other hand: a card the seat drew is in
        its hand or was played, and a card the other seat played is face up). The draft
        discards lie under the draw pile as they were discarded (the first on top of
        them), so the draw pile holds the last ``min(its size, 14)`` of them; a
        reshuffle ends what is known. Empty when the history shows no draft's end."""
        memo = ctx.memo.get("draft_cards")
        if memo is not None:
            return memo  # type: ignore[no-any-return]
        pile: list[int] = []
        under = 0  # the draft discards put under the draw pile (0: not yet)
        for ev in ctx.history:
            kind = ev.get("type")
            if kind == "round_started" or kind == "reshuffled":
                pile, under = [], 0
            elif kind in ("draft_discarded", "draft_burned") and isinstance(ev.get("card"), dict):
                pile.append(self.card_id(ev["card"], 0))
            elif kind == "draft_over":
                under = int(ev.get("under_draw_pile") or 0)
        bottom: tuple[int, ...] = ()
        drawn: tuple[int, ...] = ()
        view = ctx.view
        if under and view["phase"] == "play" and len(pile) <= under:
            size = view["draw_pile_size"]
            # the draw pile holds the last min(size, under) of them; ``pile`` the last
            # len(pile) (a history that starts within the draft misses the first ones)
            gone = max(0, len(pile) - size) if size < under else 0
            bottom = tuple(pile[gone:])
            own, played, _ = self.unseen(ctx)
            seen = {*own, *played, *self.public_cards(ctx)}
            drawn = tuple(c for c in pile[:gone] if c not in seen)
            if len(drawn) > view["hand_sizes"][1 - ctx.seat]:
                drawn = ()  # not consistent with the view: deal them at random
        ctx.memo["draft_cards"] = memo = (bottom, drawn)
        return memo

    def since_volley(self, ctx: Ctx) -> dict[int, int]:
        """Seat -> the cards it drew since it last drew a volley's total this round (the
        bots return a volley whenever they hold a Draw Two, so a seat that drew one held
        none: only those cards may be Draw Twos). Seats that drew none are absent."""
        memo = ctx.memo.get("since_volley")
        if memo is not None:
            return memo  # type: ignore[no-any-return]
        out: dict[int, int] = {}
        for ev in ctx.history:
            kind = ev.get("type")
            if kind == "round_started":
                out.clear()
            elif kind == "drew" and isinstance(ev.get("player"), int):
                seat, count = ev["player"], int(ev.get("count") or 0)
                if ev.get("reason") == "volley":
                    out[seat] = count
                elif seat in out:
                    out[seat] += count
        ctx.memo["since_volley"] = out
        return out

    def sample(self, ctx: Ctx, rnd: random.Random) -> State:
        """The base's sample, with the draft's public cards where they are known to be:
        the draft discards still under the draw pile at its bottom, in their order, and
        those drawn since that the seat cannot see in the other hand."""
        state = super().sample(ctx, rnd)
        bottom, drawn = self.draft_cards(ctx)
        if not bottom and not drawn:
            return state
        other = 1 - ctx.seat
        known = {*bottom, *drawn}
        _, played, _ = self.unseen(ctx)
        keep = {*played, *self.public_cards(ctx)}  # the discard pile's known cards
        hand = [c for c in state.hands[other] if c not in known]
        spare = [c for c in state.draw_pile if c not in known]
        spare += [c for c in state.discard if c not in known and c not in keep]
        size = len(state.hands[other]) - len(drawn)
        if len(hand) < size:
            hand, spare = hand + spare[: size - len(hand)], spare[size - len(hand) :]
        elif len(hand) > size:
            hand, spare = hand[:size], hand[size:] + spare
        free = len(state.draw_pile) - len(bottom)
        hands = list(state.hands)
        hands[other] = (*hand, *drawn)
        return state._replace(
            hands=tuple(hands),
            draw_pile=(*spare[:free], *bottom),
            discard=(*spare[free:], *(c for c in state.discard if c in keep)),
        )

    def public_cards(self, ctx: Ctx) -> list[int]:
        """The discard top, and during the draft the draft discard pile."""
        out = super().public_cards(ctx)
        out.extend(int(ref["id"]) for ref in ctx.view.get("draft_discard") or ())
        return out

    def ext(self, ctx: Ctx, rnd: random.Random, hands: Any, draw: Any) -> Any:
        pile = tuple(int(ref["id"]) for ref in ctx.view.get("draft_discard") or ())
        return DuoExt(pile, int(ctx.view.get("draw_stack") or 0))


class PizzaKnowledge(BotKnowledge):
    """UNO Pocket Pizza Pizza: the base's give (a low card the hand needs least)."""

    variant_id = "uno_pocket_pizza"


class AllWildKnowledge(BotKnowledge):
    """UNO All Wild: no colours; hold the action cards for a seat about to go out,
    swap hands only with a smaller hand."""

    variant_id = "uno_all_wild"

    def target_value(self, ctx: Ctx, kind: Kind, target: int) -> float:
        if kind is Kind.WILD_FORCED_SWAP:
            return self.swap_value(ctx, target)
        return -float(ctx.sizes[target])

    def play_extra(self, ctx: Ctx, card: int, kind: Kind, move: Move) -> float:
        if kind is Kind.WILD:
            return 1.0  # a plain Wild does nothing: shed it first
        return 0.0


class FlipKnowledge(BotKnowledge):
    """UNO Flip: cards are named by secret round labels, and a seat sees its own
    hand's active faces and the other hands' inactive faces. A Flip is played when the
    other hands' backs (what they would hold after it) are weak."""

    variant_id = "uno_flip"

    def card_id(self, ref: dict[str, Any], side: int) -> int:
        return self.face_id(ref, side)  # a label is no catalog id

    def play_extra(self, ctx: Ctx, card: int, kind: Kind, move: Move) -> float:
        if kind is not Kind.FLIP:
            return 0.0
        other = 1 - ctx.side
        strong = total = 0
        for seat, backs in enumerate(ctx.view.get("backs") or []):
            if seat == ctx.seat:
                continue
            for code in backs:
                face = self._by_code[other].get(code)
                if face is None:
                    continue
                total += 1
                k = self.kind(face, other)
                strong += k in ATTACKS or k in COLORLESS_WILDS
        if not total:
            return 0.0
        return 6.0 * (0.3 - strong / total)

    def played_since_shuffle(self, ctx: Ctx) -> list[int]:
        return []  # labels do not name catalog cards

    @cached_property
    def _faces(self) -> dict[tuple[int, str], tuple[int, ...]]:
        """(side, face code) -> the catalog ids with that face."""
        cat = self.variant.catalog
        out: dict[tuple[int, str], list[int]] = {}
        for c in cat.ids:
            for s in (0, 1):
                out.setdefault((s, cat.code[s][c]), []).append(c)
        return {k: tuple(v) for k, v in out.items()}

    def sample(self, ctx: Ctx, rnd: random.Random) -> State:
        """Each card the view shows (the hand's and the top's faces, the other hands'
        and the draw top's backs) is the first card with that face in a shuffled deck
        that is not taken yet (any untaken card when none is left); the rest are dealt
        in the deck's order, the secret labels shuffled onto the unnamed cards."""
        view = ctx.view
        side = ctx.side
        back = 1 - side
        cat = self.variant.catalog
        size = cat.size
        ids = list(cat.ids)
        shuffle(rnd, ids)
        pos = [0] * size
        for i, c in enumerate(ids):
            pos[c] = i
        faces = self._faces
        used = [False] * size
        first = [0]  # every card before ids[first[0]] is taken

        def take(s: int, code: str | None) -> int:
            if code is not None:
                best = -1
                for c in faces.get((s, code), ()):
                    if not used[c] and (best < 0 or pos[c] < pos[best]):
                        best = c
                if best >= 0:
                    used[best] = True
                    return best
            i = first[0]
            while i < size and used[ids[i]]:
                i += 1
            if i == size:
                raise LookupError("no card left")
            first[0] = i + 1
            used[ids[i]] = True
            return ids[i]

        labels = [-1] * size  # catalog id -> its round label (-1: not known yet)
        own = []
        for ref in view["hand"]:
            c = take(side, ref["code"])
            labels[c] = int(ref["id"])
            own.append(c)
        top_ref = view.get("discard_top")
        top = None
        if top_ref is not None:
            top = take(side, top_ref["code"])
            labels[top] = int(top_ref["id"])
        backs = view.get("backs") or []
        hands: list[tuple[int, ...]] = []
        for seat, n in enumerate(view["hand_sizes"]):
            if seat == ctx.seat:
                hands.append(tuple(own))
                continue
            seen = backs[seat] if seat < len(backs) else []
            hands.append(tuple(take(back, seen[i] if i < len(seen) else None) for i in range(n)))
        draw: list[int] = []
        if view["draw_pile_size"]:
            draw.append(take(back, view.get("draw_top_back")))
        rest = [c for c in ids if not used[c]]
        draw += rest[: view["draw_pile_size"] - len(draw)]
        under = rest[len(draw) - (1 if view["draw_pile_size"] else 0) :]
        discard = (*under, top) if top is not None else tuple(under)
        named = set(labels)
        spare = [lab for lab in range(size) if lab not in named]
        shuffle(rnd, spare)
        for c in cat.ids:
            if labels[c] < 0:
                labels[c] = spare.pop()
        ext = self.variant._ext(labels)  # type: ignore[attr-defined]
        return self.build(ctx, rnd, hands, tuple(draw), discard, ext)


class DosKnowledge(BotKnowledge):
    """DOS: matches that shed the most cards and earn colour bonuses, Wilds kept for
    the matches only they make; the highest card placed into the row."""

    variant_id = "dos"

    def part_colour(self, part: MatchPart) -> Color | None:
        return part.color if part.color is not None else self.color(part.card, 0)

    def score_match(self, ctx: Ctx, move: Move) -> float:
        parts = move.cards or ()
        target = move.target if isinstance(move.target, MatchPart) else None
        if target is None:
            return 0.0
        row_colour = target.color if target.color is not None else self.color(target.card, 0)
        for entry in ctx.view.get("center_row") or []:
            if entry["card"]["id"] == target.card and entry.get("color"):
                row_colour = Color(entry["color"])
        bonus = bool(parts) and all(self.part_colour(p) is row_colour for p in parts)
        wilds = sum(self.kind(p.card, 0) in (Kind.WILD_DOS, Kind.WILD_NUMBER) for p in parts)
        value = 10.0 * len(parts) + sum(self.points(p.card, 0) for p in parts) / 20
        if bonus:
            value += 6.0 + (6.0 if len(parts) == 2 else 0.0)
        return value - 4.0 * wilds

    def score_place(self, ctx: Ctx, move: Move) -> float:
        if move.card is None:
            return 0.0
        kind = self.kind(move.card, 0)
        if kind in (Kind.WILD_DOS, Kind.WILD_NUMBER):
            return -10.0
        return self.points(move.card, 0) / 5

    def public_cards(self, ctx: Ctx) -> list[int]:
        out = super().public_cards(ctx)
        for entry in ctx.view.get("center_row") or []:
            out.append(int(entry["card"]["id"]))
            out.extend(int(m["id"]) for m in entry.get("matched") or [])
        return out

    def discard_of(self, ctx: Ctx, rest: list[int], under: list[int]) -> tuple[int, ...]:
        top = ctx.view.get("discard_top")
        return (*rest, *under, *([int(top["id"])] if top is not None else []))

    def ext(self, ctx: Ctx, rnd: random.Random, hands: Any, draw: Any) -> Any:
        row = []
        for entry in ctx.view.get("center_row") or []:
            colour = entry.get("color")
            row.append(
                RowCard(
                    int(entry["card"]["id"]),
                    tuple(int(m["id"]) for m in entry.get("matched") or []),
                    Color(colour) if colour else None,
                    entry.get("number"),
                )
            )
        return DosExt(tuple(row), int(ctx.view.get("bonus_pending") or 0))


class Bot(NamedTuple):
    """A variant's bots: what the normal level knows of the game and how the hard level
    plays it (``engine.bots.hard_policy``)."""

    knowledge: BotKnowledge
    policy: HardPolicy


def bot_table(*pairs: tuple[type[BotKnowledge], type[HardPolicy]]) -> dict[str, Bot]:
    """One instance of each pair, by the knowledge's ``variant_id``; ``ValueError`` for a
    variant listed twice."""
    table: dict[str, Bot] = {}
    for know, policy in pairs:
        if know.variant_id in table:
            raise ValueError(f"bots for variant {know.variant_id!r} listed twice")
        table[know.variant_id] = Bot(know(), policy())
    return table


#: The one bot registry: every variant's knowledge and hard policy, by variant id.
BOTS = bot_table(
    (BotKnowledge, HardPolicy),
    (DuoKnowledge, DuoPolicy),
    (PizzaKnowledge, PizzaPolicy),
    (FlipKnowledge, SearchHybrid),
    (DosKnowledge, DosPolicy),
    (AllWildKnowledge, AllWildPolicy),
)


def bot_for(variant_id: str) -> Bot:
    """The bots of ``variant_id``; ``LookupError`` for a variant without them, never
    another game's."""
    try:
        return BOTS[variant_id]
    except KeyError:
        raise LookupError(
            f"no bots for variant {variant_id!r} (engine/bots/variants.py: BOTS)"
        ) from None
