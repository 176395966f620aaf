"""HTTP clients for the hot path: aiohttp (what proofgym uses) against httpx, in one run.

    .venv/bin/python bench/clients.py [--levels 1,64,1024]

Both drive the same bare FastAPI echo server (bench/echo_server.py, uvicorn with uvloop and
httptools, its own process) through proofgym's ServiceClient, only the transport differs.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import echo_server  # noqa: E402
from bench.rollouts import drive  # noqa: E402
from proofgym.clients.http import AiohttpTransport, HttpxTransport, ServiceClient  # noqa: E402
from proofgym.serving.settings import ClientSettings  # noqa: E402
from proofgym_stack.up import free_port  # noqa: E402


async def run(levels: list[int], url: str) -> list[tuple[int, dict[str, float], dict[str, float]]]:
    settings = ClientSettings(max_retries=0, request_timeout_s=300)
    rows = []
    for level in levels:
        n = max(2000, 2 * level)
        limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
        clients = {
            "aiohttp": ServiceClient(settings, AiohttpTransport()),
            "httpx": ServiceClient(settings, HttpxTransport(httpx.AsyncClient(limits=limits))),
        }
        results = {}
        for name, client in clients.items():

            async def echo(i: int, client: ServiceClient = client) -> bool:
                answer = await client.post_json(f"{url}/echo", {"i": i})
                return answer["error"] is None

            results[name] = await drive(n, level, echo)
            await client.aclose()
        rows.append((level, results["aiohttp"], results["httpx"]))
        print(level, {k: round(v["rate"]) for k, v in results.items()}, flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--levels", default="1,64,1024")
    args = parser.parse_args()
    port = free_port()
    server = echo_server.start(port)
    try:
        time.sleep(1.5)
        rows = asyncio.run(
            run([int(x) for x in args.levels.split(",")], f"http://127.0.0.1:{port}")
        )
    finally:
        server.terminate()
        server.wait()
    print(
        "\n| concurrency | aiohttp req/s | httpx req/s | aiohttp/httpx | aiohttp p99 ms | "
        "httpx p99 ms |\n|---|---|---|---|---|---|"
    )
    for level, a, h in rows:
        print(
            f"| {level} | {a['rate']:.0f} | {h['rate']:.0f} | {a['rate'] / h['rate']:.2f} | "
            f"{a['p99']:.1f} | {h['p99']:.1f} |"
        )


if __name__ == "__main__":
    main()
