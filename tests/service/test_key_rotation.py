"""Rotating STATE_TOKEN_KEYS as docs/operations.md says (add, roll, retire), keys read from a file.

Each step is a new deployment: the Secret behind STATE_TOKEN_KEYS_FILE changes and the
pods restart (the service reads the file at start). During a rollout the old and the new
step run side by side, so each step must open what the other one seals.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from openapi_core import OpenAPI

from service import create_app
from service.sealing import Keyring
from tests.service.harness import ApiClient, new_game, problem

OLD = Keyring.new_key_spec("k2026a")
NEW = Keyring.new_key_spec("k2026b")
STEPS = {
    "before": OLD,
    "add": f"{OLD},{NEW}",  # the old key still seals; every pod learns the new one
    "roll": f"{NEW},{OLD}",  # the new key seals; the old one still opens
    "retire": NEW,  # old tokens are refused from now on
}


@pytest.fixture
def deploy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, openapi_spec: OpenAPI
) -> Iterator[dict[str, ApiClient]]:
    """One app per step, each started with the keys file as that step writes it."""
    secret = tmp_path / "STATE_TOKEN_KEYS"
    monkeypatch.delenv("STATE_TOKEN_KEYS", raising=False)
    monkeypatch.setenv("STATE_TOKEN_KEYS_FILE", str(secret))
    apps: list[Flask] = []
    clients = {}
    for step, spec in STEPS.items():
        secret.write_text(spec + "\n")
        app = create_app({"TESTING": True})
        assert not app.extensions["state_keys"].ephemeral
        apps.append(app)
        clients[step] = ApiClient(app.test_client(), openapi_spec)
    yield clients
    for app in apps:
        app.extensions["sessions"].store.close()


def opens(client: ApiClient, token: str) -> bool:
    resp = client.post("/v1/games/score", json={"state_token": token})
    if resp.status_code == 200:
        return True
    problem(resp, 422, "invalid_state_token")
    return False


def sealed(client: ApiClient) -> str:
    token = new_game(client, sealed=True, players=2, seed=7)["state_token"]
    assert isinstance(token, str)
    return token


def test_a_token_sealed_under_the_old_key_opens_during_the_roll_and_not_after(
    deploy: dict[str, ApiClient],
) -> None:
    old_token = sealed(deploy["before"])
    assert old_token.startswith("st1.k2026a.")
    assert opens(deploy["add"], old_token)
    assert opens(deploy["roll"], old_token)
    assert not opens(deploy["retire"], old_token)


def test_each_step_opens_what_the_step_beside_it_seals(deploy: dict[str, ApiClient]) -> None:
    """Mixed fleets during a rollout: before+add, add+roll, roll+retire."""
    assert sealed(deploy["add"]).startswith("st1.k2026a.")
    new_token = sealed(deploy["roll"])
    assert new_token.startswith("st1.k2026b.")
    order = list(STEPS)
    for earlier, later in zip(order, order[1:], strict=False):
        assert opens(deploy[earlier], sealed(deploy[later])), (earlier, later)
        assert opens(deploy[later], sealed(deploy[earlier])), (later, earlier)
    # Skipping "add" breaks the rollout: a pod still "before" refuses new-key tokens.
    assert not opens(deploy["before"], new_token)
    assert opens(deploy["retire"], new_token)


def test_a_running_app_keeps_its_keys_until_it_restarts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, openapi_spec: OpenAPI
) -> None:
    secret = tmp_path / "keys"
    secret.write_text(OLD)
    monkeypatch.delenv("STATE_TOKEN_KEYS", raising=False)
    monkeypatch.setenv("STATE_TOKEN_KEYS_FILE", str(secret))
    app = create_app({"TESTING": True})
    client = ApiClient(app.test_client(), openapi_spec)
    secret.write_text(NEW)  # the Secret changes under a running pod
    assert sealed(client).startswith("st1.k2026a.")
    app.extensions["sessions"].store.close()


def test_the_key_helper_prints_a_key_and_no_warning() -> None:
    """``python -m service.sealing`` prints one key spec (docs/operations.md's first step)."""
    done = subprocess.run(
        [sys.executable, "-W", "error", "-m", "service.sealing"],
        capture_output=True, text=True, timeout=120, cwd=Path(__file__).resolve().parents[2],
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    (line,) = done.stdout.splitlines()
    ring = Keyring.parse(line)
    assert ring.active == "k1" and len(ring.keys["k1"]) == 32
