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
import inspect
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from proofgym.serving.settings import ResourcesSettings
from proofgym.wire.protocol import Task
from proofgym_stack.testing import in_process_stack
from proofgym_stack.validation.adversarial import (
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
from proofgym_stack.validation.core import (
    check_controls,
    check_determinism,
    check_floor_gap,
    check_isolation,
    check_leakage,
    check_negatives,
    check_sandbox_limits,
    check_well_formed,
)
from proofgym_stack.validation.dropped import check_dropped_keys
from proofgym_stack.validation.flag_flipped import check_failure_with_a_flag_flipped
from proofgym_stack.validation.floor import check_lying_pays_no_more, check_negatives_at_floor
from proofgym_stack.validation.honest_variants import (
    ErrorRate,
    check_honest_variants,
    false_positives,
    paid_rollouts,
)
from proofgym_stack.validation.in_parts import check_refused_failure_in_parts
from proofgym_stack.validation.information import check_information_flow
from proofgym_stack.validation.judging import check_judge
from proofgym_stack.validation.orders import check_order_of_a_failure
from proofgym_stack.validation.reads import check_reads
from proofgym_stack.validation.replay import check_cross_task_replay
from proofgym_stack.validation.respelled import check_violation_respelled
from proofgym_stack.validation.search import DEFAULT_BUDGET, check_search
from proofgym_stack.validation.steps import check_each_step_needed, check_no_tool_rescues


@dataclass
class EnvReport:
    """Everything `validate` found for one environment."""

    env: str
    version: str
    tasks: int
    #: how many tasks there were to sample from
    available: int = 0
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
    #: what the search found, one per root cause, each with its whole and minimal trajectory
    findings: list[dict[str, Any]] = field(default_factory=list)
    #: every rollout that had to fail and was paid (or masked), whole: label, task, reward,
    #: the trajectory as played (what a verdict's detail shortens; the first 40)
    paid: list[dict[str, Any]] = field(default_factory=list)

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

    def sampled(self) -> str:
        """`4 of 24 tasks sampled (--sample 24: about 90 s)`, or `all 4 tasks` when all were."""
        if self.available <= self.tasks:
            return f"all {self.tasks} tasks sampled"
        more = self.seconds / max(self.tasks, 1) * self.available
        return (
            f"{self.tasks} of {self.available} tasks sampled "
            f"(--sample {self.available}: about {more:.0f} s)"
        )

    def rates(self) -> str:
        """`; false negatives 0/12, false positives 0/340` (empty before any was measured)."""
        shown = [
            f"{kind.replace('_', ' ')}s {rate['wrong']}/{rate['judged']}"
            for kind, rate in self.error_rates.items()
            if rate.get("judged")
        ]
        return "; " + ", ".join(shown) if shown else ""


async def _judge(ctx: Context) -> None:
    await asyncio.to_thread(check_judge, ctx)  # a judge model is called synchronously


@dataclass(frozen=True)
class Check:
    """One check of a validation: its `name` (what `progress` is told), the function that
    runs it, and the names of the earlier checks whose results it takes, in order, after the
    context (`floor_gap` takes what `negatives` returned). A check's result is what its
    function returns; `canary` is the runner's own (the secret it planted on the host)."""

    name: str
    run: Callable[..., Awaitable[Any] | Any]
    needs: tuple[str, ...] = ()


#: every check `validate_env` runs, in order: the controls first (the attacks start from the
#: rollouts they leave on the context), and the checks that read every rollout at the end.
CHECKS: tuple[Check, ...] = (
    Check("sandbox_limits", check_sandbox_limits),
    Check("controls", check_controls),
    Check("reads", check_reads),
    Check("task_data:dropped_by_the_model", check_dropped_keys),
    Check("negatives", check_negatives),
    Check("floor_gap", check_floor_gap, needs=("negatives",)),
    Check("judge", _judge),
    Check("determinism", check_determinism),
    Check("isolation", check_isolation),
    Check("isolation_colliding", check_colliding_sessions),
    Check("violation_declared", check_violation_declared),
    Check("claim_check_recognises_reference", check_claim_recognised),
    Check("adversarial:hostile_arguments", check_hostile_arguments),
    Check("adversarial:claim_without_action", check_claims),
    Check("adversarial:call_flood", check_call_flood),
    Check("adversarial:hostile_generations", check_hostile_generations),
    Check("attacks", check_answers),
    Check("answer_slot", check_answer_slot),
    Check("honest_variants", check_honest_variants),
    Check("replay:cross_task", check_cross_task_replay),
    Check("steps:each_needed", check_each_step_needed),
    Check("steps:no_tool_rescues_a_failure", check_no_tool_rescues),
    Check("steps:order_of_a_failure", check_order_of_a_failure),
    Check("steps:violation_respelled", check_violation_respelled),
    Check("steps:refused_failure_in_parts", check_refused_failure_in_parts),
    Check("steps:failure_with_a_flag_flipped", check_failure_with_a_flag_flipped),
    Check("information_flow", check_information_flow),
    Check("floor:lying_pays_no_more_than_admitting", check_lying_pays_no_more),
    Check("search", check_search),
    # last of the rollouts' checks: they read every rollout run before them
    Check("leakage", check_leakage),
    Check("reward_well_formed", check_well_formed),
    Check("floor:negatives_at_floor", check_negatives_at_floor),
    Check("adversarial:no_host_secret_revealed", check_canary, needs=("canary",)),
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
    budget: int = DEFAULT_BUDGET,
) -> EnvReport:
    """Validate one environment instance on up to `sample` of `tasks`; `margin` (default: the
    environment's `floor_margin`) is the floor gap as a share of the reward range. `quick`:
    only the controls, the generic negatives and the floor gap (the edit loop's check; the
    full run is what proves an environment). `progress` is told each check as it starts.
    `budget`: how many mutants of the pass controls the search plays (seeded by `seed`)."""
    margin = env.floor_margin if margin is None else margin
    start = time.perf_counter()
    mine = [t for t in tasks if t.env == env.name]
    tasks = mine[:sample]
    report = EnvReport(env=env.name, version=env.version(), tasks=len(tasks), available=len(mine))
    if not tasks:
        report.verdicts.append(Verdict("tasks", False, f"no task for {env.name}"))
        return report
    settings = ResourcesSettings(max_sessions=max(1024, parallel * 4))
    with planted_canary() as canary:
        async with in_process_stack(resources_settings=settings, envs={env.name: env}) as stack:
            ctx = Context(stack, env, tasks, parallel, margin, seed, budget)
            results: dict[str, Any] = {"canary": canary}
            checks = [c for c in CHECKS if not quick or c.name in QUICK]
            for check in checks:
                if progress is not None:
                    progress(check.name)
                missing = [n for n in check.needs if results.get(n) is None]
                if missing:  # what it builds on did not run or crashed: no verdict to give
                    continue
                # One check that crashes fails its own verdict, not the whole validation.
                try:
                    outcome = check.run(ctx, *(results[n] for n in check.needs))
                    if inspect.isawaitable(outcome):
                        outcome = await outcome
                    results[check.name] = outcome
                except Exception as exc:
                    ctx.verdict(
                        check.name,
                        False,
                        f"the check itself failed: {type(exc).__name__}: {exc}"[:500],
                    )
            report.verdicts = ctx.verdicts
            report.findings = [f.to_json() for f in results.get("search") or []]
            report.paid = paid_rollouts(ctx)
            report.rollouts = len(ctx.results)
            variants = results.get("honest_variants")
            report.error_rates = {
                "false_negative": (variants or ErrorRate()).to_json(),
                "false_positive": false_positives(ctx).to_json(),
            }
            report.rollouts_seen = sorted(
                (ctx.labels.get(r.rollout_id, ""), r.task_id, r.reward, r.mask_sample)
                for r in ctx.results
            )
    report.seconds = time.perf_counter() - start
    return report
