"""The hot path at up to 16k concurrent rollouts: completion, cost per rollout, tails, memory.

    .venv/bin/python bench/hot_path.py [--levels 16,256,1024,4096,16384] [--soak 100000]
                                       [--out bench/HOT_PATH.md]

Starts the three services as real processes under a soft open-files limit of 1,024 (a common
default; each service raises its own), with the `openai` backend in front of an instant fake
model (its own process), and runs math rollouts through `/run`: seed, 2 model calls, 1 tool
call, verify (closing the session; older code: a close call of its own). At each concurrency
level it reports rollouts/s, p50 and p99 latency, failures (masked or not answered), and the
CPU seconds the three services spent per rollout (from /proc), with C=16 as the baseline of
the ratios; the floor (echo servers) with the target ratio; and, up to C=4,096, the tail's
floor (bench/skeleton.py: the same hops with no work) with its p99/p50 beside the stack's. A
level named more than once (`--levels 16,16,16,256`) is run that many times, and the report
adds the medians. `--soak N` then runs N more rollouts at C=256 and samples each service's RSS
after warm-up and at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# PROOFGYM_BENCH_CODE=DIR (with the bench started in DIR): the stack and its services from
# another checkout, a baseline, measured by this same script
CODE = Path(os.environ.get("PROOFGYM_BENCH_CODE", ROOT))
sys.path.insert(0, str(CODE))

from proofgym.clients.http import ServiceClient  # noqa: E402
from proofgym.serving.server import raise_nofile  # noqa: E402
from proofgym.serving.settings import CollectorSettings  # noqa: E402
from proofgym_stack.up import Stack, free_port  # noqa: E402
from sdg.math import generate  # noqa: E402


def _this_checkouts(name: str) -> Any:
    """bench/`name`.py of this checkout: the floors are always this checkout's, whichever
    code the stack runs."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


echo_server = _this_checkouts("echo_server")
skeleton = _this_checkouts("skeleton")
hot_path_report = _this_checkouts("hot_path_report")


def cpu_seconds(pid: int) -> float:
    """User plus system CPU seconds a process has used."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    """Resident memory of a process, in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] * 1000 if values else 0.0


async def drive(
    client: ServiceClient,
    url: str,
    tasks: list[dict[str, Any]],
    n: int,
    c: int,
    stop: asyncio.Event | None = None,
) -> dict[str, Any]:
    """n rollouts through `url` (an agent's /run), c at once: latencies, rate, failures.
    Once `stop` is set, no more rollouts start."""
    latencies: list[float] = []
    steady: list[float] = []  # rollouts started after the first wave: no start-up transient
    failures: dict[str, int] = {}
    counter = iter(range(n))

    async def worker() -> None:
        for i in counter:
            if stop is not None and stop.is_set():
                return
            body = {"task": tasks[i % len(tasks)], "rollout_id": uuid.uuid4().hex}
            start = time.perf_counter()
            try:
                answer = await client.post_json(url, body, idempotent=False)
                kind = answer.get("failure_kind") if answer.get("mask_sample") else None
            except Exception as exc:  # counted, never hidden
                kind = type(exc).__name__ + ": " + str(exc)[:120]
            latencies.append(time.perf_counter() - start)
            if i >= c:
                steady.append(latencies[-1])
            if kind:
                failures[kind] = failures.get(kind, 0) + 1

    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(c)))
    wall = time.perf_counter() - start
    return {
        "concurrency": c,
        "n": n,
        "rate": n / wall,
        "p50": pct(latencies, 0.5),
        "p99": pct(latencies, 0.99),
        "steady_p50": pct(steady, 0.5),
        "steady_p99": pct(steady, 0.99),
        "failed": sum(failures.values()),
        "failures": failures,
    }


