"""Classic UNO's house rules composed, not stacked (``engine.house``): a game's house
rules are resolved once into one object the hooks ask (``HouseBase.houses``); where two
rules meet is decided in one place (``compose``, which follows the rules page's "When
house rules meet", and ``HouseRules``), so the order of the mixins decides nothing."""

from __future__ import annotations

import inspect
import random
import re
from itertools import combinations
from pathlib import Path

import engine
from engine.house import HouseRules, compose, house_of
from engine.house.base import PLAIN
from engine.registry import find_variant
from engine.state import Phase

RULES_PAGE = Path(__file__).parents[3] / "docs" / "rules" / "uno_classic.md"
ALL_ON = {
    "stacking": "up",
    "seven_zero": True,
    "jump_in": True,
    "draw_to_match": True,
    "forced_play": True,
    "uno_penalty": 3,
}


def own_hooks(cls: type) -> set[str]:
    """The methods ``cls`` itself defines (the decorators' tables are not hooks)."""
    return {name for name, value in vars(cls).items() if inspect.isfunction(value)}


def test_no_hook_is_written_by_two_house_rules() -> None:
    mixins = [base for base in HouseRules.__bases__]
    assert len(mixins) == 4
    for one, other in combinations(mixins, 2):
        shared = own_hooks(one) & own_hooks(other) - {"__init__"}
        assert not shared, f"{one.__name__} and {other.__name__} both write {shared}"


def test_a_games_house_rules_are_resolved_once_for_all_its_states() -> None:
    variant = find_variant("uno_classic")
    assert isinstance(variant, HouseRules)
    state = engine.new_game("uno_classic", 3, 11, options=ALL_ON)
    later, _ = engine.apply(state, engine.legal_moves(state, state.current)[0])
    house = variant.houses[state.options]
    assert house is variant.houses[later.options]
    assert house == compose(house_of(state.options))
    assert house.rules._asdict() == ALL_ON
    plain = engine.new_game("uno_classic", 3, 11)
    assert variant.houses[plain.options] is PLAIN and not PLAIN.penalty and PLAIN.keeps_drawn


def test_compose_names_every_meeting_of_the_rules_page() -> None:
    """Each line of "When house rules meet" is answered in ``compose``: its docstring
    names the same pairs, in the same order."""
    page = RULES_PAGE.read_text(encoding="utf-8")
    section = page.split("### When house rules meet", 1)[1].split("\n###", 1)[0]
    pairs = [m.lower() for m in re.findall(r"^- ([^:]+):", section, re.M)]
    doc = inspect.getdoc(compose) or ""
    written = [m.lower() for m in re.findall(r"^- ([^:]+):", doc, re.M)]
    assert pairs and written == pairs


def test_a_hook_turn_hooks_leaves_out_answers_as_classic_unos() -> None:
    """Where ``turn_hooks`` (compiled from ``compose``) says a draw hook need not be
    asked, ``on_draw``, ``legal_play_drawn`` and ``on_pass`` take classic UNO's answer:
    the hook itself gives that answer in every state of a game of those options."""
    variant = find_variant("uno_classic")
    assert isinstance(variant, HouseRules)
    rnd = random.Random(45)
    asked = {"may_draw": 0, "draws_to_match": 0, "may_keep_drawn": 0}
    for options in ({}, {"draw_to_match": True}, {"forced_play": True}, ALL_ON):
        for _ in range(4):
            state = engine.new_game("uno_classic", 3, rnd.randrange(2**32), options=options)
            hooks = variant.turn_hooks(state)
            for name in asked:
                asked[name] += getattr(hooks, name)
            for _ in range(120):
                if state.phase is not Phase.PLAY:
                    break
                for seat in range(state.num_players):
                    assert hooks.may_draw or variant.may_draw(state, seat) is True
                    assert hooks.may_keep_drawn or variant.may_keep_drawn(state, seat) is True
                assert hooks.draws_to_match or variant.draws_to_match(state) is False
                waiting = variant.waiting_for(state)
                assert waiting is not None
                moves = variant.legal_moves(state, waiting)
                state, _ = variant.apply(state, moves[rnd.randrange(len(moves))])
    assert all(asked.values())  # each hook is asked in some game
