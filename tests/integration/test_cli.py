"""The `agentry` command as users run it: keys, settings errors, and `agentry up` start to stop."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from core.infra.process_records import process_alive
from tests.integration.conftest import Service
from tests.support.service import free_port, wait_for

pytestmark = pytest.mark.integration

AGENTRY = [sys.executable, "-m", "serve.cli"]


def run_cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*AGENTRY, *args], env=env, capture_output=True, text=True, timeout=120)


def cli_env(data_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AGENTRY_", "REDIS_URL", "RAY_ADDRESS"))}
    return env | {"AGENTRY_DATA_DIR": str(data_dir)} | extra


def test_keys_create_list_revoke_against_the_running_store(service: Service) -> None:
    env = cli_env(service.data_dir)
    created = run_cli("keys", "create", "--workspace", "cli-ws", "--label", "laptop", env=env)
    assert created.returncode == 0, created.stderr
    key = re.search(r"key:\s+(agk_\S+)", created.stdout).group(1)  # type: ignore[union-attr]
    key_id = key.split("_")[1]
    listed = run_cli("keys", "list", "--workspace", "cli-ws", env=env)
    assert key_id in listed.stdout and "active" in listed.stdout and "laptop" in listed.stdout
    assert key not in listed.stdout, "a key is shown once, at creation"
    with httpx.Client(base_url=service.url, headers={"Authorization": f"Bearer {key}"}) as api:
        assert api.get("/api/v1/agents").status_code == 200
        revoked = run_cli("keys", "revoke", key_id, env=env)
        assert revoked.returncode == 0
        assert api.get("/api/v1/agents").status_code == 401
    assert "revoked" in run_cli("keys", "list", "--workspace", "cli-ws", env=env).stdout
    assert run_cli("keys", "revoke", "0000000000000000", env=env).returncode == 1
    # The CLI reused the service's embedded Redis and left it running.
    assert httpx.get(service.url + "/readyz").status_code == 200


def test_invalid_setting_stops_start_up_naming_the_variable(tmp_path: Path) -> None:
    result = run_cli("up", env=cli_env(tmp_path / "d", ORCHESTRATOR_DEFAULT_ON_FAILURE="maybe"))
    assert result.returncode == 2
    assert "ORCHESTRATOR_DEFAULT_ON_FAILURE" in result.stderr
    assert not (tmp_path / "d" / "redis").exists(), "nothing starts before the settings are valid"


def test_agentry_up_serves_prints_a_key_and_stops_what_it_started(tmp_path: Path) -> None:
    port = free_port()
    data_dir = tmp_path / "up"
    process = subprocess.Popen(
        [*AGENTRY, "up", "--port", str(port)],
        env=cli_env(data_dir, AGENTRY_LOG_LEVEL="WARNING"),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    try:
        deadline = time.monotonic() + 180
        while not any("Press Ctrl-C" in line for line in lines):
            assert time.monotonic() < deadline and process.poll() is None, "".join(lines)
            line = process.stdout.readline()  # type: ignore[union-attr]
            lines.append(line)
        output = "".join(lines)
        assert f"http://127.0.0.1:{port}" in output
        key = re.search(r"(agk_\S+)", output).group(1)  # type: ignore[union-attr]
        assert (data_dir / "dev-api-key").read_text().strip() == key
        response = httpx.get(
            f"http://127.0.0.1:{port}/api/v1/agents", headers={"Authorization": f"Bearer {key}"}
        )
        assert response.status_code == 200 and response.json()["data"] == []
        _dashboard_signs_in_with_the_printed_command(output, data_dir)
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=90) == 0
    finally:
        if process.poll() is None:
            process.kill()
    assert not (data_dir / "redis" / "redis.sock").exists() or not _answers(data_dir)
    wait_for(lambda: _port_closed(port), timeout=30, what="the HTTP port to close")


def test_agentry_down_stops_what_agentry_up_started_and_says_when_nothing_runs(tmp_path: Path) -> None:
    import json

    port = free_port()
    data_dir = tmp_path / "down"
    env = cli_env(data_dir, AGENTRY_LOG_LEVEL="WARNING")
    idle = run_cli("down", env=env)
    assert idle.returncode == 0 and idle.stdout.startswith("Nothing to stop:"), idle
    process = subprocess.Popen(
        [*AGENTRY, "up", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    try:
        deadline = time.monotonic() + 180
        while not any("Press Ctrl-C" in line for line in lines):
            assert time.monotonic() < deadline and process.poll() is None, "".join(lines)
            lines.append(process.stdout.readline())  # type: ignore[union-attr]
        assert " down`) to stop." in lines[-1], lines[-1]
        assert json.loads((data_dir / "up.json").read_text())["pid"] == process.pid
        gcs = json.loads((data_dir / "ray.json").read_text())["address"]
        redis_pid = int((data_dir / "redis" / "redis.pid").read_text())
        assert not _port_closed(port) and _answers(data_dir)

        down = subprocess.run(
            [*AGENTRY, "down"], env=env, capture_output=True, text=True, timeout=DOWN_WAIT_SECONDS
        )
        assert down.returncode == 0, down
        assert f"pid {process.pid}" in down.stdout and down.stdout.rstrip().endswith("are down."), down.stdout
        # `down` returned once `up` had exited, having stopped its Serve app, its Ray and its Redis.
        assert process.wait(timeout=10) == 0
    finally:
        if process.poll() is None:
            # A failed `down` still leaves nothing behind: SIGTERM stops what `up` started.
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=90)
            except subprocess.TimeoutExpired:
                process.kill()
    output = "".join(lines) + process.stdout.read()  # type: ignore[union-attr]
    assert "Stopping..." in output and "Traceback" not in output, output
    wait_for(lambda: _port_closed(port), timeout=30, what="the HTTP port to close")
    wait_for(lambda: _address_closed(gcs), timeout=30, what="Ray's GCS to stop")
    wait_for(lambda: not process_alive(redis_pid), timeout=30, what="the embedded Redis to exit")
    assert not _answers(data_dir)
    assert not (data_dir / "up.json").exists() and not (data_dir / "ray.json").exists()
    again = run_cli("down", env=env)
    assert again.returncode == 0 and again.stdout.startswith("Nothing to stop:"), again


#: `agentry down` waits up to 120 s for the service to stop; the test gives it a little more.
DOWN_WAIT_SECONDS = 150


def _address_closed(address: str) -> bool:
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host, int(port)), timeout=1):
            return False
    except OSError:
        return True


def _dashboard_signs_in_with_the_printed_command(banner: str, data_dir: Path) -> None:
    """The banner names the dashboard and an `agentry` command whose token the dashboard accepts."""
    dashboard = re.search(r"Ray dashboard: (http://\S+)", banner).group(1)  # type: ignore[union-attr]
    assert "-m serve.cli dashboard-token`" in banner, banner
    token = run_cli("dashboard-token", env=cli_env(data_dir))
    assert token.returncode == 0, token.stderr
    signed_in = {"Authorization": f"Bearer {token.stdout.strip()}"}

    def answers(headers: dict[str, str]) -> int | None:
        try:
            return httpx.get(f"{dashboard}/api/version", headers=headers, timeout=10).status_code
        except httpx.HTTPError:
            return None  # the dashboard may come up after Serve does

    assert wait_for(lambda: answers(signed_in), timeout=60, what="the dashboard") == 200
    assert answers({}) == 401


def test_dashboard_token_without_a_token_is_a_plain_message(tmp_path: Path) -> None:
    env = cli_env(tmp_path, HOME=str(tmp_path), RAY_AUTH_TOKEN_PATH=str(tmp_path / "none"))
    env.pop("RAY_AUTH_TOKEN", None)
    missing = run_cli("dashboard-token", env=env)
    assert missing.returncode == 1 and "Traceback" not in missing.stderr
    assert missing.stderr.startswith("agentry: ") and "token" in missing.stderr


def _answers(data_dir: Path) -> bool:
    import redis

    try:
        return bool(
            redis.Redis(unix_socket_path=str(data_dir / "redis" / "redis.sock"), socket_timeout=1).ping()
        )
    except (redis.ConnectionError, redis.TimeoutError, OSError):
        return False


def _port_closed(port: int) -> bool:
    try:
        httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1)
    except httpx.HTTPError:
        return True
    return False


def test_practice_sandbox_command_serves_the_token_endpoint() -> None:
    port = free_port()
    process = subprocess.Popen(
        [
            *AGENTRY,
            "practice-sandbox",
            "--port",
            str(port),
            "--client-id",
            "cid",
            "--client-secret",
            "sec",
            "--accounts",
            "A1",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:

        def token() -> httpx.Response | None:
            try:
                return httpx.post(
                    f"http://127.0.0.1:{port}/v2/oauth/token",
                    data={"grant_type": "client_credentials", "client_id": "cid", "client_secret": "sec"},
                )
            except httpx.HTTPError:
                return None

        response = wait_for(token, timeout=60, what="the sandbox")
        assert response.status_code == 200 and response.json()["token_type"] == "Bearer"
    finally:
        process.terminate()
        process.wait(timeout=30)
