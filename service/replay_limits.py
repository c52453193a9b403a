"""What one ``POST /v1/games/replay`` request may hold (issue 46): a record is verified
in pages (``service.replay_resume``) of at most ``REPLAY_PAGE_MOVES`` moves (default
``DEFAULT_PAGE_MOVES``). The heaviest page (DOS, random play) costs a gunicorn worker
about 15 ms of CPU, under the 20 ms a request may cost (docs/security.md). What a body
may hold while it is read (bytes, JSON values, keys, string and digit lengths) is
derived from the page, not from ``SESSION_MAX_MOVES``: a body of any shape within them
costs no more to read than the heaviest page."""

from __future__ import annotations

from service.jsonscan import Bounds

#: Moves one replay request plays at most (``REPLAY_PAGE_MOVES``).
DEFAULT_PAGE_MOVES = 200
#: What a replay body may hold, derived from what a page of the heaviest legal record
#: needs. JSON values (as ``JsonScan`` counts them: containers and commas) per move and
#: besides the moves: random games hold 7 to 9 a move; the heaviest entry (a DOS double
#: match with its target and cards, a hidden field) with a round result of ten seats
#: every 7 moves holds 23.0 (tests/service/test_replay.py). Keys per move: that record
#: holds 17.4. Bytes: that entry weighs 240 bytes compact, 543 pretty-printed with an
#: indent of 2. Numbers: card ids, seats, points (the seed is a string).
REPLAY_VALUES_PER_MOVE = 24
REPLAY_SPARE_VALUES = 4096
REPLAY_KEYS_PER_MOVE = 20
REPLAY_SPARE_KEYS = 1024
REPLAY_BYTES_PER_MOVE = 640
REPLAY_SPARE_BYTES = 32 * 1024
#: The longest string a replay body holds: a ``resume`` token (a sealed state of a few
#: hundred bytes; a name is at most 40 characters). No bound on one object's keys:
#: counting them walks every container in Python, and the keys in all are bounded.
RESUME_MAX_CHARS = 4096
REPLAY_BOUNDS = {"string": RESUME_MAX_CHARS, "digits": 32}


def replay_max_values(page_moves: int) -> int:
    """The most JSON values a replay body may hold: what a page of ``page_moves``
    moves needs, so a body of any other shape costs no more to read than such a page."""
    return REPLAY_VALUES_PER_MOVE * page_moves + REPLAY_SPARE_VALUES


def replay_bounds(page_moves: int) -> Bounds:
    """The rest of what a replay body may hold: keys, as a page of ``page_moves``
    moves needs them, and ``REPLAY_BOUNDS``."""
    return Bounds(keys=REPLAY_KEYS_PER_MOVE * page_moves + REPLAY_SPARE_KEYS, **REPLAY_BOUNDS)


def replay_max_bytes(page_moves: int) -> int:
    """``REPLAY_MAX_CONTENT_LENGTH``'s default: a page of ``page_moves`` of the heaviest
    entries, pretty-printed, with its setup and a resume token."""
    return REPLAY_BYTES_PER_MOVE * page_moves + REPLAY_SPARE_BYTES
