"""Quick match under a crowd: tickets sent at once, each from a phone of its own (an
address in ``X-Forwarded-For``, the instances trusting one proxy), spread over service
instances (two gunicorn instances of two workers, the production config, on one local
Redis), then polled until each is matched.

The figures: the time to seat (the ticket's ``matched_at`` less its ``created_at``, both
the service's clock), median and p99, for tables filled by people (classic UNO for four,
every ticket alike: each table fills as its fourth phone arrives) and, in the mixed run,
for every ticket (bots fill the rest at each table's deadline); and the answer time of
``POST /v1/matches`` beside ``POST /v1/sessions`` (a public session with three open
seats: the create a ticket's first seat costs) sent by the same crowd in the same run.

``python benchmarks/quick_match.py [--tickets N] [--mixed M] [--threads T]``.
``crowd`` and ``mixed_requests`` are also the concurrency test's
(tests/matchmaking/test_crowd.py).
"""

from __future__ import annotations

import argparse
import datetime
import random
import statistics
import sys
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import engine  # noqa: E402
from benchmarks.servers import gunicorn, over_http  # noqa: E402

#: What every variant in the mixed crowd may ask for.
MIXED_VARIANTS = ("uno_classic", "uno_flip", "dos")


def phone_address(n: int) -> str:
    return f"10.{n // 62500 % 250}.{n // 250 % 250}.{n % 250 + 1}"


@dataclass
class Asked:
    """One phone's ticket: what it asked, where, what the service answered."""

    phone: int
    request: dict[str, Any]
    base: str
    status: int = 0
    answer: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    polls: list[dict[str, Any]] = field(default_factory=list)
    token: str | None = None

    @property
    def final(self) -> dict[str, Any]:
        return self.polls[-1] if self.polls else self.answer

    def time_to_seat(self) -> float:
        t = self.final
        return _at(t["matched_at"]) - _at(t["created_at"])


def _at(stamp: str) -> float:
    return datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def _ask(asked: Asked) -> Asked:
    headers = {"X-Forwarded-For": phone_address(asked.phone)}
    start = time.perf_counter()
    asked.status, asked.answer = over_http(
        asked.base, "POST", "/v1/matches", asked.request, headers
    )
    asked.seconds = time.perf_counter() - start
    asked.token = asked.answer.get("token")
    return asked


def crowd(
    bases: list[str], requests: list[dict[str, Any]], threads: int = 16, first_phone: int = 0
) -> list[Asked]:
    """Every request sent at once (``threads`` at a time), phone ``i`` to
    ``bases[i % len(bases)]``: each phone's ticket as answered."""
    asked = [Asked(first_phone + i, r, bases[i % len(bases)]) for i, r in enumerate(requests)]
    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(_ask, asked))


def settle(asked: list[Asked], until: float, pause: float = 0.2) -> None:
    """Poll each waiting ticket (its phone's instance) until it is no longer waiting, or
    ``until`` (monotonic) passes."""
    waiting = [a for a in asked if a.status == 201 and a.final["status"] == "waiting"]
    while waiting and time.monotonic() < until:
        for a in waiting:
            t = a.answer
            headers = {
                "X-Forwarded-For": phone_address(a.phone),
                "Authorization": f"Bearer {t['secret']}",
            }
            status, got = over_http(a.base, "GET", f"/v1/matches/{t['ticket_id']}", None, headers)
            if status == 200:
                a.polls.append(got)
                a.token = a.token or got.get("token")
        waiting = [a for a in waiting if a.final["status"] == "waiting"]
        if waiting:
            time.sleep(pause)


def mixed_requests(count: int, seed: int = 51, wait: tuple[int, int] = (2, 4)) -> list[Any]:
    """``count`` tickets of mixed variants and seats (a count, or a range within the
    variant's players) and waits, drawn with ``seed``."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        variant = engine.find_variant(rng.choice(MIXED_VARIANTS))
        low, high = variant.min_players, min(variant.max_players, 6)
        if rng.random() < 0.5:
            seats: Any = rng.randint(low, high)
        else:
            a, b = sorted((rng.randint(low, high), rng.randint(low, high)))
            seats = {"min": a, "max": b}
        out.append({"variant": variant.id, "seats": seats, "wait_seconds": rng.randint(*wait)})
    return out


@contextmanager
def instances(url: str, count: int = 2, workers: int = 2) -> Iterator[list[str]]:
    """``count`` service instances of ``workers`` gunicorn workers on Redis ``url``."""
    env = {
        "REDIS_URL": url,
        "SESSION_KEY_PREFIX": f"q{uuid.uuid4().hex[:6]}:",
        "WEB_CONCURRENCY": str(workers),
        "RATE_LIMIT": "1000000/minute",
        "TRUSTED_PROXIES": "1",
        "MATCH_SWEEP_SECONDS": "0.25",
        "SESSION_WAITING_PER_CLIENT": "1000",
    }
    with ExitStack() as stack:
        yield [
            "http://{}:{}".format(*stack.enter_context(gunicorn(env, start_seconds=120))[:2])
            for _ in range(count)
        ]


def quantiles(values: list[float]) -> tuple[float, float]:
    """(median, p99)."""
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, int(round(0.99 * (len(ordered) - 1))))]
    return statistics.median(ordered), p99


def _sessions_crowd(bases: list[str], count: int, threads: int) -> list[float]:
    """The answer times of ``count`` public four-seat session creates sent at once."""
    body = {"variant": "uno_classic", "public": True,
            "players": [{"name": "Ann"}] + [{"open": True}] * 3}  # fmt: skip

    def create(i: int) -> float:
        start = time.perf_counter()
        status, got = over_http(bases[i % len(bases)], "POST", "/v1/sessions", body,
                                {"X-Forwarded-For": phone_address(900_000 + i)})  # fmt: skip
        if status != 201:
            raise RuntimeError(f"create: {status} {got}")
        return time.perf_counter() - start

    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(create, range(count)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tickets", type=int, default=400, help="classic tickets for four")
    parser.add_argument("--mixed", type=int, default=200, help="tickets of mixed variants")
    parser.add_argument("--threads", type=int, default=16)
    args = parser.parse_args(argv)
    from benchmarks.sessions_bench import redis_server

    with redis_server() as server:
        if server is None:
            print("no redis-server", file=sys.stderr)
            return 2
        with instances(server[0]) as bases:
            base_times = _sessions_crowd(bases, args.tickets // 4, args.threads)
            four = [{"variant": "uno_classic", "seats": 4, "wait_seconds": 60}] * args.tickets
            classic = crowd(bases, four, args.threads)
            settle(classic, time.monotonic() + 120)
            mixed = crowd(bases, mixed_requests(args.mixed), args.threads, first_phone=10_000)
            settle(mixed, time.monotonic() + 120)
    rows = [
        ("classic for four, people only: time to seat", [a.time_to_seat() for a in classic]),
        ("POST /v1/matches answer", [a.seconds for a in classic]),
        ("POST /v1/sessions answer (same crowd)", base_times),
        ("mixed (bots at 2-4 s): time to seat", [a.time_to_seat() for a in mixed]),
    ]
    for name, values in rows:
        median, p99 = quantiles(values)
        print(f"{name}: n={len(values)} median {median * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms")
    unmatched = sum(1 for a in classic + mixed if a.final["status"] != "matched")
    print(f"tickets not matched: {unmatched}")
    late = max(_at(a.final["matched_at"]) - _at(a.final["deadline"]) for a in mixed)
    print(f"mixed: the latest a ticket was matched after its own deadline: {late * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
