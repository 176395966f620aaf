"""What a learning run shows: its result (the reward curve, per environment of a mix), the
evaluations before and after GRPO, and the curve as a PNG. `proofgym_stack.learn` runs it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proofgym.rollouts import diagnosis
from proofgym.rollouts.learnability import Learnability
from proofgym.rollouts.profiling import Sample, figures_by_env, sample_of
from proofgym.wire.protocol import RunResult


@dataclass(frozen=True)
class Evaluation:
    """The policy's mean reward and share of rollouts calling a tool over a fixed set of
    rollouts (every reinforced task, a fixed number of times)."""

    rollouts: int
    reward: float
    tool_call_share: float
    masked: int
    #: per task: its mean reward, usable rollouts and masked ones (GRPO learns only from a
    #: task whose rollouts disagree; this shows which moved)
    per_task: dict[str, dict[str, float]] = field(default_factory=dict)
    #: per environment of the mix: `proofgym.rollouts.profiling.env_figures`
    per_env: dict[str, dict[str, Any]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """As `learn --json` prints it."""
        return {
            "rollouts": self.rollouts,
            "reward": round(self.reward, 4),
            "tool_call_share": round(self.tool_call_share, 3),
            "masked": self.masked,
            "per_task": self.per_task,
            "per_env": self.per_env,
        }


def samples_of(results: list[RunResult]) -> list[Sample]:
    """`results` as profiling reads them, each judged by its environment's pass threshold."""
    from proofgym.serving.settings import ResourcesSettings
    from proofgym_stack.environments import available_environments

    registry = available_environments(ResourcesSettings())
    return [
        sample_of(r.model_dump(mode="json"), registry[r.env].passing_reward())
        if r.env in registry
        else sample_of(r.model_dump(mode="json"), None)
        for r in results
    ]


