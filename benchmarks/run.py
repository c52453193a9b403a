"""The benchmark suite: ``python benchmarks/run.py [--quick] [--only engine,http,sessions]``.

Prints a table and writes ``benchmarks/results/latest.json``. Every absolute figure is
printed next to its ratio to an anchor measured in the same run (RLCard's UNO game API
for the engine; for HTTP a bare Flask app on stock gunicorn and the same server's
``GET /healthz``). Bounded in time. The ``instructions`` section counts instructions
per move under callgrind: slower, but the same on a loaded machine as on a quiet one.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import engine_bench  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"


def engine_section(quick: bool) -> dict[str, Any]:
    seconds, slices = (6.0, 3) if quick else (30.0, 5)
    through = engine_bench.throughput(seconds, slices)
    calls = engine_bench.per_call(300 if quick else 2000)
    anchor = through["rlcard_moves_per_cpu_s"]
    print("\nEngine: random games through the validating apply (2 players, RLCard too)")
    if anchor:
        print(f"  anchor  rlcard 1.2.0 UnoGame      {anchor:12,.0f} moves/CPU-s   1.00x")
    else:
        print("  anchor  rlcard not installed: ratios omitted (pip install rlcard==1.2.0)")
    for vid, row in through["variants"].items():
        ratio = f"{row['ratio_to_rlcard']:.2f}x" if row["ratio_to_rlcard"] else "   -"
        print(f"  {vid:31} {row['moves_per_cpu_s']:12,.0f} moves/CPU-s   {ratio}")
    print("\n  per call (us)            legal median/p99      apply median/p99   state bytes")
    for vid, row in calls.items():
        lm, ap = row["legal_moves_us"], row["apply_us"]
        print(
            f"  {vid:22} {lm['median']:10.1f} /{lm['p99']:7.1f}   {ap['median']:10.1f} /{ap['p99']:7.1f}"
            f"   {row['state_json_bytes_at_round_start']:8}"
        )
    return {"throughput": through, "per_call": calls}


def instructions_section(quick: bool) -> dict[str, Any]:
    from benchmarks import instructions

    res = instructions.run(1000, ["uno_classic"]) if quick else instructions.run(2000)
    instructions.print_table(res)
    return res


def http_section(quick: bool) -> dict[str, Any]:
    from benchmarks import http_bench

    res = http_bench.run(quick)
    http_bench.print_table(res)
    return res


def sessions_section(quick: bool) -> dict[str, Any]:
    try:
        from benchmarks import sessions_bench
    except ImportError:
        print("\nSessions: benchmarks/sessions_bench.py is not there yet")
        return {"skipped": "no sessions benchmark"}
    return sessions_bench.run(quick)  # type: ignore[no-any-return]


def bots_section(quick: bool) -> dict[str, Any]:
    from benchmarks import bots_bench

    print("\nBots: win rates (one-round games, 95% Wilson intervals) and hard move cost")
    return bots_bench.run(50 if quick else 1000)


SECTIONS = {
    "engine": engine_section,
    "instructions": instructions_section,
    "http": http_section,
    "sessions": sessions_section,
    "bots": bots_section,
}


def main() -> int:
    parser = argparse.ArgumentParser(
        description="The benchmark suite: prints a table and writes "
        "benchmarks/results/latest.json. Every absolute figure stands next to its ratio to "
        "an anchor measured in the same run (RLCard's UNO game API for the engine; for HTTP "
        "a bare Flask app on stock gunicorn and the same server's GET /healthz); the "
        "instructions section counts instructions per move under callgrind, a figure the "
        "machine's load does not move."
    )
    parser.add_argument("--quick", action="store_true", help="a short run (seconds)")
    parser.add_argument("--only", default=",".join(SECTIONS), help="comma-separated sections")
    args = parser.parse_args()
    report: dict[str, Any] = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "quick": args.quick,
    }
    for name in args.only.split(","):
        if name not in SECTIONS:
            parser.error(f"unknown section {name!r}; known: {', '.join(SECTIONS)}")
        report[name] = SECTIONS[name](args.quick)
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / "latest.json"
    out.write_text(json.dumps(report, indent=2))
    print(f"\nwrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
