"""The rooms of docs/architecture.md, read from the source: arrows point one way and no import cycle
runs anywhere in the code we ship.

Layers: serve -> actors -> tools -> extraction -> core. Inside extraction: jobs -> examples -> fields -> formats.
Inside core: tasks -> stores -> infra. The Python client (clients/python) imports nothing of ours.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.support.import_graph import (
    LAYERS,
    ROOT,
    cycles,
    import_graph,
    imported,
    modules,
    upward_imports,
)

pytestmark = pytest.mark.unit

#: Rooms inside a package, in their import order: each may import only those before it.
ROOMS: dict[str, tuple[str, ...]] = {
    "core": ("core.infra", "core.stores", "core.tasks"),
    "extraction": ("extraction.formats", "extraction.fields", "extraction.examples", "extraction.jobs"),
}


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph()


def test_the_layers_point_one_way(graph: dict[str, set[str]]) -> None:
    assert "serve.app" in graph and "core.infra.settings" in graph
    assert upward_imports(graph, LAYERS) == []


@pytest.mark.parametrize("package", sorted(ROOMS))
def test_the_rooms_of_a_package_point_one_way(graph: dict[str, set[str]], package: str) -> None:
    rooms = ROOMS[package]
    members = [m for m in graph if m.startswith(package + ".") and m != package]
    # Every module of the package lives in one of its rooms, so a new file cannot sit outside them.
    assert [m for m in members if not any(m == r or m.startswith(r + ".") for r in rooms)] == []
    assert upward_imports(graph, rooms) == []


def test_no_import_cycle_anywhere(graph: dict[str, set[str]]) -> None:
    assert cycles(graph) == []


def test_no_module_imports_another_modules_private_names() -> None:
    """A leading underscore says "this module's own": sharing one means it belongs in a public name."""
    known = modules()
    found = []
    for name, path in known.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in LAYERS:
                found += [f"{name}: {node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
    assert found == []


def test_the_client_imports_nothing_of_the_service() -> None:
    root = ROOT / "clients" / "python" / "src"
    client = modules(root, ("agentry_client",))
    ours = modules()
    assert client
    for name, path in client.items():
        assert imported(name, path, ours) == set(), name


def test_a_cycle_hidden_in_a_function_is_seen(tmp_path: Path) -> None:
    package = tmp_path / "tools"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "delegate.py").write_text("def run():\n    from tools.delegate_source import batch\n")
    (package / "delegate_source.py").write_text("from tools.delegate import run\n")
    graph = import_graph(tmp_path, ("tools",))
    assert cycles(graph) == [["tools.delegate", "tools.delegate_source"]]


def test_an_import_against_the_layers_is_seen(tmp_path: Path) -> None:
    for package in ("core", "actors"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "core" / "clock.py").write_text("def f():\n    from actors import runner\n")
    (tmp_path / "actors" / "runner.py").write_text("from core import clock\n")
    graph = import_graph(tmp_path, ("core", "actors"))
    assert upward_imports(graph, ("core", "actors")) == [("core.clock", "actors.runner")]


def test_relative_imports_resolve_to_the_module_they_name(tmp_path: Path) -> None:
    package = tmp_path / "extraction" / "formats"
    package.mkdir(parents=True)
    (package.parent / "__init__.py").write_text("")
    (package / "__init__.py").write_text("from . import pdf\n")
    (package / "pdf.py").write_text("from ..jobs import pool\nfrom .errors import DocumentError\n")
    (package / "errors.py").write_text("")
    graph = import_graph(tmp_path, ("extraction",))
    assert graph["extraction.formats"] == {"extraction.formats.pdf"}
    assert graph["extraction.formats.pdf"] == {"extraction.formats.errors"}
