"""Which environments there are: the shipped ones (`discover`) and the bridged peers
(`PROOFGYM_BRIDGES`). Every command that names environments asks here."""

from __future__ import annotations

from typing import Any

from proofgym.serving.settings import ResourcesSettings
from resources_servers.base.environment import Environment
from resources_servers.base.registry import discover, problems


def available_environments(settings: ResourcesSettings) -> dict[str, type[Environment[Any]]]:
    """Every environment by name: shipped, then bridged (ValueError for a bad bridge)."""
    shipped = discover()
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
