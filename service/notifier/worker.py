"""The notifier worker: one poller and ``NOTIFIER_CONCURRENCY`` deliverers.

The poller, every ``NOTIFIER_POLL_SECONDS``, takes the slots with work (``NotifyQueue
.woken``; on a cluster also every slot now and then, ``scan``), settles the deadlines
passed (``Sweeper``) and hands each session's due head to the stream (``move``). Each
deliverer reads the stream in the consumer group (``XREADGROUP``; now and then
``XAUTOCLAIM`` takes over what a dead worker took), posts the webhook (``Sender``) and
records the outcome: done, stopped (410), or failed and retried with exponential
backoff and jitter until ``WEBHOOK_RETRY_SECONDS`` from its first failure, then a dead
letter. Workers share the work through Redis alone: start as many as wanted.

Time is ``time.time`` (epoch seconds; ``now`` in tests).
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime

import orjson

from service.sessions import make_store
from service.sessions.config import SessionConfig
from service.sessions.manager import SessionManager
from service.sessions.outbox import parse_entry
from service.sessions.redis_store import RedisStore
from service.sessions.store import StoreUnavailable

from . import metrics
from .delivery import Sender
from .queue import Message, NotifyQueue
from .settings import NotifierSettings
from .sweeper import Sweeper

log = logging.getLogger("service.notifier")

#: Slots (tags) the poller takes per round, and sessions per slot.
BATCH = 256
#: The longest a deliverer's read blocks (ms) and the worker's Redis socket timeout.
BLOCK_MS = 1000
SOCKET_TIMEOUT = 3.0
#: A try is stuck past twice ``WEBHOOK_TIMEOUT_SECONDS`` and this (seconds: resolving
#: the host, which no socket timeout bounds, and Redis's calls around it).
STUCK_SLACK = 30.0


def backoff(attempts: int, base: float, cap: float, rnd: Callable[[], float]) -> float:
    """The delay before the next try after ``attempts`` failed ones (seconds): doubling
    from ``base`` up to ``cap``, then jittered to between half and all of it."""
    return min(cap, base * 2 ** min(attempts, 32)) * (0.5 + rnd() / 2)


class Worker:
    def __init__(
        self,
        settings: NotifierSettings,
        config: SessionConfig,
        store: RedisStore | None = None,
        now: Callable[[], float] = time.time,
    ) -> None:
        self.settings = settings
        # The worker sweeps whatever the service's setting, and waits for Redis longer.
        self.config = replace(
            config, clock_sweeper=True, redis_timeout=max(config.redis_timeout, SOCKET_TIMEOUT)
        )
        made = store or make_store(self.config)
        if not isinstance(made, RedisStore):
            raise ValueError("the notifier needs the sessions' Redis: set REDIS_URL")
        self.store = made
        self.sessions = SessionManager(self.store, self.config, now=now)
        self.now = now
        self.queue = NotifyQueue(self.store)
        self.sweeper = Sweeper(self.sessions, self.queue)
        self.sender = Sender(settings) if settings.webhook_url else None
        self.stopping = threading.Event()
        self._random = random.Random()
        self._next_scan = 0.0
        self._threads: list[threading.Thread] = []
        #: When the poller last finished a round (monotonic; the health check reads it).
        self.last_round = time.monotonic()
        #: Each deliverer's try under way: when it started (monotonic; the health check).
        self.trying: dict[str, float] = {}

    def now_ms(self) -> int:
        return int(self.now() * 1000)

    # ------------------------------------------------------------------ running
    def start(self) -> None:
        """Start the poller and the deliverers (threads); ``stop`` ends them."""
        self.queue.ensure_group()
        if self.sender is None:
            log.warning("notifier: no WEBHOOK_URL: sweeping clocks only, delivering nothing")
        targets: list[tuple[str, Callable[[], None]]] = [("poller", self._poll_loop)]
        if self.sender is not None:
            for i in range(self.settings.concurrency):
                name = f"{self.settings.name}-{i}"
                targets.append((name, lambda name=name: self._deliver_loop(name)))  # type: ignore[misc]
        for name, target in targets:
            thread = threading.Thread(target=target, name=f"notifier-{name}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def stop(self, timeout: float = 10.0) -> None:
        self.stopping.set()
        for thread in self._threads:
            thread.join(timeout)
        if self.sender is not None:
            self.sender.close()
        self.store.close()

    def _poll_loop(self) -> None:
        while not self.stopping.is_set():
            try:
                busy = self.poll()
            except StoreUnavailable as e:
                log.warning("notifier: the store failed: %s", e)
                busy = False
            except Exception:
                log.exception("notifier: the poller failed")
                busy = False
            self.last_round = time.monotonic()
            metrics.LAST_POLL.set(time.time())
            if not busy:
                self.stopping.wait(self.settings.poll_seconds)

    def healthy(self) -> bool:
        """The poller finished a round lately (a store that is down is a round too: it
        is logged and tried again, and a restart would not bring it back), and no
        delivery is stuck (``stuck``)."""
        now = time.monotonic()
        polled = now - self.last_round <= max(60.0, 20 * self.settings.poll_seconds)
        return polled and not self.stuck(now)

    def stuck(self, now: float | None = None) -> list[str]:
        """The deliverers whose try has lasted past twice its deadline and the time to
        resolve the host (``STUCK_SLACK``): a try the deadline did not end."""
        now = time.monotonic() if now is None else now
        limit = 2 * self.settings.timeout + STUCK_SLACK
        return sorted(name for name, at in list(self.trying.items()) if now - at > limit)

    def _deliver_loop(self, consumer: str) -> None:
        claim_ms = int(self.settings.claim_seconds * 1000)
        next_claim = 0.0
        while not self.stopping.is_set():
            try:
                found: list[Message] = []
                if time.monotonic() >= next_claim:
                    found = self.queue.claim(consumer, claim_ms, 10)
                    next_claim = time.monotonic() + self.settings.claim_seconds / 4
                if not found:
                    found = self.queue.read(consumer, 1, BLOCK_MS)
                for message in found:
                    self.trying[consumer] = time.monotonic()
                    try:
                        self.deliver(message)
                    finally:
                        del self.trying[consumer]
            except StoreUnavailable as e:
                log.warning("notifier: the store failed: %s", e)
                self.stopping.wait(self.settings.poll_seconds)
            except Exception:
                log.exception("notifier: a deliverer failed")
                self.stopping.wait(self.settings.poll_seconds)

    # ------------------------------------------------------------------ one round
    def poll(self) -> bool:
        """One round of the poller; True when there may be more work at once."""
        now_ms = self.now_ms()
        if self.queue.cluster and time.monotonic() >= self._next_scan:
            found = self.queue.scan(now_ms)
            metrics.OUTBOX_DEPTH.labels("slots").set(found)
            self._next_scan = time.monotonic() + self.settings.scan_seconds
        busy = False
        lease_ms = int(self.settings.lease_seconds * 1000)
        woken = self.queue.woken(now_ms, BATCH)
        for tag, told in woken:
            # What was due before the deadlines played now goes first (a clock warning
            # before its timeout), then what they wrote.
            busy |= self._move(tag, now_ms, lease_ms)
            swept = self.sweeper.sweep(tag, now_ms)
            if swept:
                busy |= self._move(tag, now_ms, lease_ms) or swept >= self.sweeper.batch
            self.queue.rewake(tag, told)
        if not self.queue.cluster:
            metrics.OUTBOX_DEPTH.labels("sessions").set(
                self.queue.outbox_sessions(self.queue.all_tags(), now_ms)
            )
        if self.sender is not None:
            for part, n in self.queue.depth().items():
                metrics.OUTBOX_DEPTH.labels(part).set(n)
        return busy or len(woken) >= BATCH

    def _next(self, sid: str, now_ms: int) -> None:
        """Hand ``sid``'s next notification to the stream at once (its head is done),
        and tell ``wake`` of its lease (were this worker to die before the stream has it)."""
        lease_ms = int(self.settings.lease_seconds * 1000)
        if self.queue.move(sid, now_ms, lease_ms):
            self.queue.wake(sid, now_ms + lease_ms)

    def _move(self, tag: str, now_ms: int, lease_ms: int) -> bool:
        """Hand the due heads of ``tag``'s sessions to the stream; True: maybe more."""
        if self.sender is None:
            return False
        due = self.queue.due_sessions(tag, now_ms, BATCH)
        for sid in due:
            self.queue.move(sid, now_ms, lease_ms)
        return len(due) >= BATCH

    def deliver(self, message: Message) -> str:
        """Deliver one notification taken from the stream; what became of it
        (``delivered``, ``stopped``, ``retry``, ``dead`` or ``skipped``: done already)."""
        if self.sender is None:
            raise RuntimeError("deliver needs WEBHOOK_URL")
        sid, entry = message.sid, message.entry
        if not self.queue.is_head(sid, entry):
            self.queue.ack(message)  # done by another worker (or the session stopped)
            return "skipped"
        try:
            webhook_id, body = parse_entry(entry)
            kind, at = caused(body)
        except (ValueError, KeyError, TypeError, AttributeError) as e:  # orjson's and
            # UnicodeDecodeError are ValueErrors; the others: a body of another shape
            return self._undecodable(message, f"the outbox entry cannot be decoded: {e}")
        outcome = self.sender.send(webhook_id, body)
        now_ms = self.now_ms()
        if outcome.result == "delivered":
            if self.queue.done(sid, entry, now_ms) > 0:
                self._next(sid, now_ms)
            metrics.DELIVERED.labels(kind).inc()
            metrics.LATENCY.observe(max(0.0, now_ms / 1000 - at))
            result = "delivered"
        elif outcome.result == "gone":
            keep = int((self.settings.retry_seconds + self.config.ttl) * 1000)
            self.queue.stop(sid, keep)
            metrics.STOPPED.inc()
            log.info("notifier: session %s: the receiver answered 410, deliveries stop", sid)
            result = "stopped"
        else:
            s = self.settings
            delay = backoff(message.attempts, s.backoff_seconds, s.backoff_max_seconds,
                            self._random.random)  # fmt: skip
            window = int(s.retry_seconds * 1000)
            result = self.queue.fail(sid, entry, now_ms, now_ms + int(delay * 1000), window)
            if result == "dead":
                self.queue.dead(sid, entry, outcome.reason)
                if self.queue.done(sid, entry, now_ms) > 0:
                    self._next(sid, now_ms)
                metrics.DEAD.inc()
                log.error("notifier: %s is a dead letter: %s", webhook_id, outcome.reason)
            elif result == "retry":
                self.queue.wake(sid, now_ms + int(delay * 1000))
                metrics.RETRIED.labels(str(outcome.status or "error")).inc()
                log.info("notifier: %s: %s; again in %.1f s", webhook_id, outcome.reason, delay)
        self.queue.ack(message)
        return result

    def _undecodable(self, message: Message, reason: str) -> str:
        """An entry no try can send: a dead letter at once, and the session's next."""
        sid, now_ms = message.sid, self.now_ms()
        self.queue.dead(sid, message.entry, reason)
        if self.queue.done(sid, message.entry, now_ms) > 0:
            self._next(sid, now_ms)
        metrics.DEAD.inc()
        log.error("notifier: session %s: %s (a dead letter)", sid, reason)
        self.queue.ack(message)
        return "dead"


def caused(body: bytes) -> tuple[str, float]:
    """A webhook body's type and its timestamp (epoch seconds)."""
    parsed = orjson.loads(body)
    at = datetime.fromisoformat(parsed["timestamp"].replace("Z", "+00:00")).timestamp()
    return str(parsed["type"]), at
