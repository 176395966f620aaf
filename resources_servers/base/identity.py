"""An environment's identity: a hash of every source file that decides what it does.

A proof (`proofgym validate`) holds for one version of an environment, and a trainer refuses
rollouts of versions never proven; so the version must move whenever anything that can move a
reward moves. Hashing the environment's own folder misses most of it: the verifier library
its `verify` calls, the base class, the core that reads a final message, and, for a subclass
defined elsewhere, the file that overrides `verify`. So the version is the hash of the source
closure: the module of each class in the environment's method resolution order, and every
module those import (at any depth, at module level or inside a function) from the project's
own packages (those of the classes, and `proofgym`), package `__init__` files included.
Third-party packages are pinned by the lock file, not hashed. An import by a computed name
(`importlib.import_module(x)`) is not followed.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import sys
from pathlib import Path

#: packages whose modules are always part of an environment's identity
CORE = ("proofgym",)


def _spec_file(name: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError, AttributeError):
        return None
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    return Path(spec.origin)


def _module_file(name: str) -> Path | None:
    module = sys.modules.get(name)
    path = getattr(module, "__file__", None) if module is not None else None
    if path and str(path).endswith(".py"):
        return Path(path)
    return _spec_file(name)


def _imported_names(source: str, module: str, is_package: bool) -> set[str]:
    """Every module name `source` (the text of `module`) imports, relative ones resolved;
    for `from X import y`, both X and X.y (y may be a submodule)."""
    package = module if is_package else module.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base_parts = parts[: len(parts) - node.level + 1] if node.level > 1 else parts
                base = ".".join(base_parts)
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            if target:
                names.add(target)
                names.update(f"{target}.{alias.name}" for alias in node.names)
    return names


def _with_parents(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[: i + 1]) for i in range(len(parts))]


def source_closure(cls: type) -> dict[str, Path]:
    """Module name -> file of every module `cls`'s behaviour comes from (see the module
    docstring)."""
    roots = [c.__module__ for c in cls.__mro__ if c.__module__ not in ("builtins", "abc")]
    local = {r.split(".")[0] for r in roots} | set(CORE)
    local -= {"typing"}
    found: dict[str, Path] = {}
    todo = [n for r in roots for n in _with_parents(r)]
    while todo:
        name = todo.pop()
        if name in found or name.split(".")[0] not in local:
            continue
        path = _module_file(name)
        if path is None:
            continue
        found[name] = path
        source = path.read_text(encoding="utf-8", errors="replace")
        for imported in _imported_names(source, name, path.name == "__init__.py"):
            todo.extend(_with_parents(imported))
    return found


def source_hash(cls: type) -> str:
    """Content hash of `cls`'s source closure, keyed by module name (the same wherever the
    project is installed)."""
    digest = hashlib.sha256()
    for name, path in sorted(source_closure(cls).items()):
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]
