"""Helpers for the ops tests: the linters in the venv, rendered overlays."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any, NoReturn

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
K8S = ROOT / "k8s"
OVERLAYS = ("dev", "prod")
# The tools `make test` installs into the venv beside the interpreter.
BIN = Path(sys.executable).parent


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def missing(what: str) -> NoReturn:
    """A tool that is not installed: a failure under CI (make test installs it), else a skip."""
    reason = f"{what} is not installed (make test installs it into the venv)"
    if in_ci():
        pytest.fail(reason)
    pytest.skip(reason)


def tool(name: str) -> str:
    path = BIN / name
    if not path.exists():
        missing(name)
    return str(path)


def run(
    args: list[str], stdin: str | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, input=stdin, capture_output=True, text=True, timeout=timeout, cwd=ROOT
    )


_rendered: dict[str, str] = {}


def render(target: str) -> str:
    """``kubectl kustomize`` of ``k8s/base`` or an overlay, asserting it succeeds."""
    if target not in _rendered:
        path = K8S / "base" if target == "base" else K8S / "overlays" / target
        done = run([tool("kubectl"), "kustomize", str(path)])
        assert done.returncode == 0, done.stderr
        _rendered[target] = done.stdout
    return _rendered[target]


def yaml_documents(text: str) -> list[dict[str, Any]]:
    """The non-empty documents of a YAML stream."""
    try:
        import yaml
    except ImportError:
        missing("PyYAML")
    return [doc for doc in yaml.safe_load_all(text) if doc]


def documents(target: str) -> list[dict[str, Any]]:
    return yaml_documents(render(target))
