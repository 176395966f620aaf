"""bench/HOT_PATH.md: the report of what bench/hot_path.py measured, and how reports are saved.

Pure formatting over the measured JSON (`report(json.load(...), ...)` rewrites a report from a
saved run), kept apart from the measuring.
"""

from __future__ import annotations

import collections
import json
import os
import platform
import statistics
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

#: the services whose CPU a level reports, in the report's column order
SERVICES = ("agent", "resources", "model")


def save_report(out: Path | None, text: str, data: Any) -> None:
    """Print a bench's report and, with `out`, write it there and its data beside it (.json)."""
    print(text)
    if out is not None:
        out.write_text(text)
        out.with_suffix(".json").write_text(json.dumps(data, indent=1) + "\n")


def markdown_table(header: list[str], rows: Iterable[list[str]]) -> list[str]:
    """The lines of a markdown table: the header, its rule, a line per row of cells."""
    return [
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
        *("| " + " | ".join(cells) + " |" for cells in rows),
    ]


def two(value: float | None) -> str:
    """`value` to two decimals ('-' for None)."""
    return "-" if value is None else f"{value:.2f}"


def median(values: list[float]) -> str:
    """The median of `values` to two decimals ('-' when there are none)."""
    return two(statistics.median(values)) if values else "-"


def over_limit(row: dict[str, Any], echo: str = "fastapi") -> float | None:
    """The stack's CPU per rollout over the limit: 2 x calls per rollout x the `echo` floor's
    CPU per request (None when the level has no such floor)."""
    per_request = row.get("floor_cpu_ms_per_request", {}).get(echo)
    if not per_request:
        return None
    return float(row["stack_cpu_ms_per_rollout"] / (2 * row["calls_per_rollout"] * per_request))


def interleaved_over_limit(row: dict[str, Any]) -> float | None:
    """Stack / limit from the interleaved slices (None when the level had none)."""
    inter = row.get("interleaved")
    if not inter:
        return None
    limit = 2 * row["calls_per_rollout"] * inter["fastapi_cpu_ms_per_request"]
    return float(inter["stack_cpu_ms_per_rollout"] / limit)


def tail_over(row: dict[str, Any], floor_row: dict[str, Any]) -> str:
    """The stack's steady p99/p50 over the skeleton's ('-' when either had none)."""
    if not row.get("steady_p50") or not floor_row.get("steady_p50"):
        return "-"
    ours = row["steady_p99"] / row["steady_p50"]
    return f"{ours / (floor_row['steady_p99'] / floor_row['steady_p50']):.2f}"


def steady_ratio(row: dict[str, Any]) -> str:
    """p99/p50 of the rollouts started after the first wave ('-' when there were none)."""
    if not row.get("steady_p50"):
        return "-"
    return f"{row['steady_p99'] / row['steady_p50']:.2f}"


