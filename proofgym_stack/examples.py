"""Where example tasks come from when a command is not given a task file.

From the current folder's `tasks/<env>/example.jsonl` when there is one (a checkout), else
from the environment's own generator (`sdg/<env>.py`, seed 0), so that `proofgym validate` and
`proofgym demo` work from any folder and from an installed (non-editable) package. Nothing is
read from the installed source tree.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from proofgym.rollouts.collect import load_tasks
from proofgym.wire.protocol import Task

GENERATED_EXAMPLES = 8


class NoExamples(Exception):
    """An environment with neither an example file here nor a generator."""


def tasks_root() -> Path:
    """The `tasks` folder of the current folder (where `sdg` writes and examples are read)."""
    return Path.cwd() / "tasks"


def example_file(env: str) -> Path:
    """Where the example tasks of `env` are in a checkout."""
    return tasks_root() / env / "example.jsonl"


def generated_rows(env: str, n: int = GENERATED_EXAMPLES, seed: int = 0) -> list[dict[str, Any]]:
    """`n` example task rows from the generator of `env`; NoExamples when it has none."""
    from proofgym_stack.environments import generator

    try:
        module = generator(env)
    except ModuleNotFoundError:
        raise NoExamples(
            f"{env} has no generator (sdg/{env}.py) and no {example_file(env)}"
        ) from None
    rows: list[dict[str, Any]] = module.generate(n, seed=seed, split="example")
    return rows


def example_tasks(env: str) -> tuple[list[Task], str]:
    """The example tasks of `env` and where they came from."""
    path = example_file(env)
    if path.is_file():
        return [t for t in load_tasks(path) if t.env == env], str(path)
    rows = generated_rows(env)
    return [Task.model_validate(r) for r in rows], f"the {env} generator (seed 0)"
