"""The image's own command (Dockerfile CMD) serves /healthz, and its HEALTHCHECK passes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

import pytest

from benchmarks.servers import free_port
from tests.ops.support import ROOT
from tests.ops.test_dockerfile import final_stage

STARTUP_SECONDS = 30


def image_command(instruction: str) -> list[str]:
    """The exec-form command of a Dockerfile instruction, run from the repo instead of /app."""
    rest = dict(final_stage())[instruction]
    argv = json.loads(rest[rest.index("CMD") + 3 :] if instruction == "HEALTHCHECK" else rest)
    assert argv[0] == "python"
    return [sys.executable] + [arg.replace("/app/", f"{ROOT}/") for arg in argv[1:]]


@contextmanager
def server(
    worker_class: str,
    workers: int = 1,
    extra: dict[str, str] | None = None,
    stdout: int = subprocess.PIPE,
) -> Iterator[tuple[dict[str, str], subprocess.Popen[str]]]:
    """gunicorn as the image runs it, on a free loopback port, with ``workers`` workers
    and ``extra`` settings over a clean environment (none of the caller's gunicorn,
    Redis or metrics settings)."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("REDIS_URL", "PROMETHEUS_MULTIPROC_DIR")
        and not key.startswith(("GUNICORN_", "WEB_"))
    }
    env |= {
        "PORT": str(free_port()),
        "BIND_HOST": "127.0.0.1",
        "WEB_CONCURRENCY": str(workers),
        "GUNICORN_WORKER_CLASS": worker_class,
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        **(extra or {}),
    }
    proc = subprocess.Popen(
        image_command("CMD"),
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        yield env, proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(5)


def wait_for_healthz(url: str, proc: subprocess.Popen[str]) -> int:
    deadline = time.monotonic() + STARTUP_SECONDS
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                return response.status
        except OSError:
            if proc.poll() is not None:
                err = proc.stderr.read() if proc.stderr else ""
                pytest.fail(f"gunicorn exited with {proc.returncode}: {err[-3000:]}")
            if time.monotonic() > deadline:
                pytest.fail(f"/healthz did not answer within {STARTUP_SECONDS} s")
            time.sleep(0.2)


@pytest.mark.parametrize("worker_class", ["gevent", "sync"])
def test_image_command_serves_healthz_and_healthcheck_passes(worker_class: str) -> None:
    with server(worker_class) as (env, proc):
        url = f"http://127.0.0.1:{env['PORT']}/healthz"
        assert wait_for_healthz(url, proc) == 200
        health = subprocess.run(
            image_command("HEALTHCHECK"), env=env, capture_output=True, text=True, timeout=10
        )
        assert health.returncode == 0, health.stderr
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err[-3000:]
    assert f"Using worker: {worker_class}" in err
    # One access line a request: the app's JSON on stderr; gunicorn's own is off.
    assert not [line for line in out.splitlines() if "/healthz" in line], out[-2000:]
    lines = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    access = [line for line in lines if line.get("logger") == "service.access"]
    healthz = [line for line in access if line["path"] == "/healthz"]
    assert healthz and all(line["status"] == 200 for line in healthz), err[-2000:]
    assert len({line["request_id"] for line in healthz}) == len(healthz)
    assert {"time", "remote", "method", "route", "duration_ms", "request_id"} <= set(healthz[0])
    assert healthz[0]["remote"] == "127.0.0.1"


def test_hostile_requests_to_the_real_server_are_4xx_problems() -> None:
    """Through gunicorn as deployed (it terminates the input stream): a chunked body
    over the limit is 413, not a truncated 400; numbers past Python's int() digit limit
    in headers and queries are 400; none of them a 5xx."""
    import http.client

    with server("gevent") as (env, proc):
        port = int(env["PORT"])
        assert wait_for_healthz(f"http://127.0.0.1:{port}/healthz", proc) == 200

        def ask(method: str, path: str, body: bytes | None = None, **headers: str) -> Any:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            try:
                chunked = headers.pop("chunked", None) is not None
                conn.putrequest(method, path)
                for k, v in headers.items():
                    conn.putheader(k.replace("_", "-"), v)
                if body is not None:
                    conn.putheader("Content-Type", "application/json")
                    if chunked:
                        conn.putheader("Transfer-Encoding", "chunked")
                    else:
                        conn.putheader("Content-Length", str(len(body)))
                conn.endheaders()
                if body is not None and chunked:
                    for i in range(0, len(body), 65536):
                        piece = body[i : i + 65536]
                        conn.send(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                    conn.send(b"0\r\n\r\n")
                elif body is not None:
                    conn.send(body)
                resp = conn.getresponse()
                data = resp.read()
                ctype = resp.getheader("Content-Type")
                assert ctype and "json" in ctype, (resp.status, ctype, data[:300])
                return resp.status, ctype, json.loads(data or b"null")
            finally:
                conn.close()

        # Over the size limit and within every JSON bound (white space is bounded by size).
        big = b'{"variant": "uno_classic",' + b" " * (2 << 20) + b'"players": 2}'
        status, ctype, body = ask("POST", "/v1/games", big, chunked="1")
        assert (status, ctype, body["code"]) == (
            413,
            "application/problem+json",
            "payload_too_large",
        )
        small = b'{"variant": "uno_classic", "players": 2}'
        status, _, created = ask("POST", "/v1/sessions", small, chunked="1")
        assert status == 201, created
        sid, token = created["session_id"], created["seats"][0]["token"]
        digits = "9" * 5000  # past Python's int() digit limit (4300)
        # gunicorn refuses a request line over 4094 bytes itself (414, text/html).
        for path, headers in [
            (f"/v1/sessions/{sid}/events?after={digits[:4000]}", {}),
            (f"/v1/sessions/{sid}/events?after=18446744073709551616", {}),
            (f"/v1/sessions/{sid}/stream?timeout=0.1", {"Last_Event_ID": digits}),
        ]:
            status, ctype, body = ask("GET", path, None, **headers)
            assert (status, body["code"]) == (400, "invalid_request"), (path, body)
        move = b'{"move": {"type": "draw"}}'
        status, _, body = ask(
            "POST",
            f"/v1/sessions/{sid}/moves",
            move,
            Authorization=f"Bearer {token}",
            If_Match=f'"{digits}"',
        )
        assert (status, body["code"]) == (400, "invalid_request"), body
        # What never reaches the app: gunicorn answers itself (not a 5xx).
        for path, headers in [
            ("/v1/variants?x=" + "a" * 5000, {}),
            ("/v1/variants", {"X-Request-ID": "a" * 100_000}),
        ]:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            try:
                conn.request("GET", path, headers=headers)
                status = conn.getresponse().status
            finally:
                conn.close()
            assert status in (414, 431), (path[:40], status)


def test_a_busy_keep_alive_connection_does_not_starve_the_others() -> None:
    """gevent worker (one): a client pipelines many requests on one connection, and a
    second client's request, sent while the first one's are being served, is answered
    after a few of them, not after all that remain (``post_request`` yields when the next
    request is already there; without it the second waits for every pipelined request:
    gevent switches only when a read would block).

    Counted at the worker's pace, not the clock's: how many of the busy client's answers
    came between sending the other request and its answer, against how many were still to
    come when it was sent."""
    import socket
    import threading

    # No log lines: nobody reads the pipe, and the access lines would fill it.
    quiet = {"GUNICORN_ACCESSLOG": "off", "LOG_LEVEL": "warning"}
    with server("gevent", extra=quiet) as (env, proc):
        port = int(env["PORT"])
        assert wait_for_healthz(f"http://127.0.0.1:{port}/healthz", proc) == 200
        burst = 2000
        # Long requests: the socket stays readable while the worker works through them.
        request = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"p" * 4000 + b"\r\n\r\n"
        busy = socket.create_connection(("127.0.0.1", port), timeout=30)
        other = socket.create_connection(("127.0.0.1", port), timeout=30)
        sender = threading.Thread(target=busy.sendall, args=(request * burst,), daemon=True)
        received = b""

        def answered() -> int:
            return received.count(b"HTTP/1.1 200")

        try:
            sender.start()
            while answered() < 20:  # the worker is serving the burst
                received += busy.recv(1 << 16)
            before = answered()
            other.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            busy.setblocking(False)
            other.setblocking(False)
            answer = b""
            while not answer:  # read both, so that the busy client never stalls the worker
                with suppress(BlockingIOError):
                    received += busy.recv(1 << 20)
                try:
                    answer = other.recv(65536)
                except BlockingIOError:
                    time.sleep(0.0005)
            between = answered() - before
            busy.setblocking(True)
            while answered() < burst:
                received += busy.recv(1 << 20)
            sender.join(timeout=30)
        finally:
            busy.close()
            other.close()
    assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
    remaining = burst - before
    assert remaining > burst / 2, (before, burst)  # the other request came mid-burst
    assert between < remaining / 4, (before, between, burst)
