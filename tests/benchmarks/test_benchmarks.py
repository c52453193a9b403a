"""The benchmark suite keeps working (its figures are never asserted: benchmarks are
not timed tests): every variant plays through the timed and the counted loops, and the
HTTP floor answers exactly what ``POST /v1/games/apply`` answers, with no rules work."""

from __future__ import annotations

import random
from pathlib import Path

import orjson
import pytest

import engine
from benchmarks import (
    engine_bench,
    http_bench,
    http_instructions,
    instructions,
    session_instructions,
)

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


def test_the_anchor_answers_a_small_json_and_the_ratios_divide_medians() -> None:
    from benchmarks import anchor_app

    resp = anchor_app.app.test_client().get("/")
    assert resp.status_code == 200 and resp.get_json() == {"ok": True}
    row = {"server_cpu_us_per_request": 0.0, "requests_per_s": 0.0}
    res = {
        "anchor": {"server_cpu_us_per_request": 200.0, "requests_per_s": 1000.0,
                   "slices": [{**row, "server_cpu_us_per_request": v} for v in (100.0, 200.0, 400.0)]},
        "apply": {"server_cpu_us_per_request": 300.0, "requests_per_s": 500.0,
                  "slices": [{**row, "server_cpu_us_per_request": v} for v in (300.0, 300.0, 300.0)]},
    }  # fmt: skip
    got = http_bench.ratios(res, "apply", "anchor")
    assert got == {
        "cpu_per_request": 1.5,
        "cpu_per_request_slice_median": 1.5,
        "requests_per_s": 0.5,
    }
    assert http_bench.body_players(http_bench.apply_body()) == http_bench.PLAYERS == 3


@pytest.mark.parametrize("target", list(http_instructions.TARGETS))
def test_the_counted_http_calls_are_answered_200(target: str) -> None:
    # child raises on any answer but 200: what is counted is the request itself.
    http_instructions.child(http_instructions.TARGETS[target][0], target, 3)


def test_the_counted_session_moves_are_answered_and_the_game_lasts(monkeypatch) -> None:
    seed, moves = session_instructions.game_moves(40)
    assert len(moves) == 40 and seed >= 1
    # Each move is its seat's legal move in the state the ones before it made.
    state, _ = engine.start(session_instructions.VARIANT, 2, seed)
    for seat, body in moves:
        move = engine.Move.from_dict(orjson.loads(body)["move"])
        assert move in engine.legal_moves(state, seat)
        state, _ = engine.apply(state, move)
    # child raises on any answer but 200/201: a refused move would not be counted.
    monkeypatch.delenv("REDIS_URL", raising=False)
    session_instructions.child("move", 3)
    session_instructions.child("healthz", 3)


@pytest.mark.redis
@pytest.mark.cluster
def test_the_counted_session_moves_run_on_the_cluster_with_a_trees_service(monkeypatch) -> None:
    """``--stores cluster`` and ``--tree`` (here this checkout): the moves are answered."""
    tree = str(Path(session_instructions.__file__).resolve().parent.parent)
    with session_instructions.store_url("cluster") as url:
        assert url is not None
        monkeypatch.setenv("REDIS_URL", url)
        monkeypatch.setenv("SERVICE_TREE", tree)
        session_instructions.child("move", 3)


@pytest.mark.redis
def test_the_redis_cpu_benchmark_plays_its_moves(capsys: pytest.CaptureFixture[str]) -> None:
    """``redis_move_cpu``'s child plays its moves on a real Redis (each answered 200, or
    it raises) and prints the Redis CPU a move; the parent runs it per tree."""
    from benchmarks import redis_move_cpu
    from tests.redis_procs import RedisServer, free_port, need_redis_server

    need_redis_server()
    server = RedisServer(free_port())
    server.start()
    try:
        redis_move_cpu.child(str(redis_move_cpu.ROOT), server.url, 20, [server.port])
        assert orjson.loads(capsys.readouterr().out.splitlines()[-1])["us_per_move"] >= 0
        rows = redis_move_cpu.measure([str(redis_move_cpu.ROOT)], server.url, [server.port], 10, 1)
        assert [(tree, len(each)) for tree, _, each in rows] == [(str(redis_move_cpu.ROOT), 1)]
    finally:
        server.stop()
