"""DOS (``dos``): match the cards of a two-card center row by number, alone or in pairs
that add up; colour bonuses put extra cards into the row (rules: ``docs/rules/dos.md``).

DOS has its own turn structure, so it subclasses ``Variant`` directly. The center row
lives in ``State.ext.row`` (one ``RowCard`` per center-row card: the card, the hand cards
matched onto it this turn, and what a wild in the row was declared to be); the discard
pile (``State.discard``) starts empty and only receives matched cards. There is no UNO
(or DOS) call: DOS's own rules name none, and the project leaves the family's general
call out (why: ``docs/rules/dos.md``), so ``uno_rule`` is off.

A turn, as moves:

- no decision pending: ``match`` (any center-row card) or ``draw``;
- ``matching`` (after the first match): more ``match`` moves (each center-row card at
  most once a turn) or ``end_turn``;
- ``drawn`` (after a draw that gave a card, ``pending.card``): one ``match`` that uses
  the drawn card, or ``place`` any hand card at the end of the center row;
- ``bonus_place`` (end of the turn, one per colour bonus earned, as many as the hand
  allows): ``place`` a hand card at the end of the center row.

A match move: ``target`` {card, color?, number?} names a center-row card and ``cards``
one or two {card, color?, number?} from the hand. Declarations follow the card, in the
row and in the hand alike: a number card takes none; a Wild # needs ``number`` (1-10)
and keeps its own colour (no ``color``); a Wild DOS is always a 2 and needs ``color``
(red, yellow, green or blue; no ``number``). Declarations are required even where the
numbers determine them; the legal moves list them filled in. The two cards of a double
match may come in either order.

Choices where the rule book is silent (documented for integrators):

- Colours: a card's colour in a match is its printed colour, or for a Wild DOS the
  colour declared for it (in the hand or in the row). A single colour match is a single
  match whose card has the center-row card's colour; a double colour match one whose two
  cards both have it. So a Wild DOS declared red matching a red center card is a colour
  match, and any card matched onto a Wild DOS in the row declared green is a colour
  match when it is (or is declared) green.
- After a draw, the one allowed match ends the matching: the end-of-turn steps follow
  at once, without an ``end_turn`` move (nothing else could be done before it).
- A draw that yields nothing (draw and discard piles both empty) ends the turn (README:
  "a player who chose to draw and got nothing has ended their turn"); no card is placed.
- An empty draw pile is refilled from the whole discard pile (the center row stays);
  the README's "keep the top card" has no meaning in DOS, since nothing is matched
  against the discard pile.
- A player who puts their last card into the center row (a bonus placement) has no
  cards left and wins the round at once.
- Other players draw their double-colour-match card in seat order from the matcher's
  left; refilling the row and those draws reshuffle the discard pile when needed.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cached_property
from typing import Any, ClassVar, NamedTuple

from .. import rng as prng
from ..cards import LIGHT_COLORS, Color, Kind
from ..errors import InvalidState, RulesError
from ..events import Event, event
from ..moves import MatchPart, Move, MoveType
from ..state import NEXT_SEAT, Pending, PendingType, Phase, State, Work, seat_after
from ..variant import TURN, Variant, defaults, handles, lists

T = MoveType
MATCH, PLACE, DRAW, END_TURN = T.MATCH, T.PLACE, T.DRAW, T.END_TURN
PLAY = Phase.PLAY
_new = tuple.__new__


class DosPending(PendingType):
    """DOS's decisions (its turn is its own: none of classic UNO's)."""

    MATCHING = "matching"
    DRAWN = "drawn"
    BONUS_PLACE = "bonus_place"


P = DosPending
# Enum members as module constants: on Python 3.11 every ``P.X`` is a descriptor call.
MATCHING, DRAWN, BONUS_PLACE = P.MATCHING, P.DRAWN, P.BONUS_PLACE
NUMBERS = range(1, 11)
COLORS = LIGHT_COLORS
#: Colour -> its JSON name (``Color.value`` is a descriptor call on Python 3.11).
COLOR_NAMES: dict[Color, str] = {c: c.value for c in Color}

#: A hand or row card's readings: declared number -> ((part as sent, colour it has), ...)
Options = dict[int, tuple[tuple[MatchPart, Color], ...]]


class RowCard(NamedTuple):
    """One center-row card: the hand cards matched onto it this turn (empty: not
    matched yet) and, once matched, what it was declared to be (a Wild DOS's colour,
    a Wild #'s number)."""

    card: int
    matched: tuple[int, ...] = ()
    color: Color | None = None
    number: int | None = None


class DosExt(NamedTuple):
    """DOS's extra state: the center row, left to right, and the colour bonuses earned
    this turn and not placed yet (during ``bonus_place``: the placements still due)."""

    row: tuple[RowCard, ...] = ()
    bonus: int = 0


class Dos(Variant):
    id = "dos"
    title = "DOS"
    catalog_name = "dos"
    min_players = 2
    max_players = 4
    target = 200
    hand_size = 7
    uno_rule = False
    notes = (
        "108 cards: per colour three each of 1, 3, 4, 5, two each of 6-10 and two Wild #; "
        "12 Wild DOS (the 2s). Scoring: numbers at face value, Wild DOS 20, Wild # 40.",
        "No UNO / DOS call: the rule book has none.",
        "The discard pile starts empty; the view's center_row lists the row, left to right.",
        "A match names a center-row card (target) and one or two hand cards; a Wild # "
        "needs 'number' (1-10), a Wild DOS 'color', in the hand and in the row alike.",
        "After a draw, the one match with the drawn card ends the turn at once.",
        "A draw that yields nothing ends the turn; an empty draw pile is refilled from "
        "the whole discard pile.",
    )
    move_types: ClassVar[frozenset[MoveType]] = frozenset(
        {MATCH, DRAW, PLACE, END_TURN, T.NEXT_ROUND}
    )
    side_moves: ClassVar[frozenset[MoveType]] = frozenset()
    event_types: ClassVar[frozenset[str]] = Variant.event_types - {"uno", "caught"} | {
        "center_row_dealt",
        "matched",
        "turn_ended",
        "center_row_refilled",
        "placed",
    }
    bot_rank: ClassVar[dict[MoveType, int]] = {
        **Variant.bot_rank,
        MATCH: 0,
        PLACE: 0,
        END_TURN: 2,
        DRAW: 3,
    }
    pending_moves: ClassVar[dict[PendingType, tuple[frozenset[MoveType], str]]] = {
        P.MATCHING: (frozenset({MATCH, END_TURN}), "must_match_or_end_turn"),
        P.DRAWN: (frozenset({MATCH, PLACE}), "must_match_or_place"),
        P.BONUS_PLACE: (frozenset({PLACE}), "must_place_card"),
    }

    # ------------------------------------------------------------------ static tables
    @cached_property
    def _options(self) -> tuple[Options, ...]:
        """Per card: every reading it can be matched as (number -> parts and colours)."""
        cat = self.catalog
        out: list[Options] = []
        for c in cat.ids:
            kind = cat.kind[0][c]
            if kind is Kind.WILD_DOS:  # no printed colour: it is the colour declared
                out.append({2: tuple((MatchPart(c, k), k) for k in COLORS)})
                continue
            color = cat.color[0][c]
            if color is None:
                raise ValueError(f"DOS card {c}: only a Wild DOS has no colour")
            if kind is Kind.WILD_NUMBER:
                out.append({n: ((MatchPart(c, None, n), color),) for n in NUMBERS})
            else:
                out.append({cat.value[0][c] or 0: ((MatchPart(c), color),)})
        return tuple(out)

    @cached_property
    def _match_parts(self) -> tuple[tuple[tuple[int, tuple[MatchPart, ...]], ...], ...]:
        """``_options`` without the colours, as (number, parts) pairs: what the legal
        moves list (a move carries the parts as sent)."""
        return tuple(
            tuple((n, tuple(p for p, _ in parts)) for n, parts in opts.items())
            for opts in self._options
        )

    @cached_property
    def _numbers(self) -> tuple[tuple[int, ...], ...]:
        """Per card: the numbers it can be matched as (``_options``' keys)."""
        return tuple(tuple(opts) for opts in self._options)

    @cached_property
    def _number_bits(self) -> tuple[int, ...]:
        """Per card: ``_numbers`` as a bit mask (bit n set: it can stand for n)."""
        return tuple(sum(1 << n for n in numbers) for numbers in self._numbers)

    @cached_property
    def _end_turn_moves(self) -> tuple[Move, ...]:
        return tuple(Move(END_TURN, p) for p in range(self.max_players))

    @cached_property
    def _place_moves(self) -> tuple[tuple[Move, ...], ...]:
        """[seat][card] -> the move placing that card (moves are immutable)."""
        ids = self.catalog.ids
        return tuple(tuple(Move(PLACE, p, c) for c in ids) for p in range(self.max_players))

    @cached_property
    def _draw_moves(self) -> tuple[Move, ...]:
        return tuple(Move(DRAW, p) for p in range(self.max_players))

    @cached_property
    def _pendings(self) -> dict[PendingType, tuple[Pending, ...]]:
        """[decision][seat] -> the ``Pending`` without a card (they are immutable)."""
        return {
            d: tuple(Pending(d, p) for p in range(self.max_players))
            for d in (MATCHING, BONUS_PLACE)
        }

    @cached_property
    def _drawn_pendings(self) -> tuple[tuple[Pending, ...], ...]:
        """[seat][card] -> the ``drawn`` decision on that card."""
        ids = self.catalog.ids
        return tuple(tuple(Pending(DRAWN, p, c) for c in ids) for p in range(self.max_players))

    @cached_property
    def _codes(self) -> tuple[str, ...]:
        """Card id -> its code: ``public_ref`` written out (DOS cards have one face)."""
        return self.catalog.code[0]

    # ------------------------------------------------------------------ ext
    def initial_ext(self, players: int) -> DosExt:
        return DosExt()

    def round_ext(self, w: Work) -> DosExt:
        return DosExt()

    def ext_to_json(self, ext: DosExt) -> dict[str, Any]:
        return {
            "center_row": [
                {
                    "card": e.card,
                    "matched": list(e.matched),
                    "color": e.color.value if e.color is not None else None,
                    "number": e.number,
                }
                for e in ext.row
            ],
            "bonus": ext.bonus,
        }

    def ext_from_json(self, raw: Any, players: int) -> DosExt:
        if not isinstance(raw, dict) or set(raw) != {"center_row", "bonus"}:
            raise InvalidState("state.ext: must be {center_row, bonus} for dos", field="ext")
        row_raw, bonus = raw["center_row"], raw["bonus"]
        if not isinstance(row_raw, list):
            raise InvalidState("state.ext.center_row: must be a list", field="ext.center_row")
        size = self.catalog.size

        def card_id(value: Any) -> bool:
            return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < size

        row = []
        for i, e in enumerate(row_raw):
            where = f"ext.center_row[{i}]"
            if not isinstance(e, dict) or set(e) != {"card", "matched", "color", "number"}:
                raise InvalidState(
                    f"state.{where}: must be {{card, matched, color, number}}", field=where
                )
            matched, color, number = e["matched"], e["color"], e["number"]
            if not card_id(e["card"]):
                raise InvalidState(f"state.{where}.card: must be a card id", field=where)
            if not isinstance(matched, list) or not all(card_id(c) for c in matched):
                raise InvalidState(
                    f"state.{where}.matched: must be a list of card ids", field=where
                )
            if color is not None and color not in {k.value for k in COLORS}:
                raise InvalidState(
                    f"state.{where}.color: must be red, yellow, green, blue or null", field=where
                )
            if number is not None and (
                not isinstance(number, int) or isinstance(number, bool) or number not in NUMBERS
            ):
                raise InvalidState(f"state.{where}.number: must be 1-10 or null", field=where)
            row.append(
                RowCard(
                    e["card"], tuple(matched), Color(color) if color is not None else None, number
                )
            )
        if not isinstance(bonus, int) or isinstance(bonus, bool) or bonus < 0:
            raise InvalidState("state.ext.bonus: must be an integer >= 0", field="ext.bonus")
        return DosExt(tuple(row), bonus)

    # ------------------------------------------------------------------ setup
    def setup_table(self, w: Work, pile: list[int], events: list[Event]) -> None:
        """Deal 7 each, turn two cards face up as the center row; the player left of
        the dealer plays first."""
        w.draw_pile = tuple(self.deal(w, pile, self.hand_size))
        row = []
        for _ in range(2):
            card = self.take_top(w, events)
            if card is not None:
                row.append(RowCard(card))
        w.ext = DosExt(tuple(row), 0)
        events.append(event("center_row_dealt", cards=[self.public_ref(w, e.card) for e in row]))
        w.current = seat_after(w.dealer, w.num_players)

    def reshuffle(self, w: Work, events: list[Event]) -> tuple[int, ...]:
        """The whole discard pile becomes the new draw pile (the center row stays)."""
        rest = list(w.discard)
        if not rest:
            return ()
        w.discard = ()
        w.rng = prng.shuffle(w.rng, rest)
        w.draw_pile = tuple(rest)
        events.append(event("reshuffled", count=len(rest)))
        return w.draw_pile

    def take_top(self, w: Work, events: list[Event]) -> int | None:
        """The top card of the draw pile (reshuffling when it is empty), or None."""
        pile = w.draw_pile
        if not pile:
            pile = self.reshuffle(w, events)
            if not pile:
                return None
        w.draw_pile = pile[1:]
        return pile[0]

    # ------------------------------------------------------------------ guards
    def refusal(self, move: Move, error: RulesError) -> RulesError:
        """DOS's own codes for an end of turn or a draw out of place."""
        code = error.code
        if code == "nothing_to_end":
            return RulesError(
                "end_turn follows a match; with no match made this turn, match or draw",
                code="no_match_made",
            )
        if move.type is DRAW and code == "must_match_or_end_turn":
            return RulesError(
                "a player who has matched this turn cannot draw; match more or end_turn",
                code="cannot_draw_after_match",
            )
        if move.type is DRAW and code == "must_match_or_place":
            return RulesError(
                "one draw a turn: match with the drawn card or place a card",
                code="already_drew",
            )
        return error

    # ------------------------------------------------------------------ legal moves
    def legal_turn(self, state: State, player: int) -> list[Move]:
        moves = self.match_moves(state, player, None)
        moves.append(self._draw_moves[player])
        return moves

    @lists(P.MATCHING)
    def legal_matching(self, state: State, player: int) -> list[Move]:
        moves = self.match_moves(state, player, None)
        moves.append(self._end_turn_moves[player])
        return moves

    @lists(P.DRAWN)
    def legal_drawn(self, state: State, player: int) -> list[Move]:
        moves = self.match_moves(state, player, state.pending.card)  # type: ignore[union-attr]
        place = self._place_moves[player]
        moves += map(place.__getitem__, state.hands[player])
        return moves

    @lists(P.BONUS_PLACE)
    def legal_bonus_place(self, state: State, player: int) -> list[Move]:
        return list(map(self._place_moves[player].__getitem__, state.hands[player]))

    # ------------------------------------------------------------------ forced defaults
    @defaults(TURN)
    def default_turn(self, state: State, player: int) -> Move:
        """Draw a card (`draw`); the `drawn` default follows."""
        return self._draw_moves[player]

    @defaults(P.MATCHING)
    def default_matching(self, state: State, player: int) -> Move:
        """End the turn (`end_turn`); the `bonus_place` default follows when colour
        bonuses are due."""
        return self._end_turn_moves[player]

    @defaults(P.DRAWN)
    def default_drawn(self, state: State, player: int) -> Move:
        """Place the drawn card at the end of the center row (`place`)."""
        return Move(PLACE, player, state.pending.card)  # type: ignore[union-attr]

    @defaults(P.BONUS_PLACE)
    def default_bonus_place(self, state: State, player: int) -> Move:
        """Place the first card of the hand, in hand order, at the end of the center
        row (`place`)."""
        return Move(PLACE, player, state.hands[player][0])

    def match_moves(self, state: State, player: int, only: int | None) -> list[Move]:
        """Every single and double match on the center-row cards not matched this turn,
        each declaration choice listed (``only``: the match must use this card). The
        cards of a double come in hand order.

        Order: row entries left to right; per reading of the center card (number) its
        singles in hand order, then its doubles by the smaller number, then hand order.
        Every turn lists these: the hand is grouped by number once, only numbers the
        hand holds are tried, and moves are built as plain tuples."""
        out: list[Move] = []
        hand = state.hands[player]
        if only is not None:
            # A match uses ``only``: alone, or added to another hand card. Most drawn
            # cards reach no row card (``_number_bits``: bit n, the card can be n): none
            # is listed then, without grouping the hand.
            bits = self._number_bits
            others = 0
            for c in hand:
                if c != only:
                    others |= bits[c]
            reach = bits[only]
            for n in self._numbers[only]:
                reach |= others << n
            for entry in state.ext.row:
                if not entry[1] and bits[entry[0]] & reach:  # not matched this turn
                    break
            else:
                return out
        parts_of = self._match_parts
        # number -> the hand cards that can stand for it: (hand index, card, parts)
        byn: dict[int, list[tuple[int, int, tuple[MatchPart, ...]]]] = {}
        for i, c in enumerate(hand):
            for n, parts in parts_of[c]:
                if n in byn:
                    byn[n].append((i, c, parts))
                else:
                    byn[n] = [(i, c, parts)]
        if not byn:
            return out
        numbers = sorted(byn)
        smallest_pair = 2 * numbers[0]
        append = out.append
        get = byn.get
        for entry in state.ext.row:
            if entry[1]:  # matched this turn
                continue
            for total, tparts in parts_of[entry[0]]:
                singles = get(total)
                if singles is not None:
                    for _, c, parts in singles:
                        if only is None or c == only:
                            for tp in tparts:
                                for hp in parts:
                                    append(_new(Move, (MATCH, player, None, None, tp, None, False, (hp,))))  # fmt: skip
                if total < smallest_pair:
                    continue
                for n1 in numbers:
                    n2 = total - n1
                    if n2 < n1:
                        break
                    b2 = get(n2)
                    if b2 is None:
                        continue
                    same = n1 == n2
                    for i, c1, p1 in byn[n1]:
                        for j, c2, p2 in b2:
                            if i == j or (same and j < i):
                                continue
                            if only is not None and only != c1 and only != c2:
                                continue
                            first, second = (p1, p2) if i < j else (p2, p1)
                            for tp in tparts:
                                for a in first:
                                    for b in second:
                                        append(_new(Move, (MATCH, player, None, None, tp, None, False, (a, b))))  # fmt: skip
        return out

    # ------------------------------------------------------------------ match
    @cached_property
    def _readings(self) -> dict[MatchPart, tuple[int, Color]]:
        """Every well-declared match part (from ``_options``) -> its number and colour."""
        return {
            part: (n, color)
            for opts in self._options
            for n, parts in opts.items()
            for part, color in parts
        }

    def reading(self, part: MatchPart, where: str) -> tuple[int, Color]:
        """The number and colour a match part stands for; raise on a bad declaration."""
        try:
            known = self._readings.get(part)
        except TypeError:  # an unhashable declaration: refused below
            known = None
        if known is not None:
            return known
        cat = self.catalog
        card = part.card
        kind = cat.kind[0][card]
        code = cat.code[0][card]
        if kind is Kind.WILD_NUMBER:
            if part.color is not None:
                raise RulesError(
                    f"{where} {code} is a Wild #: it keeps its own colour, name only a number",
                    code="invalid_declaration",
                )
            if part.number is None:
                raise RulesError(
                    f"{where} {code} is a Wild #: name the number (1-10) it stands for",
                    code="declaration_required",
                )
            if part.number not in NUMBERS:
                raise RulesError(
                    f"{where} {code}: a Wild # stands for a number from 1 to 10, not {part.number}",
                    code="invalid_declaration",
                )
            return part.number, cat.color[0][card]  # type: ignore[return-value]
        if kind is Kind.WILD_DOS:
            if part.number is not None:
                raise RulesError(
                    f"{where} {code} is a Wild DOS: it is always a 2, name only a colour",
                    code="invalid_declaration",
                )
            if part.color is None:
                raise RulesError(
                    f"{where} {code} is a Wild DOS: name the colour it stands for",
                    code="declaration_required",
                )
            if part.color not in COLORS:
                raise RulesError(
                    f"{where} {code}: a Wild DOS is red, yellow, green or blue, "
                    f"not {part.color.value}",
                    code="invalid_declaration",
                )
            return 2, part.color
        if part.color is not None or part.number is not None:
            raise RulesError(
                f"{where} {code} is a number card: it takes no colour or number",
                code="invalid_declaration",
            )
        return cat.value[0][card], cat.color[0][card]  # type: ignore[return-value]

    def check_match(
        self, w: Work, move: Move
    ) -> tuple[int, tuple[int, Color], list[tuple[int, int, Color]]]:
        """Validate a match; return the row index, the center card's reading and each
        hand card's (card, number, colour)."""
        target = move.target
        if target is None:
            raise RulesError(
                "a match needs a target: the center-row card {card, color?, number?}",
                code="target_required",
            )
        if not isinstance(target, MatchPart):
            raise RulesError(
                "a match's target is an object {card, color?, number?}, not a seat",
                code="invalid_target",
            )
        parts = move.cards
        if not parts:
            raise RulesError("a match needs one or two cards from the hand", code="cards_required")
        if len(parts) > 2:
            raise RulesError(
                f"a match takes one or two cards from the hand, not {len(parts)}",
                code="too_many_cards",
            )
        row = w.ext.row
        tcard = target.card
        for index, e in enumerate(row):  # noqa: B007 - the index found is used below
            if e.card == tcard:
                break
        else:
            raise RulesError(f"card {tcard} is not in the center row", code="not_in_center_row")
        if row[index].matched:
            raise RulesError(
                f"center-row card {target.card} has already been matched this turn",
                code="already_matched",
            )
        hand = w.hands[move.player]
        for p in parts:
            if p.card not in hand:
                raise RulesError(
                    f"card {p.card} is not in player {move.player}'s hand",
                    code="card_not_in_hand",
                )
        if len(parts) == 2 and parts[0].card == parts[1].card:
            raise RulesError("a double match takes two different cards", code="duplicate_card")
        pend = w.pending
        if pend is not None and pend.type is DRAWN and all(p.card != pend.card for p in parts):
            raise RulesError(
                f"after a draw, only a match using the drawn card ({pend.card}) is allowed; "
                "otherwise place a card",
                code="must_match_drawn_card",
            )
        # ``reading`` of each part, its table looked up first (a well-declared part).
        known = self._readings.get
        try:
            center = known(target)
        except TypeError:  # an unhashable declaration: ``reading`` refuses it
            center = None
        if center is None:
            center = self.reading(target, "center-row card")
        readings = []
        for p in parts:
            try:
                got = known(p)
            except TypeError:
                got = None
            if got is None:
                got = self.reading(p, "card")
            readings.append((p[0], got[0], got[1]))
        total = readings[0][1] if len(readings) == 1 else readings[0][1] + readings[1][1]
        if total != center[0]:
            if len(readings) == 1:
                raise RulesError(
                    f"a single match needs the center-row card's number {center[0]}, not {total}",
                    code="wrong_number",
                )
            raise RulesError(
                f"a double match needs two numbers adding up to {center[0]}; "
                f"{readings[0][1]} + {readings[1][1]} = {total}",
                code="wrong_sum",
            )
        return index, center, readings  # type: ignore[return-value]

    @handles(MATCH)
    def on_match(self, w: Work, move: Move, events: list[Event]) -> None:
        index, (number, color), readings = self.check_match(w, move)
        player = move.player
        target: MatchPart = move.target  # type: ignore[assignment]
        hand = w.hands[player]
        for used, _, _ in readings:
            i = hand.index(used)
            hand = hand[:i] + hand[i + 1 :]
        w.hands[player] = hand
        row = w.ext.row
        double = len(readings) == 2
        if double:
            matched: tuple[int, ...] = (readings[0][0], readings[1][0])
            bonus = readings[0][2] is color and readings[1][2] is color
        else:
            matched = (readings[0][0],)
            bonus = readings[0][2] is color
        entry = _new(RowCard, (target[0], matched, target[1], target[2]))
        w.ext = _new(DosExt, (row[:index] + (entry,) + row[index + 1 :], w.ext.bonus + bonus))
        views = self.part_views((target, *move.cards))  # type: ignore[misc]
        events.append(
            {
                "type": "matched",
                "player": player,
                "match": "double" if double else "single",
                "target": views[0],
                "cards": views[1:],
                "number": number,
                "color_bonus": bonus,
            }
        )
        if bonus and double:
            n = w.num_players
            for k in range(1, n):
                self.draw_cards(w, seat_after(player, n, k), 1, events, "double_color_match")
        drew = w.pending is not None and w.pending.type is DRAWN
        if not w.hands[player]:
            self.finish_round(w, player, events)
        elif drew:
            self.end_of_turn(w, player, events)
        else:
            w.pending = self._pendings[MATCHING][player]

    def part_views(self, parts: tuple[MatchPart, ...]) -> list[dict[str, Any]]:
        """How the events show match parts: the card (id and code) and what it was
        declared to be (one call for a match's target and cards)."""
        codes = self._codes
        views = []
        for card, color, number in parts:
            view: dict[str, Any] = {"card": {"id": card, "code": codes[card]}}
            if color is not None:
                view["color"] = COLOR_NAMES[color]
            if number is not None:
                view["number"] = number
            views.append(view)
        return views

    # ------------------------------------------------------------------ end of turn
    @handles(END_TURN)
    def on_end_turn(self, w: Work, move: Move, events: list[Event]) -> None:
        self.end_of_turn(w, move.player, events)

    def end_of_turn(self, w: Work, player: int, events: list[Event]) -> None:
        """1. matched cards to the discard pile; 2. refill the row to two; 3. one
        placement per colour bonus (as many as the hand allows), else the next turn."""
        gone: list[int] = []
        kept: list[RowCard] = []
        for e in w.ext.row:
            if e.matched:
                gone.append(e.card)
                gone.extend(e.matched)
            else:  # an unmatched card carries no declaration (``check_state``)
                kept.append(e)
        w.discard = w.discard + tuple(gone)
        codes = self._codes
        discarded = []
        for c in gone:
            discarded.append({"id": c, "code": codes[c]})
        events.append({"type": "turn_ended", "player": player, "discarded": discarded})
        added = []
        while len(kept) < 2:
            card = self.take_top(w, events)
            if card is None:
                break
            kept.append(_new(RowCard, (card, (), None, None)))
            added.append({"id": card, "code": codes[card]})
        if added:
            events.append({"type": "center_row_refilled", "cards": added})
        due = min(w.ext.bonus, len(w.hands[player]))
        w.ext = _new(DosExt, (tuple(kept), due))
        if due:
            w.pending = self._pendings[BONUS_PLACE][player]
        else:
            self.next_turn(w, player)

    def next_turn(self, w: Work, player: int) -> None:
        w.pending = None
        w.current = NEXT_SEAT[1][w.num_players][player]  # DOS plays clockwise only

    # ------------------------------------------------------------------ draw, place
    @handles(DRAW)
    def on_draw(self, w: Work, move: Move, events: list[Event]) -> None:
        player = move.player
        drawn = self.draw_cards(w, player, 1, events, "draw")
        if drawn:
            w.pending = self._drawn_pendings[player][drawn[0]]
        else:
            events.append(event("turn_ended", player=player, discarded=[]))
            self.next_turn(w, player)

    @handles(PLACE)
    def on_place(self, w: Work, move: Move, events: list[Event]) -> None:
        pend = w.pending
        if pend is None:
            raise RulesError(
                "a card is placed into the center row only after a draw without a match, "
                "or for a colour bonus at the end of the turn",
                code="nothing_to_place",
            )
        card = self.require_card_in_hand(w, move)
        player = move.player
        hand = w.hands[player]
        i = hand.index(card)
        w.hands[player] = hand[:i] + hand[i + 1 :]
        ext = w.ext
        bonus = pend.type is BONUS_PLACE
        left = ext.bonus - 1 if bonus else 0
        w.ext = _new(DosExt, (ext.row + (_new(RowCard, (card, (), None, None)),), left))
        events.append(
            {
                "type": "placed",
                "player": player,
                "card": {"id": card, "code": self._codes[card]},
                "reason": "bonus" if bonus else "draw",
            }
        )
        if not w.hands[player]:
            self.finish_round(w, player, events)
        elif left > 0:
            w.pending = self._pendings[BONUS_PLACE][player]
        else:
            self.next_turn(w, player)

    # ------------------------------------------------------------------ views
    def view_extra(self, state: State, player: int | None, view: dict[str, Any]) -> None:
        ref = self.public_ref
        view["center_row"] = [
            {
                "card": ref(state, e.card),
                "color": e.color.value if e.color is not None else None,
                "number": e.number,
                "matched": [ref(state, c) for c in e.matched],
            }
            for e in state.ext.row
        ]
        view["bonus_pending"] = state.ext.bonus

    # ------------------------------------------------------------------ state checks
    def row_cards(self, state: State) -> tuple[int, ...]:
        out: list[int] = []
        for e in state.ext.row:
            out.append(e.card)
            out.extend(e.matched)
        return tuple(out)

    def piles(self, state: State) -> Iterable[tuple[str, tuple[int, ...]]]:
        yield from super().piles(state)
        yield "ext.center_row", self.row_cards(state)

    def public_piles(self, state: State) -> Iterable[tuple[int, ...]]:
        yield state.discard
        yield self.row_cards(state)

    def check_state(self, state: State) -> None:
        cat = self.catalog
        ext = state.ext
        if not isinstance(ext, DosExt):
            raise InvalidState("state.ext must hold the center row", field="ext")
        for i, e in enumerate(ext.row):
            where = f"ext.center_row[{i}]"
            if len(e.matched) > 2:
                raise InvalidState(
                    f"{where}: at most two cards are matched onto a card", field=where
                )
            if not e.matched:
                if e.color is not None or e.number is not None:
                    raise InvalidState(
                        f"{where}: only a matched card carries a declaration", field=where
                    )
                continue
            try:
                number, _ = self.reading(MatchPart(e.card, e.color, e.number), "center-row card")
            except RulesError as exc:
                raise InvalidState(f"{where}: {exc.detail}", field=where) from None
            wilds = sum(cat.kind[0][c] is Kind.WILD_NUMBER for c in e.matched)
            fixed = sum(
                min(self._options[c]) for c in e.matched if cat.kind[0][c] is not Kind.WILD_NUMBER
            )
            if not fixed + wilds <= number <= fixed + 10 * wilds:
                raise InvalidState(
                    f"{where}: the matched cards cannot make the card's number {number}",
                    field=where,
                )
        if state.direction != 1 or state.side != 0 or state.active_color is not None:
            raise InvalidState(
                "DOS has no direction, side or active colour to change", field="direction"
            )
        if state.phase is not PLAY:
            return
        empty = [s for s, h in enumerate(state.hands) if not h]
        if empty:
            raise InvalidState(
                f"seat {empty[0]} has no cards but the round is still on", field="hands"
            )
        pend = state.pending
        ptype = pend.type if pend is not None else None
        matched = sum(1 for e in ext.row if e.matched)
        if pend is not None and pend.player != state.current:
            raise InvalidState("only the player whose turn it is decides", field="pending")
        if pend is not None and (pend.data or (pend.card is None) != (ptype is not P.DRAWN)):
            raise InvalidState(
                f"a {ptype} decision carries the drawn card only when it is 'drawn'",
                field="pending",
            )
        if ptype is P.MATCHING:
            if not matched or ext.bonus > matched:
                raise InvalidState(
                    "while matching, at least one row card is matched and each match earns "
                    "at most one bonus",
                    field="ext",
                )
            return
        if matched:
            raise InvalidState(
                "matched center-row cards exist only while the player is matching",
                field="ext.center_row",
            )
        if ptype is P.BONUS_PLACE:
            if not 1 <= ext.bonus <= len(state.hands[state.current]):
                raise InvalidState(
                    "bonus placements due must be between 1 and the hand size", field="ext.bonus"
                )
        elif ext.bonus:
            raise InvalidState(
                "bonuses are only due while matching or placing them", field="ext.bonus"
            )
        if pend is not None and ptype is P.DRAWN and pend.card not in state.hands[pend.player]:
            raise InvalidState(
                "the drawn card awaiting a decision is not in the player's hand",
                field="pending.card",
            )
