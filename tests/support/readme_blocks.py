"""The shell and Python blocks of the README and its guides, each page turned into one bash session
that runs its blocks in order.

A fenced block whose info string is `sh`, `bash`, `shell` or `console` is shell; `python` or `py` is
Python; any other (`json`, none) is not run. A block whose last non-blank line before the fence is
`<!-- readme-test: skip (reason) -->` is skipped: blocks that need a cluster, an outside host or a
real model key carry that marker. The README's block marked `<!-- readme-test: setup -->` (the key,
`H`, `field`, `wait_task`) starts every guide's session, so a guide's blocks may use it and their own
page's earlier blocks, and nothing from another page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

SHELL = frozenset({"sh", "bash", "shell", "console"})
PYTHON = frozenset({"python", "py"})
SKIP_MARKER = re.compile(r"^<!--\s*readme-test:\s*skip\s*\((?P<reason>[^)]+)\)\s*-->\s*$")
SETUP_MARKER = re.compile(r"^<!--\s*readme-test:\s*setup\s*-->\s*$")
FENCE = re.compile(r"^(?P<fence>```+|~~~+)\s*(?P<info>[\w+-]*)")
#: Ends the heredoc that feeds a Python block to the interpreter; no README line may be this.
PYTHON_END = "README_PYTHON_BLOCK_END"

README = "README.md"
#: The guides the README's map links, walked after the README; every docs/ page with a block that
#: would run belongs here (a unit test checks it).
GUIDES = (
    "docs/agents.md",
    "docs/extraction.md",
    "docs/mcp.md",
    "docs/models.md",
    "docs/operations.md",
    "docs/notebooks.md",
    "docs/development.md",
)


@dataclass(frozen=True)
class Block:
    language: str  # "shell" or "python"
    text: str
    line: int  # of the opening fence, counted from 1
    skip_reason: str | None
    setup: bool = False
    page: str = README


def blocks(markdown: str, page: str = README) -> list[Block]:
    """Every shell and Python block, skipped ones included (with their reason)."""
    found: list[Block] = []
    lines = markdown.splitlines()
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        fence, info = opening.group("fence"), opening.group("info").lower()
        end = index + 1
        while end < len(lines) and not lines[end].startswith(fence):
            end += 1
        language = "shell" if info in SHELL else "python" if info in PYTHON else None
        if language is not None:
            marker = _marker(lines, index)
            skip = SKIP_MARKER.match(marker)
            text = "\n".join(lines[index + 1 : end])
            found.append(
                Block(
                    language,
                    text,
                    index + 1,
                    skip.group("reason") if skip else None,
                    setup=bool(SETUP_MARKER.match(marker)),
                    page=page,
                )
            )
        index = end + 1
    return found


def _marker(lines: list[str], fence_index: int) -> str:
    """The last non-blank line before a fence, where a block's marker goes."""
    before = fence_index - 1
    while before >= 0 and not lines[before].strip():
        before -= 1
    return lines[before].strip() if before >= 0 else ""


def page_blocks(root: Path, page: str) -> list[Block]:
    """Every block of one page of the repository (`README.md` or a guide), in order."""
    return blocks((root / page).read_text(), page)


def session_blocks(root: Path, page: str) -> list[Block]:
    """What one page's session runs: its own blocks that are not skipped, in order, after the
    README's set-up block when the page is a guide (the README runs its own set-up in place)."""
    own = [b for b in page_blocks(root, page) if b.skip_reason is None]
    if page == README:
        return own
    setup = [b for b in page_blocks(root, README) if b.setup and b.skip_reason is None]
    return setup + own


def session_script(runnable: list[Block], *, python: str = "python") -> str:
    """One bash script that runs the blocks in order and stops at the first failure.

    `curl` fails on any status of 400 or more (its body still printed); each block announces itself
    on standard error, so a failure names the page and the line its block starts on.
    """
    parts = [
        "set -euo pipefail",
        'curl() { command curl --fail-with-body --show-error "$@"; }',
        "trap 'jobs -p | xargs -r kill 2>/dev/null || true' EXIT",
    ]
    for block in runnable:
        parts.append(
            f'echo ">>> {block.page} block at line {block.line} ({block.language}), at $SECONDS s" >&2'
        )
        if block.language == "python":
            if PYTHON_END in block.text:
                raise ValueError(f"the block at {block.page} line {block.line} contains {PYTHON_END}")
            parts.append(f"{python} - <<'{PYTHON_END}'\n{block.text}\n{PYTHON_END}")
        else:
            parts.append(block.text)
    parts.append('echo ">>> session done, at $SECONDS s" >&2')
    return "\n".join(parts) + "\n"
