"""The parts wired once (no part set after it is built, no method that only forwards,
no circle of parts); one settings object and one wall clock for every part, what the metrics
read, readiness."""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

import pytest

from service import notifier, sessions
from service.sessions.config import Env, SessionConfig
from service.sessions.manager import SessionManager
from service.sessions.memory import MemoryStore
from service.sessions.outbox import Outbox
from service.sessions.store import SessionStore, StoreUnavailable

from .conftest import SpyStore, Time, created


def test_the_settings_and_the_clock_are_every_parts(mgr: SessionManager, clock: Time) -> None:
    mgr.config = replace(mgr.config, max_bot_moves=3)
    parts = (mgr.timekeeper, mgr.seats, mgr.moves, mgr.streams, mgr.creation, mgr.presence)
    assert all(p.env.config.max_bot_moves == 3 for p in parts)
    later = Time(clock.t + 100)
    mgr.now = later
    assert all(p.env.now is later for p in parts) and mgr.cache.peek("x") is None


def test_stats_count_the_cached_and_the_stored_sessions(mgr: SessionManager) -> None:
    assert mgr.stats() == {"cached": 0, "stored": 0}
    created(mgr, 2)
    created(mgr, 2)
    mgr.cache.clear()
    assert mgr.stats() == {"cached": 0, "stored": 2}
    created(mgr, 2)
    assert mgr.stats() == {"cached": 1, "stored": 3}


def test_a_store_that_cannot_count_says_so() -> None:
    class Uncounted(SpyStore):
        def count(self) -> None:  # type: ignore[override]
            return None

    assert SessionManager(Uncounted(), SessionConfig()).stats()["stored"] is None


def test_ready_is_a_write_the_store_can_take(monkeypatch: pytest.MonkeyPatch) -> None:
    store = MemoryStore(60, 10)
    mgr = SessionManager(store, SessionConfig())
    assert mgr.ready() == {"store": "memory", "ok": True}

    def full() -> None:
        raise StoreUnavailable("OutOfMemoryError")

    monkeypatch.setattr(store, "ping", full)
    assert mgr.ready() == {"store": "memory", "ok": False}


# ---------------------------------------------------------------- wired once
ROOTS = [Path(sessions.__file__).parent, Path(notifier.__file__).parent]


def _modules() -> list[tuple[str, ast.Module]]:
    return [(p.name, ast.parse(p.read_text())) for r in ROOTS for p in sorted(r.glob("*.py"))]


def _set_after_construction(tree: ast.Module) -> list[int]:
    """Lines that set an attribute of an object this one holds (``self.repo.outbox =``);
    but the shared ``Env``'s settings and clock, which are there to be replaced for every
    part at once (``SessionManager.config``, ``.now``)."""
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign)
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Attribute)
        and isinstance(target.value, ast.Attribute)
        and ast.unparse(target.value) != "self.env"
    ]


def _another(func: ast.expr) -> bool:
    """``func`` is another part's (``self.moves.move``) or a function (``json_body``), not
    this object's own state (``self._entries.get``)."""
    if isinstance(func, ast.Name):
        return True
    held = func.value if isinstance(func, ast.Attribute) else None
    return (
        isinstance(held, ast.Attribute)
        and isinstance(held.value, ast.Name)
        and held.value.id == "self"
        and not held.attr.startswith("_")
    )


def _forwarders(tree: ast.Module) -> list[str]:
    """Functions whose whole body (after a docstring) hands its own parameters, in order,
    to one other call: they only forward."""
    found = []
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef) or fn.decorator_list:
            continue
        body = fn.body[1:] if ast.get_docstring(fn) is not None else fn.body
        params = [a.arg for a in fn.args.args if a.arg != "self"]
        if len(body) != 1 or not isinstance(body[0], ast.Return) or not params:
            continue
        call = body[0].value
        if isinstance(call, ast.Call) and not call.keywords and _another(call.func):
            args = [a.id if isinstance(a, ast.Name) else None for a in call.args]
            if args == params:
                found.append(f"{fn.name}:{fn.lineno}")
    return found


def test_no_part_is_set_after_it_is_built() -> None:
    found = {name: lines for name, tree in _modules() if (lines := _set_after_construction(tree))}
    assert not found


def test_no_function_only_forwards() -> None:
    found = {name: fns for name, tree in _modules() if (fns := _forwarders(tree))}
    assert not found


def test_the_checks_find_what_they_look_for() -> None:
    tree = ast.parse(
        "class M:\n"
        "    def __init__(self, a):\n"
        "        self.repo.outbox = a\n"
        "    def move(self, sid, req):\n"
        "        return self.moves.move(sid, req)\n"
    )
    assert _set_after_construction(tree) == [3] and _forwarders(tree) == ["move:4"]


def _parts(obj: object) -> list[object]:
    """The session parts ``obj`` holds (objects of a class of ``service.sessions``, but
    the shared settings and the store)."""
    held = [v for v in vars(obj).values() if type(v).__module__.startswith("service.sessions.")]
    return [v for v in held if not isinstance(v, Env | SessionConfig | SessionStore)]


def test_the_parts_hold_one_another_in_no_circle(mgr: SessionManager) -> None:
    """repo -> outbox -> timekeeper -> repo was one: a part reaches no part that holds it."""
    circles = []

    def walk(obj: object, path: tuple[object, ...]) -> None:
        for part in _parts(obj):
            if any(part is p for p in path):
                circles.append(" -> ".join(type(p).__name__ for p in (*path, part)))
            else:
                walk(part, (*path, part))

    for part in _parts(mgr):
        walk(part, (part,))
    assert not circles
    assert any(isinstance(p, Outbox) for p in _parts(mgr.repo))  # given when it is built
