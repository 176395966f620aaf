"""The checks of `proofgym validate`, run through the real services (in-process, scripted model).

For one environment and a sample of its tasks:
- every control gets the outcome it declares, and every generic negative fails;
- the reward is well formed (finite, in range, no infrastructure failure);
- the reference beats the best negative by a margin (floor gap);
- verifying the same trajectory again gives the same result (determinism);
- many sessions at once get exactly what each gets alone, and no session's writes appear in
  another's (isolation);
- no ground-truth field reaches what the policy sees (leakage);
- the adversarial stage (adversarial.py): a canary planted on the host never shows, hostile
  tool arguments end scored and unmasked, a bare success claim fails.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from proofgym.serving.settings import ResourcesSettings
from proofgym.wire.protocol import Control, RunResult, Task
from proofgym_stack.testing import in_process_stack
from proofgym_stack.validation.adversarial import (
    Canary,
    check_call_flood,
    check_canary,
    check_claim_recognised,
    check_claims,
    check_hostile_arguments,
    check_hostile_generations,
    check_violation_declared,
    planted_canary,
)
from proofgym_stack.validation.answer_slot import check_answer_slot
from proofgym_stack.validation.answers import check_answers
from proofgym_stack.validation.collisions import check_colliding_sessions
from proofgym_stack.validation.context import Context, Verdict
from proofgym_stack.validation.floor import check_lying_pays_no_more, check_negatives_at_floor
from proofgym_stack.validation.honest_variants import (
    ErrorRate,
    check_honest_variants,
    false_positives,
)
from proofgym_stack.validation.information import check_information_flow
from proofgym_stack.validation.judging import check_judge
from proofgym_stack.validation.leaks import Leak, first_leak, rollout_leaks, secrets_of
from proofgym_stack.validation.negatives import generic_negatives
from proofgym_stack.validation.replay import check_cross_task_replay
from proofgym_stack.validation.scripts import tool_outputs
from proofgym_stack.validation.sessions import HandSession, replay_calls
from proofgym_stack.validation.signature import signature
from proofgym_stack.validation.steps import check_each_step_needed, check_no_tool_rescues


@dataclass
class EnvReport:
    """Everything `validate` found for one environment."""

    env: str
    version: str
    tasks: int
    rollouts: int = 0
    seconds: float = 0.0
    verdicts: list[Verdict] = field(default_factory=list)
    #: how often the verifier was wrong each way: `false_negative` (honest variants of passing
    #: controls that failed) and `false_positive` (rollouts that had to fail, paid a pass),
    #: each `{judged, wrong, rate}`
    error_rates: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: (what each rollout was, its task, reward, masked): for comparing two validations of
    #: the same environment (the mutation bench); not in `to_json`
    rollouts_seen: list[tuple[str, str, float, bool]] = field(default_factory=list, repr=False)

    @property
    def passed(self) -> bool:
        """True when every check passed."""
        return bool(self.verdicts) and all(v.passed for v in self.verdicts)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict of the report (each verdict with its `outcome`)."""
        out = {**asdict(self), "passed": self.passed}
        out.pop("rollouts_seen")
        for verdict, row in zip(self.verdicts, out["verdicts"], strict=True):
            row["outcome"] = verdict.outcome
        return out

    def summary(self) -> str:
        """One closing line: `math: 28/28 verdicts pass (3 n/a)`, or the failed ones by name."""
        failed = [v.name for v in self.verdicts if not v.passed]
        total = len(self.verdicts)
        na = sum(1 for v in self.verdicts if not v.applicable)
        if self.passed:
            line = f"{self.env}: {total - na}/{total - na} verdicts pass" + (
                f" ({na} n/a)" if na else ""
            )
        else:
            line = f"{self.env}: FAILED {len(failed)}/{total}: {', '.join(failed)}"
        return line + self.rates()

    def rates(self) -> str:
        """`; false negatives 0/12, false positives 0/340` (empty before any was measured)."""
        shown = [
            f"{kind.replace('_', ' ')}s {rate['wrong']}/{rate['judged']}"
            for kind, rate in self.error_rates.items()
            if rate.get("judged")
        ]
        return "; " + ", ".join(shown) if shown else ""


