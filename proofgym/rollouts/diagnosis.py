"""Why a training run's reward did not move, in the words of `proofgym profile`: the share of
GRPO groups whose rollouts all got the same reward (no signal), the share of rollouts that
call a tool, the share cut at the length or step limit, and the check that fails most.

A GRPO group is one task's rollouts of one step; `as_groups` keys each rollout by its group,
so that `profiling.profile_env` counts zero-variance groups as the trainer met them.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from proofgym.rollouts.profiling import Sample, profile_env

#: a rise of the per-step mean reward (last 10% of steps minus first 10%) below which
#: `proofgym learn` says the reward did not move
FLAT_RISE = 0.05


def as_groups(steps: Sequence[Sequence[Sample]]) -> list[Sample]:
    """Every sample of every step, its task id made `task@step N` (one GRPO group)."""
    return [
        dataclasses.replace(s, task_id=f"{s.task_id}@step{n}")
        for n, step in enumerate(steps, start=1)
        for s in step
    ]


def _worst_check(checks: dict[str, float]) -> tuple[str, float] | None:
    failing = [(name, rate) for name, rate in checks.items() if rate < 1]
    return min(failing, key=lambda kv: (kv[1], kv[0])) if failing else None


def explain(env: str, p: dict[str, Any]) -> str:
    """One paragraph on `profile_env`'s result `p` for `env`: why a policy learns nothing."""
    groups = [t for t in p["per_task"] if t["usable"] >= 2]
    flat = sum(t["zero_variance"] for t in groups)
    parts = [
        f"{env}: {p['zero_variance_share'] or 0:.0%} of GRPO groups ({flat} of {len(groups)}) "
        "gave every rollout the same reward, so they carry no learning signal"
    ]
    if p["tool_call_share"] is not None:
        parts.append(f"{p['tool_call_share']:.0%} of rollouts called a tool")
    if p["truncated_share"] is not None:
        parts.append(f"{p['truncated_share']:.0%} were cut at the length or step limit")
    worst = _worst_check(p["checks"])
    if worst is not None:
        parts.append(f"the check failing most is `{worst[0]}` (fails {1 - worst[1]:.0%})")
    mean = p["reward"]["mean"]
    if mean is not None:
        parts.append(f"mean reward {mean:.3g}")
    return "; ".join(parts) + "."


def diagnose(steps: Sequence[Sequence[Sample]]) -> list[str]:
    """`explain` for each environment of a run's rollouts, one list of samples a step."""
    by_env: dict[str, list[Sample]] = defaultdict(list)
    for s in as_groups(steps):
        by_env[s.env].append(s)
    return [explain(env, profile_env(env, samples)) for env, samples in sorted(by_env.items())]


def advice(steps: Sequence[Sequence[Sample]], has_tools: bool) -> str:
    """What to try, from the same figures: a warm-up when the environment `has_tools` and no
    rollout calls one, a longer completion when most are cut, and more chances."""
    samples = [s for step in steps for s in step if not s.masked]
    if not samples:
        return "every rollout was masked: see the failure kinds with `proofgym profile`"
    tips = []
    if has_tools and all(s.tool_calls == 0 for s in samples):
        tips.append("--sft N first teaches the tools on the environment's own controls")
    if sum(s.truncated for s in samples) / len(samples) >= 0.5:
        tips.append("--completion-length lets the policy finish")
    tips.append("--generations and --steps give a rare success more chances")
    return "try: " + "; ".join(tips)
