"""Learnability against a control: did the policy learn from the environment's reward, or
would it have risen as much on a reward that carries no information?

A control run trains the same model, with the same seeds and steps, on a reward that keeps
the real one's scale but not its meaning: `shuffled` permutes each group's rewards among its
rollouts (GRPO's advantages become noise of the same size), `random` draws each reward at
random (Bernoulli at the batch's real mean for a pass/fail reward, uniform over the reward
range for a graded one). Only what the trainer sees changes; the environment still judges
every rollout, and both runs are compared on the real verifier's rewards.

`gap` compares the two runs' final windows: the difference of mean rewards, a bootstrap 95%
interval and a permutation-test p-value. An interval that covers 0 is too small to trust.
`Learnability` is the JSON written beside a run's outputs; `learnability_section(path)` reads
it back as the section a certificate can carry.

Pure functions over plain data; no I/O but `Learnability.write` and `learnability_section`.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from proofgym.wire.protocol import RunResult

ControlKind = Literal["shuffled", "random"]
CONTROLS: tuple[ControlKind, ...] = ("shuffled", "random")

#: resamples of the bootstrap interval and of the permutation test: enough that the 95%
#: interval's ends and a p-value near 0.05 move by less than 0.01 between seeds
RESAMPLES = 2000


class ControlError(ValueError):
    """A control, a learnability file or its data is not usable (the message says why)."""


class RewardControl:
    """What the trainer sees in a control run: a callable that takes one batch's results and
    their real rewards (None where the rollout is left out of training) and returns the
    control's rewards, None where the real one is None. Seeded by `seed`, with its own random
    stream (the trainer's is untouched). `seen` keeps every batch's (task ids, real, shown)."""

    def __init__(
        self, kind: ControlKind, reward_ranges: dict[str, tuple[float, float]], seed: int = 0
    ) -> None:
        if kind not in CONTROLS:
            raise ControlError(f"no control named {kind!r} (known: {', '.join(CONTROLS)})")
        self.kind = kind
        self.reward_ranges = reward_ranges
        self.rng = random.Random(seed)
        self.seen: list[tuple[list[str], list[float | None], list[float | None]]] = []

    def __call__(
        self, results: Sequence[RunResult], rewards: Sequence[float | None]
    ) -> list[float | None]:
        if len(results) != len(rewards):
            raise ControlError(f"{len(results)} results but {len(rewards)} rewards")
        keys = [r.task_id for r in results]
        if self.kind == "shuffled":
            shown = shuffled_within_groups(keys, rewards, self.rng)
        else:
            ranges = [self.reward_ranges.get(r.env, (0.0, 1.0)) for r in results]
            shown = random_rewards(rewards, ranges, self.rng)
        self.seen.append((keys, list(rewards), shown))
        return shown


def shuffled_within_groups(
    keys: Sequence[str], rewards: Sequence[float | None], rng: random.Random
) -> list[float | None]:
    """`rewards` permuted among the rollouts of the same key (a GRPO group: one task's
    rollouts of one batch); None stays where it is and is never handed to another rollout."""
    slots: dict[str, list[int]] = defaultdict(list)
    for i, (key, reward) in enumerate(zip(keys, rewards, strict=True)):
        if reward is not None:
            slots[key].append(i)
    shown = list(rewards)
    for places in slots.values():
        values = [rewards[i] for i in places]
        rng.shuffle(values)
        for i, value in zip(places, values, strict=True):
            shown[i] = value
    return shown


def random_rewards(
    rewards: Sequence[float | None], ranges: Sequence[tuple[float, float]], rng: random.Random
) -> list[float | None]:
    """A random reward for each rollout that has a real one: when every real reward sits at
    an end of its range (pass/fail), the top with the batch's real pass rate, else the bottom;
    otherwise uniform over the range."""
    real = [(r, span) for r, span in zip(rewards, ranges, strict=True) if r is not None]
    binary = all(abs(r - lo) < 1e-9 or abs(r - hi) < 1e-9 for r, (lo, hi) in real)
    rate = sum(1 for r, (lo, hi) in real if abs(r - hi) < 1e-9) / len(real) if real else 0.0
    shown: list[float | None] = []
    for reward, (lo, hi) in zip(rewards, ranges, strict=True):
        if reward is None:
            shown.append(None)
        elif binary:
            shown.append(hi if rng.random() < rate else lo)
        else:
            shown.append(rng.uniform(lo, hi))
    return shown


class Gap(BaseModel):
    """Real minus control mean reward over the final window, its 95% bootstrap interval and
    the two-sided permutation-test p-value; `trusted` when the interval excludes 0."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    real: float
    control: float
    gap: float
    ci: tuple[float, float]
    p_value: float = Field(ge=0, le=1)
    real_rollouts: int
    control_rollouts: int

    @property
    def trusted(self) -> bool:
        """Whether the interval excludes 0 (else the gap is too small to trust)."""
        return self.ci[0] > 0 or self.ci[1] < 0


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def gap(
    real: Sequence[float], control: Sequence[float], seed: int = 0, resamples: int = RESAMPLES
) -> Gap:
    """The Gap between two samples of rewards (one per rollout). The bootstrap resamples each
    side with replacement; the permutation test pools them and deals them out again, counting
    differences at least as large as the one observed (p = (count + 1) / (resamples + 1), never
    0). Rollouts of one group are not independent, so with few groups the interval is narrower
    than the truth: compare over many steps."""
    if not real or not control:
        raise ControlError("a gap needs rewards on both sides (a run with no usable rollout)")
    rng = random.Random(seed)
    observed = _mean(real) - _mean(control)
    diffs = sorted(
        _mean(rng.choices(real, k=len(real))) - _mean(rng.choices(control, k=len(control)))
        for _ in range(resamples)
    )
    lo = diffs[int(0.025 * (resamples - 1))]
    hi = diffs[round(0.975 * (resamples - 1))]
    pooled = [*real, *control]
    extreme = 0
    for _ in range(resamples):
        rng.shuffle(pooled)
        d = _mean(pooled[: len(real)]) - _mean(pooled[len(real) :])
        extreme += abs(d) >= abs(observed) - 1e-12
    return Gap(
        real=round(_mean(real), 4),
        control=round(_mean(control), 4),
        gap=round(observed, 4),
        ci=(round(lo, 4), round(hi, 4)),
        p_value=round((extreme + 1) / (resamples + 1), 4),
        real_rollouts=len(real),
        control_rollouts=len(control),
    )


#: the share of the last steps whose rollouts the gap compares, by default
WINDOW = 0.1


def final_window(batches: Sequence[Sequence[RunResult]], share: float = WINDOW) -> list[float]:
    """The verifier's rewards of the usable rollouts of the last `share` of steps (at least
    one step): each step's batch, in order."""
    if not 0 < share <= 1:
        raise ControlError(f"a window is a share of the steps, in (0, 1]: {share}")
    k = max(1, int(len(batches) * share + 1e-9))
    return [r.reward for batch in batches[-k:] for r in batch if not r.mask_sample]


class RunFigures(BaseModel):
    """One run (real or control) as the verifier saw it: the mean reward of the first and the
    last 10% of steps (of the steps' means), the final window's mean over its rollouts (what
    the gap compares) and how many, and every step's mean."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    reward_first: float
    reward_last: float
    final_mean: float
    final_rollouts: int
    per_step: list[float]


class Learnability(BaseModel):
    """The learnability result written beside a run's outputs: what trained (model, env,
    steps, seed), how the control was made, each run's figures and the gap."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    def section(self) -> dict[str, Any]:
        """The `learnability` section a certificate carries: model, env, steps, seeds, control
        kind, real and control final means, gap, interval, p-value, trusted."""
        return {
            "model": self.model,
            "env": self.env,
            "steps": self.steps,
            "seeds": self.seeds,
            "control_kind": self.control_kind,
            "real": self.real.final_mean,
            "control": self.control.final_mean,
            "gap": self.gap,
            "ci": list(self.ci),
            "p_value": self.p_value,
            "trusted": self.trusted,
        }

    version: Literal[1] = 1
    env: str
    model: str
    steps: int
    seeds: list[int]
    control_kind: ControlKind
    window: str = "last 10% of steps, real verifier's rewards"
    real: RunFigures
    control: RunFigures
    gap: float
    ci: tuple[float, float]
    p_value: float
    trusted: bool
    verdict: str

    def write(self, path: Path) -> Path:
        """Write the JSON to `path` (folders made); the path."""
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.model_dump(mode="json"), indent=2) + "\n")
        return path


