"""Tasks from a reasoning-gym dataset's own generator, by seed.

Row `i` of `generate(dataset, n, seed, split)` is entry 0 of `create_dataset(dataset,
seed=s, size=1)` with `s` drawn by a hash of (dataset, seed, i) from the split's own range of
seeds: `train` [0, 2**31), `eval` [2**31, 3 * 2**30), `example` [3 * 2**30, 2**32). The ranges
never meet, so no seed of one split is a seed of another (and `proofgym sdg` also splits by a
hash of the question, so the same question drawn twice lands in one split). Seeds stay below
2**32: some generators seed numpy with them.

Each row is self-checked before it is kept: the dataset's grader, through the same worker and
wrapper as `verify`, on the entry as stored (JSON round-tripped), must give the reference 1.0
and an empty answer less. A dataset whose entries carry no right answer cannot be checked and
is refused (`NoReference`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import sys
from typing import Any

from interop.reasoning_gym.datasets import NO_REFERENCE, REFERENCE_IN_METADATA, env_name
from interop.reasoning_gym.env import ANSWER_FORMAT, RGTask, grader_pool
from interop.reasoning_gym.grader import GraderFailed

#: (first seed, how many) of each split
SPLIT_SEEDS = {
    "train": (0, 2**31),
    "eval": (2**31, 2**30),
    "example": (3 * 2**30, 2**30),
}
#: entries drawn per row asked before a generator counts as unable to make checked tasks
ATTEMPTS_PER_ROW = 4


class NoReference(ValueError):
    """A dataset whose tasks cannot be checked: its entries carry no right answer."""


def row_seed(dataset: str, seed: int, split: str, i: int) -> int:
    """The generator seed of the `i`-th entry drawn for (`dataset`, `seed`, `split`)."""
    first, size = SPLIT_SEEDS["example" if split not in SPLIT_SEEDS else split]
    digest = hashlib.sha256(f"{dataset}\0{seed}\0{i}".encode()).digest()
    return first + int.from_bytes(digest[:8], "big") % size


def _json(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def _reference(dataset: str, entry: dict[str, Any]) -> str | None:
    key = REFERENCE_IN_METADATA.get(dataset)
    if key is None:
        answer = entry.get("answer")
        return answer if isinstance(answer, str) else None
    value = entry["metadata"].get(key)
    return value if isinstance(value, str) else json.dumps(value)


def task_data(dataset: str, rg_seed: int) -> dict[str, Any]:
    """The `task_data` of the entry `rg_seed` makes (NoReference when it has no answer)."""
    import reasoning_gym

    # a generator's prints (bf's prints dots) go to stderr: stdout may be a `--json` report
    with contextlib.redirect_stdout(sys.stderr):
        made = reasoning_gym.create_dataset(dataset, seed=rg_seed, size=1)
        item = made[0]
    config = {k: v for k, v in dataclasses.asdict(made.config).items() if k not in ("seed", "size")}
    entry = _json(
        {"question": item["question"], "answer": item["answer"], "metadata": item["metadata"]}
    )
    reference = _reference(dataset, entry)
    if reference is None:
        raise NoReference(
            f"{env_name(dataset)}: reasoning-gym's {dataset} entries carry no right answer "
            "(several are right, and its metadata holds none), so no task can be checked"
        )
    data = {
        "dataset": dataset,
        "config": _json(config),
        "rg_seed": rg_seed,
        "entry": entry,
        "reference": reference,
    }
    return RGTask.model_validate(data).model_dump(mode="json")


def self_check(data: dict[str, Any]) -> str | None:
    """Why a task's grader does not separate its reference from no answer (None: it does)."""
    pool = grader_pool()
    args = (data["dataset"], data["config"], data["entry"])
    try:
        right = pool.score(*args, f"<answer>{data['reference']}</answer>").reward
        empty = pool.score(*args, "<answer></answer>").reward
    except GraderFailed as exc:
        return f"the grader failed ({exc.kind}): {exc.detail}"
    if right != 1.0:
        return f"the reference scores {right!r}"
    if empty >= 1.0:
        return f"an empty answer scores {empty!r}"
    return None


def generate(dataset: str, n: int, seed: int, split: str = "example") -> list[dict[str, Any]]:
    """Up to `n` checked task rows (fewer only when `ATTEMPTS_PER_ROW * n` entries gave fewer
    checked ones; ValueError, with why, when none was)."""
    if dataset in NO_REFERENCE:
        raise NoReference(
            f"{env_name(dataset)}: reasoning-gym's {dataset} entries carry no right answer "
            "(several are right, and its metadata holds none), so no task can be checked"
        )
    env = env_name(dataset)
    rows: list[dict[str, Any]] = []
    refused: list[str] = []
    for i in range(ATTEMPTS_PER_ROW * n):
        if len(rows) == n:
            break
        data = task_data(dataset, row_seed(dataset, seed, split, i))
        why = self_check(data)
        if why is not None:
            refused.append(why)
            continue
        prompt = f"{data['entry']['question']}\n\n{ANSWER_FORMAT}"
        rows.append(row(env, f"{env}-{split}-{seed}-{len(rows):05d}", split, prompt, data))
    if not rows and refused:
        raise ValueError(f"{env}: no entry passed its own grader's check: {refused[0]}")
    return rows


def identity(row: dict[str, Any]) -> str:
    """What a task poses: its question (two seeds that draw the same question are one task)."""
    return str(row["task_data"]["entry"]["question"])


def row(env: str, task_id: str, split: str, prompt: str, data: dict[str, Any]) -> dict[str, Any]:
    """A task row whose policy input is one user message: the shape `sdg.rows.task_row`
    makes, written again because `interop` and `sdg` are sibling layers (neither imports the
    other)."""
    return {
        "task_id": task_id,
        "env": env,
        "env_version": None,
        "split": split,
        "responses_create_params": {
            "input": [{"role": "user", "type": "message", "content": prompt}]
        },
        "task_data": data,
    }
