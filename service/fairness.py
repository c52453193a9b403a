"""Seed commitments: a seat can check that its game's shuffles were fixed in advance.

While a game runs, no seat may learn its seed (the seed determines every shuffle, so
it would show every hand). A seat gets instead, from the first answer on, a
commitment: the SHA-256 of

    uno-rules-seed-v1:<game id>:<seed>

(ASCII; ``<game id>`` as the answer names it, ``<seed>`` in decimal, no leading
zeros), hex-encoded lowercase. When the game is over the seed itself is revealed (as
a decimal string: hidden seeds are 64-bit, beyond a JavaScript number), and
anyone can recompute the hash::

    printf 'uno-rules-seed-v1:%s:%s' "$GAME_ID" "$SEED" | sha256sum

The game id is the session id for a session, and a random id made at create for a
seat-bound sealed game (kept inside its state token). It is in the hashed bytes so one
commitment cannot be reused for another game.
"""

from __future__ import annotations

import secrets
from typing import Any

from engine import Phase, State
from engine.commitment import COMMITMENT_PREFIX, commitment, commitment_input

__all__ = ["COMMITMENT_PREFIX", "commitment", "commitment_input", "new_game_id", "seed_commitment"]


def new_game_id() -> str:
    return secrets.token_urlsafe(16)


def seed_commitment(game_id: str, state: State) -> dict[str, Any]:
    """``{game_id, sha256, seed}``: ``seed`` (decimal string) is null until the game is over."""
    over = state.phase is Phase.GAME_OVER
    return {
        "game_id": game_id,
        "sha256": commitment(game_id, state.seed),
        "seed": str(state.seed) if over else None,
    }
