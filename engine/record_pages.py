"""A long record replayed in pages (docs/records.md): what binds the pages to one
record, and a record cut into pages.

``replay(page, start=Progress(...))`` (``engine.records``) plays a later page on from
where the pages before it stopped. The caller keeps that place between requests (the
service seals it into a ``resume`` token) with ``setup_digest(record)``, so a place
reached in one record is never played on with another's setup.

``pages(record, size)``: the record as the bodies to send, ``size`` moves each: every
page holds the record's setup, its ``moves`` and the ``rounds`` that end within those
moves; the last page holds the ``result``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

#: The fields of a record that set its game up: every page states them alike.
SETUP_FIELDS = ("record", "variant", "options", "players", "dealer", "seed", "deck",
                "seed_commitment")  # fmt: skip


def setup_digest(raw: Mapping[str, Any]) -> str:
    """The SHA-256 (hex) of a record's setup (``SETUP_FIELDS``; a field left out is
    null), written as canonical JSON: two pages share it exactly when they state the
    same game."""
    setup = {name: raw.get(name) for name in SETUP_FIELDS}
    text = json.dumps(setup, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()


def round_ends(moves: list[Mapping[str, Any]], rounds: int) -> list[int]:
    """The index of the move that ends each of a record's first ``rounds`` finished
    rounds: once a round is over the only legal move is ``next_round``, so a round
    ends at the move before each ``next_round``; a round stated after the last of
    them (the game's last round, or one over and not yet followed) ends at the last
    move."""
    ends = [i - 1 for i, m in enumerate(moves) if m["move"]["type"] == "next_round"]
    while len(ends) < rounds:
        ends.append(len(moves) - 1)
    return ends[:rounds]


def pages(record: Mapping[str, Any], size: int) -> list[dict[str, Any]]:
    """``record`` cut into pages of at most ``size`` moves (one page for a record of no
    move): each with the setup, its moves, the rounds that end within them and, on
    the last page, the record's ``result`` when it states one."""
    if size < 1:
        raise ValueError(f"a page holds at least one move, not {size}")
    setup = {k: record[k] for k in SETUP_FIELDS if k in record}
    moves = list(record["moves"])
    stated = list(record.get("rounds") or [])
    ends = round_ends(moves, len(stated))
    out = []
    for first in range(0, max(len(moves), 1), size):
        last = first + size - 1
        page: dict[str, Any] = {**setup, "moves": moves[first : last + 1]}
        if "rounds" in record:
            page["rounds"] = [
                r for r, end in zip(stated, ends, strict=True) if first <= end <= last
            ]
        out.append(page)
    if "result" in record:
        out[-1]["result"] = record["result"]
    return out
