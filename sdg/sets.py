"""Task sets you can trust: no duplicate instances, and train/eval splits disjoint by design.

An instance is what a task poses, not how it is worded: each generator may define
`identity(row) -> str` (math: the expression; support: the question), and the default is
the task's `task_data` as canonical JSON. Then:

- **Split by hash.** An instance belongs to `eval` when the hash of its environment and
  identity falls in the eval share (10%), else to `train`. `build_set(..., split="eval")`
  keeps only eval instances, whatever the seed, so no seed can make an eval task that
  `split="train"` could also make. (`example` sets are not split: they are for people.)
- **No duplicates.** A set keeps the first row of each identity; the generator is asked
  again with derived seeds until the set is full or its instance space is spent.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

EVAL_SHARE_PER_MILLE = 100
SPLITS = ("train", "eval", "example")
#: rounds in a row that add no new instance before the instance space counts as spent
PATIENCE = 4


def identity_function(module: ModuleType) -> Callable[[dict[str, Any]], str]:
    """The generator's `identity`, or canonical `task_data` JSON."""
    custom = getattr(module, "identity", None)
    if callable(custom):
        return lambda row: str(custom(row))
    return lambda row: json.dumps(row["task_data"], sort_keys=True, separators=(",", ":"))


def split_of(env: str, identity: str) -> str:
    """`eval` or `train`: a pure function of the instance, never of a seed."""
    digest = hashlib.sha256(f"{env}\0{identity}".encode()).digest()
    return "eval" if int.from_bytes(digest[:4], "big") % 1000 < EVAL_SHARE_PER_MILLE else "train"


@dataclass
class SetReport:
    """How a set was built."""

    asked: int = 0  # rows the generator produced
    duplicates: int = 0  # rows whose instance was already in the set
    other_split: int = 0  # rows whose instance belongs to the other split
    exhausted: bool = False  # the generator ran out of new instances of this split


def build_set(
    env: str, module: ModuleType, n: int, seed: int, split: str
) -> tuple[list[dict[str, Any]], SetReport]:
    """Up to `n` rows of distinct instances of `split` (see the module docstring)."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, not {split!r}")
    identity = identity_function(module)
    report = SetReport()
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    idle = 0
    round_ = 0
    while len(rows) < n and idle < PATIENCE:
        want = max(16, 2 * (n - len(rows)))
        batch = module.generate(want, seed=seed * 7919 + round_, split=split)
        round_ += 1
        report.asked += len(batch)
        added = 0
        for row in batch:
            key = identity(row)
            if key in seen:
                report.duplicates += 1
                continue
            if split != "example" and split_of(env, key) != split:
                report.other_split += 1
                continue
            seen.add(key)
            row = {**row, "task_id": f"{env}-{split}-{seed}-{len(rows):05d}", "split": split}
            rows.append(row)
            added += 1
            if len(rows) == n:
                break
        idle = 0 if added else idle + 1
    report.exhausted = len(rows) < n
    return rows, report
