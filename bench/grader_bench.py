"""Buggy graders found by `proofgym validate` and by `falsepass`, side by side in one run.

    .venv/bin/python bench/grader_bench.py [--json OUT] [--only NAME ...]

Each grader of `bench/graders/graders.py` (24 with one mistake each, 6 sound) is:
- wrapped as a proofgym environment (a word problem, the grader's reward as the verifier's)
  with only the controls an author starts with (a reference, a no-op claim, one violation: a
  wrong answer), and run through `validate_env`: flagged when any verdict fails;
- audited by `falsepass` (installed beside the project, in its own venv; every audit runs in a
  throw-away virtualenv made by uv) as the TRL reward function it is, over the same tasks:
  flagged when it reports a false pass (its false-pass ceiling or lazy-policy reward above 0).

A sound grader flagged is a false alarm. Needs falsepass and uv on the PATH, and a Python 3.12
(falsepass asks for one; `PY312` names it, default the first `python3.12` found).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from openai.types.responses import Response

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.graders import graders as module  # noqa: E402
from proofgym.wire.protocol import Check, Control, Task, VerifyResult  # noqa: E402
from proofgym.wire.responses import final_message  # noqa: E402
from proofgym_stack.validation import validate_env  # noqa: E402
from resources_servers.base import Environment, say  # noqa: E402
from sdg.math import generate  # noqa: E402

GRADERS_FILE = ROOT / "bench" / "graders" / "graders.py"


def tasks(n: int = 8) -> list[Task]:
    """Word problems with integer answers (the math generator's), as proofgym tasks."""
    out = []
    for row in generate(n, seed=11):
        task = Task.model_validate(row)
        out.append(task.model_copy(update={"env": "grader"}))
    return out


def grader_env(name: str) -> Environment[None]:
    """A proofgym environment whose verifier is grader `name` and whose controls are the
    three an author starts with."""
    fn = getattr(module, name)

    class GraderEnv(Environment[None]):
        __doc__ = f"A word problem graded by {name}."

        def create_state(self, task: Task, workdir: Path | None) -> None:
            return None

        def instructions(self, task: Task) -> str:
            return "Solve the problem. End with one line 'Answer: <number>'."

        def verify(self, state: None, task: Task, response: Response) -> VerifyResult:
            reward = float(fn([final_message(response)], [task.task_data["answer"]])[0])
            reward = min(1.0, max(0.0, reward))
            return VerifyResult(reward=reward, checks=[Check(name=name, passed=reward >= 1.0)])

        def controls(self, task: Task) -> list[Control]:
            answer = task.task_data["answer"]
            return [
                Control(
                    name="reference",
                    expect="pass",
                    script=[say(f"Working it out step by step.\nAnswer: {answer}")],
                ),
                Control(
                    name="violation_wrong_answer",
                    expect="fail",
                    script=[say(f"Working it out step by step.\nAnswer: {answer * 3 + 17}")],
                ),
                Control(name="noop_claim", expect="fail", script=[say("Done: I solved it.")]),
            ]

    GraderEnv.name = "grader"
    return GraderEnv()


def run_validate(name: str) -> dict[str, Any]:
    start = time.perf_counter()
    report = asyncio.run(validate_env(grader_env(name), tasks(), sample=4, parallel=16))
    failed = [v.name for v in report.verdicts if not v.passed]
    seconds = round(time.perf_counter() - start, 1)
    return {"flagged": bool(failed), "failed": failed, "seconds": seconds}


def falsepass_env() -> dict[str, str]:
    py312 = os.environ.get("PY312") or shutil.which("python3.12") or ""
    path = os.environ["PATH"]
    if py312:
        path = f"{Path(py312).parent}:{path}"
    return {**os.environ, "PATH": path, "UV_PYTHON_DOWNLOADS": "never"}


def run_falsepass(name: str, folder: Path) -> dict[str, Any]:
    env = falsepass_env()
    start = time.perf_counter()
    init = subprocess.run(
        ["falsepass", "init", str(GRADERS_FILE), "--dataset", str(folder / "data.jsonl"),
         "--func", name, "--name", name],
        cwd=folder, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    if init.returncode != 0:
        return {"flagged": None, "error": init.stderr[-500:] or init.stdout[-500:]}
    audit = subprocess.run(
        ["falsepass", "audit", name], cwd=folder, env=env, capture_output=True, text=True,
        timeout=1200,
    )  # fmt: skip
    results = subprocess.run(
        ["falsepass", "results", name, "--json"], cwd=folder, env=env, capture_output=True,
        text=True, timeout=120,
    )  # fmt: skip
    try:
        data = json.loads(results.stdout)
    except ValueError:
        return {"flagged": None, "error": (audit.stderr or audit.stdout)[-500:]}
    head = data.get("headline") or {}
    ceiling = head.get("false_pass_ceiling") or 0.0
    lazy = head.get("lazy_policy_reward") or 0.0
    # an "inconclusive" audit (a reward that pays an empty reply as much as the reference)
    # still lists the false passes it saw: counted as found, as its reader would
    facts = data.get("facts_that_hold") or []
    return {
        "flagged": ceiling > 0 or lazy > 0 or bool(facts),
        "status": data.get("status", "ok"),
        "false_pass_ceiling": ceiling,
        "false_pass_via": head.get("false_pass_via"),
        "lazy_policy_reward": lazy,
        "false_fail_rate": head.get("false_fail_rate"),
        "seconds": round(time.perf_counter() - start, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--no-falsepass", action="store_true", help="validate only")
    args = parser.parse_args()
    names = args.only or list(module.GRADERS)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        rows_of = [
            {"prompt": t.responses_create_params["input"], "answer": t.task_data["answer"]}
            for t in tasks()
        ]
        lines = [json.dumps(r) for r in rows_of]
        (folder / "data.jsonl").write_text("\n".join(lines) + "\n")
        for name in names:
            kind, buggy = module.GRADERS[name]
            row: dict[str, Any] = {"grader": name, "kind": kind, "buggy": buggy}
            row["validate"] = run_validate(name)
            if not args.no_falsepass:
                row["falsepass"] = run_falsepass(name, folder)
            print(json.dumps(row), flush=True)
            rows.append(row)
    summary = summarize(rows)
    print(json.dumps(summary, indent=1))
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "summary": summary}, indent=1) + "\n")


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Caught and false alarms per tool."""
    out: dict[str, Any] = {}
    for tool in ("validate", "falsepass"):
        if not all(tool in r for r in rows):
            continue
        buggy = [r for r in rows if r["buggy"]]
        sound = [r for r in rows if not r["buggy"]]
        out[tool] = {
            "caught": sum(bool(r[tool].get("flagged")) for r in buggy),
            "buggy": len(buggy),
            "false_alarms": sum(bool(r[tool].get("flagged")) for r in sound),
            "sound": len(sound),
            "missed": [r["grader"] for r in buggy if not r[tool].get("flagged")],
        }
    return out


if __name__ == "__main__":
    main()
