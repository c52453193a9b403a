"""The two ``SessionStore`` implementations give the same answer to the same calls.

One sequence of calls over the whole interface (create, load with and without an
idempotency key, commit: ok, conflict, replayed, missing, the idempotency bound,
events, the move log, a new meta, delete, a re-create, the bots' history, the commit
ids) runs on a ``MemoryStore`` and on a ``RedisStore`` (one server, then the cluster:
through each slot's node, and through the cluster client only); every answer,
``Commit`` and ``Loaded`` values included, must be equal (a random commit id a store
made is compared as the order it first appeared in). The log is never trimmed here (Redis trims approximately: ``MAXLEN ~``).
"""

from __future__ import annotations

import uuid
from dataclasses import replace
from typing import Any

import pytest

from service.sessions.memory import MemoryStore
from service.sessions.redis_store import RedisStore
from service.sessions.store import (
    COMMIT_ID_BYTES,
    Commit,
    CommitRequest,
    Idem,
    Loaded,
    SessionStore,
)
from tests.sessions.conftest import store_url

IDEM = 3


def calls(s: SessionStore) -> list[tuple[str, Any]]:
    """Every answer of ``s`` to one sequence of calls, each named by its call."""
    out: list[tuple[str, Any]] = []
    made: dict[str, str] = {}  # a commit id the store made -> "#<its order>"

    def note(name: str, value: Any) -> Any:
        if isinstance(value, Loaded) and len(value.commit) == 2 * COMMIT_ID_BYTES:
            value = replace(value, commit=made.setdefault(value.commit, f"#{len(made)}"))
        out.append((name, value))
        return value

    sid = "agree-1"
    note("load before create", s.load(sid))
    note("commit before create", s.commit(CommitRequest(sid, 1, b"s", [b"x"])))
    note(
        "idem commit before create",
        s.commit(CommitRequest(sid, 1, b"s", [b"x"], Idem("0:a", b"A"))),
    )
    note("create", s.create(sid, b"meta", b"s1", [b"e1", b"e2"]))
    note("load", s.load(sid))
    note("load, unknown key", s.load(sid, "0:a"))
    note("commit ahead", s.commit(CommitRequest(sid, 2, b"sx", [b"x"])))
    note("commit behind", s.commit(CommitRequest(sid, 0, b"sx", [b"x"])))
    note("idem commit", s.commit(CommitRequest(sid, 1, b"s2", [b"e3"], Idem("0:a", b"A"))))
    note("retry, same version", s.commit(CommitRequest(sid, 1, b"sy", [b"y"], Idem("0:a", b"B"))))
    note(
        "retry, current version", s.commit(CommitRequest(sid, 2, b"sy", [b"y"], Idem("0:a", b"B")))
    )
    note("retry, future version", s.commit(CommitRequest(sid, 9, b"sy", [b"y"], Idem("0:a", b"B"))))
    note(
        "another seat's key, stale",
        s.commit(CommitRequest(sid, 1, b"sy", [b"y"], Idem("1:a", b"C"))),
    )
    note("load, stored key", s.load(sid, "0:a"))
    note("load, other seat's key", s.load(sid, "1:a"))
    note("commit without events", s.commit(CommitRequest(sid, 2, b"s3", [])))
    note("commit of three events", s.commit(CommitRequest(sid, 3, b"s4", [b"e4", b"e5", b"e6"])))
    note("events from 0", s.events(sid, 0, 100))
    note("events, a page", s.events(sid, 1, 2))
    note("events after the last", s.events(sid, 6, 10))
    note("events far after", s.events(sid, 60, 10))
    note("moves, none yet", s.moves(sid))
    note("commit with moves", s.commit(CommitRequest(sid, 4, b"s5", [b"e7"], moves=[b"m1", b"m2"])))
    note("a conflict logs nothing", s.commit(CommitRequest(sid, 4, b"sz", [], moves=[b"lost"])))
    note(
        "commit with a new meta",
        s.commit(CommitRequest(sid, 5, b"s6", [], moves=[b"m3"], meta=b"meta2")),
    )
    note("load, new meta", s.load(sid))
    note("moves", s.moves(sid))
    # The idempotency bound: the oldest answers go first, and a forgotten key commits.
    version = 6
    for i in range(IDEM + 1):
        res = note(
            f"idem commit k{i}",
            s.commit(CommitRequest(sid, version, b"s", [], Idem(f"0:k{i}", b"K"))),
        )
        version = res.version
    for key in ["0:a", *(f"0:k{i}" for i in range(IDEM + 1))]:
        note(f"load {key}", s.load(sid, key))
    note(
        "forgotten key commits",
        s.commit(CommitRequest(sid, version, b"s", [b"e7"], Idem("0:k0", b"N"))),
    )
    note(
        "kept key replays", s.commit(CommitRequest(sid, version, b"s", [b"e8"], Idem("0:k3", b"M")))
    )
    # A second session does not see the first's answers; a re-create starts afresh.
    other = "agree-2"
    note("create, no events", s.create(other, b"meta2", b"t1", [], [b"b1"]))
    note("moves of the other", s.moves(other))
    note(
        "other session, same key", s.commit(CommitRequest(other, 1, b"t2", [], Idem("0:k3", b"O")))
    )
    note("events of an empty log", s.events(other, 0, 10))
    note("re-create", s.create(sid, b"meta3", b"u1", [b"f1"]))
    note("load after re-create", s.load(sid, "0:k3"))
    note("events after re-create", s.events(sid, 0, 100))
    note("moves after re-create", s.moves(sid))
    note("delete", s.delete(sid))
    note("delete again", s.delete(sid))
    note("load deleted", s.load(sid, "0:k3"))
    note("events deleted", s.events(sid, 0, 10))
    note("moves deleted", s.moves(sid))
    note("commit deleted", s.commit(CommitRequest(sid, 1, b"s", [b"x"])))
    note("idem commit deleted", s.commit(CommitRequest(sid, 1, b"s", [b"x"], Idem("0:k3", b"X"))))
    note("the other session is intact", s.load(other, "0:k3"))
    # The bots' history: from where the state says it starts, unless the caller holds it.
    third = "agree-3"
    note("create with a history", s.create(third, b"m", b"h1", [b"d1", b"d2", b"d3"], [], 2))
    note("load the history", s.load(third))
    note("load, history held", s.load(third, history_known=1))
    note("load, history held for another version", s.load(third, history_known=7))
    note("commit in the round", s.commit(CommitRequest(third, 1, b"h2", [b"d4"], history_from=2)))
    note("load the longer history", s.load(third, "0:x", history_known=1))
    note(
        "commit a new round",
        s.commit(CommitRequest(third, 2, b"h3", [b"n1", b"n2"], history_from=5)),
    )
    note("load the new round", s.load(third))
    note("commit, no history", s.commit(CommitRequest(third, 3, b"h4", [b"n3"])))
    note("load, no history", s.load(third))
    # Commit ids: given, compared by the compare-and-set with the version, made anew.
    fourth = "agree-4"
    note("create with an id", s.create(fourth, b"m", b"i1", [], commit_id="a1"))
    note("load its id", s.load(fourth))
    for expected in ("b2", ""):
        note(
            f"commit over {expected!r}",
            s.commit(CommitRequest(fourth, 1, b"i2", [], expected_commit=expected)),
        )
    note(
        "commit over the id",
        s.commit(CommitRequest(fourth, 1, b"i2", [], expected_commit="a1", commit_id="c3")),
    )
    note("load the new id", s.load(fourth))
    note(
        "the old id is a conflict",
        s.commit(CommitRequest(fourth, 2, b"i3", [], expected_commit="a1")),
    )
    note("any id (None)", s.commit(CommitRequest(fourth, 2, b"i3", [])))
    note("load an id made", s.load(fourth))
    return out


