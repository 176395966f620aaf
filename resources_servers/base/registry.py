"""Finds environments: every package under `resources_servers/` that exports `Env`."""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

import resources_servers
from resources_servers.base.environment import Environment

NOT_ENVIRONMENTS = frozenset({"base", "verifiers"})


def discover() -> dict[str, type[Environment[Any]]]:
    """Every shipped environment class, by name. Adding a folder with `Env` adds one."""
    found: dict[str, type[Environment[Any]]] = {}
    for info in pkgutil.iter_modules(resources_servers.__path__):
        if not info.ispkg or info.name in NOT_ENVIRONMENTS:
            continue
        module = importlib.import_module(f"resources_servers.{info.name}")
        env_cls = getattr(module, "Env", None)
        if isinstance(env_cls, type) and issubclass(env_cls, Environment):
            found[env_cls.name] = env_cls
    return found
