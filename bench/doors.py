"""Every door against hostile callers, this checkout beside a baseline checkout, in one run.

    .venv/bin/python bench/doors.py --baseline DIR [--json OUT]

Each server runs in its own process as `proofgym serve` runs it, started in the checkout it
measures (`python -m` puts that checkout's code first). Experiments:

- **Concurrent bodies**: 100 connections at once each send a 31 MB body (one JSON string: no
  structure bound refuses it) to the resources server's `/math/verify`, the route that keeps
  the 32 MB limit. Reported: the answers, and the process's peak resident memory over its
  idle baseline, beside the body memory budget (`max_body_memory_mb`, 256 by default).
- **A 200 MB body** to each interop door (`serve openenv`'s `/mcp`, `serve nemo-gym`'s
  `/verify`): the answer, memory over idle, and whether it was refused unread.
- **A 7.9 MB body of `{}`** to each interop door, while `/health` is polled every 20 ms: the
  longest `/health` wait.
- **Slow senders**: 300 connections each declare a 1 KB body and send a byte every 2 s; after
  `body_timeout_s` (here 10 s) plus 5 s, how many connections the server still holds.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import resource
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.hostile_callers import rss_kb, service, worst_health_wait  # noqa: E402

MB = 1024 * 1024
DOORS = {
    # door: (serve arguments, a route that reads a body)
    "openenv": (["openenv", "--env", "math"], "/mcp"),
    "nemo-gym": (["nemo-gym", "--env", "math"], "/verify"),
}
BODY_TIMEOUT_S = 10


@contextlib.contextmanager
def serving(
    code: Path, args: list[str], extra: dict[str, str] | None = None
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`proofgym serve ARGS` run from checkout `code`, bodies cut at BODY_TIMEOUT_S."""
    env = {"PROOFGYM_BODY_TIMEOUT_S": str(BODY_TIMEOUT_S), **(extra or {})}
    with service(args, env, code) as running:
        time.sleep(0.5)  # settled: its idle memory is its idle memory
        yield running


async def raw_post(port: int, route: str, body: bytes, declared: int | None = None) -> str:
    """POST `body` on a fresh connection, declaring `declared` bytes; the status line's code,
    or what happened instead ("closed" when the server hung up before answering)."""
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError as exc:
        return f"connect failed: {exc.__class__.__name__}"
    length = len(body) if declared is None else declared
    head = (
        f"POST {route} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Content-Length: {length}\r\n\r\n"
    ).encode()
    answer = b""
    try:
        writer.write(head)
        view = memoryview(body)
        for start in range(0, len(body), 1 << 20):
            writer.write(view[start : start + (1 << 20)])
            await writer.drain()
        answer = await asyncio.wait_for(reader.readline(), 120)
    except (OSError, TimeoutError):
        pass
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
    if not answer:
        with contextlib.suppress(OSError, TimeoutError):
            answer = await asyncio.wait_for(reader.readline(), 1)
    parts = answer.split()
    return parts[1].decode() if len(parts) > 1 else "closed"


def concurrent_bodies(code: Path, n: int = 100) -> dict[str, Any]:
    body = b'{"session_id": "s", "response": "' + b"x" * (31 * MB - 40) + b'"}'
    with serving(code, ["resources"], {"PROOFGYM_ENVS": '["math"]'}) as (url, proc):
        idle = rss_kb(proc.pid, "VmRSS")
        port = int(url.rsplit(":", 1)[1])

        async def run() -> list[str]:
            return await asyncio.gather(*(raw_post(port, "/math/verify", body) for _ in range(n)))

        start = time.perf_counter()
        answers = asyncio.run(run())
        seconds = time.perf_counter() - start
        peak = rss_kb(proc.pid, "VmHWM")
        alive = httpx.get(url + "/health", timeout=10).status_code
    return {
        "bodies": n,
        "body_mb": 31,
        "answers": dict(Counter(answers)),
        "peak_over_idle_mb": round((peak - idle) / 1024, 1),
        "seconds": round(seconds, 1),
        "health_after": alive,
    }


async def body_with_health(url: str, route: str, body: bytes, declared: int | None) -> Any:
    stop = asyncio.Event()
    poller = asyncio.create_task(worst_health_wait(url, stop))
    await asyncio.sleep(0.3)
    status = await raw_post(int(url.rsplit(":", 1)[1]), route, body, declared)
    await asyncio.sleep(0.3)
    stop.set()
    return status, await poller


def one_body(code: Path, door: str, body: bytes, declared: int | None = None) -> dict[str, Any]:
    args, route = DOORS[door]
    with serving(code, args) as (url, proc):
        idle = rss_kb(proc.pid, "VmRSS")
        status, worst = asyncio.run(body_with_health(url, route, body, declared))
        peak = rss_kb(proc.pid, "VmHWM")
    return {
        "door": door,
        "answer": status,
        "peak_over_idle_mb": round((peak - idle) / 1024, 1),
        "health_worst_s": round(worst, 3),
    }


async def slow_sender(port: int, route: str, stop: asyncio.Event, held: list[int]) -> None:
    """Declare a 1 KB body and send a byte every 2 s until `stop`; counted in `held` while the
    server keeps the connection (no answer, no close, no reset)."""
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        return
    writer.write(
        f"POST {route} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        "Content-Length: 1000\r\n\r\n".encode()
    )
    held.append(1)
    let_go = False
    try:
        while not stop.is_set():
            writer.write(b" ")
            await writer.drain()
            with contextlib.suppress(TimeoutError):
                if await asyncio.wait_for(reader.read(65536), 2.0) is not None:
                    let_go = True  # an answer (a 408), or the end of the connection
                    break
    except OSError:
        let_go = True  # reset by the server
    if let_go:
        held.pop()
    writer.close()


def slow_senders(code: Path, door: str, n: int = 300) -> dict[str, Any]:
    args, route = DOORS[door]

    async def run(port: int) -> int:
        stop = asyncio.Event()
        held: list[int] = []
        tasks = [asyncio.create_task(slow_sender(port, route, stop, held)) for _ in range(n)]
        await asyncio.sleep(BODY_TIMEOUT_S + 5)
        still = len(held)
        stop.set()
        await asyncio.gather(*tasks)
        return still

    with serving(code, args) as (url, _proc):
        still = asyncio.run(run(int(url.rsplit(":", 1)[1])))
    return {"door": door, "senders": n, "held_after_s": BODY_TIMEOUT_S + 5, "still_held": still}


def measure(code: Path) -> dict[str, Any]:
    out: dict[str, Any] = {"concurrent_bodies": concurrent_bodies(code)}
    print(json.dumps(out["concurrent_bodies"]), flush=True)
    for name, run in {
        "big_body": lambda d: one_body(code, d, b"x" * (200 * MB)),
        "empty_objects": lambda d: one_body(code, d, b"[" + b"{}," * (int(7.9 * MB) // 3) + b"{}]"),
        "slow_senders": lambda d: slow_senders(code, d),
    }.items():
        out[name] = []
        for door in DOORS:
            row = run(door)
            print(json.dumps({name: row}), flush=True)
            out[name].append(row)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, required=True, help="the checkout to compare")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    result = {
        "this checkout": measure(ROOT),
        "baseline": measure(args.baseline.resolve()),
        "parameters": {"baseline": str(args.baseline), "body_timeout_s": BODY_TIMEOUT_S},
    }
    text = json.dumps(result, indent=1) + "\n"
    if args.json:
        args.json.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
