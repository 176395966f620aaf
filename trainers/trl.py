"""TRL's GRPOTrainer on proofgym: rollouts through the agent, rewards from the verifiers.

```python
from trl import GRPOConfig, GRPOTrainer
from model_interface.live import LiveModel
from trainers.trl import ProofgymRollouts, reward_functions, task_dataset

rollouts = ProofgymRollouts(tasks, agent_url="http://127.0.0.1:8000")
funcs, weights = reward_functions(["goal", "format"])   # components: logged, weight 0
trainer = GRPOTrainer(model=model, args=GRPOConfig(..., reward_weights=weights),
                      train_dataset=task_dataset(tasks), reward_funcs=funcs,
                      rollout_func=rollouts, processing_class=tokenizer)
with LiveModel(trainer.model, tokenizer, port=8002):    # the agent's model interface
    trainer.train()
```

What it promises:
- Each prompt TRL hands `rollout_func` (already repeated `num_generations` times) becomes one
  rollout of its task through the agent; the policy sees the task's own input, tools and
  instructions. TRL's prompt only names the task.
- The rollout's tokens go to TRL as they were sampled: `prompt_ids`, `completion_ids`,
  `logprobs`, and `env_mask` (0 on the tokens the environment inserted, so no loss on them).
- A masked or untrainable rollout gets reward `None` from every reward function: TRL leaves it
  out of its group's baseline (advantage 0). A policy's failure is a reward, never a mask.
- Sampling follows the trainer's config (temperature, top_p, max_completion_length).
- A `reward_control` (a learnability control, `proofgym.rollouts.learnability.RewardControl`)
  replaces only the rewards the trainer sees; the environment, the rollouts and what
  `on_results` gets stay real.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from proofgym.clients.agent_client import AgentClient
from proofgym.rollouts.proofs import ProofBook, unproven_count
from proofgym.wire.protocol import RunResult, Task
from proofgym.wire.trajectory import Trajectory, trajectory

TASK_MARK = "proofgym task: "
_TASK_ID = re.compile(re.escape(TASK_MARK) + r"(\S+)")
RewardFunc = Callable[..., list[float | None]]
#: a batch's results and their real rewards (None: left out) -> the rewards the trainer sees
RewardControl = Callable[[Sequence[RunResult], Sequence[float | None]], list[float | None]]


def task_prompt(task: Task) -> list[dict[str, str]]:
    """The prompt TRL sees for `task`: a system line naming it, then the task's user text (TRL
    logs it; the policy is sent the task's own input by the agent)."""
    from proofgym.wire.responses import message_text, normalize_input

    items = normalize_input(task.responses_create_params.get("input", ""))
    text = "\n".join(message_text(i) for i in items if i.get("type", "message") == "message")
    return [
        {"role": "system", "content": TASK_MARK + task.task_id},
        {"role": "user", "content": text},
    ]


def task_dataset(tasks: Sequence[Task]) -> Any:
    """A `datasets.Dataset` with one `prompt` per task (see `task_prompt`)."""
    from datasets import Dataset

    return Dataset.from_list([{"prompt": task_prompt(t), "task_id": t.task_id} for t in tasks])


def task_id_of(prompt: Any) -> str:
    """The task id a TRL prompt names; ValueError for a prompt that names none."""
    text = prompt if isinstance(prompt, str) else " ".join(str(m.get("content")) for m in prompt)
    m = _TASK_ID.search(text)
    if m is None:
        raise ValueError(f"this prompt names no proofgym task: {str(prompt)[:120]}")
    return m.group(1)


def sampling_of(args: Any) -> dict[str, Any]:
    """The trainer's sampling as Responses parameters."""
    params: dict[str, Any] = {}
    if getattr(args, "temperature", None) is not None:
        params["temperature"] = float(args.temperature)
    if getattr(args, "top_p", None) is not None:
        params["top_p"] = float(args.top_p)
    if getattr(args, "max_completion_length", None):
        params["max_output_tokens"] = int(args.max_completion_length)
    return params


