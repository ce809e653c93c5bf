"""extraction/ in three rooms: engines (formats/) depend on neither field reading nor jobs nor HTTP,
field reading (fields/) not on jobs, and no module of extraction/ imports one that imports it back,
even from inside a function. Inside fields/, rooms import one way (extract -> strategies ->
documents -> model -> reading), and strategies/structure/ is a layer: nothing it imports imports it
back."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[3]
#: What an engine must not reach: the other rooms, the HTTP edge, and the API's errors and request
#: models (an engine raises a plain `DocumentError`; `extraction.jobs.edge` gives its status).
ENGINE_FORBIDDEN = (
    "extraction.fields",
    "extraction.jobs",
    "serve",
    "fastapi",
    "starlette",
    "http",
    "core.infra.errors",
    "core.stores.configs",
)
#: Field reading works on the document model alone: it runs inside worker tasks and notebooks alike.
FIELDS_FORBIDDEN = ("extraction.jobs", "serve", "fastapi", "starlette")
FIELDS = "extraction.fields"
#: Examples (issue 37) sit between field reading and jobs: formats <- fields <- examples <- jobs.
EXAMPLES_FORBIDDEN = (
    "extraction.jobs",
    "serve",
    "fastapi",
    "starlette",
    "core.infra.store",
    "core.stores.configs",
    "redis",
)
#: The rooms of fields/, lowest first: a module imports from its own room and the rooms below only.
#: Above them all, the package and `extract.py`, which tries the strategies in order.
FIELD_ROOMS = ("reading", "model", "documents", "strategies")
#: The modules of fields/ that stand outside every room.
FIELD_TOP = frozenset({FIELDS, f"{FIELDS}.extract"})
#: A sub-room that must be a layer of its own (its modules taken as one, no cycle through it).
STRUCTURE = f"{FIELDS}.strategies.structure"


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def import_graph(root: Path, package: str = "extraction") -> dict[str, set[str]]:
    """Every module of `package` under `root` and the modules it imports anywhere in its body
    (top level, functions, `TYPE_CHECKING` blocks); `from a import b` names `a.b` when that is a
    module of the package, else `a`."""
    paths = {module_name(path, root): path for path in (root / package).rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        is_package = path.name == "__init__.py"
        imported: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = name.split(".")[: len(name.split(".")) - node.level + is_package]
                    base = ".".join([*anchor, base] if base else anchor)
                for alias in node.names:
                    submodule = f"{base}.{alias.name}"
                    imported.add(submodule if submodule in paths else base)
        imported.discard(name)
        graph[name] = imported
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles among the graph's own modules, one path per strongly connected group."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph[node]):
            if target not in graph:
                continue
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def reaches(imported: str, prefix: str) -> bool:
    return imported == prefix or imported.startswith(prefix + ".")


def offending_imports(
    graph: dict[str, set[str]], room: str, forbidden: tuple[str, ...]
) -> dict[str, list[str]]:
    found = {
        name: sorted(target for target in targets if any(reaches(target, bad) for bad in forbidden))
        for name, targets in graph.items()
        if reaches(name, room)
    }
    return {name: targets for name, targets in found.items() if targets}


def field_rank(module: str) -> int:
    """The rank of a module of fields/ by its room (the top outranks every room)."""
    if module in FIELD_TOP:
        return len(FIELD_ROOMS)
    room = module.removeprefix(FIELDS + ".").split(".")[0]
    return FIELD_ROOMS.index(room)


def upward_imports(graph: dict[str, set[str]]) -> dict[str, list[str]]:
    """Per module of fields/, the modules of fields/ it imports from a higher room."""
    found = {
        name: sorted(
            t for t in targets if reaches(t, FIELDS) and t in graph and field_rank(t) > field_rank(name)
        )
        for name, targets in graph.items()
        if reaches(name, FIELDS)
    }
    return {name: targets for name, targets in found.items() if targets}


def contracted(graph: dict[str, set[str]], package: str) -> dict[str, set[str]]:
    """The graph with every module of `package` taken as one node, named `package`."""

    def node(name: str) -> str:
        return package if reaches(name, package) else name

    merged: dict[str, set[str]] = {}
    for name, targets in graph.items():
        merged.setdefault(node(name), set()).update(node(t) for t in targets)
    for name, targets in merged.items():
        targets.discard(name)
    return merged


def test_engines_import_nothing_from_fields_jobs_or_the_http_edge() -> None:
    graph = import_graph(ROOT)
    assert "extraction.formats.pdf" in graph
    assert offending_imports(graph, "extraction.formats", ENGINE_FORBIDDEN) == {}


def test_field_reading_imports_nothing_from_jobs_or_the_http_edge() -> None:
    graph = import_graph(ROOT)
    assert "extraction.fields.extract" in graph
    assert offending_imports(graph, "extraction.fields", FIELDS_FORBIDDEN) == {}


def test_examples_import_nothing_from_jobs_stores_or_the_http_edge() -> None:
    graph = import_graph(ROOT)
    assert "extraction.examples.match" in graph
    assert offending_imports(graph, "extraction.examples", EXAMPLES_FORBIDDEN) == {}
    # Field reading comes first: it never reaches up into examples.
    assert offending_imports(graph, "extraction.fields", ("extraction.examples",)) == {}
    assert offending_imports(graph, "extraction.formats", ("extraction.examples",)) == {}


def test_extraction_has_no_import_cycle() -> None:
    assert cycles(import_graph(ROOT)) == []


def test_every_module_of_fields_lives_in_a_room() -> None:
    graph = import_graph(ROOT)
    outside = [
        name
        for name in graph
        if reaches(name, FIELDS)
        and name not in FIELD_TOP
        and name.removeprefix(FIELDS + ".").split(".")[0] not in FIELD_ROOMS
    ]
    assert outside == []


def test_field_rooms_import_one_way() -> None:
    graph = import_graph(ROOT)
    assert f"{FIELDS}.strategies.label_pairs" in graph and f"{FIELDS}.reading.text_lines" in graph
    assert upward_imports(graph) == {}


def test_structure_is_a_layer() -> None:
    graph = import_graph(ROOT)
    assert f"{STRUCTURE}.combined" in graph
    assert cycles(contracted(graph, STRUCTURE)) == []


def test_an_import_up_a_room_is_found(tmp_path: Path) -> None:
    # The model importing a strategy (a result that knows how it was found) points the wrong way.
    fields = tmp_path / "extraction" / "fields"
    for room in ("", "model", "strategies"):
        (fields / room).mkdir(parents=True, exist_ok=True)
        (fields / room / "__init__.py").write_text("")
    (tmp_path / "extraction" / "__init__.py").write_text("")
    (fields / "model" / "result.py").write_text(
        "from extraction.fields.strategies.label_pairs import PRIORS\n"
    )
    (fields / "strategies" / "label_pairs.py").write_text("PRIORS = {}\n")
    assert upward_imports(import_graph(tmp_path)) == {
        f"{FIELDS}.model.result": [f"{FIELDS}.strategies.label_pairs"]
    }


def test_a_cycle_through_a_layer_is_found(tmp_path: Path) -> None:
    # No two modules import each other, yet structure/ imports label_pairs, which imports structure/.
    structure = tmp_path / "extraction" / "fields" / "strategies" / "structure"
    structure.mkdir(parents=True)
    for package in (tmp_path / "extraction", structure.parent.parent, structure.parent, structure):
        (package / "__init__.py").write_text("")
    (structure / "choice_rows.py").write_text("from extraction.fields.strategies.label_pairs import PRIORS\n")
    (structure / "captions.py").write_text("")
    (structure.parent / "label_pairs.py").write_text(
        "from extraction.fields.strategies.structure.captions import CaptionIndex\n"
    )
    graph = import_graph(tmp_path)
    assert cycles(graph) == []
    assert cycles(contracted(graph, STRUCTURE)) == [[f"{FIELDS}.strategies.label_pairs", STRUCTURE]]


def test_a_function_level_import_back_is_a_cycle(tmp_path: Path) -> None:
    # The check must see imports hidden in functions, which is how the old pool <-> results cycle
    # was written.
    package = tmp_path / "extraction"
    (package / "jobs").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "jobs" / "__init__.py").write_text("")
    (package / "jobs" / "pool.py").write_text("def run():\n    from extraction.jobs.results import finish\n")
    (package / "jobs" / "results.py").write_text("from extraction.jobs.pool import run\n")
    assert cycles(import_graph(tmp_path)) == [["extraction.jobs.pool", "extraction.jobs.results"]]


def test_relative_imports_resolve_to_the_module_they_name(tmp_path: Path) -> None:
    package = tmp_path / "extraction" / "formats"
    package.mkdir(parents=True)
    (package.parent / "__init__.py").write_text("")
    (package / "__init__.py").write_text("from . import pdf\n")
    (package / "pdf.py").write_text("from ..jobs import pool\nfrom .errors import DocumentError\n")
    (package / "errors.py").write_text("")
    graph = import_graph(tmp_path)
    assert graph["extraction.formats"] == {"extraction.formats.pdf"}
    assert graph["extraction.formats.pdf"] == {"extraction.jobs", "extraction.formats.errors"}
