"""One webhook's delivery: signed per Standard Webhooks (``standardwebhooks``), posted to
the configured URL only, at an address the settings allow.

The target's host is resolved here (again every ``RESOLVE_SECONDS``) and each address is
checked (``addresses.refusal``: no address that is not global unless
``WEBHOOK_ALLOW_PRIVATE``); the connection goes to the address checked, with the host
name kept for TLS (SNI and the certificate's name) and the ``Host`` header, so a DNS
answer that changes between the check and the connection cannot redirect it. Redirects
are not followed. The body is sent as stored: the signature covers those bytes.

A try has ``WEBHOOK_TIMEOUT_SECONDS`` in all: connecting, sending, the answer's headers
and its body together. Each socket operation waits at most the time left, and past the
deadline the connection is cut (``Deadlines``: a receiver that drips a byte at a time
never trips a socket timeout). At most ``MAX_ANSWER_BYTES`` of an answer are read.

``Sender.send`` answers what became of a try (``Outcome``): ``delivered`` (a 2xx whose
answer was read whole), ``gone`` (410: the receiver wants no more of the session), or
``failed`` with the reason (another status, an answer cut off, too long or past the
deadline, a refused address, a connection error).
"""

from __future__ import annotations

import http.client
import socket
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal
from urllib.parse import urlsplit

import urllib3
from standardwebhooks import Webhook
from urllib3.connection import HTTPConnection, HTTPSConnection

from .addresses import refusal
from .deadlines import Deadlines
from .settings import NotifierSettings

#: How long a resolved address is used before the host is resolved again (seconds).
RESOLVE_SECONDS = 30.0
USER_AGENT = "uno-rules-notifier/1"
#: The most of an answer read (bytes): a longer one fails the try, unread.
MAX_ANSWER_BYTES = 64 * 1024
#: The size of one read of an answer's body.
CHUNK = 8192
#: Errors of a connection or an answer (urllib3's, http.client's, the socket's).
FAULTS = (urllib3.exceptions.HTTPError, http.client.HTTPException, OSError)


@dataclass(frozen=True)
class Outcome:
    result: Literal["delivered", "gone", "failed"]
    status: int | None = None
    reason: str = ""


class AddressRefused(Exception):
    """The target resolves to an address the settings do not allow (or to none)."""


class AnswerRefused(Exception):
    """An answer the sender will not take as whole (too long)."""


class Sender:
    def __init__(self, settings: NotifierSettings, deadlines: Deadlines | None = None) -> None:
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
        self.deadlines = deadlines or Deadlines()
        self._lock = threading.Lock()
        self._resolved: tuple[float, str] | None = None
        #: Connections kept alive after a whole answer, by address (at most
        #: ``concurrency`` each).
        self._idle: dict[str, list[HTTPConnection]] = {}

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

    def _connection(self, address: str, timeout: float) -> HTTPConnection:
        """A kept connection to ``address`` that is still open, else a new one."""
        with self._lock:
            idle = self._idle.get(address, [])
            while idle:
                conn = idle.pop()
                if conn.is_connected:
                    conn.timeout = timeout
                    return conn
                conn.close()
        if self.scheme == "https":
            return HTTPSConnection(
                address, self.port, timeout=timeout, server_hostname=self.host,
                assert_hostname=self.host, cert_reqs="CERT_REQUIRED",
            )  # fmt: skip
        return HTTPConnection(address, self.port, timeout=timeout)

    def _keep(self, address: str, conn: HTTPConnection) -> None:
        with self._lock:
            idle = self._idle.setdefault(address, [])
            if conn.is_connected and len(idle) < self.settings.concurrency:
                idle.append(conn)
                return
        conn.close()

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
        deadline = time.monotonic() + self.settings.timeout
        try:
            address = self.address()
        except AddressRefused as e:
            return Outcome("failed", None, f"address refused: {e}")
        headers = self.headers(webhook_id, body)
        conn = self._connection(address, max(0.001, deadline - time.monotonic()))
        with self.deadlines.watch(deadline, conn) as watched:
            try:
                conn.request("POST", self.path, body=body, headers=headers, preload_content=False)
                resp = conn.getresponse()
                status = resp.status
                read(resp)
            except (*FAULTS, AnswerRefused) as e:
                conn.close()
                if watched.cut or time.monotonic() >= deadline:
                    reason = f"no whole answer within {self.settings.timeout:g} s"
                else:
                    reason = f"{type(e).__name__}: {e}"
                return Outcome("failed", None, reason)
        if watched.cut:
            conn.close()
        else:
            self._keep(address, conn)
        if 200 <= status < 300:
            return Outcome("delivered", status)
        if status == 410:
            return Outcome("gone", 410, "the receiver answered 410 Gone")
        return Outcome("failed", status, f"the receiver answered {status}")

    def close(self) -> None:
        with self._lock:
            for idle in self._idle.values():
                for conn in idle:
                    conn.close()
            self._idle.clear()


def read(resp: urllib3.BaseHTTPResponse) -> int:
    """Read ``resp``'s body whole (the bytes read): at most ``MAX_ANSWER_BYTES`` (else
    ``AnswerRefused``); an answer that ends before its length raises (urllib3
    enforces ``Content-Length`` and chunked framing)."""
    total = 0
    while True:
        chunk = resp.read(CHUNK, decode_content=False)
        if not chunk:
            return total
        total += len(chunk)
        if total > MAX_ANSWER_BYTES:
            raise AnswerRefused(f"the answer is longer than {MAX_ANSWER_BYTES} bytes")
