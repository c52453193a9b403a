"""Fixtures for every test directory: one ``redis-server`` and one three-master Redis
Cluster on free loopback ports, each started on first use and stopped when the run ends."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.redis_procs import LocalCluster, RedisServer, free_port, need_redis_server


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    need_redis_server()
    server = RedisServer(free_port())
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[LocalCluster]:
    """Three masters, no replicas (``redis-cli --cluster create``), for the whole run."""
    need_redis_server()
    cluster = LocalCluster(3)
    cluster.start()
    yield cluster
    cluster.stop()
