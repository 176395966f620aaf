"""Recall of `proofgym validate` on the blind corpus, and its false alarms on the twins.

`python bench/blind_recall.py [BATCH ...]` (default: every batch under bench/blind/): for each
plant, first the harness proves it is what its author says (the exploit is paid on the plant,
not on the twin; `bench/blind/harness.py`), then `validate_env` runs on the plant and on its
twin with the CLI's defaults. A plant is caught when validate fails it on a verdict its twin
passes; a twin that fails is a false alarm (`violation_declared`, about the author's controls
and not the reward, is reported apart). Writes `bench/blind/<batch>/RESULTS.json` and prints
one line per plant and the figures: the fresh batch's (the honest one: its plants were
written by an author who never read `validation/`, before validate ran on them) and the
corpus's.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.blind.harness import check_plant, load, tasks_of  # noqa: E402
from proofgym_stack.validation import validate_env  # noqa: E402

BLIND = ROOT / "bench" / "blind"
SAMPLE = 4
#: verdicts about the author's controls, not the reward: a missing `violation_*` control fails
#: on plant and twin alike and is reported apart, never counted as a catch or a false alarm
NOT_ABOUT_THE_REWARD = frozenset({"violation_declared"})


def plants(batch: Path) -> list[Path]:
    """The plant folders of a batch (packages with a PLANT.md)."""
    return sorted(
        p for p in batch.iterdir() if (p / "__init__.py").exists() and (p / "PLANT.md").exists()
    )


async def measure(folder: Path, sample: int = SAMPLE) -> dict[str, Any]:
    """One plant: its soundness, and what validate says of it and of its twin."""
    _, sound = await check_plant(folder)
    module = load(folder)
    tasks = tasks_of(module, max(sample, 6))
    row: dict[str, Any] = {"name": folder.name, "sound": sound}
    for side in ("Plant", "Twin"):
        start = time.perf_counter()
        report = await validate_env(getattr(module, side)(), tasks, parallel=64, sample=sample)
        failed = [v.name for v in report.verdicts if not v.passed]
        row[side.lower()] = {
            "passed": not [n for n in failed if n not in NOT_ABOUT_THE_REWARD],
            "failed": [n for n in failed if n not in NOT_ABOUT_THE_REWARD],
            "controls_missing": sorted(set(failed) & NOT_ABOUT_THE_REWARD),
            "details": {v.name: v.detail[:400] for v in report.verdicts if not v.passed},
            "findings": [
                {k: f[k] for k in ("severity", "oracle", "site", "what", "why", "paste")}
                for f in report.findings
                if f["severity"] in ("pays", "masks")
            ][:4],
            "seconds": round(time.perf_counter() - start, 1),
        }
    row["only_plant_fails"] = sorted(set(row["plant"]["failed"]) - set(row["twin"]["failed"]))
    row["caught"] = bool(row["only_plant_fails"])  # a verdict the twin passes
    row["false_alarm"] = not row["twin"]["passed"]
    return row


def main(argv: list[str]) -> int:
    batches = [Path(a) for a in argv] or sorted(
        p for p in BLIND.iterdir() if p.is_dir() and p.name.startswith("batch_")
    )
    total = caught = alarms = 0
    for batch in batches:
        rows = []
        for folder in plants(batch):
            row = asyncio.run(measure(folder))
            rows.append(row)
            mark = "caught" if row["caught"] else "MISSED"
            twin_failed = ",".join(row["twin"]["failed"])
            alarm = f"  TWIN FAILED {twin_failed}" if row["false_alarm"] else ""
            by = row["only_plant_fails"] or row["plant"]["failed"]
            print(f"{batch.name}/{row['name']}: {mark} by {by}{alarm}", flush=True)
        sound = [r for r in rows if r["sound"]]
        figures = {
            "plants": len(rows),
            "sound": len(sound),
            "caught": sum(r["caught"] for r in sound),
            "twins_failed": sum(r["false_alarm"] for r in sound),
        }
        (batch / "RESULTS.json").write_text(
            json.dumps({"figures": figures, "rows": rows}, indent=1) + "\n"
        )
        n, alarmed = figures["sound"], figures["twins_failed"]
        print(f"{batch.name}: caught {figures['caught']}/{n}, twins failed {alarmed}/{n}")
        total += figures["sound"]
        caught += figures["caught"]
        alarms += figures["twins_failed"]
    print(f"corpus: caught {caught}/{total}, twins failed {alarms}/{total}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
