"""Security scanners with written-down exceptions: ``python security/scan.py`` (``make lint``).

bandit reads ``engine/`` and ``service/``; checkov reads the rendered dev and prod overlays
(``kubectl kustomize``) and the Dockerfile. Every finding must match an entry of
``security/accepted.toml`` (which gives the reason), or the scan fails and prints it.
Entries that match nothing are reported as stale. Tools are found beside this Python
(the venv ``make install-dev`` builds); checkov in its own venv, ``.venv/checkov``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ACCEPTED = ROOT / "security" / "accepted.toml"
BIN = Path(sys.executable).parent
CHECKOV = BIN.parent / "checkov" / "bin" / "checkov"
#: What bandit reads, and the rendered overlays checkov reads (with the Dockerfile).
CODE = ("engine", "service")
OVERLAYS = ("dev", "prod")
TOOLS = ("bandit", "checkov")


@dataclass(frozen=True)
class Finding:
    tool: str
    id: str
    where: str  # bandit: a file relative to the repo; checkov: a resource
    text: str

    def __str__(self) -> str:
        return f"{self.tool} {self.id} {self.where}: {self.text}"


def load_accepted(path: Path = ACCEPTED) -> dict[str, list[dict[str, str]]]:
    """The accepted findings by tool; each entry has an id, a place and a one-line reason."""
    data = tomllib.loads(path.read_text())
    unknown = set(data) - set(TOOLS)
    if unknown:
        raise ValueError(f"{path.name}: unknown tables {sorted(unknown)} (tools: {TOOLS})")
    place = {"bandit": "file", "checkov": "resource"}
    for tool, entries in data.items():
        for entry in entries:
            if set(entry) != {"id", place[tool], "reason"}:
                raise ValueError(
                    f"{path.name}: a {tool} entry has id, {place[tool]}, reason: {entry}"
                )
            reason = entry["reason"].strip()
            if not reason or "\n" in reason:
                raise ValueError(f"{path.name}: {entry['id']} needs a one-line reason")
    return {tool: list(data.get(tool, [])) for tool in TOOLS}


def run_bandit(paths: Iterable[str] = CODE, bandit: Path = BIN / "bandit") -> list[Finding]:
    done = subprocess.run(
        [str(bandit), "-r", "-q", "-f", "json", *paths],
        capture_output=True, text=True, cwd=ROOT, check=False,
    )  # fmt: skip
    if done.returncode not in (0, 1):
        raise RuntimeError(f"bandit failed ({done.returncode}): {done.stderr.strip()}")
    report = json.loads(done.stdout)
    if report.get("errors"):
        raise RuntimeError(f"bandit could not read: {report['errors']}")
    found = []
    for result in report["results"]:
        path = (ROOT / result["filename"]).resolve()
        where = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)
        text = f"line {result['line_number']}: {result['issue_text']}"
        found.append(Finding("bandit", result["test_id"], where, text))
    return found


def render(overlay: str, kubectl: Path = BIN / "kubectl") -> str:
    done = subprocess.run(
        [str(kubectl), "kustomize", str(ROOT / "k8s" / "overlays" / overlay)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode:
        raise RuntimeError(f"kubectl kustomize {overlay}: {done.stderr.strip()}")
    return done.stdout


def run_checkov(files: Iterable[Path], checkov: Path = CHECKOV) -> list[Finding]:
    """checkov on the given files, offline (no platform download), every failed check."""
    args = [str(checkov), "--quiet", "--compact", "--skip-download", "--soft-fail"]
    args += ["--framework", "kubernetes", "dockerfile", "--output", "json"]
    for path in files:
        args += ["--file", str(path)]
    done = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, check=False)
    if done.returncode:
        raise RuntimeError(f"checkov failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    reports: Any = json.loads(done.stdout)
    if isinstance(reports, dict):
        reports = [reports]
    found = []
    for report in reports:
        if "results" not in report:  # a framework with nothing to scan
            continue
        for check in report["results"]["failed_checks"]:
            # A file's resources are named by its path ("/abs/Dockerfile.FROM"): made relative.
            resource = check["resource"].removeprefix(f"{ROOT}/")
            found.append(Finding("checkov", check["check_id"], resource, check["check_name"]))
    return found


def scan_checkov(checkov: Path = CHECKOV) -> list[Finding]:
    with tempfile.TemporaryDirectory() as tmp:
        files = [ROOT / "Dockerfile"]
        for overlay in OVERLAYS:
            path = Path(tmp) / f"{overlay}.yaml"
            path.write_text(render(overlay))
            files.append(path)
        return run_checkov(files, checkov)


def judge(
    findings: list[Finding], accepted: dict[str, list[dict[str, str]]], tools: Iterable[str]
) -> tuple[list[Finding], list[dict[str, str]]]:
    """(findings no entry accepts, entries of the scanned tools that match no finding)."""
    place = {"bandit": "file", "checkov": "resource"}
    keys = {(f.tool, f.id, f.where) for f in findings}
    open_findings = [
        f
        for f in findings
        if not any(e["id"] == f.id and e[place[f.tool]] == f.where for e in accepted[f.tool])
    ]
    stale = [
        entry | {"tool": tool}
        for tool in tools
        for entry in accepted[tool]
        if (tool, entry["id"], entry[place[tool]]) not in keys
    ]
    return open_findings, stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=TOOLS, action="append", help="run only this scanner")
    args = parser.parse_args(argv)
    tools = args.only or list(TOOLS)
    accepted = load_accepted()
    findings: list[Finding] = []
    if "bandit" in tools:
        findings += run_bandit()
    if "checkov" in tools:
        findings += scan_checkov()
    open_findings, stale = judge(findings, accepted, tools)
    for entry in stale:
        print(f"stale entry in security/accepted.toml (matches nothing now, remove it): {entry}")
    for finding in open_findings:
        print(f"NOT ACCEPTED {finding}")
    accepted_count = len(findings) - len(open_findings)
    print(
        f"{' + '.join(tools)}: {len(findings)} findings, {accepted_count} accepted "
        f"(security/accepted.toml), {len(open_findings)} not accepted"
    )
    return 1 if open_findings else 0


if __name__ == "__main__":
    sys.exit(main())
