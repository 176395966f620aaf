"""Is there a cheaper ASGI server than ours? uvicorn against granian on the bare echo.

    .venv/bin/python bench/asgi_servers.py --granian PATH [--levels 16,256] [--rounds 3]
                                          [--out bench/ASGI_SERVERS.md]

Issue 21 asked to consider a faster ASGI server if measurements favour it. This serves the
same plain ASGI echo (bench/raw_echo.py) under uvicorn as `proofgym serve` runs it (uvloop,
httptools) and under granian (`--granian`: its executable, e.g. from a venv of its own made
with `pip install granian uvloop`; one worker, one runtime thread, as one uvicorn process), drives
both with the client our services use at each level, alternating, and reports the CPU each
server process (and its children) spent per request, and their ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.echo_server import start, wait_listening  # noqa: E402
from bench.hot_path import cpu_seconds  # noqa: E402
from bench.hot_path_report import markdown_table, save_report  # noqa: E402
from proofgym.clients.http import ServiceClient  # noqa: E402
from proofgym.serving.settings import CollectorSettings  # noqa: E402
from proofgym_stack.up import free_port  # noqa: E402
from sdg.math import generate  # noqa: E402

APP = "bench.raw_echo:app"


def tree_cpu(pid: int) -> float:
    """CPU seconds of a process and all its descendants (granian runs its worker as a child)."""
    total = cpu_seconds(pid)
    for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
        total += tree_cpu(int(child))
    return total


def start_granian(executable: str, port: int) -> subprocess.Popen[bytes]:
    """granian serving the echo on `port` at its leanest for this: one worker, a
    single-threaded runtime, uvloop, HTTP/1 only, no websockets (GRANIAN_* variables in the
    environment change the rest, e.g. GRANIAN_TASK_IMPL=rust)."""
    options = ["--interface", "asgi", "--port", str(port), "--workers", "1"]
    options += ["--runtime-threads", "1", "--runtime-mode", "st", "--loop", "uvloop"]
    options += ["--http", "1", "--no-ws", "--log-level", "warning", "--backlog", "8192"]
    proc = subprocess.Popen([executable, *options, APP], cwd=ROOT)
    wait_listening(port, proc, "granian")
    return proc


async def measure(ports: dict[str, tuple[int, int]], levels: list[int], rounds: int) -> Any:
    tasks = list(generate(256, seed=11))
    client = ServiceClient(CollectorSettings(request_timeout_s=600, pool_per_upstream=1024))

    async def level(port: int, pid: int, n: int, c: int) -> dict[str, float]:
        counter = iter(range(n))

        async def worker() -> None:
            for i in counter:
                body = {"task": tasks[i % len(tasks)]}
                answer = await client.post_json(f"http://127.0.0.1:{port}/echo", body)
                if answer.get("error", 1) is not None or answer.get("output") != body:
                    raise RuntimeError(f"port {port} answered {answer!r:.200}")

        before, start_t = tree_cpu(pid), time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(c)))
        wall = time.perf_counter() - start_t
        return {"cpu_ms_per_request": 1000 * (tree_cpu(pid) - before) / n, "rate": n / wall}

    rows = []
    try:
        for port, pid in ports.values():
            await level(port, pid, 1000, 64)  # warm-up
        for _ in range(rounds):
            for c in levels:
                row: dict[str, Any] = {"concurrency": c}
                for name, (port, pid) in ports.items():
                    row[name] = await level(port, pid, 4000, c)
                rows.append(row)
                print(json.dumps(row), flush=True)
    finally:
        await client.aclose()
    return rows


def report(rows: list[dict[str, Any]], command: str, version: str) -> str:
    lines = [
        "# ASGI servers: uvicorn (as `proofgym serve` runs it) against granian",
        "",
        f"Command: `{command}`",
        "",
        f"Machine: 2 cores, Python {platform.python_version()}, {time.strftime('%Y-%m-%d')}, "
        f"{version}. The same plain ASGI echo (bench/raw_echo.py) under each, 4,000 requests "
        "per row, alternating. CPU: the server process and its children, per request.",
        "",
    ]
    lines += markdown_table(
        [
            "concurrency",
            "uvicorn ms/req",
            "granian ms/req",
            "granian / uvicorn CPU",
            "uvicorn req/s",
            "granian req/s",
        ],
        (
            [
                str(r["concurrency"]),
                f"{u['cpu_ms_per_request']:.4f}",
                f"{g['cpu_ms_per_request']:.4f}",
                f"{g['cpu_ms_per_request'] / u['cpu_ms_per_request']:.2f}",
                f"{u['rate']:.0f}",
                f"{g['rate']:.0f}",
            ]
            for r, u, g in ((r, r["uvicorn"], r["granian"]) for r in rows)
        ),
    )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--granian", required=True, help="the granian executable")
    parser.add_argument("--levels", default="16,256")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    version = subprocess.run(
        [args.granian, "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()
    ports = {"uvicorn": free_port(), "granian": free_port()}
    servers = {"uvicorn": start(ports["uvicorn"], APP)}
    try:
        servers["granian"] = start_granian(args.granian, ports["granian"])
        pids = {name: (ports[name], proc.pid) for name, proc in servers.items()}
        levels = [int(x) for x in args.levels.split(",")]
        rows = asyncio.run(measure(pids, levels, args.rounds))
    finally:
        for proc in servers.values():
            proc.terminate()
    text = report(rows, "python bench/asgi_servers.py " + " ".join(sys.argv[1:]), version)
    save_report(args.out, text, rows)


if __name__ == "__main__":
    main()
