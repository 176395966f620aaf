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
import random
import re
import secrets
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from proofgym.serving.settings import AgentSettings
from proofgym.wire.canary import ENV_VAR, PATTERN, PREFIX
from proofgym.wire.protocol import Task
from proofgym_stack.validation.answers import actions, final_text, with_final
from proofgym_stack.validation.negatives import CLAIM, random_tool_calls
from proofgym_stack.validation.replies import any_reply_passes
from proofgym_stack.validation.scripts import Script, outcome
from resources_servers.base.scratch import sweep

if TYPE_CHECKING:
    from proofgym_stack.validation.context import Context

DEEP = "[" * 10_000 + "]" * 10_000
BIG = 1_100_000  # over every shipped tool's size limit
FLOOD_CALLS = 200  # over the agent's default cap of tool calls per turn


@dataclass(frozen=True)
class Canary:
    """A planted secret: its value and the file that holds it."""

    value: str
    path: Path


def sweep_stale_canaries(folder: Path | None = None) -> list[Path]:
    """Remove canary files whose validating process is gone (killed before it could clean
    up); return them. A canary is named like a private folder: its process id in its name."""
    return sweep("canary", str(folder) if folder else None)


@contextlib.contextmanager
def planted_canary() -> Iterator[Canary]:
    """Plant a fresh canary in the temp dir (world-readable) and in this process's environment;
    remove both afterwards. Canaries left by validations that were killed are swept first."""
    sweep_stale_canaries()
    value = PREFIX + secrets.token_hex(8)
    path = Path(tempfile.gettempdir()) / f"proofgym-canary-{os.getpid()}-{value}"
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


async def check_hostile_arguments(v: Context) -> None:
    """Each tool attacked with hostile arguments: scored, unmasked, and not passing."""
    task = v.tasks[0]
    problems = []
    tools = v.env.task_tool_schemas(task)
    for tool in tools:
        result = await v.run(
            task, hostile_script(tool), f"hostile arguments to {tool['name']}", expect="fail"
        )
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


GENERIC_CLAIMS = (
    CLAIM,
    "All set! Everything has been taken care of.",
    "Not a problem at all, it's done.",
    "No issues: the task is complete and nothing else needs doing.",
    "I've finished. You're all set.",
)


def _declares_silent_pass(v: Context, task_id: str) -> bool:
    """Whether a passing control of the task makes no tool call: then answering without
    acting is honest there, and a bare answer may pass."""
    return any(c.expect == "pass" and actions(c.script) == 0 for c in v.controls.get(task_id, []))


async def _message_is_the_answer(v: Context, task: Task, script: Script) -> bool:
    """Whether the reference's final message carries its answer: its actions with an empty
    message fail. Such a message alone is an answer given without looking, not a bare claim
    (a verifier may accept a right answer however it was found); the generic claims and the
    environment's own success words still are."""
    result = await v.run(task, with_final(script, ""), "probe: the reference, silent")
    return not result.mask_sample and not v.passes(result)


async def check_claims(v: Context) -> None:
    """Success claims with no action behind them fail, whatever the checks are named: generic
    ones (negated phrasings included) and ones in the environment's own success words always,
    and the reference's own final message where the reference had to act to pass and that
    message is a claim, not the answer (its actions with an empty message still pass)."""
    tried, problems, ungraded = 0, [], []
    for task in v.tasks:
        claims = list(GENERIC_CLAIMS) + [f"It has been {w}." for w in v.env.success_words]
        control = v.reference(task.task_id)
        script = control.script if control is not None else []
        own = final_text(script)
        if await any_reply_passes(v, task):
            ungraded.append(task.task_id)
            continue
        if (
            own
            and actions(script)
            and not _declares_silent_pass(v, task.task_id)
            and not await _message_is_the_answer(v, task, script)
        ):
            claims.append(own)
        for text in claims:
            tried += 1
            result = await v.run(
                task, [[{"type": "message", "content": text}]], "bare claim", expect="fail"
            )
            if v.passes(result) or result.mask_sample:
                how = outcome(result)
                problems.append(f"{task.task_id}: {how} for the bare claim {text[:60]!r}")
    detail = "; ".join(problems[:3]) or f"{tried} bare claims with no action failed"
    if ungraded:
        detail += (
            f"; not tried on {', '.join(ungraded[:3])}: the reference acts on nothing and "
            "other tasks' replies pass there too (any reply is the expected action)"
        )
    v.verdict("adversarial:claim_without_action", not problems, detail)


def check_claim_recognised(v: Context) -> None:
    """A claim check (kind "claim") should read the reference's own final message as a claim:
    one that never does reports "no success claimed" on every rollout and checks nothing.
    Advisory: an inert check gains a policy nothing (the floor checks measure what a lie
    earns)."""
    missed, seen = [], 0
    for task in v.tasks:
        ref = v.reference_result(task.task_id)
        if ref is None:
            continue
        for check in ref.checks:
            if check.kind == "claim":
                seen += 1
                if check.claimed is False:
                    missed.append(f"{task.task_id}: {check.name}")
    if not seen:
        v.not_applicable("claim_check_recognises_reference", "no claim check (kind 'claim')")
        return
    # an inert claim check pays nothing it should not (the floor checks measure what a lie
    # earns): the author is told, validate is not failed for it
    detail = (
        "advisory: does not recognise the reference's own success message, so it checks "
        "nothing (give the environment its success_words): " + "; ".join(missed[:3])
        if missed
        else f"{seen} claim checks read the reference's message as a claim"
    )
    v.verdict("claim_check_recognises_reference", True, detail)


