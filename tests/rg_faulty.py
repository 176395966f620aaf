"""Faulty reasoning-gym datasets for tests/test_reasoning_gym.py, registered in a grading
worker by `--preload` (the worker runs this file before it serves): graders that raise, hang,
answer outside [0, 1], answer NaN or answer no number."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from reasoning_gym.dataset import ProceduralDataset
from reasoning_gym.factory import register_dataset


@dataclass
class FaultyConfig:
    seed: int | None = None
    size: int = 1


def _faulty(name: str, score: Any) -> None:
    class Faulty(ProceduralDataset):
        def __init__(self, config: FaultyConfig) -> None:
            super().__init__(config=config, seed=config.seed, size=config.size)

        def __getitem__(self, idx: int) -> dict[str, Any]:
            return {"question": "What is 6 * 7?", "answer": "42", "metadata": {}}

        def score_answer(self, answer: str | None, entry: dict[str, Any]) -> Any:
            return score(answer)

    register_dataset(name, Faulty, FaultyConfig)


def _raises(answer: str | None) -> float:
    return float(int(answer or "not a number"))  # ValueError on any non-number


def _hangs(answer: str | None) -> float:
    time.sleep(3600)
    return 1.0


_faulty("faulty_raises", _raises)
_faulty("faulty_hangs", _hangs)
_faulty("faulty_above_range", lambda answer: 2.0)
_faulty("faulty_nan", lambda answer: float("nan"))
_faulty("faulty_not_a_number", lambda answer: "1.0")
