"""The notifier's settings that are the sessions' are stated once, in theirs."""

from __future__ import annotations

import ast
from pathlib import Path

import service
from service.notifier.settings import NotifierSettings
from service.sessions import config
from service.sessions.config import SessionConfig


def test_the_retry_window_default_is_the_sessions() -> None:
    assert NotifierSettings().retry_seconds == SessionConfig().webhook_retry_seconds == 86_400
    # and the number is written in one place of the code
    found = [
        f"{path.name}:{node.lineno}"
        for path in Path(service.__file__).parent.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.AnnAssign)
        and isinstance(node.value, ast.Constant)
        and node.value.value == 86_400
    ]
    assert len(found) == 1 and found[0].startswith("config.py:"), found


def test_the_pages_state_the_one_default() -> None:
    """docs/notifications.md and the settings' table state the sessions' defaults."""
    page = (Path(service.__file__).resolve().parents[1] / "docs" / "notifications.md").read_text()
    retry, warning = SessionConfig.webhook_retry_seconds, SessionConfig.webhook_warning_seconds
    assert f"| `WEBHOOK_RETRY_SECONDS` | {retry:g}: " in page
    assert f"| `WEBHOOK_WARNING_SECONDS` | {warning:g}: " in page
    assert f"| ``WEBHOOK_RETRY_SECONDS`` | {retry:g} |" in (config.__doc__ or "")
    assert f"| ``WEBHOOK_WARNING_SECONDS`` | {warning:g} |" in (config.__doc__ or "")
