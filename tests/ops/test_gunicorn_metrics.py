"""/metrics under a real gunicorn with two workers: one scrape gives the pod's exact
totals, whichever worker answers it, and a dead worker's counts stay in them."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import pytest
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.parser import text_string_to_metric_families

from tests.ops.support import ROOT
from tests.ops.test_gunicorn_serves import server, wait_for_healthz

ROUTE = "/v1/variants"
SERIES = {"method": "GET", "route": ROUTE, "status": "200"}
REQUESTS = 240
#: Counts of an earlier run left in the directory: the server must not add them.
STALE = 1000
WORKER_FILE = re.compile(r"^(counter|histogram|gauge_livesum)_(\d+)\.db$")


def requests_total(samples: list[tuple[str, dict[str, str], float]]) -> float:
    found = [
        v for name, labels, v in samples if name == "uno_http_requests_total" and labels == SERIES
    ]
    return found[0] if found else 0.0


def parse(text: str) -> list[tuple[str, dict[str, str], float]]:
    return [
        (s.name, s.labels, s.value)
        for family in text_string_to_metric_families(text)
        for s in family.samples
    ]


def get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as response:
        assert response.status == 200
        return response.read()  # type: ignore[no-any-return]


def worker_pids(metrics_dir: Path, kind: str = "counter") -> set[int]:
    return {
        int(m.group(2))
        for p in metrics_dir.iterdir()
        if (m := WORKER_FILE.match(p.name)) and m.group(1) == kind
    }


def leave_stale_counts(metrics_dir: Path) -> None:
    """What a crashed earlier server would leave: real metric files with counts."""
    code = (
        "from service.observability import observe\n"
        f"for _ in range({STALE}): observe('GET', {ROUTE!r}, 200, 0.001)\n"
    )
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir)}
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True, timeout=60)
    assert worker_pids(metrics_dir)


@contextmanager
def two_workers(
    metrics_dir: Path | None, extra: dict[str, str] | None = None
) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """gunicorn as the image runs it, with two sync workers."""
    settings = {"GUNICORN_ACCESSLOG": "off", "LOG_LEVEL": "warning", **(extra or {})}
    if metrics_dir is not None:
        settings["PROMETHEUS_MULTIPROC_DIR"] = str(metrics_dir)
    with server("sync", 2, settings, stdout=subprocess.DEVNULL) as (env, proc):
        yield f"http://127.0.0.1:{env['PORT']}", proc


def wait_until(check: Callable[[], bool], what: str, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(f"{what} within {seconds} s")
        time.sleep(0.1)


def served(metrics_dir: Path, pid: int) -> float:
    """The requests one worker's own counter file holds (0: it has none yet)."""
    if not (metrics_dir / f"counter_{pid}.db").exists():
        return 0.0
    return requests_total(
        [
            (s.name, s.labels, s.value)
            for family in MultiProcessCollector.merge([str(metrics_dir / f"counter_{pid}.db")])
            for s in family.samples
        ]
    )


def test_one_scrape_counts_every_worker_exactly(tmp_path: Path) -> None:
    metrics_dir = tmp_path / "metrics"
    metrics_dir.mkdir()
    leave_stale_counts(metrics_dir)
    with two_workers(metrics_dir) as (base, proc):
        assert wait_for_healthz(f"{base}/healthz", proc) == 200
        wait_until(
            lambda: len(worker_pids(metrics_dir, "gauge_livesum")) == 2, "two workers did not start"
        )
        # Eight clients at once: with sync workers, each busy worker leaves the next
        # connection to the other one. On a loaded machine one worker may still take a
        # whole batch: then another batch (at most 5), until both have served.
        pids = worker_pids(metrics_dir, "gauge_livesum")
        sent = 0
        for _ in range(5):
            with ThreadPoolExecutor(8) as pool:
                list(pool.map(lambda _: get(base + ROUTE), range(REQUESTS)))
            sent += REQUESTS
            per_worker = {pid: served(metrics_dir, pid) for pid in pids}
            if all(n > 0 for n in per_worker.values()):
                break

        # Each worker's own file holds part of the count: both served.
        assert len(per_worker) == 2 and all(n > 0 for n in per_worker.values()), per_worker
        assert sum(per_worker.values()) == sent

        # Every scrape, whichever worker answers it, gives the exact total.
        scrapes = [parse(get(base + "/metrics").decode()) for _ in range(8)]
        assert [requests_total(s) for s in scrapes] == [sent] * 8
        names = {name for name, _, _ in scrapes[0]}
        assert {"process_cpu_seconds_total", "process_resident_memory_bytes"} <= names
        assert "uno_sessions_cached" in names

        # A worker dies: its live gauges are dropped, its counts stay; a new one starts.
        victim = min(pids)
        os.kill(victim, signal.SIGKILL)
        wait_until(
            lambda: victim not in worker_pids(metrics_dir, "gauge_livesum"),
            "the dead worker's live gauges were not marked dead",
        )
        wait_until(
            lambda: len(worker_pids(metrics_dir, "gauge_livesum")) == 2,
            "no new worker started",
        )
        after = [parse(get(base + "/metrics").decode()) for _ in range(4)]
        assert [requests_total(s) for s in after] == [sent] * 4
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err[-3000:]
    assert "Traceback" not in err, err[-3000:]


def test_without_a_directory_the_server_makes_one_and_removes_it(tmp_path: Path) -> None:
    with two_workers(None, {"TMPDIR": str(tmp_path)}) as (base, proc):
        assert wait_for_healthz(f"{base}/healthz", proc) == 200
        (made,) = tmp_path.glob("uno-metrics-*")
        wait_until(lambda: len(worker_pids(made, "gauge_livesum")) == 2, "no two workers")
        for _ in range(10):
            get(base + ROUTE)
        assert [requests_total(parse(get(base + "/metrics").decode())) for _ in range(4)] == [
            10
        ] * 4
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)
    assert proc.returncode == 0
    assert not made.exists()
