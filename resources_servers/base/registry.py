"""Finds environments: every package under `resources_servers/` that exports `Env`.

A folder that is not a working environment breaks only itself: one whose import fails, or
that exports no `Env`, is left out and reported by name (`problems`), with its traceback, to
the commands that ask for it; every other environment works as before.
"""

from __future__ import annotations

import importlib
import pkgutil
import traceback
from typing import Any

import resources_servers
from resources_servers.base.environment import Environment

NOT_ENVIRONMENTS = frozenset({"base", "verifiers"})


def scan() -> tuple[dict[str, type[Environment[Any]]], dict[str, str]]:
    """(every working environment class by name, why each other folder is not one)."""
    found: dict[str, type[Environment[Any]]] = {}
    problems: dict[str, str] = {}
    for info in pkgutil.iter_modules(resources_servers.__path__):
        if not info.ispkg or info.name in NOT_ENVIRONMENTS:
            continue
        try:
            module = importlib.import_module(f"resources_servers.{info.name}")
        except Exception:
            problems[info.name] = (
                f"resources_servers/{info.name} fails to import:\n{traceback.format_exc()}"
            )
            continue
        env_cls = getattr(module, "Env", None)
        if isinstance(env_cls, type) and issubclass(env_cls, Environment):
            found[env_cls.name] = env_cls
        else:
            problems[info.name] = (
                f"resources_servers/{info.name} exports no `Env` (a subclass of "
                "resources_servers.base.Environment) in its __init__.py"
            )
    return found, problems


def discover() -> dict[str, type[Environment[Any]]]:
    """Every working environment class, by name. Adding a folder with `Env` adds one."""
    return scan()[0]


def problems() -> dict[str, str]:
    """Why each folder under resources_servers/ that is not a working environment is not."""
    return scan()[1]
