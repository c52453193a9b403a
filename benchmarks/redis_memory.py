"""What sessions cost Redis in memory, measured: ``python benchmarks/redis_memory.py``.

A throwaway ``redis-server`` (no persistence) on a free loopback port; the service's
app plays through its test client (the same scripts and keys as under gunicorn).
``used_memory`` (INFO memory) is read before and after:

- ``sessions`` two-seat ``uno_classic`` sessions are made and each played ``moves``
  keyed moves (``Idempotency-Key`` on each): bytes per active session;
- then one session plays ``long_moves`` keyed moves more: bytes per 1,000 moves
  (the event stream grows with every move; the idempotent answers are bounded);
- then every session is deleted: what is left (0 expected).

The figures depend on the state's size (the variant, the number of seats) and on
Redis' allocator; they are for sizing ``maxmemory``, not exact.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.redis_procs import RedisServer, free_port  # noqa: E402


def _used(r: Any) -> int:
    return int(r.info("memory")["used_memory"])


def _play(client: Any, sid: str, tokens: list[str], version: int, moves: int) -> int:
    for i in range(moves):
        spectator = client.get(f"/v1/sessions/{sid}").get_json()
        view = spectator["view"]
        if view["phase"] == "game_over":
            break
        seat = view["pending"]["player"] if view["pending"] else view["current_player"]
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        body = client.get(f"/v1/sessions/{sid}", headers=auth).get_json()
        move = next(m for m in body["legal_moves"] if m["type"] not in ("uno", "catch"))
        r = client.post(
            f"/v1/sessions/{sid}/moves",
            json={"move": move},
            headers={**auth, "If-Match": f'"{version}"', "Idempotency-Key": f"k{i}-{sid}"},
        )
        assert r.status_code == 200, r.get_data(as_text=True)
        version += 1
    return version


def run(sessions: int = 200, moves: int = 20, long_moves: int = 1000) -> dict[str, Any]:
    import redis

    from service import create_app

    server = RedisServer(free_port())
    server.start()
    try:
        r = redis.Redis.from_url(server.url)
        app = create_app({"REDIS_URL": server.url, "SESSION_KEY_PREFIX": "m:"})
        client = app.test_client()
        base = _used(r)
        made: list[tuple[str, list[str], int]] = []
        for i in range(sessions):
            resp = client.post(
                "/v1/sessions", json={"variant": "uno_classic", "players": 2, "seed": i}
            )
            body = resp.get_json()
            sid, tokens = body["session_id"], [s["token"] for s in body["seats"]]
            made.append((sid, tokens, _play(client, sid, tokens, 1, moves)))
        active = _used(r)
        # One long game (several rounds; a new session when a game ends).
        played, before = 0, _used(r)
        long_sessions: list[tuple[str, list[str]]] = []
        while played < long_moves:
            resp = client.post(
                "/v1/sessions",
                json={"variant": "uno_classic", "players": 2, "seed": 10_000 + played},
            )
            body = resp.get_json()
            sid, tokens = body["session_id"], [s["token"] for s in body["seats"]]
            long_sessions.append((sid, tokens))
            played += _play(client, sid, tokens, 1, long_moves - played) - 1
        per_1000 = (_used(r) - before - len(long_sessions) * (active - base) / sessions) * (
            1000 / played
        )
        for sid, tokens, _ in made:
            client.delete(f"/v1/sessions/{sid}", headers={"Authorization": f"Bearer {tokens[0]}"})
        for sid, tokens in long_sessions:
            client.delete(f"/v1/sessions/{sid}", headers={"Authorization": f"Bearer {tokens[0]}"})
        left = [k.decode() for k in r.scan_iter(match="m:{*")]
        out = {
            "sessions": sessions,
            "moves_each": moves,
            "bytes_per_active_session": (active - base) / sessions,
            "long_moves": played,
            "long_sessions": len(long_sessions),
            "bytes_per_1000_moves": per_1000,
            "keys_left_after_delete": len(left),
        }
        app.extensions["sessions"].store.close()
        r.close()
        return out
    finally:
        server.stop()


if __name__ == "__main__":
    res = run()
    print(json.dumps(res, indent=2))
