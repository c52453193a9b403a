"""What a hostile JSON body costs to read: parsed first (the body read whole, then
``orjson.loads``, as the service did before its pre-scan) against the service's reading
now (``service.http.read_json``: each 64 KiB piece fed to ``service.jsonscan`` as it is
read, refused at once when it nests too deep or, on the replay route, holds more values
than a record can), on the same bodies in the same run.

For each body: CPU ms (median of ``--repeat`` reads, ``time.process_time``) and peak
memory MB (``tracemalloc``, one more read), in a Flask request context over an in-memory
stream (no socket); and the ratios old/new. For scale, the last rows are a valid record
of ``--record-moves`` moves (a page, 200, by default) of a random DOS game read alone, and read and replayed
(``POST /v1/games/replay`` through the test client): what the replay route's budget is.

``python benchmarks/deep_json.py [--repeat N] [--record-moves M]``; ``run(...)``.
"""

from __future__ import annotations

import argparse
import io
import random
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

MiB = 1024 * 1024


def heaviest_record(moves: int) -> bytes:
    """A record of ``moves`` moves of the heaviest entry (a DOS double match with its
    target and cards, a hidden field), a round result every 7 moves: the most JSON
    values a valid record holds (it does not replay: its moves are not a game)."""
    entry = {"by": "player", "at": "2026-12-03T10:46:24.123Z",
             "move": {"type": "match", "player": 5, "target": {"card": 107, "color": "yellow",
                      "number": 10}, "cards": [{"card": 105, "color": "yellow", "number": 5},
                      {"card": 106, "color": "yellow", "number": 5}]}, "hidden": ["x"]}  # fmt: skip
    rnd = {"round": 1, "winner": 9, "scores": list(range(10))}
    return orjson.dumps({"record": 1, "variant": "dos", "players": [{"name": "p", "bot": False}],
                         "seed": "7", "moves": [entry] * moves, "rounds": [rnd] * (moves // 7)})  # fmt: skip


def bodies(max_values: int, max_moves: int) -> list[tuple[str, str, bytes]]:
    """(name, route, body): deep and wide shapes at each route's byte limit, the widest
    shapes the replay route's value cap lets through, the heaviest valid record."""
    out = []
    from service import DEFAULTS

    replay_size = DEFAULTS["REPLAY_MAX_CONTENT_LENGTH"]
    for route, size in (("/v1/games/score", MiB), ("/v1/games/replay", replay_size)):
        half = size // 2
        out += [
            ("[[[ open", route, b"[" * size),
            ("[[[ ]]] balanced", route, b"[" * half + b"]" * half),
            ('{"a":{ open', route, b'{"a":' * (size // 5)),
            ("[[],[],...] wide", route, b"[" + b"[]," * (size // 3 - 1) + b"[]]"),
            ("depth-32 groups", route, b"[" + b",".join([b"[" * 31 + b"]" * 31] * (size // 63)) + b"]"),
        ]  # fmt: skip
    # Just under the cap: the widest a hostile body may be and still get parsed (an
    # empty list counts twice, itself and its comma; a string once, its comma).
    lists, strings = max_values // 2 - 1, max_values - 1
    out += [
        ("[],... at the cap", "/v1/games/replay", b"[" + b"[]," * (lists - 1) + b"[]]"),
        ('"ab",... at the cap', "/v1/games/replay", b"[" + b'"ab",' * (strings - 1) + b'"ab"]'),
        ("heaviest record", "/v1/games/replay", heaviest_record(max_moves)),
    ]
    return out


def dos_record(moves: int, seed: int = 1) -> bytes:
    """The record of a random DOS game of ``moves`` moves (a target no one reaches)."""
    import engine
    from engine import MoveType, Phase

    rnd = random.Random(seed)
    options = {"target": 100_000}
    state, _ = engine.start("dos", 4, 7, options=options)
    played: list[engine.Move] = []
    while len(played) < moves and state.phase is not Phase.GAME_OVER:
        legal = [m for p in range(4) for m in engine.legal_moves(state, p)]
        plays = [m for m in legal if m.type is not MoveType.DRAW]
        move = rnd.choice(plays if plays and rnd.random() < 0.8 else legal)
        played.append(move)
        state, _ = engine.apply(state, move)
    return orjson.dumps(engine.record("dos", 4, 7, played, options=options))


def measure(fn: Callable[[], Any], repeat: int) -> tuple[float, float, str]:
    """Median CPU ms over ``repeat`` calls, peak MB of one more, and what it answered."""
    times = []
    outcome = ""
    for _ in range(repeat):
        start = time.process_time()
        outcome = fn()
        times.append((time.process_time() - start) * 1000)
    tracemalloc.start()
    try:
        fn()
        peak = tracemalloc.get_traced_memory()[1] / MiB
    finally:
        tracemalloc.stop()
    return statistics.median(times), peak, outcome


def run(repeat: int = 3, record_moves: int = 200) -> dict[str, Any]:
    from service import create_app
    from service.http import read_json
    from service.problems import ApiProblem
    from service.replay_limits import replay_bounds, replay_max_values

    app = create_app({"TESTING": True})
    max_moves = app.config["REPLAY_PAGE_MOVES"]  # what one replay request holds
    cap = replay_max_values(max_moves)

    def context(route: str, body: bytes) -> Any:
        ctx = app.test_request_context(
            route, method="POST", input_stream=io.BytesIO(body),
            content_type="application/json", content_length=len(body),
        )  # fmt: skip
        ctx.push()
        if route.endswith("/replay"):
            ctx.request.max_content_length = app.config["REPLAY_MAX_CONTENT_LENGTH"]
        return ctx

    def parse_first(route: str, body: bytes) -> Callable[[], str]:
        def read() -> str:
            ctx = context(route, body)
            try:
                raw = ctx.request.get_data(cache=False)
                try:
                    orjson.loads(raw)
                except orjson.JSONDecodeError as exc:
                    return f"400 ({str(exc)[:28]})"
                return "parsed"
            finally:
                ctx.pop()

        return read

    def scanned(route: str, body: bytes) -> Callable[[], str]:
        replay = route.endswith("/replay")

        def read() -> str:
            ctx = context(route, body)
            try:
                if replay:  # as the service reads each route's bodies
                    read_json(cap, replay_bounds(max_moves))
                else:
                    read_json()
                return "parsed"
            except ApiProblem as p:
                return f"{p.status} ({p.detail.removeprefix('the request body ')[:28]})"
            finally:
                ctx.pop()

        return read

    rows = []
    for name, route, body in bodies(cap, max_moves):
        old = measure(parse_first(route, body), repeat)
        new = measure(scanned(route, body), repeat)
        rows.append({"body": name, "route": route, "bytes": len(body), "old": old, "new": new})

    record: dict[str, Any] = {}
    if record_moves:
        raw = dos_record(record_moves)
        route = "/v1/games/replay"
        read = measure(scanned(route, raw), repeat)
        client = app.test_client()

        def replay() -> str:
            resp = client.post(route, data=raw, content_type="application/json")
            return str(resp.status_code)

        whole = measure(replay, 1)
        record = {"moves": record_moves, "bytes": len(raw), "read": read, "replay": whole}
    app.extensions["sessions"].store.close()
    return {"rows": rows, "record": record, "cap": cap, "repeat": repeat}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--record-moves", type=int, default=200)
    args = parser.parse_args()
    res = run(args.repeat, args.record_moves)
    print(f"CPU ms (median of {res['repeat']}), peak MB; replay value cap {res['cap']:,}")
    head = f"{'body':22} {'route':17} {'MiB':>5} | {'parse first':>20} | {'pre-scan':>20} |"
    print(head + f" {'CPU x':>7} {'mem x':>6} | answers (old; new)")
    for r in res["rows"]:
        (oc, om, oa), (nc, nm, na) = r["old"], r["new"]
        print(
            f"{r['body']:22} {r['route'][9:]:17} {r['bytes'] / MiB:5.2f} | "
            f"{oc:8.1f} ms {om:7.1f} MB | {nc:8.1f} ms {nm:7.1f} MB | "
            f"{oc / max(nc, 0.01):7.1f} {om / max(nm, 0.01):6.1f} | {oa}; {na}"
        )
    rec = res["record"]
    if rec:
        (rc, rm, ra), (wc, wm, wa) = rec["read"], rec["replay"]
        print(
            f"valid DOS record, {rec['moves']:,} moves, {rec['bytes'] / MiB:.2f} MiB: "
            f"read {rc:.1f} ms {rm:.1f} MB ({ra}); read and replayed {wc:.0f} ms {wm:.1f} MB "
            f"(status {wa})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
