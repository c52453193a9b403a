"""The base of the house-rule mixins: how to tell at once that a state plays no house
rule (the hooks ask it first where they run for every play or draw)."""

from __future__ import annotations

from ..uno import UnoRules


class HouseBase(UnoRules):
    """Classic UNO's hooks, and ``_plain_options``: how many options a state lists with
    every house rule off (those stored at their default). A state that lists that many
    plays no house rule: ``len(s.options) == self._plain_options`` is the check, written
    out where a hook runs for every play or draw (a call would cost more than the rule)."""

    def __init__(self) -> None:
        super().__init__()
        self._plain_options = sum(spec.stored_at_default for spec in self.options.values())
