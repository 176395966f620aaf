"""One hostile session against everyone else: seed and tool latency, idle vs under attack.

    .venv/bin/python bench/fairness.py [--calls 80] [--rounds 20]

A hostile code session submits a solution that sleeps at import, then fires `--calls`
`run_tests` at once (each runs the sandbox to its wall limit). Meanwhile honest sessions seed
`workflow` and `code` and run one `read_file`. Each latency is measured idle first, then under
the attack, in the same run, on the real code sandbox; the report is the ratio (attacked /
idle, median and worst). Before the fair executor, those calls shared asyncio's default pool
with seeding: an honest workflow seed took 9 s instead of 0.02 s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from proofgym.serving.settings import ResourcesSettings  # noqa: E402
from resources_servers.base.app import create_app  # noqa: E402


def task(env: str) -> dict[str, Any]:
    line = (ROOT / "tasks" / env / "example.jsonl").read_text().splitlines()[0]
    return dict(json.loads(line))


async def seed(client: httpx.AsyncClient, env: str) -> tuple[float, dict[str, str]]:
    """Seed a session; the seconds it took and the headers that name and unlock it."""
    sid = f"bench-{uuid.uuid4().hex}"
    start = time.perf_counter()
    r = await client.post(f"/{env}/seed_session", json={"session_id": sid, "task": task(env)})
    r.raise_for_status()
    return time.perf_counter() - start, {
        "X-Session-Id": sid,
        "X-Session-Key": r.json()["session_key"],
    }


async def honest_round(client: httpx.AsyncClient) -> dict[str, float]:
    out = {}
    for env in ("workflow", "code"):
        out[f"seed {env}"], owner = await seed(client, env)
        if env == "code":
            start = time.perf_counter()
            r = await client.post(
                "/code/tools/read_file", json={"path": "solution.py"}, headers=owner
            )
            r.raise_for_status()
            out["code read_file"] = time.perf_counter() - start
        sid = owner["X-Session-Id"]
        await client.post(f"/{env}/close_session", json={"session_id": sid}, headers=owner)
    return out


async def measure(client: httpx.AsyncClient, rounds: int) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {}
    for _ in range(rounds):
        for name, value in (await honest_round(client)).items():
            samples.setdefault(name, []).append(value)
    return samples


async def main(calls: int, rounds: int) -> None:
    app = create_app(ResourcesSettings(envs=["code", "workflow"]))
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://r", timeout=600) as client,
    ):
        await measure(client, 3)  # warm up
        idle = await measure(client, rounds)
        _, hostile = await seed(client, "code")
        await client.post(
            "/code/tools/write_file",
            json={"path": "solution.py", "content": "import time\ntime.sleep(60)\n"},
            headers=hostile,
        )
        flood = [
            asyncio.create_task(client.post("/code/tools/run_tests", json={}, headers=hostile))
            for _ in range(calls)
        ]
        await asyncio.sleep(0.5)
        attacked = await measure(client, rounds)
        answers = await asyncio.gather(*flood)
    kinds: dict[str, int] = {}
    for r in answers:
        kind = (r.json().get("error") or {}).get("kind") or "ran"
        kinds[kind] = kinds.get(kind, 0) + 1
    print(f"hostile session: {calls} run_tests at once -> {kinds} (HTTP {answers[0].status_code})")
    print(f"{'honest call':<16} {'idle ms':>9} {'attacked ms':>12} {'ratio':>6} {'worst':>6}")
    for name in idle:
        a, b = statistics.median(idle[name]), statistics.median(attacked[name])
        worst = max(attacked[name]) / max(idle[name])
        print(f"{name:<16} {a * 1000:9.1f} {b * 1000:12.1f} {b / a:6.2f} {worst:6.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=80)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    asyncio.run(main(args.calls, args.rounds))
