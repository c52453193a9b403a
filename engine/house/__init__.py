"""Classic UNO's house rules (``docs/rules/uno_classic.md``, "House rules"): options of
``uno_classic`` (``HOUSE_OPTIONS``), each built on the rule hooks of ``engine.uno`` so
that what the legal moves list and what ``apply`` accepts come from one rule:

- ``stacking`` (``engine.house.stacking``): the ``penalty`` decision;
- ``seven_zero`` (``engine.house.seven_zero``): the 7's swap, the 0's pass;
- ``jump_in`` (``engine.house.jump_in``): plays out of turn;
- ``draw_to_match``, ``forced_play``, ``uno_penalty`` (``engine.house.drawing``).

Every option is off by default, and off it changes nothing: not a state, an event, a
view or a legal move (tests/engine/rules/test_house_rules_unchanged.py).
"""

from __future__ import annotations

from typing import Any, ClassVar

from ..state import State, Work
from ..uno import TurnHooks
from .drawing import DrawRules
from .jump_in import JumpIn
from .options import HOUSE_OPTIONS, NO_HOUSE, House, house_rules, in_play
from .seven_zero import SevenZero
from .stacking import PENALTY, HousePending, Stacking

__all__ = [
    "HOUSE_OPTIONS", "NO_HOUSE", "PENALTY", "House", "HousePending", "HouseRules",
    "house_rules", "in_play",
]  # fmt: skip


#: No hook asked per play: classic UNO without house rules.
NO_HOOKS = TurnHooks(targets=False, uno_per_play=False, may_draw=False)
#: (seven_zero, forced_play) -> the hooks asked.
_HOOKS = {
    (seven_zero, forced): TurnHooks(seven_zero, seven_zero, forced)
    for seven_zero in (False, True)
    for forced in (False, True)
}


class HouseRules(Stacking, SevenZero, JumpIn, DrawRules):
    """Classic UNO's rules with its house rules (each a mixin on ``UnoRules``)."""

    event_types: ClassVar[frozenset[str]] = (
        Stacking.event_types | SevenZero.event_types | JumpIn.event_types | DrawRules.event_types
    )

    def turn_hooks(self, s: State | Work) -> TurnHooks:
        """The play hooks the listing asks, by the house rules ``s`` plays: seven-zero's
        targets and UNO flag (a 7 names a seat, a swap or a pass changes whose hand is
        left), forced play's draw; with those off each hook answers as classic UNO's."""
        if len(s.options) == self._plain_options:
            return NO_HOOKS
        house = house_rules(s)
        return _HOOKS[house.seven_zero, house.forced_play]

    def view_extra(self, state: State, player: int | None, view: dict[str, Any]) -> None:
        """``house_rules``: the house rules in play (only those that are on; absent when
        none is)."""
        super().view_extra(state, player, view)
        on = in_play(house_rules(state))
        if on:
            view["house_rules"] = on
