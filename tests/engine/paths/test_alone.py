"""The engine's tests need neither the service nor Redis: ``tests/engine`` collects and
passes in a Python where ``service``, ``redis`` and ``flask`` cannot be imported (as in
a checkout of the engine alone)."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
ENGINE_TESTS = ROOT / "tests" / "engine"
HIDDEN = ("service", "redis", "flask")
#: Test modules outside tests/engine that need the service or Redis.
AWAY = ("tests.service", "tests.sessions", "tests.notifier", "tests.redis_procs")
RUNNER = textwrap.dedent(
    f"""
    import importlib.abc, sys

    class Hide(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in {HIDDEN!r}:
                raise ModuleNotFoundError(f"No module named {{name!r}} (hidden)", name=name)
            return None

    sys.meta_path.insert(0, Hide())
    import pytest

    sys.exit(pytest.main(sys.argv[1:]))
    """
)


def pytest_alone(*args: str) -> subprocess.CompletedProcess[str]:
    """pytest on tests/engine (this module left out) with ``HIDDEN`` unimportable."""
    return subprocess.run(
        [sys.executable, "-c", RUNNER, "-q", "-p", "no:cacheprovider",
         f"--ignore={Path(__file__).relative_to(ROOT)}", *args, "tests/engine"],
        capture_output=True, text=True, cwd=ROOT, timeout=1200, check=False,
    )  # fmt: skip


def imported_names(path: Path) -> set[str]:
    """Every module ``path`` imports, anywhere in it (a function's own imports too)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def test_no_engine_test_imports_the_service_or_redis() -> None:
    """Not even inside a test: a lazy import would pass collection and fail the run."""
    found = {
        f"{path.relative_to(ROOT)}: {name}"
        for path in sorted(ENGINE_TESTS.rglob("*.py"))
        for name in imported_names(path)
        if name.split(".")[0] in HIDDEN or name.startswith(AWAY)
    }
    assert not found, sorted(found)


@pytest.mark.slow  # a pytest in a subprocess: the import check above is the quick guard
def test_the_engine_tests_collect_without_the_service_and_redis() -> None:
    done = pytest_alone("--collect-only")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "(hidden)" not in done.stdout
    counts = [line.rsplit(": ", 1) for line in done.stdout.splitlines() if ".py: " in line]
    assert sum(int(n) for _, n in counts) > 1000, done.stdout[-2000:]


@pytest.mark.slow
def test_the_engine_tests_pass_without_the_service_and_redis() -> None:
    """The day-to-day part (``-m 'not slow'``: the bots' strength and golden games are
    covered by the import check above)."""
    done = pytest_alone("-x", "-m", "not slow")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
