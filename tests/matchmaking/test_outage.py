"""A match store that cannot be reached, or a queue whose lock is held too long: 503
``store_unavailable`` with ``Retry-After`` (a problem, never a 500), logged; nothing
kept."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager

import pytest

from service.matchmaking.errors import QueueBusy
from service.matchmaking.store import MemoryMatchStore
from service.redis.client import StoreUnavailable
from tests.matchmaking.conftest import BASE, Phone, faults
from tests.sessions.conftest import make_app


class Unreachable(MemoryMatchStore):
    def admit(self, client: str, ticket_id: str, until: float, limit: int, now: float) -> bool:
        raise StoreUnavailable("connection refused")


class Busy(MemoryMatchStore):
    def locked(self, queue: str) -> AbstractContextManager[None]:
        raise QueueBusy("the match queue is busy; try again shortly", retry_after=1)


@pytest.fixture(params=[Unreachable, Busy])
def store(request: pytest.FixtureRequest) -> Iterator[MemoryMatchStore]:
    store = request.param()
    yield store
    store.close()


def test_a_store_that_cannot_answer_is_a_503_problem(
    store: MemoryMatchStore, capsys: pytest.CaptureFixture[str]
) -> None:
    app = make_app({"TESTING": True, **BASE, "MATCH_STORE": store})
    phone = Phone(app.test_client(), 1)
    r = phone.play(seats=2)
    assert r.status_code == 503 and r.mimetype == "application/problem+json"
    assert r.get_json()["code"] == "store_unavailable"
    assert r.headers["Retry-After"] == "1"
    rid = r.headers["X-Request-ID"]
    assert faults(capsys.readouterr().err, rid), "the fault is logged with the request id"
    assert store.waiting() == 0
    app.extensions["sessions"].store.close()