def report(result: dict[str, Any], command: str, nofile: int) -> str:
    """bench/HOT_PATH.md from what `bench/hot_path.py` measured (`result`, as its JSON)."""
    rows = result["levels"]
    par = result["parameters"]
    base = rows[0]
    lines = [
        "# The hot path: rollouts at up to 16k concurrency",
        "",
        f"Command: `{command}`",
        "",
        f"Machine: {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{time.strftime('%Y-%m-%d')}. Services started under a soft open-files limit of "
        f"{nofile} (each raises it to the hard limit at start). Model: the `openai` backend "
        "in front of an instant fake (aiohttp, its own process). A rollout: `/run` of a math "
        "task = seed, 2 model calls, 1 tool call, verify (and close). Stack CPU: user+system "
        "seconds of the agent, resources and model processes over the level, per rollout.",
        "",
    ]
    lines += markdown_table(
        [
            "concurrency", "rollouts", "rollouts/s", f"x C={base['concurrency']}", "p50 ms",
            "p99 ms", "p99/p50", "steady p99/p50", "failed", "stack CPU ms/rollout", "agent",
            "resources", "model",
        ],
        (
            [
                str(r["concurrency"]), str(r["n"]), f"{r['rate']:.0f}",
                f"{r['rate'] / base['rate']:.2f}", f"{r['p50']:.0f}", f"{r['p99']:.0f}",
                f"{r['p99'] / max(r['p50'], 1e-9):.2f}", steady_ratio(r), str(r["failed"]),
                f"{r['stack_cpu_ms_per_rollout']:.2f}",
                *(f"{r['cpu_ms_per_rollout'].get(k, 0):.2f}" for k in SERVICES),
            ]
            for r in rows
        ),
    )  # fmt: skip
    if all("floor_cpu_ms_per_request" in r for r in rows):
        lines += [
            "",
            "The floor, in the same run: echo servers in their own processes (uvicorn, uvloop, "
            "httptools, as our services), driven by the same client at the same concurrency "
            f"(capped at {par['floor_max_c']}) with a task as the body. The target: stack CPU per "
            "rollout <= 2 x (the HTTP calls per rollout inside the stack, counted from the "
            "services' /metrics) x the FastAPI echo's CPU per request. The echo has the "
            "machine to itself; the stack shares it with the client and the fake model. So up "
            f"to C={par['loaded_floor_max_c']} the FastAPI echo is measured a second time with the "
            "skeleton running beside it at the same concurrency (as busy a machine as in a "
            "stack run): a second view, not the target. And up to "
            f"C={par['interleave_max_c']} the stack and the FastAPI echo are measured once "
            f"more in {par['interleave_rounds']} alternating slices each, so that the "
            "machine's drift between two measurements falls on both alike: the same target, "
            "measured more steadily.",
            "",
        ]
        floor_rows = []
        for r in rows:
            f = r["floor_cpu_ms_per_request"]
            calls = r["calls_per_rollout"]
            stack_ms = r["stack_cpu_ms_per_rollout"]
            per_call = stack_ms / calls
            loaded = f.get("fastapi_loaded")
            floor_rows.append(
                [
                    str(r["concurrency"]), f"{calls:.2f}", f"{f['asgi']:.3f}",
                    f"{f['fastapi']:.3f}", f"{2 * calls * f['fastapi']:.2f}", f"{stack_ms:.2f}",
                    two(over_limit(r)), f"{per_call:.3f}", f"{per_call / f['fastapi']:.2f}",
                    f"{loaded:.3f}" if loaded else "-", two(over_limit(r, "fastapi_loaded")),
                    two(interleaved_over_limit(r)),
                ]
            )  # fmt: skip
        lines += markdown_table(
            [
                "concurrency", "calls/rollout", "bare ASGI echo ms/req", "FastAPI echo ms/req",
                "limit ms/rollout", "stack ms/rollout", "stack / limit", "stack ms per call",
                "per call / FastAPI echo", "FastAPI echo beside the skeleton ms/req",
                "stack / limit at that echo", "stack / limit, interleaved",
            ],
            floor_rows,
        )  # fmt: skip
    bones = [r for r in rows if "skeleton" in r]
    if bones:
        lines += [
            "",
            "The tail's floor, in the same run: the skeleton (bench/skeleton.py), three "
            "processes served and connected as ours are, making a rollout's hops to the same "
            "fake model with no work at all (nothing validated, stored or scored), driven by the "
            "same client at the same concurrency. Its p99/p50 is what the machine, the processes "
            "and the hops alone give at that concurrency.",
            "",
        ]
        lines += markdown_table(
            [
                "concurrency", "skeleton rollouts/s", "skeleton p50 ms", "skeleton steady p99/p50",
                "stack steady p99/p50", "stack / skeleton (p99/p50)", "skeleton CPU ms/rollout",
                "stack CPU / skeleton CPU",
            ],
            (
                [
                    str(r["concurrency"]), f"{b['rate']:.0f}", f"{b['steady_p50']:.1f}",
                    steady_ratio(b), steady_ratio(r), tail_over(r, b),
                    f"{b['cpu_ms_per_rollout']:.2f}",
                    f"{r['stack_cpu_ms_per_rollout'] / b['cpu_ms_per_rollout']:.2f}",
                ]
                for r, b in ((r, r["skeleton"]) for r in bones)
            ),
        )  # fmt: skip
    counts = collections.Counter(r["concurrency"] for r in rows)
    repeated = sorted(c for c, n in counts.items() if n > 1)
    if repeated:
        lines += [
            "",
            "Levels run more than once in this run (the machine's speed moves between rows, "
            "so a median says more than any one row):",
            "",
        ]
        median_rows = []
        for c in repeated:
            same = [r for r in rows if r["concurrency"] == c]
            tails = [r["steady_p99"] / r["steady_p50"] for r in same if r.get("steady_p50")]
            bone_tails = [
                b["steady_p99"] / b["steady_p50"]
                for b in (r.get("skeleton") for r in same)
                if b and b.get("steady_p50")
            ]
            median_rows.append(
                [
                    str(c),
                    str(len(same)),
                    *(
                        median([x for x in map(measure, same) if x is not None])
                        for measure in (
                            over_limit,
                            lambda r: over_limit(r, "fastapi_loaded"),
                            interleaved_over_limit,
                        )
                    ),
                    median(tails),
                    median(bone_tails),
                ]
            )
        lines += markdown_table(
            [
                "concurrency", "rows", "median stack / limit",
                "median stack / limit at the busy echo", "median stack / limit, interleaved",
                "median stack steady p99/p50", "median skeleton steady p99/p50",
            ],
            median_rows,
        )  # fmt: skip
    for who, key in (("the stack", None), ("the skeleton", "skeleton")):
        failures: dict[str, int] = {}
        for r in rows:
            source = r if key is None else r.get(key, {})
            for kind, count in source.get("failures", {}).items():
                failures[kind] = failures.get(kind, 0) + count
        if failures:
            lines += ["", f"Failures of {who} by kind: {failures}"]
    if "soak" in result:
        s = result["soak"]
        lines += [
            "",
            f"Soak: {s['rollouts']} rollouts at C=256 after {s['warmup']} of warm-up, "
            f"{s['failed']} failed. RSS (MiB) after warm-up -> end (growth):",
            "",
        ]
        lines += markdown_table(
            ["service", "after warm-up", "end", "growth"],
            (
                [
                    name,
                    f"{s['rss_after_warmup_mb'][name]:.1f}",
                    f"{s['rss_end_mb'][name]:.1f}",
                    f"{100 * s['growth'][name]:+.1f}%",
                ]
                for name in s["rss_end_mb"]
            ),
        )
    return "\n".join(lines) + "\n"
