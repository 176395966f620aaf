"""The house's structure, read from its imports: no module imports, through any chain of
imports (type-checking ones included), a module that imports it back."""

from __future__ import annotations

import grimp

PACKAGES = (
    "proofgym", "proofgym_stack", "sdg", "agent_server", "resources_servers",
    "model_interface", "trainers", "interop",
)  # fmt: skip


def import_cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Every set of two or more modules that import each other through some chain (the
    strongly connected components of the import graph), iteratively (no recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    cycles: list[list[str]] = []
    counter = 0
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append(
                        (child, iter(sorted(graph.find_modules_directly_imported_by(child))))
                    )
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
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
                    cycles.append(sorted(group))
    return cycles


def test_no_module_imports_itself_back() -> None:
    graph = grimp.build_graph(*PACKAGES, exclude_type_checking_imports=False)
    assert import_cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = grimp.ImportGraph()
    for name in ("a", "a.x", "a.y", "a.z"):
        graph.add_module(name)
    graph.add_import(importer="a.x", imported="a.y")
    graph.add_import(importer="a.y", imported="a.x")
    graph.add_import(importer="a.z", imported="a.x")
    assert import_cycles(graph) == [["a.x", "a.y"]]


def test_validate_checks_take_what_they_need_as_values() -> None:
    """Every check of `validate` is a public function, and what it needs from another check
    is an earlier check's result (or the runner's canary), passed as an argument: a check
    that named a later or unknown one would be skipped silently."""
    import inspect

    from proofgym_stack.validation.runner import CHECKS

    seen = {"canary"}
    for check in CHECKS:
        assert set(check.needs) <= seen, f"{check.name} needs {check.needs}, before: {seen}"
        params = list(inspect.signature(check.run).parameters)
        assert len(params) == 1 + len(check.needs), f"{check.name}: {params}"
        seen.add(check.name)
    assert len(seen) == len(CHECKS) + 1, "two checks share a name"
