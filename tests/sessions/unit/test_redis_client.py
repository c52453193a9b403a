"""The Redis client's settings from REDIS_URL (no server needed) and the one rule of its
calls: a Redis error is ``StoreUnavailable`` naming its class."""

from __future__ import annotations

import pytest
import redis

from service.redis.client import (
    SlotRouter,
    client_options,
    cluster_nodes,
    guarded,
    is_cluster_url,
    make_client,
)
from service.sessions.store import StoreUnavailable


def test_a_cluster_url_names_its_seed_nodes_and_options() -> None:
    nodes, options = cluster_nodes("redis+cluster://u%40x:p%3Aw@[::1]:7000,h2:7001?ssl=true")
    assert [(n.host, n.port) for n in nodes] == [("::1", 7000), ("h2", 7001)]
    assert options == {"username": "u@x", "password": "p:w", "ssl": "true"}
    for bad in ("redis://h:1", "redis+cluster://", "redis+cluster://host"):
        with pytest.raises(ValueError):
            cluster_nodes(bad)
    assert is_cluster_url("redis+cluster://h:1") and not is_cluster_url("rediss://h:1")


def test_a_client_fails_fast() -> None:
    opts = client_options(0.2, 1)
    assert opts["socket_timeout"] == opts["socket_connect_timeout"] == 0.2
    client = make_client("redis://localhost:1/0", 0.2)
    assert isinstance(client, redis.Redis)
    with pytest.raises(StoreUnavailable, match="ConnectionError"):
        guarded(client.ping)


def test_a_router_knows_its_kind_before_it_connects() -> None:
    one = SlotRouter("redis://localhost:1/0", None, 0.2)
    assert not one.cluster and not one.slot_clients
    many = SlotRouter("redis+cluster://localhost:1", None, 0.2, slot_clients=False)
    assert many.cluster and not many.slot_clients
    with pytest.raises(StoreUnavailable):  # a cluster that is down: a 503, not a crash
        _ = many.client
    with pytest.raises(ValueError):
        SlotRouter(None, None, 0.2)
