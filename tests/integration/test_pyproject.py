"""Our two pyprojects build with no warning of their own (issue 27, 6): setuptools' deprecation wall
for a `license` table, or a missing README, would print on every `make run` of a new machine."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
#: What setuptools prints about a project's own configuration (not about the machine it runs on).
OURS = re.compile(
    r"deprecat|setuptools\w*warning|^warning: sdist|^WARNING `project", re.IGNORECASE | re.MULTILINE
)


@pytest.mark.parametrize("project", [".", "clients/python"])
def test_the_project_metadata_builds_without_warnings(project: str, tmp_path: Path) -> None:
    """An sdist of the service's pyproject and README alone (its metadata and their checks, none of
    its code), and of the whole client."""
    source = tmp_path / "project"
    if project == ".":
        source.mkdir()
        for name in ("pyproject.toml", "README.md"):
            shutil.copy(ROOT / name, source / name)
    else:
        shutil.copytree(ROOT / project, source, ignore=shutil.ignore_patterns("build", "dist", "*.egg-info"))
    built = subprocess.run(
        [sys.executable, "-m", "build", "--sdist", "--outdir", str(tmp_path / "dist"), str(source)],
        env=dict(os.environ, PIP_CACHE_DIR=str(tmp_path / "pip-cache")),
        capture_output=True,
        text=True,
        timeout=600,
    )
    output = built.stdout + built.stderr
    assert built.returncode == 0, output[-3000:]
    assert not OURS.search(output), OURS.findall(output)
