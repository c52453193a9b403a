"""Classic UNO's house rules (``docs/rules/uno_classic.md``, "House rules"): options of
``uno_classic`` (``HOUSE_OPTIONS``), each built on the rule hooks of ``engine.uno`` so
that what the legal moves list and what ``apply`` accepts come from one rule:

- ``stacking`` (``engine.house.stacking``): the ``penalty`` decision;
- ``seven_zero`` (``engine.house.seven_zero``): the 7's swap, the 0's pass;
- ``jump_in`` (``engine.house.jump_in``): plays out of turn;
- ``draw_to_match``, ``forced_play``, ``uno_penalty`` (``engine.house.drawing``).

A state's house rules are composed once per combination of options into one object
(``HouseTurn``, ``HouseBase.houses``) that the hooks ask; where two rules meet, the
answer is decided in ``compose`` (``engine.house.base``), and the hooks that two rules
share (which card may be played when it is not an ordinary turn, and each card's
action) in ``HouseRules`` below. No other hook is overridden by two of the mixins, so
their order decides nothing (tests/engine/rules/test_house_rules_meet.py).

Every option is off by default, and off it changes nothing: not a state, an event, a
view or a legal move (tests/engine/rules/test_house_rules_unchanged.py).
"""

from __future__ import annotations

from typing import Any, ClassVar

from ..cards import Kind
from ..errors import RulesError
from ..state import State, Work
from ..uno import Effect, TurnHooks, UnoRules
from .base import PLAIN, HouseBase, HouseTurn, compose
from .drawing import DrawRules
from .jump_in import JumpIn
from .options import HOUSE_OPTIONS, NO_HOUSE, House, house_of, in_play
from .seven_zero import SevenZero
from .stacking import PENALTY, HousePending, Stacking, penalty_of

__all__ = [
    "HOUSE_OPTIONS", "NO_HOUSE", "PENALTY", "PLAIN", "House", "HouseBase", "HousePending",
    "HouseRules", "HouseTurn", "compose", "house_of", "in_play",
]  # fmt: skip


class HouseRules(Stacking, SevenZero, JumpIn, DrawRules):
    """Classic UNO's rules with its house rules: each rule's own decisions, effects and
    checks in its mixin; here the hooks two of them share."""

    event_types: ClassVar[frozenset[str]] = (
        Stacking.event_types | SevenZero.event_types | JumpIn.event_types | DrawRules.event_types
    )
    #: Stacking's draw cards and seven-zero's 7 and 0: each acts as classic UNO's while
    #: its rule is off.
    effects: ClassVar[dict[Kind, Effect]] = {
        **UnoRules.effects,
        Kind.DRAW_TWO: Stacking.effect_draw_stacking,
        Kind.WILD_DRAW_FOUR: Stacking.effect_wild_draw_stacking,
    }
    number_effects: ClassVar[dict[int, Effect]] = {
        7: SevenZero.effect_seven,
        0: SevenZero.effect_zero,
    }

    def turn_hooks_for(self, options: tuple[tuple[str, Any], ...]) -> TurnHooks:
        """The play hooks the listing asks, by the house rules a game of ``options``
        plays: seven-zero's targets and UNO flag (a 7 names a seat, a swap or a pass
        changes whose hand is left), forced play's draw; with those off each hook answers
        as classic UNO's."""
        return self.houses[options].hooks

    def may_play(self, s: State | Work, player: int, card: int) -> bool:
        """Facing a penalty (stacking): a card that ``stacks_on`` the one on top
        (``stackers``). Out of turn with nothing pending: a jump-in (so never while a
        penalty is answered). Else classic UNO's: the card just drawn."""
        if penalty_of(s):
            return card in self.stackers(s)
        if s.pending is None and player != s.current:
            return self.jumps_in(s, player, card)
        return UnoRules.may_play(self, s, player, card)

    def play_refused(self, s: State | Work, player: int, card: int) -> RulesError:
        """The error for a play ``may_play`` refuses, asked in the same order."""
        if penalty_of(s):
            return self.penalty_refused(s)
        if s.pending is None and player != s.current:
            return self.jump_in_refused(s)
        return UnoRules.play_refused(self, s, player, card)

    def view_extra(self, state: State, player: int | None, view: dict[str, Any]) -> None:
        """``house_rules``: the house rules in play (only those that are on; absent when
        none is)."""
        super().view_extra(state, player, view)
        on = in_play(self.houses[state.options].rules)
        if on:
            view["house_rules"] = on
