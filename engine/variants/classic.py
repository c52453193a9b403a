"""Classic UNO (``uno_classic``): the base the other variants vary, with its house rules
as options (``engine.house``)."""

from ..house import HOUSE_OPTIONS, HouseRules
from ..options import OptionSpec


class Classic(HouseRules):
    id = "uno_classic"
    title = "UNO (classic)"
    catalog_name = "uno_classic"
    min_players = 2
    max_players = 10
    target = 500

    def extra_options(self) -> list[OptionSpec]:
        """Classic UNO's options, and its house rules (all off by default)."""
        return [*super().extra_options(), *HOUSE_OPTIONS]
