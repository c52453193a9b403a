"""Redis clients for the sessions, the rate limit and the notifier: made from ``REDIS_URL``, failing fast, and a router
that sends each call on one slot to the node that holds it.

``make_client`` reads ``redis://`` and ``rediss://`` (one server),
``redis+sentinel://host:port[,host:port...]/<service>`` (one primary with replicas,
found through its Sentinels, and found again after a failover) and
``redis+cluster://host:port[,host:port...]`` (a cluster; one seed node is enough, more
are tried in turn). The client has short timeouts and bounded retries, so a dead Redis
fails in milliseconds; every Redis error becomes ``StoreUnavailable`` naming the cause
(``OutOfMemoryError``, ``ReadOnlyError``, ``ClusterDownError``, ``ConnectionError`` ...).

On a cluster every call on one slot goes to the client redis-py keeps for the slot's
node (``RedisCluster.get_node_from_key(key)``, ``get_redis_connection``): the same one
round trip, without the cluster client's per-command routing (it hashes every key of a
script twice and resolves each command's policy). When that node answers that the slot
is elsewhere (``MOVED``, ``ASK``: a resharding or a failover), that the cluster is
changing (``TRYAGAIN``, ``CLUSTERDOWN``), or cannot be reached, the call is made again
through the cluster client, which follows the redirection and refreshes its slot table
(the next call goes to the new node). The scripts are redis-py's ``register_script``
(``EVALSHA``, loaded again after a flush or a restart).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import parse_qsl, unquote, urlsplit

import redis
from redis.backoff import ExponentialWithJitterBackoff
from redis.cluster import ClusterNode, RedisCluster
from redis.exceptions import (
    AskError,
    ClusterDownError,
    RedisClusterException,
    RedisError,
    SlotNotCoveredError,
    TryAgainError,
)
from redis.retry import Retry
from redis.sentinel import Sentinel


class StoreUnavailable(Exception):
    """The backing store cannot be reached (the API answers 503 with ``Retry-After``)."""


T = TypeVar("T")

CLUSTER_SCHEME = "redis+cluster"
SENTINEL_SCHEME = "redis+sentinel"

#: What a Redis client can raise: redis-py's errors, and the cluster client's own
#: (``RedisClusterException``: no node of the cluster could be reached at all).
REDIS_ERRORS = (RedisError, RedisClusterException)

#: What a slot's node (or the client's slot table) answers when the cluster client must
#: take the call over: the slot is elsewhere (``MOVED`` is an ``AskError``), the cluster
#: is changing (``TRYAGAIN``, ``CLUSTERDOWN``, a slot the table does not cover), or the
#: node is gone (connection refused, a timeout).
REROUTE = (
    AskError,
    TryAgainError,
    ClusterDownError,
    SlotNotCoveredError,
    redis.ConnectionError,
    redis.TimeoutError,
)


def _endpoints(url: str, scheme: str) -> tuple[list[tuple[str, int]], dict[str, Any], Any]:
    """The ``host:port`` list, the credentials and the split URL of a ``scheme://`` URL
    of several servers (``scheme://[user:password@]host:port[,host:port...]...``)."""
    parts = urlsplit(url)
    if parts.scheme != scheme:
        raise ValueError(f"not a {scheme}:// URL: {url!r}")
    userinfo, _, hosts = parts.netloc.rpartition("@")
    auth: dict[str, Any] = {}
    if userinfo:
        user, _, password = userinfo.partition(":")
        if user:
            auth["username"] = unquote(user)
        if password:
            auth["password"] = unquote(password)
    endpoints = []
    for hostport in filter(None, hosts.split(",")):
        host, _, port = hostport.rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"REDIS_URL: {hostport!r} is not host:port in {url!r}")
        endpoints.append((host.strip("[]"), int(port)))
    if not endpoints:
        raise ValueError(f"REDIS_URL names no server: {url!r}")
    return endpoints, auth, parts


def cluster_nodes(url: str) -> tuple[list[ClusterNode], dict[str, Any]]:
    """The seed nodes and the client options of a ``redis+cluster://`` URL
    (``redis+cluster://[user:password@]host:port[,host:port...][?option=value]``)."""
    endpoints, options, parts = _endpoints(url, CLUSTER_SCHEME)
    options.update(parse_qsl(parts.query))
    return [ClusterNode(host, port) for host, port in endpoints], options