class _Validator(Context):
    """The core checks of a validation, on the context every attack receives, and what
    one check leaves for a later one (the negatives' best reward for the floor gap, the
    honest variants' false negatives for the report, the planted canary)."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.best_negative: dict[str, float] = {}
        self.false_negatives = ErrorRate()
        self.canary: Canary | None = None

    async def check_controls(self) -> None:
        by_name: dict[str, list[str]] = {}
        runs: dict[str, int] = {}
        for task in self.tasks:
            answer = await self.post(f"{self.base}/controls", {"task": task.model_dump()})
            controls = [Control.model_validate(c) for c in answer["controls"]]
            self.controls[task.task_id] = controls
            for control in controls:
                result = await self.run(task, control.script, f"control {control.name}")
                self.expected[result.rollout_id] = control.expect
                self.solo[(task.task_id, control.name)] = result
                runs[control.name] = runs.get(control.name, 0) + 1
                # a masked rollout is no verdict: it proves neither a pass nor a fail
                ok = not result.mask_sample and self.passes(result) == (control.expect == "pass")
                if control.role == "exploit":  # an exploit earns the floor, no more
                    floor = self.env.reward_range[0]
                    ok = ok and control.expect == "fail" and result.reward <= floor + 1e-9
                if not ok:
                    by_name.setdefault(control.name, []).append(
                        f"{task.task_id}: {what_differs(control, result, self.threshold)}"
                    )
                else:
                    by_name.setdefault(control.name, [])
        declared = {c.name: c.expect for cs in self.controls.values() for c in cs}
        has_ref = all(any(c.role == "reference" for c in cs) for cs in self.controls.values())
        has_neg = "fail" in declared.values()
        self.verdict(
            "controls_declared",
            has_ref and has_neg,
            f"{len(declared)} controls: {', '.join(sorted(declared))}"
            if has_ref and has_neg
            else "every task needs a reference control (named 'reference', or role='reference'), "
            "and one control expected to fail at least",
        )
        for name, problems in sorted(by_name.items()):
            self.verdict(
                f"control:{name}",
                not problems,
                "; ".join(problems[:3]) or f"as declared on {runs[name]} tasks",
            )

    async def check_negatives(self) -> dict[str, float]:
        best: dict[str, float] = {}
        failures: dict[str, list[str]] = {}
        for task in self.tasks:
            top = -math.inf
            tools = self.env.task_tool_schemas(task)
            for name, script in generic_negatives(task, tools, self.seed).items():
                chance = name == "random_tool_calls" and self.env.random_play_can_pass
                result = await self.run(
                    task, script, f"negative {name}", expect=None if chance else "fail"
                )
                top = max(top, result.reward)
                failures.setdefault(name, [])
                if self.passes(result) and not chance:
                    failures[name].append(f"{task.task_id}: reward {result.reward:g}")
            for control in self.controls.get(task.task_id, []):
                if control.expect == "fail":
                    top = max(top, self.solo[(task.task_id, control.name)].reward)
            best[task.task_id] = top
        for name, problems in sorted(failures.items()):
            self.verdict(
                f"negative:{name}",
                not problems,
                "passed: " + "; ".join(problems[:3]) if problems else "fails as it must",
            )
        return best

    def check_floor_gap(self, best_negative: dict[str, float]) -> None:
        lo, hi = self.env.reward_range
        need = self.margin * (hi - lo)
        gaps = []
        for task in self.tasks:
            ref = self.reference_result(task.task_id)
            if ref is not None:
                gaps.append(ref.reward - best_negative[task.task_id])
        ok = bool(gaps) and min(gaps) >= need - 1e-9
        detail = (
            f"smallest gap {min(gaps):g}, needed {need:g}"
            if gaps
            else "no reference control to measure from"
        )
        self.verdict("floor_gap", ok, detail)

    def check_sandbox_limits(self) -> None:
        """Say what holds the limits of code the policy writes, where the environment runs any
        (the kernel's cgroup per run, or a process watcher that misses what no live process
        holds): a report, never a claim the host does not back."""
        mode = self.env.sandbox_mode()
        if mode is None:
            self.not_applicable("sandbox_limits", "runs no policy code")
        else:
            self.verdict("sandbox_limits", not mode.startswith("unavailable"), mode)

    def check_well_formed(self) -> None:
        lo, hi = self.env.reward_range
        problems = []
        for r in self.results:
            if r.mask_sample:
                problems.append(f"{r.task_id}: {r.failure_kind}: {r.failure_reason}")
            elif not math.isfinite(r.reward) or not lo - 1e-9 <= r.reward <= hi + 1e-9:
                problems.append(f"{r.task_id}: reward {r.reward} outside [{lo}, {hi}]")
            elif r.reward_components and abs(sum(r.reward_components.values()) - r.reward) > 1e-9:
                problems.append(f"{r.task_id}: components do not sum to the reward")
        self.verdict(
            "reward_well_formed",
            not problems,
            "; ".join(problems[:3]) or f"{len(self.results)} rollouts finite, in range",
        )

    async def replay(self, task: Task, original: RunResult) -> list[str]:
        """Replay a rollout's tool calls in a fresh session, verify twice; list differences."""
        session = HandSession(self.stack.client, self.base, task, "replay")
        if not await session.seed():
            return ["the replay's session could not be seeded"]
        problems = []
        try:
            tool_names = {t["name"] for t in self.env.task_tool_schemas(task)}
            for name, now, then in await replay_calls(session, original.response, tool_names):
                if self.env.deterministic_tools and now != then:
                    problems.append(f"{name} answered differently on replay")
            response = original.response.model_dump(mode="json")
            first = await session.verify(response)
            second = await session.verify(response)
            if first != second:
                problems.append("verifying twice gave two results")
            if signature(first) != signature(original):
                problems.append(
                    f"replay got reward {first['reward']:g}, run got {original.reward:g}"
                )
        finally:
            await session.close()
        return problems

    async def check_determinism(self) -> None:
        problems = []
        for (task_id, name), result in self.solo.items():
            task = next(t for t in self.tasks if t.task_id == task_id)
            for p in await self.replay(task, result):
                problems.append(f"{task_id}/{name}: {p}")
        self.verdict(
            "determinism",
            not problems,
            "; ".join(problems[:3]) or f"{len(self.solo)} trajectories replayed",
        )

    async def check_isolation(self) -> None:
        jobs = list(self.solo.items())
        if not jobs:
            self.verdict("isolation_parallel", False, "no control to run in parallel")
            return
        picked = [jobs[i % len(jobs)] for i in range(self.parallel)]
        tasks = {t.task_id: t for t in self.tasks}
        results = await asyncio.gather(
            *(
                self.run(
                    tasks[tid],
                    next(c for c in self.controls[tid] if c.name == name).script,
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
            if same and self.env.deterministic_tools:
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
            self.not_applicable("isolation_parallel", f"every session{capacity[1:]}")
        else:
            self.verdict(
                "isolation_parallel",
                not problems,
                (
                    f"{len(problems)}/{ran} differ: " + "; ".join(problems[:3])
                    if problems
                    else f"{ran} sessions at once, each as alone"
                )
                + capacity,
            )
        await self.check_probe()

    async def check_probe(self) -> None:
        markers = [f"m{uuid.uuid4().hex[:12]}" for _ in range(self.parallel)]
        task = self.tasks[0]
        if self.env.isolation_probe(task, markers[0]) is None:
            self.not_applicable("isolation_probe", "no writable state declared")
            return
        results = await asyncio.gather(
            *(
                self.run(
                    self.tasks[i % len(self.tasks)],
                    self.env.isolation_probe(self.tasks[i % len(self.tasks)], m),
                )
                for i, m in enumerate(markers)
            )
        )
        leaks = []
        for own, result in zip(markers, results, strict=True):
            seen = " ".join(tool_outputs(result))
            if own not in seen:
                leaks.append(f"session {own} cannot read its own write")
            leaks += [
                f"{other} seen by {own}" for other in markers if other != own and other in seen
            ][:1]
        self.verdict(
            "isolation_probe",
            not leaks,
            "; ".join(leaks[:3]) or f"{len(markers)} sessions wrote markers; none crossed",
        )

    async def check_leakage(self) -> None:
        """No secret field shows in the prompt, the instructions, the tool schemas, or any tool
        output or error of any rollout of the whole validation."""
        fields = self.env.secret_fields
        if not fields:
            self.verdict("no_ground_truth_leak", True, "no secret fields declared")
            return
        found: list[Leak] = []
        tasks = {t.task_id: t for t in self.tasks}
        for task in self.tasks:
            session = HandSession(self.stack.client, self.base, task, "leak")
            if not await session.seed():
                raise RuntimeError(f"{self.base}: task {task.task_id} could not be seeded")
            await session.close()
            seed = session.seeded
            secrets = secrets_of(task, fields)
            surfaces = {
                "the prompt": json.dumps(task.responses_create_params, ensure_ascii=False),
                "the instructions": seed.get("instructions") or "",
                "the tool schemas": json.dumps(seed.get("tools"), ensure_ascii=False),
            }
            for surface, text in surfaces.items():
                leak = first_leak(text, secrets, "", surface, task.task_id)
                if leak is not None:
                    found.append(leak)
        for result in self.results:
            played = tasks.get(result.task_id)
            if played is None:
                continue
            label = self.labels.get(result.rollout_id, "a rollout")
            found += rollout_leaks(result, secrets_of(played, fields), label)
        self.verdict(
            "no_ground_truth_leak",
            not found,
            "; ".join(leak.describe() for leak in found[:3])
            or f"secret fields {', '.join(fields)} never shown in {len(self.results)} rollouts",
        )


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


async def _negatives(v: _Validator) -> None:
    v.best_negative = await v.check_negatives()


async def _honest_variants(v: _Validator) -> None:
    v.false_negatives = await check_honest_variants(v)


async def _judge(v: _Validator) -> None:
    await asyncio.to_thread(check_judge, v)  # a judge model is called synchronously


#: one check of a validation: its name (what `progress` is told) and what runs it
Check = tuple[str, Callable[[_Validator], Awaitable[None] | None]]

#: every check `validate_env` runs, in order. Order matters only where a check reads what an
#: earlier one left on the context: the controls first (the attacks start from them), the
#: negatives before the floor gap, and the checks that read every rollout at the end.
CHECKS: tuple[Check, ...] = (
    ("sandbox_limits", _Validator.check_sandbox_limits),
    ("controls", _Validator.check_controls),
    ("negatives", _negatives),
    ("floor_gap", lambda v: v.check_floor_gap(v.best_negative)),
    ("judge", _judge),
    ("determinism", _Validator.check_determinism),
    ("isolation", _Validator.check_isolation),
    ("isolation_colliding", check_colliding_sessions),
    ("violation_declared", check_violation_declared),
    ("claim_check_recognises_reference", check_claim_recognised),
    ("adversarial:hostile_arguments", check_hostile_arguments),
    ("adversarial:claim_without_action", check_claims),
    ("adversarial:call_flood", check_call_flood),
    ("adversarial:hostile_generations", check_hostile_generations),
    ("attacks", check_answers),
    ("answer_slot", check_answer_slot),
    ("honest_variants", _honest_variants),
    ("replay:cross_task", check_cross_task_replay),
    ("steps:each_needed", check_each_step_needed),
    ("steps:no_tool_rescues_a_failure", check_no_tool_rescues),
    ("information_flow", check_information_flow),
    ("floor:lying_pays_no_more_than_admitting", check_lying_pays_no_more),
    # last of the rollouts' checks: they read every rollout run before them
    ("leakage", _Validator.check_leakage),
    ("reward_well_formed", _Validator.check_well_formed),
    ("floor:negatives_at_floor", check_negatives_at_floor),
    (
        "adversarial:no_host_secret_revealed",
        lambda v: check_canary(v, v.canary) if v.canary else None,
    ),
)

QUICK = frozenset({"controls", "negatives", "floor_gap", "reward_well_formed"})


async def validate_env(
    env: Any,
    tasks: list[Task],
    *,
    parallel: int = 256,
    sample: int = 4,
    margin: float | None = None,
    seed: int = 0,
    quick: bool = False,
    progress: Callable[[str], None] | None = None,
) -> EnvReport:
    """Validate one environment instance on up to `sample` of `tasks`; `margin` (default: the
    environment's `floor_margin`) is the floor gap as a share of the reward range. `quick`:
    only the controls, the generic negatives and the floor gap (the edit loop's check; the
    full run is what proves an environment). `progress` is told each check as it starts."""
    margin = env.floor_margin if margin is None else margin
    start = time.perf_counter()
    tasks = [t for t in tasks if t.env == env.name][:sample]
    report = EnvReport(env=env.name, version=env.version(), tasks=len(tasks))
    if not tasks:
        report.verdicts.append(Verdict("tasks", False, f"no task for {env.name}"))
        return report
    settings = ResourcesSettings(max_sessions=max(1024, parallel * 4))
    with planted_canary() as canary:
        async with in_process_stack(resources_settings=settings, envs={env.name: env}) as stack:
            v = _Validator(stack, env, tasks, parallel, margin, seed)
            v.canary = canary
            checks = list(CHECKS)
            if quick:
                checks = [c for c in checks if c[0] in QUICK]
            for name, check in checks:
                if progress is not None:
                    progress(name)
                # One check that crashes fails its own verdict, not the whole validation.
                try:
                    outcome = check(v)
                    if outcome is not None:
                        await outcome
                except Exception as exc:
                    v.verdict(
                        name, False, f"the check itself failed: {type(exc).__name__}: {exc}"[:500]
                    )
            report.verdicts = v.verdicts
            report.rollouts = len(v.results)
            report.error_rates = {
                "false_negative": v.false_negatives.to_json(),
                "false_positive": false_positives(v).to_json(),
            }
            report.rollouts_seen = sorted(
                (v.labels.get(r.rollout_id, ""), r.task_id, r.reward, r.mask_sample)
                for r in v.results
            )
    report.seconds = time.perf_counter() - start
    return report
