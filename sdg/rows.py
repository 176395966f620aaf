"""The one shape of a generated task row."""

from __future__ import annotations

from typing import Any


def task_row(
    env: str, task_id: str, split: str, prompt: str, task_data: dict[str, Any]
) -> dict[str, Any]:
    """A task row whose policy input is one user message."""
    return {
        "task_id": task_id,
        "env": env,
        "env_version": None,
        "split": split,
        "responses_create_params": {
            "input": [{"role": "user", "type": "message", "content": prompt}]
        },
        "task_data": task_data,
    }
