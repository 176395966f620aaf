"""What one hostile caller costs everyone else: big bodies and trickled bodies, measured.

    .venv/bin/python bench/hostile_callers.py [--trickle 1100] [--json OUT]

Each service runs in its own process, as `proofgym serve` runs it. Two experiments:

- **Bodies just under the 32 MB limit** (`{}` repeated, one long string, many small objects,
  one object with millions of keys, a number with millions of digits), each sent once to a
  fresh process of each service while a second client polls `GET /health` every 20 ms. The
  report is the answer's status, the process's peak resident memory over its idle baseline,
  and the longest `/health` wait during the request, beside the same wait measured idle.
- **Trickling clients**: `--trickle` connections each declare a 1 KB body and send a byte
  every few seconds; meanwhile a guarded `GET /envs` is timed, beside the same call idle.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from proofgym_stack.up import free_port  # noqa: E402

MB = 1024 * 1024
SIZE = 31 * MB
#: `proofgym` run by this interpreter from the current folder (its code first on the path)
ENTRY = "import sys; sys.argv[0] = 'proofgym'; from proofgym_stack.entry import main; main()"


def empty_objects() -> bytes:
    """`[{},{},...]`: 10 M objects in 31 MB."""
    n = SIZE // 3
    return b"[" + b"{}," * (n - 1) + b"{}]"


def one_string() -> bytes:
    return b'{"input": "' + b"x" * (SIZE - 16) + b'"}'


def small_objects() -> bytes:
    """Many Responses input messages, as many as the container bound allows, padded to 31 MB."""
    n = 200_000
    pad = (SIZE // n) - 60
    item = b'{"role": "user", "content": "' + b"y" * pad + b'"},'
    return b'{"model": "m", "input": [' + item * (n - 1) + item[:-1] + b"]}"


def many_keys() -> bytes:
    """One object with millions of keys (one container: the container bound does not see it)."""
    keys = b",".join(b'"k%d": 0' % i for i in range(2_500_000))
    return b"{" + keys[: SIZE - 2].rsplit(b",", 1)[0] + b"}"


def long_number() -> bytes:
    return b'{"answer": ' + b"9" * (SIZE - 12) + b"}"


BODIES: dict[str, Callable[[], bytes]] = {
    "{} x 10M": empty_objects,
    "one 31 MB string": one_string,
    "200k messages": small_objects,
    "2.5M keys": many_keys,
    "31M-digit number": long_number,
}

SERVICES: dict[str, tuple[str, str, dict[str, str]]] = {
    # service: (serve argument, hostile route, environment)
    "resources": ("resources", "/math/seed_session", {"PROOFGYM_ENVS": '["math"]'}),
    "resources tool": ("resources", "/math/tools/calculator", {"PROOFGYM_ENVS": '["math"]'}),
    "resources verify": ("resources", "/math/verify", {"PROOFGYM_ENVS": '["math"]'}),
    "model": ("model", "/v1/responses", {"PROOFGYM_BACKEND": "scripted"}),
    "agent": ("agent", "/run", {}),
}


def rss_kb(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


@contextlib.contextmanager
def service(
    kind: str | list[str], extra: dict[str, str], code: Path = ROOT
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`proofgym serve KIND` (or the argument list `kind`) run from checkout `code` (python -m
    puts its code first), with the environment `extra`; its URL and process."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PROOFGYM_")}
    env.update(extra)
    args = [kind] if isinstance(kind, str) else kind
    proc = subprocess.Popen(
        [sys.executable, "-c", ENTRY, "serve", *args, "--port", str(port)],
        cwd=code,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(url + "/health", timeout=1).status_code == 200:
                    break
            time.sleep(0.2)
        else:
            raise RuntimeError(f"serve {args} did not start from {code}")
        yield url, proc
    finally:
        proc.terminate()
        proc.wait(10)


async def worst_health_wait(url: str, stop: asyncio.Event) -> float:
    worst = 0.0
    async with httpx.AsyncClient(base_url=url, timeout=120) as client:
        while not stop.is_set():
            start = time.perf_counter()
            await client.get("/health")
            worst = max(worst, time.perf_counter() - start)
            await asyncio.sleep(0.02)
    return worst


async def one_body(url: str, route: str, body: bytes) -> tuple[int, str, float]:
    stop = asyncio.Event()
    poller = asyncio.create_task(worst_health_wait(url, stop))
    await asyncio.sleep(0.3)
    async with httpx.AsyncClient(base_url=url, timeout=300) as client:
        start = time.perf_counter()
        try:
            r = await client.post(
                route,
                content=body,
                headers={"Content-Type": "application/json", "X-Session-Id": "s"},
            )
        except httpx.TransportError:
            # the declared size is over the route's limit: the service answered 413 and
            # closed the connection without reading the body, while httpx still sent it
            status, kind = 0, "closed unread"
        else:
            status, kind = r.status_code, ""
            with contextlib.suppress(ValueError, KeyError, TypeError):
                kind = r.json()["error"]["kind"]
        seconds = time.perf_counter() - start
    await asyncio.sleep(0.3)
    stop.set()
    worst = await poller
    return status, f"{kind} ({seconds:.2f}s)", worst


async def idle_health(url: str) -> float:
    stop = asyncio.Event()
    poller = asyncio.create_task(worst_health_wait(url, stop))
    await asyncio.sleep(1.0)
    stop.set()
    return await poller


def bodies_experiment() -> list[dict[str, Any]]:
    rows = []
    built = {name: make() for name, make in BODIES.items()}
    for svc, (arg, route, extra) in SERVICES.items():
        for name, body in built.items():
            with service(arg, extra) as (url, proc):
                idle = asyncio.run(idle_health(url))
                base = rss_kb(proc.pid, "VmRSS")
                status, detail, worst = asyncio.run(one_body(url, route, body))
                peak = rss_kb(proc.pid, "VmHWM")
            row = {
                "service": svc,
                "body": name,
                "status": status,
                "answer": detail,
                "peak_over_idle_mb": round((peak - base) / 1024, 1),
                "health_worst_s": round(worst, 3),
                "health_idle_worst_s": round(idle, 3),
            }
            print(json.dumps(row), flush=True)
            rows.append(row)
    return rows


async def trickler(host: str, port: int, stop: asyncio.Event, opened: list[int]) -> None:
    try:
        _reader, writer = await asyncio.open_connection(host, port)
    except OSError:
        return
    opened.append(1)
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


async def timed_envs(url: str, n: int = 10) -> float:
    async with httpx.AsyncClient(base_url=url, timeout=120) as client:
        worst = 0.0
        for _ in range(n):
            start = time.perf_counter()
            r = await client.get("/envs")
            r.raise_for_status()
            worst = max(worst, time.perf_counter() - start)
        return worst


async def trickle_run(url: str, port: int, n: int) -> dict[str, Any]:
    idle = await timed_envs(url)
    stop = asyncio.Event()
    opened: list[int] = []
    tasks = [asyncio.create_task(trickler("127.0.0.1", port, stop, opened)) for _ in range(n)]
    await asyncio.sleep(5.0)  # every trickler connected and sending
    loaded = await timed_envs(url)
    stop.set()
    await asyncio.gather(*tasks)
    return {
        "tricklers": n,
        "connected": len(opened),
        "envs_worst_idle_s": round(idle, 3),
        "envs_worst_trickled_s": round(loaded, 3),
    }


def trickle_experiment(n: int) -> dict[str, Any]:
    with service("resources", {"PROOFGYM_ENVS": '["math"]'}) as (url, _):
        row = asyncio.run(trickle_run(url, int(url.rsplit(":", 1)[1]), n))
    print(json.dumps(row), flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trickle", type=int, default=1100)
    parser.add_argument("--only", choices=["bodies", "trickle"], default=None)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    out: dict[str, Any] = {}
    if args.only in (None, "bodies"):
        out["bodies"] = bodies_experiment()
    if args.only in (None, "trickle"):
        out["trickle"] = trickle_experiment(args.trickle)
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
