"""REDIS_URL and STATE_TOKEN_KEYS come from the environment or from a file (*_FILE)."""

from __future__ import annotations

from pathlib import Path

import pytest

from service import create_app, secretfiles
from service.sealing import Keyring, seal, unseal
from service.sessions.config import SessionConfig

KEYS = Keyring.new_key_spec("k1")
URL = "redis://:s3cret@redis.example:6379/0"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in secretfiles.SECRETS:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name + secretfiles.SUFFIX, raising=False)


def secret_file(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("name", secretfiles.SECRETS)
def test_from_the_environment_or_from_a_file_alike(name: str, tmp_path: Path) -> None:
    value = KEYS if name == "STATE_TOKEN_KEYS" else URL
    assert secretfiles.read(name, {name: f" {value} "}) == value
    # A mounted Secret often ends with a newline.
    path = secret_file(tmp_path, name, value + "\n")
    assert secretfiles.read(name, {f"{name}_FILE": path}) == value
    assert secretfiles.read(name, {}) is None
    assert secretfiles.read(name, {name: "", f"{name}_FILE": ""}) is None


@pytest.mark.parametrize("name", secretfiles.SECRETS)
def test_a_bad_secret_file_stops_the_start_naming_the_path_not_the_value(
    name: str, tmp_path: Path
) -> None:
    path = secret_file(tmp_path, name, URL)
    with pytest.raises(secretfiles.SecretFileError, match="both") as both:
        secretfiles.read(name, {name: URL, f"{name}_FILE": path})
    assert "s3cret" not in str(both.value)
    missing = str(tmp_path / "absent")
    with pytest.raises(secretfiles.SecretFileError, match=f"{name}_FILE={missing}"):
        secretfiles.read(name, {f"{name}_FILE": missing})
    empty = secret_file(tmp_path, "empty", "\n")
    with pytest.raises(secretfiles.SecretFileError, match="empty"):
        secretfiles.read(name, {f"{name}_FILE": empty})


def test_only_the_listed_secrets_come_from_files() -> None:
    with pytest.raises(KeyError):
        secretfiles.read("PORT", {"PORT_FILE": "/etc/hostname"})


def test_sealing_keys_from_a_file_open_tokens_sealed_with_them_from_the_environment(
    tmp_path: Path,
) -> None:
    from_env = Keyring.from_env({"STATE_TOKEN_KEYS": KEYS})
    from_file = Keyring.from_env({"STATE_TOKEN_KEYS_FILE": secret_file(tmp_path, "k", KEYS)})
    assert from_file == from_env and not from_file.ephemeral
    assert unseal(from_file, seal(from_env, b"{}")) == b"{}"
    assert Keyring.from_env({}).ephemeral


def test_redis_url_from_a_file_or_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert SessionConfig.load({}).redis_url is None
    monkeypatch.setenv("REDIS_URL", URL)
    assert SessionConfig.load({}).redis_url == URL
    monkeypatch.delenv("REDIS_URL")
    monkeypatch.setenv("REDIS_URL_FILE", secret_file(tmp_path, "url", URL + "\n"))
    assert SessionConfig.load({}).redis_url == URL
    # The app's own config still comes first (tests, embedding).
    assert SessionConfig.load({"REDIS_URL": "redis://other:6379/1"}).redis_url == (
        "redis://other:6379/1"
    )


@pytest.mark.parametrize("source", ["env", "file"])
def test_the_app_takes_its_sealing_keys_either_way(
    source: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if source == "env":
        monkeypatch.setenv("STATE_TOKEN_KEYS", KEYS)
    else:
        monkeypatch.setenv("STATE_TOKEN_KEYS_FILE", secret_file(tmp_path, "keys", KEYS))
    app = create_app({"TESTING": True})
    assert app.extensions["state_keys"] == Keyring.parse(KEYS)
    app.extensions["sessions"].store.close()


def test_the_app_refuses_to_start_on_an_unreadable_keys_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STATE_TOKEN_KEYS_FILE", str(tmp_path / "absent"))
    with pytest.raises(secretfiles.SecretFileError, match="STATE_TOKEN_KEYS_FILE"):
        create_app({"TESTING": True})
