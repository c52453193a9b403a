"""Bot strength and cost: ``python benchmarks/bots_bench.py [--games N] [--variants a,b]``.

For each variant, with 2 and 4 players (where the variant allows 4), it plays
``--games`` games per pairing (normal against easy, hard against normal) and prints the
stronger level's win rate with its 95% Wilson interval. A game is a whole game, round
after round until a seat reaches the variant's target score, as a session plays it; its
winner is the seat with the best score then (a shared win counts for nobody).
``--unit round`` plays one round a game instead (its winner is the seat that goes out):
about ten times cheaper, and the edge of a level shows less in one round than over a
game. ``--options`` sets game options for every game (JSON), such as classic UNO's
house rules: ``--options '{"stacking": "up", "seven_zero": true}'``.

Seats: with 2 players one bot of each level, the stronger one seated first in every
other game; with 4 players one stronger bot against three of the weaker level (1 vs
3), its seat rotating with the game number, so the no-skill baseline is 25%. Every
game is seeded (the deal by the game number, the bots by the game number and level),
so a run replays exactly.

The hard level's cost: the median and p99 CPU time of a hard move on its own turn
(the moves it searches), measured in the hard-against-normal games, with the playout
budget used. CPU time, not wall time: on a shared machine the wall clock measures the
other work too.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine  # noqa: E402
from engine import Phase, bots  # noqa: E402

PAIRINGS = (("normal", "easy"), ("hard", "normal"))
#: What one "game" of a pairing is: a whole game to the target score, or one round.
UNITS = ("game", "round")
SIDE = ("uno", "catch")
#: A round longer than this many moves is stopped and counted as nobody's win.
MAX_MOVES = 3000
#: Game options for every game (``--options``), or None.
Options = dict[str, Any] | None


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion ``wins / n``."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def seats_for(game: int, players: int, strong: str, weak: str) -> list[str]:
    """The level of each seat: one ``strong`` bot, its seat rotating with the game."""
    levels = [weak] * players
    levels[game % players] = strong
    return levels


def play_round(
    variant: str, levels: list[str], seed: int, budget: int, options: Options = None
) -> tuple[int | None, list[float]]:
    """One round between bots; the winning seat (None: stopped) and the CPU times of
    the hard moves that searched (seconds: process time, which other work on the
    machine does not inflate as it does wall time)."""
    winner, times, _ = play(variant, levels, seed, budget, whole_game=False, options=options)
    return winner, times


def play_game(
    variant: str, levels: list[str], seed: int, budget: int, options: Options = None
) -> tuple[int | None, list[float]]:
    """One whole game, round after round until a seat reaches the target score, as a
    session plays it; the winning seat (None: stopped, or a shared win) and the hard
    moves' CPU times."""
    winner, times, _ = play(variant, levels, seed, budget, whole_game=True, options=options)
    return winner, times


def play(
    variant: str,
    levels: list[str],
    seed: int,
    budget: int,
    whole_game: bool,
    options: Options = None,
) -> tuple[int | None, list[float], engine.State]:
    """A round or a whole game between bots: the winner, the hard moves' CPU times and
    the last state."""
    state, events = engine.start(variant, len(levels), seed, options=options)
    rnd = random.Random(f"bench:{variant}:{len(levels)}:{seed}")
    seen: list[list[Any]] = [engine.redact_all(events, s) for s in range(len(levels))]
    times: list[float] = []
    in_round = 0
    while in_round < MAX_MOVES:
        if state.phase is Phase.ROUND_OVER and whole_game:
            # the next round: its deal starts each seat's history afresh (the bots judge
            # the round in play, as a session's bots see it)
            seat = engine.waiting_for(state)
            assert seat is not None
            state, events = engine.apply(state, engine.legal_moves(state, seat)[0])
            seen = [engine.redact_all(events, s) for s in range(len(levels))]
            in_round = 0
            continue
        if state.phase not in (Phase.PLAY, Phase.DRAFT):
            break
        in_round += 1
        move = None
        for seat in range(len(levels)):  # every level says UNO and catches first
            side = [m for m in engine.legal_moves(state, seat) if m.type.value in SIDE]
            if side:
                move = side[0]
                break
        if move is None:
            actor = state.pending.player if state.pending is not None else state.current
            view = engine.view(state, actor)
            legal = engine.legal_moves(state, actor)
            searching = levels[actor] == "hard" and bots.searchable(
                bots.Ctx(actor, view, [], legal, engine.find_variant(variant))
            )
            start = time.process_time()
            move = bots.choose(levels[actor], view, seen[actor], legal, rnd, budget)
            if searching and len(legal) > 1:
                times.append(time.process_time() - start)
        state, events = engine.apply(state, move)
        for s in range(len(levels)):
            seen[s].extend(engine.redact_all(events, s))
    if not whole_game:
        return state.round_winner, times, state
    if state.phase is Phase.GAME_OVER and len(state.winners) == 1:
        return state.winners[0], times, state
    return None, times, state


