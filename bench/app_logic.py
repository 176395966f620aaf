"""The services' own work per rollout, without sockets: CPU of the three apps in one process.

`bench/hot_path.py` measures the stack as it runs: five processes on the machine's cores, the
services' own work mixed with the sockets, the event loops, uvicorn and the machine's
scheduling. This bench takes the services' own work out of that mix. The agent, resources
and model interface apps are built as `proofgym serve` builds them and called through a
transport that hands each request straight to the app it names (a scope, the body, the
answer: no socket, no HTTP parser, no server). Everything else is the production path: the
client with its retries and deadlines, every middleware (auth, metrics, the request guard),
the fast routes, the handlers, the model interface's `openai` backend (its upstream a function
answering what the hot-path bench's fake model answers), the verifier.

A rollout is the hot-path bench's: `/run` of a math task = seed, 2 model calls, 1 tool call,
verify. Reported: CPU microseconds per rollout (process time over the rounds' rollouts, the
fastest of `--reps` repetitions per round).

`--baseline DIR` measures another checkout too, in alternating rounds (each in its own
process), so the machine's drift falls on both alike; the report gives the median of the
per-round ratios. `--worker` is the per-round process (internal).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from fake_model import fake_completion  # this script's folder is first on sys.path
from hot_path_report import markdown_table, save_report

ROOT = Path(__file__).resolve().parent.parent


class DirectTransport:
    """A `proofgym.clients.http.Transport` that calls the ASGI app registered for the URL's host (no
    socket, no HTTP); host `upstream` is the fake model. Bodies are encoded and decoded with
    proofgym's codec, as the production transport does.

    Not `proofgym_stack.testing.in_process_stack`'s httpx ASGI transport: httpx's request and
    response machinery would cost more than the apps' work this bench measures."""

    def __init__(self, apps: dict[str, Any]) -> None:
        self.apps = apps

    async def send(
        self, method: str, url: str, body: Any, headers: dict[str, str], timeout: float
    ) -> Any:
        from proofgym.clients.http import HttpAnswer
        from proofgym.wire.codec import decode, encode

        host, _, rest = url.split("://", 1)[1].partition("/")
        data = encode(body) if body is not None else b""
        if host == "upstream":
            raw = encode(fake_completion(decode(data)))
            return HttpAnswer(200, {"content-type": "application/json"}, decode(raw), "")
        path = "/" + rest
        sent = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()]
        if body is not None:
            sent.append((b"content-type", b"application/json"))
        sent += [(b"content-length", str(len(data)).encode()), (b"host", host.encode())]
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "root_path": "",
            "headers": sent,
            "client": ("127.0.0.1", 1),
            "server": (host, 80),
        }
        delivered = False

        async def receive() -> dict[str, Any]:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": data, "more_body": False}
            await asyncio.Event().wait()  # the caller stays: no disconnect
            raise AssertionError("unreachable")

        status, answer_headers, chunks = 0, [], []

        async def send(message: dict[str, Any]) -> None:
            nonlocal status, answer_headers
            if message["type"] == "http.response.start":
                status, answer_headers = message["status"], message.get("headers", [])
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await self.apps[host](scope, receive, send)
        raw = b"".join(chunks)
        text = raw.decode("utf-8", "replace")
        parsed = decode(raw) if raw else None
        named = {k.decode("latin-1"): v.decode("latin-1") for k, v in answer_headers}
        return HttpAnswer(status, named, parsed, text)

    async def aclose(self) -> None:
        """Nothing to close."""


async def measure(rollouts: int, concurrency: int, reps: int) -> list[float]:
    """CPU microseconds per rollout of this process's checkout, for each of `reps` repetitions
    of `rollouts` rollouts, `concurrency` at once (after a warm-up)."""
    from agent_server.app import create_app as agent_app
    from model_interface.app import build_backend
    from model_interface.app import create_app as model_app
    from proofgym.serving.server import tune_gc
    from proofgym.serving.settings import AgentSettings, ModelSettings, ResourcesSettings
    from resources_servers.base.app import create_app as resources_app
    from sdg.math import generate

    apps: dict[str, Any] = {}
    transport = DirectTransport(apps)
    model_settings = ModelSettings(backend="openai", base_urls=["http://upstream/v1"], model="fake")
    apps["resources"] = resources_app(ResourcesSettings(envs=["math"]))
    apps["model"] = model_app(model_settings, build_backend(model_settings, transport))
    apps["agent"] = agent_app(
        AgentSettings(resources_urls=["http://resources"], model_url="http://model"),
        transport=transport,
    )
    tasks = generate(64, seed=11)

    async def rollout(i: int) -> None:
        body = {"task": tasks[i % len(tasks)], "rollout_id": uuid.uuid4().hex}
        answer = await transport.send("POST", "http://agent/run", body, {}, 60.0)
        if answer.status != 200 or answer.body.get("mask_sample"):
            raise RuntimeError(f"rollout {i} failed: {answer.status} {answer.text[:300]}")

    async def wave(n: int) -> None:
        numbers = iter(range(n))

        async def worker() -> None:
            for i in numbers:
                await rollout(i)

        await asyncio.gather(*(worker() for _ in range(concurrency)))

    results = []
    async with contextlib.AsyncExitStack() as stack:
        for app in apps.values():
            await stack.enter_async_context(app.router.lifespan_context(app))
        await wave(200)
        tune_gc()  # as `proofgym serve` runs a service
        for _ in range(reps):
            start = time.process_time()
            await wave(rollouts)
            results.append((time.process_time() - start) / rollouts * 1e6)
    return results


