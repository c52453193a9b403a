"""The hard level's own DOS turn planner: the matches a seat can make, from its hand and
the center row alone (no engine moves applied), and the best end of its turn.

A DOS turn lists many moves (every declaration of every single and double match), and
the engine applies each one dearly; the hard level plans the whole turn here instead:

- ``match_options(hand, row card)``: every single and double match on one center-row
  card, as the hand cards it takes and whether it can earn the colour bonus (the best
  declaration; the engine lists every declaration: tests/engine/bots/test_hard_policy.py checks the
  two agree);
- ``DosTurn.ends()``: every set of matches on different row cards with different hand
  cards (the end of a turn), its bonus placements chosen by ``place_order``;
- ``DosTurn.value(end)``: the cards left, the points they hold (weighted by how close
  the other seats are to going out: the round's winner scores the cards left in the
  other hands), the cards the other seats draw, and the row left to the next seat (how
  easily it matches the cards placed).

Everything it reads is the seat's own: its hand, the center row and the hand sizes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from typing import Any, NamedTuple

from ..cards import LIGHT_COLORS, Color, Kind
from ..registry import find_variant

COLORS = frozenset(LIGHT_COLORS)
#: A searched turn's value when the seat goes out in it.
OUT = 1000.0


class Face(NamedTuple):
    """A DOS card's face: its code, the numbers it reads as, the colours it can have,
    its points and whether it is a wild."""

    code: str
    numbers: tuple[int, ...]
    colours: frozenset[Color]
    points: int
    wild: bool


@cache
def faces() -> tuple[Face, ...]:
    """Card id -> its face (DOS cards have one side)."""
    cat = find_variant("dos").catalog
    out = []
    for c in cat.ids:
        kind = cat.kind[0][c]
        colour = cat.color[0][c]
        if kind is Kind.WILD_DOS:
            out.append(Face(cat.code[0][c], (2,), COLORS, cat.points[0][c], True))
            continue
        if colour is None:
            raise ValueError(f"DOS card {c}: only a Wild DOS has no colour")
        if kind is Kind.WILD_NUMBER:
            out.append(Face(cat.code[0][c], tuple(range(1, 11)), frozenset({colour}), cat.points[0][c], True))  # fmt: skip
        else:
            out.append(Face(cat.code[0][c], (cat.value[0][c] or 0,), frozenset({colour}), cat.points[0][c], False))  # fmt: skip
    return tuple(out)


class Option(NamedTuple):
    """One match on one row card: the hand cards it takes (in hand order) and whether
    it earns the colour bonus."""

    cards: tuple[int, ...]
    bonus: bool


def match_options(hand: Sequence[int], target: int) -> list[Option]:
    """Every single and double match on the row card ``target`` (not matched yet) with
    the cards of ``hand``, one per set of hand cards (its bonus: the best declaration)."""
    fs = faces()
    byn: dict[int, list[int]] = {}
    for i, c in enumerate(hand):
        for n in fs[c].numbers:
            byn.setdefault(n, []).append(i)
    best: dict[tuple[int, ...], bool] = {}
    t = fs[target]
    for total in t.numbers:
        tc = t.colours
        for i in byn.get(total, ()):
            key: tuple[int, ...] = (hand[i],)
            bonus = bool(tc & fs[hand[i]].colours)
            if not best.get(key, False):
                best[key] = bonus
        for n1 in range(1, total // 2 + 1):
            n2 = total - n1
            for i in byn.get(n1, ()):
                for j in byn.get(n2, ()):
                    if i == j or (n1 == n2 and j < i):
                        continue
                    a, b = (i, j) if i < j else (j, i)
                    key = (hand[a], hand[b])
                    bonus = bool(tc & fs[hand[a]].colours & fs[hand[b]].colours)
                    if not best.get(key, False):
                        best[key] = bonus
    return [Option(k, v) for k, v in best.items()]


def move_option(move: Any) -> tuple[int, frozenset[int], bool]:
    """A legal match move as (target card, hand cards, whether its declarations earn
    the colour bonus)."""
    fs = faces()
    target = move.target
    tcolour = target.color
    tcolours = fs[target.card].colours if tcolour is None else frozenset({tcolour})
    ok = True
    for p in move.cards:
        pc = frozenset({p.color}) if p.color is not None else fs[p.card].colours
        ok = ok and bool(tcolours & pc)
    return target.card, frozenset(p.card for p in move.cards), ok


class End(NamedTuple):
    """One end of the turn: the matches made (row card -> option), the hand left
    before the bonus placements, and the bonuses and double colour matches earned."""

    matches: tuple[tuple[int, Option], ...]
    left: tuple[int, ...]
    bonus: int
    doubles: int


def ends(hand: Sequence[int], targets: Sequence[int], bonus: int = 0, limit: int = 4000) -> list[End]:  # fmt: skip
    """Every set of matches on different ``targets`` (row cards not matched yet) with
    different hand cards; identical faces are tried once. At most ``limit`` ends."""
    fs = faces()
    per_target = [(t, match_options(hand, t)) for t in targets]
    out: list[End] = []

    def walk(k: int, left: tuple[int, ...], made: tuple[tuple[int, Option], ...], b: int, d: int) -> None:  # fmt: skip
        if len(out) >= limit:
            return
        if k == len(per_target) or not left:
            out.append(End(made, left, b, d))
            return
        t, opts = per_target[k]
        walk(k + 1, left, made, b, d)
        have = set(left)
        seen: set[tuple[str, ...]] = set()
        for opt in opts:
            if not all(c in have for c in opt.cards):
                continue
            key = tuple(sorted(fs[c].code for c in opt.cards)) + (str(opt.bonus),)
            if key in seen:
                continue
            seen.add(key)
            rest = tuple(c for c in left if c not in opt.cards)
            walk(k + 1, rest, (*made, (t, opt)), b + opt.bonus, d + (opt.bonus and len(opt.cards) == 2))  # fmt: skip

    walk(0, tuple(hand), (), bonus, 0)
    return out


def unseen_counts(public: Iterable[int], hand: Iterable[int]) -> dict[str, int]:
    """Face code -> how many cards with it the seat cannot see."""
    fs = faces()
    counts: dict[str, int] = {}
    for f in fs:
        counts[f.code] = counts.get(f.code, 0) + 1
    for c in (*public, *hand):
        counts[fs[c].code] -= 1
    return counts


def number_odds(unseen: dict[str, int]) -> dict[int, float]:
    """Number -> the share of the unseen cards that read as it (wilds included)."""
    fs = faces()
    by_code = {f.code: f for f in fs}
    total = sum(max(0, v) for v in unseen.values()) or 1
    out = {n: 0.0 for n in range(1, 11)}
    for code, k in unseen.items():
        if k <= 0:
            continue
        for n in by_code[code].numbers:
            out[n] += k / total
    return out


class Weights(NamedTuple):
    """The end of a turn's value, per unit."""

    #: Per card left in the hand.
    card: float = 10.0
    #: Per point left in the hand, times the danger (the next seat's odds to go out).
    points: float = 2.0
    #: Per card another seat draws (a double colour match).
    given: float = 6.0
    #: Per card the next seat is expected to shed on the row left to it.
    row: float = 4.0
    #: Holding a Wild # / a Wild DOS (a match for the next turn), while 2+ cards are left.
    wild_number: float = 6.0
    wild_dos: float = 3.0
    #: Per unit of a kept card's use (its odds to be matched on a later row).
    use: float = 15.0
    #: Drawing instead of matching.
    draw: float = 3.0
    #: A match declared without the bonus it could earn.
    no_bonus: float = 30.0


