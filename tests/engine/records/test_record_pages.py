"""A record in pages (``engine.record_pages``): cut with ``pages``, each page played on
from the place the pages before reached (``replay(page, start=...)``), for every
variant: the same final state, events and rounds as one replay of the whole record;
``setup_digest`` tells two setups apart by any of their fields."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from engine.record_pages import SETUP_FIELDS, pages, setup_digest
from engine.records import replay
from tests.support import long_random_record


def random_record(variant: str, moves: int, seed: int = 5) -> dict[str, Any]:
    """A random game of its variant's most seats (up to six) to a low target: many rounds end."""
    seats = min(engine.records.find_variant(variant).max_players, 6)
    return long_random_record(variant, seats, moves, seed)


@pytest.mark.parametrize("variant", [v.id for v in engine.all_variants()])
def test_a_record_in_pages_replays_as_one(variant: str) -> None:
    rec = random_record(variant, 700)
    whole = replay(rec)
    cut = pages(rec, 64)
    assert [m for p in cut for m in p["moves"]] == rec["moves"]
    assert [r for p in cut for r in p["rounds"]] == rec["rounds"] and rec["rounds"]
    assert all(len(p["moves"]) <= 64 for p in cut)
    assert all({k: p.get(k) for k in SETUP_FIELDS} == {k: rec.get(k) for k in SETUP_FIELDS}
               for p in cut)  # fmt: skip
    assert "result" not in cut[0] and cut[-1]["result"] == rec["result"]
    start, events = None, []
    for page in cut:
        done = replay(page, 64, start)
        events += done.events
        start = done.progress
    assert start is not None
    assert start.state == whole.state and events == whole.events
    assert (start.moves, start.rounds) == (len(rec["moves"]), len(rec["rounds"]))
    assert whole.progress.rounds == len(rec["rounds"])


def test_a_later_pages_refusal_names_the_records_move() -> None:
    rec = random_record("uno_classic", 300)
    first, second = pages(rec, 100)[:2]
    start = replay(first, 100).progress
    moves = [*second["moves"][:7], {"by": "player", "move": {"type": "next_round", "player": 0}}]
    with pytest.raises(engine.RecordError) as err:
        replay({**second, "moves": moves, "rounds": []}, 100, start)
    assert err.value.code == "record_move_illegal" and err.value.context["index"] == 107


def test_the_setup_digest_tells_setups_apart() -> None:
    rec = random_record("uno_classic", 10)
    digest = setup_digest(rec)
    assert setup_digest({**rec, "moves": [], "rounds": None}) == digest  # not the setup
    assert setup_digest({**rec, "options": None}) != digest
    changed = {"variant": "uno_flip", "seed": "6", "dealer": 1, "deck": [1, 2],
               "players": rec["players"][::-1] + [{"name": "X", "bot": False}],
               "seed_commitment": {"game_id": "g", "sha256": "0" * 64}, "record": 2}  # fmt: skip
    assert set(changed) == set(SETUP_FIELDS) - {"options"}
    for field, value in changed.items():
        assert setup_digest({**rec, field: value}) != digest, field


def test_a_page_holds_at_least_one_move() -> None:
    with pytest.raises(ValueError):
        pages(random_record("uno_classic", 3), 0)
    empty = engine.record("uno_classic", 2, 1, [])
    assert pages(empty, 10) == [{k: empty[k] for k in SETUP_FIELDS if k in empty}
                                | {"moves": [], "rounds": [], "result": None}]  # fmt: skip
