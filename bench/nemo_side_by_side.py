"""proofgym against NeMo Gym, side by side in one run: rollouts/s and CPU per rollout.

    .venv/bin/python bench/nemo_side_by_side.py [--levels 16,256,1024] [--rollouts 2000]
                                               [--out bench/NEMO_SIDE_BY_SIDE.md]

Needs the NeMo Gym venv that `make test-interop` builds (.interop/nemo, Python 3.13, nemo-gym
0.7.0). Both stacks play one-tool rollouts against an instant fake model, driven by the same
client at the same concurrency, level by level, alternating:

- NeMo Gym: its `simple_agent`, its `example_single_tool_call` resources server (a weather
  tool) and its `openai_model` model server, each its own process as NeMo Gym starts them, the
  model server in front of a fake Responses endpoint (a tool call, then a final message);
- proofgym: `proofgym up`'s three services (agent, math resources server, model interface
  with the `openai` backend) in front of a fake chat-completions endpoint (the model interface
  turns chat into Responses with token data; NeMo Gym's `openai_model` passes Responses
  through, the cheaper of its model servers).

A rollout is `/run` of one task: seed, 2 model calls, 1 tool call, verify (and proofgym's
close). CPU: user+system seconds of each stack's processes (not the fakes) per rollout.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.hot_path import cpu_seconds, fake_model_stack, pct  # noqa: E402
from bench.hot_path_report import markdown_table, save_report  # noqa: E402
from proofgym.clients.http import ServiceClient  # noqa: E402
from proofgym.serving.server import raise_nofile  # noqa: E402
from proofgym.serving.settings import CollectorSettings  # noqa: E402
from proofgym_stack.up import Stack, free_port  # noqa: E402
from sdg.math import generate  # noqa: E402

NEMO = ROOT / ".interop" / "nemo"

FAKE_RESPONSES = """
import json, sys, uuid
from aiohttp import web

def item_call():
    return {"type": "function_call", "id": "fc_" + uuid.uuid4().hex, "call_id": "call_" +
            uuid.uuid4().hex, "name": "get_weather", "arguments": json.dumps({"city": "sf"}),
            "status": "completed"}

