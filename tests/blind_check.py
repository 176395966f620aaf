"""A plant of the blind corpus and its sound twin, each validated: the verdicts they fail."""

from __future__ import annotations

from pathlib import Path

from test_validate_unseen import failed, validate

from bench.blind.harness import load, tasks_of

BLIND = Path(__file__).resolve().parents[1] / "bench" / "blind"


async def plant_and_twin(batch: str, plant: str) -> tuple[set[str], set[str]]:
    """Validate `plant` of batch `batch` (`05w`) and its twin on 4 tasks: the verdicts each
    fails."""
    module = load(BLIND / f"batch_2026_12_{batch}" / plant)
    tasks = tasks_of(module, 4)
    caught = await validate(module.Plant(), tasks)
    twin = await validate(module.Twin(), tasks)
    return failed(caught), failed(twin)
