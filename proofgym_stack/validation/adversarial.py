"""The adversarial stage of `proofgym validate`: attack an environment as a policy would.

Generic, driven by what the environment declares (its tools, its claim checks):
- a canary planted on the host (a file in the temp dir and a variable of the validating
  process) that no tool output, check, reward or failure reason of any rollout may show;
- hostile tool arguments for every tool (nested 10,000 deep, megabyte strings, lone surrogates,
  wrong types, not JSON, unknown tools): each rollout ends scored, unmasked, and not passing;
- the reference's own success message with no action, for environments with a claim check.

The environment's own `exploit_*` controls (expected: the floor) run with the other controls,
under the same canary.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from proofgym.canary import ENV_VAR, PREFIX

if TYPE_CHECKING:
    from proofgym_stack.validation.runner import _Validator

DEEP = "[" * 10_000 + "]" * 10_000
BIG = 1_100_000  # over every shipped tool's size limit
CLAIM = "Done. I have completed the task successfully and verified the result."


@dataclass(frozen=True)
class Canary:
    """A planted secret: its value and the file that holds it."""

    value: str
    path: Path


@contextlib.contextmanager
def planted_canary() -> Iterator[Canary]:
    """Plant a fresh canary in the temp dir (world-readable) and in this process's environment;
    remove both afterwards."""
    value = PREFIX + secrets.token_hex(8)
    path = Path(tempfile.gettempdir()) / f"proofgym-canary-{value}"
    path.write_text(value)
    path.chmod(0o644)
    previous = os.environ.get(ENV_VAR)
    os.environ[ENV_VAR] = value
    try:
        yield Canary(value, path)
    finally:
        path.unlink(missing_ok=True)
        if previous is None:
            os.environ.pop(ENV_VAR, None)
        else:
            os.environ[ENV_VAR] = previous


def _call(name: str, arguments: str) -> list[dict[str, Any]]:
    return [{"type": "function_call", "name": name, "arguments": arguments}]


def hostile_arguments(tool: dict[str, Any]) -> dict[str, str]:
    """Argument strings a policy could send to `tool`, by name: none of them is usable."""
    props = list((tool.get("parameters") or {}).get("properties") or {}) or ["x"]
    first = props[0]
    return {
        "nested_10000_deep": DEEP,
        "nested_inside_an_argument": '{"' + first + '": ' + DEEP + "}",
        "megabyte_string": json.dumps({first: "x" * BIG}),
        "lone_surrogates": json.dumps({p: "\ud800\udfff\ud800" for p in props}),
        "wrong_types": json.dumps({p: [{"a": None}, 1e308] for p in props}),
        "unknown_arguments": json.dumps({"\u0000" + first: 1, "y" * 1000: 2}),
        "not_json": "{'" + first + "': ",
        "not_an_object": "[1, 2, 3]",
    }


def hostile_script(tool: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """Every hostile argument string for `tool`, one turn each, an unknown tool, then a claim."""
    turns = [_call(tool["name"], args) for args in hostile_arguments(tool).values()]
    turns.append(_call(tool["name"] + "/../verify", "{}"))
    return [*turns, [{"type": "message", "content": CLAIM}]]


async def check_hostile_arguments(v: _Validator) -> None:
    """Each tool attacked with hostile arguments: scored, unmasked, and not passing."""
    task = v.tasks[0]
    problems = []
    tools = v.env.tool_schemas()
    for tool in tools:
        result = await v.run(task, hostile_script(tool))
        if result.mask_sample:
            problems.append(
                f"{tool['name']}: masked ({result.failure_kind}: {result.failure_reason})"
            )
        elif v.passes(result):
            problems.append(f"{tool['name']}: passed with reward {result.reward:g}")
    v.verdict(
        "adversarial:hostile_arguments",
        not problems,
        "; ".join(problems[:3])
        or f"{len(tools)} tools x {len(hostile_arguments({}))} hostile argument forms: "
        "all scored, none passed",
    )


def _final_text(script: list[list[dict[str, Any]]]) -> str | None:
    for item in reversed(script[-1] if script else []):
        if item.get("type") == "message" and isinstance(item.get("content"), str):
            return str(item["content"])
    return None


async def check_claims(v: _Validator) -> None:
    """Where the environment checks claims, the reference's own success message with no action
    behind it fails."""
    tried, problems = 0, []
    for task in v.tasks:
        ref = v.solo.get((task.task_id, "reference"))
        control = next((c for c in v.controls.get(task.task_id, []) if c.name == "reference"), None)
        if ref is None or control is None or not any("claim" in c.name for c in ref.checks):
            continue
        text = _final_text(control.script)
        if text is None:
            continue
        tried += 1
        result = await v.run(task, [[{"type": "message", "content": text}]])
        if v.passes(result) or result.mask_sample:
            problems.append(f"{task.task_id}: reward {result.reward:g} for a bare claim")
    detail = "; ".join(problems[:3]) or (
        f"{tried} bare reference claims failed"
        if tried
        else "no claim check declared; not applicable"
    )
    v.verdict("adversarial:claim_without_action", not problems, detail)


def check_canary(v: _Validator, canary: Canary) -> None:
    """No rollout of the whole validation showed the planted canary anywhere."""
    leaks = [
        f"{r.task_id}: the canary shows in the rollout"
        for r in v.results
        if canary.value in r.model_dump_json()
    ]
    v.verdict(
        "adversarial:no_host_secret_revealed",
        not leaks,
        "; ".join(leaks[:3])
        or f"a canary planted in {canary.path.parent} and the environment never showed in "
        f"{len(v.results)} rollouts",
    )
