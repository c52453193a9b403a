"""The session store interface: versioned states, an append-only event log,
idempotent answers, expiry and change notifications, behind one small API.

Two implementations keep the same contract (``tests/sessions`` runs one suite over
both): ``MemoryStore`` (in-process, the default without ``REDIS_URL``) and
``RedisStore`` (one Lua script per move). Everything crossing this interface is
already serialized (JSON text), so both stores hold exactly the same bytes.

A session is four records sharing its id: the *state* (``version``, the last event
number ``seq`` and the engine state as JSON), the *meta* (variant, seats, token
hashes; replaced only by a commit that brings a new one), the *events* (``(seq, event
JSON)`` in order, at most ``max_events`` kept) and the *moves* (every move made, in
order, as JSON: the game's record; never trimmed, bounded by the manager's move
limit). Beside the moves a session keeps the record's *pieces*, one a move
(``engine.record_builder.pieces``: its entry in the record, each seat's own where it
hides a field, the round's result), appended by the same commit, so a read of the
record joins them and plays no move. A commit appends its pieces only while the
session's pieces match its log (as many as its moves: a session stored before them
has none and keeps none; its record is played from its log). ``version`` starts at 1 and grows by one per commit; event
numbers start at 1 and grow by one per event, so a commit of k events moves ``seq``
by k. Every write refreshes the session's TTL.

Each version carries a *commit id* beside its number: random (``new_commit_id``),
written by the create or commit that made it, so no failover (a promoted replica that
lacks the last commits), restart or race can give the same ``(version, commit id)`` to
two different states. A commit's compare-and-set compares both: a process holding a
copy of a version that a failover lost (the same number, now another state) loses it
and reads the session again. Sessions stored before commit ids carry ``""``.

The state also names ``history_from``: the number of the first event the session's
levelled bots need (the current round's first; 0: none, the session has no "normal" or
"hard" bot seat). A load returns those events with the state, the newest
``HISTORY_EVENTS`` at most, in the same round trip, unless the caller says it holds them
for the version read (``history_known``).

Idempotent answers are kept per session, only the ``max_idem`` most recent (a retry
comes seconds after its request): they expire with the session and go with it.

The state also counts ``stored``: the bytes of every event, move-log entry, record
piece and outbox entry (``Notices``) written to the session so far (its storage grows with them; the
manager caps it).

Besides sessions a store keeps *claims*: named sets of members, each member held until
it is released or its time runs out, at most ``limit`` at once (``claim``). They are
the per-client quotas (sessions, streams) and the lease that lets one request at a time
play a session's owed bot moves.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from secrets import token_hex
from typing import Literal

from service.redis.client import (
    StoreUnavailable as StoreUnavailable,  # its home: the shared Redis code
)

#: Idempotent answers kept per session (``SESSION_IDEMPOTENCY_KEYS``): the most recent.
IDEMPOTENCY_KEYS = 32
#: Public waiting sessions the lobby index keeps (``SESSION_LOBBY_SIZE``): the newest.
LOBBY_SIZE = 1000


def lobby_order(
    rows: Iterable[tuple[int, str]], before: tuple[int, str] | None, count: int
) -> list[tuple[int, str]]:
    """The lobby's one order, for both stores: ``(created_ms, sid)`` newest first (ties:
    the greater id first), strictly after ``before``, at most ``count`` (Redis's
    ``ZREVRANGEBYSCORE`` reads in this order; the memory store also trims by it)."""
    ranked = sorted(rows, reverse=True)
    if before is not None:
        ranked = [r for r in ranked if r < before]
    return ranked[:count]


#: The most events a load returns as the bots' history (the newest of the round):
#: rounds of whole bot games run to a few hundred events.
HISTORY_EVENTS = 1000
#: Random bytes in a commit id (hex in the store): two states never share one.
COMMIT_ID_BYTES = 8


def new_commit_id() -> str:
    """A fresh commit id (``COMMIT_ID_BYTES`` random bytes, hex)."""
    return token_hex(COMMIT_ID_BYTES)


@dataclass(frozen=True)
class Loaded:
    """A session as read: its current version and last event number, the state and
    meta JSON, and the stored idempotent answer when one was asked for and exists."""

    version: int
    seq: int
    state: bytes
    meta: bytes
    idem: bytes | None = None
    #: Presence: seat -> when it was last seen (epoch ms).
    seen: dict[int, int] = field(default_factory=dict)
    #: The number of the first event the bots need (0: none; see the module).
    history_from: int = 0
    #: The events numbered ``history_from`` and after (the newest ``HISTORY_EVENTS``),
    #: oldest first; None when ``history_from`` is 0 or the caller holds them
    #: (``history_known`` is the version read).
    history: tuple[bytes, ...] | None = None
    #: The bytes of the events and move-log entries written so far (see the module).
    stored: int = 0
    #: The commit id of ``version`` (see the module; "" for a session stored before).
    commit: str = ""


@dataclass(frozen=True)
class Commit:
    """The outcome of a compare-and-set.

    ``ok``: applied, ``version``/``seq`` are the new ones. ``conflict``: the session is
    at ``version``, not the expected one (or at it with another commit id); nothing
    written. ``replayed``: an answer is
    already stored under the idempotency key (``answer``); nothing written. In both,
    ``version``/``seq`` are the session's current ones. ``missing``: no such session
    (deleted or expired); ``version``/``seq`` are 0.

    Every store gives equal values for the same calls
    (``tests/sessions/stores/test_store_agreement.py``)."""

    status: Literal["ok", "conflict", "replayed", "missing"]
    version: int = 0
    seq: int = 0
    answer: bytes | None = None


@dataclass(frozen=True)
class Idem:
    """An idempotency key (already scoped to a seat) and the answer to store under it."""

    key: str
    answer: bytes


@dataclass(frozen=True)
class Notices:
    """What a commit writes for the notifier (``outbox.py`` makes it; None in a
    ``CommitRequest``: nothing, as before notifications): ``entries`` appended to the
    session's outbox (``<webhook-id>\\n<body JSON>`` each; none while deliveries to the
    session are stopped), the turn's clock ``warning`` (an entry, or None: any pending
    one is dropped) due at ``warning_due_ms`` while the session stays at the version
    committed, the session's next clock ``deadline_ms`` for the sweeper's index (None:
    none), the time of the commit (``now_ms``: when the entries are due) and how long
    the outbox outlives its last write (``keep_ms``: the delivery's retry window; 0:
    the session does not notify, only ``deadline_ms`` is written). The outbox holds at
    most ``outbox_max`` entries (0: no cap): past it the oldest after its head (the one
    in delivery) are dropped and counted in the outq's ``dropped``. The entries written
    count in the session's ``stored`` bytes, as events and moves do."""

    entries: tuple[bytes, ...] = ()
    warning: bytes | None = None
    warning_due_ms: int = 0
    deadline_ms: int | None = None
    now_ms: int = 0
    keep_ms: int = 0
    outbox_max: int = 0

    @property
    def wake_ms(self) -> int | None:
        """When the notifier has work from this write (ms): its entries at once, the
        warning, the deadline; None: none."""
        times = [self.now_ms] if self.entries else []
        if self.warning is not None:
            times.append(self.warning_due_ms)
        if self.deadline_ms is not None:
            times.append(self.deadline_ms)
        return min(times, default=None)


