"""A labelled set of graders that measures `proofgym validate`: reasoning-gym's graders (sound)
and cosmic-ray mutants of them (buggy), with falsepass 0.11.0 on the same graders.

    PYTHONPATH=. .venv/bin/python -m bench.graders_external.run [--per-dataset 10] [--seed 45]
        [--jobs 2] [--budget-min 45] [--datasets a,b] && \\
    PYTHONPATH=. .venv/bin/python -m bench.graders_external.report

Every reasoning-gym 0.1.25 dataset whose class writes its own `score_answer` and whose
entries carry a right answer is a candidate; they are taken in a seeded order, each in a
process of its own (`stage.py`), `--jobs` at a time, until `--budget-min` minutes have passed
(no dataset is started after that; the ones running finish). Each grader's row goes to
`runs/graders_external/rows/<dataset>.jsonl` as it finishes, and a rerun skips what is
there: the run is resumable. `report.py` reads the rows and writes RESULTS.json and
RESULTS.md. cosmic-ray and falsepass are installed beside the project, never into its venv
(`COSMIC_RAY_SITE`, `FALSEPASS_VENV`; README.md says how).
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import threading
import time

from bench.graders_external.stage import ROOT, WORK

ROWS = WORK / "rows"


def own_grader_datasets() -> list[str]:
    """Datasets of the pinned release whose class defines `score_answer` itself (the others
    share reasoning-gym's default exact match) and whose entries carry a right answer."""
    from reasoning_gym.factory import DATASETS

    from interop.reasoning_gym.datasets import DATASETS_0_1_25, NO_REFERENCE

    return [
        d
        for d in DATASETS_0_1_25
        if d not in NO_REFERENCE and "score_answer" in DATASETS[d][0].__dict__
    ]


def run_stage(dataset: str, per: int, seed: int, lock: threading.Lock, repeat: bool) -> int:
    """One dataset's stage in its own process; its progress lines are printed as they come."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PROOFGYM_LOG_LEVEL": "error"}
    rows = ROWS / f"{dataset}.jsonl"
    command = [sys.executable, "-m", "bench.graders_external.stage", dataset,
               "--per-dataset", str(per), "--seed", str(seed), "--rows", str(rows),
               *(["--repeat-sound"] if repeat else [])]  # fmt: skip
    proc = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    assert proc.stdout is not None
    tail: list[str] = []
    for line in proc.stdout:
        tail = [*tail, line.rstrip()][-15:]
        if line.startswith("{"):
            with lock:
                print(f"[{dataset}] {line.rstrip()}", flush=True)
    code = proc.wait()
    if code != 0:
        with lock:
            print(f"[{dataset}] stage exited {code}:\n" + "\n".join(tail), flush=True)
    return code


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-dataset", type=int, default=16)
    parser.add_argument("--seed", type=int, default=45)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--budget-min", type=float, default=45.0)
    parser.add_argument("--datasets", default="", help="comma-separated (default: all)")
    parser.add_argument(
        "--repeat-sound", type=int, default=6, help="validate the first N sound graders twice"
    )
    args = parser.parse_args()
    ROWS.mkdir(parents=True, exist_ok=True)
    names = args.datasets.split(",") if args.datasets else own_grader_datasets()
    random.Random(args.seed).shuffle(names)
    start = time.monotonic()
    lock = threading.Lock()
    queue = list(names)

    def worker() -> None:
        while True:
            with lock:
                if not queue or time.monotonic() - start > args.budget_min * 60:
                    return
                dataset = queue.pop(0)
                done = len(names) - len(queue)
                print(f"-- {dataset} ({done}/{len(names)}, "
                      f"{(time.monotonic() - start) / 60:.1f} min)", flush=True)  # fmt: skip
            repeat = names.index(dataset) < args.repeat_sound
            run_stage(dataset, args.per_dataset, args.seed, lock, repeat)

    threads = [threading.Thread(target=worker) for _ in range(args.jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    left = ", ".join(queue) or "none"
    print(f"done in {(time.monotonic() - start) / 60:.1f} min; not started: {left}", flush=True)


if __name__ == "__main__":
    main()
