"""Quick match across replicas (two gunicorn instances of two workers each, the
production config, on one Redis; ``benchmarks/quick_match.py``'s crowd): four phones
asking for classic UNO for four within a second sit at one table, dealt, no bot; 200
tickets of mixed variants and seats sent at once end at tables that respect every
ticket, none seated twice, none waiting past its wait."""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import pytest

from benchmarks.quick_match import Asked, crowd, instances, mixed_requests, settle
from benchmarks.servers import over_http
from tests.redis_procs import RedisServer, free_port, need_redis_server

pytestmark = [pytest.mark.redis, pytest.mark.slow]

#: How late a table may be dealt after its deadline: the sweepers run every 0.25 s on
#: each worker; a busy two-core machine adds its queueing.
LATE_SECONDS = 3.0


@pytest.fixture(scope="module")
def bases() -> Iterator[list[str]]:
    need_redis_server()
    server = RedisServer(free_port())
    server.start()
    try:
        with instances(server.url) as two:
            yield two
    finally:
        server.stop()


def seats_of(base: str, sid: str) -> dict[str, Any]:
    status, got = over_http(base, "GET", f"/v1/sessions/{sid}")
    assert status == 200, got
    return got


def test_four_phones_within_a_second_over_two_instances_sit_at_one_table(
    bases: list[str],
) -> None:
    asked = crowd(bases, [{"variant": "uno_classic", "seats": 4, "wait_seconds": 60}] * 4, 4)
    assert [a.status for a in asked] == [201] * 4
    assert {a.base for a in asked} == set(bases)
    settle(asked, time.monotonic() + 10)
    assert [a.final["status"] for a in asked] == ["matched"] * 4
    assert len({a.final["session_id"] for a in asked}) == 1
    table = seats_of(bases[0], asked[0].final["session_id"])
    assert table["status"] == "playing" and table["view"] is not None
    assert [s["bot"] for s in table["seats"]] == [False] * 4
    assert all(a.token for a in asked)


def fits(request: dict[str, Any], size: int) -> bool:
    seats = request["seats"]
    low, high = (seats, seats) if isinstance(seats, int) else (seats["min"], seats["max"])
    return low <= size <= high


def test_two_hundred_mixed_tickets_at_once_end_at_tables_that_respect_each(
    bases: list[str],
) -> None:
    asked = crowd(bases, mixed_requests(200), 16, first_phone=1000)
    assert [a.status for a in asked] == [201] * 200, [a.answer for a in asked if a.status != 201]
    settle(asked, time.monotonic() + 60)
    assert [a for a in asked if a.final["status"] != "matched"] == []
    assert all(a.token for a in asked)  # each holder got its seat's token
    tables: dict[str, list[Asked]] = defaultdict(list)
    for a in asked:
        tables[a.final["session_id"]].append(a)
    seats = [(a.final["session_id"], a.final["seat"]) for a in asked]
    assert len(set(seats)) == len(seats)  # no seat given twice
    for sid, here in tables.items():
        table = seats_of(bases[0], sid)
        assert table["status"] == "playing"
        size = len(table["seats"])
        for a in here:
            assert a.request["variant"] == table["variant"]
            assert fits(a.request, size), (a.request, size)
            person = table["seats"][a.final["seat"]]
            assert person["bot"] is False and person["open"] is False
        people = sum(1 for s in table["seats"] if s["bot"] is False)
        assert people == len(here)  # every person there holds one of these tickets
        matched = max(_at(a.final["matched_at"]) for a in here)
        deadline = min(_at(a.final["deadline"]) for a in here)
        assert matched <= deadline + LATE_SECONDS, (sid, matched - deadline)
        if people < size:  # bots came: not before the table's deadline
            assert matched >= deadline - 0.01
    opened_while_open(asked)


def opened_while_open(asked: list[Asked]) -> None:
    """No ticket opened a table while an older table it fits, of its variant, was still
    open (seated and dealt times are the service's, taken under the queue's lock)."""
    tables: dict[str, dict[str, Any]] = {}
    for a in asked:
        t = a.final
        row = tables.setdefault(t["session_id"], {"variant": t["variant"], "opened": None})
        row["dealt"] = _at(t["matched_at"])
        if t["seat"] == 0:
            row["opened"] = _at(t["seated_at"])
            row["size"] = max(t["seats"]["max"], 0)
    for a in asked:
        t = a.final
        if t["seat"] != 0:
            continue
        opened = _at(t["seated_at"])
        for sid, other in tables.items():
            if sid == t["session_id"] or other["variant"] != t["variant"]:
                continue
            if fits(a.request, other["size"]) and other["opened"] < opened < other["dealt"]:
                raise AssertionError(f"{t['ticket_id']} opened a table while {sid} was open")


def _at(stamp: str) -> float:
    from benchmarks.quick_match import _at as parse

    return parse(stamp)