class ProofgymRollouts:
    """A TRL `rollout_func` that runs each prompt's task through the agent."""

    def __init__(
        self,
        tasks: Sequence[Task],
        *,
        agent_url: str = "http://127.0.0.1:8000",
        client: AgentClient | None = None,
        model: str = "live",
        max_steps: int | None = None,
        on_results: Callable[[list[RunResult]], None] | None = None,
        proofs: ProofBook | None = None,
        allow_unproven: bool = False,
        reward_control: RewardControl | None = None,
    ) -> None:
        """`proofs` (default `runs/proofs`): only rollouts of environment versions proven
        there reach the trainer; a batch with any other raises UnprovenRollouts before TRL
        sees it, unless `allow_unproven` (then `unproven` counts them). `reward_control`:
        the rewards TRL sees are its answer to each batch's real ones (a control run)."""
        self.tasks = {t.task_id: t for t in tasks}
        self.proofs = proofs or ProofBook()
        self.allow_unproven = allow_unproven
        self.unproven = 0  # rollouts of unproven versions trained on, as allowed
        self.client = client or AgentClient(agent_url)
        self.model = model
        self.max_steps = max_steps
        self.on_results = on_results  # every batch's results as they came (to store them)
        self.reward_control = reward_control
        self.last: list[Trajectory] = []  # the latest batch, for logging and tests

    def __call__(self, prompts: list[Any], trainer: Any) -> dict[str, list[Any]]:
        tasks = [self.tasks[task_id_of(p)] for p in prompts]
        params = {"model": self.model, **sampling_of(trainer.args)}
        results = self.client.run_batch(tasks, model_params=params, max_steps=self.max_steps)
        if self.on_results is not None:  # stored even when refused below: nothing is lost
            self.on_results(results)
        self.unproven += unproven_count(self.proofs.admit(results, self.allow_unproven))
        stand_in = _stand_in_token(trainer)
        out: dict[str, list[Any]] = {
            "prompt_ids": [],
            "completion_ids": [],
            "logprobs": [],
            "env_mask": [],
            "proofgym_reward": [],
            "proofgym_components": [],
            "rollout_id": [],
        }
        self.last = []
        for result in results:
            t = trajectory(result)
            self.last.append(t)
            completion = t.completion_ids
            if not completion or not t.trainable:  # TRL cannot take an empty completion
                out["prompt_ids"].append(t.prompt_ids or [stand_in])
                out["completion_ids"].append([stand_in])
                out["logprobs"].append([0.0])
                out["env_mask"].append([0])
            else:
                out["prompt_ids"].append(t.prompt_ids)
                out["completion_ids"].append(completion)
                out["logprobs"].append(t.logprobs)
                out["env_mask"].append(t.completion_mask)
            out["proofgym_reward"].append(t.reward if t.trainable else None)
            out["proofgym_components"].append(t.reward_components if t.trainable else None)
            out["rollout_id"].append(t.rollout_id)
        if self.reward_control is not None:
            shown = self.reward_control(results, out["proofgym_reward"])
            if [r is None for r in shown] != [r is None for r in out["proofgym_reward"]]:
                raise RuntimeError("a reward control must leave out exactly the real leftouts")
            out["proofgym_reward"] = shown
        return out


def _stand_in_token(trainer: Any) -> int:
    tokenizer = getattr(trainer, "processing_class", None)
    token = getattr(tokenizer, "eos_token_id", None)
    return int(token) if token is not None else 0


def environment_reward(
    prompts: list[Any], completions: list[Any], proofgym_reward: list[float | None], **_: Any
) -> list[float | None]:
    """The verifier's reward of each rollout (`None`: leave it out of the baseline)."""
    return list(proofgym_reward)


def component_reward(name: str) -> RewardFunc:
    """A reward function that reports one named reward component (for TRL's logs)."""

    def reward(
        prompts: list[Any],
        completions: list[Any],
        proofgym_components: list[dict[str, float] | None],
        **_: Any,
    ) -> list[float | None]:
        return [None if c is None else c.get(name) for c in proofgym_components]

    reward.__name__ = f"proofgym_{name}"
    return reward


def reward_functions(components: Sequence[str] = ()) -> tuple[list[Any], list[float]]:
    """The environment reward (weight 1) and each named component (weight 0: logged by TRL,
    not added, since the reward is already their sum). Pass the weights as `reward_weights`."""
    funcs: list[Any] = [environment_reward, *(component_reward(c) for c in components)]
    return funcs, [1.0] + [0.0] * len(components)


def grpo_trainer(
    model: Any,
    tokenizer: Any,
    rollouts: ProofgymRollouts,
    *,
    generations: int = 8,
    steps: int = 100,
    groups: int = 1,
    callbacks: Sequence[Any] = (),
    **config: Any,
) -> Any:
    """TRL's GRPOTrainer over `rollouts`' tasks: the environment reward (components logged),
    `generations` rollouts per prompt, `groups` prompt groups per step (one update averages
    over that many tasks); `config` goes to GRPOConfig."""
    from trl import GRPOConfig, GRPOTrainer  # type: ignore[attr-defined]

    funcs, weights = reward_functions()
    args = GRPOConfig(
        per_device_train_batch_size=generations * groups,
        num_generations=generations,
        max_steps=steps,
        reward_weights=weights,
        logging_steps=1,
        report_to=[],
        **config,
    )
    return GRPOTrainer(
        model=model,
        args=args,
        reward_funcs=funcs,
        train_dataset=task_dataset(list(rollouts.tasks.values())),
        processing_class=tokenizer,
        rollout_func=rollouts,
        callbacks=list(callbacks),
    )
