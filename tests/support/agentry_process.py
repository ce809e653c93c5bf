"""`agentry up` as a child process with a data dir of its own, for tests that kill what it runs.

The session service cannot be used by a test that kills its Redis or stops it; this one can be
stopped, killed and started again on the same data dir, as an operator would.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import IO

import httpx

from core.infra.embedded_redis import EmbeddedRedis
from core.infra.process_records import process_alive
from tests.support.service import client_for, free_port, wait_for

AGENTRY = [sys.executable, "-m", "serve.cli"]
#: Start-up on a loaded two-core machine: Redis, a private Ray (whose node may take two starts of up
#: to 120 s each, serve.ray_start), the Serve application.
START_TIMEOUT_SECONDS = 300.0


def clean_env(data_dir: Path, **extra: str) -> dict[str, str]:
    """This process's environment without our settings or Ray's (the session service sets some)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AGENTRY_", "REDIS_URL", "RAY_ADDRESS"))}
    return env | {"AGENTRY_DATA_DIR": str(data_dir)} | extra


class AgentryProcess:
    def __init__(self, data_dir: Path, **settings: str) -> None:
        self.data_dir = data_dir
        self.port = free_port()
        self.settings = settings
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self._log: IO[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def log_path(self) -> Path:
        return self.data_dir / f"agentry-up-{self.starts}.log"

    @property
    def redis(self) -> EmbeddedRedis:
        return EmbeddedRedis(self.data_dir / "redis")

    def key(self) -> str:
        return (self.data_dir / "dev-api-key").read_text().strip()

    def client(self, *, timeout: float = 60.0) -> httpx.Client:
        return client_for(self.url, self.key(), timeout=timeout)

    def start(self) -> AgentryProcess:
        """Start `agentry up` and wait until it says it serves and its API answers."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.starts += 1
        self._log = open(self.log_path, "wb")  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen(
            [*AGENTRY, "up", "--port", str(self.port)],
            env=clean_env(self.data_dir, **self.settings),
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        process = self.process

        def serving() -> bool:
            if process.poll() is not None:
                raise AssertionError(f"agentry up exited with {process.returncode}:\n{self.output()}")
            if b"Press Ctrl-C" not in self.log_path.read_bytes():
                return False
            try:
                return httpx.get(f"{self.url}/readyz", timeout=5).status_code == 200
            except httpx.HTTPError:
                return False

        wait_for(serving, timeout=START_TIMEOUT_SECONDS, interval=0.5, what="agentry up to serve")
        return self

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:] if self.log_path.exists() else ""

    def stop(self, sig: int = signal.SIGTERM, *, timeout: float = 120.0) -> int:
        """Signal the process and wait for it to exit; returns its exit code."""
        assert self.process is not None
        try:
            if self.process.poll() is None:
                self.process.send_signal(sig)
            return self.process.wait(timeout=timeout)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait(timeout=30)
            if self._log is not None:
                self._log.close()
                self._log = None

    def close(self) -> None:
        """Stop whatever is still running: the process, and a Redis someone else restarted."""
        if self.process is not None and self.process.poll() is None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.stop()
        self.redis.shutdown()

    def redis_pid(self) -> int:
        return int((self.data_dir / "redis" / "redis.pid").read_text().strip())

    def kill_redis(self) -> int:
        """`kill -9` the embedded Redis; returns its pid once it is gone."""
        pid = self.redis_pid()
        os.kill(pid, signal.SIGKILL)
        wait_for(lambda: not process_alive(pid), timeout=10, what=f"redis {pid} to die")
        return pid


def elapsed(start: float) -> float:
    return time.monotonic() - start