def verdict(g: Gap, kind: ControlKind) -> str:
    """One sentence on what the gap means."""
    span = f"gap {g.gap:+.3f} [95% CI {g.ci[0]:+.3f}, {g.ci[1]:+.3f}], p = {g.p_value:.3g}"
    if not g.trusted:
        return (
            f"{span}: too small to trust (the interval covers 0): the rise is no larger than "
            f"on {kind} rewards"
        )
    if g.gap > 0:
        return f"{span}: the policy learned from the environment's reward, not only from training"
    return f"{span}: the {kind} control rose more than the real reward: suspect the reward"


def learnability_of(
    *,
    env: str,
    model: str,
    steps: int,
    seed: int,
    kind: ControlKind,
    real: Sequence[Sequence[RunResult]],
    control: Sequence[Sequence[RunResult]],
    window: float = WINDOW,
) -> Learnability:
    """The Learnability of two runs, given each run's batches of rollouts, one a step; the
    gap compares the rollouts of the last `window` of steps (a share: 0.1 is the last 10%).
    A wider window gives the gap more rollouts where the two runs have parted early."""

    g = gap(final_window(real, window), final_window(control, window), seed=seed)

    def figures(batches: Sequence[Sequence[RunResult]], final: float, n: int) -> RunFigures:
        means = [
            _mean(usable) if usable else 0.0
            for usable in ([r.reward for r in b if not r.mask_sample] for b in batches)
        ]
        k = max(1, len(means) // 10)
        return RunFigures(
            reward_first=round(_mean(means[:k]), 4) if means else 0.0,
            reward_last=round(_mean(means[-k:]), 4) if means else 0.0,
            final_mean=final,
            final_rollouts=n,
            per_step=[round(m, 4) for m in means],
        )

    return Learnability(
        env=env,
        model=model,
        steps=steps,
        seeds=[seed],
        control_kind=kind,
        window=f"last {window:.0%} of steps, real verifier's rewards",
        real=figures(real, g.real, g.real_rollouts),
        control=figures(control, g.control, g.control_rollouts),
        gap=g.gap,
        ci=g.ci,
        p_value=g.p_value,
        trusted=g.trusted,
        verdict=verdict(g, kind),
    )


def learnability_section(path: Path) -> dict[str, Any]:
    """The `learnability` section a certificate can carry, read from the JSON that
    `proofgym learn --control` wrote at `path`: model, env, steps, seeds, control kind, real
    and control final means, gap, interval, p-value, trusted. ControlError when the file is
    missing or is not such a result."""
    try:
        found = Learnability.model_validate_json(path.read_text())
    except OSError as exc:
        raise ControlError(f"{path}: cannot read it ({exc.strerror})") from exc
    except ValidationError as exc:
        raise ControlError(f"{path}: not a learnability result ({exc.errors()[0]['msg']})") from exc
    return found.section()
