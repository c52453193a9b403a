"""A session change answered 2xx is on ``REDIS_MIN_REPLICAS`` replicas: ``WAIT`` on the
node that owns the session's slot.

Redis replicates asynchronously: a script's writes are on the primary when it answers
and reach the replicas a moment later. A primary that dies in that moment takes them
with it when a replica is promoted. With ``min_replicas`` n > 0 the store confirms each
script it runs (a session's create, commit or delete: a change, a replayed answer, a
conflict) and each read that finds a stored answer to replay, before it returns: on the
slot's node, one pipeline on one connection writes the session's ack key
(``<prefix>{<sid>}:ack``, ``SET ... PX``, gone a second later) and sends
``WAIT n timeout``. Redis answers ``WAIT`` when n replicas have
acknowledged the stream up to that ``SET`` (see below), the ack key included; the node has one
replication stream, in order, so they also have every write the node made before it:
the change, whichever connection of the pool made it. Fewer than n within the timeout:
``StoreUnavailable`` (503 ``store_unavailable`` with ``Retry-After``); the change may be
on the primary alone, and the client's retry with the same Idempotency-Key finds it
(its stored answer, confirmed again) or, after a failover lost it, makes it once.

Why the ack key: ``WAIT`` counts up to the replication offset the connection's previous
command left (Redis 7.0: whatever that command was, a read too; later versions: its
last write), and the change may have been made on another connection of the pool, or
made nothing at all (a replay of an answer stored by an earlier try whose ``WAIT``
failed): the ``SET`` just before it fixes that offset after everything written so far. A write of the session's
own keys would not do: ``PEXPIRE`` of a deleted key writes nothing.

Why not the cluster client's ``wait``: redis-py's ``RedisCluster`` sends ``WAIT`` to its
default node (a random primary; 7.x's command flags), not to the slot's. The pipeline
goes to the client redis-py keeps for the slot's node (``get_node_from_key``,
``get_redis_connection``), as the store's own calls do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from redis.cluster import RedisCluster
from redis.exceptions import RedisClusterException, RedisError

from .store import StoreUnavailable

#: How long the ack key lives (ms): it is needed only until its write is sent.
ACK_TTL_MS = 1000


@dataclass(frozen=True)
class Durability:
    """``WAIT min_replicas timeout_ms`` after each session change (0: no wait)."""

    min_replicas: int = 0
    timeout_ms: int = 500

    @property
    def waits(self) -> bool:
        return self.min_replicas > 0

    def socket_timeout(self, base: float) -> float:
        """The client's socket timeout: ``base``, plus the ``WAIT`` timeout when the
        store waits (a reply that may take that long is not a dead connection)."""
        return base + self.timeout_ms / 1000 if self.waits else base

    def confirm(self, client: Any, key: str) -> None:
        """Return when ``min_replicas`` replicas have every write made so far on the
        node of ``key``'s slot (``key``: one of a session's ``<prefix>{<sid>}:<part>``;
        ``client``: the store's, a cluster's or not); raise ``StoreUnavailable`` when
        they do not within the timeout."""
        if not self.waits:
            return
        ack = key.rpartition(":")[0] + ":ack"
        try:
            if isinstance(client, RedisCluster):
                client = client.get_redis_connection(client.get_node_from_key(ack))
            pipe = client.pipeline(transaction=False)
            pipe.set(ack, b"1", px=ACK_TTL_MS)
            pipe.execute_command("WAIT", self.min_replicas, self.timeout_ms)
            acked = int(pipe.execute()[1])
        except (RedisError, RedisClusterException) as e:
            raise StoreUnavailable(f"redis: {e.__class__.__name__}: {e}") from e
        if acked < self.min_replicas:
            raise StoreUnavailable(
                f"redis: WAIT: {acked} of {self.min_replicas} replicas acknowledged the "
                f"write within {self.timeout_ms} ms"
            )


#: No wait (``REDIS_MIN_REPLICAS`` 0): a change is answered when the primary has it.
NO_WAIT = Durability()
