"""The `openai` package's types without its client, for processes that only need the types.

proofgym's wire types are the `openai` package's Responses models, and importing any of them
first runs `openai/__init__.py` (the client, its HTTP stack, every API resource) and
`openai/types/__init__.py` (every type of every API, evals and graders included). A service
needs none of that: measured on this machine, `import openai.types.responses` takes 0.40 s
and 57 MB that way, 0.25 s and 44 MB without.

`openai_types_only()` registers both packages unexecuted, so their submodules load on their
own. The first attribute asked of either package that is not a loaded submodule (say
`openai.AsyncOpenAI`) runs its real `__init__` then and answers it: nothing is missing, it is
only loaded late. Only `proofgym_stack.service_main` calls it, before anything imports openai.
"""

from __future__ import annotations

import importlib.util
import sys
import types
from typing import Any

PACKAGES = ("openai", "openai.types")


def openai_types_only() -> bool:
    """Register `openai` and `openai.types` unexecuted (see the module); False when either
    is already imported or cannot be found, and then nothing changes."""
    if any(name in sys.modules for name in PACKAGES):
        return False
    specs = [importlib.util.find_spec(PACKAGES[0])]
    if specs[0] is None:
        return False
    for name in PACKAGES:
        spec = specs[-1] if name == PACKAGES[0] else importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            for done in PACKAGES:
                sys.modules.pop(done, None)
            return False
        module = importlib.util.module_from_spec(spec)
        module.__getattr__ = _run_init_then_get(module, spec)  # type: ignore[method-assign]
        sys.modules[name] = module
        if name != PACKAGES[0]:
            sys.modules[PACKAGES[0]].types = module  # type: ignore[attr-defined]
    return True


def _run_init_then_get(module: types.ModuleType, spec: Any) -> Any:
    def __getattr__(name: str) -> Any:
        if module.__dict__.get("__proofgym_ran__"):
            raise AttributeError(f"module {module.__name__!r} has no attribute {name!r}")
        module.__proofgym_ran__ = True  # type: ignore[attr-defined]
        del module.__getattr__  # type: ignore[attr-defined]
        spec.loader.exec_module(module)  # the real __init__, into the same module object
        return getattr(module, name)

    return __getattr__
