"""One webhook's delivery: signed per Standard Webhooks (``standardwebhooks``), posted to
the configured URL only, at an address the settings allow.

The target's host is resolved here (again every ``RESOLVE_SECONDS``) and each address is
checked (``addresses.refusal``: no address that is not global unless
``WEBHOOK_ALLOW_PRIVATE``); the connection goes to the address checked, with the host
name kept for TLS (SNI and the certificate's name) and the ``Host`` header, so a DNS
answer that changes between the check and the connection cannot redirect it. Redirects
are not followed. The body is sent as stored: the signature covers those bytes.

``Sender.send`` answers what became of a try (``Outcome``): ``delivered`` (2xx),
``gone`` (410: the receiver wants no more of the session), or ``failed`` with the
reason (another status, a timeout, a refused address, a connection error).
"""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal
from urllib.parse import urlsplit

import urllib3
from standardwebhooks import Webhook

from .addresses import refusal
from .settings import NotifierSettings

#: How long a resolved address is used before the host is resolved again (seconds).
RESOLVE_SECONDS = 30.0
USER_AGENT = "uno-rules-notifier/1"


@dataclass(frozen=True)
class Outcome:
    result: Literal["delivered", "gone", "failed"]
    status: int | None = None
    reason: str = ""


class AddressRefused(Exception):
    """The target resolves to an address the settings do not allow (or to none)."""


class Sender:
    def __init__(self, settings: NotifierSettings) -> None:
        if settings.webhook_url is None or settings.secret is None:
            raise ValueError("a Sender needs WEBHOOK_URL and WEBHOOK_SECRET")
        self.settings = settings
        self.signer = Webhook(settings.secret)
        target = urlsplit(settings.webhook_url)
        self.scheme = target.scheme
        self.host = str(target.hostname)
        self.port = target.port or (443 if self.scheme == "https" else 80)
        self.path = (target.path or "/") + (f"?{target.query}" if target.query else "")
        self.host_header = target.netloc
        self.timeout = urllib3.Timeout(connect=settings.timeout, read=settings.timeout)
        self._lock = threading.Lock()
        self._resolved: tuple[float, str] | None = None
        self._pools: dict[str, urllib3.HTTPConnectionPool] = {}

    def address(self) -> str:
        """The target's address to connect to (resolved and checked; cached)."""
        now = time.monotonic()
        with self._lock:
            if self._resolved is not None and now - self._resolved[0] < RESOLVE_SECONDS:
                return self._resolved[1]
        try:
            infos = socket.getaddrinfo(self.host, self.port, type=socket.SOCK_STREAM)
        except OSError as e:
            raise AddressRefused(f"{self.host} does not resolve: {e}") from None
        addresses = [str(info[4][0]) for info in infos]
        if not self.settings.allow_private:
            refused = [f"{a} ({why})" for a in addresses if (why := refusal(a))]
            if refused:
                raise AddressRefused(
                    f"{self.host} resolves to {', '.join(refused)}: not a global address "
                    "(set WEBHOOK_ALLOW_PRIVATE=on to allow it)"
                )
        if not addresses:
            raise AddressRefused(f"{self.host} resolves to no address")
        with self._lock:
            self._resolved = (now, addresses[0])
        return addresses[0]

    def _pool(self, address: str) -> urllib3.HTTPConnectionPool:
        with self._lock:
            pool = self._pools.get(address)
            if pool is None:
                if self.scheme == "https":
                    pool = urllib3.HTTPSConnectionPool(
                        address, self.port, timeout=self.timeout, retries=False,
                        maxsize=self.settings.concurrency, server_hostname=self.host,
                        assert_hostname=self.host,
                        cert_reqs="CERT_REQUIRED",
                    )  # fmt: skip
                else:
                    pool = urllib3.HTTPConnectionPool(
                        address,
                        self.port,
                        timeout=self.timeout,
                        retries=False,
                        maxsize=self.settings.concurrency,
                    )
                self._pools[address] = pool
            return pool

    def headers(self, webhook_id: str, body: bytes, at: datetime | None = None) -> dict[str, str]:
        """The Standard Webhooks headers of ``body`` sent as ``webhook_id`` now."""
        at = at or datetime.now(tz=UTC)
        signature = self.signer.sign(webhook_id, at, body.decode())
        return {
            "webhook-id": webhook_id,
            "webhook-timestamp": str(int(at.timestamp())),
            "webhook-signature": signature,
            "content-type": "application/json",
            "user-agent": USER_AGENT,
            "host": self.host_header,
        }

    def send(self, webhook_id: str, body: bytes) -> Outcome:
        """One try of the webhook (see the module)."""
        try:
            pool = self._pool(self.address())
            resp = pool.urlopen(
                "POST", self.path, body=body, headers=self.headers(webhook_id, body),
                redirect=False, preload_content=False, assert_same_host=False,
            )  # fmt: skip
        except AddressRefused as e:
            return Outcome("failed", None, f"address refused: {e}")
        except urllib3.exceptions.HTTPError as e:
            return Outcome("failed", None, f"{type(e).__name__}: {e}")
        try:
            resp.drain_conn()
        except urllib3.exceptions.HTTPError:
            pass
        finally:
            resp.release_conn()
        if 200 <= resp.status < 300:
            return Outcome("delivered", resp.status)
        if resp.status == 410:
            return Outcome("gone", 410, "the receiver answered 410 Gone")
        return Outcome("failed", resp.status, f"the receiver answered {resp.status}")

    def close(self) -> None:
        with self._lock:
            for pool in self._pools.values():
                pool.close()
            self._pools.clear()
