"""A session's slot that moves is still served: resharded to another master (MOVED),
in the middle of its move (ASK), and handed to a replica by a failover.

``RedisStore`` sends each call on one slot to the client of the slot's node and only
when that node cannot serve it again through redis-py's cluster client, which follows
the redirection and refreshes its slot table. Each test checks the answers (the
version, the event log, where the keys now live) and which client served each call:
the cluster client only when the slot had moved, the node's own client again after.
A cluster of its own (its slots are moved about), a replica added where a test needs it.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask

from service.sessions.redis_store import RedisStore
from service.sessions.store import CommitRequest, StoreUnavailable
from tests.sessions.conftest import (
    Api,
    LocalCluster,
    first_move,
    make_app,
    mover,
    need_redis_server,
    two_humans,
)

pytestmark = [pytest.mark.redis, pytest.mark.cluster]


@pytest.fixture
def cluster() -> Iterator[LocalCluster]:
    need_redis_server()
    c = LocalCluster(3)
    c.start()
    yield c
    c.stop()


class Spy:
    """Counts the calls that go through the store's cluster client (a command, or a
    pipeline made)."""

    def __init__(self, store: RedisStore, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        client = store.redis
        for name in ("execute_command", "pipeline"):
            monkeypatch.setattr(client, name, self.counted(getattr(client, name)))

    def counted(self, fn: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            return fn(*args, **kwargs)

        return call

    def take(self) -> int:
        n, self.calls = self.calls, 0
        return n


def app_on(cluster: LocalCluster, prefix: str) -> Flask:
    return make_app({"REDIS_URL": cluster.seed_url, "SESSION_KEY_PREFIX": prefix})


def slot_of(store: RedisStore, sid: str) -> int:
    return int(store.redis.keyslot(store._keys(sid)[0]))


def play(api: Api, sid: str, toks: list[str], version: int) -> int:
    """One move by whoever is to move, made at ``version``: the new version."""
    seat, body = mover(api, sid, toks)
    r = api.move(sid, toks[seat], first_move(body), version)
    assert r.status_code == 200, r.get_data(as_text=True)
    assert r.get_json()["version"] == version + 1
    return version + 1


def keys_on(cluster: LocalCluster, i: int, store: RedisStore, sid: str) -> int:
    """How many keys of the session's slot node ``i`` holds."""
    node = cluster.node(i)
    try:
        return int(node.execute_command("CLUSTER COUNTKEYSINSLOT", slot_of(store, sid)))
    finally:
        node.close()


def check_log(api: Api, sid: str, version: int) -> None:
    log = api.events(sid).get_json()
    assert log["version"] == version
    assert [e["seq"] for e in log["events"]] == list(range(1, log["last_event"] + 1))


def test_a_resharded_slot_is_still_served(
    cluster: LocalCluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = app_on(cluster, f"m{uuid.uuid4().hex[:6]}:")
    api = Api(app.test_client())
    store: RedisStore = app.extensions["sessions"].store
    sid, toks, _ = two_humans(api)
    spy = Spy(store, monkeypatch)
    version = play(api, sid, toks, 1)
    assert spy.take() == 0  # the slot's node served the move
    slot = slot_of(store, sid)
    old = cluster.owner(slot)
    new = (old + 1) % 3
    cluster.migrate_slot(slot, new)
    assert keys_on(cluster, old, store, sid) == 0 and keys_on(cluster, new, store, sid) >= 4
    # The store's table still names the old master: it answers MOVED, and the cluster
    # client follows it to the new one.
    assert store.redis.get_node_from_key(store._keys(sid)[0]).port == cluster.ports[old]
    version = play(api, sid, toks, version)
    assert spy.take() >= 1
    assert store.redis.get_node_from_key(store._keys(sid)[0]).port == cluster.ports[new]
    # From then on the new master's own client serves the session.
    for _ in range(3):
        version = play(api, sid, toks, version)
    assert spy.take() == 0
    check_log(api, sid, version)
    # Another instance, with nothing cached, reads the same session.
    other = app_on(cluster, store.prefix)
    assert Api(other.test_client()).get(sid).get_json()["version"] == version
    other.extensions["sessions"].store.close()
    store.close()


def test_a_slot_in_the_middle_of_its_move_is_read_through_ask(
    cluster: LocalCluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = RedisStore(cluster.seed_url, prefix=f"a{uuid.uuid4().hex[:6]}:")
    sid = "ask-me"
    store.create(sid, b"meta", b"s1", [b"e1", b"e2"])
    assert store.commit(CommitRequest(sid, 1, b"s2", [b"e3"], seen=(0, 5))).status == "ok"
    before = store.load(sid)
    assert before is not None
    spy = Spy(store, monkeypatch)
    slot = slot_of(store, sid)
    old = cluster.owner(slot)
    new = (old + 1) % 3
    cluster.migrate_slot(slot, new, finish=False)
    assert keys_on(cluster, new, store, sid) >= 4
    # The old master answers ASK for the moved keys; the cluster client asks the new one.
    assert store.load(sid) == before
    assert spy.take() >= 1
    assert store.events(sid, 0, 10) == [(1, b"e1"), (2, b"e2"), (3, b"e3")]
    # A commit names keys that do not exist yet (its idempotency keys, the channel):
    # while the slot is split Redis refuses it (TRYAGAIN), and nothing is written.
    with pytest.raises(StoreUnavailable):
        store.commit(CommitRequest(sid, 2, b"sx", [b"x"]))
    cluster.finish_migration(slot, new)
    res = store.commit(CommitRequest(sid, 2, b"s3", [b"e4"]))
    assert (res.status, res.version, res.seq) == ("ok", 3, 4)
    loaded = store.load(sid)
    assert loaded is not None and (loaded.state, loaded.seq) == (b"s3", 4)
    assert [seq for seq, _ in store.events(sid, 0, 10)] == [1, 2, 3, 4]
    assert store.redis.get_node_from_key(store._keys(sid)[0]).port == cluster.ports[new]
    spy.take()
    assert store.commit(CommitRequest(sid, 3, b"s4", [])).status == "ok"
    assert spy.take() == 0
    store.close()


def test_a_failover_to_a_replica_is_followed(
    cluster: LocalCluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = app_on(cluster, f"f{uuid.uuid4().hex[:6]}:")
    api = Api(app.test_client())
    store: RedisStore = app.extensions["sessions"].store
    sid, toks, _ = two_humans(api)
    version = play(api, sid, toks, 1)
    master = cluster.owner(slot_of(store, sid))
    replica = cluster.add_replica(master)
    version = play(api, sid, toks, version)
    spy = Spy(store, monkeypatch)
    cluster.failover(replica)
    # The old master, now a replica, answers MOVED: the cluster client finds the new one.
    version = play(api, sid, toks, version)
    assert spy.take() >= 1
    assert store.redis.get_node_from_key(store._keys(sid)[0]).port == cluster.ports[replica]
    for _ in range(3):
        version = play(api, sid, toks, version)
    assert spy.take() == 0
    check_log(api, sid, version)
    store.close()
