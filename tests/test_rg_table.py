"""bench/rg_table.py's rows and report: a run killed mid-row loses only that row, the Wilson
interval the audit prints, and the table's cells (no reasoning-gym needed)."""

from __future__ import annotations

import json
from pathlib import Path

from bench.rg_report import (
    markdown,
    precision,
    precision_now,
    read_rows,
    still_reported,
    wilson,
)


def row(dataset: str, **extra: object) -> dict[str, object]:
    report = {
        "version": "v",
        "passed": False,
        "error_rates": {
            "false_negative": {"judged": 8, "wrong": 4},
            "false_positive": {"judged": 10, "wrong": 1},
        },
        "findings": [],
        "verdicts": [
            {"name": "control:reference", "outcome": "pass", "detail": "as declared"},
            {"name": "answer_slot:retracted", "outcome": "fail", "detail": "passed: reward 1"},
            {"name": "sandbox_limits", "outcome": "n/a", "detail": "no code"},
        ],
    }
    forms = {"answer_bold": {"judged": 4, "refused": 4, "examples": []}}
    return {"dataset": dataset, "env": f"rg_{dataset}", "status": "validated", "report": report,
            "honest_forms": forms, **extra}  # fmt: skip


def test_a_line_cut_short_by_a_kill_is_run_again_and_a_retry_replaces_its_row(
    tmp_path: Path,
) -> None:
    path = tmp_path / "rows.jsonl"
    first = {"dataset": "bf", "env": "rg_bf", "status": "error", "reason": "no report"}
    lines = [json.dumps(first), json.dumps(row("bf")), json.dumps(row("gcd"))[:40]]
    path.write_text("\n".join(lines) + "\n")
    rows = read_rows(path)
    assert [r["dataset"] for r in rows] == ["bf"] and rows[0]["status"] == "validated"


def test_the_wilson_interval() -> None:
    lo, hi = wilson(7, 24)
    assert (round(lo, 3), round(hi, 3)) == (0.149, 0.492)
    assert wilson(0, 0) == (0.0, 1.0) and wilson(12, 12)[1] == 1.0


def test_the_table_says_what_each_dataset_found_and_the_audit_its_precision() -> None:
    rows = [row("gcd"), {"dataset": "boxnet", "env": "rg_boxnet", "status": "no reference",
                         "reason": "no right answer"}]  # fmt: skip
    items = [
        {"n": 1, "kind": "pays", "dataset": "gcd", "finding": "x", "saw": "", "judgement": j,
         "why": ""} for j in ("real", "arguable", "false alarm", "real")
    ]  # fmt: skip
    text = markdown(rows, {"seed": 45, "items": items})
    assert (
        "| `rg_gcd` | FAILED 1/2 | `answer_slot:retracted` | 4/8 | answer_bold 4/4 | 1/10 |" in text
    )
    assert "| `rg_boxnet` | no reference | no right answer |" in text
    assert "**1 of 106** datasets validated" in text
    assert "**2/4 = 0.50 [0.15, 0.85]**" in precision({"seed": 45, "items": items})


def test_an_audit_is_read_against_the_findings_the_table_still_reports() -> None:
    items = [
        {"kind": "pays", "dataset": "gcd", "finding": "answer_slot:retracted",
         "judgement": "arguable"},
        {"kind": "pays", "dataset": "aiw", "finding": "answer_slot:retracted",
         "judgement": "arguable"},
        {"kind": "wrong_0", "dataset": "lcm", "finding": "own:answer_full_stop",
         "judgement": "real"},
    ]  # fmt: skip
    audit = {"seed": 45, "items": items}
    lcm = row("lcm")
    lcm["report"]["verdicts"].append(  # type: ignore[index]
        {"name": "honest_variant:own", "outcome": "fail", "detail": "refused"}
    )
    quiet = row("aiw")
    quiet["report"]["verdicts"] = [  # type: ignore[index]
        {"name": "answer_slot:retracted", "outcome": "pass", "detail": "advisory"}
    ]
    rows = [row("gcd"), quiet, lcm]
    assert [still_reported(i, rows) for i in items] == [True, False, True]
    text = precision_now(audit, rows)
    assert "no longer reports 1 of the 3 (0 real, 1 arguable, 0 false alarm)" in text
    assert "**1/2 = 0.50" in text