@dataclass(frozen=True)
class CommitRequest:
    """One compare-and-set (``SessionStore.commit``): over ``expected_version`` of
    ``sid``, the new ``state`` (and ``history_from``), the ``events`` and ``moves`` to
    append, the ``meta`` when it changed (None keeps it), the answer to keep under an
    idempotency key (``idem``) and the seat to record as seen with it (``seen``:
    ``(seat, epoch ms)``, presence). Everything is JSON already. The compare-and-set
    compares ``expected_commit`` too (the commit id of the version read); the new
    version gets ``commit_id``."""

    sid: str
    expected_version: int
    state: bytes
    events: Sequence[bytes] = ()
    idem: Idem | None = None
    moves: Sequence[bytes] = ()
    meta: bytes | None = None
    seen: tuple[int, int] | None = None
    history_from: int = 0
    #: The notifier's outbox entries and the sweeper's deadline (None: none).
    notices: Notices | None = None
    #: The session's time to live from this commit, when its clock needs longer than
    #: the store's (seconds; None: the store's).
    ttl: float | None = None
    #: The commit id of the version read (the compare-and-set's; None: the version
    #: alone, for callers that never read one: tools and tests) and of the new one.
    expected_commit: str | None = None
    commit_id: str = field(default_factory=new_commit_id)
    #: The record's pieces of ``moves``, one a move (``engine.record_builder.pieces``),
    #: appended beside them while the session's pieces match its log (see the module).
    pieces: Sequence[bytes] = ()