def worker_main(code: Path, rollouts: int, concurrency: int, reps: int) -> None:
    """One round for the checkout at `code`: its best repetition, as JSON on stdout."""
    sys.path.insert(0, str(code))
    import uvloop

    uvloop.install()
    times = asyncio.run(measure(rollouts, concurrency, reps))
    print(json.dumps({"us_per_rollout": min(times), "reps": times}))


def one_round(code: Path, rollouts: int, concurrency: int, reps: int) -> float:
    """The best repetition of a round of `code`, in a fresh process started in `code`."""
    done = subprocess.run(
        [
            sys.executable,
            str(Path(__file__).resolve()),
            "--worker",
            "--code",
            str(code),
            "--rollouts",
            str(rollouts),
            "--concurrency",
            str(concurrency),
            "--reps",
            str(reps),
        ],
        cwd=code,
        env={**os.environ, "PYTHONPATH": str(code), "PROOFGYM_LOG_LEVEL": "error"},
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"the round for {code} failed:\n{done.stderr[-3000:]}")
    return float(json.loads(done.stdout.strip().splitlines()[-1])["us_per_rollout"])


def git_head(code: Path) -> str:
    """The short commit of the checkout at `code` ('?' when it is not a git checkout), with
    '+changes' when its tracked files differ from that commit."""
    head = subprocess.run(
        ["git", "-C", str(code), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    changed = subprocess.run(
        ["git", "-C", str(code), "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    return (head or "?") + ("+changes" if changed else "")


def report(result: dict[str, Any], command: str) -> str:
    """The markdown report of a run."""
    p = result["parameters"]
    lines = [
        "# The services' own work per rollout, without sockets",
        "",
        f"Command: `{command}`",
        "",
        f"The three apps in one process, called through a transport that hands each request "
        f"to its app (no socket, no HTTP server); the fake model's answers as in the hot-path "
        f"bench. A rollout: `/run` of a math task = seed, 2 model calls, 1 tool call, verify. "
        f"{p['rollouts']} rollouts, {p['concurrency']} at once, the fastest of {p['reps']} "
        f"repetitions per round; rounds alternate between the checkouts, each in its own "
        f"process.",
        "",
    ]
    lines += markdown_table(
        ["checkout", "rounds (CPU us/rollout)", "median"],
        (
            [name, " ".join(f"{x:.0f}" for x in rounds), f"{statistics.median(rounds):.0f}"]
            for name, rounds in result["rounds"].items()
        ),
    )
    if "ratio" in result:
        lines += [
            "",
            f"This checkout / baseline, median of the per-round ratios: {result['ratio']:.3f} "
            f"(rounds: {' '.join(f'{r:.3f}' for r in result['ratios'])}).",
        ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rollouts", type=int, default=2000, help="rollouts per repetition")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--reps", type=int, default=3, help="repetitions per round (best kept)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--baseline", type=Path, default=None, help="another checkout to compare")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--code", type=Path, default=ROOT, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker_main(args.code, args.rollouts, args.concurrency, args.reps)
        return
    codes = {f"this checkout ({git_head(ROOT)})": ROOT}
    if args.baseline is not None:
        codes[f"baseline ({git_head(args.baseline)})"] = args.baseline.resolve()
    rounds: dict[str, list[float]] = {name: [] for name in codes}
    for i in range(args.rounds):
        for name, code in codes.items() if i % 2 == 0 else reversed(list(codes.items())):
            rounds[name].append(one_round(code, args.rollouts, args.concurrency, args.reps))
            print(f"round {i + 1}/{args.rounds} {name}: {rounds[name][-1]:.0f} us/rollout")
    result: dict[str, Any] = {
        "parameters": {
            "rollouts": args.rollouts,
            "concurrency": args.concurrency,
            "reps": args.reps,
            "rounds": args.rounds,
        },
        "rounds": rounds,
    }
    if args.baseline is not None:
        mine, base = rounds.values()
        result["ratios"] = [a / b for a, b in zip(mine, base, strict=True)]
        result["ratio"] = statistics.median(result["ratios"])
    command = "python bench/app_logic.py " + " ".join(sys.argv[1:])
    save_report(args.out, report(result, command), result)


if __name__ == "__main__":
    main()
