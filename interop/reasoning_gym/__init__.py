"""reasoning-gym's datasets as proofgym environments (the `rg` extra).

Each dataset of the installed reasoning-gym is an environment `rg_<dataset>` (`env.py`): its
generator makes the tasks (`generate.py`, `proofgym sdg rg_<dataset>`), its own extraction and
grader score the answer, in a worker process with a deadline (`grader.py`, `worker.py`).
Without the extra there are none, and nothing here imports reasoning-gym until a task is
generated; grading imports it in the worker only.
"""

from __future__ import annotations

import functools
import types
from typing import Any

from interop.reasoning_gym.datasets import PREFIX, installed_version


def environments() -> dict[str, Any]:
    """Every `rg_*` environment class by name (empty without the extra)."""
    if installed_version() is None:
        return {}
    from interop.reasoning_gym.env import environment_classes

    return dict(environment_classes())


def is_rg(env: str) -> bool:
    """Whether `env` names a reasoning-gym environment (installed or not)."""
    return env.startswith(PREFIX)


@functools.cache
def generator(env: str) -> types.ModuleType:
    """The generator of `env` in the shape of an `sdg/<env>.py` module (`generate(n, seed,
    split)`, `identity(row)`); ModuleNotFoundError when `env` is no installed dataset."""
    classes = environments()
    if env not in classes:
        raise ModuleNotFoundError(
            f"no reasoning-gym dataset for {env} (is the rg extra installed?)"
        )
    from interop.reasoning_gym import generate as gen

    dataset = classes[env].dataset
    module = types.ModuleType(f"rg_generator_{dataset}", f"reasoning-gym's {dataset} generator")

    def generate(n: int, seed: int, split: str = "example") -> list[dict[str, Any]]:
        return gen.generate(dataset, n, seed, split)

    module.generate = generate  # type: ignore[attr-defined]
    module.identity = gen.identity  # type: ignore[attr-defined]
    return module
