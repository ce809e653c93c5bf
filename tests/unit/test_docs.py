"""The repository carries its own documentation: every setting is documented, every link resolves,
and nothing points to a file outside the repository."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from core.settings import Settings

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
MARKDOWN_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
#: Documents that live beside the repository but not in it; docs/ holds what the code cites.
OUTSIDE = re.compile(r"\.\./shared|(?<![\w/])(CONTRACT|SPEC|ARCHITECTURE|STYLE)\.md")


def _tracked(*patterns: str) -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "--", *patterns], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return [ROOT / name for name in listed.stdout.splitlines() if (ROOT / name).is_file()]


def test_every_setting_is_in_docs_settings() -> None:
    text = (ROOT / "docs" / "settings.md").read_text()
    variables = {
        str(name)
        for field in Settings.model_fields.values()
        for name in getattr(field.validation_alias, "choices", ())
    }
    assert variables
    missing = sorted(name for name in variables if f"`{name}`" not in text)
    assert not missing, f"docs/settings.md does not describe {missing}"


def test_links_of_the_readme_and_docs_resolve_inside_the_repository() -> None:
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in MARKDOWN_LINK.findall(page.read_text()):
            if re.match(r"^[a-z]+://", target):
                continue
            resolved = (page.parent / target).resolve()
            assert resolved.exists(), f"{page.relative_to(ROOT)} links to {target}, which is missing"
            assert resolved.is_relative_to(ROOT), f"{page.relative_to(ROOT)} links outside: {target}"


def test_code_and_docs_cite_documents_inside_the_repository() -> None:
    # bench/ reads the document corpus, a data set kept beside the repository on purpose.
    files = _tracked("*.py", "*.md", "*.js", "*.yaml", "Makefile")
    offenders = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in files
        if path.relative_to(ROOT).parts[0] != "bench"
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1)
        if OUTSIDE.search(line)
    ]
    assert not offenders, f"these lines point outside the repository: {offenders}"
