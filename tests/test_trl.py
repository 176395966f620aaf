"""TRL's GRPOTrainer trains on proofgym through the real services: the agent and resources
server as processes, the trainer's own model served live from its process."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import transformers
from helpers import prove
from trl import GRPOConfig, GRPOTrainer

from model_interface.live import LiveModel
from proofgym.wire.protocol import Task
from proofgym_stack.up import Stack, free_port
from resources_servers.file_edit.env import FileEditEnv
from sdg.file_edit import generate
from trainers.trl import ProofgymRollouts, reward_functions, task_dataset, task_id_of


def test_two_optimizer_steps_through_the_stack(
    tool_calling_model_dir: Path, tmp_path: Path
) -> None:
    tokenizer = transformers.AutoTokenizer.from_pretrained(tool_calling_model_dir)
    model = transformers.AutoModelForCausalLM.from_pretrained(tool_calling_model_dir)
    tasks = [Task.model_validate(t) for t in generate(2, seed=5)]
    book = asyncio.run(prove(FileEditEnv(), tmp_path / "proofs"))
    rollouts = Recording(tasks, max_steps=2, proofs=book)
    funcs, weights = reward_functions()
    args = GRPOConfig(
        output_dir=str(tmp_path / "out"),
        per_device_train_batch_size=4,
        num_generations=4,
        max_steps=2,
        learning_rate=1e-2,
        max_completion_length=24,
        temperature=0.3,  # the taught model then calls its tool in most rollouts
        beta=0.0,
        logging_steps=1,
        report_to=[],
        save_strategy="no",
        bf16=False,
        use_cpu=True,
        reward_weights=weights,
        seed=0,
    )
    trainer = GRPOTrainer(
        model=model,
        args=args,
        reward_funcs=funcs,
        train_dataset=task_dataset(tasks),
        processing_class=tokenizer,
        rollout_func=rollouts,
    )
    with LiveModel(trainer.model, tokenizer) as live:
        stack = Stack(
            agent_port=free_port(),
            resources_ports=[free_port()],
            model_url=live.url,
            env=book.agent_env(),  # the agent signs its rows with the key the gate checks
        )
        stack.start()
        try:
            rollouts.client.url = stack.agent_url
            trainer.train()
        finally:
            stack.stop()
            rollouts.client.close()
    assert trainer.state.global_step == 2
    # one rollout per prompt entry, token-exact; the tool's answers masked out of the loss,
    # and only where a tool answered
    batch = rollouts.last
    assert len(batch) == 4 and len(rollouts.seen) == 8 and rollouts.unproven == 0
    assert all(t.trainable for t in rollouts.seen), [t.reason for t in rollouts.seen]
    for t, tool_turns in zip(rollouts.seen, rollouts.tool_turns, strict=True):
        assert len(t.completion_ids) == len(t.completion_mask) == len(t.logprobs)
        assert (0 in t.completion_mask) == (tool_turns > 0)
    assert any(rollouts.tool_turns), rollouts.tool_turns
    # the reward TRL logged is our verifier's
    logged = [h for h in trainer.state.log_history if "reward" in h]
    assert len(logged) == 2
    ours = sum(t.reward for t in batch if t.reward is not None) / len(batch)
    assert logged[-1]["reward"] == pytest.approx(ours, abs=1e-6)


class Recording(ProofgymRollouts):
    """Keeps every batch's trajectories, and how many tool outputs each rollout had."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.seen: list[Any] = []
        self.tool_turns: list[int] = []
        run_batch = self.client.run_batch

        def recording(tasks: Any, *a: Any, **kw: Any) -> Any:
            results = run_batch(tasks, *a, **kw)
            self.tool_turns += [
                sum(1 for i in r.response.output if i.type == "function_call_output")
                for r in results
            ]
            return results

        self.client.run_batch = recording  # type: ignore[method-assign]

    def __call__(self, prompts: list[Any], trainer: Any) -> dict[str, list[Any]]:
        out = super().__call__(prompts, trainer)
        self.seen += self.last
        return out


def test_prompts_name_their_task() -> None:
    task = Task.model_validate(generate(1, seed=5)[0])
    from trainers.trl import task_prompt

    assert task_id_of(task_prompt(task)) == task.task_id