def _job(
    args: tuple[str, int, str, str, int, int, bool, Options],
) -> tuple[bool, bool, list[float]]:
    variant, players, strong, weak, game, budget, whole_game, options = args
    levels = seats_for(game, players, strong, weak)
    winner, times, _ = play(variant, levels, game, budget, whole_game, options)
    return winner is not None and levels[winner] == strong, winner is None, times


def run(
    games: int = 1000,
    variants: list[str] | None = None,
    player_counts: tuple[int, ...] = (2, 4),
    pairings: tuple[tuple[str, str], ...] = PAIRINGS,
    budget: int = bots.DEFAULT_BUDGET,
    processes: int = 2,
    unit: str = "game",
    options: Options = None,
) -> dict[str, Any]:
    """Every pairing's games; ``unit``: "game" (whole games to the target score, as
    sessions play them) or "round" (one round a game: cheaper, and a smaller edge);
    ``options``: the options of every game (None: the variant's defaults)."""
    if unit not in UNITS:
        raise ValueError(f"unit must be one of {', '.join(UNITS)}")
    ids = variants or [v.id for v in engine.all_variants()]
    rows: list[dict[str, Any]] = []
    with multiprocessing.Pool(processes) as pool:
        for vid in ids:
            variant = engine.find_variant(vid)
            for players in player_counts:
                if not variant.min_players <= players <= variant.max_players:
                    continue
                for strong, weak in pairings:
                    jobs = [
                        (vid, players, strong, weak, g, budget, unit == "game", options)
                        for g in range(games)
                    ]
                    t0 = time.perf_counter()
                    results = pool.map(_job, jobs, chunksize=max(1, games // 20))
                    wins = sum(r[0] for r in results)
                    stopped = sum(r[1] for r in results)
                    times = sorted(t for r in results for t in r[2])
                    lo, hi = wilson(wins, games)
                    row = {
                        "variant": vid,
                        "players": players,
                        "seats": f"1 {strong} vs {players - 1} {weak}",
                        "baseline": 1 / players,
                        "games": games,
                        "unit": unit,
                        "options": options,
                        "wins": wins,
                        "stopped": stopped,
                        "win_rate": wins / games,
                        "wilson95": [lo, hi],
                        "seconds": time.perf_counter() - t0,
                    }
                    if strong == "hard" and times:
                        row["hard_move_ms"] = {
                            "moves": len(times),
                            "median": statistics.median(times) * 1000,
                            "p99": times[min(len(times) - 1, int(len(times) * 0.99))] * 1000,
                            "budget": budget,
                        }
                    rows.append(row)
                    print_row(row)
    return {
        "games_per_pairing": games,
        "unit": unit,
        "budget": budget,
        "options": options,
        "rows": rows,
    }


def print_row(row: dict[str, Any]) -> None:
    lo, hi = row["wilson95"]
    cost = ""
    if "hard_move_ms" in row:
        h = row["hard_move_ms"]
        cost = f"   hard move {h['median']:.1f} / {h['p99']:.1f} ms CPU (median/p99)"
    print(
        f"  {row['variant']:17} {row['players']}p  {row['seats']:22} "
        f"{row['win_rate'] * 100:5.1f}%  [{lo * 100:4.1f}, {hi * 100:4.1f}]  "
        f"(baseline {row['baseline'] * 100:.0f}%, n={row['games']} {row['unit']}s){cost}",
        flush=True,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000, help="games per pairing (default 1000)")
    parser.add_argument("--variants", default="", help="comma-separated variant ids (default: all)")
    parser.add_argument("--players", default="2,4", help="player counts (default 2,4)")
    parser.add_argument("--pairings", default="normal-easy,hard-normal")
    parser.add_argument("--budget", type=int, default=bots.DEFAULT_BUDGET, help="hard playouts")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument(
        "--options", type=json.loads, default=None, help="game options (JSON) for every game"
    )
    parser.add_argument(
        "--unit", choices=UNITS, default="game",
        help="game: whole games to the target score (default); round: one round a game",
    )  # fmt: skip
    args = parser.parse_args()
    pairings = tuple(tuple(p.split("-")) for p in args.pairings.split(","))
    run(
        args.games,
        [v for v in args.variants.split(",") if v] or None,
        tuple(int(p) for p in args.players.split(",")),
        pairings,  # type: ignore[arg-type]
        args.budget,
        args.processes,
        args.unit,
        args.options,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
