"""Which environments there are: the shipped ones (`discover`), reasoning-gym's datasets
(`rg_<dataset>`, with the `rg` extra installed) and the bridged peers (`PROOFGYM_BRIDGES`).
Every command that names environments asks here, and asks `generator` for an environment's
task generator."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from proofgym.serving.settings import ResourcesSettings
from resources_servers.base.environment import Environment
from resources_servers.base.registry import discover, problems


def available_environments(settings: ResourcesSettings) -> dict[str, type[Environment[Any]]]:
    """Every environment by name: shipped, reasoning-gym's, then bridged (ValueError for a bad
    bridge)."""
    from interop.reasoning_gym import environments as rg_environments

    found = discover()
    shipped = {**{n: c for n, c in rg_environments().items() if n not in found}, **found}
    if not settings.bridges:
        return shipped
    # only here: the bridges' HTTP and websocket clients are 60 ms of a resources server's start
    from interop.bridges import BridgeError, bridged

    try:
        return {**shipped, **bridged(settings.bridges, set(shipped))}
    except BridgeError as exc:
        raise ValueError(str(exc)) from None


def build_environments(
    settings: ResourcesSettings, names: list[str] | None = None
) -> dict[str, Environment[Any]]:
    """The environments a resources server hosts: `names` (default: `settings.envs`, else
    all), each built from the settings."""
    available = available_environments(settings)
    wanted = names or settings.envs or sorted(available)
    unknown = [n for n in wanted if n not in available]
    if unknown:
        raise ValueError(unknown_message(unknown, available))
    return {n: available[n].from_settings(settings) for n in wanted}


def unknown_message(names: list[str], available: dict[str, Any]) -> str:
    """Why these names are not environments: a broken folder's own problem (its traceback),
    else the list of what there is."""
    broken = problems()
    known = [broken[n] for n in names if n in broken]
    if known:
        return "\n".join(known)
    return f"unknown environments {names}; available: {sorted(available)}"


def default_names(available: dict[str, Any]) -> list[str]:
    """What a command that is given no environment (`validate`) runs on: every environment but
    reasoning-gym's 105, which run only when named (all of them would take hours)."""
    from interop.reasoning_gym import is_rg

    return sorted(n for n in available if not is_rg(n))


def generator(env: str) -> ModuleType:
    """The task generator of `env`: `sdg/<env>.py`, or a reasoning-gym dataset's generator in
    its shape (`generate(n, seed, split)`, `identity(row)`); ModuleNotFoundError when none."""
    from interop.reasoning_gym import generator as rg_generator
    from interop.reasoning_gym import is_rg

    if is_rg(env):
        return rg_generator(env)
    return importlib.import_module(f"sdg.{env}")
