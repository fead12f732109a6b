"""A real Redis Cluster for tests: 3 masters and 3 replicas on free loopback ports.

Each node is a ``redis-server --cluster-enabled yes`` child with its own folder (append-only
file on), and ``redis-cli --cluster create … --cluster-replicas 1 --cluster-yes`` joins
them. ``LocalCluster.kill_master_of(key)`` SIGKILLs the master that holds a key and waits
until its replica has been promoted, for the failover tests.
"""

from __future__ import annotations

import contextlib
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterable
from pathlib import Path

import redis


def cluster_port(taken: Iterable[int] = ()) -> int:
    """A free port whose cluster bus port (port + 10000) is free too, both below 65536,
    and neither of them a port or a bus port of ``taken``: the ports chosen before are
    free again until their nodes bind them, and the system may hand one out twice (two
    nodes on one port: the second does not start, and the first outlived the cluster).
    Raises ``RuntimeError`` when no such port turns up."""
    busy = {q for p in taken for q in (p, p + 10000)}
    for _ in range(200):
        with socket.socket() as a, socket.socket() as b:
            try:
                a.bind(("127.0.0.1", 0))
                port = a.getsockname()[1]
                if port + 10000 > 65535 or {port, port + 10000} & busy:
                    continue
                b.bind(("127.0.0.1", port + 10000))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port pair for a cluster node")


class LocalCluster:
    """``masters`` masters with ``replicas`` replica each, data under ``directory``.

    ``url`` (any node) once started. Raises ``RuntimeError`` when the nodes do not come up
    or the cluster does not reach ``cluster_state:ok`` in time.
    """

    def __init__(self, directory: Path, masters: int = 3, replicas: int = 1) -> None:
        self.directory = Path(directory)
        self.count = masters * (1 + replicas)
        self.replicas = replicas
        self.ports: list[int] = []
        self.procs: dict[int, subprocess.Popen[bytes]] = {}

    @property
    def url(self) -> str:
        """A ``redis://`` URL of the first live node."""
        for port in self.ports:
            if port in self.procs:
                return f"redis://127.0.0.1:{port}/0"
        raise RuntimeError("no live node")

    def start(self, timeout: float = 30.0) -> LocalCluster:
        """Start every node, create the cluster and wait until every slot is served."""
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not installed")
        self.ports = []
        for _ in range(self.count):
            self.ports.append(cluster_port(self.ports))
        try:
            for port in self.ports:
                self._spawn(binary, port)
            for port in self.ports:
                self._wait(lambda p=port: _client(p).ping(), timeout,
                           f"node {port} did not answer")
            subprocess.run(
                ["redis-cli", "--cluster", "create",
                 *[f"127.0.0.1:{p}" for p in self.ports],
                 "--cluster-replicas", str(self.replicas), "--cluster-yes"],
                check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=timeout)
            self.wait_ok(timeout)
        except BaseException:
            self.stop()  # no node outlives a cluster that did not come up
            raise
        return self

    def _spawn(self, binary: str, port: int) -> None:
        folder = self.directory / str(port)
        folder.mkdir(parents=True, exist_ok=True)
        self.procs[port] = subprocess.Popen(
            [binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(folder),
             "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
             # Fail over quickly: tests kill masters on purpose.
             "--cluster-node-timeout", "1000", "--cluster-replica-validity-factor", "0",
             "--appendonly", "yes",
             "--appendfsync", "everysec", "--save", "", "--daemonize", "no",
             "--loglevel", "warning", "--logfile", str(folder / "redis.log")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def wait_ok(self, timeout: float = 30.0) -> None:
        """Wait until every live node reports ``cluster_state:ok`` and every live replica's
        link to its master is up (a replica that never synced cannot take over)."""

        def ok() -> bool:
            for port in self.procs:
                client = _client(port)
                if client.cluster("info").get("cluster_state") != "ok":
                    return False
                replication = client.info("replication")
                if (replication.get("role") == "slave"
                        and replication.get("master_link_status") != "up"
                        and int(replication.get("master_port", 0)) in self.procs):
                    return False
            return True

        self._wait(ok, timeout, "the cluster did not reach cluster_state:ok")

    def master_of(self, key: str) -> int:
        """The port of the master that holds ``key``'s slot now."""
        client = _client(next(iter(self.procs)))
        slot = client.cluster("keyslot", key)
        for start, end, master, *_ in client.cluster("slots"):
            if int(start) <= int(slot) <= int(end):
                return int(master[1])
        raise RuntimeError(f"no master for slot {slot}")

    def kill_master_of(self, key: str, timeout: float = 30.0) -> int:
        """SIGKILL the master holding ``key`` and wait until a replica took over its slots;
        returns the killed port."""
        port = self.master_of(key)
        self.kill(port)

        def promoted() -> bool:
            with contextlib.suppress(redis.RedisError, OSError):
                return self.master_of(key) != port
            return False

        self._wait(promoted, timeout, f"no replica took over from {port}")
        self.wait_ok(timeout)
        return port

    def replicas_of(self, master: int) -> list[int]:
        """The ports of the live replicas of the master on port ``master``."""
        info = _client(master).info("replication")
        return [int(v["port"]) for k, v in info.items()
                if k.startswith("slave") and isinstance(v, dict) and int(v["port"]) in self.procs]

    def pause(self, port: int) -> None:
        """SIGSTOP one node (it stops answering and replicating, but keeps its sockets)."""
        self.procs[port].send_signal(signal.SIGSTOP)

    def resume(self, port: int) -> None:
        """SIGCONT a paused node."""
        self.procs[port].send_signal(signal.SIGCONT)

    def kill(self, port: int) -> None:
        """SIGKILL one node (a crash)."""
        proc = self.procs.pop(port)
        proc.kill()
        proc.wait()

    def stop(self) -> None:
        """Stop every node."""
        for proc in self.procs.values():
            proc.terminate()
        for proc in self.procs.values():
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.procs.clear()

    @staticmethod
    def _wait(check, timeout: float, message: str) -> None:  # type: ignore[no-untyped-def]
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(redis.RedisError, OSError):
                if check():
                    return
            time.sleep(0.05)  # polling the cluster: the pause between two asks
        raise RuntimeError(message)


def _client(port: int) -> redis.Redis:
    return redis.Redis(host="127.0.0.1", port=port, socket_timeout=1,
                       socket_connect_timeout=1, decode_responses=True)