async def level(
    client: ServiceClient, stack: Stack, tasks: list[dict[str, Any]], n: int, c: int, pids: Any
) -> dict[str, Any]:
    """n rollouts, c at once; latency, rate, failures and the stack's CPU per rollout."""
    peak: dict[str, float] = {name: 0.0 for name in pids}

    async def sample_rss() -> None:  # the services' resident memory while the level runs
        while True:
            for name, pid in pids.items():
                peak[name] = max(peak[name], rss_mb(pid))
            await asyncio.sleep(0.5)

    urls = {svc.name: svc.url for svc in stack.processes}
    calls_before = requests_answered(urls)
    cpu_before = {name: cpu_seconds(pid) for name, pid in pids.items()}
    sampler = asyncio.create_task(sample_rss())
    row = await drive(client, f"{stack.agent_url}/run", tasks, n, c)
    sampler.cancel()
    cpu = {name: cpu_seconds(pid) - cpu_before[name] for name, pid in pids.items()}
    calls = calls_per_rollout(calls_before, requests_answered(urls), n)
    return {
        "calls_per_rollout": round(calls, 2),
        **row,
        "cpu_ms_per_rollout": {k: 1000 * v / n for k, v in cpu.items()},
        "stack_cpu_ms_per_rollout": 1000 * sum(cpu.values()) / n,
        "peak_rss_mb": {k: round(v, 1) for k, v in peak.items()},
        "peak_rss_total_mb": round(sum(peak.values()), 1),
    }


async def skeleton_level(
    settings: CollectorSettings,
    url: str,
    tasks: list[dict[str, Any]],
    n: int,
    c: int,
    pids: list[int],
) -> dict[str, Any]:
    """The same level through the skeleton (bench/skeleton.py at `url`, processes `pids`):
    its latencies and the CPU its three processes spent per rollout. Its own client, closed
    after: the stack's next level may need every descriptor the bench has."""
    client = ServiceClient(settings)
    try:
        before = sum(cpu_seconds(pid) for pid in pids)
        row = await drive(client, url, tasks, n, c)
        row["cpu_ms_per_rollout"] = 1000 * (sum(cpu_seconds(pid) for pid in pids) - before) / n
    finally:
        await client.aclose()
    return row


def requests_answered(urls: dict[str, str]) -> dict[str, dict[str, float]]:
    """Requests each service has answered so far, by route (its /metrics; /metrics and
    /health left out). Parsed here, not imported: this script also measures older checkouts,
    whose code it runs (PROOFGYM_BENCH_CODE)."""
    import urllib.request

    out: dict[str, dict[str, float]] = {}
    for name, url in urls.items():
        with urllib.request.urlopen(f"{url}/metrics", timeout=10) as answer:
            text = answer.read().decode()
        routes: dict[str, float] = {}
        for line in text.splitlines():
            if line.startswith("proofgym_requests_total{"):
                route = line.split('route="', 1)[1].split('"', 1)[0]
                if route not in ("/metrics", "/health"):
                    routes[route] = routes.get(route, 0.0) + float(line.rsplit(" ", 1)[1])
        out[name] = routes
    return out


def calls_per_rollout(
    before: dict[str, dict[str, float]], after: dict[str, dict[str, float]], n: int
) -> float:
    """HTTP calls inside the stack per rollout: every request a service answered, plus the
    model interface's relay of each model call to the upstream (counted, not assumed: the
    code measured decides, e.g. whether verify also closes the session)."""
    answered = sum(
        count - before[name].get(route, 0.0)
        for name, routes in after.items()
        for route, count in routes.items()
    )
    relays = after["model"].get("/v1/responses", 0.0) - before["model"].get("/v1/responses", 0.0)
    return (answered + relays) / n


#: the floor's concurrency cap: its cost per request does not depend on it, and more would
#: only open more descriptors
FLOOR_MAX_C = 1024


async def floor(
    client: ServiceClient, url: str, tasks: list[dict[str, Any]], n: int, c: int, pid: int
) -> float:
    """CPU milliseconds an echo server (process `pid`) spends per request, n requests with
    bodies like the stack's, min(c, FLOOR_MAX_C) at once."""
    counter = iter(range(n))
    failed = 0

    async def worker() -> None:
        nonlocal failed
        for i in counter:
            answer = await client.post_json(f"{url}/echo", {"task": tasks[i % len(tasks)]})
            failed += answer.get("error", 1) is not None

    before = cpu_seconds(pid)
    await asyncio.gather(*(worker() for _ in range(min(c, FLOOR_MAX_C))))
    if failed:
        raise RuntimeError(f"the floor echo at {url} failed {failed} of {n} requests")
    return 1000 * (cpu_seconds(pid) - before) / n


#: up to this concurrency the stack and the FastAPI echo are also measured in alternating
#: slices (INTERLEAVE_ROUNDS of each), so that the machine's drift between the two
#: measurements, which moves the ratio by 10-30% here, falls on both alike
INTERLEAVE_MAX_C = 256
INTERLEAVE_ROUNDS = 8


