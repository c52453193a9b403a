"""The lock files, with hashes: ``make lock`` (``make lock UPGRADE=1`` takes newer versions).

Runs ``uv pip compile`` (standard library only here, so it works from a bare venv). Every
lock is a universal resolution for CPython 3.11 (the image's Python) with a hash for
each file of each pinned version, installed with ``pip --require-hashes``:

| lock | inputs | installed by |
|---|---|---|
| ``dev.txt`` | pyproject.toml: build requires, dependencies, ``dev`` extra; ``tools.in`` | ``make install-dev``, ``make test``, ``make lint`` |
| ``run.txt`` | pyproject.toml: build requires, dependencies; at ``dev.txt``'s versions | the Dockerfile, ``make install``, ``make sbom`` |
| ``checkov.txt`` | ``checkov.in`` (its own venv: its pins clash with the test tools) | ``make lint`` |

Without ``--upgrade`` uv keeps every pin that still fits, so a new dependency changes
only what it must. The first line of each lock is a digest of its inputs; the test
``tests/ops/test_lock.py`` recomputes it and fails when a lock is stale.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent
PYTHON = "3.11"
COMMAND = "make lock"
DIGEST_PREFIX = "# inputs-sha256: "
#: Lock name -> (input files for uv, constraint lock or None). Order matters: dev first.
LOCKS: dict[str, tuple[tuple[str, ...], str | None]] = {
    "dev": (("pyproject.toml", "requirements/tools.in"), None),
    "run": (("pyproject.toml",), "dev"),
    "checkov": (("requirements/checkov.in",), None),
}


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _in_file(path: str) -> list[str]:
    lines = (line.split("#", 1)[0].strip() for line in (ROOT / path).read_text().splitlines())
    return [line for line in lines if line]


def build_requires() -> list[str]:
    return list(_pyproject()["build-system"]["requires"])


def inputs(name: str) -> list[str]:
    """The requirement strings a lock is resolved from, normalised (spaces dropped), sorted."""
    project = _pyproject()["project"]
    found: list[str] = []
    files, _ = LOCKS[name]
    for path in files:
        if path == "pyproject.toml":
            found += build_requires() + list(project.get("dependencies", []))
            if name == "dev":
                found += list(project.get("optional-dependencies", {}).get("dev", []))
        else:
            found += _in_file(path)
    return sorted({"".join(req.split()) for req in found})


def digest(name: str) -> str:
    payload = {"lock": name, "python": PYTHON, "requirements": inputs(name)}
    if LOCKS[name][1]:
        payload["constraint"] = digest(LOCKS[name][1] or "")
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def lock_path(name: str) -> Path:
    return HERE / f"{name}.txt"


def recorded_digest(name: str) -> str | None:
    path = lock_path(name)
    if not path.exists():
        return None
    first = path.read_text().splitlines()[:1]
    return (
        first[0][len(DIGEST_PREFIX) :].strip()
        if first and first[0].startswith(DIGEST_PREFIX)
        else None
    )


def compile_lock(name: str, upgrade: bool = False) -> None:
    files, constraint = LOCKS[name]
    out = lock_path(name)
    args = [
        sys.executable, "-m", "uv", "pip", "compile", "--no-config", "--quiet",
        "--universal", "--python-version", PYTHON, "--generate-hashes",
        "--custom-compile-command", COMMAND, "--output-file", str(out.relative_to(ROOT)),
        *files,
    ]  # fmt: skip
    # uv keeps the pins of the lock it overwrites; one left broken by a merge is dropped
    # (resolved afresh) rather than read.
    if out.exists() and any(
        line.startswith(("<<<<<<<", "=======", ">>>>>>>")) for line in out.read_text().splitlines()
    ):
        print(f"{out.name}: merge conflict markers, resolving afresh", file=sys.stderr)
        out.unlink()
    stdin = None
    if "pyproject.toml" in files:
        # The build backend too: the project is installed with --no-build-isolation.
        args += ["--extra", "dev"] if name == "dev" else []
        args.append("-")
        stdin = "\n".join(build_requires()) + "\n"
    if constraint:
        args += ["--constraint", str(lock_path(constraint).relative_to(ROOT))]
    if upgrade:
        args.append("--upgrade")
    subprocess.run(args, input=stdin, text=True, cwd=ROOT, check=True)
    out.write_text(f"{DIGEST_PREFIX}{digest(name)}\n" + out.read_text())


def main(argv: list[str]) -> int:
    upgrade = "--upgrade" in argv
    for name in LOCKS:
        print(f"requirements/{name}.txt", file=sys.stderr)
        compile_lock(name, upgrade=upgrade)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
