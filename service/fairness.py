"""Seed commitments: a seat can check that its game's shuffles were fixed in advance.

While a game runs, no seat may learn its seed (the seed determines every shuffle, so
it would show every hand). A seat gets instead, from the first answer on, a
commitment: the SHA-256 of

    uno-rules-seed-v2:<game id>:<nonce>:<seed>

(ASCII; ``<game id>`` as the answer names it, ``<nonce>`` 32 lowercase hex digits the
service drew at random for the game, ``<seed>`` in decimal, no leading zeros),
hex-encoded lowercase. The nonce is hidden information like the seed: without it a
seed of a few digits (one a client chose) would be found by trying them all. When the
game is over the seed (as a decimal string: hidden seeds are 64-bit, beyond a
JavaScript number) and the nonce are revealed, and anyone can recompute the hash::

    printf 'uno-rules-seed-v2:%s:%s:%s' "$GAME_ID" "$NONCE" "$SEED" | sha256sum

The game id is the session id for a session, and a random id made at create for a
seat-bound sealed game (kept inside its state token; such a game has 64 random bits
of seed and no nonce: ``uno-rules-seed-v1:<game id>:<seed>``, ``nonce`` null). It is in
the hashed bytes so one commitment cannot be reused for another game.
"""

from __future__ import annotations

import secrets
from typing import Any

from engine import Phase, State
from engine.commitment import COMMITMENT_PREFIX, NONCE_PREFIX, commitment, commitment_input

__all__ = [
    "COMMITMENT_PREFIX", "NONCE_PREFIX", "commitment", "commitment_input", "new_game_id",
    "new_nonce", "seed_commitment",
]  # fmt: skip


def new_game_id() -> str:
    return secrets.token_urlsafe(16)


def new_nonce() -> str:
    """A game's secret nonce (128 random bits, 32 lowercase hex digits)."""
    return secrets.token_hex(16)


def seed_commitment(game_id: str, state: State, nonce: str | None = None) -> dict[str, Any]:
    """``{game_id, sha256, seed, nonce}``: ``seed`` (decimal string) and ``nonce`` are
    null until the game is over."""
    over = state.phase is Phase.GAME_OVER
    return {
        "game_id": game_id,
        "sha256": commitment(game_id, state.seed, nonce),
        "seed": str(state.seed) if over else None,
        "nonce": nonce if over else None,
    }
