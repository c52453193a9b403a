"""Fixtures of the notifier's tests: a webhook receiver in a process of its own, notifier
workers as processes (``python -m service.notifier``), and the service (in process, or
as a process of its own) on one Redis or the three-master cluster."""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from standardwebhooks import Webhook

from tests.redis_procs import free_port
from tests.sessions.conftest import Api, make_app, store_url

ROOT = Path(__file__).resolve().parents[2]
SECRET = "whsec_" + base64.b64encode(b"the notifier tests' secret, 32 b").decode()
#: The key the tests' "app backend" signs identity assertions with (IDENTITY_ASSERTION_KEY).
IDENTITY_KEY = "the notifier tests' identity assertion key"


def asserted(
    external_id: str, key: str | None = IDENTITY_KEY, algorithm: str = "HS256", **claims: Any
) -> str:
    """An identity assertion of ``external_id`` as the app's backend signs it
    (docs/notifications.md): HS256, for the service's audience, living 5 minutes;
    ``claims`` replace or add claims (None: leave that claim out)."""
    import jwt

    from service.sessions.identity import AUDIENCE

    now = int(time.time())
    body = {"sub": external_id, "aud": AUDIENCE, "iat": now, "exp": now + 300, **claims}
    claims = {k: v for k, v in body.items() if v is not None}
    return jwt.encode(claims, key or "", algorithm=algorithm)


#: Fast settings for workers under test: polled often, a short timeout and claim time,
#: retries a second apart.
FAST = {
    "NOTIFIER_POLL_SECONDS": "0.1",
    "NOTIFIER_SCAN_SECONDS": "2",
    "NOTIFIER_METRICS_PORT": "0",
    "NOTIFIER_CONCURRENCY": "4",
    "WEBHOOK_TIMEOUT_SECONDS": "1",
    "NOTIFIER_CLAIM_SECONDS": "2",
    "NOTIFIER_LEASE_SECONDS": "4",
    "WEBHOOK_BACKOFF_SECONDS": "0.2",
    "WEBHOOK_BACKOFF_MAX_SECONDS": "1",
    "WEBHOOK_ALLOW_HTTP": "on",
    "WEBHOOK_ALLOW_PRIVATE": "on",
}


def wait_until(check: Callable[[], Any], timeout: float = 15, step: float = 0.05) -> Any:
    """``check()``'s first truthy answer within ``timeout`` seconds (else fail)."""
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {check}")
        time.sleep(step)


class Receiver:
    """``tests/notifier/receiver.py`` in a process of its own."""

    def __init__(self, folder: Path) -> None:
        self.port = free_port()
        self.log = folder / "received.jsonl"
        self.control = folder / "control.json"
        self.control.write_text("{}")
        self.log.touch()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.notifier.receiver", str(self.port), str(self.log),
             str(self.control)],
            cwd=ROOT,
        )  # fmt: skip
        import socket

        def up() -> bool:
            with socket.socket() as s:
                return s.connect_ex(("127.0.0.1", self.port)) == 0

        wait_until(up, 10)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hooks/uno"

    def answer(self, **rules: Any) -> None:
        """How the receiver answers from now on (see receiver.py)."""
        self.control.write_text(json.dumps(rules))

    def requests(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.log.read_text().splitlines() if line]

    def delivered(self, sid: str | None = None) -> list[dict[str, Any]]:
        """The webhooks answered 2xx (of ``sid``), each verified with standardwebhooks:
        ``{"id", "type", "data", ...}`` in the order received."""
        verifier = Webhook(SECRET)
        out = []
        for r in self.requests():
            if r["status"] >= 300 or r.get("answer"):  # dripped or cut off: not whole
                continue
            body = verifier.verify(r["body"], r["headers"])
            if sid is None or body["data"]["session_id"] == sid:
                out.append({"id": r["headers"]["webhook-id"], **body})
        return out

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait(5)


@pytest.fixture
def receiver(tmp_path: Path) -> Iterator[Receiver]:
    r = Receiver(tmp_path)
    yield r
    r.stop()


class Worker:
    """``python -m service.notifier`` in a process of its own."""

    def __init__(self, env: dict[str, str], name: str) -> None:
        self.env = {**os.environ, **FAST, **env, "NOTIFIER_NAME": name}
        self.proc: subprocess.Popen[bytes] | None = None
        self.lines: list[str] = []

    def start(self) -> Worker:
        """Start it and return once it works (it logs that it started)."""
        proc = self.proc = subprocess.Popen(
            [sys.executable, "-m", "service.notifier"], cwd=ROOT, env=self.env,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )  # fmt: skip
        assert proc.stderr is not None
        stderr = proc.stderr

        def read() -> None:
            for line in stderr:
                self.lines.append(line.decode(errors="replace"))

        threading.Thread(target=read, daemon=True).start()
        wait_until(lambda: any("sweeping clocks" in line for line in self.lines) or proc.poll(), 20)
        assert proc.poll() is None, "".join(self.lines)
        return self

    def kill(self) -> None:
        """SIGKILL: a crash, mid-work."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)

    def stop(self) -> str:
        """SIGTERM and wait; its log (stderr)."""
        if self.proc is None:
            return ""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
        return "".join(self.lines)


class Deployment:
    """The service and its notifier workers on one store (``url``, a key prefix of
    their own) sending to ``receiver``."""

    def __init__(self, url: str, receiver: Receiver, **settings: str) -> None:
        self.url = url
        self.receiver = receiver
        self.env = {
            "REDIS_URL": url,
            "SESSION_KEY_PREFIX": f"n{uuid.uuid4().hex[:8]}:",
            "WEBHOOK_URL": receiver.url,
            "WEBHOOK_SECRET": SECRET,
            "IDENTITY_ASSERTION_KEY": IDENTITY_KEY,
            "WEBHOOK_WARNING_SECONDS": "0",
            # The clock starts at the deal (test_outbox.py tests the hold after it).
            "SESSION_START_GRACE_SECONDS": "0",
            **settings,
        }
        self.workers: list[Worker] = []
        self.apps: list[Flask] = []

    def app(self) -> Flask:
        app = make_app({"TESTING": True, **self.env})
        self.apps.append(app)
        return app

    def store(self) -> Any:
        """The session store (of the first app; one is made if none is)."""
        app = self.apps[0] if self.apps else self.app()
        return app.extensions["sessions"].store

    def api(self) -> Api:
        return Api(self.app().test_client())

    def worker(self, **settings: str) -> Worker:
        w = Worker({**self.env, **settings}, f"w{len(self.workers)}")
        self.workers.append(w)
        return w.start()

    def close(self) -> list[str]:
        logs = [w.stop() for w in self.workers]
        for app in self.apps:
            app.extensions["sessions"].store.close()
        return logs


@pytest.fixture(params=["redis", "cluster"])
def deployment(request: pytest.FixtureRequest, receiver: Receiver) -> Iterator[Deployment]:
    url = store_url(str(request.param), request)
    assert url is not None
    d = Deployment(url, receiver)
    yield d
    for log in d.close():
        assert "Traceback" not in log, log
