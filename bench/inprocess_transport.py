"""What the in-process stack's transport costs: a full `validate` of each environment with the
agent's calls handed straight to the apps (`AsgiTransport`, today's) against the same run
through httpx's ASGI transport (the one before it), side by side in one process.

Both sides must give the same verdicts and findings (the transport is no part of what is
judged); the ratio is httpx / lean of the medians. Written to
`bench/INPROCESS_TRANSPORT.json` and `.md`.

    python bench/inprocess_transport.py [--repeat 1] [ENV ...]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from proofgym.clients.http import HttpxTransport  # noqa: E402
from proofgym.serving.settings import ResourcesSettings  # noqa: E402
from proofgym_stack import testing  # noqa: E402
from proofgym_stack.environments import available_environments, default_names  # noqa: E402
from proofgym_stack.examples import example_tasks  # noqa: E402
from proofgym_stack.validation import runner  # noqa: E402

LEAN = testing.AsgiTransport


def through_httpx(apps: Any) -> HttpxTransport:
    """The transport before: httpx's ASGI transport per app, behind an httpx client."""
    return HttpxTransport(httpx.AsyncClient(transport=testing.RoutingTransport(apps)))


async def one(name: str, lean: bool) -> tuple[float, str]:
    """One validate of `name`: (seconds, its verdicts and findings as JSON)."""
    settings = ResourcesSettings.from_env()
    env = available_environments(settings)[name].from_settings(settings)
    tasks, _ = example_tasks(name)
    testing.AsgiTransport = LEAN if lean else through_httpx  # type: ignore[misc,assignment]
    try:
        start = time.perf_counter()
        report = await runner.validate_env(env, tasks, sample=4)
        seconds = time.perf_counter() - start
    finally:
        testing.AsgiTransport = LEAN  # type: ignore[misc]
    seen = [(v.name, v.passed, v.detail) for v in report.verdicts]
    return seconds, json.dumps([seen, report.findings], default=str, sort_keys=True)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("envs", nargs="*")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--out", default=str(ROOT / "bench" / "INPROCESS_TRANSPORT.json"))
    args = parser.parse_args(argv)
    names = args.envs or default_names(available_environments(ResourcesSettings.from_env()))
    rows = []
    for name in names:
        times: dict[bool, list[float]] = {False: [], True: []}
        outcomes: dict[bool, set[str]] = {False: set(), True: set()}
        for n in range(args.repeat):
            for lean in (False, True):
                seconds, outcome = asyncio.run(one(name, lean))
                times[lean].append(seconds)
                outcomes[lean].add(outcome)
                side = "lean" if lean else "httpx"
                print(f"{name} {side} #{n + 1}: {seconds:.1f}s", flush=True)
        before, after = statistics.median(times[False]), statistics.median(times[True])
        rows.append(
            {
                "env": name,
                "httpx_s": round(before, 2),
                "lean_s": round(after, 2),
                "ratio": round(before / after, 2),
                "same_verdicts": outcomes[False] == outcomes[True],
            }
        )
    out = Path(args.out)
    out.write_text(json.dumps({"repeat": args.repeat, "rows": rows}, indent=2) + "\n")
    lines = [
        "# The in-process transport: a full validate through httpx's and the lean one",
        "",
        f"`python bench/inprocess_transport.py` (median of {args.repeat} alternating run(s) a",
        "side, one process, these 2 cores). `same verdicts`: every verdict, detail and finding",
        "equal.",
        "",
        "| environment | through httpx (s) | lean (s) | speed-up | same verdicts |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['env']} | {r['httpx_s']} | {r['lean_s']} | {r['ratio']}x "
            f"| {r['same_verdicts']} |"
        )
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0 if all(r["same_verdicts"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
