"""The core checks of `proofgym validate`: the controls, the generic negatives, the floor gap,
determinism, isolation, leakage and a well-formed reward. Each is a public function of the
`Context`; what one needs from another comes in as an argument (the floor gap takes the
negatives' best rewards), never as state left on the context.
"""

from __future__ import annotations

import asyncio
import json
import math
import uuid

from proofgym.wire.protocol import Control, RunResult, Task
from proofgym_stack.validation.alike import outputs_by_task, shown_not_as_the_truth
from proofgym_stack.validation.computed import computed
from proofgym_stack.validation.context import Context
from proofgym_stack.validation.leaks import (
    Leak,
    Secret,
    discovered,
    find,
    first_leak,
    rollout_leaks,
    secrets_of,
)
from proofgym_stack.validation.negatives import generic_negatives
from proofgym_stack.validation.replies import any_reply_passes
from proofgym_stack.validation.scripts import tool_outputs
from proofgym_stack.validation.sessions import HandSession, replay_calls
from proofgym_stack.validation.signature import signature


async def check_controls(ctx: Context) -> None:
    by_name: dict[str, list[str]] = {}
    runs: dict[str, int] = {}
    for task in ctx.tasks:
        answer = await ctx.post(f"{ctx.base}/controls", {"task": task.model_dump()})
        controls = [Control.model_validate(c) for c in answer["controls"]]
        ctx.controls[task.task_id] = controls
        for control in controls:
            result = await ctx.run(task, control.script, f"control {control.name}")
            ctx.expected[result.rollout_id] = control.expect
            ctx.solo[(task.task_id, control.name)] = result
            runs[control.name] = runs.get(control.name, 0) + 1
            # a masked rollout is no verdict: it proves neither a pass nor a fail
            ok = not result.mask_sample and ctx.passes(result) == (control.expect == "pass")
            if control.role == "exploit":  # an exploit earns the floor, no more
                floor = ctx.env.reward_range[0]
                ok = ok and control.expect == "fail" and result.reward <= floor + 1e-9
            if not ok:
                by_name.setdefault(control.name, []).append(
                    f"{task.task_id}: {what_differs(control, result, ctx.threshold)}"
                )
            else:
                by_name.setdefault(control.name, [])
    declared = {c.name: c.expect for cs in ctx.controls.values() for c in cs}
    has_ref = all(any(c.role == "reference" for c in cs) for cs in ctx.controls.values())
    has_neg = "fail" in declared.values()
    ctx.verdict(
        "controls_declared",
        has_ref and has_neg,
        f"{len(declared)} controls: {', '.join(sorted(declared))}"
        if has_ref and has_neg
        else "every task needs a reference control (named 'reference', or role='reference'), "
        "and one control expected to fail at least",
    )
    for name, problems in sorted(by_name.items()):
        ctx.verdict(
            f"control:{name}",
            not problems,
            "; ".join(problems[:3]) or f"as declared on {runs[name]} tasks",
        )


async def check_negatives(ctx: Context) -> dict[str, float]:
    best: dict[str, float] = {}
    failures: dict[str, list[str]] = {}
    for task in ctx.tasks:
        top = -math.inf
        tools = ctx.env.task_tool_schemas(task)
        for name, script in generic_negatives(task, tools, ctx.seed).items():
            chance = name == "random_tool_calls" and ctx.env.random_play_can_pass
            result = await ctx.run(
                task, script, f"negative {name}", expect=None if chance else "fail"
            )
            top = max(top, result.reward)
            failures.setdefault(name, [])
            if ctx.passes(result) and not chance:
                failures[name].append(f"{task.task_id}: reward {result.reward:g}")
        for control in ctx.controls.get(task.task_id, []):
            if control.expect == "fail":
                top = max(top, ctx.solo[(task.task_id, control.name)].reward)
        best[task.task_id] = top
    # a claim paid where any reply is the expected action (no tool call in the reference,
    # other tasks' replies pass too) is one more such reply, not success claimed unearned
    claims = failures.get("claim_without_action", [])
    kept = []
    for problem in claims:
        task = next(t for t in ctx.tasks if problem.startswith(f"{t.task_id}: "))
        if not await any_reply_passes(ctx, task):
            kept.append(problem)
    if claims:
        failures["claim_without_action"] = kept
    for name, problems in sorted(failures.items()):
        ctx.verdict(
            f"negative:{name}",
            not problems,
            "passed: " + "; ".join(problems[:3]) if problems else "fails as it must",
        )
    return best


