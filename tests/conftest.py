"""Fixtures for every test directory: one ``redis-server`` and one three-master Redis
Cluster on free loopback ports, each started on first use and stopped when the run ends.

Nothing here imports ``redis`` or the service until a test asks for a server:
``tests/engine`` collects and passes without either (tests/engine/paths/test_alone.py)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.redis_procs import LocalCluster, RedisServer


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    from tests.redis_procs import RedisServer, free_port, need_redis_server

    need_redis_server()
    server = RedisServer(free_port())
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[LocalCluster]:
    """Three masters, no replicas (``redis-cli --cluster create``), for the whole run."""
    from tests.redis_procs import LocalCluster, need_redis_server

    need_redis_server()
    cluster = LocalCluster(3)
    cluster.start()
    yield cluster
    cluster.stop()


#: Modules that must run with no other worker beside them (pytest-xdist): those that
#: measure time or CPU a heartbeat and fall short beside another worker, and the
#: TypeScript checks, whose compile once found the file another check adds to its
#: project (one make test in four). ``make test`` runs them after the parallel run,
#: alone (``UNO_TEST_SLICE``: ``parallel`` leaves them out, ``serial`` runs only them).
SERIAL_MODULES = ("tests/hardening/test_bot_chains.py", "tests/contract/test_typescript.py")

#: Directories whose tests are slow as a whole: servers in subprocesses (ops), generated
#: clients (contract), bot strength and golden games (engine/bots), benchmark smoke runs.
SLOW_DIRS = (
    ("tests", "ops"),
    ("tests", "contract"),
    ("tests", "engine", "bots"),
    ("tests", "benchmarks"),
)


def _kind_markers(item: pytest.Item) -> set[str]:
    """The real components ``item`` needs: ``redis``/``cluster`` from the fixtures it uses
    (``redis_server``, ``redis_cluster``; any parameter, of ``store_kind`` or another
    fixture, that names a store kind: ``redis``, ``cluster``, ``cluster-client``, since such
    a test asks for its server lazily) or the server classes its module starts itself;
    ``browser`` when it takes the ``browser`` fixture or its module drives Chromium."""
    names = set(getattr(item, "fixturenames", ()))
    callspec = getattr(item, "callspec", None)
    kinds = {v for v in callspec.params.values() if isinstance(v, str)} if callspec else set()
    module = getattr(item, "module", None)
    found: set[str] = set()
    if "redis_cluster" in names or any(k.startswith("cluster") for k in kinds):
        found |= {"cluster", "redis"}
    if "redis_server" in names or "redis" in kinds:
        found.add("redis")
    if module is not None and any(hasattr(module, n) for n in ("RedisServer", "LocalCluster")):
        found.add("redis")
    if "browser" in names or (module is not None and hasattr(module, "chromium")):
        found.add("browser")
    return found


@pytest.hookimpl(tryfirst=True)  # before xdist's, which reads the xdist_group marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Markers by what a test needs, so ``-m 'not redis and not slow'`` (``make test-fast``)
    keeps the in-process tests: ``redis``, ``cluster``, ``browser`` (``_kind_markers``) and
    ``slow`` (``SLOW_DIRS``)."""
    root = config.rootpath
    for item in items:
        for name in _kind_markers(item):
            item.add_marker(name)
        # make test's --dist loadgroup: a module's tests run on one xdist worker, in order
        # (modules keep state between their tests: accumulated answers, warmed caches,
        # module-scoped servers); the browser tests on one worker (one Chromium at a time).
        if "browser" in item.keywords:
            item.add_marker(pytest.mark.xdist_group("browser"))
        elif not item.get_closest_marker("xdist_group"):
            item.add_marker(pytest.mark.xdist_group(str(item.path.relative_to(root))))
    test_slice = os.environ.get("UNO_TEST_SLICE", "")
    if test_slice in ("parallel", "serial"):
        serial = {i for i in items if str(i.path.relative_to(root)) in SERIAL_MODULES}
        dropped = [i for i in items if (i in serial) == (test_slice == "parallel")]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = [i for i in items if i not in dropped]
        parts = item.path.relative_to(root).parts
        if any(parts[: len(d)] == d for d in SLOW_DIRS):
            item.add_marker("slow")
