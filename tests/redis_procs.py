"""Throwaway Redis processes on loopback ports, for the tests and the benchmarks: one
``redis-server`` (``RedisServer``, a replica of another with ``replica_of``) or a
three-master Redis Cluster (``LocalCluster``: ``redis-server --cluster-enabled yes`` per
node, then ``redis-cli --cluster create``, with ``replicas`` per master). Each keeps its
files in a temporary folder and removes it on ``stop``. ``cut_off`` stops a replica so
that nothing its primary writes from then on reaches it (a failover then loses it)."""

from __future__ import annotations

import itertools
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import redis
from redis.crc import key_slot

from benchmarks.servers import free_port

__all__ = ["LocalCluster", "RedisServer", "cut_off", "free_port", "need_redis_server"]


def need_redis_server() -> None:
    """Skip (fail under ``CI``, where the test command installs it) without redis-server."""
    import pytest

    if shutil.which("redis-server") is None or shutil.which("redis-cli") is None:
        reason = "redis-server is not installed (apt-get install redis-server; make test does)"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)


def _wait_ping(port: int, proc: subprocess.Popen[bytes], deadline: float) -> None:
    client = redis.Redis(port=port, socket_connect_timeout=0.2, socket_timeout=0.5)
    try:
        while True:
            try:
                client.ping()
                # With append-only persistence, wait until the data set is loaded.
                info: Any = client.info("persistence")
                if info.get("loading", 0) == 0:
                    return
            except redis.RedisError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not start on port {port}")
            time.sleep(0.02)
    finally:
        client.close()


def _wait_synced(client: redis.Redis, deadline: float) -> None:
    """Until the replica behind ``client`` has its link to the master up."""
    try:
        while True:
            info: Any = client.info("replication")
            if info.get("master_link_status") == "up":
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"the replica is not in sync: {info}")
            time.sleep(0.02)
    finally:
        client.close()


def _wait_acked(primary: redis.Redis, key: str, replicas: int, deadline: float) -> None:
    """Until ``replicas`` replicas of ``primary`` acknowledge a write (of ``key``, gone a
    second later) within 100 ms. After a diskless sync Redis 7.0 calls a replica online
    but streams to it only from its first acknowledgement, up to a second later."""
    try:
        while True:
            pipe = primary.pipeline(transaction=False)
            pipe.set(key, b"1", px=1000)
            pipe.execute_command("WAIT", replicas, 100)
            if int(pipe.execute()[1]) >= replicas:
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"{replicas} replica(s) did not acknowledge a write")
    finally:
        primary.close()


def _crash(proc: subprocess.Popen[bytes] | None) -> None:
    if proc is not None and proc.poll() is None:
        proc.send_signal(signal.SIGCONT)  # a stopped process does not die of SIGKILL at once
        proc.kill()
        proc.wait(5)


def _stop(proc: subprocess.Popen[bytes] | None) -> None:
    if proc is not None and proc.poll() is None:
        proc.send_signal(signal.SIGCONT)  # a stopped one (SIGSTOP) cannot take SIGTERM
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def cut_off(replica: redis.Redis, pid: int, primary: redis.Redis, timeout: float = 10) -> None:
    """Stop the replica (process ``pid``, SIGSTOP) with its link to ``primary`` closed
    first (``CLIENT KILL TYPE master``), and return once ``primary`` counts no replica:
    nothing it writes from now on reaches the replica. (SIGSTOP alone would not do: the
    stopped replica's socket still takes the stream in, read on SIGCONT.) A replica that
    reconnected before it stopped (it retries once a second) is let go and cut again."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        replica.execute_command("CLIENT KILL TYPE master")
        os.kill(pid, signal.SIGSTOP)
        until = time.monotonic() + 1
        while time.monotonic() < until:
            info: Any = primary.info("replication")
            if info["connected_slaves"] == 0:
                return
            time.sleep(0.02)
        os.kill(pid, signal.SIGCONT)
    raise RuntimeError("the replica could not be cut off from its primary")


class _ServerProcess:
    """A ``redis-server`` process of the tests' own, and the folder it keeps its files in."""

    proc: subprocess.Popen[bytes] | None = None
    tmp: Path | None = None

    def stop(self) -> None:
        """End it (SIGTERM, then SIGKILL) and remove its folder."""
        _stop(self.proc)
        self.proc = None
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)
            self.tmp = None


