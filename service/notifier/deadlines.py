"""Deadlines of whole deliveries: one thread that cuts a connection whose attempt ran
past its deadline.

A socket timeout bounds each read, not an answer: a receiver that sends a byte every
few seconds (in its headers or its body) never trips it. The sender registers each
attempt's connection here with the attempt's deadline (``watch``); past it, its socket
is shut down, which ends a read blocked on it at once (the attempt then fails as cut
off). A connection still connecting has no socket yet: its connect timeout is the time
left, and it is looked at again shortly.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

#: How soon a connection without a socket yet is looked at again (seconds).
RECHECK_SECONDS = 0.05


class Watched:
    """An attempt under watch: ``cut`` says whether its deadline cut it."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.live = True
        self.cut = False


class Deadlines:
    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int, Watched]] = []
        self._seq = itertools.count()
        self._thread: threading.Thread | None = None

    @contextmanager
    def watch(self, deadline: float, conn: Any) -> Iterator[Watched]:
        """Cut ``conn`` (its ``sock``) once ``time.monotonic()`` passes ``deadline``,
        unless the block ended first."""
        watched = Watched(conn)
        with self._cond:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="notifier-deadlines", daemon=True
                )
                self._thread.start()
            heapq.heappush(self._heap, (deadline, next(self._seq), watched))
            self._cond.notify()
        try:
            yield watched
        finally:
            with self._cond:
                watched.live = False

    def _run(self) -> None:
        while True:
            with self._cond:
                while self._heap and not self._heap[0][2].live:
                    heapq.heappop(self._heap)
                if not self._heap:
                    self._cond.wait()
                    continue
                deadline, _, watched = self._heap[0]
                wait = deadline - time.monotonic()
                if wait > 0:
                    self._cond.wait(wait)
                    continue
                heapq.heappop(self._heap)
                sock = getattr(watched.conn, "sock", None)
                if sock is None:  # still connecting: its connect timeout is the time left
                    item = (deadline + RECHECK_SECONDS, next(self._seq), watched)
                    heapq.heappush(self._heap, item)
                    continue
                watched.cut = True
            with contextlib.suppress(OSError):  # closed meanwhile
                sock.shutdown(socket.SHUT_RDWR)
