"""How the README test reads the README: which blocks run, which are skipped, and the session it builds."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.readme_blocks import blocks, session_script

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]

MARKDOWN = """# Title

```sh
echo one
```

<!-- readme-test: skip (needs a cluster) -->

```bash
ray up cluster.yaml
```

```json
{"not": "run"}
```

```python
print("two")
```

```
plain text
```
"""


def test_shell_and_python_blocks_are_found_in_order_with_their_skip_reasons() -> None:
    found = blocks(MARKDOWN)
    assert [(b.language, b.text, b.skip_reason) for b in found] == [
        ("shell", "echo one", None),
        ("shell", "ray up cluster.yaml", "needs a cluster"),
        ("python", 'print("two")', None),
    ]
    assert [b.line for b in found] == [3, 9, 17]


def test_the_session_stops_at_the_first_failing_command_and_names_its_block(tmp_path: Path) -> None:
    runnable = [b for b in blocks(MARKDOWN) if b.skip_reason is None]
    runnable.insert(1, runnable[0].__class__("shell", "false\necho never", 42, None))
    done = subprocess.run(
        ["bash", "-c", session_script(runnable, python="python3")], capture_output=True, text=True
    )
    assert done.returncode != 0
    assert done.stdout == "one\n"
    assert done.stderr.strip().splitlines()[-1].startswith(">>> README block at line 42 (shell), at ")


def test_curl_in_the_session_fails_on_an_error_status() -> None:
    script = session_script([])
    assert "--fail-with-body" in script and "set -euo pipefail" in script


def test_every_block_of_the_readme_either_runs_or_says_why_not() -> None:
    found = blocks((ROOT / "README.md").read_text())
    assert found
    for block in found:
        assert block.skip_reason is None or block.skip_reason.strip(), block.line
