"""cyclonedx-py (make sbom) lists every locked runtime package with its version and purl."""

from __future__ import annotations

import json
import sys

from packaging.utils import canonicalize_name

from tests.ops.support import run, tool
from tests.ops.test_lock import applies, pins


def test_the_sbom_of_the_locked_environment_covers_run_txt() -> None:
    # This venv holds dev.txt, a superset of run.txt at the same versions (test_lock.py).
    done = run(
        [tool("cyclonedx-py"), "environment", "--pyproject", "pyproject.toml",
         "--output-reproducible", "--of", "JSON", "-o", "-", sys.executable],
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    bom = json.loads(done.stdout)
    assert bom["bomFormat"] == "CycloneDX" and "serialNumber" not in bom
    assert bom["metadata"]["component"]["name"] == "uno-rules-service"
    listed: dict[str, tuple[str, str]] = {
        canonicalize_name(c["name"]): (c["version"], c.get("purl", "")) for c in bom["components"]
    }
    for package, (version, marker, _) in pins("run").items():
        if not applies(marker):
            continue
        assert package in listed, f"{package} is not in the SBOM"
        assert listed[package][0] == version, (package, listed[package], version)
        assert listed[package][1].startswith("pkg:pypi/"), (package, listed[package])
