"""Random legal games through the validating ``apply``: a smoke test and a speed gauge."""

from __future__ import annotations

import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .moves import MoveType
from .registry import find_variant
from .state import Phase


@dataclass
class SimulationResult:
    variant: str
    games: int = 0
    moves: int = 0
    rounds: int = 0
    cpu_seconds: float = 0.0
    wins_by_seat: Counter[int] = field(default_factory=Counter)
    move_types: Counter[str] = field(default_factory=Counter)

    def summary(self) -> dict[str, Any]:
        cpu = self.cpu_seconds or 1e-9
        return {
            "variant": self.variant,
            "games": self.games,
            "rounds": self.rounds,
            "moves": self.moves,
            "cpu_seconds": round(self.cpu_seconds, 3),
            "games_per_second": round(self.games / cpu, 2),
            "moves_per_second": round(self.moves / cpu),
            "moves_per_game": round(self.moves / max(self.games, 1), 1),
            "wins_by_seat": dict(sorted(self.wins_by_seat.items())),
            "move_types": dict(self.move_types.most_common()),
        }


def simulate(
    variant_id: str,
    games: int,
    seed: int,
    players: int | None = None,
    options: dict[str, Any] | None = None,
) -> SimulationResult:
    """Play ``games`` random games (each seat picks uniformly among its legal moves)."""
    variant = find_variant(variant_id)
    rnd = random.Random(seed)
    result = SimulationResult(variant_id)
    legal_moves, apply, encode = variant.legal_moves, variant.apply, variant.encode_move
    start = time.process_time()
    for _ in range(games):
        n = players or rnd.randint(variant.min_players, min(variant.max_players, 6))
        state, _ = variant.new_game(n, rnd.randrange(2**53), options=options)
        while state.phase is not Phase.GAME_OVER:
            if state.phase is Phase.ROUND_OVER:
                result.rounds += 1
                seat = 0
            else:
                seat = state.pending.player if state.pending is not None else state.current
            moves = legal_moves(state, seat)
            move = moves[int(rnd.random() * len(moves))]
            # Moves are listed in catalog ids; apply takes what a seat sees (UNO Flip: labels).
            state, _ = apply(state, encode(state, move))
            result.moves += 1
            result.move_types[move.type.value] += 1
        result.rounds += 1
        result.games += 1
        for w in state.winners:
            result.wins_by_seat[w] += 1
    result.cpu_seconds = time.process_time() - start
    return result


__all__ = ["simulate", "SimulationResult", "MoveType"]
