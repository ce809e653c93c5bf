"""The repository carries its own documentation: every setting is documented, every link resolves
(to a file, and to a heading of it when it names one), and nothing points to a file outside the
repository."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from core.infra.settings import Settings

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
MARKDOWN_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
#: Documents that live beside the repository but not in it; docs/ holds what the code cites.
#: A link to a heading: `(page.md#heading)`, or `(#heading)` on the same page.
ANCHORED_LINK = re.compile(r"\]\(([^)#\s]*)#([^)\s]+)\)")
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
    for page in _pages():
        for target in MARKDOWN_LINK.findall(page.read_text()):
            if re.match(r"^[a-z]+://", target):
                continue
            resolved = (page.parent / target).resolve()
            assert resolved.exists(), f"{page.relative_to(ROOT)} links to {target}, which is missing"
            assert resolved.is_relative_to(ROOT), f"{page.relative_to(ROOT)} links outside: {target}"


def _pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _anchors(markdown: str) -> set[str]:
    """The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as '-'."""
    anchors: set[str] = set()
    inside_code = False
    for line in markdown.splitlines():
        if line.startswith("```"):
            inside_code = not inside_code
        heading = None if inside_code else re.match(r"^#{1,6}\s+(.*?)\s*$", line)
        if heading:
            anchors.add(re.sub(r"[^\w\- ]", "", heading.group(1).lower()).replace(" ", "-"))
    return anchors


def test_links_to_a_heading_name_a_heading_of_their_page() -> None:
    for page in _pages():
        for target, anchor in ANCHORED_LINK.findall(page.read_text()):
            linked = (page.parent / target).resolve() if target else page
            if re.match(r"^[a-z]+://", target) or linked.suffix != ".md":
                continue
            assert anchor in _anchors(linked.read_text()), (
                f"{page.relative_to(ROOT)} links to {target}#{anchor}, a heading {linked.name} does not have"
            )


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
