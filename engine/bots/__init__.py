"""Bots at three levels, for every variant. Pure rules code: no web code.

A bot's whole input is what its seat may know: the seat's view (``engine.view(state,
seat)``), the public history redacted for that seat (``engine.redact``) and the seat's
legal moves (what the API offers that seat). It never receives a ``State``, so it
cannot read another hand, the draw pile order or the seed.

- ``easy``: a random legal move (it still says UNO and catches, as every level does);
- ``normal``: the best move by a heuristic per variant (``engine.bots.knowledge`` and
  ``engine.bots.variants``): colour choice from its hand, Wilds and draw cards kept for
  later, challenges by the odds, DOS matches that shed most, Flip side awareness, ...;
- ``hard``: ``engine.bots.hard_policy``: normal's values with what the seat can infer
  (wild draw cards played when innocent, challenges when the offender looks guilty,
  colours the next seat's draws say it lacks), and a search of its own turn on one
  determinization (``BotKnowledge.sample``): every sequence of its own moves while the
  turn stays its own. In classic UNO, UNO Duo and Pocket Pizza the searched turn
  decides; in UNO Flip and UNO All Wild it decides when it goes out for sure (All
  Wild: also when the other seat holds one card), and the Monte Carlo search
  (``engine.bots.montecarlo``) runs over the ranking. Its budget bounds the engine
  moves the search applies, not time. DOS plans its turn on the view instead
  (``engine.bots.dos_turn``: no engine moves).

Every level is deterministic given its ``random.Random``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from ..events import Event
from ..moves import Move, MoveType
from ..registry import find_variant
from . import hard_policy
from .knowledge import BotKnowledge, Ctx
from .montecarlo import DEFAULT_BUDGET
from .variants import BOTS, Bot, bot_for

__all__ = [
    "BOTS", "DEFAULT_BUDGET", "LEVELS", "Bot", "BotKnowledge", "Ctx", "bot_for", "choose",
    "knowledge_for", "rank", "sample_state", "searchable",
]  # fmt: skip

#: The bot levels, weakest first.
LEVELS: tuple[str, ...] = ("easy", "normal", "hard")

SIDE = (MoveType.UNO, MoveType.CATCH)


def choose(
    level: str,
    view: dict[str, Any],
    history: Sequence[Event],
    legal: Sequence[Move],
    rnd: random.Random,
    budget: int = DEFAULT_BUDGET,
) -> Move:
    """The move a bot of ``level`` makes for the seat whose ``view`` it is.

    ``history``: the events so far, redacted for the seat (may be empty); ``legal``: the
    seat's legal moves (not empty); ``budget``: the size of the hard level's search (16 engine moves a unit)."""
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}; expected one of {', '.join(LEVELS)}")
    if not legal:
        raise ValueError("a bot needs at least one legal move")
    moves = list(legal)
    for kind in SIDE:  # every level says UNO and catches
        side = [m for m in moves if m.type is kind]
        if side:
            return side[0]
    if level == "easy":
        return rnd.choice(moves)
    variant = find_variant(view["variant"])
    ctx = Ctx(int(view["player"]), view, list(history), moves, variant)
    bot = bot_for(variant.id)
    if level == "hard":
        return hard_policy.choose(bot.knowledge, bot.policy, ctx, rnd, budget)
    return rank(bot.knowledge, ctx, rnd)[0]


def knowledge_for(variant_id: str) -> BotKnowledge:
    """What the bots know of ``variant_id``'s game (``LookupError`` without an entry)."""
    return bot_for(variant_id).knowledge


def rank(know: BotKnowledge, ctx: Ctx, rnd: random.Random) -> list[Move]:
    """The legal moves, best first by the normal heuristic (ties in random order)."""
    offered = set(ctx.legal)
    keyed = [
        (know.score(ctx, m), rnd.random(), i)
        for i, m in enumerate(ctx.legal)
        if m.uno or m._replace(uno=True) not in offered  # saying UNO with it beats not
    ]
    keyed.sort(reverse=True)
    return [ctx.legal[i] for _, _, i in keyed]


def searchable(ctx: Ctx) -> bool:
    """Hard searches its own turn with no decision pending (the state of such a turn
    is rebuilt from the view alone)."""
    view = ctx.view
    return (
        view["phase"] == "play"
        and view.get("pending") is None
        and view["current_player"] == ctx.seat
    )


def sample_state(view: dict[str, Any], history: Sequence[Event], rnd: random.Random) -> Any:
    """One determinization: a full ``State`` consistent with ``view`` and ``history``."""
    variant = find_variant(view["variant"])
    ctx = Ctx(int(view["player"]), view, list(history), [], variant)
    return knowledge_for(variant.id).sample(ctx, rnd)
