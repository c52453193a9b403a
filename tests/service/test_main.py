"""``python -m service``: gunicorn with ``service/gunicorn_conf.py`` (or defaults) on
``$PORT``; ``--dev`` runs Flask's server. ``os.execv`` is replaced, nothing starts."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

import service.__main__ as entry


@pytest.fixture
def execs(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    calls: list[list[str]] = []
    monkeypatch.setattr(entry.os, "execv", lambda path, argv: calls.append(list(argv)))
    return calls


def test_gunicorn_reads_the_config_module_by_path(
    execs: list[list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PORT", raising=False)
    assert entry.main([]) == 0
    (argv,) = execs
    assert argv[:3] == [sys.executable, "-m", "gunicorn"]
    assert argv[argv.index("--config") + 1] == str(entry.CONF)
    assert argv[-1] == "service:create_app()"
    assert entry.os.environ["PORT"] == "8000"


def test_port_comes_from_the_environment_or_the_flag(
    execs: list[list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PORT", "9123")
    entry.main([])
    assert entry.os.environ["PORT"] == "9123"
    entry.main(["--port", "9200"])
    assert entry.os.environ["PORT"] == "9200"


def test_without_a_config_module_gunicorn_gets_defaults(tmp_path: Path) -> None:
    argv = entry.gunicorn_argv(8123, conf=tmp_path / "missing.py")
    assert "--config" not in argv
    assert argv[argv.index("--bind") + 1].endswith(":8123")
    assert argv[-1] == "service:create_app()"


@pytest.mark.parametrize("port", ["http", "0", "70000"])
def test_a_bad_port_is_refused(
    execs: list[list[str]], monkeypatch: pytest.MonkeyPatch, port: str
) -> None:
    monkeypatch.setenv("PORT", port)
    with pytest.raises(SystemExit):
        entry.main([])
    assert execs == []


def test_dev_runs_flasks_server_on_loopback(
    execs: list[list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    runs: list[dict[str, Any]] = []

    def fake_run(self: Flask, **kwargs: Any) -> None:
        runs.append(kwargs)
        sessions = self.extensions.get("sessions")
        if sessions is not None:
            sessions.store.close()

    monkeypatch.setattr(Flask, "run", fake_run)
    assert entry.main(["--dev", "--port", "8765"]) == 0
    assert runs == [{"host": "127.0.0.1", "port": 8765, "debug": False}]
    assert execs == []
