"""``python -m engine simulate --variant uno_classic --games N --seed S``."""

from __future__ import annotations

import argparse
import json
import sys

from .registry import all_variants
from .simulate import simulate


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sim = sub.add_parser("simulate", help="play random legal games and report speed")
    sim.add_argument("--variant", default="uno_classic", choices=[v.id for v in all_variants()])
    sim.add_argument("--games", type=int, default=100)
    sim.add_argument("--seed", type=int, default=0)
    sim.add_argument("--players", type=int, default=None, help="seats (default: random per game)")
    sim.add_argument("--target", type=int, default=None, help="override the target score")
    sim.add_argument("--json", action="store_true", help="print the summary as JSON")
    sub.add_parser("variants", help="list the variants")
    args = parser.parse_args(argv)
    if args.command == "variants":
        for v in all_variants():
            print(
                f"{v.id:18} {v.title} ({v.min_players}-{v.max_players} players, target {v.target})"
            )
        return 0
    if args.games < 1:
        parser.error("--games must be at least 1")
    options = {"target": args.target} if args.target else None
    result = simulate(args.variant, args.games, args.seed, args.players, options)
    summary = result.summary()
    if args.json:
        print(json.dumps(summary))
    else:
        print(
            f"{summary['variant']}: {summary['games']} games, {summary['rounds']} rounds, "
            f"{summary['moves']} moves in {summary['cpu_seconds']} CPU s"
        )
        print(f"  games/s {summary['games_per_second']}   moves/s {summary['moves_per_second']}")
        print(
            f"  moves per game {summary['moves_per_game']}   wins by seat {summary['wins_by_seat']}"
        )
        print(f"  move types {summary['move_types']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
