"""proofgym tasks as rows NeMo Gym's `simple_agent` accepts.

simple_agent sends the model only `row.responses_create_params` and never reads tools or
instructions from the seed answer, so the row carries them: the environment's tool schemas
and instructions join the task's own create params. Only fields of NeMo's
`NeMoGymResponseCreateParamsNonStreaming` (which forbids extras) go there; proofgym's
(`task_id`, `env`, `env_version`, `split`, `task_data`) travel beside them, to the resources
server only.
"""

from __future__ import annotations

from typing import Any

from proofgym.wire.protocol import Task
from resources_servers.base.environment import Environment

# what NeMo's create params accept (the OpenAI Responses create fields, non-streaming)
CREATE_FIELDS = frozenset(
    {
        "input",
        "instructions",
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "max_output_tokens",
        "max_tool_calls",
        "temperature",
        "top_p",
        "top_logprobs",
        "metadata",
        "model",
        "reasoning",
        "text",
        "truncation",
        "include",
        "previous_response_id",
        "store",
        "service_tier",
        "user",
        "prompt",
        "background",
    }
)


def nemo_row(task: Task, env: Environment[Any], agent: str | None = None) -> dict[str, Any]:
    """One NeMo Gym row for `task`: tools and instructions inlined, proofgym's fields beside."""
    params = {k: v for k, v in task.responses_create_params.items() if k in CREATE_FIELDS}
    params["tools"] = list(params.get("tools") or []) + env.tool_schemas()
    extra = env.instructions(task)
    if extra:
        own = params.get("instructions")
        params["instructions"] = f"{own}\n\n{extra}" if own else extra
    row: dict[str, Any] = {
        "responses_create_params": params,
        "task_id": task.task_id,
        "env": task.env,
        "env_version": task.env_version,
        "split": task.split,
        "task_data": task.task_data,
    }
    if agent:
        row["agent_ref"] = {"type": "responses_api_agents", "name": agent}
    return row
