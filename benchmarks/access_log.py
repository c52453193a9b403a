"""The access line's cost: one INFO line of ``service.access`` through the standard
``logging`` machinery (a ``LogRecord``, the handler, ``JsonFormatter``) against the
service's own writer of the same line (``service.observability._write_access``), in
process, stderr going to ``/dev/null`` (a write system call a line, as to a pipe).

Every request of the service at the default ``LOG_LEVEL=info`` writes one such line;
the HTTP benchmarks run with ``LOG_LEVEL=warning`` (no access lines, like the anchor),
so this is the cost they leave out. Slices alternate (logging, own, logging, own ...);
figures are medians of CPU µs a line.

``python benchmarks/access_log.py [--lines N] [--slices K]``; ``run(lines, slices)``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

FIELDS = {
    "method": "POST",
    "route": "/v1/games/apply",
    "path": "/v1/games/apply",
    "remote": "127.0.0.1",
    "status": 200,
    "duration_ms": 0.118,
    "request_id": "0123456789abcdef0123456789abcdef",
}


def run(lines: int = 20_000, slices: int = 5) -> dict[str, Any]:
    from service import observability as obs

    obs.configure_logging("info")
    assert obs._plain_access_handler() is not None, "logging is not as the service sets it"

    def through_logging() -> None:
        obs.access_log.info("request", extra={"fields": FIELDS})

    def own() -> None:
        obs._write_access(FIELDS)

    saved = sys.stderr
    out: dict[str, list[float]] = {"logging": [], "own": []}
    with open(os.devnull, "w") as null:
        sys.stderr = null
        try:
            for _ in range(slices):
                for name, fn in (("logging", through_logging), ("own", own)):
                    start = time.process_time()
                    for _ in range(lines):
                        fn()
                    out[name].append((time.process_time() - start) / lines * 1e6)
        finally:
            sys.stderr = saved
    med = {k: statistics.median(v) for k, v in out.items()}
    return {
        "lines": lines,
        "slices": slices,
        "us_per_line": med,
        "logging_vs_own": med["logging"] / med["own"],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=20_000)
    parser.add_argument("--slices", type=int, default=5)
    args = parser.parse_args()
    res = run(args.lines, args.slices)
    us = res["us_per_line"]
    print(
        f"access line, CPU µs (median of {res['slices']} slices of {res['lines']:,}): "
        f"logging {us['logging']:.2f}, own writer {us['own']:.2f}, "
        f"logging/own {res['logging_vs_own']:.2f}x"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