async def interleaved(
    client: ServiceClient,
    stack: Stack,
    pids: Any,
    echo: tuple[str, int],
    tasks: list[dict[str, Any]],
    c: int,
) -> dict[str, Any]:
    """The stack's CPU per rollout and the echo's per request, measured in alternating slices
    of max(8c, 250) rollouts and as many requests, INTERLEAVE_ROUNDS of each."""
    each = max(8 * c, 250)
    stack_s = echo_ms = 0.0
    for _ in range(INTERLEAVE_ROUNDS):
        before = sum(cpu_seconds(pid) for pid in pids.values())
        await drive(client, f"{stack.agent_url}/run", tasks, each, c)
        stack_s += sum(cpu_seconds(pid) for pid in pids.values()) - before
        echo_ms += await floor(client, echo[0], tasks, each, c, echo[1])
    return {
        "rounds": INTERLEAVE_ROUNDS,
        "each": each,
        "stack_cpu_ms_per_rollout": 1000 * stack_s / (INTERLEAVE_ROUNDS * each),
        "fastapi_cpu_ms_per_request": echo_ms / INTERLEAVE_ROUNDS,
    }


#: up to this concurrency the FastAPI echo is also measured on a machine as busy as in a
#: stack run (the skeleton running beside it)
LOADED_FLOOR_MAX_C = 1024


async def loaded_floor(
    settings: CollectorSettings,
    echo: tuple[str, int],
    bones: tuple[str, list[int]],
    tasks: list[dict[str, Any]],
    c: int,
) -> float:
    """The echo's CPU per request (as `floor`) while the skeleton runs c rollouts at once
    beside it: the stack never has the machine to itself, and the echo alone does. Both
    through clients of their own, closed after."""
    client = ServiceClient(settings)
    stop = asyncio.Event()
    load = asyncio.create_task(drive(client, bones[0], tasks, 10**9, c, stop))
    try:
        await asyncio.sleep(0.5)  # the skeleton at full pace before the echo is timed
        own = ServiceClient(settings)
        try:
            return await floor(own, echo[0], tasks, 4000, c, echo[1])
        finally:
            await own.aclose()
    finally:
        stop.set()
        await load
        await client.aclose()


