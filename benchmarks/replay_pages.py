"""What ``POST /v1/games/replay`` costs a gunicorn worker (one gevent worker, one Redis),
a whole long record in one request (as before pages: ``REPLAY_PAGE_MOVES`` set to the
record's length, ``REPLAY_MAX_CONTENT_LENGTH`` 8 MiB) against the same record in pages
of the default size, in the same run (issue 46).

For each request, sent one at a time: the worker's CPU (``/proc/<pid>/schedstat``) and
its peak RSS growth (``VmHWM``). Records: random games (``--moves``, DOS with two seats,
the heaviest pages measured, and All Wild with ten). Then the junk bodies the page's
caps let through, each sent ``--repeat`` times.

    python -m benchmarks.replay_pages [--moves 2000 20000] [--repeat 5]

Starts a throwaway ``redis-server`` on a loopback port (stopped at the end)."""

from __future__ import annotations

import argparse
import http.client
import statistics
from typing import Any

import orjson

from benchmarks.servers import process_cpu_seconds
from engine.record_pages import pages
from service import DEFAULTS
from service.replay_limits import DEFAULT_PAGE_MOVES
from service.sealing import Keyring
from tests.hardening.served import Served, peak_rss, raw_request, served
from tests.hardening.test_replay_pages import JUNK
from tests.redis_procs import RedisServer, free_port
from tests.service.test_replay_pages import long_record

RECORDS = (("dos", 2), ("uno_all_wild", 10))
KEYS = Keyring.new_key_spec("k1")


def cost(s: Served, body: bytes) -> tuple[float, int, dict[str, Any] | int]:
    """One request: the worker's CPU (ms), its peak RSS growth (bytes), the answer."""
    cpu, rss = process_cpu_seconds(s.worker), peak_rss(s.worker)
    status, answer = post(s, body)
    spent = (process_cpu_seconds(s.worker) - cpu) * 1000
    return spent, peak_rss(s.worker) - rss, answer if status == 200 else status


def post(s: Served, body: bytes) -> tuple[int, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=120)
    conn.request("POST", "/v1/games/replay", body, {"Content-Type": "application/json"})
    resp = conn.getresponse()
    raw = resp.read()
    conn.close()
    return resp.status, orjson.loads(raw)


def whole(url: str, records: list[tuple[str, dict[str, Any]]]) -> None:
    longest = max(len(r["moves"]) for _, r in records)
    settings = {"REPLAY_PAGE_MOVES": str(longest), "REPLAY_MAX_CONTENT_LENGTH": str(8 * 2**20)}
    with served(url, STATE_TOKEN_KEYS=KEYS, **settings) as s:
        cost(s, orjson.dumps(records[0][1]))  # the worker's first request
        for name, rec in records:
            cpu, grown, answer = cost(s, orjson.dumps(rec))
            assert isinstance(answer, dict), answer
            print(
                f"before: {name}, {len(rec['moves']):,} moves in one request: "
                f"{cpu:.1f} ms, +{grown / 2**20:.1f} MiB"
            )


def paged(url: str, records: list[tuple[str, dict[str, Any]]], repeat: int) -> None:
    with served(url, STATE_TOKEN_KEYS=KEYS) as s:
        cost(s, orjson.dumps(pages(records[0][1], DEFAULT_PAGE_MOVES)[0]))
        for name, rec in records:
            cpus, grown, resume = [], 0, None
            for page in pages(rec, DEFAULT_PAGE_MOVES):
                cpu, more, answer = cost(s, orjson.dumps({**page, "resume": resume}))
                assert isinstance(answer, dict), answer
                resume = answer["resume"]
                cpus.append(cpu)
                grown = max(grown, more)
            print(
                f"after: {name}, {len(rec['moves']):,} moves in {len(cpus)} pages: a page "
                f"{min(cpus):.1f}-{max(cpus):.1f} ms (median {statistics.median(cpus):.1f}), "
                f"+{grown / 2**20:.1f} MiB at most; {sum(cpus):.0f} ms in all"
            )
        for case, (body, status) in JUNK.items():
            cpus = []
            for _ in range(repeat):
                cpu, more, answer = cost(s, body)
                assert answer == status, (case, answer)
                cpus.append(cpu)
            print(
                f"after: {case} ({len(body):,} bytes): {min(cpus):.1f}-{max(cpus):.1f} ms, "
                f"status {status}"
            )
        # As an attacker sends it: the whole body written whatever the server answers.
        whole_record = orjson.dumps(records[-1][1])
        cpus, statuses = [], set()
        for _ in range(repeat):
            cpu = process_cpu_seconds(s.worker)
            statuses.add(raw_request(s.port, "POST", "/v1/games/replay", whole_record))
            cpus.append((process_cpu_seconds(s.worker) - cpu) * 1000)
        print(
            f"after: a whole {len(records[-1][1]['moves']):,}-move record in one request "
            f"({len(whole_record):,} bytes, the limit {DEFAULTS['REPLAY_MAX_CONTENT_LENGTH']:,}): "
            f"{min(cpus):.1f}-{max(cpus):.1f} ms, status {sorted(statuses)}"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, nargs="+", default=[2_000, 20_000])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    records = [
        (f"{v} {seats} seats", long_record(v, seats, n)) for n in args.moves for v, seats in RECORDS
    ]
    server = RedisServer(free_port())
    server.start()
    try:
        whole(server.url, records)
        paged(server.url, records, args.repeat)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
