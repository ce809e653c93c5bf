"""The shell and Python blocks of a Markdown file, turned into one bash session that runs them in order.

A fenced block whose info string is `sh`, `bash`, `shell` or `console` is shell; `python` or `py` is
Python; any other (`json`, none) is not run. A block whose last non-blank line before the fence is
`<!-- readme-test: skip (reason) -->` is skipped: blocks that need a cluster, an outside host or a
real model key carry that marker.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SHELL = frozenset({"sh", "bash", "shell", "console"})
PYTHON = frozenset({"python", "py"})
SKIP_MARKER = re.compile(r"^<!--\s*readme-test:\s*skip\s*\((?P<reason>[^)]+)\)\s*-->\s*$")
FENCE = re.compile(r"^(?P<fence>```+|~~~+)\s*(?P<info>[\w+-]*)")
#: Ends the heredoc that feeds a Python block to the interpreter; no README line may be this.
PYTHON_END = "README_PYTHON_BLOCK_END"


@dataclass(frozen=True)
class Block:
    language: str  # "shell" or "python"
    text: str
    line: int  # of the opening fence, counted from 1
    skip_reason: str | None


def blocks(markdown: str) -> list[Block]:
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
            found.append(Block(language, "\n".join(lines[index + 1 : end]), index + 1, _skip(lines, index)))
        index = end + 1
    return found


def _skip(lines: list[str], fence_index: int) -> str | None:
    before = fence_index - 1
    while before >= 0 and not lines[before].strip():
        before -= 1
    marker = SKIP_MARKER.match(lines[before].strip()) if before >= 0 else None
    return marker.group("reason") if marker else None


def session_script(runnable: list[Block], *, python: str = "python") -> str:
    """One bash script that runs the blocks in order and stops at the first failure.

    `curl` fails on any status of 400 or more (its body still printed); each block announces itself
    on standard error, so a failure names the README line its block starts on.
    """
    parts = [
        "set -euo pipefail",
        'curl() { command curl --fail-with-body --show-error "$@"; }',
        "trap 'jobs -p | xargs -r kill 2>/dev/null || true' EXIT",
    ]
    for block in runnable:
        parts.append(f'echo ">>> README block at line {block.line} ({block.language}), at $SECONDS s" >&2')
        if block.language == "python":
            if PYTHON_END in block.text:
                raise ValueError(f"the block at line {block.line} contains {PYTHON_END}")
            parts.append(f"{python} - <<'{PYTHON_END}'\n{block.text}\n{PYTHON_END}")
        else:
            parts.append(block.text)
    parts.append('echo ">>> README done, at $SECONDS s" >&2')
    return "\n".join(parts) + "\n"