def check_violation_declared(v: Context) -> None:
    """Every environment ships at least one control of role `violation` (named `violation_*`,
    or declared with role="violation"): the goal reached by a forbidden path, which must fail."""
    violations = sorted({c.name for cs in v.controls.values() for c in cs if c.role == "violation"})
    v.verdict(
        "violation_declared",
        bool(violations),
        f"{len(violations)} violation controls: {', '.join(violations)}"
        if violations
        else "no violation control: declare one per rule (the goal reached by a forbidden "
        "path, expected to fail; named violation_*, or role='violation')",
    )


async def check_call_flood(v: Context) -> None:
    """One turn with more tool calls than any turn may run: scored, unmasked, not passing."""
    tools = v.env.task_tool_schemas(v.tasks[0])
    if not tools:
        v.not_applicable("adversarial:call_flood", "no tools")
        return
    rng = random.Random(f"{v.seed}:flood")
    calls = [item for turn in random_tool_calls(tools, rng, turns=FLOOD_CALLS) for item in turn]
    task = v.tasks[0]
    result = await v.run(
        task,
        [calls, [{"type": "message", "content": CLAIM}]],
        "call flood",
        expect=None if v.env.random_play_can_pass else "fail",
    )
    problem = (
        f"masked ({result.failure_kind}: {result.failure_reason})"
        if result.mask_sample
        else f"passed with reward {result.reward:g}"
        if v.passes(result) and not v.env.random_play_can_pass
        else ""
    )
    note = f"{FLOOD_CALLS} tool calls in one turn: scored, not passing"
    if problem.startswith("passed"):
        # the calls that ran (the agent's cap), sent as a turn within it: a pass there too
        # is random calls that solved the task (a dose that landed in a wide band), which
        # the flood did not cause
        ran = calls[: AgentSettings.model_fields["max_tool_calls_per_turn"].default]
        again = await v.run(task, [ran, [{"type": "message", "content": CLAIM}]], "probe: no flood")
        if v.passes(again) and not again.mask_sample:
            problem = ""
            note = (
                f"{FLOOD_CALLS} tool calls in one turn passed, and so did the {len(ran)} that ran, "
                "sent within the cap: random calls solved the task, not the flood"
            )
    v.verdict("adversarial:call_flood", not problem, problem or note)


def hostile_generations(tool: str) -> dict[str, str]:
    """Raw model text a policy could generate, by name: each goes through the tool-call
    parser the token-exact backends use."""
    deep = "[" * 5000 + "]" * 5000
    return {
        "deeply_nested_call": f'<tool_call>{{"name": "{tool}", "arguments": {deep}}}</tool_call>',
        "deeply_nested_body": "<tool_call>" + "{" * 3000 + "}" * 3000 + "</tool_call>",
        "unterminated_tag": f'<tool_call>{{"name": "{tool}", "arguments": {{',
        "unterminated_think": "<think>" + "why " * 2000,
        "huge_arguments": f'<tool_call>{{"name": "{tool}", "arguments": {{"x": "'
        + "y" * BIG
        + '"}}</tool_call>',
        "not_a_call": "<tool_call>[1, 2, 3]</tool_call><tool_call>null</tool_call>",
        "lone_surrogate_escape": '<tool_call>{"name": "\\ud800", "arguments": {}}</tool_call>',
    }


async def check_hostile_generations(v: Context) -> None:
    """Hostile raw generations through the real tool-call parser: every rollout ends scored,
    never masked, never passing."""
    tools = v.env.task_tool_schemas(v.tasks[0])
    tool = tools[0]["name"] if tools else "answer"
    problems = []
    generations = hostile_generations(tool)
    for name, text in generations.items():
        script = [[{"type": "text", "content": text}], [{"type": "message", "content": CLAIM}]]
        result = await v.run(v.tasks[0], script, f"hostile generation {name}", expect="fail")
        if result.mask_sample:
            problems.append(f"{name}: masked ({result.failure_kind}: {result.failure_reason})")
        elif v.passes(result):
            problems.append(f"{name}: passed with reward {result.reward:g}")
    v.verdict(
        "adversarial:hostile_generations",
        not problems,
        "; ".join(problems[:3]) or f"{len(generations)} hostile generations: all scored",
    )


def check_canary(v: Context, canary: Canary) -> None:
    """No rollout of the whole validation showed the planted canary (or any other
    validation's canary on this host) anywhere."""
    # any validation's canary: another one running on this host planted its own, and a
    # program that reads the host's secrets may show that one first (its own cut off)
    shows = re.compile(f"{re.escape(canary.value)}|{PATTERN}")
    leaks = [
        f"{r.task_id}: the canary shows in the rollout"
        for r in v.results
        if shows.search(r.model_dump_json())
    ]
    v.verdict(
        "adversarial:no_host_secret_revealed",
        not leaks,
        "; ".join(leaks[:3])
        or f"a canary planted in {canary.path.parent} and the environment never showed in "
        f"{len(v.results)} rollouts",
    )
