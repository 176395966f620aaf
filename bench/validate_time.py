"""What the search costs: a full `validate` of each shipped environment against the same
validator without it, side by side in one run.

The baseline is the validator as it stood before the search (issue 42's "today"): every
check but `search` and the checks added with it (the order of a failure, a stated value the
model drops), with the search's budget 0. The full run is the CLI's defaults (4 tasks, a
budget of 200). Each environment is run `--repeat` times a side, alternating, and the ratio
is full / baseline of the medians. Written to `bench/VALIDATE_TIME.json` and `.md`.

    python bench/validate_time.py [--repeat 2] [ENV ...]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from proofgym.serving.settings import ResourcesSettings  # noqa: E402
from proofgym_stack.environments import available_environments, default_names  # noqa: E402
from proofgym_stack.examples import example_tasks  # noqa: E402
from proofgym_stack.validation import runner  # noqa: E402

#: checks that came with the search (issue 42): left out of the baseline
WITH_THE_SEARCH = frozenset(
    {"search", "steps:order_of_a_failure", "task_data:dropped_by_the_model"}
)


async def one(name: str, full: bool) -> tuple[float, bool]:
    """One validate of `name`: (seconds, passed)."""
    settings = ResourcesSettings.from_env()
    env = available_environments(settings)[name].from_settings(settings)
    tasks, _ = example_tasks(name)
    saved = runner.CHECKS
    if not full:
        runner.CHECKS = tuple(c for c in saved if c.name not in WITH_THE_SEARCH)
    try:
        start = time.perf_counter()
        report = await runner.validate_env(env, tasks, sample=4, budget=200 if full else 0)
        return time.perf_counter() - start, report.passed
    finally:
        runner.CHECKS = saved


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("envs", nargs="*")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--out", default=str(ROOT / "bench" / "VALIDATE_TIME.json"))
    args = parser.parse_args(argv)
    names = args.envs or default_names(available_environments(ResourcesSettings.from_env()))
    rows = []
    for name in names:
        base: list[float] = []
        full: list[float] = []
        passed = True
        for n in range(args.repeat):
            for side in (False, True):
                seconds, ok = asyncio.run(one(name, side))
                (full if side else base).append(seconds)
                passed = passed and ok
                print(
                    f"{name} {'full' if side else 'baseline'} #{n + 1}: {seconds:.1f}s", flush=True
                )
        b, f = statistics.median(base), statistics.median(full)
        rows.append(
            {
                "env": name,
                "baseline_s": round(b, 2),
                "full_s": round(f, 2),
                "ratio": round(f / b, 2),
                "passed": passed,
            }
        )
    out = Path(args.out)
    out.write_text(json.dumps({"repeat": args.repeat, "rows": rows}, indent=2) + "\n")
    lines = [
        "# What the search costs: a full validate against the validator without it",
        "",
        f"`python bench/validate_time.py` (median of {args.repeat} alternating runs a side, one",
        "process, these 2 cores; the baseline leaves out the search and the checks added with it).",
        "",
        "| environment | without the search (s) | full validate (s) | ratio | passes |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['env']} | {r['baseline_s']} | {r['full_s']} | {r['ratio']}x | {r['passed']} |"
        )
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
