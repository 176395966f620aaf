"""The `openai` package's types without its client, for processes that only need the types.

proofgym's wire types are the `openai` package's Responses models, and importing any of them
first runs `openai/__init__.py` (the client, its HTTP stack, every API resource),
`openai/types/__init__.py` (every type of every API, evals and graders included) and
`openai/types/responses/__init__.py` (every Responses type, the streaming events included). A
service needs only `Response` and what it is made of: measured on this machine, `from
openai.types.responses import Response` takes 0.40 s that way, 0.28 s without the client and
0.15 s when only the submodules it names are loaded.

`openai_types_only()` registers the three packages unexecuted, so their submodules load on
their own. A name asked of a types package that its `__init__` only re-exports (`from
.response import Response as Response`) loads just the submodule that defines it. Any other
name (say `openai.AsyncOpenAI`, from a package that does more than re-export) runs the real
`__init__` then and answers it: nothing is missing, it is only loaded late. Only
`proofgym_stack.service_main` calls it, before anything imports openai.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import sys
import types
from typing import Any

PACKAGES = ("openai", "openai.types", "openai.types.responses")


def openai_types_only() -> bool:
    """Register the `openai` packages unexecuted (see the module); False when any is already
    imported or cannot be found, and then nothing changes."""
    if any(name in sys.modules for name in PACKAGES):
        return False
    if importlib.util.find_spec(PACKAGES[0]) is None:
        return False
    for name in PACKAGES:
        spec = importlib.util.find_spec(name)  # the parent is registered: no __init__ runs
        if spec is None or spec.loader is None:
            for done in PACKAGES:
                sys.modules.pop(done, None)
            return False
        module = importlib.util.module_from_spec(spec)
        module.__getattr__ = _lazy_getattr(module, spec)  # type: ignore[method-assign]
        sys.modules[name] = module
        parent, _, child = name.rpartition(".")
        if parent:
            setattr(sys.modules[parent], child, module)
    return True


def reexports(source: str) -> dict[str, tuple[str, str]] | None:
    """What an `__init__` made only of relative re-exports (`from .mod import A as B`) exports:
    {B: (mod, A)}; None when it does anything else, so that running it is the only safe way."""
    found: dict[str, tuple[str, str]] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            continue
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # a docstring
        if not (isinstance(node, ast.ImportFrom) and node.level == 1):
            return None
        for alias in node.names:
            if alias.name == "*":
                return None
            module = node.module or alias.name  # `from . import sub` names a submodule
            found[alias.asname or alias.name] = (module, "" if node.module is None else alias.name)
    return found


def _lazy_getattr(module: types.ModuleType, spec: Any) -> Any:
    source = spec.loader.get_source(spec.name)
    exported = reexports(source) if source is not None else None

    def __getattr__(name: str) -> Any:
        if exported is not None and name in exported:
            submodule, attribute = exported[name]
            loaded = importlib.import_module(f"{spec.name}.{submodule}")
            value = getattr(loaded, attribute) if attribute else loaded
            setattr(module, name, value)
            return value
        if module.__dict__.get("__proofgym_ran__"):
            raise AttributeError(f"module {module.__name__!r} has no attribute {name!r}")
        module.__proofgym_ran__ = True  # type: ignore[attr-defined]
        spec.loader.exec_module(module)  # the real __init__, into the same module object
        if module.__dict__.get("__getattr__") is __getattr__:  # not the package's own
            del module.__getattr__  # type: ignore[attr-defined]
        return getattr(module, name)

    return __getattr__
