"""Generated clients for the contract tests: the Python client that
openapi-python-client makes from ``openapi.yaml``, made and installed into a temporary
folder, as an integrator would (``make install-dev`` installs the pinned generator)."""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from tools.code_scan import ROOT

SPEC = ROOT / "openapi.yaml"
BIN = Path(sys.executable).parent
#: The package name openapi-python-client derives from ``info.title``.
PACKAGE = "uno_family_rules_service_client"


@dataclass(frozen=True)
class Generated:
    """A generated, installed client: its package and what the generator printed."""

    package: ModuleType
    output: str
    site: Path

    def module(self, name: str) -> ModuleType:
        return importlib.import_module(f"{PACKAGE}.{name}")


def generate_python_client(workdir: Path) -> Generated:
    """Generate the client (``--meta setup``), install it with pip into ``workdir/site``
    (no dependencies: httpx and attrs come with the dev extra) and import it."""
    generator = shutil.which("openapi-python-client", path=str(BIN))
    assert generator, "openapi-python-client is missing: run make install-dev"
    out = workdir / "client"
    # The generator formats its output with ruff (its post hooks): ours, from the venv.
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    run = subprocess.run(
        [generator, "generate", "--path", str(SPEC), "--output-path", str(out), "--meta", "setup"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    output = run.stdout + run.stderr
    assert run.returncode == 0, output
    site = workdir / "site"
    pip = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
         "--no-index", "--target", str(site), str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )  # fmt: skip
    assert pip.returncode == 0, pip.stdout + pip.stderr
    sys.path.insert(0, str(site))
    return Generated(importlib.import_module(PACKAGE), output, site)
