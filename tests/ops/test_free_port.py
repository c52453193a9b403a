"""``free_port``: the loopback ports the tests' and benchmarks' servers start on. A port
handed out once is not handed out again in the process (a server stopped to start again
on its port does not hold it meanwhile; a cluster node's bus port is drawn before the
later nodes bind theirs), and each pytest-xdist worker draws from its own part of the
range, so two workers' servers cannot draw the same port."""

from __future__ import annotations

import pytest

from benchmarks import servers


def test_a_port_is_handed_out_once_a_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(servers, "_HANDED_OUT", set())
    monkeypatch.setattr(servers, "_worker_range", lambda start, end: (start, start + 40))
    ports = [servers.free_port() for _ in range(40)]
    assert len(set(ports)) == 40  # the whole of a 40-port range, each once


@pytest.mark.parametrize("worker", ["gw0", "gw1", "gw2"])
def test_each_worker_draws_from_its_own_part(monkeypatch: pytest.MonkeyPatch, worker: str) -> None:
    monkeypatch.setenv("PYTEST_XDIST_WORKER", worker)
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "3")
    index = int(worker[2:])
    assert servers._worker_range(1000, 1300) == (1000 + 100 * index, 1100 + 100 * index)
    low = servers._ephemeral_low()
    start = max(1024, low - servers._SERVER_PORTS)
    size = (low - start) // 3
    port = servers.free_port()
    assert start + index * size <= port < start + (index + 1) * size


def test_outside_a_worker_the_whole_range(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    monkeypatch.delenv("PYTEST_XDIST_WORKER_COUNT", raising=False)
    assert servers._worker_range(1000, 1300) == (1000, 1300)
