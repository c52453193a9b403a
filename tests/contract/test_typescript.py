"""openapi.yaml as TypeScript integrators and linters read it: openapi-typescript 7.13.0
types compiled with ``tsc --strict --noEmit`` against ``clients/typescript/src/check.ts``
(which narrows a Move and an Event by ``type``, assigns ``Problem.code`` to literal codes,
passes typed options and sends a session move) and ``src/listed_moves.ts`` (a listed
play's ``card`` is a ``number``, a listed move goes back as it is, a hand card has its
id); their ``@ts-expect-error`` lines fail the compile if the types let a wrong program
through, and ``redocly lint`` with its
recommended rules. The node packages are pinned in ``clients/typescript/package-lock.json``
and installed by ``make test`` / ``make lint`` (``npm ci``)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from tools.code_scan import ROOT

#: One xdist worker runs them all in turn (make test's --dist loadgroup): they write the
#: same generated/api.d.ts, and one adds a file that makes every other compile fail.
pytestmark = pytest.mark.xdist_group("typescript")

PKG = ROOT / "clients" / "typescript"
BIN = PKG / "node_modules" / ".bin"


def _run(tool: str, *args: str, cwd: Path = PKG) -> subprocess.CompletedProcess[str]:
    exe = BIN / tool
    assert exe.exists(), f"{exe} is missing: run `make node-tools` (npm ci in {PKG})"
    return subprocess.run(
        [str(exe), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        # redocly: no usage telemetry, no update check.
        env={**os.environ, "REDOCLY_TELEMETRY": "off", "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true"},
    )


def test_the_typescript_program_compiles_strictly_against_the_generated_types() -> None:
    out = PKG / "generated" / "api.d.ts"
    gen = _run("openapi-typescript", "../../openapi.yaml", "--output", str(out))
    assert gen.returncode == 0, gen.stdout + gen.stderr
    assert not re.search(r"(?i)warn|error", gen.stdout + gen.stderr), gen.stdout + gen.stderr
    text = out.read_text()
    # No bare object became an empty record (a property or a schema typed so).
    assert not re.search(r"(\w\??|\]): Record<string, never>", text)
    tsc = _run("tsc", "--strict", "--noEmit", "-p", ".")
    assert tsc.returncode == 0, tsc.stdout + tsc.stderr


def test_the_typescript_check_refuses_what_it_should(tmp_path: Path) -> None:
    """The compile can fail: a program that reads a play's field off any move does not
    type-check (Move is a union narrowed only by ``type``)."""
    bad = PKG / "src" / "zz_wrong.ts"
    bad.write_text(
        'import type { components } from "../generated/api";\n'
        'export const card = (m: components["schemas"]["Move"]): number => m.card;\n'
    )
    try:
        if not (PKG / "generated" / "api.d.ts").exists():
            _run("openapi-typescript", "../../openapi.yaml", "--output", "generated/api.d.ts")
        tsc = _run("tsc", "--strict", "--noEmit", "-p", ".")
    finally:
        bad.unlink()
    assert tsc.returncode != 0 and "zz_wrong.ts" in tsc.stdout, tsc.stdout


def test_redocly_lint_with_the_recommended_rules_finds_no_error_and_no_warning() -> None:
    """As make lint runs it, from the root: the findings accepted after review are in
    .redocly.lint-ignore.yaml, each with its reason; any other one fails."""
    lint = _run("redocly", "lint", "openapi.yaml", "--format=stylish", cwd=ROOT)
    output = lint.stdout + lint.stderr
    assert lint.returncode == 0, output
    assert not re.search(r"\berror\b", output.replace("0 errors", "")), output
    assert not re.search(r"\bwarnings?\b", output.replace("Deprecation warning", "")), output
