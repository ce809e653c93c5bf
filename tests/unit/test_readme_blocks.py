"""How the README test reads the README and its guides: which blocks run, which are skipped, which set
up every guide's session, and the sessions it builds."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.readme_blocks import (
    GUIDES,
    README,
    Block,
    blocks,
    page_blocks,
    session_blocks,
    session_script,
)

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]

MARKDOWN = """# Title

<!-- readme-test: setup -->
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
    found = blocks(MARKDOWN, "docs/guide.md")
    assert [(b.language, b.text, b.skip_reason, b.setup) for b in found] == [
        ("shell", "echo one", None, True),
        ("shell", "ray up cluster.yaml", "needs a cluster", False),
        ("python", 'print("two")', None, False),
    ]
    assert [b.line for b in found] == [4, 10, 18]
    assert {b.page for b in found} == {"docs/guide.md"}


def test_the_session_stops_at_the_first_failing_command_and_names_its_block(tmp_path: Path) -> None:
    runnable = [b for b in blocks(MARKDOWN) if b.skip_reason is None]
    runnable.insert(1, Block("shell", "false\necho never", 42, None, page="docs/guide.md"))
    done = subprocess.run(
        ["bash", "-c", session_script(runnable, python="python3")], capture_output=True, text=True
    )
    assert done.returncode != 0
    assert done.stdout == "one\n"
    assert done.stderr.strip().splitlines()[-1].startswith(">>> docs/guide.md block at line 42 (shell), at ")


def test_curl_in_the_session_fails_on_an_error_status() -> None:
    script = session_script([])
    assert "--fail-with-body" in script and "set -euo pipefail" in script


def test_every_block_of_the_readme_and_the_guides_either_runs_or_says_why_not() -> None:
    for page in (README, *GUIDES):
        found = page_blocks(ROOT, page)
        assert found, f"{page} has no shell or Python block"
        for block in found:
            assert block.skip_reason is None or block.skip_reason.strip(), (page, block.line)


def test_the_readme_has_one_setup_block_and_the_guides_none() -> None:
    setup = [b for b in page_blocks(ROOT, README) if b.setup]
    assert len(setup) == 1 and setup[0].skip_reason is None, setup
    assert "wait_task()" in setup[0].text and "AGENTRY_API_KEY" in setup[0].text
    for guide in GUIDES:
        assert not any(b.setup for b in page_blocks(ROOT, guide)), guide


def test_a_guide_session_starts_with_the_readme_setup_and_holds_nothing_else_from_another_page() -> None:
    readme_session = session_blocks(ROOT, README)
    assert {b.page for b in readme_session} == {README}
    for guide in GUIDES:
        session = session_blocks(ROOT, guide)
        assert session[0].setup and session[0].page == README, guide
        assert all(b.page == guide and b.skip_reason is None for b in session[1:]), guide
        assert [b.line for b in session[1:]] == sorted(b.line for b in session[1:])


def test_every_docs_page_whose_blocks_would_run_is_a_walked_guide() -> None:
    # A page of docs/ outside GUIDES is never walked: it may hold no block that would run.
    for page in sorted((ROOT / "docs").glob("*.md")):
        name = page.relative_to(ROOT).as_posix()
        if name not in GUIDES:
            runnable = [b.line for b in page_blocks(ROOT, name) if b.skip_reason is None]
            assert not runnable, f"{name} has blocks that would run (lines {runnable}): add it to GUIDES"


def test_the_readme_map_links_every_guide() -> None:
    text = (ROOT / README).read_text()
    missing = [guide for guide in GUIDES if f"]({guide})" not in text]
    assert not missing, f"the README's map of guides leaves out {missing}"
