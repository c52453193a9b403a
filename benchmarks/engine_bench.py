"""Engine benchmarks: random games through the validating ``apply``, side by side with
RLCard's UNO game API (rlcard 1.2.0, ``rlcard.games.uno.game.UnoGame``) when it is
installed; per-call costs of ``legal_moves`` and ``apply``; state sizes.

Every figure is CPU time (``time.process_time``) and every engine figure is printed
with its ratio to the RLCard anchor measured in the same run. Runs alternate between
the two engines in short slices (A B A B ...) so machine noise hits both alike; the
reported rate is the median over slices.
"""

from __future__ import annotations

import json
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import engine
from engine import Phase, State, Variant, find_variant

# Enum members as module constants: on Python 3.11 every ``Phase.X`` is a descriptor call
# (about a thousand instructions), which the loop would otherwise charge to every move.
ROUND_OVER, GAME_OVER = Phase.ROUND_OVER, Phase.GAME_OVER


def random_step(variant: Variant, state: State, rnd: random.Random) -> State:
    """One move: the legal moves of the seat the game waits for (seat 0 between rounds),
    a random pick, the validating ``apply``."""
    if state.phase is ROUND_OVER:
        seat = 0
    else:
        seat = state.pending.player if state.pending is not None else state.current
    legal = variant.legal_moves(state, seat)
    move = variant.encode_move(state, legal[int(rnd.random() * len(legal))])
    return variant.apply(state, move)[0]


def engine_slice(
    variant_id: str, seconds: float, rnd: random.Random, players: int
) -> tuple[int, float]:
    """Play random games of ``variant_id`` for about ``seconds`` of CPU; (moves, cpu s)."""
    variant = find_variant(variant_id)
    moves = 0
    start = time.process_time()
    deadline = start + seconds
    while time.process_time() < deadline:
        state, _ = variant.new_game(players, rnd.randrange(2**53))
        while state.phase is not GAME_OVER:
            state = random_step(variant, state, rnd)
            moves += 1
            if moves & 1023 == 0 and time.process_time() >= deadline:
                break
    return moves, time.process_time() - start


def rlcard_slice(seconds: float, rnd: random.Random, players: int) -> tuple[int, float] | None:
    """The same loop on RLCard's UNO game API: legal actions, random pick, step."""
    try:
        from rlcard.games.uno.game import UnoGame
    except ImportError:
        return None
    game = UnoGame(num_players=players)
    moves = 0
    start = time.process_time()
    deadline = start + seconds
    while time.process_time() < deadline:
        game.init_game()
        while not game.is_over():
            legal = game.get_legal_actions()
            game.step(legal[int(rnd.random() * len(legal))])
            moves += 1
    return moves, time.process_time() - start


def rate(samples: list[tuple[int, float]]) -> float:
    return statistics.median(m / s for m, s in samples if s > 0)


#: The table size of the timed games: two players (each variant's nearest allowed count),
#: as RLCard's UNO environment plays (``rlcard.make("uno")``, ``UnoGame(num_players=2)``),
#: and RLCard's anchor at the same count.
PLAYERS = 2


def throughput(seconds: float, slices: int, players: int = PLAYERS) -> dict[str, Any]:
    """Moves per CPU second for every variant at ``players`` seats (each variant's nearest
    allowed count), and RLCard's anchor at ``players`` seats."""
    rnd = random.Random(2026)
    per_slice = seconds / slices
    anchor: list[tuple[int, float]] = []
    ours: dict[str, list[tuple[int, float]]] = {v.id: [] for v in engine.all_variants()}
    for _ in range(slices):
        got = rlcard_slice(per_slice, rnd, players)
        if got is not None:
            anchor.append(got)
        for v in engine.all_variants():
            n = min(max(players, v.min_players), v.max_players)
            ours[v.id].append(engine_slice(v.id, per_slice, rnd, n))
    anchor_rate = rate(anchor) if anchor else None
    out: dict[str, Any] = {"rlcard_moves_per_cpu_s": anchor_rate, "variants": {}}
    for vid, samples in ours.items():
        r = rate(samples)
        out["variants"][vid] = {
            "moves_per_cpu_s": r,
            "ratio_to_rlcard": (r / anchor_rate) if anchor_rate else None,
        }
    return out


def sample_states(variant_id: str, count: int, rnd: random.Random) -> list[Any]:
    """States reached by random play, to time single calls on."""
    variant = find_variant(variant_id)
    states: list[State] = []
    while len(states) < count:
        n = min(max(4, variant.min_players), variant.max_players)
        state, _ = variant.new_game(n, rnd.randrange(2**53))
        for _ in range(rnd.randint(0, 120)):
            if state.phase is not Phase.PLAY and state.phase is not Phase.DRAFT:
                break
            seat = state.pending.player if state.pending is not None else state.current
            legal = variant.legal_moves(state, seat)
            state, _ = variant.apply(state, variant.encode_move(state, rnd.choice(legal)))
        if state.phase in (Phase.PLAY, Phase.DRAFT):
            states.append(state)
    return states


def per_call(count: int = 2000) -> dict[str, Any]:
    """Median and p99 microseconds of ``legal_moves`` and ``apply``; state JSON size."""
    rnd = random.Random(7)
    out: dict[str, Any] = {}
    for v in engine.all_variants():
        states = sample_states(v.id, count, rnd)
        legal_ns: list[int] = []
        apply_ns: list[int] = []
        clock: Callable[[], int] = time.perf_counter_ns
        for state in states:
            seat = state.pending.player if state.pending is not None else state.current
            t0 = clock()
            legal = v.legal_moves(state, seat)
            t1 = clock()
            move = v.encode_move(state, legal[rnd.randrange(len(legal))])
            t2 = clock()
            v.apply(state, move)
            t3 = clock()
            legal_ns.append(t1 - t0)
            apply_ns.append(t3 - t2)
        n = min(max(4, v.min_players), v.max_players)
        start = engine.new_game(v.id, n, 1)
        size = len(json.dumps(engine.to_dict(start), separators=(",", ":")))
        out[v.id] = {
            "legal_moves_us": _quantiles(legal_ns),
            "apply_us": _quantiles(apply_ns),
            "state_json_bytes_at_round_start": size,
            "players": n,
        }
    return out


def _quantiles(ns: list[int]) -> dict[str, float]:
    ns = sorted(ns)
    return {
        "median": round(statistics.median(ns) / 1000, 2),
        "p99": round(ns[int(len(ns) * 0.99) - 1] / 1000, 2),
    }
