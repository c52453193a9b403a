"""Where the notifier's data lives in Redis: each session's outbox beside its other
keys, and the two indexes that find the sessions with work due, in the session's slot.

| key | type | holds |
|---|---|---|
| ``<prefix>{<sid>}:outbox`` | list | the session's notifications not delivered yet, oldest first (``<webhook-id>\\n<body>``) |
| ``<prefix>{<sid>}:outq`` | hash | the head's delivery: ``a`` attempts, ``first`` first failure (ms), ``lease`` in flight until (ms), ``retry`` next try (ms); ``warn``/``warn_due``/``warn_v``/``warn_c`` the turn's clock warning, due while the session is at version ``warn_v`` with commit id ``warn_c``; ``off`` 1: the receiver answered 410 |
| ``<prefix>{<tag>}:notify:due`` | sorted set | sid -> when its outbox has something due (ms) |
| ``<prefix>{<tag>}:notify:deadlines`` | sorted set | sid -> when the sweeper settles it (ms): its clock's next deadline, or at once while its bots owe moves (``Snapshot.sweep_at``) |
| ``<prefix>{notify}:wake`` | sorted set | a cluster's slot tags with work due -> when (ms): told after each commit, read by the workers first |
| ``<prefix>{notify}:stream`` | stream | notifications handed to the workers (consumer group ``notifier``) |
| ``<prefix>{notify}:dead`` | stream | notifications given up after the retry window: the dead letters |

A commit writes the outbox and both indexes in its one script, so the indexes are in
the session's slot: on one server ``<tag>`` is ``notify`` (one index of each kind); on a
cluster it is the first decimal number whose slot is the session's (``slot_tag``), so
there is one index of each kind per slot. A commit that writes notices then tells the
slot's tag to ``wake`` (a separate call, on another slot's node): the workers read the
slots told, and now and then every slot (in case a process died between the two calls).
The stream and the dead letters are one each (``{notify}``), reached by separate calls.
"""

from __future__ import annotations

import binascii
import threading
from typing import Any

#: Redis Cluster's hash slots.
SLOTS = 16384
#: The tag of the notifier's keys on one server (and of the stream on a cluster).
TAG = "notify"

_tags: list[str] = []
_lock = threading.Lock()


def key_slot(text: str) -> int:
    """The cluster slot of a hash tag (CRC16 of the tag, as Redis computes it)."""
    return binascii.crc_hqx(text.encode(), 0) % SLOTS


def slot_tags() -> list[str]:
    """For each slot, the first decimal number that hashes to it (built once, ~0.3 s)."""
    if not _tags:
        with _lock:
            if not _tags:
                found: dict[int, str] = {}
                i = 0
                while len(found) < SLOTS:
                    found.setdefault(key_slot(str(i)), str(i))
                    i += 1
                _tags.extend(found[s] for s in range(SLOTS))
    return _tags


def slot_tag(sid: str, cluster: bool) -> str:
    """The tag of ``sid``'s indexes: its slot's (a cluster) or ``TAG`` (one server)."""
    return slot_tags()[key_slot(sid)] if cluster else TAG


def outbox_key(prefix: str, sid: str) -> str:
    return f"{prefix}{{{sid}}}:outbox"


def outq_key(prefix: str, sid: str) -> str:
    return f"{prefix}{{{sid}}}:outq"


def due_key(prefix: str, tag: str) -> str:
    return f"{prefix}{{{tag}}}:notify:due"


def deadlines_key(prefix: str, tag: str) -> str:
    return f"{prefix}{{{tag}}}:notify:deadlines"


def wake_key(prefix: str) -> str:
    """A cluster's slots with work for the notifier: tag -> when (ms), told by each
    commit that writes notices (``SessionStore.wake``) and by the workers."""
    return f"{prefix}{{{TAG}}}:wake"


def stream_key(prefix: str) -> str:
    return f"{prefix}{{{TAG}}}:stream"


def dead_key(prefix: str) -> str:
    return f"{prefix}{{{TAG}}}:dead"


def session_keys(prefix: str, sid: str, cluster: bool) -> list[str]:
    """What a commit's notices write: outbox, outq, the due and deadline indexes."""
    tag = slot_tag(sid, cluster)
    return [
        outbox_key(prefix, sid), outq_key(prefix, sid),
        due_key(prefix, tag), deadlines_key(prefix, tag),
    ]  # fmt: skip


class NotifierReads:
    """``wake``, ``outbox`` and ``deadline_index`` of ``RedisStore`` (its ``router``,
    ``prefix`` and ``cluster``): the notifier's keys (``outbox_keys``)."""

    router: Any
    prefix: str
    cluster: bool

    def wake(self, sid: str, at_ms: int) -> None:
        if not self.cluster:
            return  # one server: one index of each kind, which the workers poll
        key = wake_key(self.prefix)
        tag = slot_tag(sid, True)
        self.router.on_slot(key, lambda client: client.zadd(key, {tag: at_ms}, lt=True))

    def outbox(self, sid: str) -> list[bytes]:
        key = outbox_key(self.prefix, sid)
        return self.router.on_slot(key, lambda client: client.lrange(key, 0, -1))  # type: ignore[no-any-return]

    def deadline_index(self, sid: str) -> int | None:
        key = deadlines_key(self.prefix, slot_tag(sid, self.cluster))
        score = self.router.on_slot(key, lambda client: client.zscore(key, sid))
        return None if score is None else int(score)
