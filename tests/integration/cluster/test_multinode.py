"""The two-node cluster checks (multinode_checks.py), each run in a pytest process of its own.

One process holds one Ray: the session service of the other integration tests runs Ray in this
process, so the cluster of head + worker node is started by a child pytest instead.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.slow]

CHECKS = Path(__file__).with_name("multinode_checks.py")
ROOT = Path(__file__).resolve().parents[3]
#: The child starts three nodes, a dashboard and Serve, then runs its checks: a few minutes on 2 cores.
CHILD_TIMEOUT_SECONDS = 900


def _child_env() -> dict[str, str]:
    # Nothing of this process's service (its settings, its Ray) leaks into the child's cluster.
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("AGENTRY_", "RAY_")) and k not in ("REDIS_URL", "PYTHONPATH")
    }
    # Token authentication on, as cluster.yaml starts its nodes (Ray's tokens are 32 random bytes, hex).
    env |= {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)}
    return env


@pytest.mark.timeout(CHILD_TIMEOUT_SECONDS + 60)
def test_two_node_cluster(tmp_path: Path) -> None:
    child = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(CHECKS),
            "-p",
            "no:cacheprovider",
            "-q",
            "-rA",
            "--basetemp",
            str(tmp_path / "child"),
        ],
        cwd=ROOT,
        env=_child_env(),
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT_SECONDS,
    )
    report = child.stdout[-12000:] + child.stderr[-4000:]
    assert child.returncode == 0, report
    assert "5 passed" in child.stdout, report
