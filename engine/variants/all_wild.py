"""UNO All Wild (``uno_all_wild``): 112 wild cards, no colours, no numbers
(rules: ``docs/rules/uno_all_wild.md``).

Every card plays on every card. A plain Wild does nothing; the seven wild action cards
are Wild Reverse, Wild Skip, Wild Draw Two, Wild Draw Four, Wild Targeted Draw Two
(``WT2``: the chosen opponent draws 2 and keeps their turn), Wild Skip Two (``WS2``) and
Wild Forced Swap (``WX``: swap hands with the chosen opponent). Nothing is challengeable.
The per-kind counts are data, in the catalog (``engine/catalogs/uno_all_wild.json``).

Moves and decisions:

- ``play``: ``card``, and ``target`` (an opponent's seat) for ``WT2`` and ``WX`` only;
  ``uno: true`` when the play leaves the mover with one card. There are no colours:
  a play takes no ``color`` (``color_not_allowed``) and ``active_color`` stays null.
- ``draw``: only under the one exception of the rule book: the player holds no action
  card (plain Wilds only) and the next player holds a single card. The drawn card must
  be played at once: the ``play_drawn`` decision, answered only by playing that card
  (``must_play_drawn_card``); its action takes effect, with a ``target`` if it needs one.
- ``choose_target``: a turned-up ``WT2`` or ``WX`` acts as if the dealer had played it,
  so the dealer names the opponent (pending ``choose_target``).
- ``uno`` / ``catch`` as in every variant (README "Saying UNO").

Choices where the rule book is silent (documented for integrators):

- A turned-up Wild Reverse: the dealer plays first and play goes to the right. With two
  players it acts as a Skip, as a played one does: the other player is skipped, the
  dealer plays first and the direction stays clockwise.
- A turned-up Wild Skip Two skips the two players left of the dealer; with two or three
  players that is everybody else, so the dealer plays first.
- Wild Skip Two skips the next two seats other than the player: with two players the
  opponent once (the player plays again), with three both opponents (again the player
  plays again), with more the seat three places on plays next.
- After a turned-up ``WT2`` / ``WX`` and the dealer's choice, the player left of the
  dealer plays first (the ``WT2`` target keeps their turn).
- Going out with a ``WX``: the player who plays their last card wins the round, so no
  swap happens; the play still names a target, like every ``WX`` play. Going out with a
  draw card (``WD2``, ``WD4``, ``WT2``) makes its victim draw before the round is scored.
- UNO after a swap: the duty falls on every player the swap leaves with one card (rule
  book: "A player left with one card by the swap must say UNO"). The mover says it with
  ``uno: true`` on the swap (allowed exactly when the swap leaves them one card); the
  other party with a later ``uno`` move. That holds for a target who already held a
  single card too: the swap gives them a new one-card hand, and a new duty.
- The draw exception when nothing can be drawn (every other card in hands): the draw
  yields nothing and ends the turn (README "Draw pile empty").
- Cut for dealer: no card has a number, so every cut ties; the base cut draws until the
  deck is exhausted, then the generator picks among all seats (uniformly).
- ``uno: true`` on a move other than a play is rejected (``uno_not_applicable``).
- A ``pass`` while the drawn card waits is answered with ``must_play_drawn_card``
  (there is no ``pass`` move in this game); otherwise it is an ``unknown_move``.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any, ClassVar

from .. import rng as prng
from ..cards import Kind
from ..errors import InvalidState, RulesError
from ..events import Event, event
from ..moves import Move, MoveType
from ..registry import register
from ..state import Pending, PendingType, Phase, State, Work, pending
from ..uno import UnoPending, UnoRules
from ..variant import TURN, Variant, defaults, first_plain, handles, lists

T = MoveType
# Enum members as module constants: on Python 3.11 every ``T.X`` / ``Phase.X`` is a
# descriptor call (about a thousand instructions) in the hot paths below.
PLAY_T, PASS_T, CHOOSE_TARGET_T = T.PLAY, T.PASS, T.CHOOSE_TARGET
PLAY = Phase.PLAY
_new = tuple.__new__


class AllWildPending(PendingType):
    """UNO All Wild's decision beyond classic UNO's (it reuses ``play_drawn``)."""

    CHOOSE_TARGET = "choose_target"


P = AllWildPending
PLAY_DRAWN = UnoPending.PLAY_DRAWN
CHOOSE_TARGET = P.CHOOSE_TARGET

WILD = Kind.WILD
WILD_REVERSE = Kind.WILD_REVERSE
WT2 = Kind.WILD_TARGETED_DRAW_TWO
WX = Kind.WILD_FORCED_SWAP
#: Kinds whose play names an opponent (``target``).
TARGETED = frozenset({WT2, WX})
#: Cards the chosen opponent of a Wild Targeted Draw Two draws.
TARGETED_DRAW = 2


def _chosen(move: Move | None) -> int:
    """The opponent a targeted play names (``check_play`` has checked it). A turned-up
    targeted card waits for ``choose_target`` instead, so it never comes here."""
    if move is None or not isinstance(move.target, int):
        raise TypeError(f"a targeted card's effect needs the play's target, not {move!r}")
    return move.target


@register
class AllWild(UnoRules):
    id = "uno_all_wild"
    title = "UNO All Wild"
    catalog_name = "uno_all_wild"
    min_players = 2
    max_players = 10
    target = 500
    notes = (
        "112 cards, every one wild and colourless: plain Wild and seven wild action "
        "kinds. The per-kind counts come from a published card list, not from the box "
        "or the rule sheet (which gives none); they are data, in the catalog.",
        "There are no colours: plays take no 'color' and active_color stays null.",
        "Wild Targeted Draw Two and Wild Forced Swap plays name an opponent ('target'); a "
        "turned-up one waits for the dealer's choose_target.",
        "No voluntary draw. Exception: a player holding only plain Wilds, when the next "
        "player holds one card, may draw one card and must play it at once.",
        "Nothing is challengeable. Scoring: plain Wild 20, every wild action card 50.",
        "Going out with a Wild Forced Swap ends the round without a swap; going out with "
        "a draw card makes its victim draw before scoring.",
        "No card has a number, so the cut for dealer always ties and the generator picks.",
    )
    move_types: ClassVar[frozenset[MoveType]] = frozenset(
        {T.PLAY, T.DRAW, T.CHOOSE_TARGET, T.UNO, T.CATCH, T.NEXT_ROUND}
    )
    pending_moves: ClassVar[dict[PendingType, tuple[frozenset[MoveType], str]]] = {
        PLAY_DRAWN: (frozenset({T.PLAY}), "must_play_drawn_card"),
        P.CHOOSE_TARGET: (frozenset({T.CHOOSE_TARGET}), "must_choose_target"),
    }
    event_types: ClassVar[frozenset[str]] = UnoRules.event_types | {"target_chosen", "swapped"}
    bot_rank: ClassVar[dict[MoveType, int]] = {**UnoRules.bot_rank, T.CHOOSE_TARGET: 0}
    #: Every turned-up card stays and acts as if the dealer had played it.
    redeal_kinds: ClassVar[frozenset[Kind]] = frozenset()
    draw_amounts: ClassVar[dict[Kind, int]] = {Kind.WILD_DRAW_TWO: 2, Kind.WILD_DRAW_FOUR: 4}
    challenge_cards: ClassVar[dict[Kind, tuple[int, int, int]]] = {}

    # ------------------------------------------------------------------ static tables
    @cached_property
    def _kinds(self) -> tuple[Kind, ...]:
        return self.catalog.kind[0]

    def matches(self, side: int, card: int, active: Any, top: int) -> bool:
        """Every card plays on every card."""
        return True

    # ------------------------------------------------------------------ apply
    @cached_property
    def _lean_kinds(self) -> tuple[int, ...]:
        """Card id -> what the lean ``apply`` does with its play: 0 nothing (a plain
        Wild), 1 skip (Wild Skip, and Wild Reverse with two players is decided at the
        play), 2 reverse, 3 skip two, 4 draw two, 5 draw four; -1 a targeted card (the
        general path)."""
        code = {
            WILD: 0, Kind.WILD_SKIP: 1, WILD_REVERSE: 2, Kind.WILD_SKIP_TWO: 3,
            Kind.WILD_DRAW_TWO: 4, Kind.WILD_DRAW_FOUR: 5,
        }  # fmt: skip
        return tuple(code.get(k, -1) for k in self._kinds)

    def apply(self, state: State, move: Move) -> tuple[State, list[Event]]:
        """``Variant.apply``, with a lean path for most plays: an untargeted card (plain
        Wild, Wild Skip, Wild Reverse, Wild Skip Two, Wild Draw Two or Four with the
        cards in the draw pile) from a hand of three or more, on the player's turn with
        nothing pending, nobody exposed and no ``uno``. Such a play leaves no new hand of
        one card, so nobody becomes exposed. It builds the new ``State`` directly (no
        ``Work``) with the same state and events as the general path
        (tests/test_engine_paths.py checks it on random games and near-miss moves);
        any other move, and any doubt, goes through ``Variant.apply``."""
        (
            variant, n, options, seed, rng, phase, round_, dealer, direction, current,
            side, hands, draw_pile, discard, active, pend, exposed, scores,
            round_scores, round_winner, winners, move_count, ext,
        ) = state  # fmt: skip
        mtype, player, card, color, target, chain, uno, cards = move
        if (
            mtype is PLAY_T
            and phase is PLAY
            and pend is None
            and not exposed
            and player == current
            and color is None
            and target is None
            and chain is None
            and cards is None
            and not uno
            and 0 <= player < n
        ):
            hand = hands[player]
            if len(hand) > 2 and card in hand:
                what = self._lean_kinds[card]  # type: ignore[index]
                amount = 2 if what == 4 else 4
                if what >= 0 and (what < 4 or len(draw_pile) >= amount):
                    i = hand.index(card)
                    new_hands = list(hands)
                    new_hands[player] = hand[:i] + hand[i + 1 :]
                    events: list[Event] = [
                        {
                            "type": "played",
                            "player": player,
                            "card": {"id": card, "code": self._codes[card]},  # type: ignore[index]
                            "color": None,
                        }
                    ]
                    if what == 0:
                        current = (player + direction) % n
                    elif what == 1 or (what == 2 and n == 2):
                        skipped = (player + direction) % n
                        events.append({"type": "skipped", "player": skipped})
                        current = (skipped + direction) % n
                    elif what == 2:
                        direction = -direction
                        events.append(
                            {
                                "type": "reversed",
                                "direction": "clockwise" if direction == 1 else "counterclockwise",
                            }
                        )
                        current = (player + direction) % n
                    elif what == 3:
                        steps = 1
                        for k in (1, 2):
                            seat = (player + direction * k) % n
                            if seat != player:
                                events.append({"type": "skipped", "player": seat})
                                steps += 1
                        current = (player + direction * steps) % n
                    else:
                        victim = (player + direction) % n
                        taken = draw_pile[:amount]
                        draw_pile = draw_pile[amount:]
                        new_hands[victim] += taken
                        codes = self._codes
                        events.append(
                            {
                                "type": "drew",
                                "player": victim,
                                "count": amount,
                                "reason": "penalty",
                                "secret": {
                                    "to": [victim],
                                    "data": {"cards": [{"id": c, "code": codes[c]} for c in taken]},
                                },
                            }
                        )
                        events.append({"type": "skipped", "player": victim})
                        current = (victim + direction) % n
                    return _new(State, (
                        variant, n, options, seed, rng, phase, round_, dealer, direction,
                        current, side, tuple(new_hands), draw_pile, discard + (card,), None,
                        None, exposed, scores, round_scores, round_winner, winners,
                        move_count + 1, ext,
                    )), events  # fmt: skip
        return Variant.apply(self, state, move)

    # ------------------------------------------------------------------ guards
    def check_move(self, state: State, move: Move) -> None:
        mtype = move.type
        pend = state.pending
        if (
            mtype is PASS_T
            and pend is not None
            and pend.type is PLAY_DRAWN
            and move.player == pend.player
            and state.phase is PLAY
        ):
            raise RulesError(
                "the card just drawn must be played at once; there is no pass",
                code="must_play_drawn_card",
            )
        super().check_move(state, move)
        if move.uno and mtype is not PLAY_T:
            raise RulesError(
                f"UNO is said with a play (or the 'uno' move), not with {mtype.value!r}",
                code="uno_not_applicable",
            )

    # ------------------------------------------------------------------ cut for dealer
    @cached_property
    def _cut_always_ties(self) -> bool:
        """No card has a value in the cut (no card has a number)."""
        return not any(self.cut_value(c) for c in self.catalog.ids)

    def cut_for_dealer(self, w: Work, events: list[Event]) -> int:
        """The base cut (``Variant.cut_for_dealer``), worked out at once: every card
        cuts zero, so every round of the cut ties and no seat drops out; the seats draw
        in turn until the deck cannot serve them all again, then the generator picks."""
        if not self._cut_always_ties:
            return super().cut_for_dealer(w, events)
        pile = list(self.catalog.ids)
        w.rng = prng.shuffle(w.rng, pile)
        n = w.num_players
        refs = self.catalog.card_refs(pile[: len(pile) // n * n], w.side)
        drawn = [{"player": k % n, "card": ref} for k, ref in enumerate(refs)]
        dealer, w.rng = prng.below(w.rng, n)
        events.append(event("dealer_cut", cards=drawn, winner=dealer))
        return dealer

    # ------------------------------------------------------------------ turned-up card
    def first_card_effect(self, w: Work, card: int, events: list[Event]) -> None:
        """The turned-up card acts as if the dealer had played it (rule book "Deal")."""
        dealer = w.dealer
        kind = self._kinds[card]
        if kind is WILD:
            w.current = w.next_seat(dealer)
        elif kind in TARGETED:
            w.current = dealer
            w.pending = pending(CHOOSE_TARGET, dealer, card, then=w.next_seat(dealer))
        elif kind is WILD_REVERSE:
            if w.num_players == 2:  # acts as a Skip: the dealer plays first
                self.effect_skip(w, dealer, card, None, events)
            else:
                w.direction = -1
                events.append(event("reversed", direction="counterclockwise"))
                w.current = dealer
        else:
            self.card_effect(w, dealer, card, None, events)

    @lists(P.CHOOSE_TARGET)
    def legal_choose_target(self, state: State, player: int) -> list[Move]:
        return [Move(T.CHOOSE_TARGET, player, target=t) for t in self._opponents(state, player)]

    @defaults(P.CHOOSE_TARGET)
    def default_choose_target(self, state: State, player: int) -> Move:
        """Name the first opponent in seat order (the lowest seat number other than the
        player's)."""
        return Move(T.CHOOSE_TARGET, player, target=self._opponents(state, player)[0])

    @handles(T.CHOOSE_TARGET)
    def on_choose_target(self, w: Work, move: Move, events: list[Event]) -> None:
        pend = w.pending
        assert pend is not None
        dealer = move.player
        target = self.check_target(w, dealer, move.target)
        card: int = pend.card  # type: ignore[assignment]
        w.pending = None
        events.append(event("target_chosen", player=dealer, target=target))
        if self._kinds[card] is WX:
            self.swap(w, dealer, target, events)
        else:
            self.draw_cards(w, target, TARGETED_DRAW, events, "penalty")
        w.current = pend.get("then", w.next_seat(dealer))

    # ------------------------------------------------------------------ legal moves
    @cached_property
    def _opponent_table(self) -> tuple[tuple[tuple[int, ...], ...], ...]:
        """[players][seat] -> the other seats, in seat order."""
        return tuple(
            tuple(tuple(t for t in range(n) if t != p) for p in range(n))
            for n in range(self.max_players + 1)
        )

    def _opponents(self, s: State | Work, player: int) -> tuple[int, ...]:
        return self._opponent_table[s.num_players][player]

    def play_moves(self, s: State, player: int, card: int) -> tuple[Move, ...]:
        """The complete plays of one card: one per opponent for a targeted card, with
        and without ``uno`` where the play leaves the mover one card."""
        hand_size = len(s.hands[player])
        if hand_size > 1 and self._kinds[card] is WX:
            return self.swap_moves(s, player, card)
        return self._play_table(s.num_players, player, hand_size)[card]  # type: ignore[return-value]

    def swap_moves(self, s: State, player: int, card: int) -> tuple[Move, ...]:
        """The plays of a Wild Forced Swap from a hand of two or more: the mover ends
        with the target's hand, so UNO fits when that is one card."""
        hands = s.hands
        return tuple(
            Move(PLAY_T, player, card, target=t, uno=u)
            for t in self._opponents(s, player)
            for u in ((False, True) if len(hands[t]) == 1 else (False,))
        )

    def _play_table(
        self, players: int, player: int, hand_size: int
    ) -> tuple[tuple[Move, ...] | None, ...]:
        """Card id -> its plays by ``player`` from a hand of ``hand_size`` (only 1, 2
        and more differ) at a table of ``players``; ``None`` for a Wild Forced Swap
        from a hand of two or more (its plays depend on the other hands: ``swap_moves``).
        Moves are immutable, so every table is built once."""
        size = 3 if hand_size > 2 else hand_size
        key = (players, player, size)
        table = self._play_tables.get(key)
        if table is None:
            table = self._play_tables[key] = self._build_play_table(players, player, size)
        return table

    def _build_play_table(
        self, players: int, player: int, size: int
    ) -> tuple[tuple[Move, ...] | None, ...]:
        unos = (False, True) if size == 2 else (False,)
        opponents = self._opponent_table[players][player]
        out: list[tuple[Move, ...] | None] = []
        for card, kind in enumerate(self._kinds):
            if kind is WX and size > 1:
                out.append(None)
            elif kind in TARGETED:
                out.append(
                    tuple(
                        Move(PLAY_T, player, card, target=t, uno=u) for t in opponents for u in unos
                    )
                )
            else:
                out.append(tuple(Move(PLAY_T, player, card, uno=u) for u in unos))
        return tuple(out)

    @cached_property
    def _play_tables(self) -> dict[tuple[int, int, int], tuple[tuple[Move, ...] | None, ...]]:
        return {}

    def legal_turn(self, state: State, player: int) -> list[Move]:
        """Every card of the hand (all are playable), and the draw where the exception
        allows it (``may_draw``, written out: it runs for every turn)."""
        hands = state.hands
        hand = hands[player]
        n = state.num_players
        size = len(hand)
        key = (n, player, 3 if size > 2 else size)
        table = self._play_tables.get(key)
        if table is None:
            table = self._play_table(n, player, size)
        moves: list[Move] = []
        for card in hand:
            plays = table[card]
            if plays is None:
                plays = self.swap_moves(state, player, card)
            moves += plays
        if len(hands[(player + state.direction) % n]) == 1:
            kinds = self._kinds
            if all(kinds[c] is WILD for c in hand):
                moves.append(self._draw_moves[player])
        return moves

    def legal_play_drawn(self, state: State, player: int) -> list[Move]:
        return list(self.play_moves(state, player, state.pending.card))  # type: ignore[union-attr,arg-type]

    @defaults(TURN)
    def default_turn(self, state: State, player: int) -> Move:
        """Play the first card of the hand, in hand order (there is no drawing by
        choice), naming the first opponent in seat order when the card needs a target;
        without saying UNO."""
        return first_plain(self.play_moves(state, player, state.hands[player][0]))

    @defaults(PLAY_DRAWN)
    def default_play_drawn(self, state: State, player: int) -> Move:
        """Play the drawn card (it must be played), naming the first opponent in seat
        order when it needs a target; without saying UNO."""
        return first_plain(self.legal_play_drawn(state, player))

    # ------------------------------------------------------------------ drawing
    def may_draw(self, s: State | Work, player: int) -> bool:
        """The one exception to "no drawing by choice": the player holds no action card
        and the next player holds a single card."""
        nxt = s.next_seat(player)
        if len(s.hands[nxt]) != 1:
            return False
        kinds = self._kinds
        return all(kinds[c] is WILD for c in s.hands[player])

    def on_draw(self, w: Work, move: Move, events: list[Event]) -> None:
        player = move.player
        if not self.may_draw(w, player):
            nxt = w.next_seat(player)
            if len(w.hands[nxt]) != 1:
                detail = (
                    "drawing by choice is not allowed: play a card (a draw is only allowed "
                    f"when the next player has one card; player {nxt} has {len(w.hands[nxt])})"
                )
            else:
                detail = (
                    "drawing by choice is not allowed while you hold an action card: play a card"
                )
            raise RulesError(detail, code="draw_not_allowed")
        drawn = self.draw_cards(w, player, 1, events, "draw")
        if drawn:
            w.pending = Pending(PLAY_DRAWN, player, drawn[0])
        else:  # README: a player who chose to draw and got nothing has ended their turn
            w.current = w.next_seat(player)

    # ------------------------------------------------------------------ play
    def check_target(self, w: Work, player: int, target: Any) -> int:
        if target is None:
            raise RulesError("name the opponent ('target')", code="target_required")
        if not isinstance(target, int) or not 0 <= target < w.num_players:
            raise RulesError(
                f"target {target} is not a seat (0..{w.num_players - 1})", code="invalid_target"
            )
        if target == player:
            raise RulesError("the target must be an opponent, not yourself", code="invalid_target")
        return target

    def check_play(self, w: Work, move: Move) -> tuple[int, None]:  # type: ignore[override]
        """Validate a play (every card is playable); return the card."""
        card = move.card
        player = move.player
        hand = w.hands[player]
        if card is None or card not in hand:
            self.require_card_in_hand(w, move)  # raises the precise error
        pend = w.pending
        if pend is not None and card != pend.card:
            raise RulesError(
                f"the card just drawn ({pend.card}) must be played now",
                code="must_play_drawn_card",
            )
        if move.color is not None:
            raise RulesError(
                "UNO All Wild has no colours: a play takes no 'color'", code="color_not_allowed"
            )
        if move.chain is not None:
            raise RulesError("this play takes no 'chain'", code="unexpected_field")
        kind = self._kinds[card]  # type: ignore[index]
        if kind in TARGETED:
            self.check_target(w, player, move.target)
        elif move.target is not None:
            raise RulesError(
                f"only a Wild Targeted Draw Two or a Wild Forced Swap takes a 'target', "
                f"not {self.catalog.code[0][card]}",  # type: ignore[index]
                code="unexpected_field",
            )
        if move.uno and not self.uno_flag_allowed(w, move):
            raise RulesError(
                "say UNO with the play that leaves you one card only (after a swap: the "
                "hand you receive)",
                code="uno_not_applicable",
            )
        return card, None  # type: ignore[return-value]

    def uno_flag_allowed(self, w: Work, move: Move) -> bool:
        """``uno: true`` fits a play that leaves the mover one card (after a swap: the
        target's hand was one card)."""
        hand = w.hands[move.player]
        if move.card is not None and self._kinds[move.card] is WX and len(hand) > 1:
            target = move.target
            return (
                isinstance(target, int)
                and 0 <= target < w.num_players
                and (len(w.hands[target]) == 1)
            )
        return len(hand) == 2

    @cached_property
    def _codes(self) -> tuple[str, ...]:
        """Card id -> its code (``public_ref``'s, the one side)."""
        return self.catalog.code[0]

    def on_play(self, w: Work, move: Move, events: list[Event]) -> None:
        """A play: ``put_on_discard`` and ``card_effect`` written out for a game whose
        cards are all wild and colourless (the event names no colour: ``None``)."""
        card, _ = self.check_play(w, move)
        player = move.player
        w.pending = None
        hands = w.hands
        hand = hands[player]
        i = hand.index(card)
        hands[player] = hand = hand[:i] + hand[i + 1 :]
        w.discard = w.discard + (card,)
        w.active_color = None
        ev = {
            "type": "played",
            "player": player,
            "card": {"id": card, "code": self._codes[card]},
            "color": None,
        }
        target = move.target
        if target is not None:
            ev["target"] = target
        events.append(ev)
        if hand:
            effect = self._effect_of[0][card]  # its action (bound), None for a plain Wild
            if effect is None:
                w.current = (player + w.direction) % w.num_players
            else:
                effect(w, player, card, move, events)
        else:
            # The player who plays their last card wins the round; draw cards act first.
            kind = self._kinds[card]
            if kind in self.draw_amounts:
                self.draw_cards(w, w.next_seat(player), self.draw_amounts[kind], events, "penalty")
            elif kind is WT2:
                self.draw_cards(w, move.target, TARGETED_DRAW, events, "penalty")  # type: ignore[arg-type]
            self.finish_round(w, player, events)

    # ------------------------------------------------------------------ card actions
    def effect_skip(
        self, w: Work, player: int, card: int, move: Move | None, events: list[Event]
    ) -> None:
        """The next player loses their turn (``UnoRules.effect_skip``, the seats counted
        in line: most plays here are action cards)."""
        n, direction = w.num_players, w.direction
        skipped = (player + direction) % n
        events.append({"type": "skipped", "player": skipped})
        w.current = (skipped + direction) % n

    def effect_draw(
        self, w: Work, player: int, card: int, move: Move | None, events: list[Event]
    ) -> None:
        """The next player draws (Wild Draw Two, Wild Draw Four) and loses their turn
        (``UnoRules.effect_draw``, the seats counted in line)."""
        n, direction = w.num_players, w.direction
        victim = (player + direction) % n
        self.draw_cards(w, victim, self.draw_amounts[self._kinds[card]], events, "penalty")
        events.append({"type": "skipped", "player": victim})
        w.current = (victim + direction) % n

    def effect_targeted_draw(
        self, w: Work, player: int, card: int, move: Move | None, events: list[Event]
    ) -> None:
        """The chosen opponent draws 2 and does not lose their turn."""
        self.draw_cards(w, _chosen(move), TARGETED_DRAW, events, "penalty")
        w.current = w.next_seat(player)

    def effect_skip_two(
        self, w: Work, player: int, card: int, move: Move | None, events: list[Event]
    ) -> None:
        """The next two players (seats other than the player) lose their turn."""
        skipped = [s for s in (w.next_seat(player), w.next_seat(player, 2)) if s != player]
        for seat in skipped:
            events.append({"type": "skipped", "player": seat})
        # Two players: one seat skipped, the player plays again; three: the same.
        w.current = w.next_seat(player, len(skipped) + 1)

    def effect_swap(
        self, w: Work, player: int, card: int, move: Move | None, events: list[Event]
    ) -> None:
        self.swap(w, player, _chosen(move), events)
        w.current = w.next_seat(player)

    effects = {
        Kind.WILD_REVERSE: UnoRules.effect_reverse,
        Kind.WILD_SKIP: effect_skip,
        Kind.WILD_DRAW_TWO: effect_draw,
        Kind.WILD_DRAW_FOUR: effect_draw,
        Kind.WILD_TARGETED_DRAW_TWO: effect_targeted_draw,
        Kind.WILD_SKIP_TWO: effect_skip_two,
        Kind.WILD_FORCED_SWAP: effect_swap,
    }

    def update_exposed(self, before: State, w: Work, move: Move, events: list[Event]) -> None:
        """The base rule (a hand that fell to one card), plus a swap party who held one
        card before and is left with a new one-card hand by the swap."""
        super().update_exposed(before, w, move, events)
        if w.phase is not PLAY:
            return
        # Only a Wild Forced Swap swaps: played, or turned up and its target chosen.
        mtype = move.type
        if mtype is PLAY_T:
            card = move.card
        elif mtype is CHOOSE_TARGET_T and before.pending is not None:
            card = before.pending.card
        else:
            return
        if card is None or self._kinds[card] is not WX:
            return
        swapped = next((e for e in events if e["type"] == "swapped"), None)
        if swapped is None:
            return
        seat = swapped["target"]
        if len(w.hands[seat]) == 1 and len(before.hands[seat]) == 1 and seat not in w.exposed:
            w.exposed = tuple(sorted((*w.exposed, seat)))

    def swap(self, w: Work, player: int, target: int, events: list[Event]) -> None:
        """Swap two hands (each party now sees the other's former hand in their own)."""
        hands = w.hands
        hands[player], hands[target] = hands[target], hands[player]
        events.append(
            event(
                "swapped",
                player=player,
                target=target,
                hand_sizes=[len(hands[player]), len(hands[target])],
            )
        )

    # ------------------------------------------------------------------ checks
    def check_state(self, state: State) -> None:
        super().check_state(state)
        if state.active_color is not None:
            raise InvalidState("UNO All Wild has no colour in play", field="active_color")
        pend = state.pending
        if pend is None:
            return
        if pend.type is CHOOSE_TARGET:
            then = pend.get("then")
            if (
                pend.card is None
                or not state.discard
                or pend.card != state.discard[-1]
                or self._kinds[pend.card] not in TARGETED
                or len(state.discard) != 1
            ):
                raise InvalidState(
                    "a target choice waits on the turned-up Wild Targeted Draw Two or "
                    "Wild Forced Swap",
                    field="pending",
                )
            if pend.player != state.dealer:
                raise InvalidState("the dealer chooses the target", field="pending.player")
            if (
                not isinstance(then, int)
                or isinstance(then, bool)
                or not 0 <= then < state.num_players
                or dict(pend.data).keys() != {"then"}
            ):
                raise InvalidState(
                    "a target choice names the seat that plays next ('then')",
                    field="pending.data",
                )
        elif pend.type is PLAY_DRAWN:
            if pend.card is None or pend.data:
                raise InvalidState("a drawn card to play names the card only", field="pending")
            if pend.player != state.current:
                raise InvalidState(
                    "the drawn card is played by the player whose turn it is",
                    field="pending.player",
                )
