"""A session move followed call by call, from the API to the store: the modules on the
call stack when the store is reached are the API, the moves, the repository and the
store (issue 48: the manager forwarded the move, 5 modules deep then, 4 now)."""

from __future__ import annotations

import sys
from pathlib import Path
from types import FrameType
from typing import Any

import service
from tests.sessions.conftest import Api, first_move, make_app, mover, two_humans

ROOT = str(Path(service.__file__).parent) + "/"
STORE_MODULES = ("sessions/memory.py", "sessions/redis_store.py", "redis/client.py")


def module_of(frame: FrameType) -> str | None:
    name = frame.f_code.co_filename
    return name.removeprefix(ROOT) if name.startswith(ROOT) else None


def deepest_path_to_the_store(send: Any) -> tuple[list[str], Any]:
    """The longest chain of service modules on the stack at a call into a store module
    while ``send()`` runs (a module calling itself counts once), and its answer."""
    deepest: list[str] = []

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal deepest
        if event != "call" or module_of(frame) not in STORE_MODULES:
            return
        chain: list[str] = []
        at: FrameType | None = frame
        while at is not None:
            name = module_of(at)
            if name is not None and (not chain or chain[-1] != name):
                chain.append(name)
            at = at.f_back
        if len(chain) > len(deepest):
            deepest = chain[::-1]

    sys.setprofile(profile)
    try:
        answer = send()
    finally:
        sys.setprofile(None)
    return deepest, answer


def test_a_move_reaches_the_store_through_the_moves_and_the_repository() -> None:
    app = make_app({"TESTING": True})
    api = Api(app.test_client())
    sid, tokens, _ = two_humans(api)
    for _ in range(2):  # the second move is traced: imports and caches are warm
        seat, body = mover(api, sid, tokens)
        args = (sid, tokens[seat], first_move(body), body["version"])
        chain, r = deepest_path_to_the_store(lambda args=args: api.move(*args))
        assert r.status_code == 200, r.get_data(as_text=True)
    assert chain == [
        "sessions/api.py",
        "sessions/moves.py",
        "sessions/repo.py",
        "sessions/memory.py",
    ], chain