def check_floor_gap(ctx: Context, best_negative: dict[str, float]) -> None:
    lo, hi = ctx.env.reward_range
    need = ctx.margin * (hi - lo)
    gaps = []
    for task in ctx.tasks:
        ref = ctx.reference_result(task.task_id)
        if ref is not None:
            gaps.append(ref.reward - best_negative[task.task_id])
    ok = bool(gaps) and min(gaps) >= need - 1e-9
    detail = (
        f"smallest gap {min(gaps):g}, needed {need:g}"
        if gaps
        else "no reference control to measure from"
    )
    ctx.verdict("floor_gap", ok, detail)


def check_sandbox_limits(ctx: Context) -> None:
    """Say what holds the limits of code the policy writes, where the environment runs any
    (the kernel's cgroup per run, or a process watcher that misses what no live process
    holds): a report, never a claim the host does not back."""
    mode = ctx.env.sandbox_mode()
    if mode is None:
        ctx.not_applicable("sandbox_limits", "runs no policy code")
    else:
        ctx.verdict("sandbox_limits", not mode.startswith("unavailable"), mode)


def check_well_formed(ctx: Context) -> None:
    """Every rollout validate ran is finite, in `reward_range`, its components summing to the
    reward, and unmasked: a mask a policy can cause is its failure turned into no sample. A
    rollout on task data validate itself made up (`Context.invented`) that masks is set
    aside: no policy reaches that data."""
    lo, hi = ctx.env.reward_range
    problems = []
    for r in ctx.results:
        if r.rollout_id in ctx.invented and r.mask_sample:
            continue  # a verify that fails on task data validate made up: no policy reaches it
        if r.mask_sample:
            problems.append(f"{r.task_id}: {r.failure_kind}: {r.failure_reason}")
        elif not math.isfinite(r.reward) or not lo - 1e-9 <= r.reward <= hi + 1e-9:
            problems.append(f"{r.task_id}: reward {r.reward} outside [{lo}, {hi}]")
        elif r.reward_components and abs(sum(r.reward_components.values()) - r.reward) > 1e-9:
            problems.append(f"{r.task_id}: components do not sum to the reward")
    ctx.verdict(
        "reward_well_formed",
        not problems,
        "; ".join(problems[:3]) or f"{len(ctx.results)} rollouts finite, in range",
    )


async def replay(ctx: Context, task: Task, original: RunResult) -> list[str]:
    """Replay a rollout's tool calls in a fresh session, verify twice; list differences."""
    session = HandSession(ctx.stack.client, ctx.base, task, "replay")
    if not await session.seed():
        return ["the replay's session could not be seeded"]
    problems = []
    try:
        tool_names = {t["name"] for t in ctx.env.task_tool_schemas(task)}
        for name, now, then in await replay_calls(session, original.response, tool_names):
            if ctx.env.deterministic_tools and now != then:
                problems.append(f"{name} answered differently on replay")
        response = original.response.model_dump(mode="json")
        first = await session.verify(response)
        second = await session.verify(response)
        if first != second:
            problems.append("verifying twice gave two results")
        if signature(first) != signature(original):
            problems.append(f"replay got reward {first['reward']:g}, run got {original.reward:g}")
    finally:
        await session.close()
    return problems


