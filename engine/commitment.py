"""Seed commitments: the SHA-256 that fixes a game's seed before anyone may see it.

The hashed bytes are ``uno-rules-seed-v1:<game id>:<seed>`` (ASCII; ``<seed>`` in
decimal, no leading zeros), hex-encoded lowercase. The service publishes it while a
game runs (``service.fairness``); a game record carries it and ``engine.replay``
checks it. This is the one place it is computed.
"""

from __future__ import annotations

import hashlib

COMMITMENT_PREFIX = "uno-rules-seed-v1"


def commitment_input(game_id: str, seed: int) -> bytes:
    """The exact bytes hashed for ``game_id`` and ``seed``."""
    return f"{COMMITMENT_PREFIX}:{game_id}:{seed}".encode("ascii")


def commitment(game_id: str, seed: int) -> str:
    return hashlib.sha256(commitment_input(game_id, seed)).hexdigest()
