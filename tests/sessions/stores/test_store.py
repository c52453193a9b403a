"""The ``SessionStore`` contract, on ``MemoryStore`` and ``RedisStore`` alike."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator

import pytest

from service.sessions.memory import MemoryStore
from service.sessions.redis_store import RedisStore
from service.sessions.store import CommitRequest, Idem, SessionStore
from tests.sessions.conftest import store_url

IDEM = 8


@pytest.fixture
def store(store_kind: str, request: pytest.FixtureRequest) -> Iterator[SessionStore]:
    s: SessionStore
    url = store_url(store_kind, request)
    if url is None:
        s = MemoryStore(60, max_events=50, max_idem=IDEM)
    else:
        s = RedisStore(
            url, ttl=60, max_events=50, prefix=f"s{uuid.uuid4().hex[:6]}:", max_idem=IDEM
        )
    yield s
    s.close()


def test_create_then_load(store: SessionStore) -> None:
    assert store.load("nope") is None
    res = store.create("abc", b'{"m":1}', b'{"s":1}', [b'{"e":1}', b'{"e":2}'])
    assert (res.status, res.version, res.seq) == ("ok", 1, 2)
    got = store.load("abc")
    assert got is not None and (got.version, got.seq, got.state, got.meta) == (
        1, 2, b'{"s":1}', b'{"m":1}',
    )  # fmt: skip
    assert store.events("abc", 0, 10) == [(1, b'{"e":1}'), (2, b'{"e":2}')]


def test_the_move_log_grows_with_commits_only(store: SessionStore) -> None:
    store.create("abc", b"m", b"s1", [], [b"bot1"])
    assert (
        store.commit(CommitRequest("abc", 1, b"s2", [b"e"], moves=[b"p1", b"bot2"])).status == "ok"
    )
    assert store.commit(CommitRequest("abc", 1, b"sx", [], moves=[b"late"])).status == "conflict"
    idem = Idem("0:k", b"answer")
    assert store.commit(CommitRequest("abc", 2, b"s3", [], idem, moves=[b"p2"])).status == "ok"
    assert (
        store.commit(CommitRequest("abc", 2, b"s3", [], idem, moves=[b"p2"])).status == "replayed"
    )
    assert store.moves("abc") == [b"bot1", b"p1", b"bot2", b"p2"]
    assert store.commit(CommitRequest("abc", 3, b"s4", [], meta=b"m2")).status == "ok"
    got = store.load("abc")
    assert got is not None and (got.meta, got.state) == (b"m2", b"s4")
    assert store.moves("nope") == []
    assert store.delete("abc") and store.moves("abc") == []


def test_version_is_the_stored_version_alone(store: SessionStore) -> None:
    assert store.version("abc") is None
    store.create("abc", b"m", b"s1", [b"e"])
    assert store.version("abc") == 1
    assert store.commit(CommitRequest("abc", 1, b"s2", [b"e2"])).status == "ok"
    assert store.version("abc") == 2
    assert store.delete("abc") and store.version("abc") is None


def test_commit_is_a_compare_and_set(store: SessionStore) -> None:
    store.create("abc", b"m", b"s1", [b"e1"])
    assert store.commit(CommitRequest("abc", 2, b"sx", [b"x"])).status == "conflict"
    res = store.commit(CommitRequest("abc", 1, b"s2", [b"e2", b"e3"]))
    assert (res.status, res.version, res.seq) == ("ok", 2, 3)
    res = store.commit(CommitRequest("abc", 1, b"sy", [b"y"]))
    assert (res.status, res.version, res.seq) == ("conflict", 2, 3)
    assert store.load("abc").state == b"s2"  # type: ignore[union-attr]
    assert [s for s, _ in store.events("abc", 0, 10)] == [1, 2, 3]
    assert store.events("abc", 2, 10) == [(3, b"e3")]
    assert store.commit(CommitRequest("zzz", 1, b"s", [])).status == "missing"


def test_an_idempotent_answer_is_returned_instead_of_a_second_write(store: SessionStore) -> None:
    store.create("abc", b"m", b"s1", [])
    assert (
        store.commit(CommitRequest("abc", 1, b"s2", [b"e"], Idem("0:k", b"answer"))).status == "ok"
    )
    res = store.commit(CommitRequest("abc", 1, b"s3", [b"f"], Idem("0:k", b"other")))
    assert (res.status, res.answer) == ("replayed", b"answer")
    assert store.load("abc", "0:k").idem == b"answer"  # type: ignore[union-attr]
    assert store.load("abc", "1:k").idem is None  # type: ignore[union-attr]
    assert store.load("abc").version == 2  # type: ignore[union-attr]


def test_concurrent_commits_on_one_version_apply_once(store: SessionStore) -> None:
    store.create("abc", b"m", b"s", [])
    n = 10
    barrier = threading.Barrier(n)
    out: list[str] = [""] * n

    def go(i: int) -> None:
        barrier.wait()
        out[i] = store.commit(CommitRequest("abc", 1, f"s{i}".encode(), [f"e{i}".encode()])).status

    threads = [threading.Thread(target=go, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(out) == ["conflict"] * (n - 1) + ["ok"]
    assert len(store.events("abc", 0, 100)) == 1


def test_the_log_keeps_at_most_max_events(store: SessionStore) -> None:
    store.create("abc", b"m", b"s", [])
    for v in range(1, 76):
        store.commit(CommitRequest("abc", v, b"s", [b"a", b"b", b"c", b"d"]))
    rows = store.events("abc", 0, 1000)
    seqs = [s for s, _ in rows]
    assert seqs[-1] == 300 and seqs == list(range(seqs[0], 301))
    assert 50 <= len(rows) < 300  # Redis trims whole stream nodes (MAXLEN ~)


def test_delete(store: SessionStore) -> None:
    store.create("abc", b"m", b"s", [b"e"])
    assert store.delete("abc") is True
    assert store.load("abc") is None and store.events("abc", 0, 10) == []
    assert store.delete("abc") is False


def test_a_subscription_wakes_on_commit(store: SessionStore) -> None:
    store.create("abc", b"m", b"s", [])
    with store.subscribe("abc") as sub:
        assert sub.wait(0.05) is False
        t = threading.Timer(0.1, lambda: store.commit(CommitRequest("abc", 1, b"s", [b"e"])))
        t.start()
        assert sub.wait(5) is True
        t.join()
        assert sub.wait(0.05) is False


def test_memory_sessions_expire_on_a_monotonic_clock() -> None:
    now = [100.0]
    s = MemoryStore(10, 100, clock=lambda: now[0])
    s.create("abc", b"m", b"s", [])
    now[0] += 9
    assert s.commit(CommitRequest("abc", 1, b"s", [])).status == "ok"  # refreshes
    now[0] += 9
    assert s.load("abc") is not None
    now[0] += 1.5
    assert s.load("abc") is None


def test_a_load_brings_the_bots_history_from_where_it_starts(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.create("abc", b"m", b"s1", [b"e1", b"e2", b"e3"], history_from=2)
    got = store.load("abc")
    assert got is not None and (got.history_from, got.history) == (2, (b"e2", b"e3"))
    # The caller holds the history of the version read: none is read.
    held = store.load("abc", history_known=1)
    assert held is not None and (held.history_from, held.history) == (2, None)
    assert (
        store.commit(CommitRequest("abc", 1, b"s2", [b"e4", b"e5"], history_from=2)).status == "ok"
    )
    stale = store.load("abc", history_known=1)  # held for version 1, the session is at 2
    assert stale is not None and stale.history == (b"e2", b"e3", b"e4", b"e5")
    # A new round: the history starts afresh, and only the newest HISTORY_EVENTS come.
    monkeypatch.setattr("service.sessions.memory.HISTORY_EVENTS", 2)
    monkeypatch.setattr("service.sessions.redis_store.HISTORY_EVENTS", 2)
    assert (
        store.commit(CommitRequest("abc", 2, b"s3", [b"r1", b"r2", b"r3"], history_from=6)).status
        == "ok"
    )
    got = store.load("abc")
    assert got is not None and (got.history_from, got.history) == (6, (b"r2", b"r3"))
    # No bot needs one: none is read.
    assert store.commit(CommitRequest("abc", 3, b"s4", [b"x"], history_from=0)).status == "ok"
    got = store.load("abc")
    assert got is not None and (got.history_from, got.history) == (0, None)


def test_stored_counts_the_bytes_of_events_and_moves(store: SessionStore) -> None:
    store.create("abc", b"m", b"s1", [b"e1", b"e22"], [b"m1"])
    assert (loaded := store.load("abc")) is not None and loaded.stored == 7
    assert store.commit(CommitRequest("abc", 1, b"s2", [b"e333"], moves=[b"m22"])).status == "ok"
    assert store.commit(CommitRequest("abc", 1, b"sx", [b"lost"])).status == "conflict"
    assert (loaded := store.load("abc")) is not None and loaded.stored == 14


def test_claims_hold_so_many_members_until_released_or_expired(store: SessionStore) -> None:
    now = 1_800_000_000_000
    assert store.claim("q", "a", 2, now + 1000, now)
    assert store.claim("q", "b", 2, now + 5000, now)
    assert not store.claim("q", "c", 2, now + 1000, now)
    assert store.claim("q", "a", 2, now + 2000, now)  # held already: held on, not refused
    assert sorted(store.claimed("q", now)) == ["a", "b"]
    store.release("q", "a")
    store.release("q", "nobody")
    assert store.claim("q", "c", 2, now + 1000, now)
    assert not store.claim("other", "x", 0, now + 1000, now)
    # At now + 1500 "c" has expired: its place is free, "b" is still held.
    assert sorted(store.claimed("q", now + 1500)) == ["b"]
    assert store.claim("q", "d", 2, now + 9000, now + 1500)
    assert not store.claim("q", "e", 2, now + 9000, now + 1500)