async def check_determinism(ctx: Context) -> None:
    problems = []
    for (task_id, name), result in ctx.solo.items():
        task = next(t for t in ctx.tasks if t.task_id == task_id)
        for p in await replay(ctx, task, result):
            problems.append(f"{task_id}/{name}: {p}")
    ctx.verdict(
        "determinism",
        not problems,
        "; ".join(problems[:3]) or f"{len(ctx.solo)} trajectories replayed",
    )


async def check_isolation(ctx: Context) -> None:
    jobs = list(ctx.solo.items())
    if not jobs:
        ctx.verdict("isolation_parallel", False, "no control to run in parallel")
        return
    picked = [jobs[i % len(jobs)] for i in range(ctx.parallel)]
    tasks = {t.task_id: t for t in ctx.tasks}
    results = await asyncio.gather(
        *(
            ctx.run(
                tasks[tid],
                next(c for c in ctx.controls[tid] if c.name == name).script,
                f"control {name} in parallel",
            )
            for (tid, name), _ in picked
        )
    )
    problems = []
    refused = 0
    for ((tid, name), solo), got in zip(picked, results, strict=True):
        if at_capacity(got):  # a limit of the environment (a peer's sessions), no finding
            refused += 1
            continue
        same = signature(got) == signature(solo)
        if same and ctx.env.deterministic_tools:
            same = tool_outputs(got) == tool_outputs(solo)
        if not same:
            problems.append(
                f"{tid}/{name}: reward {got.reward:g} in parallel, {solo.reward:g} alone"
            )
    ran = len(picked) - refused
    capacity = (
        f"; {refused} refused at the environment's capacity (its limit, not a finding: "
        f"validate with --parallel at most that)"
        if refused
        else ""
    )
    if not ran:
        ctx.not_applicable("isolation_parallel", f"every session{capacity[1:]}")
    else:
        ctx.verdict(
            "isolation_parallel",
            not problems,
            (
                f"{len(problems)}/{ran} differ: " + "; ".join(problems[:3])
                if problems
                else f"{ran} sessions at once, each as alone"
            )
            + capacity,
        )
    await check_probe(ctx)


async def check_probe(ctx: Context) -> None:
    markers = [f"m{uuid.uuid4().hex[:12]}" for _ in range(ctx.parallel)]
    task = ctx.tasks[0]
    if ctx.env.isolation_probe(task, markers[0]) is None:
        ctx.not_applicable("isolation_probe", "no writable state declared")
        return
    results = await asyncio.gather(
        *(
            ctx.run(
                ctx.tasks[i % len(ctx.tasks)],
                ctx.env.isolation_probe(ctx.tasks[i % len(ctx.tasks)], m),
            )
            for i, m in enumerate(markers)
        )
    )
    leaks = []
    for own, result in zip(markers, results, strict=True):
        seen = " ".join(tool_outputs(result))
        if own not in seen:
            leaks.append(f"session {own} cannot read its own write")
        leaks += [f"{other} seen by {own}" for other in markers if other != own and other in seen][
            :1
        ]
    ctx.verdict(
        "isolation_probe",
        not leaks,
        "; ".join(leaks[:3]) or f"{len(markers)} sessions wrote markers; none crossed",
    )


