"""The light client (clients/python) is its own distribution: `python -m build` makes its sdist and,
from that sdist alone, its wheel; the wheel installs in a fresh venv with httpx and pydantic only (no
Ray, no PyMuPDF, none of the service's packages) and talks to the running service from there.

Everything is built in the test's temp dir (a copy of the client's folder), so the repository and
the user's caches are left as they were; pip's index is the one pip is set up with.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
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


def _pip(venv_python: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(venv_python), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_the_built_wheel_installs_alone_and_answers(service: Service, api_key: str, tmp_path: Path) -> None:
    source = tmp_path / "client"
    shutil.copytree(
        ROOT / "clients" / "python", source, ignore=shutil.ignore_patterns("build", "dist", "*.egg-info")
    )
    env = dict(os.environ, PIP_CACHE_DIR=str(tmp_path / "pip-cache"))
    dist = tmp_path / "dist"
    # The wheel is built from the sdist `build` makes first: the sdist carries every file it needs.
    built = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(dist), str(source)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    [sdist] = dist.glob("agentry_client-*.tar.gz")
    [wheel] = dist.glob("agentry_client-*.whl")
    with tarfile.open(sdist) as archive:
        members = {Path(*Path(name).parts[1:]).as_posix() for name in archive.getnames()}
    assert {"src/agentry_client/__init__.py", "src/agentry_client/py.typed"} <= members

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    install = _pip(python, "install", "--quiet", str(wheel), env=env)
    assert install.returncode == 0, install.stderr[-3000:]
    installed = _pip(python, "list", "--format=freeze", env=env)
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
