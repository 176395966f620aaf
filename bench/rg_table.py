"""`proofgym validate` over every reasoning-gym dataset (`rg_*`): issue 45, item 2.

    .venv/bin/python bench/rg_table.py [--only DATASET ...] [--out bench/RG_TABLE.jsonl]
    .venv/bin/python bench/rg_table.py --markdown bench/PEER_TABLE_REASONING_GYM.md

For each dataset of the installed reasoning-gym, in order:
1. `proofgym validate rg_<dataset> --json` runs in a folder of its own (its certificate and
   findings stay there), on the 8 tasks the dataset's generator makes with seed 0 (4 sampled),
   with a wall-clock limit; a dataset with no right answer (`boxnet`, `rush_hour`) is not run
   and its row says so; one whose generator or validation cannot run says why;
2. its row keeps every verdict (passed, failed with its detail, n/a), the error rates, and
   the search's findings with their minimal trajectory (the control to paste);
3. the honest variants of the environment (`honest_variants`: the answer in bold, with a full
   stop, in another form of the number) are scored again on the same 4 tasks, form by form,
   so the table can say which forms the grader refused (validate's verdict shows three);
4. the row is appended to the JSONL file and flushed before the next dataset starts: a crash
   or a kill loses no finished row, and a new run skips the datasets already there (but
   those validated on another version of the environment: another wrapper or release;
   with `--retry-errors`, also those that ended in an error or a timeout).

`--markdown` writes the table (bench/rg_report.py) from the JSONL file and the hand audit
(bench/RG_AUDIT.json); `--audit-sample` draws the findings the audit reads (fixed seed).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.rg_report import (  # noqa: E402
    AUDIT_JSON,
    TABLE_JSONL,
    audit_markdown,
    audit_sample,
    markdown,
    read_rows,
)

PROOFGYM = str(Path(sys.executable).with_name("proofgym"))
#: wall-clock limit of one dataset's validation (a full run takes a few seconds)
VALIDATE_S = 300.0
#: the tasks validate samples: the first 4 of the generator's 8 (seed 0, split example)
SAMPLE = 4


def dataset_list() -> list[str]:
    """Every dataset served as an `rg_*` environment, in the registry's order."""
    from interop.reasoning_gym.datasets import dataset_names

    return list(dataset_names())


def validate(dataset: str, timeout_s: float) -> dict[str, Any]:
    """`proofgym validate rg_<dataset> --json` in a scratch folder: the report, or why none."""
    env = f"rg_{dataset}"
    with tempfile.TemporaryDirectory(prefix=f"rg-{dataset}-") as scratch:
        environ = {**os.environ, "PROOFGYM_PROOFS_DIR": str(Path(scratch) / "proofs")}
        try:
            done = subprocess.run(
                [PROOFGYM, "validate", env, "--json"],
                cwd=scratch,
                env=environ,
                capture_output=True,
                text=True,
                timeout=timeout_s,
            )
        except subprocess.TimeoutExpired:
            return {"status": "timeout", "reason": f"validate ran past {timeout_s:.0f} s"}
    reports = _reports(done.stdout)
    if reports is None:
        return {"status": "error", "reason": _why(done.stderr or done.stdout, done.returncode)}
    report = next((r for r in reports if r.get("env") == env), None)
    if report is None:
        return {"status": "error", "reason": f"no report for {env} (exit {done.returncode})"}
    return {"status": "validated", "report": report}


def _reports(stdout: str) -> list[dict[str, Any]] | None:
    """The JSON list `validate --json` printed, or None: read from its first `[` at the start
    of a line (a generator that prints to stdout, as bf's did, puts text before it)."""
    start = 0 if stdout.startswith("[") else stdout.find("\n[") + 1
    if start == 0 and not stdout.startswith("["):
        return None
    try:
        reports, _ = json.JSONDecoder().raw_decode(stdout[start:])
    except json.JSONDecodeError:
        return None
    return reports if isinstance(reports, list) else None


_EXCEPTION = re.compile(r"^[A-Za-z_.]*(Error|Exception|Refused|NoReference)\b.*:")


def _why(stderr: str, returncode: int) -> str:
    """Why validate ended without a report: the exception it ended on (with the lines that
    continue its message), else its last line."""
    lines = [x.strip() for x in stderr.splitlines() if x.strip()]
    for i in range(len(lines) - 1, -1, -1):
        if _EXCEPTION.match(lines[i]):
            return " ".join(lines[i:])[:400]
    return (lines[-1] if lines else f"exit {returncode}, no output")[:400]


