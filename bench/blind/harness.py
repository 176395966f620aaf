"""Play scripted trajectories on a planted environment through the real services (in-process).

The blind corpus's own checker: it proves each plant is what its author says (the reference
passes on the plant and its twin, the exploit is paid on the plant and not on the twin) using
only the services, never `proofgym validate`. Plant authors run it; `bench/blind_recall.py`
then measures what `validate` finds.

A plant folder (`bench/blind/<batch>/<plant>/__init__.py`) exports:
- `Plant`, `Twin`: two `Environment` classes with the same `name`, tools and controls; the
  plant has one author's mistake, the twin is the sound version;
- `generate(n, seed) -> list[dict]`: task rows for that name (deterministic by seed);
- `exploit(task) -> list[Turn]`: a scripted trajectory paid full reward on the plant, the floor
  on the twin;
and a `PLANT.md` that says what the mistake is, written before `validate` first ran on it.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from proofgym.serving.settings import ResourcesSettings
from proofgym.wire.protocol import RunResult, Task
from proofgym_stack.testing import in_process_stack

ROOT = Path(__file__).resolve().parents[2]


def load(folder: Path) -> ModuleType:
    """Import the plant package in `folder` (a folder under bench/blind/<batch>/)."""
    rel = folder.resolve().relative_to(ROOT)
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    return importlib.import_module(".".join(rel.parts))


def tasks_of(module: ModuleType, n: int, seed: int = 0) -> list[Task]:
    """The plant's first `n` generated tasks."""
    return [Task.model_validate(row) for row in module.generate(n, seed)]


async def play(env: Any, tasks: list[Task], scripts: list[list[Any]]) -> list[RunResult]:
    """Play `scripts[i]` on `tasks[i]` through the agent, each in its own session."""
    async with in_process_stack(
        resources_settings=ResourcesSettings(max_sessions=1024), envs={env.name: env}
    ) as stack:
        out = []
        for task, script in zip(tasks, scripts, strict=True):
            body = {
                "task": task.model_dump(mode="json"),
                "model_params": {"model": "scripted", "script": script},
            }
            r = await stack.run(body)
            r.raise_for_status()
            out.append(RunResult.model_validate(r.json()))
        return out


@dataclass
class PlantCheck:
    """What one plant scored: rewards of the reference and the exploit on plant and twin."""

    name: str
    reference_plant: list[float]
    reference_twin: list[float]
    exploit_plant: list[float]
    exploit_twin: list[float]
    masked: int

    def sound(self, top: float, floor: float) -> bool:
        """The plant is what it claims: references pass on both, the exploit pays only the plant."""
        return (
            self.masked == 0
            and all(r >= top - 1e-9 for r in self.reference_plant + self.reference_twin)
            and all(r >= top - 1e-9 for r in self.exploit_plant)
            and all(r <= floor + 1e-9 for r in self.exploit_twin)
        )


async def check_plant(folder: Path, n: int = 6) -> tuple[PlantCheck, bool]:
    """Play the reference and the exploit on `n` tasks of the plant and its twin."""
    module = load(folder)
    tasks = tasks_of(module, n)
    rewards: dict[str, list[float]] = {}
    masked = 0
    for side in ("Plant", "Twin"):
        env = getattr(module, side)()
        refs = [next(c for c in env.controls(t) if c.name == "reference").script for t in tasks]
        for what, scripts in (("reference", refs), ("exploit", [module.exploit(t) for t in tasks])):
            results = await play(env, tasks, scripts)
            masked += sum(r.mask_sample for r in results)
            rewards[f"{what}_{side.lower()}"] = [r.reward for r in results]
    check = PlantCheck(folder.name, masked=masked, **rewards)
    env = module.Plant()
    low = env.reward_range[0]
    return check, check.sound(env.passing_reward(), low)


def main(argv: list[str]) -> int:
    """`python bench/blind/harness.py FOLDER...`: check each plant; exit 1 if any is unsound."""
    bad = 0
    for arg in argv:
        check, ok = asyncio.run(check_plant(Path(arg)))
        print(json.dumps({"plant": check.name, "sound": ok, **check.__dict__}))
        bad += not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
