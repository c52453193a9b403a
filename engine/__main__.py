"""``python -m engine simulate --variant uno_classic --games N --seed S``; ``python -m
engine variants``; ``python -m engine replay FILE`` (verify a game record).

A usage error (an unknown variant, a player count outside the variant's range, a bad
option, a file that cannot be read) is one line on stderr and exit status 2, never a
traceback. ``replay`` exits 0 when the record verifies and 1 when it is refused (the
reason on stderr: malformed, an illegal move, a result that differs).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import NoReturn

from .errors import EngineError, SetupError
from .records import RecordError, replay
from .registry import all_variants
from .simulate import simulate

DESCRIPTION = (
    "The rules engine from the command line: simulate plays random legal games of one "
    "variant and prints their speed and a summary; variants lists the games."
)


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="python -m engine", description=DESCRIPTION)
    sub = parser.add_subparsers(dest="command", required=True, metavar="{simulate,variants,replay}")
    sim = sub.add_parser(
        "simulate",
        help="play random legal games and report speed",
        description="Play random legal games through the validating apply (every seat "
        "picks uniformly among its legal moves) and print games/s, moves/s and a summary.",
    )
    sim.add_argument(
        "--variant",
        default="uno_classic",
        choices=[v.id for v in all_variants()],
        help="the game (default: uno_classic)",
    )
    sim.add_argument("--games", type=int, default=100, help="games to play (default: 100)")
    sim.add_argument("--seed", type=int, default=0, help="seed of the run (default: 0)")
    sim.add_argument(
        "--players", type=int, default=None, help="seats (default: random per game, at most 6)"
    )
    sim.add_argument("--target", type=int, default=None, help="override the target score")
    sim.add_argument("--json", action="store_true", help="print the summary as JSON")
    sub.add_parser("variants", help="list the variants", description="List the variants.")
    rep = sub.add_parser(
        "replay",
        help="verify a game record",
        description="Replay a game record (docs/records.md) from its setup: every move must "
        "be legal and every stated result right. Exit 0 verified, 1 refused (the reason on "
        "stderr), 2 bad usage.",
    )
    rep.add_argument("file", help="the record (JSON; - for standard input)")
    rep.add_argument("--json", action="store_true", help="print the final state and score")
    args = parser.parse_args(argv)
    if args.command == "replay":
        return _replay(rep, args.file, args.json)
    if args.command == "variants":
        for v in all_variants():
            print(f"{v.id:18} {v.title} ({v.players_text()}, target {v.target})")
        return 0
    if args.games < 1:
        sim.error("--games must be at least 1")
    options = {"target": args.target} if args.target is not None else None
    try:
        result = simulate(args.variant, args.games, args.seed, args.players, options)
    except SetupError as exc:  # the engine's own check of players and options
        sim.error(exc.detail)
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


def _replay(parser: OneLineParser, path: str, as_json: bool) -> int:
    try:
        raw = sys.stdin.buffer.read() if path == "-" else open(path, "rb").read()  # noqa: SIM115
    except OSError as exc:
        parser.error(f"cannot read {path}: {exc.strerror}")
    try:
        done = replay(json.loads(raw))
    except (ValueError, RecursionError) as exc:  # not JSON (json's errors are ValueErrors)
        print(f"refused: invalid_json: {path} is not JSON: {exc}", file=sys.stderr)
        return 1
    except RecordError as exc:
        index = exc.context.get("index")
        where = f" at move {index}" if isinstance(index, int) and index >= 0 else ""
        reason = exc.context.get("reason")
        because = f" ({reason['code']})" if isinstance(reason, dict) else ""
        print(f"refused{where}: {exc.code}{because}: {exc.detail}", file=sys.stderr)
        return 1
    except EngineError as exc:  # a malformed record, a setup the variant refuses
        field = exc.context.get("field")
        print(f"refused: {exc.code}{f' ({field})' if field else ''}: {exc.detail}", file=sys.stderr)
        return 1
    score, state = done.score, done.state
    if as_json:
        from .serialize import to_dict

        print(json.dumps({"state": to_dict(state), "score": score}))
    else:
        print(
            f"verified: {state.variant}, {state.num_players} players, {state.move_count} moves, "
            f"round {score['round']}, scores {score['scores']}"
            + (f", winners {score['winners']}" if score["game_over"] else ", not over")
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
