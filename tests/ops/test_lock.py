"""The lock files (requirements/*.txt) are current, hashed, consistent and what is installed."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.ops.support import ROOT
from tests.ops.test_dockerfile import instructions

REFRESH = "run `make lock` and commit requirements/"
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)\s*(?:;\s*([^\\]+?))?\s*\\?$")


def lock_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "lock_under_test", ROOT / "requirements" / "lock.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


LOCK = lock_module()


def pins(name: str) -> dict[str, tuple[str, str | None, int]]:
    """Package -> (version, marker or None, number of hashes) of a lock file."""
    found: dict[str, tuple[str, str | None, int]] = {}
    current = None
    for line in LOCK.lock_path(name).read_text().splitlines():
        match = PIN.match(line)
        if match:
            current = canonicalize_name(match[1])
            found[current] = (match[2], match[3], 0)
        elif line.strip().startswith("--hash=sha256:") and current:
            version, marker, hashes = found[current]
            found[current] = (version, marker, hashes + 1)
        elif line and not line.startswith(" "):
            current = None
    return found


def applies(marker: str | None) -> bool:
    return marker is None or Marker(marker).evaluate()


@pytest.mark.parametrize("name", list(LOCK.LOCKS))
def test_lock_is_current(name: str) -> None:
    recorded = LOCK.recorded_digest(name)
    assert recorded is not None, f"requirements/{name}.txt is missing or has no digest: {REFRESH}"
    assert recorded == LOCK.digest(name), (
        f"requirements/{name}.txt is stale: pyproject.toml or requirements/*.in changed "
        f"after it was made; {REFRESH}"
    )


@pytest.mark.parametrize("name", list(LOCK.LOCKS))
def test_every_input_is_pinned_within_its_range_with_hashes(name: str) -> None:
    locked = pins(name)
    assert locked, name
    for raw in LOCK.inputs(name):
        req = Requirement(raw)
        if req.marker is not None and not req.marker.evaluate():
            continue
        key = canonicalize_name(req.name)
        assert key in locked, f"{req.name} is not in requirements/{name}.txt: {REFRESH}"
        version = locked[key][0]
        assert req.specifier.contains(version, prereleases=True), (
            f"requirements/{name}.txt pins {req.name}=={version}, outside {raw}: {REFRESH}"
        )
    unhashed = [package for package, (_, _, hashes) in locked.items() if not hashes]
    assert not unhashed, f"requirements/{name}.txt: no hash for {unhashed}"


def test_the_image_gets_the_tested_versions() -> None:
    """run.txt is dev.txt cut down to the service's dependencies, version for version."""
    dev, run = pins("dev"), pins("run")
    differ = {
        p: (v, dev.get(p, ("absent",))[0])
        for p, (v, _, _) in run.items()
        if dev.get(p, ("",))[0] != v
    }
    assert not differ, f"run.txt vs dev.txt versions: {differ}; {REFRESH}"
    assert "setuptools" in run, "the build backend is locked (installed with --no-build-isolation)"


def test_this_environment_is_the_locked_one() -> None:
    """make test installed requirements/dev.txt: every locked package at its locked version."""
    wrong = {}
    for package, (version, marker, _) in pins("dev").items():
        if not applies(marker):
            continue
        try:
            installed = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            installed = "absent"
        if installed != version:
            wrong[package] = f"{installed} (locked {version})"
    assert not wrong, f"not the locked versions (run `make install-dev`): {wrong}"


def test_the_lock_targets_the_images_python() -> None:
    image = dict(instructions())["ARG"]
    match = re.fullmatch(r"PYTHON_IMAGE=python:(\d+\.\d+)\.\d+-slim-bookworm", image)
    assert match and match[1] == LOCK.PYTHON, (image, LOCK.PYTHON)


def test_the_dockerfile_installs_only_the_lock() -> None:
    runs = [rest for word, rest in instructions() if word == "RUN" and "pip install" in rest]
    assert runs
    locked = [cmd for cmd in runs if "-r requirements/run.txt" in cmd]
    assert locked and all("--require-hashes" in cmd for cmd in locked), runs
    for cmd in runs:
        # Anything else pip installs is the project itself, without its dependencies.
        assert cmd in locked or ("--no-deps" in cmd and "--no-build-isolation" in cmd), cmd


def test_lock_inputs_follow_pyproject(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A new dependency in pyproject.toml changes the digest of dev.txt and run.txt."""
    before = {name: LOCK.digest(name) for name in LOCK.LOCKS}
    text = (ROOT / "pyproject.toml").read_text()
    changed = text.replace("dependencies = [\n", 'dependencies = [\n    "six>=1",\n', 1)
    assert changed != text
    (tmp_path / "pyproject.toml").write_text(changed)
    (tmp_path / "requirements").mkdir()
    for path in (ROOT / "requirements").glob("*.in"):
        (tmp_path / "requirements" / path.name).write_text(path.read_text())
    monkeypatch.setattr(LOCK, "ROOT", tmp_path)
    after = {name: LOCK.digest(name) for name in LOCK.LOCKS}
    assert after["dev"] != before["dev"] and after["run"] != before["run"]
    assert after["checkov"] == before["checkov"]
    assert "six>=1" in LOCK.inputs("run")
