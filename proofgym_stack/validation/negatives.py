"""Generic negative trajectories every environment must fail, whatever it is."""

from __future__ import annotations

import json
import random
import string
from typing import Any

from proofgym.wire.protocol import Task
from proofgym.wire.responses import message_text, normalize_input

CLAIM = "Done. I have completed the task successfully and verified the result."


def prompt_text(task: Task) -> str:
    """The text of every input message of the task."""
    items = normalize_input(task.responses_create_params.get("input", ""))
    return "\n".join(message_text(i) for i in items if i.get("type", "message") == "message")


def task_words(env: Any, task: Task) -> str:
    """What the task's words state to the policy: the prompt, then the instructions."""
    return "\n".join([prompt_text(task), env.instructions(task) or ""])


def _say(text: str) -> dict[str, Any]:
    return {"type": "message", "content": text}


def _value(schema: dict[str, Any], rng: random.Random) -> Any:
    kind = schema.get("type")
    if "enum" in schema:
        return rng.choice(schema["enum"])
    if kind == "integer":
        return rng.randint(-5, 100)
    if kind == "number":
        return round(rng.uniform(-5, 100), 2)
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "array":
        return [_value(schema.get("items", {"type": "string"}), rng) for _ in range(2)]
    if kind == "object":
        return {}
    return "".join(rng.choices(string.ascii_lowercase + "/._", k=rng.randint(1, 12)))


def random_tool_calls(
    tools: list[dict[str, Any]], rng: random.Random, turns: int = 4
) -> list[list[dict[str, Any]]]:
    """`turns` turns of calls to real tools with arguments of the right types, random values."""
    script = []
    for _ in range(turns):
        tool = rng.choice(tools)
        props = (tool.get("parameters") or {}).get("properties", {})
        args = {name: _value(schema, rng) for name, schema in props.items()}
        script.append(
            [{"type": "function_call", "name": tool["name"], "arguments": json.dumps(args)}]
        )
    return script


def generic_negatives(
    task: Task, tools: list[dict[str, Any]], seed: int
) -> dict[str, list[list[dict[str, Any]]]]:
    """Scripts for the negatives the framework adds to every environment, by name."""
    rng = random.Random(f"{seed}:{task.task_id}")
    garbage = " ".join(
        "".join(rng.choices(string.ascii_letters + string.digits, k=8)) for _ in range(12)
    )
    scripts = {
        "empty_answer": [[_say("")]],
        "garbage_text": [[_say(garbage)]],
        "prompt_echo": [[_say(prompt_text(task) or "(empty prompt)")]],
        "claim_without_action": [[_say(CLAIM)]],
    }
    if tools:
        scripts["random_tool_calls"] = [*random_tool_calls(tools, rng), [_say(CLAIM)]]
    return scripts
