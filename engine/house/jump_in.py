"""House rule ``jump_in``: a card identical to the card in play may be played out of
turn (``docs/rules/uno_classic.md``, "House rules").

A jump-in is a ``play`` by a seat that is not to move, while the round is in play and
no decision is pending; its card has the code of the card on top (same colour and the
same number or symbol), never a wild. It is listed in that seat's legal moves
(``legal_out_of_turn``) and checked by the same rule (``jumps_in``). Play goes on from
the jumper as if it were their turn (the card's effect counts from them); the seat that
was to move loses its turn (``UnoRules.on_play``'s event ``jumped_in``, before
``played``). As any move that is
not a call or a catch, it closes the window in which a seat that did not say UNO can be
caught. Of two jump-ins on one card the first applied wins: the second no longer
matches the card in play.
"""

from __future__ import annotations

from typing import ClassVar

from ..errors import RulesError
from ..moves import Move, MoveType
from ..state import Phase, State, Work
from ..uno import UnoRules
from .base import HouseBase

T_PLAY = MoveType.PLAY
PLAY = Phase.PLAY


class JumpIn(HouseBase):
    """The jump-in house rule, on classic UNO's hooks."""

    event_types: ClassVar[frozenset[str]] = UnoRules.event_types | {"jumped_in"}

    def jumps_in(self, s: State | Work, player: int, card: int) -> bool:
        """Whether ``player`` may play ``card`` out of turn now: the rule is on, the round
        is in play, nothing is pending, another seat is to move, and ``card`` is
        identical to the card in play (the same code; never a wild)."""
        if s.pending is not None or player == s.current or s.phase is not PLAY:
            return False
        cat, side = self.catalog, s.side
        return (
            not cat.wild[side][card]
            and cat.code[side][card] == cat.code[side][s.discard[-1]]
            and self.houses[s.options].jump_in
        )

    def jump_in_refused(self, s: State | Work) -> RulesError:
        """The error for a play out of turn that does not ``jumps_in``."""
        top = self.catalog.code[s.side][s.discard[-1]]
        return RulesError(
            f"a jump-in plays a card identical to the {top} in play (same colour and "
            "number or symbol, never a wild)",
            code="not_identical",
        )

    def out_of_turn(self, state: State, move: Move) -> bool:
        """A play out of turn goes on to the rules while jump-in is on."""
        return move[0] is T_PLAY and self.houses[state.options].jump_in

    def legal_out_of_turn(self, state: State, player: int) -> list[Move]:
        """The jump-ins: every play of a card that ``jumps_in``."""
        moves: list[Move] = []
        if self.houses[state.options].jump_in:
            for card in state.hands[player]:
                if self.jumps_in(state, player, card):
                    moves += self.play_moves(state, player, card)
        return moves
