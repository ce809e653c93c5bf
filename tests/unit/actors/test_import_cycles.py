"""No import cycle runs through `actors/` (docs/architecture.md: arrows point one way).

Every import statement counts, also one inside a function or under TYPE_CHECKING: an import moved
into a function still closes the cycle, it only hides it until the function runs.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
#: Our packages: a cycle from actors/ may pass through any of them.
PACKAGES = ("actors", "core", "tools", "extraction", "serve")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for package in PACKAGES for p in sorted((ROOT / package).rglob("*.py"))}


def imported(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of ours that `name` imports anywhere in its source."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            found.add(base)
            # `from actors import runner` imports the module actors.runner.
            found |= {f"{base}.{alias.name}" for alias in node.names}
    return {m for m in found if m in known and m != name}


def import_graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imported(name, path, known) for name, path in known.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph[step]))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycle_runs_through_actors() -> None:
    through_actors = [c for c in cycles(import_graph()) if any(m.startswith("actors.") for m in c)]
    assert through_actors == []


def test_the_check_sees_a_cycle_hidden_in_a_function() -> None:
    graph = import_graph()
    # The runtime imports the runner; a runner importing the runtime back inside a function is a cycle.
    assert "actors.runner" in graph["actors.runtime"]
    graph["actors.runner"] = graph["actors.runner"] | {"actors.runtime"}
    assert ["actors.runner", "actors.runtime"] in cycles(graph)


def test_function_level_imports_are_seen(tmp_path: Path) -> None:
    source = tmp_path / "mod.py"
    source.write_text("def f():\n    from actors import runner\n    import actors.lease\n")
    known = {"actors.runner": source, "actors.lease": source, "actors": source}
    assert imported("actors.x", source, known) == {"actors", "actors.runner", "actors.lease"}
