"""The ``resume`` token that carries a replay of a long record from one page to the next
(issue 46; pages: ``service.replay_limits``, docs/records.md).

A page's answer carries ``resume``: the state after it, the moves and rounds verified
so far and the digest of the record's setup (``engine.record_pages.setup_digest``),
sealed with the state-token keys (``service.sealing``, prefix ``rp1``: it opens on any
replica holding the same keys, and never as a state token). The next page sends it
back with the same setup; a token that is not genuine is ``invalid_resume_token``, one
made for another record's setup ``resume_token_mismatch``. No Flask here: the route
(``service.games.replay``) turns ``ResumeError`` into its problem."""

from __future__ import annotations

from typing import Any

import orjson

import engine
from engine.record_pages import setup_digest
from engine.records import Progress
from service.replay_limits import RESUME_MAX_CHARS
from service.sealing import Keyring, SealError, seal, unseal

#: The field of a replay request (a page after the first) that holds the token.
RESUME_FIELD = "resume"
#: What a resume token's seal is named by (``service.sealing``): never a state token.
RESUME_PREFIX = "rp1"


class ResumeError(Exception):
    """A ``resume`` token that cannot continue this record (``code``: the problem's)."""

    def __init__(self, detail: str, code: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


def resume_token(ring: Keyring, record: dict[str, Any], progress: Progress) -> str:
    """The token a page answers: where the replay of ``record`` stands after it."""
    inner = {
        "setup": setup_digest(record),
        "s": engine.to_dict(progress.state),
        "moves": progress.moves,
        "rounds": progress.rounds,
    }
    token = seal(ring, orjson.dumps(inner), RESUME_PREFIX)
    if len(token) > RESUME_MAX_CHARS:  # a state is a few hundred bytes sealed: a bug
        raise RuntimeError(f"a resume token of {len(token)} characters: over {RESUME_MAX_CHARS}")
    return token


def open_resume(ring: Keyring, token: object, record: dict[str, Any]) -> Progress:
    """Where the replay of ``record`` stands, from the token a page before answered."""
    try:
        inner = orjson.loads(unseal(ring, token, RESUME_PREFIX, "resume"))
        digest, raw, moves, rounds = inner["setup"], inner["s"], inner["moves"], inner["rounds"]
    except SealError as e:
        raise ResumeError(e.detail, code="invalid_resume_token") from None
    except (orjson.JSONDecodeError, KeyError, TypeError):
        raise ResumeError(
            "resume does not hold a replay's place", code="invalid_resume_token"
        ) from None
    if digest != setup_digest(record):
        raise ResumeError(
            "resume was answered for another record: send the same variant, options, "
            "players, dealer, seed, deck and seed_commitment on every page",
            code="resume_token_mismatch",
        )
    return Progress(engine.from_dict(raw), moves, rounds)
