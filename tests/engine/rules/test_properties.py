"""Property tests (hypothesis) over every variant: reachable states from random seeds
and random legal move sequences; garbage moves and mutated states.

- ``apply`` of any move, however malformed, raises only the engine's own errors;
- a serialized state mutated so that it breaks an invariant (a card duplicated or
  lost, a field removed, a value of the wrong type) is rejected as ``invalid_state``;
  any other mutation either loads as a state that passes every invariant or is
  rejected as ``invalid_state`` — ``from_dict`` never raises anything else.
"""

from __future__ import annotations

import contextlib
import copy
import os
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine import EngineError, InvalidState, Phase, State

VARIANTS = [v.id for v in engine.all_variants()]
SETTINGS = settings(
    max_examples=int(os.environ.get("PROPERTY_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@st.composite
def reachable_states(draw: st.DrawFn) -> State:
    """A state reached by a random number of random legal moves from a random seed."""
    variant_id = draw(st.sampled_from(VARIANTS))
    variant = engine.find_variant(variant_id)
    players = draw(st.integers(variant.min_players, min(variant.max_players, 5)))
    seed = draw(st.integers(0, 2**53))
    steps = draw(st.integers(0, 150))
    rnd = random.Random(draw(st.integers(0, 2**32)))
    state = engine.new_game(
        variant_id, players, seed, options={"target": draw(st.sampled_from([20, 100, 500]))}
    )
    for _ in range(steps):
        if state.phase is Phase.GAME_OVER:
            break
        moves = [m for p in range(players) for m in engine.legal_moves(state, p)]
        state, _ = engine.apply(state, rnd.choice(moves))
    return state


JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True),
    st.text(max_size=8),
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=10,
)
MOVE_KEYS = st.sampled_from(
    ["type", "player", "card", "color", "target", "chain", "uno", "cards", "junk"]
)


@st.composite
def garbage_moves(draw: st.DrawFn) -> Any:
    """Move-shaped JSON: real move types and fields mixed with junk values."""
    if draw(st.integers(0, 9)) == 0:
        return draw(JSON_VALUES)
    move: dict[str, Any] = {}
    for key in draw(st.lists(MOVE_KEYS, max_size=6, unique=True)):
        move[key] = draw(
            st.one_of(
                JSON_VALUES,
                st.sampled_from([t.value for t in engine.MoveType]),
                st.integers(-2, 120),
                st.sampled_from(["red", "blue", "pink", "teal", "mauve"]),
                st.lists(st.integers(-1, 120), max_size=4),
                st.lists(st.fixed_dictionaries({"card": st.integers(-1, 120)}), max_size=3),
            )
        )
    return move


@SETTINGS
@given(state=reachable_states(), moves=st.lists(garbage_moves(), min_size=1, max_size=5))
def test_garbage_moves_raise_only_rule_errors(state: State, moves: list[Any]) -> None:
    before = engine.to_dict(state)
    for move in moves:
        try:
            after, events = engine.apply(state, move)
        except EngineError as exc:
            assert exc.code and exc.detail
        else:
            engine.check_invariants(after)
            assert isinstance(events, list)
    assert engine.to_dict(state) == before, "apply changed its input"


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(node, dict):
        for k, v in node.items():
            out.extend(_paths(v, (*prefix, k)))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out.extend(_paths(v, (*prefix, i)))
    return out


def _get(node: Any, path: tuple[Any, ...]) -> Any:
    for p in path:
        node = node[p]
    return node


def _card_lists(raw: dict[str, Any]) -> list[tuple[Any, ...]]:
    """Paths of the lists that hold card ids (hands and piles)."""
    paths: list[tuple[Any, ...]] = [("hands", i) for i in range(len(raw["hands"]))]
    paths += [("draw_pile",), ("discard",)]
    return [p for p in paths if _get(raw, p)]


@SETTINGS
@given(state=reachable_states(), data=st.data())
def test_states_breaking_invariants_are_invalid_state(state: State, data: st.DataObject) -> None:
    raw = engine.to_dict(state)
    mutated = copy.deepcopy(raw)
    kind = data.draw(st.sampled_from(["duplicate", "lose", "remove_field", "wrong_type", "seat"]))
    if kind in ("duplicate", "lose"):
        piles = _card_lists(mutated)
        src = _get(mutated, data.draw(st.sampled_from(piles)))
        card = src[data.draw(st.integers(0, len(src) - 1))]
        if kind == "duplicate":
            _get(mutated, data.draw(st.sampled_from(piles))).append(card)
        else:
            src.remove(card)
    elif kind == "remove_field":
        del mutated[data.draw(st.sampled_from(sorted(k for k in mutated if k != "ext")))]
    elif kind == "wrong_type":
        key = data.draw(
            st.sampled_from(
                ["players", "round", "dealer", "current", "hands", "scores", "phase", "rng"]
            )
        )
        mutated[key] = data.draw(st.sampled_from(["x", 1.5, None, [], {}, True]))
    else:
        mutated[data.draw(st.sampled_from(["current", "dealer"]))] = state.num_players + data.draw(
            st.integers(0, 3)
        )
    try:
        engine.from_dict(mutated)
    except InvalidState as exc:
        assert exc.code == "invalid_state" and exc.detail
    else:
        raise AssertionError(f"{kind} mutation was accepted")
    assert raw == engine.to_dict(state)


@SETTINGS
@given(state=reachable_states(), data=st.data())
def test_any_mutation_loads_valid_or_is_invalid_state(state: State, data: st.DataObject) -> None:
    raw = engine.to_dict(state)
    mutated = copy.deepcopy(raw)
    paths = _paths(mutated)
    path = data.draw(st.sampled_from(paths))
    parent = _get(mutated, path[:-1])
    parent[path[-1]] = data.draw(JSON_VALUES)
    try:
        loaded = engine.from_dict(mutated)
    except InvalidState as exc:
        assert exc.detail
    else:
        engine.check_invariants(loaded)
        engine.score(loaded)
        for seat in [None, *range(loaded.num_players)]:
            engine.view(loaded, seat)
        for seat in range(loaded.num_players):
            for move in engine.legal_moves(loaded, seat)[:3]:
                with contextlib.suppress(EngineError):
                    engine.apply(loaded, move)
