"""The house rules of classic UNO as game options (``docs/rules/uno_classic.md``, "House
rules"): each option's values and default, once, and the house rules a state plays.

Every house rule is off by default and left out of a state while off
(``OptionSpec.stored_at_default``), so a game without house rules has the very states it
had before they existed."""

from __future__ import annotations

from typing import Any, NamedTuple

from ..options import OptionSpec, flag
from ..variant import CAUGHT_DRAW

#: The options, in the order ``GET /v1/variants`` lists them.
HOUSE_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "stacking",
        "none",
        "Draw Twos and Wild Draw Fours stack into a penalty the next player answers: "
        "none (classic), same (a Draw Two on a Draw Two, a Wild Draw Four on a Wild Draw "
        "Four), up (as same, and a Wild Draw Four on a Draw Two)",
        choices=("none", "same", "up"),
        stored_at_default=False,
        label="Stacking draw cards",
    ),
    flag(
        "seven_zero",
        "a 7 swaps hands with the seat its play names (target); a 0 passes every hand to "
        "the next player in the direction of play",
        label="Seven swaps, zero passes",
    ),
    flag(
        "jump_in",
        "a player holding a card identical to the card in play may play it out of turn; "
        "play goes on from them",
        label="Jump-in",
    ),
    flag(
        "draw_to_match",
        "a player who draws by choice keeps drawing until a card that can be played",
        label="Draw to match",
    ),
    flag(
        "forced_play",
        "a player who can play must play: no drawing by choice while holding a playable "
        "card, and a playable drawn card is played at once",
        label="Forced play",
    ),
    OptionSpec(
        "uno_penalty",
        CAUGHT_DRAW,
        "cards a player caught without saying UNO draws",
        minimum=1,
        maximum=10,
        stored_at_default=False,
        label="Cards drawn for a missed UNO",
    ),
)


class House(NamedTuple):
    """The house rules a state plays, one field per option of ``HOUSE_OPTIONS``."""

    stacking: str
    seven_zero: bool
    jump_in: bool
    draw_to_match: bool
    forced_play: bool
    uno_penalty: int


if House._fields != tuple(spec.name for spec in HOUSE_OPTIONS):  # pragma: no cover
    raise RuntimeError("engine.house.options: House must have one field per house option")

#: Classic UNO: every house rule off.
NO_HOUSE = House(*(spec.default for spec in HOUSE_OPTIONS))


def house_of(options: tuple[tuple[str, Any], ...]) -> House:
    """The house rules a game's ``options`` play (the defaults for those left out)."""
    values = dict(options)
    return House(*(values.get(spec.name, spec.default) for spec in HOUSE_OPTIONS))


def in_play(house: House) -> dict[str, Any]:
    """The house rules that are on (not at their default), by option name."""
    return {k: v for k, v in house._asdict().items() if v != getattr(NO_HOUSE, k)}
