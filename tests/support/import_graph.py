"""The import graph of our own packages, read from the source (no import runs).

Every import statement counts, also one inside a function or under TYPE_CHECKING: an import moved
into a function still closes a cycle, it only hides it until the function runs.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: The packages the service ships, in the layer order of docs/architecture.md: each may import the
#: ones before it, never one after it.
LAYERS = ("core", "extraction", "tools", "actors", "serve")


def module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(root: Path = ROOT, packages: tuple[str, ...] = LAYERS) -> dict[str, Path]:
    return {
        module_name(path, root): path
        for package in packages
        for path in sorted((root / package).rglob("*.py"))
    }


def imported(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of ours that `name` imports anywhere in its source; `from a import b` names the
    module `a.b` when there is one, else `a`."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                found.add(submodule if submodule in known else base)
    return {module for module in found if module in known and module != name}


def import_graph(root: Path = ROOT, packages: tuple[str, ...] = LAYERS) -> dict[str, set[str]]:
    known = modules(root, packages)
    return {name: imported(name, path, known) for name, path in known.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(sorted(graph[root])))]
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is not None:
                if step not in graph:
                    continue
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
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def upward_imports(graph: dict[str, set[str]], order: tuple[str, ...]) -> list[tuple[str, str]]:
    """Imports that point against `order` (each room may import only the rooms before it), as
    (importer, imported) pairs; modules outside every room are not judged."""

    def rank(module: str) -> int | None:
        ranks = [i for i, room in enumerate(order) if within(module, room)]
        # The innermost room decides: `core.tasks` is judged as itself, not as `core`.
        return max(ranks, key=lambda i: len(order[i])) if ranks else None

    found = []
    for importer, targets in sorted(graph.items()):
        own = rank(importer)
        for target in sorted(targets):
            theirs = rank(target)
            if own is not None and theirs is not None and theirs > own:
                found.append((importer, target))
    return found
