"""The house rules a state plays, composed once into the object the turn machinery asks
(``HouseTurn``), and the base of the house-rule mixins that reads it (``HouseBase``).

``compose`` is the one place where house rules meet: each field is one question a hook
asks, answered from the options in the order of the rules page's "When house rules
meet" (``docs/rules/uno_classic.md``)."""

from __future__ import annotations

from typing import Any, NamedTuple

from ..uno import TurnHooks, UnoRules
from .options import NO_HOUSE, House, house_of


class HouseTurn(NamedTuple):
    """The house rules of a game, composed: what each rule hook asks of them."""

    #: The options' values (the view's ``house_rules``).
    rules: House
    #: The play hooks the listing asks per play (``turn_hooks``).
    hooks: TurnHooks
    #: Stacking: a Draw Two or a Wild Draw Four starts or raises a penalty.
    penalty: bool
    #: Stacking ``up``: a Wild Draw Four stacks on a Draw Two too.
    stack_up: bool
    #: Seven-zero: a 7 names a seat and swaps hands with it, a 0 passes every hand.
    exchanges: bool
    #: Jump-in: a play out of turn goes on to the rules.
    jump_in: bool
    #: Forced play: a hand holding a playable card may not draw by choice.
    forced_draw: bool
    #: Draw to match: a draw by choice goes on until a playable card.
    draws_to_match: bool
    #: Whether a playable drawn card may be kept (``pass``).
    keeps_drawn: bool
    #: The cards a seat caught without saying UNO draws.
    catch_penalty: int


def compose(house: House) -> HouseTurn:
    """The answers the hooks ask for, where house rules meet as the rules page says:

    - stacking and jump-in: a penalty is a pending decision, and a jump-in needs none
      (``HouseRules.may_play`` asks the penalty first); a Draw Two jumped in starts a
      penalty as in turn (the effect does not ask whose turn it was);
    - seven-zero and jump-in: a 7 or 0 jumped in swaps or passes as in turn (targets
      and effects do not ask whose turn it was);
    - seven-zero and stacking: independent (a 7 or a 0 is not a draw card);
    - draw to match and forced play: the card that ends the drawing must be played
      (forced play takes away ``keeps_drawn``, drawing to match or not);
    - draw to match and stacking: taking a penalty draws exactly the penalty (a draw
      that answers a decision is never drawn to match: ``Stacking.draw_answer``);
    - forced play and a Wild Draw Four: it stays playable at any time; forced play only
      takes away the draw by choice (``forced_draw``), never a play.
    """
    return HouseTurn(
        rules=house,
        hooks=TurnHooks(
            targets=house.seven_zero,
            uno_per_play=house.seven_zero,
            may_draw=house.forced_play,
            draws_to_match=house.draw_to_match,
            may_keep_drawn=house.forced_play,
        ),
        penalty=house.stacking != "none",
        stack_up=house.stacking == "up",
        exchanges=house.seven_zero,
        jump_in=house.jump_in,
        forced_draw=house.forced_play,
        draws_to_match=house.draw_to_match,
        keeps_drawn=not house.forced_play,
        catch_penalty=house.uno_penalty,
    )


#: Classic UNO: no house rule, every hook answers as ``UnoRules``.
PLAIN = compose(NO_HOUSE)
Options = tuple[tuple[str, Any], ...]


class Composed(dict[Options, HouseTurn]):
    """A game's options -> its house rules composed (``compose``), made on the first
    read of each combination of options and kept (a game's states share one options
    tuple; games share a few combinations). A read is a dict read, no Python call."""

    def __missing__(self, options: Options) -> HouseTurn:
        composed = compose(house_of(options))
        if composed == PLAIN:
            composed = PLAIN
        if len(self) < 1024:  # bounded: options come from requests
            self[options] = composed
        return composed


class HouseBase(UnoRules):
    """Classic UNO's hooks, and ``houses``: the house rules of a state's options,
    composed (``houses[s.options]``)."""

    def __init__(self) -> None:
        super().__init__()
        self.houses = Composed()
