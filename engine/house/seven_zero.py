"""House rule ``seven_zero``: a 7 swaps hands, a 0 passes them
(``docs/rules/uno_classic.md``, "House rules").

- A play of a 7 names another seat (``target``; ``play_targets`` lists them from the
  next player in the direction of play on); after the play the two swap hands (event
  ``swapped``: who, with whom, the two new sizes).
- After a 0 every hand passes to the next player in the direction of play (event
  ``hands_passed``: who played it, the direction, every new size).
- A 7 or 0 that goes out ends the round (no swap, no pass); one turned up at the deal is
  a plain number.
- Each seat's view shows only its own new hand. A seat left with one card by the
  exchange owes UNO (``Variant.update_exposed``): the mover may say it with the play (``uno``
  fits when the hand received is one card), anyone else with a later ``uno``.
"""

from __future__ import annotations

from typing import ClassVar

from ..cards import Kind
from ..events import Event, event
from ..moves import Move
from ..state import State, Work, seat_after
from ..uno import NO_TARGET, UnoRules
from .base import HouseBase


class SevenZero(HouseBase):
    """The seven-zero house rule, on classic UNO's hooks."""

    event_types: ClassVar[frozenset[str]] = UnoRules.event_types | {"swapped", "hands_passed"}

    def __init__(self) -> None:
        super().__init__()
        self._sevens = self._numbered(7)
        self._exchangers = self._sevens | self._numbered(0)  # the 7s and the 0s

    def _numbered(self, value: int) -> frozenset[int]:
        cat = self.catalog
        return frozenset(
            c for c in cat.ids if cat.kind[0][c] is Kind.NUMBER and cat.value[0][c] == value
        )

    # ------------------------------------------------------------------ the play
    def play_targets(
        self, players: int, direction: int, player: int, card: int
    ) -> tuple[int | None, ...]:
        """A 7 names another seat: every other seat, from the next player in the
        direction of play on (the first is a forced move's choice). Asked where the rule
        is on (``compose``: ``turn_hooks(s).targets``)."""
        if card in self._sevens:
            return tuple(seat_after(player, players, k, direction) for k in range(1, players))
        return NO_TARGET

    def receiver(self, s: State | Work, player: int, move: Move) -> int | None:
        """The seat whose hand ``player`` gets by ``move`` (a 7 or a 0 that does not go
        out, the rule on): the 7's target, or for a 0 the seat before them in the
        direction of play; else None."""
        card = move[2]
        if card not in self._exchangers or len(s.hands[player]) < 2:
            return None
        if not self.houses[s.options].exchanges:
            return None
        if card in self._sevens:
            target = move[4]
            n = s.num_players
            ok = type(target) is int and 0 <= target < n and target != player
            return target if ok else None  # type: ignore[return-value]
        return seat_after(player, s.num_players, 1, -s.direction)

    def uno_flag_allowed(self, s: State | Work, move: Move) -> bool:
        """``uno: true`` fits a play that leaves the mover one card: after a swap or a
        pass, the hand they receive."""
        got = self.receiver(s, move[1], move) if move[2] in self._exchangers else None
        if got is None:
            return UnoRules.uno_flag_allowed(self, s, move)
        return self.uno_rule and len(s.hands[got]) == 1

    # ------------------------------------------------------------------ the effects
    def effect_seven(
        self, w: Work, player: int, card: int, move: Move | None, events: list[Event]
    ) -> None:
        """A 7: with the rule on, swap hands with the seat the play names."""
        if self.houses[w.options].exchanges and move is not None and type(move.target) is int:
            self.swap(w, player, move.target, events)
        w.current = w.next_seat(player)

    def effect_zero(
        self, w: Work, player: int, card: int, move: Move | None, events: list[Event]
    ) -> None:
        """A 0: with the rule on, every hand passes to the next player."""
        if self.houses[w.options].exchanges:
            self.pass_hands(w, player, events)
        w.current = w.next_seat(player)

    def pass_hands(self, w: Work, player: int, events: list[Event]) -> None:
        """Every hand to the next player in the direction of play, at once."""
        hands = w.hands
        before = tuple(hands)
        for seat, hand in enumerate(before):
            hands[w.next_seat(seat)] = hand
        events.append(
            event(
                "hands_passed",
                player=player,
                direction="clockwise" if w.direction == 1 else "counterclockwise",
                hand_sizes=[len(h) for h in hands],
            )
        )