def item_text():
    return {"type": "message", "id": "msg_" + uuid.uuid4().hex, "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "It is cold.", "annotations": []}]}

async def responses(request):
    body = await request.json()
    items = body.get("input") if isinstance(body.get("input"), list) else []
    used = any(isinstance(i, dict) and i.get("type") == "function_call_output" for i in items)
    return web.json_response({"id": "resp_" + uuid.uuid4().hex, "object": "response",
        "created_at": 0, "model": "fake", "status": "completed", "parallel_tool_calls": True,
        "tool_choice": "auto", "tools": [], "output": [item_text() if used else item_call()]})

app = web.Application()
app.router.add_post("/v1/responses", responses)
web.run_app(app, host="127.0.0.1", port=int(sys.argv[1]), print=None, backlog=8192)
"""


def wait_http(url: str, seconds: float = 120) -> None:
    """Block until `url` answers (any status); RuntimeError after `seconds`."""
    import urllib.error
    import urllib.request

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url, timeout=2).close()
            return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{url} did not answer within {seconds}s")


class NemoStack:
    """NeMo Gym's simple_agent, example_single_tool_call and openai_model, as NeMo Gym runs
    them, in front of a fake Responses endpoint."""

    def __init__(self) -> None:
        python = NEMO / "bin" / "python"
        if not python.exists():
            raise SystemExit(f"no NeMo Gym venv at {NEMO}: run `make test-interop` once first")
        site = next((NEMO / "lib").glob("python3.*/site-packages"))
        ports = {n: free_port() for n in ("fake", "model", "resources", "agent")}
        config = json.dumps(
            {
                "head_server": {"host": "127.0.0.1", "port": free_port()},
                "dry_run": False,
                "policy_model": {"responses_api_models": {"openai_model": {
                    "entrypoint": "app.py", "host": "127.0.0.1", "port": ports["model"],
                    "openai_base_url": f"http://127.0.0.1:{ports['fake']}/v1",
                    "openai_api_key": "fake", "openai_model": "fake"}}},
                "weather": {"resources_servers": {"example_single_tool_call": {
                    "entrypoint": "app.py", "domain": "agent", "verified": False,
                    "description": "weather", "host": "127.0.0.1", "port": ports["resources"]}}},
                "agent": {"responses_api_agents": {"simple_agent": {
                    "entrypoint": "app.py", "host": "127.0.0.1", "port": ports["agent"],
                    "resources_server": {"type": "resources_servers", "name": "weather"},
                    "model_server": {"type": "responses_api_models", "name": "policy_model"}}}},
            }
        )  # fmt: skip
        log = open(ROOT / "runs" / "nemo_side_by_side.log", "ab")  # noqa: SIM115
        self.fake = subprocess.Popen(
            [sys.executable, "-c", FAKE_RESPONSES, str(ports["fake"])], stdout=log, stderr=log
        )
        self.processes = {
            name: subprocess.Popen(
                [str(python), "app.py"],
                cwd=site / where,
                env={**os.environ, "NEMO_GYM_CONFIG_DICT": config, "NEMO_GYM_CONFIG_PATH": key},
                stdout=log,
                stderr=log,
            )
            for name, key, where in (
                ("model", "policy_model", "responses_api_models/openai_model"),
                ("resources", "weather", "resources_servers/example_single_tool_call"),
                ("agent", "agent", "responses_api_agents/simple_agent"),
            )
        }
        self.url = f"http://127.0.0.1:{ports['agent']}"
        source = site / "resources_servers/example_single_tool_call/data/example.jsonl"
        self.rows = [json.loads(line) for line in source.read_text().splitlines() if line.strip()]
        wait_http(f"http://127.0.0.1:{ports['resources']}/openapi.json")
        wait_http(f"http://127.0.0.1:{ports['model']}/openapi.json")
        wait_http(f"{self.url}/openapi.json")

    def pids(self) -> dict[str, int]:
        return {name: p.pid for name, p in self.processes.items()}

    def stop(self) -> None:
        for p in [*self.processes.values(), self.fake]:
            p.terminate()
        for p in [*self.processes.values(), self.fake]:
            p.wait(20)


async def drive(
    client: ServiceClient, url: str, bodies: list[dict[str, Any]], n: int, c: int,
    pids: dict[str, int], passed: Any,
) -> dict[str, Any]:  # fmt: skip
    """n rollouts posted to url/run, c at once: rate, latency, failures, CPU per rollout."""
    counter = iter(range(n))
    latencies: list[float] = []
    failed = 0

    async def worker() -> None:
        nonlocal failed
        for i in counter:
            start = time.perf_counter()
            try:
                answer = await client.post_json(
                    f"{url}/run", {**bodies[i % len(bodies)]}, idempotent=False
                )
                ok = passed(answer)
            except Exception:  # counted, never hidden
                ok = False
            latencies.append(time.perf_counter() - start)
            failed += not ok

    before = {k: cpu_seconds(p) for k, p in pids.items()}
    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(c)))
    wall = time.perf_counter() - start
    cpu = sum(cpu_seconds(p) - before[k] for k, p in pids.items())
    return {
        "rate": n / wall,
        "p50": pct(latencies, 0.5),
        "p99": pct(latencies, 0.99),
        "failed": failed,
        "cpu_ms_per_rollout": 1000 * cpu / n,
    }


async def measure(levels: list[int], n: int, stack: Stack, nemo: NemoStack) -> list[Any]:
    settings = CollectorSettings(request_timeout_s=1200, pool_per_upstream=max(levels))
    client = ServiceClient(settings)
    ours = [{"task": t} for t in generate(256, seed=11)]
    ours_pids = {svc.name: svc.process.pid for svc in stack.processes}
    nemo_ok = lambda a: isinstance(a, dict) and a.get("reward") == 1.0  # noqa: E731
    ours_ok = lambda a: isinstance(a, dict) and not a.get("mask_sample")  # noqa: E731
    rows = []
    try:
        await drive(client, nemo.url, nemo.rows, 200, 16, nemo.pids(), nemo_ok)  # warm-up
        await drive(client, stack.agent_url, ours, 200, 16, ours_pids, ours_ok)
        for c in levels:
            theirs = await drive(client, nemo.url, nemo.rows, n, c, nemo.pids(), nemo_ok)
            mine = await drive(client, stack.agent_url, ours, n, c, ours_pids, ours_ok)
            row = {"concurrency": c, "rollouts": n, "nemo_gym": theirs, "proofgym": mine,
                   "ratio": mine["rate"] / theirs["rate"]}  # fmt: skip
            rows.append(row)
            print(json.dumps(row), flush=True)
    finally:
        await client.aclose()
    return rows


def report(rows: list[dict[str, Any]], command: str) -> str:
    lines = [
        "# proofgym against NeMo Gym, side by side",
        "",
        f"Command: `{command}`",
        "",
        f"Machine: {os.cpu_count()} cores, Python {platform.python_version()} (proofgym) and "
        f"NeMo Gym's own venv, {time.strftime('%Y-%m-%d')}. See the script's docstring for "
        "the two stacks. Failed: not answered, masked, or (NeMo Gym) a reward other than 1.",
        "",
    ]
    lines += markdown_table(
        [
            "concurrency",
            "rollouts",
            "NeMo Gym rollouts/s",
            "proofgym rollouts/s",
            "ratio",
            "NeMo Gym p50 ms",
            "proofgym p50 ms",
            "NeMo Gym CPU ms/rollout",
            "proofgym CPU ms/rollout",
            "failed (NeMo Gym / proofgym)",
        ],
        (
            [
                str(r["concurrency"]),
                str(r["rollouts"]),
                f"{a['rate']:.1f}",
                f"{b['rate']:.1f}",
                f"{r['ratio']:.1f}x",
                f"{a['p50']:.0f}",
                f"{b['p50']:.0f}",
                f"{a['cpu_ms_per_rollout']:.2f}",
                f"{b['cpu_ms_per_rollout']:.2f}",
                f"{a['failed']} / {b['failed']}",
            ]
            for r, a, b in ((r, r["nemo_gym"], r["proofgym"]) for r in rows)
        ),
    )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--levels", default="16,256,1024")
    parser.add_argument("--rollouts", type=int, default=2000)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    levels = [int(x) for x in args.levels.split(",")]
    raise_nofile()
    (ROOT / "runs").mkdir(exist_ok=True)
    fake, stack = fake_model_stack()
    nemo = NemoStack()
    try:
        with stack.running():
            rows = asyncio.run(measure(levels, args.rollouts, stack, nemo))
    finally:
        nemo.stop()
        fake.terminate()
    text = report(rows, "python bench/nemo_side_by_side.py " + " ".join(sys.argv[1:]))
    save_report(args.out, text, rows)


if __name__ == "__main__":
    main()
