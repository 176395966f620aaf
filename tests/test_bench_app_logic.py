"""bench/app_logic.py still runs against this checkout's apps: a short round, a real number."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_a_short_round_measures_this_checkout(tmp_path: Path) -> None:
    out = tmp_path / "APP_LOGIC.md"
    args = ["--rollouts", "40", "--rounds", "1", "--reps", "1", "--out", str(out)]
    done = subprocess.run(
        [sys.executable, "bench/app_logic.py", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    data = json.loads(out.with_suffix(".json").read_text())
    (rounds,) = data["rounds"].values()
    assert len(rounds) == 1 and 0 < rounds[0] < 1e6  # CPU microseconds per rollout
    assert "| this checkout" in out.read_text()
