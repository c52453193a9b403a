"""``python -m engine simulate``: random legal games of every variant reach their end."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import engine
from engine.simulate import simulate


@pytest.mark.parametrize("variant_id", [v.id for v in engine.all_variants()])
def test_simulate_plays_every_variant_to_the_end(variant_id: str) -> None:
    result = simulate(variant_id, games=3, seed=11, options={"target": 60})
    summary = result.summary()
    assert summary["games"] == 3 and summary["moves"] > 0
    assert sum(summary["wins_by_seat"].values()) >= 3  # every game names a winner (ties share)
    assert summary["rounds"] >= 3


def test_simulate_is_reproducible() -> None:
    a = simulate("uno_classic", 2, seed=5).summary()
    b = simulate("uno_classic", 2, seed=5).summary()
    assert (a["moves"], a["wins_by_seat"]) == (b["moves"], b["wins_by_seat"])


def test_cli_prints_a_json_summary() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "engine", "simulate", "--variant", "uno_classic", "--games", "2",
         "--seed", "3", "--target", "50", "--json"],
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout  # fmt: skip
    summary = json.loads(out)
    assert summary["games"] == 2 and summary["moves_per_second"] > 0