async def check_leakage(ctx: Context) -> None:
    """No secret field shows in the prompt, the instructions, the tool schemas, or any tool
    output or error of any rollout of the whole validation."""
    fields = ctx.env.secret_fields
    if not fields:
        ctx.verdict("no_ground_truth_leak", True, "no secret fields declared")
        return
    found: list[Leak] = []
    tasks = {t.task_id: t for t in ctx.tasks}
    shown: dict[str, dict[str, str]] = {}
    for task in ctx.tasks:
        session = HandSession(ctx.stack.client, ctx.base, task, "leak")
        if not await session.seed():
            raise RuntimeError(f"{ctx.base}: task {task.task_id} could not be seeded")
        await session.close()
        seed = session.seeded
        shown[task.task_id] = {
            "the prompt": json.dumps(task.responses_create_params, ensure_ascii=False),
            "the instructions": seed.get("instructions") or "",
            "the tool schemas": json.dumps(seed.get("tools"), ensure_ascii=False),
        }
    for task in ctx.tasks:
        secrets = [s for s in secrets_of(task, fields) if not _an_option(s, task, ctx, shown)]
        for surface, text in shown[task.task_id].items():
            leak = first_leak(text, secrets, "", surface, task.task_id)
            if leak is not None:
                found.append(leak)
    asked: dict[tuple[str, ...], bool] = {}  # a call made again elsewhere, once
    outputs = outputs_by_task(ctx.results)
    # a value honest play reads from a tool and sends on is a fact to discover, no secret
    read: set[tuple[str, str, str]] = set()
    for task in ctx.tasks:
        read |= discovered(ctx.reference_result(task.task_id), secrets_of(task, fields))
    for result in ctx.results:
        played = tasks.get(result.task_id)
        if played is None:
            continue
        label = ctx.labels.get(result.rollout_id, "a rollout")
        found += [
            leak
            for leak in rollout_leaks(result, secrets_of(played, fields), label, read)
            if not shown_not_as_the_truth(leak, played, ctx.tasks, outputs)
            and not await computed(ctx, leak, tasks, asked)
        ]
    aside = (
        "; not searched: what "
        + ", ".join(sorted({f"{tool} prints of {field}.{key}" for field, key, tool in read}))
        + ", which the reference reads and sends on (facts to discover: if so, take them "
        "out of secret_fields)"
        if read
        else ""
    )
    ctx.verdict(
        "no_ground_truth_leak",
        not found,
        (
            "; ".join(leak.describe() for leak in found[:3])
            if found
            else f"secret fields {', '.join(fields)} never shown in {len(ctx.results)} rollouts"
        )
        + aside,
    )


def _an_option(secret: Secret, task: Task, ctx: Context, shown: dict[str, dict[str, str]]) -> bool:
    """Whether another sampled task, whose truth in this field is another, shows the secret's
    value too: then it is one of the options every task lists ("answer Yes or No", the
    choices of a question), not this task's answer given away."""
    for other in ctx.tasks:
        if other.task_id == task.task_id:
            continue
        theirs = {s.text for s in secrets_of(other, [secret.field])}
        if secret.text in theirs:
            continue  # the same value is that task's truth too: no evidence either way
        if any(find(text, secret) for text in shown[other.task_id].values()):
            return True
    return False


def what_differs(control: Control, result: RunResult, threshold: float) -> str:
    """In plain words, how a control's rollout differs from what it declares, and what to do."""
    if result.mask_sample:
        return (
            f"expected {control.expect}, but the rollout was masked ({result.failure_kind}: "
            f"{(result.failure_reason or '')[:200]}): an infrastructure fault, not a verdict; "
            "fix what failed (the environment raised, a judge or peer did not answer) and run "
            "validate again"
        )
    failed = [c.name for c in result.checks if not c.passed]
    if control.expect == "pass":
        return (
            f"expected pass, got reward {result.reward:g} (a pass needs {threshold:g}); failed "
            f"checks: {', '.join(failed) or 'none'}: the verifier refuses an honest solution, "
            "or the control's script no longer solves the task"
        )
    if result.reward >= threshold - 1e-9:
        return (
            f"expected fail, got reward {result.reward:g} (a pass): the verifier pays for what "
            f"this control does; add the check that refuses it"
        )
    return (
        f"expected the floor ({control.role}), got reward {result.reward:g}: an escape must "
        "earn nothing, not a share"
    )


def at_capacity(result: RunResult) -> bool:
    """Whether a rollout was masked because the environment refused its session at capacity
    (429 `at_capacity`: a server's `max_sessions`, or a bridged peer's own limit)."""
    reason = result.failure_reason or ""
    return result.mask_sample and ("at_capacity" in reason or " 429" in reason)
