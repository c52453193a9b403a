"""The notifier's settings: from the environment (or a mapping, in tests), checked at
start so a wrong one stops the worker with a message that names it.

| setting | default | meaning |
|---|---|---|
| ``WEBHOOK_SECRET`` / ``WEBHOOK_SECRET_FILE`` | required with ``WEBHOOK_URL`` | the Standard Webhooks signing secret (``whsec_`` + base64); read only with ``WEBHOOK_URL``, so a file that is not there does not stop a worker that only sweeps |
| ``WEBHOOK_ALLOW_HTTP`` | off | allow an ``http://`` target (local development) |
| ``WEBHOOK_ALLOW_PRIVATE`` | off | allow a target whose address is not global (``addresses.REFUSED``) |
| ``WEBHOOK_TIMEOUT_SECONDS`` | 5 | the deadline of one try: connecting, sending and the whole answer |
| ``WEBHOOK_BACKOFF_SECONDS`` | 5 | the first retry's delay; each next one doubles, with jitter |
| ``WEBHOOK_BACKOFF_MAX_SECONDS`` | 3600 | the longest delay between two tries |
| ``NOTIFIER_POLL_SECONDS`` | 1 | how often the worker looks for due notifications and deadlines |
| ``NOTIFIER_SCAN_SECONDS`` | 60 | on a cluster, how often it reads every slot's indexes |
| ``NOTIFIER_CONCURRENCY`` | 8 | deliveries in flight per worker (one per session at a time) |
| ``NOTIFIER_CLAIM_SECONDS`` | 30 | a delivery a worker took this long ago without an answer is taken over |
| ``NOTIFIER_LEASE_SECONDS`` | 120 | a notification handed to the stream is handed again after this (a worker died between) |
| ``NOTIFIER_METRICS_PORT`` | 9102 | Prometheus metrics (0: none) |
| ``NOTIFIER_NAME`` | host name + pid | this worker's consumer name in the group |

``WEBHOOK_URL``, ``WEBHOOK_RETRY_SECONDS`` and the store's settings (``REDIS_URL``,
``SESSION_*``, ``CLOCK_SWEEPER``) are the service's, read by ``service.sessions.config``
(the worker plays timeouts with the service's code).
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from service import secretfiles
from service.sessions.config import FALSE, TRUE, SessionConfig


class SettingError(ValueError):
    """A setting the worker cannot run with (the message names it)."""


@dataclass(frozen=True)
class NotifierSettings:
    webhook_url: str | None = None
    secret: str | None = None
    allow_http: bool = False
    allow_private: bool = False
    timeout: float = 5.0
    #: The retry window is the sessions' setting (the outbox is kept that long).
    retry_seconds: float = SessionConfig.webhook_retry_seconds
    backoff_seconds: float = 5.0
    backoff_max_seconds: float = 3600.0
    poll_seconds: float = 1.0
    scan_seconds: float = 60.0
    concurrency: int = 8
    claim_seconds: float = 30.0
    lease_seconds: float = 120.0
    metrics_port: int = 9102
    name: str = ""

    @classmethod
    def load(cls, config: Mapping[str, Any] | None = None) -> NotifierSettings:
        """The settings from ``config`` first, then the environment; checked."""
        config = config or {}

        def raw(name: str) -> Any:
            value = config.get(name)
            if value is None and name in secretfiles.SECRETS:
                return secretfiles.read(name)
            if value is None:
                return os.environ.get(name, "").strip() or None
            return value

        def number(name: str, default: float, kind: type = float, zero: bool = False) -> Any:
            value = raw(name)
            if value is None:
                return default
            try:
                got = kind(value)
            except (TypeError, ValueError):
                raise SettingError(f"{name} must be a number, got {value!r}") from None
            if got < 0 or (got == 0 and not zero):
                raise SettingError(f"{name} must be {'0 or more' if zero else 'positive'}")
            return got

        def flag(name: str) -> bool:
            value = raw(name)
            if value is None or isinstance(value, bool):
                return bool(value)
            text = str(value).strip().lower()
            if text in TRUE | FALSE:
                return text in TRUE
            raise SettingError(f"{name} must be on or off, got {value!r}")

        sessions = SessionConfig.load(config)
        # Without a target there is nothing to sign: the secret (an optional Secret's
        # file, in k8s) is not read, so its absence cannot stop the clock sweeper.
        settings = cls(
            webhook_url=sessions.webhook_url,
            secret=raw("WEBHOOK_SECRET") if sessions.webhook_url else None,
            allow_http=flag("WEBHOOK_ALLOW_HTTP"),
            allow_private=flag("WEBHOOK_ALLOW_PRIVATE"),
            timeout=number("WEBHOOK_TIMEOUT_SECONDS", cls.timeout),
            retry_seconds=sessions.webhook_retry_seconds,
            backoff_seconds=number("WEBHOOK_BACKOFF_SECONDS", cls.backoff_seconds),
            backoff_max_seconds=number("WEBHOOK_BACKOFF_MAX_SECONDS", cls.backoff_max_seconds),
            poll_seconds=number("NOTIFIER_POLL_SECONDS", cls.poll_seconds),
            scan_seconds=number("NOTIFIER_SCAN_SECONDS", cls.scan_seconds),
            concurrency=number("NOTIFIER_CONCURRENCY", cls.concurrency, int),
            claim_seconds=number("NOTIFIER_CLAIM_SECONDS", cls.claim_seconds),
            lease_seconds=number("NOTIFIER_LEASE_SECONDS", cls.lease_seconds),
            metrics_port=number("NOTIFIER_METRICS_PORT", cls.metrics_port, int, zero=True),
            name=str(raw("NOTIFIER_NAME") or f"{socket.gethostname()}-{os.getpid()}"),
        )
        settings.check()
        return settings

    def check(self) -> None:
        """Raise ``SettingError`` for a target or a secret the worker may not use."""
        if self.claim_seconds <= self.timeout:
            raise SettingError("NOTIFIER_CLAIM_SECONDS must be longer than WEBHOOK_TIMEOUT_SECONDS")
        if self.lease_seconds <= self.claim_seconds:
            raise SettingError("NOTIFIER_LEASE_SECONDS must be longer than NOTIFIER_CLAIM_SECONDS")
        if self.webhook_url is None:
            return
        target = urlsplit(self.webhook_url)
        if target.scheme not in ("https", "http") or not target.hostname:
            raise SettingError(f"WEBHOOK_URL must be an https:// URL, got {self.webhook_url!r}")
        if target.scheme == "http" and not self.allow_http:
            raise SettingError(
                "WEBHOOK_URL must be https:// (set WEBHOOK_ALLOW_HTTP=on for local development)"
            )
        if target.username or target.password:
            raise SettingError("WEBHOOK_URL must not carry credentials: sign with WEBHOOK_SECRET")
        if not self.secret:
            raise SettingError("WEBHOOK_URL is set: set WEBHOOK_SECRET or WEBHOOK_SECRET_FILE too")
        from standardwebhooks import Webhook

        try:
            Webhook(self.secret)
        except Exception as e:  # the library raises several kinds for a bad secret
            raise SettingError(f"WEBHOOK_SECRET is not a Standard Webhooks secret: {e}") from None
