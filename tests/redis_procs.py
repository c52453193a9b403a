"""Throwaway Redis processes on loopback ports, for the tests and the benchmarks: one
``redis-server`` (``RedisServer``) or a three-master Redis Cluster (``LocalCluster``:
``redis-server --cluster-enabled yes`` per node, then ``redis-cli --cluster create``).
Each keeps its files in a temporary folder and removes it on ``stop``."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import redis

from benchmarks.servers import free_port

__all__ = ["LocalCluster", "RedisServer", "free_port", "need_redis_server"]


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


def _stop(proc: subprocess.Popen[bytes] | None) -> None:
    if proc is not None and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


class RedisServer:
    """A ``redis-server`` subprocess on one loopback port; ``stop``/``start`` keep the
    port (and, with ``persist``, the data: append-only file in ``dir``). ``args``: more
    settings (``["--maxmemory", "2mb"]``)."""

    def __init__(self, port: int, persist: Path | None = None, args: list[str] | None = None):
        self.port = port
        self.persist = persist
        self.args = list(args or [])
        self.proc: subprocess.Popen[bytes] | None = None

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
        if self.persist is not None:
            cmd += ["--appendonly", "yes", "--appendfsync", "always", "--dir", str(self.persist)]
        else:
            cmd += ["--appendonly", "no"]
        self.proc = subprocess.Popen(
            cmd + self.args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        _wait_ping(self.port, self.proc, time.monotonic() + 10)

    def stop(self) -> None:
        _stop(self.proc)
        self.proc = None


class LocalCluster:
    """A Redis Cluster of ``masters`` nodes (no replicas) on free loopback ports.

    ``url`` is ``redis+cluster://`` with every node as a seed; ``seed_url`` names one
    node only (the client discovers the rest)."""

    def __init__(self, masters: int = 3, args: list[str] | None = None) -> None:
        self.ports = [free_port() for _ in range(masters)]
        self.args = list(args or [])
        self.procs: list[subprocess.Popen[bytes]] = []
        self.cmds: list[list[str]] = []
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
            for port in self.ports:
                node_dir = self.dir / str(port)
                node_dir.mkdir()
                # The bus port is port + 10000 unless set: pick a free one too.
                cmd = [
                    exe, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(node_dir),
                    "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                    "--cluster-port", str(free_port()), "--save", "", "--appendonly", "no",
                ]  # fmt: skip
                cmd += self.args
                self.cmds.append(cmd)
                proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                self.procs.append(proc)
                _wait_ping(port, proc, deadline)
            nodes = [f"127.0.0.1:{p}" for p in self.ports]
            subprocess.run(
                [cli, "--cluster", "create", *nodes, "--cluster-replicas", "0", "--cluster-yes"],
                check=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                timeout=max(1.0, deadline - time.monotonic()),
            )
            self.wait_ok(deadline)
        except BaseException:
            self.stop()
            raise

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

    def restart(self, i: int, timeout: float = 30) -> None:
        """Start node ``i`` again (same port, same nodes.conf) and wait for the cluster."""
        deadline = time.monotonic() + timeout
        self.procs[i] = subprocess.Popen(
            self.cmds[i], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        _wait_ping(self.ports[i], self.procs[i], deadline)
        self.wait_ok(deadline)

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
