"""The supervised warm-up of `proofgym learn`: the environment's passing honest controls,
played on tasks the run never reinforces, taught to the model with TRL's SFTTrainer before
GRPO (a model that never calls the tools gets no signal from an environment that needs them).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from proofgym.rollouts.proofs import ProofBook, unproven_count
from proofgym.wire.protocol import RunResult, Task
from proofgym_stack.learn_report import LearnResult, calls_a_tool


class WarmUpConfig(Protocol):
    """What the warm-up reads of a `LearnConfig` (named here, not imported: `learn` imports
    this module)."""

    @property
    def env(self) -> str: ...
    @property
    def sft_steps(self) -> int: ...
    @property
    def seed(self) -> int: ...
    @property
    def allow_unproven(self) -> bool: ...
    def sft_rate(self) -> float: ...


SFT_LEARNING_RATE = 5e-5


#: the controls whose trajectories a warm-up may learn from (an environment has the first,
#: most have the second: an honest other way, often the one that uses a tool)
WARMUP_CONTROLS = ("reference", "alternative")


def warmup_trajectories(
    client: Any, tasks: list[Task], keep: Callable[[list[RunResult]], None]
) -> list[RunResult]:
    """The passing honest controls' rollouts of `tasks` (passing as `proofgym profile` counts
    it: the environment's own threshold), those that call a tool when there are any (the
    warm-up is there to teach the tools: math's reference answers without the calculator, its
    alternative uses it), else all that passed. Every rollout goes to `keep`."""
    from proofgym.clients.agent_client import RolloutRefused
    from proofgym.rollouts.profiling import passes
    from proofgym.serving.settings import ResourcesSettings
    from proofgym_stack.environments import available_environments

    registry = available_environments(ResourcesSettings())
    thresholds = {env: registry[env].passing_reward() for env in {t.env for t in tasks}}
    passing: list[RunResult] = []
    for control in WARMUP_CONTROLS:
        try:
            results = client.run_batch(tasks, control=control)
        except RolloutRefused:  # the environment has no such control
            continue
        keep(results)
        passing += [
            r
            for r in results
            if passes(r.reward, (c.passed for c in r.checks), r.mask_sample, thresholds[r.env])
        ]
    with_tools = [r for r in passing if calls_a_tool(r)]
    return with_tools or passing


def sft_dataset(results: list[RunResult]) -> Any:
    """Prompt/completion chats of `results` (passing rollouts, as `warmup_trajectories`
    chose them), with their tools in the form the chat template gets at inference
    (`model_interface.rendering.chat_tools`), so the warm-up trains on exactly what the
    policy will be shown."""
    import datasets

    from model_interface.rendering import chat_tools
    from proofgym.rollouts.export import sft_rows

    rows = []
    for row in sft_rows(results, passed=lambda r: True):  # chosen already
        messages = row["messages"]
        first = next(i for i, m in enumerate(messages) if m["role"] == "assistant")
        rows.append(
            {
                "prompt": messages[:first],
                "completion": messages[first:],
                "tools": json.dumps(chat_tools(row["tools"]) or []),
            }
        )
    return datasets.Dataset.from_list(rows)


def sft_warmup(
    model: Any, tokenizer: Any, data: Any, steps: int, learning_rate: float, out: Path, seed: int
) -> list[float]:
    """`steps` supervised steps (TRL's SFTTrainer, loss on the completions only) on `data`;
    the loss of each logged step. The model is trained in place."""
    from trl import SFTConfig, SFTTrainer  # type: ignore[attr-defined]

    config = SFTConfig(
        output_dir=str(out),
        max_steps=steps,
        per_device_train_batch_size=4,
        learning_rate=learning_rate,
        lr_scheduler_type="constant",
        logging_steps=1,
        save_strategy="no",
        report_to=[],
        use_cpu=True,
        bf16=False,
        disable_tqdm=True,
        seed=seed,
    )
    losses: list[float] = []
    import transformers

    class Loss(transformers.TrainerCallback):  # type: ignore[misc]
        def on_log(self, args: Any, state: Any, control: Any, logs: Any = None, **kw: Any) -> None:
            if logs and "loss" in logs:
                losses.append(float(logs["loss"]))

    trainer = SFTTrainer(
        model=model,
        args=config,
        train_dataset=data,
        processing_class=tokenizer,
        callbacks=[Loss()],
    )
    trainer.remove_callback(transformers.PrinterCallback)
    trainer.train()
    return losses


def warm_up(
    config: WarmUpConfig,
    run: tuple[Any, Any, Any],
    warmup: list[Task],
    keep: Callable[[list[RunResult]], None],
    book: ProofBook,
    result: LearnResult,
    out: Path,
    say: Callable[[str], None],
) -> None:
    """The supervised warm-up on the passing honest controls of `warmup` (see LearnConfig)."""
    model, tokenizer, client = run
    say(f"collecting the passing controls on {len(warmup)} tasks")
    references = warmup_trajectories(client, warmup, keep)
    result.unproven += unproven_count(book.admit(references, config.allow_unproven))
    data = sft_dataset(references)
    result.sft_rows = len(data)
    if not result.sft_rows:
        raise RuntimeError(f"{config.env}: no reference control passed a task")
    say(f"supervised warm-up: {config.sft_steps} steps on {len(data)} trajectories")
    result.sft_loss = sft_warmup(
        model, tokenizer, data, config.sft_steps, config.sft_rate(), out, config.seed
    )