class Subscription(ABC):
    """Change notifications for one session (``wait`` is woken by every commit)."""

    @abstractmethod
    def wait(self, timeout: float) -> bool:
        """Block up to ``timeout`` seconds; True when the session changed meanwhile."""

    @abstractmethod
    def close(self) -> None: ...

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SessionStore(ABC):
    """Where sessions live. Every method may raise ``StoreUnavailable``."""

    #: "memory", "redis" or "redis-cluster" (reported by ``/readyz``).
    kind: str

    def __init__(
        self,
        ttl: float,
        max_events: int,
        max_idem: int = IDEMPOTENCY_KEYS,
        lobby_size: int = LOBBY_SIZE,
    ) -> None:
        self.ttl = ttl
        self.max_events = max_events
        self.max_idem = max_idem
        self.lobby_size = lobby_size

    @abstractmethod
    def create(
        self,
        sid: str,
        meta: bytes,
        state: bytes,
        events: list[bytes],
        moves: Sequence[bytes] = (),
        history_from: int = 0,
        notices: Notices | None = None,
        ttl: float | None = None,
        commit_id: str | None = None,
        pieces: Sequence[bytes] = (),
    ) -> Commit:
        """A new session at version 1 with ``events`` numbered from 1, ``moves`` as
        its move log and ``history_from`` (see the module); ``notices``, ``ttl`` and
        ``pieces`` as in a ``CommitRequest``; ``commit_id``: version 1's (None: a new
        one)."""

    @abstractmethod
    def load(
        self,
        sid: str,
        idem_key: str | None = None,
        seen: tuple[int, int] | None = None,
        history_known: int = 0,
    ) -> Loaded | None:
        """The session, or None; one round trip (``idem_key``: also fetch that answer;
        ``seen``: first record that seat as seen at that epoch ms; the bots' history
        too unless the session is at version ``history_known``)."""

    @abstractmethod
    def touch(self, sid: str, seat: int, at_ms: int) -> None:
        """Record ``seat`` as seen at ``at_ms`` (presence; it expires with the session)."""

    @abstractmethod
    def commit(self, request: CommitRequest) -> Commit:
        """Atomically: if there is no such session, ``missing``; if ``request.idem`` has
        a stored answer, return it (``replayed``, whatever the version); if the session
        is not at ``expected_version`` with ``expected_commit`` (when given),
        ``conflict``; else
        write the state (and ``history_from``) at version + 1 with ``commit_id``,
        append the events and moves, replace the meta when one is given, store the
        idempotent answer (dropping the oldest past ``max_idem``), record ``seen``,
        write the ``notices`` (``outbox.py``), refresh the TTL (``request.ttl`` when
        given) and notify subscribers."""

    @abstractmethod
    def events(self, sid: str, after: int, limit: int) -> list[tuple[int, bytes]]:
        """Up to ``limit`` events numbered above ``after``, in order (the oldest may
        have been trimmed: at most ``max_events`` are kept)."""

    @abstractmethod
    def moves(self, sid: str, start: int = 0) -> list[bytes]:
        """The session's move log from its move ``start`` on, oldest first (empty when
        there is no session)."""

    @abstractmethod
    def pieces(self, sid: str, start: int = 0) -> list[bytes] | None:
        """The record's pieces of the session's moves from ``start`` on, oldest first;
        None when its pieces do not match its log (a session stored before them, or a
        commit that brought none) or there is no session."""

    @abstractmethod
    def delete(self, sid: str) -> bool:
        """Remove the session; False when there was none."""

    @abstractmethod
    def subscribe(self, sid: str) -> Subscription:
        """Notifications of this session's commits (subscribe before reading the log,
        so nothing committed in between is missed)."""

    # ------------------------------------------------------------------ the public lobby
    # An index of public sessions that wait for seats, newest first: one sorted set per
    # variant and one for all (Redis: ``<prefix>{lobby}:...``, one slot of its own; the
    # sessions stay in theirs, so no script touches both). It is kept by separate calls
    # after a session's own commit and may name sessions that started, expired or were
    # deleted meanwhile: the listing checks each against its meta and removes those.
    # At most ``lobby_size`` entries are kept (the oldest go).

    @abstractmethod
    def lobby_add(self, sid: str, variant: str, created_ms: int) -> None:
        """List ``sid`` (of ``variant``, created at ``created_ms``)."""

    @abstractmethod
    def lobby_remove(self, sids: Sequence[tuple[str, str]]) -> None:
        """Unlist these ``(sid, variant)``."""

    @abstractmethod
    def lobby_page(
        self, variant: str | None, before: tuple[int, str] | None, count: int
    ) -> list[tuple[int, str]]:
        """Up to ``count`` listed ``(created_ms, sid)``, newest first (ties: the greater id
        first), strictly after ``before`` in that order; ``variant`` None: every variant."""

    @abstractmethod
    def metas(self, sids: Sequence[str]) -> list[bytes | None]:
        """The meta JSON of each session (None when it is gone), one round trip."""

    def wake(self, sid: str, at_ms: int) -> None:  # noqa: B027 (only a cluster needs it)
        """Tell the notifier that ``sid``'s slot has work at ``at_ms`` (a Redis Cluster:
        its indexes are per slot, and the workers read the slots told first; see
        ``outbox_keys``). Called after a commit that wrote notices."""

    def outbox(self, sid: str) -> list[bytes]:
        """The session's outbox entries not delivered yet, oldest first (tests, ops)."""
        raise NotImplementedError(f"{type(self).__name__} keeps no outbox")

    def deadline_index(self, sid: str) -> int | None:
        """The session's clock deadline as the sweeper's index holds it (epoch ms)."""
        raise NotImplementedError(f"{type(self).__name__} keeps no deadline index")

    # ------------------------------------------------------------------ claims
    @abstractmethod
    def claim(self, key: str, member: str, limit: int, until_ms: int, now_ms: int) -> bool:
        """Hold ``member`` in the claims named ``key`` until ``until_ms`` (epoch ms), if
        fewer than ``limit`` others are held at ``now_ms`` (expired ones are dropped
        first); a member held already is held on to the later time. False: full."""

    @abstractmethod
    def release(self, key: str, member: str) -> None:
        """Let go of ``member`` in the claims named ``key`` (nothing if it is not held)."""

    @abstractmethod
    def claimed(self, key: str, now_ms: int) -> list[str]:
        """The members held in the claims named ``key`` at ``now_ms``."""

    def count(self) -> int | None:
        """How many sessions the store holds, when it can tell without a scan (the
        in-process store: its sessions, the expired ones until its next sweep); None
        otherwise (Redis)."""
        return None

    @abstractmethod
    def ping(self) -> None:
        """Raise ``StoreUnavailable`` unless the store can take a write."""

    def warm(self) -> None:  # noqa: B027 (optional: only stores with connections)
        """Open what the first call would open (a worker's warm-up, ``service.warmup``);
        raise ``StoreUnavailable`` when the store cannot be reached."""

    @abstractmethod
    def version(self, sid: str) -> int | None:
        """The session's version as stored, or None when there is none: one small read
        (a reader waiting for another's commit asks this, not ``load``)."""

    def disconnect_idle(self) -> None:  # noqa: B027 (optional: only stores with connections)
        """Close the connections no call is using (they are opened again when needed)."""

    def close(self) -> None:  # noqa: B027 (optional: only stores with connections)
        """Release connections (tests, shutdown)."""
