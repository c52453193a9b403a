"""The benchmark suite keeps working (its figures are never asserted: benchmarks are
not timed tests): every variant plays through the timed and the counted loops, and the
HTTP floor answers exactly what ``POST /v1/games/apply`` answers, with no rules work."""

from __future__ import annotations

import random

import orjson
import pytest

import engine
from benchmarks import engine_bench, http_bench, instructions

VARIANTS = [v.id for v in engine.all_variants()]


@pytest.mark.parametrize("variant", VARIANTS)
def test_random_step_plays_legal_moves_to_the_end(variant: str) -> None:
    v = engine.find_variant(variant)
    rnd = random.Random(3)
    state, _ = v.new_game(v.min_players, 3)
    moves = 0
    while state.phase is not engine.Phase.GAME_OVER and moves < 5000:
        state = engine_bench.random_step(v, state, rnd)
        moves += 1
    assert moves > 0 and state.move_count == moves


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_counted_loop_plays_its_moves(variant: str) -> None:
    assert instructions.play_engine(variant, 200) == 200  # a finished game starts a new one


def test_the_floor_answers_the_bytes_of_apply(tmp_path, monkeypatch) -> None:
    from benchmarks import floor_app

    body = http_bench.apply_body()
    answer = http_bench.apply_answer(body)
    path = tmp_path / "answer.json"
    path.write_bytes(answer)
    monkeypatch.setenv("BENCH_FLOOR_ANSWER", str(path))
    client = floor_app.create_app().test_client()
    applied = client.post("/v1/games/apply", json=body)
    assert applied.status_code == 200
    assert orjson.loads(applied.data) == orjson.loads(answer)
    floor = client.post("/bench/floor", json=body)
    assert floor.status_code == 200 and floor.data == answer
    assert client.post("/bench/floor", json={"move": {}}).status_code == 400  # same checks
