"""The engine runs unchanged on every CPython that ``pyproject.toml`` names (3.11, the
interpreter of this test run, and 3.12 and 3.13): each other one found on the machine
runs the engine's own rule and record tests, with nothing installed for it (the
engine needs no package; pytest's pure-Python packages are lent from this run).

An interpreter that is not on the machine is skipped, saying which and where it was
looked for; the classifiers in ``pyproject.toml`` are checked against the list here.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
#: The interpreters run besides this one (``pyproject.toml``'s classifiers name them).
OTHERS = ("3.12", "3.13")
#: The engine's tests that import nothing but the engine and pytest, run by each.
ENGINE_TESTS = (
    "tests/engine/rules/test_classic.py",
    "tests/engine/rules/test_flip.py",
    "tests/engine/rules/test_duo.py",
    "tests/engine/rules/test_dos.py",
    "tests/engine/rules/test_all_wild.py",
    "tests/engine/rules/test_pocket_pizza.py",
    "tests/engine/rules/test_state.py",
    "tests/engine/records/test_records.py",
    "tests/engine/records/test_rng.py",
)
#: Of those, the tests that read the service's API description (they need its packages).
SERVICE_TESTS = (
    "tests/engine/records/test_records.py::test_the_spec_states_the_record_format_as_the_engine_does",
)
#: pytest and what it imports, all pure Python: lent to the other interpreters.
PYTEST_PACKAGES = ("pytest", "_pytest", "pluggy", "iniconfig", "packaging", "pygments", "py.py")


def find_python(version: str) -> str | None:
    """A working ``python3.12`` (say): under pyenv's versions (``PYENV_ROOT``), else on
    the PATH (a pyenv shim for a version not selected exits with an error: skipped)."""
    root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    found = shutil.which(f"python{version}")
    for python in [*sorted(glob.glob(f"{root}/versions/{version}.*/bin/python{version}")), found]:
        if python is None:
            continue
        probe = subprocess.run(
            [python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        if probe.returncode == 0 and probe.stdout.strip() == version:
            return python
    return None


def test_the_classifiers_name_the_interpreters_run_here() -> None:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    named = sorted(
        c.rsplit(" :: ", 1)[1]
        for c in meta["classifiers"]
        if c.startswith("Programming Language :: Python :: 3.")
    )
    assert named == sorted({f"{sys.version_info[0]}.{sys.version_info[1]}", *OTHERS})
    assert meta["requires-python"] == ">=3.11"


@pytest.mark.slow
@pytest.mark.parametrize("version", OTHERS)
def test_the_engine_tests_pass_on(version: str, tmp_path: Path) -> None:
    python = find_python(version)
    if python is None:
        pytest.skip(f"no working python{version} under ~/.pyenv/versions/ nor on the PATH")
    lent = tmp_path / "site"
    lent.mkdir()
    site = Path(pytest.__file__).resolve().parent.parent
    for name in PYTEST_PACKAGES:
        if (site / name).exists():
            (lent / name).symlink_to(site / name)
    done = subprocess.run(
        [python, "-m", "pytest", "-x", "-m", "not slow", "-p", "no:cacheprovider",
         "--noconftest", *ENGINE_TESTS, *(f"--deselect={t}" for t in SERVICE_TESTS)],
        cwd=ROOT, capture_output=True, text=True, timeout=1200,
        env={**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{lent}", "PYTHONDONTWRITEBYTECODE": "1"},
    )  # fmt: skip
    tail = (done.stdout + done.stderr)[-2000:]
    assert done.returncode == 0, tail
    assert " passed" in tail and "error" not in tail.lower(), tail