#: Danger by the smallest other hand: the share of the points held that counts.
DANGER = {1: 0.7, 2: 0.45, 3: 0.3, 4: 0.2, 5: 0.12}
DANGER_ELSE = 0.08


class DosTurn:
    """The seat's turn, planned on its view: ``values()`` values every legal move by
    the best end of the turn it leads to (``Weights``)."""

    def __init__(self, ctx: Any, weights: Weights | None = None) -> None:
        self.ctx = ctx
        self.w = weights or Weights()
        view = ctx.view
        self.seat = ctx.seat
        self.hand = tuple(int(r["id"]) for r in view["hand"])
        self.row = [
            (int(e["card"]["id"]), bool(e.get("matched"))) for e in view.get("center_row") or []
        ]
        self.open_row = [c for c, matched in self.row if not matched]
        self.bonus = int(view.get("bonus_pending") or 0)
        sizes = list(view["hand_sizes"])
        self.sizes = sizes
        n = len(sizes)
        self.next = (self.seat + 1) % n
        self.others = [s for s in range(n) if s != self.seat]
        public = [c for c, _ in self.row]
        for e in view.get("center_row") or []:
            public.extend(int(m["id"]) for m in e.get("matched") or [])
        public.extend(discarded(ctx.history))
        self.unseen = unseen_counts(public, self.hand)
        self.odds = number_odds(self.unseen)
        self.by_code = {f.code: f for f in faces()}
        self.ease_memo: dict[tuple[int, int], float] = {}
        self.pair_memo: dict[tuple[int, int], float] = {}

    # ------------------------------------------------------------------ the next seat
    def ease(self, card: int, k: int) -> float:
        """The cards a hand of ``k`` unseen cards is expected to shed on ``card`` in the
        row: a single match on one of its numbers (a Wild #: any number the hand
        holds), or a double adding up to one of them."""
        key = (card, k)
        got = self.ease_memo.get(key)
        if got is not None:
            return got
        odds = self.odds
        numbers = faces()[card].numbers
        single = 1.0 - (1.0 - self.share(numbers)) ** k
        double = 0.0
        for n in numbers:
            pairs = 0.0
            for a in range(1, n // 2 + 1):
                b = n - a
                pairs += odds[a] * odds[b] * (1.0 if a == b else 2.0)
            if k >= 2:
                double = max(double, 1.0 - (1.0 - min(1.0, pairs)) ** (k * (k - 1) / 2))
        got = self.ease_memo[key] = single + double
        return got

    def share(self, numbers: tuple[int, ...]) -> float:
        """The share of the unseen cards that read as one of ``numbers``."""
        if len(numbers) == 1:
            return self.odds[numbers[0]]
        wanted = set(numbers)
        total = sum(k for k in self.unseen.values() if k > 0) or 1
        return sum(
            k / total
            for code, k in self.unseen.items()
            if k > 0 and wanted & set(self.by_code[code].numbers)
        )

    def danger(self, sizes: Sequence[int]) -> float:
        low = min(sizes[s] for s in self.others)
        return DANGER.get(low, DANGER_ELSE)

    # ------------------------------------------------------------------ values
    def hold(self, card: int, danger: float, hand: Sequence[int]) -> float:
        """The value of holding ``card`` beside the rest of ``hand`` (its use on a later
        row and, while 2+ cards are held, a wild's flexibility; less its points at
        risk)."""
        f = faces()[card]
        w = self.w
        value = -w.points * danger * f.points
        if not hand:
            return value
        if f.wild:
            value += w.wild_number if len(f.numbers) > 1 else w.wild_dos
        return value + w.use * self.use(card, hand)

    def use(self, card: int, hand: Sequence[int]) -> float:
        """The odds ``card`` finds a match on a later row card: alone, or in a double
        with another card of ``hand`` (at most 1)."""
        total = self.pair(card, -1)
        for other in hand:
            if other != card:
                total += self.pair(card, other)
                if total >= 1.0:
                    return 1.0
        return min(1.0, total)

    def pair(self, card: int, other: int) -> float:
        """``card``'s odds to be matched alone (``other`` -1), or half its odds to be
        matched with ``other`` in a double."""
        key = (card, other)
        got = self.pair_memo.get(key)
        if got is not None:
            return got
        fs = faces()
        odds = self.odds
        mine = fs[card].numbers
        if other < 0:
            got = sum(odds[n] for n in mine)
        else:
            got = 0.0
            for n in mine:
                for m in fs[other].numbers:
                    if n + m <= 10:
                        got += 0.5 * odds[n + m]
        self.pair_memo[key] = got
        return got

    def value(
        self,
        left: tuple[int, ...],
        bonus: int,
        doubles: int,
        row_left: Sequence[int] = (),
        placed_first: int | None = None,
    ) -> float:
        """The end of the turn with ``left`` in the hand before ``bonus`` placements,
        ``row_left`` the row cards left unmatched (``placed_first``: a card placed
        already at this decision)."""
        w = self.w
        sizes = list(self.sizes)
        for s in self.others:
            sizes[s] += doubles
        if not left:
            return OUT + w.given * doubles
        danger = self.danger(sizes)
        k_next = sizes[self.next]
        placed: list[int] = [] if placed_first is None else [placed_first]
        hand = list(left)
        due = min(bonus, len(hand))
        if due:
            order = sorted(
                hand, key=lambda c: self.place_score(c, danger, k_next, left), reverse=True
            )
            placed.extend(order[:due])
            for c in order[:due]:
                hand.remove(c)
        if not hand:
            return OUT + w.given * doubles
        value = -w.card * len(hand) + w.given * doubles
        many = len(hand) > 1
        for c in hand:
            value += self.hold(c, danger, hand if many else ())
        for c in (*placed, *row_left):
            value -= w.row * self.ease(c, k_next)
        return value

    def place_score(self, card: int, danger: float, k_next: int, hand: Sequence[int]) -> float:
        """How good placing ``card`` is (the higher, the better)."""
        return -self.hold(card, danger, hand) - self.w.row * self.ease(card, k_next)

    def values(self, legal: Sequence[Any]) -> dict[Any, float]:
        """Every legal move's value."""
        view = self.ctx.view
        pend = view.get("pending")
        ptype = pend.get("type") if pend else None
        out: dict[Any, float] = {}
        w = self.w
        if ptype == "bonus_place":
            for m in legal:
                if m.card is None:
                    continue
                left = list(self.hand)
                left.remove(m.card)
                out[m] = self.value(tuple(left), self.bonus - 1, 0, self.open_row, m.card)
            return out
        if ptype == "drawn":
            drawn = int(pend["card"]["id"])
            best: dict[tuple[int, frozenset[int], bool], float] = {}
            for t, matched in self.row:
                if matched:
                    continue
                for opt in match_options(self.hand, t):
                    if drawn not in opt.cards:
                        continue
                    kept = tuple(c for c in self.hand if c not in opt.cards)
                    d = int(opt.bonus and len(opt.cards) == 2)
                    rest = [r for r in self.open_row if r != t]
                    best[(t, frozenset(opt.cards), opt.bonus)] = self.value(
                        kept, int(opt.bonus), d, rest
                    )
            for m in legal:
                if m.type.value == "place" and m.card is not None:
                    left = list(self.hand)
                    left.remove(m.card)
                    out[m] = self.value(tuple(left), 0, 0, self.open_row, m.card)
                elif m.type.value == "match":
                    out[m] = self.match_value(m, best)
            return out
        targets = self.open_row
        best = {}
        none = -1e9
        for end in ends(self.hand, targets, self.bonus):
            done = {t for t, _ in end.matches}
            v = self.value(end.left, end.bonus, end.doubles, [t for t in targets if t not in done])
            if not end.matches:
                none = v
            for t, opt in end.matches:
                key = (t, frozenset(opt.cards), opt.bonus)
                if v > best.get(key, -1e9):
                    best[key] = v
        for m in legal:
            kind = m.type.value
            if kind == "match":
                out[m] = self.match_value(m, best)
            elif kind == "end_turn":
                out[m] = none
            elif kind == "draw":
                out[m] = none - w.draw
        return out

    def match_value(self, move: Any, best: dict[tuple[int, frozenset[int], bool], float]) -> float:
        t, cards, bonus = move_option(move)
        got = best.get((t, cards, bonus))
        if got is not None:
            return got
        if not bonus:
            got = best.get((t, cards, True))
            if got is not None:
                return got - self.w.no_bonus
        return -1e6  # not found (cannot happen for a legal move): last


def discarded(history: Iterable[Any]) -> list[int]:
    """The cards the history shows going to the discard pile since its last reshuffle."""
    out: list[int] = []
    for ev in history:
        kind = ev.get("type")
        if kind in ("reshuffled", "round_started"):
            out = []
        elif kind == "turn_ended":
            out.extend(int(c["id"]) for c in ev.get("discarded") or [])
    return out