def sentinel_parts(url: str) -> tuple[list[tuple[str, int]], str, dict[str, Any], int]:
    """The Sentinels, the monitored service's name, the credentials (of the Sentinels
    and the primary alike, as ``limits`` reads the same URL) and the database of a
    ``redis+sentinel://[user:password@]host:port[,host:port...]/<service>[?db=N]`` URL."""
    sentinels, auth, parts = _endpoints(url, SENTINEL_SCHEME)
    service = parts.path.strip("/")
    if not service or "/" in service:
        raise ValueError(f"REDIS_URL: name the Sentinels' service as the path: {url!r}")
    query = dict(parse_qsl(parts.query))
    db = query.pop("db", "0")
    if query or not db.isdigit():
        raise ValueError(f"REDIS_URL: a Sentinel URL takes only ?db=<number>: {url!r}")
    return sentinels, service, auth, int(db)


def socket_options(options: dict[str, Any]) -> dict[str, Any]:
    """The socket timeouts of ``options``: what a Sentinel is asked with (redis-py's
    ``sentinel_kwargs``; the primary gets every option)."""
    return {k: v for k, v in options.items() if k.startswith("socket_")}


def sentinel_client(url: str, common: dict[str, Any], max_connections: int | None) -> Any:
    """The primary of a ``redis+sentinel://`` URL's service, found through its Sentinels
    and again after a failover (redis-py's ``Sentinel.master_for``: each new connection
    asks them; a connection to a primary that became a replica is dropped)."""
    sentinels, service, auth, db = sentinel_parts(url)
    asking = {**socket_options(common), **auth}
    sentinel = Sentinel(sentinels, sentinel_kwargs=asking, **common, **auth)
    pool = {} if max_connections is None else {"max_connections": max_connections}
    return sentinel.master_for(service, db=db, **pool)


def client_options(timeout: float = 0.5, retries: int = 2) -> dict[str, Any]:
    """Options that make a client fail fast: short socket timeouts, two jittered retries
    (the sessions' client and the rate limiter's)."""
    return {
        "socket_timeout": timeout,
        "socket_connect_timeout": timeout,
        "health_check_interval": 0,
        "retry": Retry(ExponentialWithJitterBackoff(cap=0.1, base=0.01), retries),
    }


def make_client(
    url: str, timeout: float = 0.5, retries: int = 2, max_connections: int | None = None
) -> Any:
    """A client that fails fast (``client_options``), with at most ``max_connections``
    connections (None: redis-py's default, no bound).

    ``redis+cluster://``: a ``RedisCluster`` (it connects to a seed when made, so the
    store makes it on first use), ``max_connections`` per node (redis-py's pool raises
    ``ConnectionError`` when they are all in use: a 503); ``redis+sentinel://``: the
    service's primary (``sentinel_client``), ``max_connections`` in its pool (raising
    the same way); anything else:
    ``redis.Redis`` on a ``BlockingConnectionPool`` (a command waits up to ``timeout``
    for a connection, then fails the same way)."""
    common = client_options(timeout, retries)
    if url.startswith(SENTINEL_SCHEME + "://"):
        return sentinel_client(url, common, max_connections)
    if url.startswith(CLUSTER_SCHEME + "://"):
        nodes, options = cluster_nodes(url)
        if max_connections is not None:
            options.setdefault("max_connections", max_connections)
        return RedisCluster(startup_nodes=nodes, **common, **options)
    retry_on = [redis.ConnectionError, redis.TimeoutError]
    if max_connections is None:
        return redis.Redis.from_url(url, retry_on_error=retry_on, **common)
    pool = redis.BlockingConnectionPool.from_url(
        url, max_connections=max_connections, timeout=timeout, retry_on_error=retry_on,
        **common,
    )  # fmt: skip
    return redis.Redis.from_pool(pool)


def idle_pools(client: Any) -> list[Any]:
    """The connection pools of ``client`` (one, or one per node of a cluster)."""
    if isinstance(client, RedisCluster):
        nodes = client.get_nodes()
        return [n.redis_connection.connection_pool for n in nodes if n.redis_connection]
    return [client.connection_pool]


def is_cluster_url(url: str) -> bool:
    return url.startswith(CLUSTER_SCHEME + "://")


#: The schemes of one server's URL (redis-py's ``from_url``).
SERVER_SCHEMES = ("redis", "rediss", "unix")


