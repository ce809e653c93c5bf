"""The README and its guides run as written: every shell and Python block of a page, in order, in one
shell session per page, against `agentry up` started as `make run` starts it. A guide's session
starts with the README's set-up block (`<!-- readme-test: setup -->`) and has nothing else from
another page, so a guide's blocks depend only on that block and on their own page's earlier blocks.

The session runs in a directory of its own laid out like a fresh clone after `make run`: `.venv`
(this interpreter's environment), `examples/` (the repository's) and `.agentry/` (the data dir of
the `agentry up` started here, so `.agentry/dev-api-key` and every `agentry` command find the same
store). Only the ports differ from the README: `8000` becomes the service's free port and the
practice sandbox's `9100` another, since other services may hold those on a shared machine.
`curl` fails on any status of 400 or more, and `set -euo pipefail` stops at the first failing
command or unset variable. Blocks marked `<!-- readme-test: skip (reason) -->` are not run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from tests.support.agentry_process import AgentryProcess
from tests.support.readme_blocks import GUIDES, README, Block, page_blocks, session_blocks, session_script
from tests.support.service import free_port

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
#: One page's blocks together, on a loaded two-core machine (the batch blocks start Ray workers).
SESSION_TIMEOUT_SECONDS = 600
#: The pages with a block that runs, README first (a page whose every block is skipped has no session).
WALKED = [
    page for page in (README, *GUIDES) if any(block.skip_reason is None for block in page_blocks(ROOT, page))
]


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A working directory that looks like the repository after `make run`, minus the source."""
    if shutil.which("curl") is None or shutil.which("bash") is None:
        message = "the README's blocks need bash and curl (make curl installs curl)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    if sys.prefix == sys.base_prefix:
        pytest.skip("the README's blocks use .venv: run the tests from the project's virtualenv")
    workdir = tmp_path_factory.mktemp("readme")
    (workdir / ".venv").symlink_to(sys.prefix, target_is_directory=True)
    (workdir / "examples").symlink_to(ROOT / "examples", target_is_directory=True)
    return workdir


@pytest.fixture(scope="module")
def agentry_up(clone: Path) -> Iterator[AgentryProcess]:
    # The README asks for this setting before its practice-sandbox demo (the sandbox is on localhost).
    process = AgentryProcess(clone / ".agentry", AGENTRY_ALLOW_PRIVATE_URLS="true")
    try:
        yield process.start()
    finally:
        process.close()


def _localised(block: Block, service_port: int, sandbox_port: int) -> Block:
    text = block.text.replace("localhost:8000", f"localhost:{service_port}")
    text = text.replace("127.0.0.1:8000", f"127.0.0.1:{service_port}").replace("9100", str(sandbox_port))
    return replace(block, text=text)


def _session_env() -> dict[str, str]:
    """A new terminal's environment: none of our settings, so every default is the README's."""
    prefixes = ("AGENTRY_", "REDIS_URL", "RAY_ADDRESS", "VIRTUAL_ENV", "PYTHONPATH")
    env = {k: v for k, v in os.environ.items() if not k.startswith(prefixes)}
    # This interpreter's bin is first on PATH when pytest runs from it; a new terminal's is not.
    venv_bin = str(Path(sys.prefix) / "bin")
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p != venv_bin)
    return env


def _readme_shows(clone: Path, stdout: str) -> None:
    assert '"Hello Ada"' in stdout  # the greeter's summary
    assert "Maria" in stdout  # the extracted first name of examples/intake.pdf


def _agents_show(clone: Path, stdout: str) -> None:
    assert "Saved patient" in stdout and "Saved patient null" not in stdout
    assert "event: end" in stdout  # the task's event stream ran to its end


def _extraction_shows(clone: Path, stdout: str) -> None:
    assert (clone / "page1.png").read_bytes().startswith(b"\x89PNG")


def _mcp_shows(clone: Path, stdout: str) -> None:
    assert "Refunded 5" in stdout and "hello over MCP" in stdout


def _notebooks_show(clone: Path, stdout: str) -> None:
    assert "examples/batch/" in stdout and (clone / "invoices.jsonl").read_text().strip()


#: What each walk-through says it shows, as the service answered it.
SHOWS: dict[str, Callable[[Path, str], None]] = {
    README: _readme_shows,
    "docs/agents.md": _agents_show,
    "docs/extraction.md": _extraction_shows,
    "docs/mcp.md": _mcp_shows,
    "docs/notebooks.md": _notebooks_show,
}


def test_every_walked_page_says_what_its_walk_shows() -> None:
    assert WALKED[0] == README and set(WALKED) == set(SHOWS), WALKED


@pytest.mark.parametrize("page", WALKED)
def test_every_block_of_a_page_runs_in_order_against_the_service(
    page: str, clone: Path, agentry_up: AgentryProcess
) -> None:
    runnable = [_localised(b, agentry_up.port, free_port()) for b in session_blocks(ROOT, page)]
    assert any(b.page == page for b in runnable), runnable
    script = session_script(runnable)
    session = clone / f"session-{page.replace('/', '-')}.sh"
    session.write_text(script)

    done = subprocess.run(
        ["bash", session.name],
        cwd=clone,
        env=_session_env(),
        capture_output=True,
        text=True,
        timeout=SESSION_TIMEOUT_SECONDS,
    )

    reached = [line for line in done.stderr.splitlines() if line.startswith(">>> ")]
    assert done.returncode == 0, (
        f"{page} stopped in {reached[-1] if reached else 'its first block'} (exit {done.returncode}):\n"
        f"--- stderr (tail)\n{done.stderr[-4000:]}\n--- stdout (tail)\n{done.stdout[-3000:]}\n"
        f"--- agentry up (tail)\n{agentry_up.output()[-2000:]}"
    )
    assert reached[-1].startswith(">>> session done")
    print("\n".join(reached))  # each block's start time, for whoever makes the session faster
    SHOWS[page](clone, done.stdout)
