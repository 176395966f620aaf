"""What keeping one coverage measurement per verify trace saves: a full `validate` of blind
plants and twins with the trace as it is (each verify its own dynamic context of one kept
measurement) against the same run with a fresh `coverage.Coverage` for every verify call (the
trace before, `CALLS_PER_MEASUREMENT = 1`), alternating, in one process. The findings and
verdicts of the two runs must be the same (the bench says so, and fails if not).

    python bench/trace_speed.py [--rounds 2] [--out bench/TRACE_SPEED.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.blind.harness import load, tasks_of  # noqa: E402
from proofgym_stack.validation import validate_env  # noqa: E402
from proofgym_stack.validation.search import tracing  # noqa: E402

PLANTS = [
    "batch_2026_12_05n/blind_hedgerow",
    "batch_2026_12_05n/blind_fabric",
    "batch_2026_12_05m/blind_customs",
    "batch_2026_12_05o/blind_subtitles",
]


def _summary(report: Any) -> str:
    verdicts = sorted((v.name, v.passed, v.detail) for v in report.verdicts)
    return json.dumps([verdicts, report.findings], sort_keys=True, default=str)


async def _timed(env: Any, tasks: Any, calls: int) -> tuple[float, str]:
    tracing.CALLS_PER_MEASUREMENT = calls
    start = time.perf_counter()
    report = await validate_env(env, tasks, sample=4, parallel=64)
    return time.perf_counter() - start, _summary(report)


async def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "TRACE_SPEED.json")
    args = parser.parse_args()
    kept = tracing.CALLS_PER_MEASUREMENT
    rows = []
    for name in PLANTS:
        module = load(ROOT / "bench" / "blind" / name)
        for side in ("Plant", "Twin"):
            tasks = tasks_of(module, 6)
            fresh_s, kept_s, same = [], [], True
            for _ in range(args.rounds):  # alternating, so drift hits both alike
                t_fresh, a = await _timed(getattr(module, side)(), tasks, 1)
                t_kept, b = await _timed(getattr(module, side)(), tasks, kept)
                fresh_s.append(t_fresh)
                kept_s.append(t_kept)
                same = same and a == b
            row = {
                "env": f"{name}:{side}",
                "fresh_per_call_s": round(statistics.median(fresh_s), 2),
                "kept_s": round(statistics.median(kept_s), 2),
                "speedup": round(statistics.median(fresh_s) / statistics.median(kept_s), 2),
                "same_report": same,
            }
            rows.append(row)
            print(json.dumps(row), flush=True)
    tracing.CALLS_PER_MEASUREMENT = kept
    args.out.write_text(json.dumps({"rounds": args.rounds, "rows": rows}, indent=1) + "\n")
    return 0 if all(r["same_report"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
