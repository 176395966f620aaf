"""`proofgym model check DIR`: a model's chat template proven fit for multi-turn RL on the
shipped environments' own conversations, before any training.

The conversations are the environments' controls played through the real services (scripted
model, real tools): several tool calls, their real outputs, the final message. Each is then
checked against the model's tokenizer and template turn by turn
(`model_interface.template_check`). With `sample` > 0 the model itself also plays that many
rollouts of each environment through the local backend, and each must come back trainable
(complete token data, append-only).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from model_interface.template_check import Conversation, TemplateReport, check_template
from proofgym.serving.settings import AgentSettings, ModelSettings
from proofgym.wire.protocol import Control, RunResult, Task
from proofgym_stack.examples import example_tasks
from proofgym_stack.testing import in_process_stack

#: the roles of the controls whose conversations are checked: the honest ones
ROLES = ("reference", "alternative")


@dataclass
class ModelCheck:
    """What `model check` found: the template's report and the sampled rollouts."""

    template: TemplateReport
    sampled: int = 0
    untrainable: list[str] = field(default_factory=list)  # "env/task: why"

    @property
    def passed(self) -> bool:
        """True when the template passed every check and every sampled rollout was trainable."""
        return self.template.passed and not self.untrainable

    def to_json(self) -> dict[str, Any]:
        """`model check --json`."""
        return {
            **self.template.to_json(),
            "passed": self.passed,
            "sampled": self.sampled,
            "untrainable": self.untrainable,
        }


def conversation_of(name: str, result: RunResult) -> Conversation:
    """The Conversation a RunResult records."""
    sent = result.responses_create_params or {}
    return Conversation(
        name=name,
        input=sent.get("input", ""),
        instructions=sent.get("instructions"),
        tools=list(sent.get("tools") or []),
        output=[item.model_dump(mode="json", exclude_none=True) for item in result.response.output],
    )


def first_tasks(envs: list[str] | None = None) -> list[Task]:
    """The first example task of each shipped environment (or of those in `envs`)."""
    from resources_servers.base.registry import discover

    names = sorted(discover()) if envs is None else envs
    return [example_tasks(name)[0][0] for name in names]


async def environment_conversations(tasks: list[Task]) -> list[Conversation]:
    """The honest controls (`ROLES`) of each task, played through the in-process services."""
    conversations = []
    async with in_process_stack() as stack:
        for task in tasks:
            answer = await stack.client.post(
                f"http://resources/{task.env}/controls", json={"task": task.model_dump()}
            )
            for control in [Control.model_validate(c) for c in answer.json()["controls"]]:
                if control.role not in ROLES:
                    continue
                body = {
                    "task": task.model_dump(mode="json"),
                    "model_params": {"model": "scripted", "script": control.script},
                }
                result = RunResult.model_validate((await stack.run(body)).json())
                conversations.append(conversation_of(f"{task.env}/{control.name}", result))
    return conversations


async def sampled_rollouts(
    model_dir: Path, tasks: list[Task], sample: int, max_tokens: int
) -> list[RunResult]:
    """`sample` rollouts of each task played by the model in `model_dir` (local backend)."""
    model = ModelSettings(
        backend="local", model=str(model_dir), default_max_tokens=max_tokens, torch_threads=1
    )
    agent = AgentSettings(
        resources_urls=["http://resources"], model_url="http://model", max_steps=3, max_retries=1
    )
    results = []
    async with in_process_stack(model_settings=model, agent_settings=agent) as stack:
        for task in tasks:
            for _ in range(sample):
                body = {"task": task.model_dump(mode="json"), "model_params": {"model": "m"}}
                results.append(RunResult.model_validate((await stack.run(body)).json()))
    return results


async def check_model(
    model_dir: Path,
    *,
    envs: list[str] | None = None,
    sample: int = 0,
    max_tokens: int = 48,
    template: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> ModelCheck:
    """Check the model folder `model_dir` (see the module); `template` replaces its chat
    template for the check (to try one before writing it into the folder)."""
    from transformers import AutoTokenizer

    say = progress or (lambda text: None)
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    if template is not None:
        tokenizer.chat_template = template
    if not getattr(tokenizer, "chat_template", None):
        raise ValueError(f"{model_dir}: the tokenizer has no chat template")
    tasks = first_tasks(envs)
    say(f"playing the controls of {len(tasks)} environments")
    conversations = await environment_conversations(tasks)
    say(f"checking {len(conversations)} conversations turn by turn")
    report = ModelCheck(check_template(tokenizer, conversations, model=str(model_dir)))
    if sample:
        say(f"sampling {sample} rollouts of {len(tasks)} environments with the model")
        played = await sampled_rollouts(model_dir, tasks, sample, max_tokens)
        report.sampled = len(played)
        report.untrainable = [
            f"{r.env}/{r.task_id}: "
            + (
                f"masked ({r.failure_kind}: {r.failure_reason})"
                if r.mask_sample
                else "not trainable"
            )
            for r in played
            if r.mask_sample or not r.trainable
        ]
    return report
