"""Does `proofgym.serving.lean_imports` pay? Build the three services' apps in a fresh process
with it (openai's types only) and without it (the whole openai package), alternating.

    .venv/bin/python bench/lean_imports_ab.py [--rounds 6]

Each round starts two processes, one of each kind, in alternating order; each builds the
agent, resources and model apps as `proofgym up` does (`service_main.build`) and reports its
seconds and peak RSS. Prints the medians and their ratio (lean / full); writes
bench/LEAN_IMPORTS.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import resource, sys, time
lean = sys.argv[1] == "lean"
start = time.perf_counter()
import proofgym.serving.lean_imports as lean_imports
if not lean:  # what build() calls first becomes a no-op: openai is imported whole
    lean_imports.openai_types_only = lambda: False
from proofgym_stack.service_main import build
for service in ("agent", "resources", "model"):
    build(service, {})
seconds = time.perf_counter() - start
print(seconds, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def once(kind: str, home: str) -> tuple[float, float]:
    env = {**os.environ, "HOME": home, "PROOFGYM_MODEL_BACKEND": "scripted"}
    out = subprocess.run(
        [sys.executable, "-c", CHILD, kind],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        check=True,
    )
    seconds, rss = out.stdout.split()[-2:]
    return float(seconds), float(rss)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=6)
    args = parser.parse_args()
    runs: dict[str, list[tuple[float, float]]] = {"lean": [], "full": []}
    with tempfile.TemporaryDirectory() as home:
        for number in range(args.rounds):
            order = ("lean", "full") if number % 2 == 0 else ("full", "lean")
            for kind in order:
                runs[kind].append(once(kind, home))
    medians = {
        kind: {
            "seconds": statistics.median(s for s, _ in got),
            "rss_mb": statistics.median(r for _, r in got),
        }
        for kind, got in runs.items()
    }
    report = {
        "rounds": args.rounds,
        "runs": runs,
        "median": medians,
        "ratio_seconds": medians["lean"]["seconds"] / medians["full"]["seconds"],
        "rss_saved_mb": medians["full"]["rss_mb"] - medians["lean"]["rss_mb"],
    }
    (ROOT / "bench" / "LEAN_IMPORTS.json").write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps({k: v for k, v in report.items() if k != "runs"}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
