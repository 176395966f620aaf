"""A plant of the blind corpus caught by `validate` while its sound twin passes."""

from __future__ import annotations

from pathlib import Path

from test_validate_unseen import failed, validate

from bench.blind.harness import load, tasks_of

BLIND = Path(__file__).resolve().parents[1] / "bench" / "blind"


async def caught_and_twin_passes(batch: str, plant: str, verdict: str = "search") -> None:
    """Validate `plant` of batch `batch` (`05w`) on 4 tasks: its plant fails `verdict`, its
    twin fails nothing."""
    module = load(BLIND / f"batch_2026_12_{batch}" / plant)
    tasks = tasks_of(module, 4)
    caught = await validate(module.Plant(), tasks)
    assert verdict in failed(caught), (plant, caught.verdicts)
    twin = await validate(module.Twin(), tasks)
    assert not failed(twin), (plant, [v for v in twin.verdicts if not v.passed])
