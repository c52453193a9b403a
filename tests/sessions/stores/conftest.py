"""What the store tests share: a Redis primary watched by a Sentinel."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.redis_procs import LocalSentinel, RedisServer, free_port, need_redis_server


@pytest.fixture
def watched() -> Iterator[tuple[RedisServer, list[RedisServer], LocalSentinel]]:
    """A primary, two replicas and a Sentinel watching them (``redis+sentinel://``)."""
    need_redis_server()
    primary = RedisServer(free_port())
    primary.start()
    replicas = [RedisServer(free_port(), replica_of=primary) for _ in range(2)]
    sentinel = LocalSentinel(free_port(), primary, replicas=2)
    try:
        for replica in replicas:
            replica.start()
        sentinel.start()
        yield primary, replicas, sentinel
    finally:
        sentinel.stop()
        for server in (*replicas, primary):
            server.stop()