def check_url(url: str) -> None:
    """Raise ``ValueError`` naming what is wrong with ``REDIS_URL`` (at start, not at the
    first request)."""
    scheme = urlsplit(url).scheme
    if scheme == CLUSTER_SCHEME:
        cluster_nodes(url)
    elif scheme == SENTINEL_SCHEME:
        sentinel_parts(url)
    elif scheme not in SERVER_SCHEMES:
        known = ", ".join(f"{s}://" for s in (*SERVER_SCHEMES, SENTINEL_SCHEME, CLUSTER_SCHEME))
        raise ValueError(f"REDIS_URL: {scheme or 'no'} scheme; expected one of {known}")


def guarded(fn: Callable[[], T]) -> T:
    """``fn()``, a Redis error raised as ``StoreUnavailable`` naming its class."""
    try:
        return fn()
    except REDIS_ERRORS as e:
        raise StoreUnavailable(f"redis: {e.__class__.__name__}: {e}") from e


class SlotRouter:
    """One Redis or a Redis Cluster (``client``, or one made for ``url`` on first use),
    and how a call on one slot reaches it.

    ``slot_clients`` (a cluster only): send each call on one slot to its node's own
    client (the default); False sends every call through the cluster client (the
    benchmarks and tests compare the two)."""

    def __init__(
        self,
        url: str | None,
        client: Any,
        timeout: float,
        slot_clients: bool = True,
        max_connections: int | None = None,
    ) -> None:
        if client is None and url is None:
            raise ValueError("RedisStore needs a url or a client")
        if client is None:
            check_url(str(url))
        self.cluster = (
            isinstance(client, RedisCluster) if client is not None else is_cluster_url(str(url))
        )
        self.slot_clients = self.cluster and slot_clients
        self._url, self._timeout, self._max_connections = url, timeout, max_connections
        self._client = client
        self._lock = threading.Lock()
        #: The registered scripts by name (``register_script``).
        self.scripts: dict[str, Any] = {}

    @property
    def client(self) -> Any:
        """The client, made on first use (a cluster client connects when it is made:
        a cluster that is down at start is a 503 until it is up, not a crash)."""
        client = self._client
        if client is None:
            with self._lock:
                if self._client is None:
                    url = str(self._url)
                    self._client = guarded(
                        lambda: make_client(url, self._timeout, 2, self._max_connections)
                    )
                client = self._client
        return client

    def warm(self) -> None:
        """Make the client (on a cluster: its slot table, from ``CLUSTER SLOTS``) and open
        one connection to the server, or to every primary of a cluster, each left in its
        node's pool for the calls that follow (``PING``). Raises ``StoreUnavailable``."""
        client = self.client
        if not self.cluster:
            guarded(client.ping)
            return
        for node in guarded(client.get_primaries):
            guarded(client.get_redis_connection(node).ping)

    def on_slot(self, key: str, fn: Callable[[Any], T]) -> T:
        """``fn(client)``, every key it uses in ``key``'s slot: with the client of that
        slot's node on a cluster (``slot_clients``), again with the cluster client when
        the node cannot serve it (``REROUTE``); with the one client otherwise. Redis
        errors become ``StoreUnavailable``."""
        client = self.client
        if self.slot_clients:
            try:
                return fn(client.get_redis_connection(client.get_node_from_key(key)))
            except REROUTE:
                pass  # the cluster client follows the slot (and refreshes its table)
            except REDIS_ERRORS as e:
                raise StoreUnavailable(f"redis: {e.__class__.__name__}: {e}") from e
        return guarded(lambda: fn(client))

    def run(self, name: str, source: str, keys: list[str], args: list[Any]) -> Any:
        """The script ``name`` (``source``) over ``keys`` (one slot) with ``args``."""
        script = self.scripts.get(name)
        if script is None:
            script = self.scripts[name] = self.client.register_script(source)
        return self.on_slot(keys[0], lambda client: script(keys=keys, args=args, client=client))

    def disconnect_idle(self) -> None:
        """Close the connections no call is using (``ConnectionPool.disconnect`` of the
        free ones): a pool keeps every connection it ever opened until then."""
        client = self._client
        if client is None:
            return
        with contextlib.suppress(*REDIS_ERRORS):
            for pool in idle_pools(client):
                pool.disconnect(inuse_connections=False)

    def close(self) -> None:
        client, self._client = self._client, None
        self.scripts = {}
        if client is None:
            return
        with contextlib.suppress(*REDIS_ERRORS):
            client.close()
            if not self.cluster:
                client.connection_pool.disconnect()
