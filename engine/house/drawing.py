"""House rules ``draw_to_match``, ``forced_play`` and ``uno_penalty``: how drawing and
the UNO penalty change (``docs/rules/uno_classic.md``, "House rules").

- ``draw_to_match``: a draw by choice goes on, one card at a time (a ``drew`` event
  each), until a card that can be played (the ``play_drawn`` decision follows) or until
  nothing is left to draw (the turn ends). A penalty is never drawn to match.
- ``forced_play``: no draw by choice while the hand holds a card that can be played
  (``draw_not_allowed``), and a playable drawn card must be played (no ``pass``:
  ``must_play_drawn_card``). A Wild Draw Four stays playable at any time; a hand whose
  only playable card is a Wild Draw Four holds nothing of the colour in play, so forced
  play never forces a bluff. A penalty may still be drawn.
- ``uno_penalty``: the cards a caught player draws.

The forced moves follow: where drawing is not allowed the turn's default plays, and
where keeping is not allowed the drawn card's default plays it.
"""

from __future__ import annotations

from ..errors import RulesError
from ..moves import Move
from ..state import State, Work
from ..uno import UnoPending
from ..variant import TURN, defaults, first_plain
from .base import HouseBase


class DrawRules(HouseBase):
    """The drawing house rules and the UNO penalty, on classic UNO's hooks."""

    def draws_to_match(self, s: State | Work) -> bool:
        return self.houses[s.options].draws_to_match

    def playable(self, s: State | Work, player: int) -> list[int]:
        """The cards of ``player``'s hand that can be played on the card in play."""
        playable = self.matching(s.side, s.active_color, s.discard[-1])
        return [c for c in s.hands[player] if c in playable]

    def may_draw(self, s: State | Work, player: int) -> bool:
        """Forced play: only a hand with no playable card may draw."""
        return not self.houses[s.options].forced_draw or not self.playable(s, player)

    def draw_refused(self, s: State | Work, player: int) -> RulesError:
        return RulesError(
            "forced play: a player who can play must play (drawing by choice is not "
            "allowed while the hand holds a playable card)",
            code="draw_not_allowed",
        )

    def may_keep_drawn(self, s: State | Work, player: int) -> bool:
        """Forced play: a playable drawn card is played at once."""
        return self.houses[s.options].keeps_drawn

    def catch_penalty(self, s: State | Work) -> int:
        return self.houses[s.options].catch_penalty

    # ------------------------------------------------------------------ forced defaults
    @defaults(TURN)
    def default_turn(self, state: State, player: int) -> Move:
        """Draw a card (`draw`); if the drawn card can be played, the `play_drawn`
        default follows. Under forced play with a playable card in hand (no draw
        allowed): play the first playable card in hand order, a Wild Draw Four only when
        nothing else plays, naming red for a wild and the next player in the direction
        of play for a 7 (seven-zero), without saying UNO."""
        if self.may_draw(state, player):
            return super().default_turn(state, player)
        cards = self.playable(state, player)
        wd4 = self.challenge_cards
        plain = [c for c in cards if self.kind(state, c) not in wd4]
        return first_plain(self.play_moves(state, player, (plain or cards)[0]))

    @defaults(UnoPending.PLAY_DRAWN)
    def default_play_drawn(self, state: State, player: int) -> Move:
        """Keep the drawn card (`pass`). Under forced play (no keeping): play it, naming
        red for a wild and the next player in the direction of play for a 7
        (seven-zero), without saying UNO."""
        if self.may_keep_drawn(state, player):
            return super().default_play_drawn(state, player)
        return first_plain(self.legal_play_drawn(state, player))
