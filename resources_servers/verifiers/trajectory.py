"""Trajectory constraints over the rollout's function calls."""

from __future__ import annotations

import json
from collections.abc import Callable, Collection
from typing import Any

from openai.types.responses import Response

from proofgym.wire.jsonlimits import loads_limited
from proofgym.wire.protocol import Check
from proofgym.wire.responses import function_calls, output_items


def calls(response: Response) -> list[tuple[str, dict[str, Any]]]:
    """Every function call as (name, parsed arguments); arguments that are not usable JSON (too
    deep, too large, malformed) become {}."""
    return [(str(call.get("name")), _arguments(call)) for call in function_calls(response)]


def _arguments(call: dict[str, Any]) -> dict[str, Any]:
    try:
        args = loads_limited(call.get("arguments") or "{}")
    except ValueError:
        args = {}
    return args if isinstance(args, dict) else {}


def refused(response: Response) -> set[str]:
    """The call ids of the calls a tool refused (its output an `Error: ...`): they did
    nothing."""
    return {
        str(item.get("call_id"))
        for item in output_items(response)
        if item.get("type") == "function_call_output"
        and str(item.get("output") or "").startswith("Error:")
    }


def _hashable(value: Any) -> Any:
    """`value` as a set member: a list or dict a policy sent where a name was expected is
    compared by its JSON, never a crash of the verifier."""
    try:
        hash(value)
    except TypeError:
        return json.dumps(value, sort_keys=True, default=str)
    return value


def forbidden_tools(
    response: Response, names: Collection[str], name: str = "no_forbidden_tools"
) -> Check:
    """Fail when any tool in `names` was called."""
    used = sorted({n for n, _ in calls(response) if n in names})
    return Check(name=name, passed=not used, detail=f"called {', '.join(used)}" if used else "")


def forbidden_arguments(
    response: Response,
    tool: str,
    predicate: Callable[[dict[str, Any]], bool],
    name: str = "no_forbidden_arguments",
    why: str = "",
) -> Check:
    """Fail when `tool` was called with arguments for which `predicate` is true."""
    bad = [args for n, args in calls(response) if n == tool and predicate(args)]
    if not bad:
        return Check(name=name, passed=True)
    detail = f"{tool} called with {json.dumps(bad[0])[:200]}" + (f": {why}" if why else "")
    return Check(name=name, passed=False, detail=detail)


def required_before(
    response: Response,
    first: str,
    then: Collection[str],
    key: Callable[[dict[str, Any]], Any] | None = None,
    name: str | None = None,
) -> Check:
    """Fail when a tool in `then` is called before `first` was.

    With `key`, `first` must have been called earlier with the same key (for example: verify
    the identity of this customer before refunding this customer's order). A call of `first`
    its tool refused (its output an `Error: ...`) did nothing and does not count; a key that is
    a list or a dict is compared by its JSON.
    """
    seen: set[Any] = set()
    any_first = False
    undone = refused(response)
    for call in function_calls(response):
        tool, args = str(call.get("name")), _arguments(call)
        if tool == first:
            if str(call.get("call_id")) in undone:
                continue
            any_first = True
            if key is not None:
                seen.add(_hashable(key(args)))
        elif tool in then:
            ok = (_hashable(key(args)) in seen) if key is not None else any_first
            if not ok:
                return Check(
                    name=name or f"{first}_before_{tool}",
                    passed=False,
                    detail=f"{tool} was called before {first}",
                )
    return Check(name=name or f"{first}_first", passed=True)


def call_limit(
    response: Response, limit: int, tool: str | None = None, name: str = "call_limit"
) -> Check:
    """Fail when more than `limit` calls (of `tool`, or of any tool) were made."""
    count = sum(1 for n, _ in calls(response) if tool is None or n == tool)
    return Check(
        name=name,
        passed=count <= limit,
        detail=f"{count} calls{f' of {tool}' if tool else ''}, limit {limit}",
    )