def per_env_curves(results: list[RunResult]) -> dict[str, dict[str, Any]]:
    """Each environment's figures over `results` (in the order played), with the mean reward
    of its first and last 10% of usable rollouts: which environment of a mix moved."""
    out = figures_by_env(samples_of(results))
    for env, figures in out.items():
        rewards = [r.reward for r in results if r.env == env and not r.mask_sample]
        k = max(1, len(rewards) // 10)
        figures["reward_first"] = round(sum(rewards[:k]) / k, 4) if rewards else None
        figures["reward_last"] = round(sum(rewards[-k:]) / k, 4) if rewards else None
    return out


def diagnose(batches: list[list[RunResult]]) -> list[str]:
    """Why the reward of a run with these GRPO batches (one a step) may not move, one
    paragraph per environment, then what to try (`proofgym.rollouts.diagnosis`)."""
    from proofgym.serving.settings import ResourcesSettings
    from proofgym_stack.environments import available_environments

    steps = [samples_of(b) for b in batches]
    if not steps:
        return []
    registry = available_environments(ResourcesSettings())
    envs = {r.env for b in batches for r in b}
    has_tools = any(registry[e].tools() for e in envs if e in registry)
    return [*diagnosis.diagnose(steps), diagnosis.advice(steps, has_tools)]


def evaluate(results: list[RunResult]) -> Evaluation:
    """The Evaluation of `results` (masked ones counted apart, not as 0)."""
    usable = [r for r in results if not r.mask_sample]
    n = max(1, len(usable))
    per_task: dict[str, dict[str, float]] = {}
    for r in results:
        task = per_task.setdefault(r.task_id, {"reward": 0.0, "rollouts": 0, "masked": 0})
        if r.mask_sample:
            task["masked"] += 1
        else:
            task["reward"] += r.reward
            task["rollouts"] += 1
    for task in per_task.values():
        task["reward"] = round(task["reward"] / max(1, task["rollouts"]), 4)
    return Evaluation(
        rollouts=len(results),
        reward=sum(r.reward for r in usable) / n,
        tool_call_share=sum(map(calls_a_tool, usable)) / n,
        masked=len(results) - len(usable),
        per_task=dict(sorted(per_task.items())),
        per_env=figures_by_env(samples_of(results)),
    )


@dataclass
class LearnResult:
    """What a learning run showed."""

    env: str
    steps: int
    rewards: list[float] = field(default_factory=list)  # mean reward of each step
    step_seconds: list[float] = field(default_factory=list)  # wall time of each step
    tool_call_share: list[float] = field(default_factory=list)  # rollouts calling a tool
    seconds: float = 0.0
    weights_changed: bool = False  # whether the optimizer moved the policy at all
    learning_rate: float = 0.0
    sft_rows: int = 0  # reference trajectories the warm-up trained on
    sft_loss: list[float] = field(default_factory=list)
    # the policy played every reinforced task `eval_samples` times, sampling as in training,
    # before GRPO (after the warm-up) and after it: a rise that the per-step curve, one task
    # group a step, hides in which task came up
    eval_samples: int = 0
    eval_before: Evaluation | None = None
    eval_after: Evaluation | None = None
    #: rollouts of an environment version without a proof that were trained on, as the
    #: caller allowed (`allow_unproven`); 0 otherwise (such a run is refused)
    unproven: int = 0
    #: the mix's weights (one environment: weight 1) and, per environment, what its GRPO
    #: rollouts showed (`per_env_curves`)
    weights: dict[str, float] = field(default_factory=dict)
    per_env: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: a control run (`control_kind` set): `rewards` are the verifier's, `shown_rewards` what
    #: the trainer saw. The real run carries its control run in `control`, each control
    #: batch's (task ids, real rewards, shown rewards) in `control_seen`, and the comparison
    #: in `learnability`
    control_kind: str | None = None
    shown_rewards: list[float] = field(default_factory=list)
    control: LearnResult | None = None
    control_seen: list[tuple[list[str], list[float | None], list[float | None]]] = field(
        default_factory=list
    )
    learnability: Learnability | None = None
    #: the certificate the learnability section was attached to (None: no certificate covered
    #: the version trained, or no control ran)
    learnability_certificate: str | None = None
    #: why the reward may not have moved (`diagnose`); printed when it did not rise
    diagnosis: list[str] = field(default_factory=list)

    @property
    def rose(self) -> bool:
        """Whether the reward moved: against a control, a gap whose interval is above 0;
        alone, a rise of the per-step mean of at least FLAT_RISE from the first 10% of steps
        to the last."""
        if self.learnability is not None:
            return self.learnability.trusted and self.learnability.gap > 0
        return self.reward_last - self.reward_first >= diagnosis.FLAT_RISE

    @property
    def reward_first(self) -> float:
        """Mean reward over the first 10% of steps (at least one)."""
        k = max(1, len(self.rewards) // 10)
        return sum(self.rewards[:k]) / k if self.rewards else 0.0

    @property
    def reward_last(self) -> float:
        """Mean reward over the last 10% of steps (at least one)."""
        k = max(1, len(self.rewards) // 10)
        return sum(self.rewards[-k:]) / k if self.rewards else 0.0

    def to_json(self) -> dict[str, Any]:
        """The JSON `proofgym learn --json` prints: the summary, then every step."""
        return {
            "env": self.env,
            "control_kind": self.control_kind,
            "steps": self.steps,
            "reward_first": round(self.reward_first, 4),
            "reward_last": round(self.reward_last, 4),
            "seconds": round(self.seconds, 1),
            "learning_rate": self.learning_rate,
            "sft_rows": self.sft_rows,
            "sft_loss": [round(x, 4) for x in self.sft_loss],
            "eval_samples": self.eval_samples,
            "eval_before": self.eval_before.to_json() if self.eval_before else None,
            "eval_after": self.eval_after.to_json() if self.eval_after else None,
            "unproven": self.unproven,
            "weights": self.weights,
            "per_env": self.per_env,
            "rose": self.rose,
            "diagnosis": self.diagnosis,
            "control": self.control.to_json() if self.control else None,
            "learnability": (
                self.learnability.model_dump(mode="json") if self.learnability else None
            ),
            "learnability_certificate": self.learnability_certificate,
            "per_step": [
                {
                    "step": n + 1,
                    "reward": round(r, 4),
                    "seconds": round(self.step_seconds[n], 2)
                    if n < len(self.step_seconds)
                    else None,
                    "tool_call_share": (
                        round(self.tool_call_share[n], 3) if n < len(self.tool_call_share) else None
                    ),
                    **(
                        {"shown_reward": round(self.shown_rewards[n], 4)}
                        if n < len(self.shown_rewards)
                        else {}
                    ),
                }
                for n, r in enumerate(self.rewards)
            ],
        }


def calls_a_tool(result: RunResult) -> bool:
    """Whether the rollout's policy called any tool."""
    from proofgym.wire.responses import function_calls

    return bool(function_calls(result.response))


#: the real run's colour and the control's in the curve
REAL_COLOUR = (27, 127, 59)
CONTROL_COLOUR = (200, 90, 30)


def write_png(
    values: list[float],
    path: Path,
    width: int = 640,
    height: int = 360,
    *,
    control: list[float] | None = None,
    control_kind: str | None = None,
    env: str = "",
) -> None:
    """The reward curve as a PNG: mean reward (0 to 1) per GRPO step, with a title, labelled
    axes and a legend; with `control`, the control run's curve beside the real one."""
    from proofgym_stack.png_chart import Series, chart, write_chart

    series = [Series(values, "real reward", REAL_COLOUR)]
    if control is not None:
        series.append(Series(control, f"{control_kind or 'control'} control", CONTROL_COLOUR))
    title = f"proofgym learn {env}".strip()
    write_chart(path, chart(series, width, height, title, "grpo step", "mean reward"))
