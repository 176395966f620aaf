"""How long a `proofgym` command takes before it does anything: this checkout against a baseline
revision, side by side in one run.

    .venv/bin/python bench/cli_startup.py [--baseline 335d6d0] [--runs 7]

The baseline is checked out in a temporary git worktree and run with the same interpreter and
packages (its code first on the path), so only the code differs. Reported: the median wall time
of `proofgym --help` and of `proofgym new-env --help` for each, and the ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = (["--help"], ["new-env", "--help"], ["validate", "--help"])


def timed(code_root: Path, args: list[str], runs: int) -> float:
    env = {**os.environ, "PYTHONPATH": str(code_root)}
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "proofgym_stack.cli", *args],
            cwd=code_root,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=True,
        )
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="335d6d0")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="proofgym-baseline-") as tmp:
        base = Path(tmp) / "baseline"
        subprocess.run(
            ["git", "worktree", "add", "--detach", str(base), args.baseline],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        try:
            for command in COMMANDS:
                # alternate, so a change in the machine's load hits both alike
                before = timed(base, command, args.runs)
                after = timed(ROOT, command, args.runs)
                row = {
                    "command": "proofgym " + " ".join(command),
                    "baseline_s": round(before, 3),
                    "now_s": round(after, 3),
                    "ratio": round(after / before, 3),
                }
                rows.append(row)
                print(json.dumps(row), flush=True)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT)
    if args.json:
        args.json.write_text(json.dumps({"baseline": args.baseline, "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
