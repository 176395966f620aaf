"""A batch of code rollouts whose solution sleeps just under the run limit, against everyone
else: masked rollouts, and the latency of honest rollouts of other environments beside them.
This checkout beside a baseline checkout, in one run.

    .venv/bin/python bench/slow_verify.py --baseline DIR [--batch 84]
        [--request-timeouts 30,120] [--json OUT]

Each checkout's three services run as `proofgym up` starts them (the scripted model), from
that checkout. First honest `workflow` and `math` rollouts (the reference control) are timed
alone; then `--batch` code rollouts start at once, each writing a solution that sleeps 9 s at
import (the sandbox's wall limit is 10 s) and ending with a claim, so every verify runs the
hidden tests to nearly the limit; meanwhile the same honest rollouts are timed again. The
report: how many of the batch came back masked (a policy's slowness must never become a
masked sample), and the honest rollouts' latency under the batch over their latency alone.
Each checkout runs once per `--request-timeouts` value (`PROOFGYM_REQUEST_TIMEOUT_S` of its
services): a short request timeout must not turn the queue of verifies into masks either.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from proofgym.clients.http import ServiceClient  # noqa: E402
from proofgym.serving.settings import CollectorSettings  # noqa: E402
from proofgym_stack.up import Stack, free_port  # noqa: E402

SLEEP_S = 9  # the sandbox's wall limit is 10 s


def first_task(env: str) -> dict[str, Any]:
    line = (ROOT / "tasks" / env / "example.jsonl").read_text().splitlines()[0]
    return dict(json.loads(line))


def slow_code_rollout() -> dict[str, Any]:
    task = first_task("code")
    fn = task["task_data"]["function"]
    source = f"import time\ntime.sleep({SLEEP_S})\n\ndef {fn}(*args):\n    return None\n"
    write = {
        "type": "function_call",
        "name": "write_file",
        "arguments": json.dumps({"path": "solution.py", "content": source}),
    }
    claim = {"type": "message", "content": "Done: implemented it; the tests pass."}
    script = [[write], [claim]]
    return {
        "task": task,
        "model_params": {"model": "scripted", "script": script},
        "rollout_id": uuid.uuid4().hex,
    }


async def honest(client: ServiceClient, url: str, rounds: int) -> dict[str, list[float]]:
    """Seconds per honest reference rollout of workflow and math, `rounds` of each."""
    out: dict[str, list[float]] = {}
    for _ in range(rounds):
        for env in ("workflow", "math"):
            body = {"task": first_task(env), "control": "reference"}
            start = time.perf_counter()
            answer = await client.post_json(f"{url}/run", body, idempotent=False)
            assert answer["reward"] >= 1.0 and not answer["mask_sample"], answer
            out.setdefault(env, []).append(time.perf_counter() - start)
    return out


async def measure(url: str, batch: int, rounds: int) -> dict[str, Any]:
    client = ServiceClient(CollectorSettings(max_retries=0, request_timeout_s=3600))
    try:
        await honest(client, url, 2)  # warm
        alone = await honest(client, url, rounds)
        start = time.perf_counter()
        slow = [
            asyncio.create_task(
                client.post_json(f"{url}/run", slow_code_rollout(), idempotent=False)
            )
            for _ in range(batch)
        ]
        await asyncio.sleep(1.0)
        beside = await honest(client, url, rounds)
        results = await asyncio.gather(*slow)
        batch_s = time.perf_counter() - start
    finally:
        await client.aclose()
    masked = [r for r in results if r["mask_sample"]]
    return {
        "batch": batch,
        "batch_seconds": round(batch_s, 1),
        "masked": len(masked),
        "masked_kinds": dict(Counter(str(r["failure_kind"]) for r in masked)),
        "rewards": dict(Counter(str(r["reward"]) for r in results)),
        "honest": {
            env: {
                "alone_median_s": round(statistics.median(alone[env]), 3),
                "beside_median_s": round(statistics.median(beside[env]), 3),
                "ratio_median": round(
                    statistics.median(beside[env]) / statistics.median(alone[env]), 2
                ),
                "ratio_worst": round(max(beside[env]) / max(alone[env]), 2),
            }
            for env in alone
        },
    }


def run_checkout(code: Path, batch: int, rounds: int, request_timeout_s: float) -> dict[str, Any]:
    """The stack started from checkout `code` (python -m puts its code first), its services'
    request timeout `request_timeout_s`, measured."""
    here = Path.cwd()
    stack = Stack(
        agent_port=free_port(),
        resources_ports=[free_port()],
        model_port=free_port(),
        env={
            "PROOFGYM_ENVS": '["code", "workflow", "math"]',
            "PROOFGYM_LOG_LEVEL": "warning",
            "PROOFGYM_REQUEST_TIMEOUT_S": f"{request_timeout_s:g}",
        },
        model_env={"PROOFGYM_BACKEND": "scripted"},
    )
    os.chdir(code)
    try:
        stack.start()
        os.chdir(here)
        return asyncio.run(measure(stack.agent_url, batch, rounds))
    finally:
        os.chdir(here)
        stack.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, required=True, help="the checkout to compare")
    parser.add_argument("--batch", type=int, default=84)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--request-timeouts", default="120", help="seconds, comma-separated")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    result: dict[str, Any] = {}
    for timeout in (float(t) for t in args.request_timeouts.split(",")):
        for name, code in (("this checkout", ROOT), ("baseline", args.baseline.resolve())):
            key = f"{name}, request timeout {timeout:g} s"
            result[key] = run_checkout(code, args.batch, args.rounds, timeout)
            print(key, json.dumps(result[key]), flush=True)
    result["parameters"] = {
        "request_timeouts_s": args.request_timeouts,
        "batch": args.batch,
        "rounds": args.rounds,
        "sleep_s": SLEEP_S,
        "baseline": str(args.baseline),
    }
    text = json.dumps(result, indent=1) + "\n"
    if args.json:
        args.json.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
