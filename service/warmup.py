"""A worker's warm-up, before it takes traffic (gunicorn's ``post_worker_init``).

A worker's first request used to pay for what no later one does: 8.6-12.2 ms more CPU
on one Redis, 21-26 ms on a Redis Cluster (docs/security.md). It made the session
store's client and its first connection (on a cluster the slot table, from
``CLUSTER SLOTS``, and the command table), redis-py's first-use work (its driver
information, read from the installed package's metadata), and Flask's and the app's
first request (the matchmaking sweeper's start, the first problem+json answer).

``warm(app, timeout)`` does that work before the first client comes, with the app's own
code: the store's ``SessionStore.warm`` (the client, and one connection to the server
or to every primary of a cluster, left in the pool the requests use), then one
anonymous ``GET /v1/sessions/<an id no session has>`` through the whole app (404
``session_not_found``: the session read path, with no session read or played). That
request is kept out of the metrics and the access log (``observability.WARMUP_ENV`` in
its WSGI environ, which no client can set); with ``RATE_LIMIT`` on it counts as one
request of ``127.0.0.1``.

When the store cannot be reached the warm-up logs it once (ERROR) and stops: the worker
starts cold all the same, answers ``/healthz``, and ``/readyz`` reports the store. It
never holds the worker back more than ``timeout`` seconds: past that the worker starts
and whatever is left of the warm-up runs on beside its first requests.
"""

from __future__ import annotations

import logging
import secrets
import threading
from typing import TYPE_CHECKING

from service.observability import WARMUP_ENV
from service.sessions import StoreUnavailable

if TYPE_CHECKING:
    from flask import Flask

log = logging.getLogger("service.warmup")


def warm(app: Flask, timeout: float) -> bool:
    """Warm ``app`` (see the module) within ``timeout`` seconds: True when it is warm,
    False when the store could not be reached or the time ran out (both logged)."""
    done = threading.Event()
    warmed: list[bool] = []

    def run() -> None:
        try:
            warmed.append(_warm(app))
        except Exception:  # a warm-up that fails must not keep the worker from starting
            log.exception("warm-up failed; the worker starts cold")
        finally:
            done.set()

    threading.Thread(target=run, name="warm-up", daemon=True).start()
    if not done.wait(timeout):
        log.warning(
            "warm-up not done in %s s; the worker starts, the rest runs beside its first requests",
            timeout,
        )
        return False
    return warmed == [True]


def _warm(app: Flask) -> bool:
    mgr = app.extensions.get("sessions")
    if mgr is not None:
        try:
            mgr.store.warm()
        except StoreUnavailable as e:
            log.error(
                "warm-up: the session store cannot be reached (%s); the worker starts "
                "cold, /readyz reports the store",
                e,
            )
            return False
    nobody = secrets.token_urlsafe(16)  # as a session id is made: no session has it
    answer = app.test_client().get(f"/v1/sessions/{nobody}", environ_overrides={WARMUP_ENV: True})
    if answer.status_code != 404:
        log.warning("warm-up: the read answered %s, not 404", answer.status_code)
        return False
    return True