async def soak(
    client: ServiceClient, stack: Stack, tasks: list[dict[str, Any]], n: int, pids: Any
) -> dict[str, Any]:
    """n rollouts at C=256; RSS of each service after the first 10% and at the end."""
    warm = max(1000, n // 10)
    await level(client, stack, tasks, warm, 256, pids)
    after_warmup = {name: rss_mb(pid) for name, pid in pids.items()}
    samples = [after_warmup]
    done = 0
    failed = 0
    while done < n:
        chunk = min(10_000, n - done)
        row = await level(client, stack, tasks, chunk, 256, pids)
        failed += row["failed"]
        done += chunk
        samples.append({name: rss_mb(pid) for name, pid in pids.items()})
        print(json.dumps({"soak_done": done, "rss_mb": samples[-1]}), flush=True)
    end = samples[-1]
    return {
        "rollouts": n,
        "warmup": warm,
        "failed": failed,
        "rss_after_warmup_mb": after_warmup,
        "rss_end_mb": end,
        "growth": {k: end[k] / after_warmup[k] - 1 for k in end},
        "samples": samples,
    }


#: levels up to this run several rollouts per client in a row: the steady state
STEADY_MAX_C = 4096


async def measure(
    levels: list[int],
    soak_n: int,
    stack: Stack,
    floors: dict[str, tuple[str, int]],
    bones: tuple[str, list[int]],
) -> dict[str, Any]:
    tasks = [t for t in generate(256, seed=11)]
    # what `proofgym rollout` uses: a connection per rollout, connect failures retried
    settings = CollectorSettings(request_timeout_s=1200, pool_per_upstream=max(levels))
    client = ServiceClient(settings)
    pids = {svc.name: svc.process.pid for svc in stack.processes}
    out: dict[str, Any] = {
        "levels": [],
        "parameters": {
            "floor_max_c": FLOOR_MAX_C,
            "loaded_floor_max_c": LOADED_FLOOR_MAX_C,
            "interleave_max_c": INTERLEAVE_MAX_C,
            "interleave_rounds": INTERLEAVE_ROUNDS,
        },
    }
    try:
        await level(client, stack, tasks, 500, 64, pids)  # warm-up, not reported
        await skeleton_level(settings, bones[0], tasks, 500, 64, bones[1])
        for url, pid in floors.values():
            await floor(client, url, tasks, 500, 64, pid)
        for c in levels:
            # Up to 4096, each client runs 4 rollouts or more in a row: the steady state,
            # where p99/p50 says whether admission is fair. Above, all start at once: the
            # burst, where what counts is that every one completes.
            n = max(4000, 4 * c) if c <= STEADY_MAX_C else c
            row = await level(client, stack, tasks, n, c, pids)
            if c <= STEADY_MAX_C:
                row["skeleton"] = await skeleton_level(settings, bones[0], tasks, n, c, bones[1])
            row["floor_cpu_ms_per_request"] = {
                name: await floor(client, url, tasks, min(n, 4000), c, pid)
                for name, (url, pid) in floors.items()
            }
            if c <= INTERLEAVE_MAX_C:
                row["interleaved"] = await interleaved(
                    client, stack, pids, floors["fastapi"], tasks, c
                )
            if c <= LOADED_FLOOR_MAX_C:
                row["floor_cpu_ms_per_request"]["fastapi_loaded"] = await loaded_floor(
                    settings, floors["fastapi"], bones, tasks, c
                )
            out["levels"].append(row)
            print(json.dumps(row), flush=True)
        if soak_n:
            out["soak"] = await soak(client, stack, tasks, soak_n, pids)
    finally:
        await client.aclose()
    return out


def fake_model_stack(
    nofile: int | None = None, all_envs: bool = False
) -> tuple[subprocess.Popen[bytes], Stack]:
    """The instant fake model (started) and the stack in front of it (not yet started):
    the `openai` backend relaying to the fake, math only unless `all_envs`."""
    fake_port = free_port()
    fake = subprocess.Popen([sys.executable, str(ROOT / "bench" / "fake_model.py"), str(fake_port)])
    stack = Stack(
        agent_port=free_port(),
        resources_ports=[free_port()],
        model_port=free_port(),
        nofile=nofile,
        env={
            "PROOFGYM_LOG_LEVEL": "error",
            **({} if all_envs else {"PROOFGYM_ENVS": '["math"]'}),
            "PYTHONPATH": str(CODE),
        },
        model_env={
            "PROOFGYM_BACKEND": "openai",
            "PROOFGYM_BASE_URLS": json.dumps([f"http://127.0.0.1:{fake_port}/v1"]),
            "PROOFGYM_MODEL": "fake",
        },
    )
    return fake, stack


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--levels", default="16,256,1024,4096,16384")
    parser.add_argument("--soak", type=int, default=0, help="rollouts of the memory soak")
    parser.add_argument("--nofile", type=int, default=1024, help="services' starting soft limit")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument(
        "--all-envs", action="store_true", help="serve every environment, as `proofgym up` does"
    )
    args = parser.parse_args()
    levels = [int(x) for x in args.levels.split(",")]
    raise_nofile()  # the client holds one connection per rollout in flight
    fake, stack = fake_model_stack(args.nofile, args.all_envs)
    floor_ports = {"asgi": free_port(), "fastapi": free_port()}
    echoes = {
        "asgi": echo_server.start(floor_ports["asgi"], "bench.raw_echo:app"),
        "fastapi": echo_server.start(floor_ports["fastapi"]),
    }
    floors = {
        name: (f"http://127.0.0.1:{floor_ports[name]}", proc.pid) for name, proc in echoes.items()
    }
    bone_ports = {role: free_port() for role in skeleton.ROLES}
    fake_url = json.loads(stack.model_env["PROOFGYM_BASE_URLS"])[0].removesuffix("/v1")
    bones: list[subprocess.Popen[bytes]] = []
    try:
        bones += skeleton.start(bone_ports, fake_url, echo_server.wait_listening)
        with stack.running():
            bone_url = f"http://127.0.0.1:{bone_ports['agent']}/run"
            result = asyncio.run(
                measure(levels, args.soak, stack, floors, (bone_url, [p.pid for p in bones]))
            )
    finally:
        fake.terminate()
        for proc in [*echoes.values(), *bones]:
            proc.terminate()
    command = "python bench/hot_path.py " + " ".join(sys.argv[1:])
    text = hot_path_report.report(result, command, args.nofile)
    hot_path_report.save_report(args.out, text, result)


if __name__ == "__main__":
    main()
