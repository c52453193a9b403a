"""Classic UNO (``uno_classic``): the base the other variants vary."""

from ..registry import register
from ..uno import UnoRules


@register
class Classic(UnoRules):
    id = "uno_classic"
    title = "UNO (classic)"
    catalog_name = "uno_classic"
    min_players = 2
    max_players = 10
    target = 500
