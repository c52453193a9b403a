"""Instructions per move, counted by valgrind's callgrind: a figure that does not move
with the machine's load (the same binary, inputs and seed give the same count).

Each player runs twice under callgrind, once playing no move and once playing
``moves`` moves of seeded random games (legal moves, a random pick, the validating
apply; for RLCard: legal actions, a random pick, ``step``); the difference divided
by ``moves`` is the cost of one move, start-up and imports cancelled out.

``python benchmarks/instructions.py [--moves N] [variant ...]``; ``run(moves) -> dict``.
Needs ``valgrind`` (Debian package); the section is skipped without it.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


#: The table size of the counted games: two players, as RLCard's UNO environment plays
#: (``rlcard.make("uno")``) and as the timed loop (``engine_bench``) plays.
PLAYERS = 2


def play_engine(variant_id: str, moves: int, players: int = PLAYERS) -> int:
    """``moves`` moves of seeded random games of ``variant_id`` (as engine_bench plays);
    returns the moves the games' states counted (``moves``, unless a step failed)."""
    sys.path.insert(0, str(ROOT))
    from benchmarks.engine_bench import GAME_OVER, random_step
    from engine import find_variant

    variant = find_variant(variant_id)
    players = min(max(players, variant.min_players), variant.max_players)
    rnd = random.Random(2026)
    state, _ = variant.new_game(players, 1)
    finished = 0
    for _ in range(moves):
        if state.phase is GAME_OVER:
            finished += state.move_count
            state, _ = variant.new_game(players, rnd.randrange(2**53))
        state = random_step(variant, state, rnd)
    return finished + state.move_count


def play_rlcard(moves: int, players: int = PLAYERS) -> None:
    """``moves`` moves of RLCard's UNO game API, seeded."""
    from rlcard.games.uno.game import UnoGame

    game = UnoGame(num_players=players)
    game.np_random.seed(2026)
    rnd = random.Random(2026)
    game.init_game()
    for _ in range(moves):
        if game.is_over():
            game.init_game()
        legal = game.get_legal_actions()
        game.step(legal[int(rnd.random() * len(legal))])


def count(player: str, moves: int) -> int:
    """Instructions callgrind counts for one run of ``player`` playing ``moves`` moves."""
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
         sys.executable, __file__, "--child", player, str(moves)],
        capture_output=True, text=True, check=True, cwd=ROOT,
        env={**os.environ, "PYTHONHASHSEED": "0"},  # str hashes vary the count otherwise
    )  # fmt: skip
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise RuntimeError(f"callgrind printed no total: {done.stderr[-500:]}")
    return int(found.group(1))


def per_move(player: str, moves: int) -> float:
    return (count(player, moves) - count(player, 0)) / moves


def rlcard_installed() -> bool:
    try:
        import rlcard  # noqa: F401
    except ImportError:
        return False
    return True


def run(moves: int = 3000, variants: list[str] | None = None) -> dict[str, Any]:
    if shutil.which("valgrind") is None:
        return {"skipped": "valgrind is not installed (apt-get install valgrind)"}
    if variants is None:
        sys.path.insert(0, str(ROOT))
        import engine

        variants = [v.id for v in engine.all_variants()]
    anchor = per_move("rlcard", moves) if rlcard_installed() else None
    out: dict[str, Any] = {"moves": moves, "rlcard_instructions_per_move": anchor, "variants": {}}
    for vid in variants:
        ours = per_move(vid, moves)
        out["variants"][vid] = {
            "instructions_per_move": ours,
            # How many of our moves fit in the instructions of one RLCard move.
            "speed_vs_rlcard": anchor / ours if anchor else None,
        }
    return out


def print_table(res: dict[str, Any]) -> None:
    print(
        f"\nEngine, instructions per move (callgrind, {res.get('moves', 0)} moves, load-independent)"
    )
    if "skipped" in res:
        print(f"  skipped: {res['skipped']}")
        return
    anchor = res["rlcard_instructions_per_move"]
    if anchor:
        print(f"  anchor  rlcard 1.2.0 UnoGame      {anchor:12,.0f} instructions/move   1.00x")
    for vid, row in res["variants"].items():
        ratio = f"{row['speed_vs_rlcard']:.2f}x" if row["speed_vs_rlcard"] else "   -"
        print(f"  {vid:31} {row['instructions_per_move']:12,.0f} instructions/move   {ratio}")


def main() -> int:
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        player, moves = sys.argv[2], int(sys.argv[3])
        if player == "rlcard":
            play_rlcard(moves)
        else:
            play_engine(player, moves)
        return 0
    parser = argparse.ArgumentParser(
        description="Instructions per move, counted by valgrind's callgrind (the same "
        "binary, inputs and seed give the same count, whatever the machine's load): each "
        "player runs once playing no move and once playing --moves moves of seeded random "
        "games; the difference divided by the moves is the cost of one move."
    )
    parser.add_argument("--moves", type=int, default=3000)
    parser.add_argument("variants", nargs="*", help="variant ids (default: all)")
    args = parser.parse_args()
    print_table(run(args.moves, args.variants or None))
    return 0


if __name__ == "__main__":
    sys.exit(main())
