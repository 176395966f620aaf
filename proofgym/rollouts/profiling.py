"""Reward profiling of stored rollouts: look before you train.

From a rollout store: per environment and per task, the reward distribution and its mean with
a 95% confidence interval, pass@k for every k the repeats allow (the unbiased estimator), the
share of task groups whose rewards are all equal (no GRPO learning signal), reward against
output length and tool calls (Spearman, with an alarm when reward rises with length), each
check's pass rate, failure kinds, and the tasks that are too easy or too hard. Two stores
compare as two policies: the difference of means with its interval, and whether they separate.

Pure functions over plain data; no I/O but `load_samples`.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from proofgym.rollouts.store import RolloutStore

#: Spearman's rho at or above which (with at least LENGTH_ALARM_MIN usable rollouts) reward
#: is said to rise with output length: a sign of length hacking, or of a verifier that pays
#: for verbosity.
LENGTH_ALARM_RHO = 0.3
LENGTH_ALARM_MIN = 10
HISTOGRAM_BINS = 10
SCHEMA_VERSION = 1

# Two-sided 95% critical values of Student's t by degrees of freedom (1..30); 1.96 beyond.
_T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
        2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
        2.060, 2.056, 2.052, 2.048, 2.045, 2.042]  # fmt: skip


@dataclass(frozen=True)
class Sample:
    """One stored rollout, reduced to what profiling reads."""

    env: str
    task_id: str
    reward: float
    masked: bool
    failure_kind: str | None
    passed: bool
    output_length: int
    tool_calls: int
    checks: tuple[tuple[str, bool], ...]
    turns: int = 0  # model calls the rollout made
    truncated: bool = False  # ended by the step or length limit, not by a final message


def _generated_text_length(output: list[dict[str, Any]]) -> int:
    """Characters the model wrote (messages, reasoning, call arguments), not tool outputs."""
    total = 0
    for item in output:
        kind = item.get("type")
        if kind == "function_call":
            total += len(str(item.get("arguments", "")))
        elif kind in ("message", "reasoning"):
            for part in item.get("content") or item.get("summary") or []:
                if isinstance(part, dict):
                    total += len(str(part.get("text", "")))
    return total


def passes(
    reward: float, checks: Iterable[bool], masked: bool, pass_threshold: float | None
) -> bool:
    """The one rule of a pass: not masked, and the reward reaches `pass_threshold` (None: a
    positive reward with every check passed)."""
    if masked:
        return False
    if pass_threshold is None:
        return reward > 0 and all(checks)
    return reward >= pass_threshold - 1e-9


#: the ways a rollout ends that are a limit, not the policy's own end
TRUNCATED = frozenset({"max_steps", "length"})


def env_figures(samples: list[Sample]) -> dict[str, Any]:
    """What a mix is judged by, for one environment's rollouts: how many, the mean reward of
    the usable ones, the mean turns, and the shares truncated (of the usable) and masked."""
    usable = [s for s in samples if not s.masked]
    n = len(usable)
    return {
        "rollouts": len(samples),
        "reward": _round(sum(s.reward for s in usable) / n) if n else None,
        "pass_rate": _round(sum(s.passed for s in usable) / n) if n else None,
        "turns": _round(sum(s.turns for s in usable) / n) if n else None,
        "truncated_share": _round(sum(s.truncated for s in usable) / n) if n else None,
        "masked_share": _round((len(samples) - n) / len(samples)) if samples else None,
        **_verify_errors(samples),
    }


#: a share of rollouts masked by a verify that failed past which every report warns: a
#: verifier that raises on what a policy can send lets the policy turn a 0 into a mask
VERIFY_ERROR_WARN = 0.01


def _verify_errors(samples: list[Sample]) -> dict[str, Any]:
    errors = [s for s in samples if s.masked and s.failure_kind == "verify_error"]
    return {
        "verify_error_share": _round(len(errors) / len(samples)) if samples else None,
        "verify_error_tasks": sorted({s.task_id for s in errors}),
    }


def verify_error_alarm(figures: dict[str, Any]) -> str | None:
    """`verify errors masked 3% of rollouts (tasks a, b)` past VERIFY_ERROR_WARN, else None."""
    share = figures.get("verify_error_share") or 0.0
    if share <= VERIFY_ERROR_WARN:
        return None
    tasks = figures.get("verify_error_tasks") or []
    named = ", ".join(tasks[:5]) + (f" and {len(tasks) - 5} more" if len(tasks) > 5 else "")
    return f"verify errors masked {share:.0%} of rollouts (tasks {named}): fix the verifier"


def figures_by_env(samples: Iterable[Sample]) -> dict[str, dict[str, Any]]:
    """`env_figures` of each environment in `samples`, by name."""
    by_env: dict[str, list[Sample]] = defaultdict(list)
    for s in samples:
        by_env[s.env].append(s)
    return {env: env_figures(group) for env, group in sorted(by_env.items())}


def sample_of(record: dict[str, Any], pass_threshold: float | None) -> Sample:
    """The Sample of one RunResult record. A rollout passes when it is not masked and its
    reward reaches `pass_threshold` (None: a positive reward with every check passed)."""
    output = (record.get("response") or {}).get("output") or []
    usage = record.get("usage") or {}
    tokens = int(usage.get("output_tokens") or 0)
    checks = tuple((str(c["name"]), bool(c["passed"])) for c in record.get("checks") or [])
    masked = bool(record.get("mask_sample"))
    reward = float(record.get("reward") or 0.0)
    return Sample(
        env=str(record.get("env")),
        task_id=str(record.get("task_id")),
        reward=reward,
        masked=masked,
        failure_kind=record.get("failure_kind"),
        passed=passes(reward, (ok for _, ok in checks), masked, pass_threshold),
        output_length=tokens or _generated_text_length(output),
        tool_calls=sum(1 for i in output if i.get("type") == "function_call"),
        checks=checks,
        turns=int(record.get("num_steps") or 0),
        truncated=record.get("termination_reason") in TRUNCATED,
    )


def load_samples(path: Path, threshold: Callable[[str], float | None]) -> list[Sample]:
    """Every rollout of the store at `path`; `threshold(env)` is the env's pass threshold."""
    store = RolloutStore(path)
    try:
        return [sample_of(row["record"], threshold(str(row["env"]))) for row in store.rows()]
    finally:
        store.close()


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased estimate of pass@k from n samples of which c passed (Chen et al., 2021)."""
    if k > n:
        raise ValueError(f"pass@{k} needs at least {k} samples, got {n}")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def mean_ci(values: list[float]) -> tuple[float, float, float]:
    """Mean and its 95% confidence interval (Student's t); one value: the interval is it."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, mean, mean
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    t = _T95[n - 2] if n - 1 <= len(_T95) else 1.96
    half = t * sd / math.sqrt(n)
    return mean, mean - half, mean + half


def _ranks(values: list[float]) -> list[float]:
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1  # ties share their average rank
        i = j + 1
    return ranks


def spearman(x: list[float], y: list[float]) -> float | None:
    """Spearman's rank correlation, or None with fewer than 3 points or a constant side."""
    if len(x) != len(y) or len(x) < 3:
        return None
    rx, ry = _ranks(x), _ranks(y)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    sx = math.sqrt(sum((a - mx) ** 2 for a in rx))
    sy = math.sqrt(sum((b - my) ** 2 for b in ry))
    if sx == 0 or sy == 0:
        return None
    return sxy / (sx * sy)


def histogram(values: list[float], bins: int = HISTOGRAM_BINS) -> dict[str, list[float]]:
    """`{"edges": [...bins + 1], "counts": [...bins]}` over the values' range."""
    lo, hi = min(values), max(values)
    if hi == lo:
        return {"edges": [lo, hi], "counts": [float(len(values))]}
    width = (hi - lo) / bins
    counts = [0.0] * bins
    for v in values:
        counts[min(int((v - lo) / width), bins - 1)] += 1
    return {"edges": [lo + i * width for i in range(bins + 1)], "counts": counts}


def _round(value: float | None, digits: int = 6) -> float | None:
    return None if value is None else round(value, digits)


def _pass_curve(groups: Iterable[list[Sample]]) -> dict[str, float]:
    """pass@k averaged over groups, for every k that every group's size allows."""
    usable = [[s for s in g if not s.masked] for g in groups]
    usable = [g for g in usable if g]
    if not usable:
        return {}
    top = min(len(g) for g in usable)
    return {
        str(k): _round(
            sum(pass_at_k(len(g), sum(s.passed for s in g), k) for g in usable) / len(usable)
        )
        or 0.0
        for k in range(1, top + 1)
    }


def profile_task(task_id: str, samples: list[Sample]) -> dict[str, Any]:
    """The profile of one task's group of rollouts."""
    usable = [s for s in samples if not s.masked]
    rewards = [s.reward for s in usable]
    mean, lo, hi = mean_ci(rewards) if rewards else (None, None, None)
    return {
        "task_id": task_id,
        "rollouts": len(samples),
        "usable": len(usable),
        "mean": _round(mean),
        "ci95": [_round(lo), _round(hi)],
        "pass_rate": _round(sum(s.passed for s in usable) / len(usable)) if usable else None,
        "zero_variance": len(usable) >= 2 and len(set(rewards)) == 1,
        "pass_at_k": _pass_curve([samples]),
    }


def profile_env(env: str, samples: list[Sample]) -> dict[str, Any]:
    """The profile of one environment's rollouts (and each of its tasks)."""
    usable = [s for s in samples if not s.masked]
    by_task: dict[str, list[Sample]] = defaultdict(list)
    for s in samples:
        by_task[s.task_id].append(s)
    tasks = [profile_task(t, g) for t, g in sorted(by_task.items())]
    groups = [t for t in tasks if t["usable"] >= 2]
    rewards = [s.reward for s in usable]
    mean, lo, hi = mean_ci(rewards) if rewards else (None, None, None)
    rho_len = spearman([float(s.output_length) for s in usable], rewards)
    rho_calls = spearman([float(s.tool_calls) for s in usable], rewards)
    check_runs: Counter[str] = Counter()
    check_passes: Counter[str] = Counter()
    for s in usable:
        for name, ok in s.checks:
            check_runs[name] += 1
            check_passes[name] += ok
    graded = [t for t in tasks if t["pass_rate"] is not None]
    figures = env_figures(samples)
    return {
        "env": env,
        "rollouts": len(samples),
        "usable": len(usable),
        "turns": figures["turns"],
        "truncated_share": figures["truncated_share"],
        "masked_share": figures["masked_share"],
        "verify_error_share": figures["verify_error_share"],
        "verify_error_tasks": figures["verify_error_tasks"],
        "tasks": len(tasks),
        "masked": dict(Counter(s.failure_kind or "unknown" for s in samples if s.masked)),
        "reward": {
            "mean": _round(mean),
            "ci95": [_round(lo), _round(hi)],
            "min": min(rewards) if rewards else None,
            "max": max(rewards) if rewards else None,
            "histogram": histogram(rewards) if rewards else None,
        },
        "pass_rate": _round(sum(s.passed for s in usable) / len(usable)) if usable else None,
        "pass_at_k": _pass_curve(by_task.values()),
        "zero_variance_share": (
            _round(sum(t["zero_variance"] for t in groups) / len(groups)) if groups else None
        ),
        "reward_vs_length": _round(rho_len),
        "reward_vs_tool_calls": _round(rho_calls),
        "tool_call_share": (
            _round(sum(s.tool_calls > 0 for s in usable) / len(usable)) if usable else None
        ),
        "length_alarm": rho_len is not None
        and len(usable) >= LENGTH_ALARM_MIN
        and rho_len >= LENGTH_ALARM_RHO,
        "checks": {n: _round(check_passes[n] / check_runs[n]) for n in sorted(check_runs)},
        "too_easy": [t["task_id"] for t in graded if t["pass_rate"] == 1.0],
        "too_hard": [t["task_id"] for t in graded if t["pass_rate"] == 0.0],
        "per_task": tasks,
        "points": [
            [s.output_length, s.tool_calls, s.reward] for s in usable[:5000]
        ],  # for the report's scatter plots
    }


def profile(samples: list[Sample]) -> dict[str, Any]:
    """The profile of every environment in `samples` (the JSON `proofgym profile` prints)."""
    by_env: dict[str, list[Sample]] = defaultdict(list)
    for s in samples:
        by_env[s.env].append(s)
    return {
        "version": SCHEMA_VERSION,
        "envs": {env: profile_env(env, group) for env, group in sorted(by_env.items())},
    }


def _difference(a: list[float], b: list[float]) -> tuple[float, float, float] | None:
    """Mean of a minus mean of b with a 95% interval (Welch), or None without data."""
    if not a or not b:
        return None
    ma, mb = sum(a) / len(a), sum(b) / len(b)
    va = sum((x - ma) ** 2 for x in a) / (len(a) - 1) if len(a) > 1 else 0.0
    vb = sum((x - mb) ** 2 for x in b) / (len(b) - 1) if len(b) > 1 else 0.0
    half = 1.96 * math.sqrt(va / len(a) + vb / len(b))
    return ma - mb, ma - mb - half, ma - mb + half


def compare(first: list[Sample], second: list[Sample]) -> dict[str, Any]:
    """Two policies side by side, per environment and task: the difference of mean rewards
    (first minus second) with its 95% interval; `separated` when the interval excludes 0.
    Tasks that both policies solve every time, or neither ever does, are listed."""
    out: dict[str, Any] = {}
    envs = sorted({s.env for s in first} | {s.env for s in second})
    for env in envs:
        a = [s for s in first if s.env == env and not s.masked]
        b = [s for s in second if s.env == env and not s.masked]
        diff = _difference([s.reward for s in a], [s.reward for s in b])
        tasks = sorted({s.task_id for s in a} | {s.task_id for s in b})
        per_task = []
        for task in tasks:
            ta = [s for s in a if s.task_id == task]
            tb = [s for s in b if s.task_id == task]
            d = _difference([s.reward for s in ta], [s.reward for s in tb])
            per_task.append(
                {
                    "task_id": task,
                    "mean_first": _round(sum(s.reward for s in ta) / len(ta)) if ta else None,
                    "mean_second": _round(sum(s.reward for s in tb) / len(tb)) if tb else None,
                    "difference": _round(d[0]) if d else None,
                    "all_solve": bool(ta and tb) and all(s.passed for s in ta + tb),
                    "none_solves": bool(ta and tb) and not any(s.passed for s in ta + tb),
                }
            )
        out[env] = {
            "mean_first": _round(sum(s.reward for s in a) / len(a)) if a else None,
            "mean_second": _round(sum(s.reward for s in b) / len(b)) if b else None,
            "difference": _round(diff[0]) if diff else None,
            "ci95": [_round(diff[1]), _round(diff[2])] if diff else [None, None],
            "separated": diff is not None and (diff[1] > 0 or diff[2] < 0),
            "every_policy_solves": [t["task_id"] for t in per_task if t["all_solve"]],
            "no_policy_solves": [t["task_id"] for t in per_task if t["none_solves"]],
            "per_task": per_task,
        }
    return out
