"""Seed commitments: the SHA-256 that fixes a game's seed before anyone may see it.

The hashed bytes are ``uno-rules-seed-v2:<game id>:<nonce>:<seed>`` (ASCII; ``<nonce>``
32 lowercase hex digits the service drew at random for the game and keeps secret until
its end, ``<seed>`` in decimal, no leading zeros), hex-encoded lowercase. The nonce makes
the hash impossible to invert by trying seeds, even a seed of a few digits a client
chose. A game without a nonce (a seat-bound sealed game, whose seed has 64 random bits;
a session stored before nonces) hashes ``uno-rules-seed-v1:<game id>:<seed>``. The
service publishes it while a game runs (``service.fairness``); a game record carries it
and ``engine.replay`` checks it. This is the one place it is computed.
"""

from __future__ import annotations

import hashlib
import re

COMMITMENT_PREFIX = "uno-rules-seed-v1"
NONCE_PREFIX = "uno-rules-seed-v2"
#: A nonce as the service draws it (128 bits).
NONCE = re.compile(r"[0-9a-f]{32}")


def commitment_input(game_id: str, seed: int, nonce: str | None = None) -> bytes:
    """The exact bytes hashed for ``game_id``, ``seed`` and ``nonce``."""
    if nonce is None:
        return f"{COMMITMENT_PREFIX}:{game_id}:{seed}".encode("ascii")
    return f"{NONCE_PREFIX}:{game_id}:{nonce}:{seed}".encode("ascii")


def commitment(game_id: str, seed: int, nonce: str | None = None) -> str:
    return hashlib.sha256(commitment_input(game_id, seed, nonce)).hexdigest()
