"""How long a `proofgym` command takes before it does anything: this checkout against a baseline
revision, side by side in one run; and `proofgym up`: how long until it says "ready" (every
service answered /health), and the resident memory of the whole idle stack (the supervisor and
its three services) then.

    .venv/bin/python bench/cli_startup.py [--baseline 335d6d0] [--runs 7]

The baseline is checked out in a temporary git worktree and run with the same interpreter and
packages (its code first on the path), so only the code differs; each checkout's `proofgym`
is run through the console-script entry point its own pyproject.toml names. Reported: the
median of each measure for each, and the ratio.
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
sys.path.insert(0, str(ROOT))

from proofgym_stack.up import free_port  # noqa: E402

COMMANDS = (["--help"], ["new-env", "--help"], ["validate", "--help"])


def console_script(code_root: Path) -> list[str]:
    """`proofgym` as that checkout's console script runs it: the entry point its
    pyproject.toml names, with this interpreter (each checkout measured the way a user starts
    it, whatever module the entry point is)."""
    import tomllib

    target = tomllib.loads((code_root / "pyproject.toml").read_text())["project"]["scripts"]
    module, function = target["proofgym"].split(":")
    code = f"import sys; from {module} import {function} as m; sys.argv[0] = 'proofgym'; m()"
    return [sys.executable, "-c", code]


def timed(code_root: Path, args: list[str], runs: int) -> float:
    env = {**os.environ, "PYTHONPATH": str(code_root)}
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(
            [*console_script(code_root), *args],
            cwd=code_root,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=True,
        )
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def _rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def up_once(code_root: Path) -> tuple[float, float]:
    """`proofgym up` on free ports: seconds until "ready", and the stack's RSS (MB) then."""
    env = {**os.environ, "PYTHONPATH": str(code_root)}
    ports = [str(free_port()) for _ in range(3)]
    cmd = [*console_script(code_root), "up", "--agent-port", ports[0]]
    cmd += ["--resources-port", ports[1], "--model-port", ports[2]]
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd, cwd=code_root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if "ready" in line:
                break
        else:
            raise RuntimeError(f"{code_root}: proofgym up never said ready")
        ready = time.perf_counter() - start
        time.sleep(1.0)  # settled
        children = subprocess.run(
            ["pgrep", "-P", str(proc.pid)], capture_output=True, text=True
        ).stdout.split()
        rss = _rss_mb(proc.pid) + sum(_rss_mb(int(c)) for c in children)
        return ready, rss
    finally:
        proc.terminate()
        proc.wait(30)


def up_rows(base: Path, runs: int) -> list[dict[str, object]]:
    """The `up` rows: medians over `runs`, baseline and this checkout alternating."""
    samples: dict[str, list[tuple[float, float]]] = {"base": [], "now": []}
    for _ in range(runs):
        samples["base"].append(up_once(base))
        samples["now"].append(up_once(ROOT))
    rows = []
    for i, (name, unit) in enumerate((("proofgym up: ready", "s"), ("proofgym up: RSS", "MB"))):
        before = statistics.median(x[i] for x in samples["base"])
        after = statistics.median(x[i] for x in samples["now"])
        rows.append(
            {
                "command": f"{name} ({unit})",
                "baseline_s" if unit == "s" else "baseline_mb": round(before, 3),
                "now_s" if unit == "s" else "now_mb": round(after, 3),
                "ratio": round(after / before, 3),
            }
        )
    return rows


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
            for row in up_rows(base, max(3, args.runs // 2)):
                rows.append(row)
                print(json.dumps(row), flush=True)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT)
    if args.json:
        args.json.write_text(json.dumps({"baseline": args.baseline, "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
