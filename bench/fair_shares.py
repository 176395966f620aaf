"""Honest rollouts beside one hostile caller or a flood of other sessions: how many come back
masked, how many tool results carry another caller's load, and how much slower they are.
This checkout beside a baseline checkout, in one run (issue 44).

    .venv/bin/python bench/fair_shares.py --baseline DIR [--honest 100] [--flood 48]
        [--json OUT]

Each checkout's three services run as `proofgym up` starts them (scripted model), from that
checkout. Honest `math` reference rollouts (`--honest` of them, 8 at a time, each with the
caller's budget of 20 s, `X-Proofgym-Budget-S`) are timed alone, then under each attack:

- body holders: from another loopback address (127.0.0.2, another caller to the guard), two
  connections each send 30 MB of a declared 31 MB verify body and stall, a third sends 4 MB
  of 5 MB; each reconnects and refills when the server cuts it;
- slow senders: 300 connections from 127.0.0.2 declare a 1 KB body and send a byte every 2 s;
- sandbox flood: `--flood` code rollouts at once, each writing a solution that sleeps 8 s at
  import, then running the tests and claiming success: every tool worker of the code
  environment is held, and each session's `run_tests` waits for workers other sessions hold.
  Here the honest side is the flood itself (each of its sessions is one honest, slow policy)
  and 8 code reference rollouts started beside it.

The report per attack: honest rollouts masked (and their failure kinds), tool outputs that
speak of waiting for capacity (another caller's load in a policy's observation), and the
honest batch's seconds under the attack over its seconds alone.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import sys
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.slow_verify import first_task  # noqa: E402
from proofgym.clients.http import CallFailed, ServiceClient  # noqa: E402
from proofgym.serving.settings import CollectorSettings  # noqa: E402
from proofgym_stack.up import Stack, free_port  # noqa: E402

ATTACKER = "127.0.0.2"  # another caller, as the guard tells callers apart (by address)
MB = 1024 * 1024
SLEEP_S = 8
# what a tool output says when a call waited on capacity (a worker, a queue) instead of running
LOAD_WORDS = ("waited", "worker", "other sessions", "queue", "overloaded", "busy")


def tool_outputs(result: dict[str, Any]) -> list[str]:
    items = (result.get("response") or {}).get("output") or []
    return [str(i.get("output", "")) for i in items if i.get("type") == "function_call_output"]


def carries_load(result: dict[str, Any]) -> bool:
    return any(w in o.lower() for o in tool_outputs(result) for w in LOAD_WORDS)


def summary(results: list[dict[str, Any]], seconds: float) -> dict[str, Any]:
    masked = [r for r in results if r.get("mask_sample")]
    return {
        "rollouts": len(results),
        "seconds": round(seconds, 2),
        "masked": len(masked),
        "masked_kinds": dict(Counter(str(r.get("failure_kind")) for r in masked)),
        "with_load_in_tool_output": sum(carries_load(r) for r in results),
        "rewards": dict(Counter(str(r.get("reward")) for r in results)),
    }


async def run_one(
    client: ServiceClient, url: str, body: dict[str, Any], budget_s: float | None = None
) -> dict[str, Any]:
    headers = {"X-Proofgym-Budget-S": f"{budget_s:g}"} if budget_s else {}
    try:
        answer = await client.post_json(f"{url}/run", body, headers=headers, idempotent=False)
        return dict(answer)
    except CallFailed as exc:  # a refused or stalled /run is reported, not raised
        kind = "stalled" if "TimeoutError" in str(exc) or "deadline" in str(exc) else "refused"
        return {"mask_sample": True, "failure_kind": f"run {kind}"}


async def honest_math(client: ServiceClient, url: str, n: int) -> tuple[list[Any], float]:
    """`n` math reference rollouts, 8 at a time: their results and the seconds for all."""
    gate = asyncio.Semaphore(8)
    body = {"task": first_task("math"), "control": "reference"}

    async def one() -> dict[str, Any]:
        async with gate:
            return await run_one(client, url, body, budget_s=20)

    start = time.perf_counter()
    results = await asyncio.gather(*(one() for _ in range(n)))
    return list(results), time.perf_counter() - start


async def hold_body(port: int, declared: int, sent: int, stop: asyncio.Event) -> int:
    """Send `sent` bytes of a `declared`-byte verify body from ATTACKER and stall; reconnect
    whenever the server cuts it, until `stop`. Returns how many times it was cut."""
    cuts = 0
    chunk = b" " * MB
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection(
                "127.0.0.1", port, local_addr=(ATTACKER, 0)
            )
        except OSError:
            await asyncio.sleep(0.2)
            continue
        try:
            writer.write(
                b"POST /math/verify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                + f"Content-Length: {declared}\r\n\r\n".encode()
            )
            for _ in range(sent // MB):
                writer.write(chunk)
                await writer.drain()
            # stalled: wait for the server to cut the read (or for the bench to end)
            read = asyncio.ensure_future(reader.read(1))
            stopped = asyncio.ensure_future(stop.wait())
            await asyncio.wait({read, stopped}, return_when=asyncio.FIRST_COMPLETED)
            read.cancel()
            stopped.cancel()
            cuts += not stop.is_set()
        except OSError:
            cuts += 1
        finally:
            writer.close()
    return cuts


async def trickle(port: int, stop: asyncio.Event) -> None:
    """One slow sender from ATTACKER: a byte of a 1 KB body every 2 s, until `stop`."""
    try:
        _reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(ATTACKER, 0))
    except OSError:
        return
    writer.write(
        b"POST /math/seed_session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 1000\r\n\r\n"
    )
    with contextlib.suppress(OSError):
        while not stop.is_set():
            writer.write(b" ")
            await writer.drain()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 2.0)
    writer.close()


async def under(
    attack: Callable[[asyncio.Event], list[Awaitable[Any]]],
    client: ServiceClient,
    url: str,
    n: int,
) -> dict[str, Any]:
    stop = asyncio.Event()
    tasks = [asyncio.ensure_future(a) for a in attack(stop)]
    await asyncio.sleep(3.0)  # the attack in place before the honest batch starts
    results, seconds = await honest_math(client, url, n)
    stop.set()
    await asyncio.sleep(0.5)
    for t in tasks:  # a sender blocked on a server that stopped reading ends here
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return summary(results, seconds)


def slow_code_rollout() -> dict[str, Any]:
    task = first_task("code")
    fn = task["task_data"]["function"]
    source = f"import time\ntime.sleep({SLEEP_S})\n\ndef {fn}(*args):\n    return None\n"
    calls = [
        [{"type": "function_call", "name": "write_file",
          "arguments": json.dumps({"path": "solution.py", "content": source})}],
        [{"type": "function_call", "name": "run_tests", "arguments": "{}"}],
        [{"type": "message", "content": "Done: implemented it; the tests pass."}],
    ]  # fmt: skip
    return {
        "task": task,
        "model_params": {"model": "scripted", "script": calls},
        "rollout_id": uuid.uuid4().hex,
    }


async def sandbox_flood(client: ServiceClient, url: str, flood: int) -> dict[str, Any]:
    start = time.perf_counter()
    slow = [asyncio.ensure_future(run_one(client, url, slow_code_rollout())) for _ in range(flood)]
    await asyncio.sleep(1.0)
    reference = {"task": first_task("code"), "control": "reference"}
    beside = await asyncio.gather(*(run_one(client, url, reference) for _ in range(8)))
    beside_s = time.perf_counter() - start
    results = await asyncio.gather(*slow)
    return {
        "flood": summary(list(results), time.perf_counter() - start),
        "code_reference_beside": summary(list(beside), beside_s),
    }


async def measure(stack: Stack, n: int, flood: int) -> dict[str, Any]:
    url = stack.agent_url
    port = stack.resources_ports[0]
    # a /run that has not answered in 120 s (its budget is 20 s) is counted as stalled
    client = ServiceClient(CollectorSettings(max_retries=0, request_timeout_s=120))
    try:
        await honest_math(client, url, 16)  # warm
        alone, alone_s = await honest_math(client, url, n)
        out: dict[str, Any] = {"alone": summary(alone, alone_s)}
        out["body holders"] = await under(
            lambda stop: [
                hold_body(port, 31 * MB, 30 * MB, stop),
                hold_body(port, 31 * MB, 30 * MB, stop),
                hold_body(port, 5 * MB, 4 * MB, stop),
            ],
            client,
            url,
            n,
        )
        out["slow senders"] = await under(
            lambda stop: [trickle(port, stop) for _ in range(300)], client, url, n
        )
        # a flood's rollouts queue for minutes by design: no stall limit there
        patient = ServiceClient(CollectorSettings(max_retries=0, request_timeout_s=1800))
        try:
            out["sandbox flood"] = await sandbox_flood(patient, url, flood)
        finally:
            await patient.aclose()
    finally:
        await client.aclose()
    for attack in ("body holders", "slow senders"):
        out[attack]["slowdown"] = round(out[attack]["seconds"] / max(alone_s, 1e-9), 2)
    return out


def run_checkout(code: Path, n: int, flood: int) -> dict[str, Any]:
    """The stack started from checkout `code` (python -m puts its code first), measured."""
    here = Path.cwd()
    stack = Stack(
        agent_port=free_port(),
        resources_ports=[free_port()],
        model_port=free_port(),
        env={"PROOFGYM_ENVS": '["code", "math"]', "PROOFGYM_LOG_LEVEL": "error"},
        model_env={"PROOFGYM_BACKEND": "scripted"},
        nofile=4096,
    )
    os.chdir(code)
    try:
        stack.start()
        os.chdir(here)
        return asyncio.run(measure(stack, n, flood))
    finally:
        os.chdir(here)
        stack.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, required=True, help="the checkout to compare")
    parser.add_argument("--honest", type=int, default=100)
    parser.add_argument("--flood", type=int, default=48)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))
    result: dict[str, Any] = {}
    for name, code in (("this checkout", ROOT), ("baseline", args.baseline.resolve())):
        result[name] = run_checkout(code, args.honest, args.flood)
        print(name, json.dumps(result[name]), flush=True)
    result["parameters"] = {
        "honest": args.honest,
        "flood": args.flood,
        "sleep_s": SLEEP_S,
        "baseline": str(args.baseline),
    }
    text = json.dumps(result, indent=1) + "\n"
    if args.json:
        args.json.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