class RedisServer(_ServerProcess):
    """A ``redis-server`` subprocess on one loopback port; ``stop``/``start`` keep the
    port (and, with ``persist``, the data: append-only file in ``dir``). ``args``: more
    settings (``["--maxmemory", "2mb"]``). ``replica_of``: a replica of that server
    (``start`` returns once it is in sync)."""

    def __init__(
        self,
        port: int,
        persist: Path | None = None,
        args: list[str] | None = None,
        replica_of: RedisServer | None = None,
    ):
        self.port = port
        self.persist = persist
        self.args = list(args or [])
        if replica_of is not None:
            self.args += ["--replicaof", "127.0.0.1", str(replica_of.port)]
        self.replica_of = replica_of
        self.proc: subprocess.Popen[bytes] | None = None
        self.tmp: Path | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def start(self) -> None:
        exe = shutil.which("redis-server")
        assert exe is not None
        cmd = [exe, "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
        cmd += ["--repl-diskless-sync-delay", "0"]  # a replica in sync at once
        if self.persist is not None:
            cmd += ["--appendonly", "yes", "--appendfsync", "always", "--dir", str(self.persist)]
        else:  # a folder of its own all the same: a replica's sync writes a dump.rdb
            self.tmp = Path(tempfile.mkdtemp(prefix="uno-redis-"))
            cmd += ["--appendonly", "no", "--dir", str(self.tmp)]
        self.proc = subprocess.Popen(
            cmd + self.args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 10
        _wait_ping(self.port, self.proc, deadline)
        if self.replica_of is not None:
            _wait_synced(self.client(), deadline)
            _wait_acked(self.replica_of.client(), "ready", 1, deadline)

    def client(self) -> redis.Redis:
        """A plain client of this server (INFO, REPLICAOF, DEBUG ...)."""
        return redis.Redis(port=self.port, socket_timeout=2)

    def crash(self) -> None:
        """SIGKILL: gone at once, as a crashed host (SIGTERM would let it wait for its
        replicas to catch up, Redis 7's ``shutdown-timeout``)."""
        _crash(self.proc)

    def pause(self) -> None:
        """SIGSTOP: it answers nothing, not even its primary, until ``resume``."""
        os.kill(self.pid, signal.SIGSTOP)

    def resume(self) -> None:
        os.kill(self.pid, signal.SIGCONT)


class LocalSentinel(_ServerProcess):
    """One Redis Sentinel (``redis-server --sentinel``) on a loopback port, monitoring
    ``primary`` as ``service`` with a quorum of one: it alone finds the primary down
    ``down_ms`` after it stops answering and promotes a replica. ``start`` returns once
    it knows ``replicas`` replicas of the primary (it could promote none before)."""

    def __init__(
        self, port: int, primary: RedisServer, replicas: int = 1, service: str = "uno"
    ) -> None:
        self.port, self.primary, self.replicas, self.service = port, primary, replicas, service
        self.down_ms = 1000  # not less: a loaded machine may leave a PING unanswered
        self.proc: subprocess.Popen[bytes] | None = None
        self.tmp: Path | None = None

    @property
    def url(self) -> str:
        """The sessions' ``REDIS_URL`` of the monitored service."""
        return f"redis+sentinel://127.0.0.1:{self.port}/{self.service}"

    def start(self) -> None:
        exe = shutil.which("redis-server")
        assert exe is not None
        self.tmp = Path(tempfile.mkdtemp(prefix="uno-sentinel-"))
        conf = self.tmp / "sentinel.conf"  # Sentinel rewrites its file: one of its own
        conf.write_text(
            f"port {self.port}\nbind 127.0.0.1\ndir {self.tmp}\n"
            f"sentinel monitor {self.service} 127.0.0.1 {self.primary.port} 1\n"
            f"sentinel down-after-milliseconds {self.service} {self.down_ms}\n"
            f"sentinel failover-timeout {self.service} 5000\n"
        )
        self.proc = subprocess.Popen(
            [exe, str(conf), "--sentinel"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 10
        client = self.client()
        while True:  # up, and it knows the primary's replicas
            try:
                replicas: Any = client.execute_command("SENTINEL", "REPLICAS", self.service)
                if len(replicas) >= self.replicas:
                    return
            except redis.RedisError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis sentinel on port {self.port} did not start")
            time.sleep(0.05)

    def client(self) -> redis.Redis:
        return redis.Redis(port=self.port, socket_timeout=2, socket_connect_timeout=0.5)

    def primary_port(self) -> int:
        """The port of the primary it names now."""
        _, port = self.client().execute_command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", self.service)
        return int(port)


class LocalCluster:
    """A Redis Cluster of ``masters`` nodes and ``replicas`` replicas of each (the first
    ``masters`` ports are the masters) on free loopback ports.

    ``url`` is ``redis+cluster://`` with every node as a seed; ``seed_url`` names one
    node only (the client discovers the rest). ``migrate_slot`` moves a slot to another
    master (or opens the move only), ``add_replica`` and ``failover`` give a master a
    replica and hand it the master's slots (``crash``, ``cut_off`` and ``failover``'s
    ``TAKEOVER`` make a failover that loses what the replica did not get)."""

    def __init__(self, masters: int = 3, args: list[str] | None = None, replicas: int = 0) -> None:
        self.ports = [free_port() for _ in range(masters * (1 + replicas))]
        self.replicas = replicas
        self.args = list(args or [])
        self.procs: list[subprocess.Popen[bytes]] = []
        self.cmds: list[list[str]] = []
        self.bus_ports: list[int] = []
        self.dir: Path | None = None

    @property
    def url(self) -> str:
        return "redis+cluster://" + ",".join(f"127.0.0.1:{p}" for p in self.ports)

    @property
    def seed_url(self) -> str:
        return f"redis+cluster://127.0.0.1:{self.ports[0]}"

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in self.procs]

    def start(self, timeout: float = 30) -> None:
        exe, cli = shutil.which("redis-server"), shutil.which("redis-cli")
        assert exe is not None and cli is not None
        self.dir = Path(tempfile.mkdtemp(prefix="uno-redis-cluster-"))
        deadline = time.monotonic() + timeout
        try:
            for port in self.ports:  # all started, then each waited for
                self._start_node(port, deadline, wait=False)
            for port, proc in zip(self.ports, self.procs, strict=True):
                _wait_ping(port, proc, deadline)
            nodes = [f"127.0.0.1:{p}" for p in self.ports]
            replicas = ["--cluster-replicas", str(self.replicas)]
            subprocess.run(
                [cli, "--cluster", "create", *nodes, *replicas, "--cluster-yes"],
                check=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                timeout=max(1.0, deadline - time.monotonic()),
            )
            self.wait_ok(deadline)
            if self.replicas:
                self._wait_replicas(deadline)
        except BaseException:
            self.stop()
            raise

    def _start_node(self, port: int, deadline: float, wait: bool = True) -> None:
        exe = shutil.which("redis-server")
        assert exe is not None and self.dir is not None
        node_dir = self.dir / str(port)
        node_dir.mkdir()
        # The bus port is port + 10000 unless set: pick a free one too.
        bus = free_port()
        cmd = [
            exe, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(node_dir),
            "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
            "--cluster-port", str(bus), "--save", "", "--appendonly", "no",
            "--repl-diskless-sync-delay", "0",
        ]  # fmt: skip
        cmd += self.args
        self.cmds.append(cmd)
        self.bus_ports.append(bus)
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.procs.append(proc)
        if wait:
            _wait_ping(port, proc, deadline)

    def _ask(self, i: int, *args: Any) -> Any:
        client = self.node(i)
        try:
            return client.execute_command(*args)
        finally:
            client.close()

    def node_id(self, i: int) -> str:
        """Node ``i``'s id in the cluster."""
        found = self._ask(i, "CLUSTER MYID")
        return str(found.decode() if isinstance(found, bytes) else found)

    def owner(self, slot: int, via: int = 0) -> int:
        """The node that serves ``slot`` (its master), as node ``via`` sees it."""
        for row in self._ask(via, "CLUSTER SLOTS"):
            if row[0] <= slot <= row[1]:
                return self.ports.index(int(row[2][1]))
        raise LookupError(f"slot {slot} is not served")

    def migrate_slot(self, slot: int, to: int, finish: bool = True) -> int:
        """Move ``slot`` and its keys to master ``to`` (``redis-cli --cluster reshard``'s
        steps: IMPORTING, MIGRATING, MIGRATE, then SETSLOT NODE on every master). Without
        ``finish`` the move stays open: the keys are on ``to``, the old master answers
        ASK for them. Returns the old master."""
        src = self.owner(slot)
        self._ask(to, "CLUSTER SETSLOT", slot, "IMPORTING", self.node_id(src))
        self._ask(src, "CLUSTER SETSLOT", slot, "MIGRATING", self.node_id(to))
        while keys := self._ask(src, "CLUSTER GETKEYSINSLOT", slot, 100):
            self._ask(src, "MIGRATE", "127.0.0.1", self.ports[to], "", 0, 5000, "KEYS", *keys)
        if finish:
            self.finish_migration(slot, to)
        return src

    def finish_migration(self, slot: int, to: int) -> None:
        """Give ``slot`` to master ``to`` on every master (``to`` first), and wait until
        every node names ``to`` for it."""
        masters = [i for i in range(len(self.ports)) if self._role(i) == "master"]
        for i in sorted(masters, key=lambda i: i != to):
            self._ask(i, "CLUSTER SETSLOT", slot, "NODE", self.node_id(to))
        self._wait(lambda: all(self.owner(slot, via=i) == to for i in range(len(self.ports))))

    def _wait_replicas(self, deadline: float) -> None:
        """Until every master has its ``replicas`` online (in sync)."""

        def online(i: int) -> int:
            info: Any = self._ask(i, "INFO", "replication")
            found = [info.get(f"slave{n}", {}) for n in range(info["connected_slaves"])]
            return sum(row.get("state") == "online" for row in found)

        def synced() -> bool:
            roles = [self._role(i) for i in range(len(self.ports))]
            masters = [i for i, role in enumerate(roles) if role == "master"]
            return len(masters) * (1 + self.replicas) == len(roles) and all(
                online(i) == self.replicas for i in masters
            )

        self._wait(synced, deadline)
        masters = [i for i in range(len(self.ports)) if self._role(i) == "master"]
        keys: dict[int, str] = {}  # a key on each master
        for n in itertools.count():
            keys.setdefault(self.owner(key_slot(f"ready{n}".encode()), masters[0]), f"ready{n}")
            if len(keys) == len(masters):
                break
        for i, key in keys.items():
            _wait_acked(self.node(i), key, self.replicas, deadline)

    def _role(self, i: int) -> str:
        info: Any = self._ask(i, "INFO", "replication")
        return str(info["role"])

    def add_replica(self, master: int, timeout: float = 30) -> int:
        """A new node, a replica of ``master``, in sync with it; returns its index."""
        deadline = time.monotonic() + timeout
        port = free_port()
        self._start_node(port, deadline)
        self.ports.append(port)
        i = len(self.ports) - 1
        self._ask(i, "CLUSTER MEET", "127.0.0.1", self.ports[master], self.bus_ports[master])
        master_id = self.node_id(master)
        self._wait(lambda: master_id in self._nodes(i), deadline)
        self._ask(i, "CLUSTER REPLICATE", master_id)
        self._wait(lambda: self._ask(i, "INFO", "replication").get("master_link_status") == "up")
        self.wait_ok(deadline)
        # Every node knows it as a replica: a master votes for a failover only then
        # (in sync at once, without the default 5 s sync delay, it can be before).
        new_id = self.node_id(i)
        self._wait(
            lambda: all(
                "slave" in self._nodes(j).get(new_id, {}).get("flags", "")
                for j in range(len(self.ports))
            ),
            deadline,
        )
        return i

    def _nodes(self, i: int) -> dict[str, dict[str, Any]]:
        """``CLUSTER NODES`` as node ``i`` sees it, by node id (redis-py parses it)."""
        found: Any = self._ask(i, "CLUSTER NODES")
        return {row["node_id"]: row for row in found.values()}

    def replica_of(self, master: int) -> int:
        """The (first) replica of ``master``."""
        info: Any = self._ask(master, "INFO", "replication")
        return self.ports.index(int(info["slave0"]["port"]))

    def failover(self, replica: int, timeout: float = 30, how: str = "") -> None:
        """``CLUSTER FAILOVER`` on ``replica`` (its master agrees and stops writes first:
        nothing is lost; ``how`` ``FORCE`` or ``TAKEOVER``: without its master, what the
        replica did not get is lost), and wait until every node sees it as a master."""
        deadline = time.monotonic() + timeout
        # A manual failover that is not done in 5 s (CLUSTER_MF_TIMEOUT: a busy machine,
        # a vote that came late) is dropped by Redis without a word: ask again.
        while self._role(replica) != "master":
            self._ask(replica, "CLUSTER FAILOVER", *([how] if how else []))
            try:
                self._wait(
                    lambda: self._role(replica) == "master", min(deadline, time.monotonic() + 6)
                )
            except RuntimeError:
                if time.monotonic() > deadline:
                    raise
        wanted = self.node_id(replica)

        def everyone_agrees() -> bool:
            alive = [i for i in range(len(self.ports)) if self.procs[i].poll() is None]
            return all("master" in self._nodes(i)[wanted]["flags"] for i in alive)

        self._wait(everyone_agrees, deadline)

    @staticmethod
    def _wait(ready: Any, deadline: float | None = None) -> None:
        deadline = time.monotonic() + 30 if deadline is None else deadline
        while not ready():
            if time.monotonic() > deadline:
                raise RuntimeError("the Redis Cluster did not get there in time")
            time.sleep(0.05)

    def wait_ok(self, deadline: float) -> None:
        """Until every node says ``cluster_state:ok`` and knows every other node."""
        for port in self.ports:
            client = redis.Redis(port=port, socket_timeout=0.5)
            try:
                while True:
                    info = client.execute_command("CLUSTER INFO")
                    if isinstance(info, bytes | str):  # redis-py parses it into a dict
                        text = info.decode() if isinstance(info, bytes) else info
                        info = dict(line.split(":", 1) for line in text.split() if ":" in line)
                    fields = {str(k): str(v) for k, v in info.items()}
                    if fields.get("cluster_state") == "ok" and int(
                        fields.get("cluster_known_nodes", 0)
                    ) == len(self.ports):
                        break
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"the Redis Cluster is not ok: {fields}")
                    time.sleep(0.05)
            finally:
                client.close()

    def kill(self, i: int) -> None:
        """Stop node ``i`` (its slots have no replica: the cluster goes down)."""
        _stop(self.procs[i])

    def crash(self, i: int) -> None:
        """SIGKILL node ``i``: gone at once, nothing handed over."""
        _crash(self.procs[i])

    def cut_off(self, replica: int) -> None:
        """``cut_off`` the node ``replica`` from its master (SIGSTOP; ``resume``)."""
        master = self.ports.index(int(self._ask(replica, "INFO", "replication")["master_port"]))
        node, primary = self.node(replica), self.node(master)
        try:
            cut_off(node, self.procs[replica].pid, primary)
        finally:
            node.close()
            primary.close()

    def resume(self, i: int) -> None:
        """SIGCONT node ``i`` (after ``cut_off``)."""
        self.procs[i].send_signal(signal.SIGCONT)

    def restart(self, i: int, timeout: float = 30) -> None:
        """Start node ``i`` again (same port, same nodes.conf) and wait for the cluster."""
        deadline = time.monotonic() + timeout
        self.procs[i] = subprocess.Popen(
            self.cmds[i], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        _wait_ping(self.ports[i], self.procs[i], deadline)
        self.wait_ok(deadline)
        if self.replicas:
            self._wait_replicas(deadline)

    def node(self, i: int) -> redis.Redis:
        """A plain client of node ``i`` (for CONFIG SET, INFO, DEBUG ...)."""
        return redis.Redis(port=self.ports[i], socket_timeout=2)

    def stop(self) -> None:
        for proc in self.procs:
            _stop(proc)
        self.procs = []
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None