@pytest.mark.parametrize("kind", ["redis", "cluster", "cluster-client"])
def test_memory_and_redis_answer_alike(kind: str, request: pytest.FixtureRequest) -> None:
    """``cluster-client``: every call through redis-py's cluster client (``slot_clients=
    False``), the path a call takes when the slot's node cannot serve it."""
    memory = MemoryStore(60, max_events=1000, max_idem=IDEM)
    url = store_url(kind.removesuffix("-client"), request)
    assert url is not None
    redis = RedisStore(
        url, ttl=60, max_events=1000, prefix=f"a{uuid.uuid4().hex[:6]}:", max_idem=IDEM,
        slot_clients=kind != "cluster-client",
    )  # fmt: skip
    assert redis.slot_clients == (kind == "cluster")
    try:
        expected, got = calls(memory), calls(redis)
    finally:
        redis.close()
    assert [name for name, _ in got] == [name for name, _ in expected]
    for (name, want), (_, have) in zip(expected, got, strict=True):
        assert have == want, name


def test_the_sequence_exercises_every_commit_answer() -> None:
    """The sequence above reaches each ``Commit`` status and an idempotent answer in
    ``Loaded`` (so the comparison covers them), and a replay names the session's
    current version and last event, as a conflict does."""
    answers = dict(calls(MemoryStore(60, max_events=1000, max_idem=IDEM)))
    statuses = {v.status for v in answers.values() if isinstance(v, Commit)}
    assert statuses == {"ok", "conflict", "replayed", "missing"}
    assert any(isinstance(v, Loaded) and v.idem is not None for v in answers.values())
    assert answers["retry, future version"] == Commit("replayed", 2, 3, b"A")
    assert answers["commit ahead"] == Commit("conflict", 1, 2)


def test_the_compare_and_set_compares_the_commit_id() -> None:
    """A version is its number and its commit id: another id at the same number is a
    conflict; each commit writes its own id (or a fresh random one)."""
    answers = dict(calls(MemoryStore(60, max_events=1000, max_idem=IDEM)))
    assert answers["load its id"].commit == "a1"
    assert answers["commit over 'b2'"] == answers["commit over ''"] == Commit("conflict", 1, 0)
    assert answers["commit over the id"] == Commit("ok", 2, 0)
    assert answers["load the new id"].commit == "c3"
    assert answers["the old id is a conflict"] == Commit("conflict", 2, 0)
    assert answers["any id (None)"] == Commit("ok", 3, 0)
    assert answers["load an id made"].commit.startswith("#")  # random, not "c3"
