"""The light client (clients/python) installs alone in a fresh venv: httpx and pydantic, no Ray, no
PyMuPDF, none of the service's packages, and it talks to the running service from there.

Everything is built in the test's temp dir (a copy of the two folders the build reads), so the
repository and the user's caches are left as they were; pip's index is the one pip is set up with.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.conftest import Service

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]

CHECK = """
import importlib.util, sys
import agentry_client
from agentry_client import Client
absent = [m for m in ("ray", "fitz", "pymupdf", "serve", "extraction", "core") if importlib.util.find_spec(m)]
assert not absent, absent
with Client(sys.argv[1], sys.argv[2]) as client:
    agent = client.create_agent("light-client")
    print("created", agent.id, client.get_agent(agent.id).name)
"""


def test_light_client_installs_alone_and_answers(service: Service, api_key: str, tmp_path: Path) -> None:
    source = tmp_path / "src"
    shutil.copytree(ROOT / "clients" / "python", source / "clients" / "python")
    shutil.copytree(ROOT / "serve" / "client", source / "serve" / "client")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    env = dict(os.environ, PIP_CACHE_DIR=str(tmp_path / "pip-cache"))
    install = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--quiet",
            str(source / "clients" / "python"),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert install.returncode == 0, install.stderr[-3000:]
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "list", "--format=freeze"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    names = {line.split("==")[0].lower() for line in installed.stdout.splitlines()}
    assert {"agentry-client", "httpx", "pydantic"} <= names
    assert not names & {"ray", "pymupdf", "agentry", "redis", "fastapi"}, names

    run = subprocess.run(
        [str(python), "-c", CHECK, service.url, api_key],
        cwd=tmp_path,
        env={"PATH": os.environ.get("PATH", "")},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.startswith("created ") and run.stdout.strip().endswith("light-client")
