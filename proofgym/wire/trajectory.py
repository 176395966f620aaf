"""A rollout as a trainer sees it: one prompt, one completion, a mask, logprobs and a reward.

Trainer-agnostic, no dependency beyond the core. The completion interleaves what the model
generated (mask 1, with its logprobs) and what the environment inserted between turns (mask 0:
tool outputs and template tokens, logprob 0.0), exactly as the model interface tokenized them;
nothing is re-tokenized. A rollout that must not be trained on (masked for an infrastructure
fault, no token data, a history that is not append-only) keeps its ids where it has them and
gets `reward = None` with the reason: a trainer leaves it out of its group's baseline, and it
never counts as a 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from proofgym.wire.protocol import RunResult
from proofgym.wire.responses import output_items
from proofgym.wire.tokens import token_data


@dataclass
class Trajectory:
    """One rollout, token by token. `completion_ids`, `completion_mask` and `logprobs` always
    have the same length."""

    rollout_id: str
    task_id: str
    env: str
    prompt_ids: list[int] = field(default_factory=list)
    completion_ids: list[int] = field(default_factory=list)
    completion_mask: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    reward: float | None = None
    reward_components: dict[str, float] = field(default_factory=dict)
    reason: str | None = None  # why `reward` is None

    @property
    def trainable(self) -> bool:
        """Whether a trainer may use it: a reward, and at least one model token."""
        return self.reward is not None and any(self.completion_mask)


def _untrainable(base: Trajectory, reason: str) -> Trajectory:
    base.reward, base.reason = None, reason
    return base


def trajectory(result: RunResult) -> Trajectory:
    """The Trajectory of one RunResult (see the module docstring for what it promises)."""
    out = Trajectory(
        rollout_id=result.rollout_id,
        task_id=result.task_id,
        env=result.env,
        reward=result.reward,
        reward_components=dict(result.reward_components),
    )
    turns = [data for item in output_items(result.response) if (data := token_data(item))]
    if not turns:
        return _untrainable(out, "no token data (an endpoint that returns no token ids)")
    history: list[int] = []
    for index, (prompt, generated, logprobs) in enumerate(turns):
        if index == 0:
            out.prompt_ids = list(prompt)
        elif prompt[: len(history)] != history:
            return _untrainable(
                out, f"turn {index}: its prompt does not extend the previous turn's tokens"
            )
        else:
            inserted = prompt[len(history) :]
            out.completion_ids += inserted
            out.completion_mask += [0] * len(inserted)
            out.logprobs += [0.0] * len(inserted)
        out.completion_ids += generated
        out.completion_mask += [1] * len(generated)
        out.logprobs += [float(lp) for lp in logprobs]
        history = list(prompt) + list(generated)
    if result.mask_sample:
        return _untrainable(out, f"masked: {result.failure_kind}: {result.failure_reason}")
    if not result.trainable:
        return _untrainable(out, "the agent marked it not trainable (incomplete token data)")
    return out
