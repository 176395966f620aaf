"""Two live stacks, this checkout's and a baseline's, measured in alternating slices: CPU per
rollout of each, and their ratio, round by round.

Both stacks (bench/hot_path.py's: the three services in front of their own instant fake
model) run side by side; each round drives `--rollouts` rollouts through one, then the other
(the order swaps every round), `--concurrency` at once, and reads each stack's services' CPU.
The machine's drift falls on both alike.

Where a stack starts matters too: two stacks of the same code measured 5% to 10% apart,
the first started the cheaper. So the stacks start in the order given (`--baseline-first`
or not), and a comparison runs both ways.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import hot_path  # noqa: E402

from proofgym.clients.http import ServiceClient  # noqa: E402
from proofgym.serving.settings import CollectorSettings  # noqa: E402
from sdg.math import generate  # noqa: E402


async def rounds(stacks: dict[str, Any], n: int, c: int, count: int) -> dict[str, Any]:
    """`count` rounds of `n` rollouts, `c` at once, through each stack in turn."""
    client = ServiceClient(CollectorSettings(request_timeout_s=1200, pool_per_upstream=c))
    tasks = generate(256, seed=11)
    pids = {name: {s.name: s.process.pid for s in st.processes} for name, st in stacks.items()}
    cpu: dict[str, list[float]] = {name: [] for name in stacks}
    per_service: dict[str, list[dict[str, float]]] = {name: [] for name in stacks}
    try:
        for name, stack in stacks.items():
            await hot_path.level(client, stack, tasks, 500, 64, pids[name])  # warm-up
        for i in range(count):
            order = list(stacks) if i % 2 == 0 else list(reversed(list(stacks)))
            for name in order:
                row = await hot_path.level(client, stacks[name], tasks, n, c, pids[name])
                if row["failed"]:
                    raise SystemExit(f"{name}: {row['failed']} rollouts failed: {row['failures']}")
                cpu[name].append(row["stack_cpu_ms_per_rollout"])
                per_service[name].append(row["cpu_ms_per_rollout"])
            print(
                f"round {i + 1}/{count}: " + ", ".join(f"{k} {v[-1]:.3f}" for k, v in cpu.items())
            )
    finally:
        await client.aclose()
    ratios = [a / b for a, b in zip(cpu["this checkout"], cpu["baseline"], strict=True)]
    return {
        "cpu_ms_per_rollout": cpu,
        "median_cpu_ms_per_rollout": {k: statistics.median(v) for k, v in cpu.items()},
        "median_by_service": {
            k: {svc: statistics.median(r[svc] for r in v) for svc in v[0]}
            for k, v in per_service.items()
        },
        "ratios": ratios,
        "median_ratio": statistics.median(ratios),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", type=Path, required=True, help="the other checkout")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--rollouts", type=int, default=2000, help="per stack and round")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--baseline-first", action="store_true", help="start the baseline first")
    parser.add_argument("--out", type=Path, default=None, help="write the result (JSON) here")
    args = parser.parse_args()
    order = [("this checkout", ROOT), ("baseline", args.baseline.resolve())]
    if args.baseline_first:
        order.reverse()
    hot_path.raise_nofile()
    fakes, stacks = [], {}
    try:
        for name, code in order:
            # a service runs the code of the directory it starts in (python -m puts it first)
            hot_path.CODE = code
            fake, stack = hot_path.fake_model_stack(1024)
            fakes.append(fake)
            os.chdir(code)
            stack.start()
            stacks[name] = stack
        os.chdir(ROOT)
        result = asyncio.run(rounds(stacks, args.rollouts, args.concurrency, args.rounds))
    finally:
        for stack in stacks.values():
            stack.stop()
        for fake in fakes:
            fake.terminate()
    result["started_first"] = order[0][0]
    result["parameters"] = {
        "rounds": args.rounds,
        "rollouts": args.rollouts,
        "concurrency": args.concurrency,
        "baseline": str(args.baseline),
    }
    text = json.dumps(result, indent=1) + "\n"
    print(text)
    if args.out is not None:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
