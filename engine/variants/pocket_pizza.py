"""UNO Pocket Pizza Pizza (``uno_pocket_pizza``): 5-card hands, Draw One, Wild Dip and a
challengeable Wild Draw Two (rules: ``docs/rules/uno_pocket_pizza.md``).

Decisions beyond classic UNO's: ``give`` (after a Wild Dip: the player, who has just
drawn a card shown only to them, answers with ``give`` naming a card of their hand; it
goes to the next player, and only giver and receiver see which card).

Choices where the rule book is silent (documented for integrators):

- UNO after a Wild Dip is due at the ``give`` (the move that leaves one card): a Wild
  Dip play never takes ``uno: true`` (the draw gives the card back), a ``give`` from a
  two-card hand may.
- A player who goes out with Wild Dip cannot be caught for UNO during the give that
  follows (they went out; the rule book has them end with no cards).
- A Wild Draw Two played as the last card makes the next player draw 2, without a
  challenge (the round is over).
- With two players a turned-up Reverse skips the player left of the dealer; the
  direction of play stays clockwise.
"""

from __future__ import annotations

from typing import Any, ClassVar

from ..cards import Kind
from ..errors import InvalidState, RulesError
from ..events import Event, event, secret_event
from ..moves import Move, MoveType
from ..state import PendingType, State, Work, pending
from ..uno import UnoRules
from ..variant import defaults, handles, lists

T = MoveType


class PizzaPending(PendingType):
    """UNO Pocket Pizza Pizza's decision beyond classic UNO's."""

    GIVE = "give"


P = PizzaPending
# Enum members as module constants: on Python 3.11 every ``P.X`` is a descriptor call.
GIVE, GIVE_T = P.GIVE, T.GIVE


class PocketPizza(UnoRules):
    id = "uno_pocket_pizza"
    title = "UNO Pocket Pizza Pizza"
    catalog_name = "uno_pocket_pizza"
    min_players = 2
    max_players = 5
    target = 250
    hand_size = 5
    notes = (
        "The rule sheet says the deck has 52 cards but lists only 51 (per colour 1-9, "
        "Draw One, Skip, Reverse; one each of Wild, Wild Dip, Wild Draw Two); the engine "
        "uses the 51 listed cards.",
        "Scoring: numbers at face value, Skip / Draw One / Reverse 20, each wild 50.",
    )
    move_types: ClassVar[frozenset[MoveType]] = UnoRules.move_types | {T.GIVE}
    pending_moves: ClassVar[dict[PendingType, tuple[frozenset[MoveType], str]]] = {
        **UnoRules.pending_moves,
        P.GIVE: (frozenset({T.GIVE}), "must_give_card"),
    }
    event_types: ClassVar[frozenset[str]] = UnoRules.event_types | {"gave"}
    bot_rank: ClassVar[dict[MoveType, int]] = {**UnoRules.bot_rank, T.GIVE: 0}
    redeal_kinds: ClassVar[frozenset[Kind]] = frozenset({Kind.WILD_DRAW_TWO, Kind.WILD_DIP})
    draw_amounts: ClassVar[dict[Kind, int]] = {Kind.DRAW_ONE: 1}
    challenge_cards: ClassVar[dict[Kind, tuple[int, int, int]]] = {Kind.WILD_DRAW_TWO: (2, 2, 4)}

    # ------------------------------------------------------------------ turned-up card
    def first_card_effect(self, w: Work, card: int, events: list[Event]) -> None:
        if w.num_players == 2 and self.kind(w, card) is Kind.REVERSE:
            first = w.next_seat(w.dealer)
            events.append(event("skipped", player=first))
            w.current = w.dealer
            return
        super().first_card_effect(w, card, events)

    # ------------------------------------------------------------------ Wild Dip
    def effect_wild_dip(
        self, w: Work, player: int, card: int, move: Move | None, events: list[Event]
    ) -> None:
        self.dip(w, player, events)

    effects = {
        Kind.SKIP: UnoRules.effect_skip,
        Kind.REVERSE: UnoRules.effect_reverse,
        Kind.DRAW_ONE: UnoRules.effect_draw,
        Kind.WILD_DRAW_TWO: UnoRules.effect_challengeable_draw,
        Kind.WILD_DIP: effect_wild_dip,
    }

    def go_out(self, w: Work, player: int, card: int, events: list[Event]) -> None:
        """A last Wild Dip still draws and gives; the round ends after the give.

        The player has gone out: whoever did not say UNO with their second-to-last
        card can no longer be caught (they "end with no cards", rule book)."""
        if self.kind(w, card) is Kind.WILD_DIP:
            w.exposed = tuple(s for s in w.exposed if s != player)
            self.dip(w, player, events)
        else:
            super().go_out(w, player, card, events)

    def dip(self, w: Work, player: int, events: list[Event]) -> None:
        """Draw the top card (only the player sees it), then wait for the give."""
        drawn = self.draw_cards(w, player, 1, events, "wild_dip")
        if not w.hands[player]:  # nothing to draw and nothing to give
            self.finish_round(w, player, events)
            return
        w.current = player
        w.pending = pending(GIVE, player, drawn[0] if drawn else None)

    @lists(P.GIVE)
    def legal_give(self, state: State, player: int) -> list[Move]:
        hand = state.hands[player]
        uno = (False, True) if len(hand) == 2 else (False,)
        return [Move(GIVE_T, player, c, uno=u) for c in hand for u in uno]

    @defaults(P.GIVE)
    def default_give(self, state: State, player: int) -> Move:
        """Give the first card of the hand, in hand order (`give`), without saying UNO."""
        return Move(T.GIVE, player, state.hands[player][0])

    @handles(T.GIVE)
    def on_give(self, w: Work, move: Move, events: list[Event]) -> None:
        giver = move.player
        card = self.require_card_in_hand(w, move)
        hand = w.hands[giver]
        if move.uno and len(hand) != 2:
            raise RulesError(
                "say UNO with the give that leaves you one card", code="uno_not_applicable"
            )
        receiver = w.next_seat(giver)
        i = hand.index(card)
        w.hands[giver] = hand[:i] + hand[i + 1 :]
        w.hands[receiver] = w.hands[receiver] + (card,)
        w.pending = None
        events.append(
            secret_event(
                "gave",
                to=(giver, receiver),
                secret={"card": self.private_ref(w, card)},
                player=giver,
                target=receiver,
            )
        )
        if not w.hands[giver]:
            self.finish_round(w, giver, events)
        else:
            w.current = receiver

    # ------------------------------------------------------------------ UNO flag
    def may_say_uno(self, side: int, card: int) -> bool:
        """Never with a Wild Dip (UNO is said at the give); any other card as classic
        UNO's ``uno_flag_allowed`` says."""
        return self.catalog.kind[side][card] is not Kind.WILD_DIP

    # ------------------------------------------------------------------ checks
    def check_state(self, state: State) -> None:
        super().check_state(state)
        pend = state.pending
        if pend is not None and pend.type is P.GIVE:
            hand = state.hands[pend.player]
            if not hand or (pend.card is not None and pend.card not in hand):
                raise InvalidState(
                    "a give waits for a player holding the card they drew", field="pending"
                )

    def pending_view(self, state: State, pend: Any, player: int | None) -> dict[str, Any]:
        out = super().pending_view(state, pend, player)
        if pend.type is P.GIVE:
            out["to"] = state.next_seat(pend.player)
        return out
