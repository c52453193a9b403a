"""The Dockerfile lints clean and keeps the image's promises (hadolint cannot build it here)."""

from __future__ import annotations

import json
import re

from tests.ops.support import ROOT, run, tool

DOCKERFILE = ROOT / "Dockerfile"


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    pairs = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            pairs.append((word.upper(), rest.strip()))
    return pairs


def final_stage() -> list[tuple[str, str]]:
    pairs = instructions()
    last_from = max(i for i, (word, _) in enumerate(pairs) if word == "FROM")
    return pairs[last_from:]


def test_hadolint_reports_nothing() -> None:
    done = run([tool("hadolint"), "--no-color", str(DOCKERFILE)])
    assert done.returncode == 0 and not done.stdout.strip(), done.stdout + done.stderr


def test_base_image_is_a_pinned_slim_python_311() -> None:
    args = dict(instructions())["ARG"]
    assert re.fullmatch(r"PYTHON_IMAGE=python:3\.11\.\d+-slim-bookworm", args), args
    froms = [rest for word, rest in instructions() if word == "FROM"]
    assert len(froms) >= 2, "multi-stage: a builder and a runtime"
    assert all(rest.startswith("${PYTHON_IMAGE}") for rest in froms)


def test_runtime_runs_as_numeric_non_root_user() -> None:
    users = [rest for word, rest in final_stage() if word == "USER"]
    assert users and re.fullmatch(r"10001(:10001)?", users[-1])


def test_runtime_environment() -> None:
    env = " ".join(rest for word, rest in final_stage() if word == "ENV")
    for setting in ("PYTHONUNBUFFERED=1", "PYTHONDONTWRITEBYTECODE=1", "PYTHONPATH=/app"):
        assert setting in env


def test_cmd_is_exec_form_gunicorn_with_the_config_module() -> None:
    cmd = json.loads(dict(final_stage())["CMD"])
    assert cmd[:3] == ["python", "-m", "gunicorn"]
    assert cmd[cmd.index("--config") + 1] == "/app/service/gunicorn_conf.py"


def test_healthcheck_uses_python_on_healthz_and_port_8000_is_exposed() -> None:
    stage = dict(final_stage())
    assert stage["EXPOSE"] == "8000"
    health = stage["HEALTHCHECK"]
    exec_form = json.loads(health[health.index("CMD") + 3 :])
    assert exec_form[:2] == ["python", "-c"] and "/healthz" in exec_form[2]


def test_openapi_spec_is_copied_beside_the_service_package() -> None:
    copies = [rest.split() for word, rest in final_stage() if word == "COPY"]
    workdir = [rest for word, rest in final_stage() if word == "WORKDIR"][-1]
    assert workdir == "/app"
    assert any("openapi.yaml" in parts[:-1] for parts in copies)
    assert any(parts[:-1] == ["service/"] and parts[-1] == "service/" for parts in copies)


def test_rules_documents_are_copied_where_the_service_reads_them() -> None:
    from service.rules_docs import RULES_DIR

    copies = [rest.split() for word, rest in final_stage() if word == "COPY"]
    where = RULES_DIR.relative_to(ROOT).as_posix() + "/"
    assert [where, where] in copies


def test_every_copied_path_exists_and_is_in_the_build_context() -> None:
    allowed = {
        line[1:].rstrip("/")
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.startswith("!")
    }
    for word, rest in instructions():
        parts = rest.split()
        if word != "COPY" or any(p.startswith("--from") for p in parts):
            continue
        for source in (p for p in parts[:-1] if not p.startswith("--")):
            source = source.rstrip("/")
            assert (ROOT / source).exists(), f"COPY {source}: no such file in the repo"
            assert source in allowed, f"COPY {source}: excluded by .dockerignore"
