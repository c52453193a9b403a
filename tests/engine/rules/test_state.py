"""``State`` is the one declaration of the fields: ``Work``, the JSON form and the
type checker's view of ``Work`` follow it, and a second place that disagrees fails."""

from __future__ import annotations

import ast
import dataclasses
import inspect
from typing import Any

import pytest

import engine
import engine.state
from engine.serialize import KEYS
from engine.state import FIELDS, NEXT_SEAT, State, Work, seat_after


def _annotations(cls: str) -> dict[str, str]:
    """The annotated fields of class ``cls`` in engine/state.py, as written."""
    tree = ast.parse(inspect.getsource(engine.state))
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == cls:
            return {
                item.target.id: ast.unparse(item.annotation)
                for item in node.body
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
            }
    raise AssertionError(f"no class {cls} in engine/state.py")


def test_the_type_checkers_work_has_states_fields_in_order() -> None:
    stub, declared = _annotations("Work"), _annotations("State")
    assert list(declared) == list(FIELDS)
    assert list(stub) == [*FIELDS, "prev_color", "answered"]
    # Same types, but hands: a list of tuples while a move is applied.
    differ = {f for f in FIELDS if stub[f] != declared[f]}
    assert differ == {"hands"}


def test_work_is_made_from_states_fields() -> None:
    made: Any = Work  # the type checker sees the stub; at run time a dataclass
    assert [f.name for f in dataclasses.fields(made)] == [*FIELDS, "prev_color", "answered"]
    state, _ = engine.start("uno_classic", 3, 5)
    w = Work.of(state)
    assert type(w.hands) is list and w.prev_color is None
    assert w.freeze() == state
    w.current = state.next_seat(state.current)
    assert w.freeze() == state._replace(current=w.current)
    assert not hasattr(w, "__dict__")  # slots: a typo in a rule is an AttributeError


def test_the_json_form_has_one_key_per_field() -> None:
    state, _ = engine.start("uno_flip", 4, 9)
    raw = engine.to_dict(state)
    assert set(raw) == KEYS and len(raw) == len(FIELDS) + 1  # and "schema"
    assert engine.from_dict(raw) == state


@pytest.mark.parametrize(
    ("seat", "players", "steps", "direction", "expected"),
    [(0, 4, 1, 1, 1), (3, 4, 1, 1, 0), (0, 4, 1, -1, 3), (1, 5, 3, -1, 3), (2, 3, 3, 1, 2)],
)
def test_seat_after(seat: int, players: int, steps: int, direction: int, expected: int) -> None:
    assert seat_after(seat, players, steps, direction) == expected
    state = State("uno_classic", players, (), 0, (0, 1), direction=direction)
    assert state.next_seat(seat, steps) == expected
    assert Work.of(state).next_seat(seat, steps) == expected


@pytest.mark.parametrize("direction", [1, -1])
def test_the_next_seat_table_is_seat_after(direction: int) -> None:
    """``NEXT_SEAT`` is ``seat_after`` compiled: one step, every seat of every table size
    a variant seats."""
    most = max(v.max_players for v in engine.all_variants())
    for players in range(1, most + 1):
        assert NEXT_SEAT[direction][players] == tuple(
            seat_after(seat, players, 1, direction) for seat in range(players)
        )
