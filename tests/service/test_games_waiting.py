"""A new game's answer is shown to the seat the game waits for: the engine's
``waiting_for`` (service/games.py states no rule of its own)."""

from __future__ import annotations

import ast
from pathlib import Path

import engine
import service.games


def test_games_asks_the_engine_whom_the_game_waits_for() -> None:
    tree = ast.parse(Path(service.games.__file__).read_text())
    defined = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    assert "waiting_seat" not in defined
    assert "waiting_for" in {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}


def test_a_new_game_waits_for_a_seat() -> None:
    for variant in engine.all_variants():
        state, _ = engine.start(variant.id, 2, 11)
        assert engine.waiting_for(state) is not None, variant.id