def honest_forms(dataset: str) -> dict[str, dict[str, Any]]:
    """Each honest variant of the environment's own, scored on the tasks validate samples:
    per form, how many were judged, how many refused (reward below 1), and each refusal."""
    from interop.reasoning_gym import env as rg_env
    from proofgym.wire.protocol import Task
    from proofgym.wire.responses import assistant_message, build_response
    from proofgym_stack.examples import generated_rows

    env = rg_env.environment_classes()[f"rg_{dataset}"]()
    forms: dict[str, dict[str, Any]] = {}
    for row in generated_rows(env.name)[:SAMPLE]:
        task = Task.model_validate(row)
        data = env.data(task)
        for name, text in env.honest_variants(task, "").items():
            response = build_response([assistant_message(text)], model="m")
            result = env.verify(rg_env.NoState(), task, response)
            form = forms.setdefault(name, {"judged": 0, "refused": 0, "examples": []})
            form["judged"] += 1
            if result.reward < 1.0 or result.mask_sample:
                form["refused"] += 1
                form["examples"].append(
                    {
                        "task_id": task.task_id,
                        "reference": data.reference[:300],
                        "variant": text.split("<answer>")[-1].split("</answer>")[0][:300],
                        "reward": result.reward,
                    }
                )
    return forms


def run_one(dataset: str, timeout_s: float) -> dict[str, Any]:
    """One dataset's row."""
    from interop.reasoning_gym.datasets import NO_REFERENCE

    started = time.monotonic()
    row: dict[str, Any] = {"dataset": dataset, "env": f"rg_{dataset}"}
    if dataset in NO_REFERENCE:
        row.update(
            status="no reference",
            reason="its entries carry no right answer (its grader simulates the plan), so no "
            "reference control exists and no task can be checked",
        )
        return row
    row.update(validate(dataset, timeout_s))
    if row["status"] == "validated":
        try:
            row["honest_forms"] = honest_forms(dataset)
        except Exception as exc:  # the rescoring is ours: say what broke, keep the row
            row["honest_forms_error"] = f"{type(exc).__name__}: {exc}"[:300]
    row["seconds"] = round(time.monotonic() - started, 1)
    return row


def current(row: dict[str, Any]) -> bool:
    """Whether a row was validated on the environment's version installed now (the wrapper,
    reasoning-gym's release): a row of another version is run again."""
    version = row.get("report", {}).get("version")
    if version is None:
        return True
    from interop.reasoning_gym.env import environment_classes

    env = environment_classes().get(row["env"])
    return env is not None and env.version() == version


def append(path: Path, row: dict[str, Any]) -> None:
    """One row, flushed and synced: a kill after this loses nothing of it."""
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps(row, sort_keys=True) + "\n")
        out.flush()
        os.fsync(out.fileno())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", nargs="*", default=None, help="these datasets only")
    parser.add_argument("--out", type=Path, default=TABLE_JSONL, help="the JSONL rows")
    parser.add_argument("--timeout", type=float, default=VALIDATE_S, help="seconds per dataset")
    parser.add_argument(
        "--retry-errors", action="store_true", help="run again the rows that ended in an error"
    )
    parser.add_argument("--markdown", type=Path, help="write the table from --out, then stop")
    parser.add_argument("--audit-sample", type=int, help="print a fixed-seed sample of findings")
    args = parser.parse_args(argv)
    if args.markdown:
        audit = json.loads(AUDIT_JSON.read_text()) if AUDIT_JSON.exists() else None
        args.markdown.write_text(markdown(read_rows(args.out), audit))
        if audit is not None:
            AUDIT_JSON.with_suffix(".md").write_text(audit_markdown(audit))
        return 0
    if args.audit_sample:
        print(json.dumps(audit_sample(read_rows(args.out), args.audit_sample), indent=1))
        return 0
    names = args.only or dataset_list()
    again = ("error", "timeout") if args.retry_errors else ()
    done = {r["dataset"] for r in read_rows(args.out) if r["status"] not in again and current(r)}
    todo = [d for d in names if d not in done]
    print(f"{len(names)} datasets: {len(names) - len(todo)} done already, {len(todo)} to run")
    for i, dataset in enumerate(todo, 1):
        row = run_one(dataset, args.timeout)
        append(args.out, row)
        report = row.get("report", {})
        verdicts = report.get("verdicts", [])
        failed = [v["name"] for v in verdicts if v["outcome"] == "fail"]
        print(
            f"[{i}/{len(todo)}] rg_{dataset}: {row['status']} in {row.get('seconds', 0):.0f} s"
            + (f"; failed {', '.join(failed)}" if failed else "")
            + (f" ({row['reason'][:120]})" if row.get("reason") else ""),
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
