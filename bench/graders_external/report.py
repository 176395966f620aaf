"""RESULTS.json and RESULTS.md of the labelled grader set, from the rows `run.py` wrote.

    PYTHONPATH=. .venv/bin/python -m bench.graders_external.report [--rows DIR]

Two readings of "the tool caught it", for `validate` and falsepass alike:
- **fails**: the tool's own verdict on the grader is a failure (`validate`: a verdict failed;
  falsepass: the gate its README puts in CI, `ceiling>0.1` or `errors>0`, is met). Recall is
  the share of paying mutants failed; the false-alarm rate the share of sound graders failed.
- **new failure**: it fails a check on the mutant that passed on the sound grader of the same
  dataset (`validate`: a verdict name, on either of the sound grader's two runs; falsepass: a
  probe row, probe and variant). A sound grader the tool already fails makes "fails" say
  nothing about its mutants; this reading asks whether the tool saw the mutation itself.
Intervals are Wilson's, 95%.
"""

from __future__ import annotations

import argparse
import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

from bench.graders_external.stage import WORK

HERE = Path(__file__).resolve().parent
CHANGED = ("pays", "wrong_0", "lowers_wrong")
#: reasoning-gym reads only the last tags, so an answer retracted after them pays in full:
#: a design `validate` disagrees with (docs/reasoning_gym.md), counted apart in false alarms
RETRACTION = "answer_slot:retracted"
#: `validate` plays the first 4 tasks (its default sample) of the 8 the labels use
VALIDATED = 4
#: a gain the table counts apart: falsepass's own gate (a known-bad answer paid over 0.1)
MATERIAL = 0.1


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson's score interval of k successes in n trials (0, 1 when n is 0)."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def rate(k: int, n: int) -> dict[str, Any]:
    low, high = wilson(k, n)
    return {"k": k, "n": n, "rate": round(k / n, 3) if n else None,
            "ci95": [round(low, 3), round(high, 3)]}  # fmt: skip


def show(r: dict[str, Any]) -> str:
    if not r["n"]:
        return "-"
    return f"{r['k']}/{r['n']} = {r['rate']:.2f} [{r['ci95'][0]:.2f}, {r['ci95'][1]:.2f}]"


def load(
    rows_dir: Path,
) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]], dict[str, str]]:
    """The sound graders' rows by dataset, the mutants' rows, and why datasets did not run."""
    sound: dict[str, dict[str, Any]] = {}
    mutants: list[dict[str, Any]] = []
    not_run: dict[str, str] = {}
    for path in sorted(rows_dir.glob("*.jsonl")):
        for line in path.read_text().splitlines():
            row = json.loads(line)
            if row["kind"] == "sound":
                sound[row["dataset"]] = row
            elif row["kind"] == "not_run":
                not_run[row["dataset"]] = row["reason"]
            else:
                mutants.append(row)
    return sound, mutants, not_run


def validate_fails(v: dict[str, Any]) -> bool:
    return bool(v.get("failed"))


def validate_ran(v: dict[str, Any]) -> bool:
    return not v.get("timeout")


def validate_new(v: dict[str, Any], s: dict[str, Any]) -> bool:
    before = set(s["validate"]["failed"]) | set(s.get("validate_again", {}).get("failed", []))
    return bool(set(v.get("failed", [])) - before)


#: how falsepass's automatic mode stops when the reference earns nothing in any answer
#: format: it tells its user the grader pays no right answer, so it counts as failing it
REFERENCE_UNPAID = "no candidate format earned any reward for the reference"


def falsepass_stopped(f: dict[str, Any]) -> bool:
    return REFERENCE_UNPAID in f.get("error", "")


def falsepass_ran(f: dict[str, Any]) -> bool:
    """It ran to the end, or stopped because the reference earned nothing."""
    return "error" not in f or falsepass_stopped(f)


def falsepass_fails(f: dict[str, Any]) -> bool:
    return bool(f.get("gate_met")) or falsepass_stopped(f)


def falsepass_new(f: dict[str, Any], s: dict[str, Any]) -> bool:
    if falsepass_stopped(f):
        return not falsepass_stopped(s["falsepass"])
    return bool(set(f.get("failed_rows", [])) - set(s["falsepass"].get("failed_rows", [])))


def ceiling(f: dict[str, Any]) -> str:
    """falsepass's false-pass ceiling, rounded to a tenth (a float sum may pass 1)."""
    value = f.get("ceiling")
    return "none" if value is None else f"{min(1.0, value):.1f}"


def new_by(m: dict[str, Any], sound: dict[str, dict[str, Any]]) -> tuple[bool, bool]:
    """(validate, falsepass) each failed a check on `m` that passed on its sound grader."""
    s = sound[m["dataset"]]
    return validate_new(m["validate"], s), falsepass_new(m["falsepass"], s)


def summarize(sound: dict[str, dict[str, Any]], mutants: list[dict[str, Any]]) -> dict[str, Any]:
    """Every figure of RESULTS.md, as data."""
    kept = [m for m in mutants if m["label"]["label"] in CHANGED and m["dataset"] in sound]
    labels = Counter(m["label"]["label"] for m in mutants)
    pays = [m for m in kept if m["label"]["label"] == "pays"]
    groups = {
        "pays": pays,
        "pays_full": [m for m in pays if m["label"]["pays_full"]],
        "pays_and_right_answers_kept": [m for m in pays if not m["label"]["refuses_right"]],
        "pays_0.1_or_more": [m for m in pays if m["label"]["max_gain"] >= MATERIAL],
        "pays_on_validated_tasks": [
            m for m in pays if "tasks" in m["label"] and min(m["label"]["tasks"]) < VALIDATED
        ],
        "pays_on_clean_datasets": [
            m for m in pays if not validate_fails(sound[m["dataset"]]["validate"])
        ],
        "wrong_0": [m for m in kept if m["label"]["label"] == "wrong_0"],
        "lowers_wrong": [m for m in kept if m["label"]["label"] == "lowers_wrong"],
    }
    tools = {
        "validate": ("validate", validate_fails, validate_new, validate_ran),
        "falsepass": ("falsepass", falsepass_fails, falsepass_new, falsepass_ran),
    }
    caught: dict[str, Any] = {}
    for tool, (key, fails, new, ran) in tools.items():
        caught[tool] = {}
        for group, rows in groups.items():
            ok = [m for m in rows if key in m and ran(m[key])]
            caught[tool][group] = {
                "fails": rate(sum(fails(m[key]) for m in ok), len(ok)),
                "new_failure": rate(sum(new(m[key], sound[m["dataset"]]) for m in ok), len(ok)),
            }
    both = [m for m in pays if "validate" in m and "falsepass" in m]
    sound_rows = list(sound.values())
    n_sound = len(sound_rows)
    false_alarms = {
        "validate": rate(sum(validate_fails(s["validate"]) for s in sound_rows), n_sound),
        "falsepass": rate(sum(falsepass_fails(s["falsepass"]) for s in sound_rows), n_sound),
        "validate_beyond_retraction": rate(
            sum(bool(set(s["validate"]["failed"]) - {RETRACTION}) for s in sound_rows), n_sound
        ),
        "validate_verdicts": Counter(v for s in sound_rows for v in s["validate"]["failed"]),
        "validate_run_twice": sum("validate_again" in s for s in sound_rows),
        "validate_runs_disagree": sum(
            s["validate"]["failed"] != s["validate_again"]["failed"]
            for s in sound_rows
            if "validate_again" in s
        ),
        "falsepass_ceilings": Counter(ceiling(s["falsepass"]) for s in sound_rows),
        "falsepass_rows": Counter(
            r for s in sound_rows for r in s["falsepass"].get("failed_rows", [])
        ).most_common(8),
    }
    per_dataset = []
    for name in sorted(sound):
        rows = [m for m in mutants if m["dataset"] == name]
        paying = [m for m in rows if m["label"]["label"] == "pays"]
        per_dataset.append({
            "dataset": name, "drawn": len(rows),
            **{k: sum(m["label"]["label"] == k for m in rows) for k in ("equivalent", *CHANGED)},
            "sound_validate_failed": sound[name]["validate"]["failed"],
            "sound_falsepass_gate": sound[name]["falsepass"].get("gate_met"),
            "pays_validate_fails": sum(validate_fails(m["validate"]) for m in paying),
            "pays_validate_new": sum(validate_new(m["validate"], sound[name]) for m in paying),
            "pays_falsepass_fails": sum(falsepass_fails(m["falsepass"]) for m in paying),
            "pays_falsepass_new": sum(falsepass_new(m["falsepass"], sound[name]) for m in paying),
        })  # fmt: skip
    return {
        "datasets": len(sound),
        "datasets_with_changed_mutants": len({m["dataset"] for m in kept}),
        "mutants_drawn": len(mutants),
        "labels": dict(labels),
        "mutants_after_equivalence_removal": len(kept),
        "liveness": dict(Counter(str(m.get("live")) for m in kept)),
        "validate_timeouts": sum(bool(m.get("validate", {}).get("timeout")) for m in kept),
        "falsepass_errors": sum(not falsepass_ran(m.get("falsepass", {})) for m in kept),
        "falsepass_stopped_reference_unpaid": sum(
            falsepass_stopped(m.get("falsepass", {})) for m in kept
        ),
        "caught": caught,
        "pays_caught_by": {
            "both_new": sum(new_by(m, sound) == (True, True) for m in both),
            "validate_only_new": sum(new_by(m, sound) == (True, False) for m in both),
            "falsepass_only_new": sum(new_by(m, sound) == (False, True) for m in both),
            "neither_new": sum(new_by(m, sound) == (False, False) for m in both),
        },
        "false_alarms": false_alarms,
        "per_dataset": per_dataset,
    }


def markdown(s: dict[str, Any], missed: list[dict[str, Any]]) -> str:
    c, fa = s["caught"], s["false_alarms"]
    lines = [
        "# validate on an external labelled set of graders (reasoning-gym 0.1.25 and mutants)",
        "",
        "Method: [README.md](README.md). Rebuild: `python -m bench.graders_external.run` then "
        "`python -m bench.graders_external.report` (numbers below are from RESULTS.json).",
        "",
        f"- graders: {s['datasets']} sound (one per dataset), {s['mutants_drawn']} mutants "
        f"drawn, labelled {dict(sorted(s['labels'].items()))}",
        f"- after equivalence removal: **{s['mutants_after_equivalence_removal']} mutants over "
        f"{s['datasets_with_changed_mutants']} datasets**; the mutant ran in the grading "
        f"workers as labelled (liveness check): {s['liveness']}",
        f"- datasets that could not run: {s.get('not_run') or 'none'}",
        f"- validate runs cut at 300 s: {s['validate_timeouts']}; falsepass runs that "
        f"errored: {s['falsepass_errors']}; that stopped because the reference earned nothing "
        f"(counted as failing the grader): {s['falsepass_stopped_reference_unpaid']}",
        "",
        "## Recall (Wilson 95%) and false alarms, side by side in the same run",
        "",
        "| mutants | validate fails | validate, new failure | falsepass fails | "
        "falsepass, new failure |",
        "|---|---|---|---|---|",
    ]
    for group in c["validate"]:
        v, f = c["validate"][group], c["falsepass"][group]
        lines.append(
            f"| {group} | {show(v['fails'])} | {show(v['new_failure'])} | {show(f['fails'])} "
            f"| {show(f['new_failure'])} |"
        )
    lines += [
        f"| **sound graders (false alarms)** | {show(fa['validate'])} | - | "
        f"{show(fa['falsepass'])} | - |",
        "",
        f"Paying mutants by who saw the mutation (new failure): {s['pays_caught_by']}.",
        "",
        "Sound graders validate fails on something besides `answer_slot:retracted` (an answer "
        "retracted after the tags, which reasoning-gym's format pays by design): "
        f"{show(fa['validate_beyond_retraction'])}.",
        "",
        f"validate's failed verdicts on the sound graders: {dict(fa['validate_verdicts'])}; "
        f"two runs of validate on the same sound grader disagreed on "
        f"{fa['validate_runs_disagree']} of the {fa['validate_run_twice']} run twice. "
        "falsepass's false-pass ceiling on the sound graders: "
        f"{dict(sorted(fa['falsepass_ceilings'].items()))}; its probe rows failed most often on "
        f"them (graders of {s['datasets']}): {dict(fa['falsepass_rows'])}.",
        "",
        "## Per dataset",
        "",
        "| dataset | drawn | equiv. | pays | wrong 0 | lowers | sound: validate failed | "
        "sound: falsepass gate | pays caught, validate fails / new | falsepass fails / new |",
        "|---|---:|---:|---:|---:|---:|---|---|---|---|",
    ]
    for d in s["per_dataset"]:
        failed = ", ".join(f"`{v}`" for v in d["sound_validate_failed"]) or "-"
        lines.append(
            f"| {d['dataset']} | {d['drawn']} | {d['equivalent']} | {d['pays']} | "
            f"{d['wrong_0']} | {d['lowers_wrong']} | {failed} | {d['sound_falsepass_gate']} | "
            f"{d['pays_validate_fails']} / {d['pays_validate_new']} | "
            f"{d['pays_falsepass_fails']} / {d['pays_falsepass_new']} |"
        )
    lines += ["", "## Paying mutants validate saw no new failure on (first 25)", ""]
    for m in missed[:25]:
        w = m["label"]["witnesses"][0]
        lines.append(
            f"- `{m['id']}` (line {m['line']}): `{m['diff'].splitlines()[-1].strip()[:110]}`; "
            f"pays `{w['kind']}` {w['sound']:.2f} -> {w['mutant']:.2f}"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=Path, default=WORK / "rows")
    args = parser.parse_args()
    sound, mutants, not_run = load(args.rows)
    summary = summarize(sound, mutants)
    summary["not_run"] = not_run
    missed = [
        m
        for m in mutants
        if m["label"]["label"] == "pays" and m["dataset"] in sound
        and not validate_new(m["validate"], sound[m["dataset"]])
    ]  # fmt: skip
    for m in mutants:  # the witnesses' texts stay in the rows; RESULTS.json keeps them short
        for w in m["label"].get("witnesses", [])[:3]:
            w["text"] = w["text"][:160]
        m["label"]["witnesses"] = m["label"].get("witnesses", [])[:3]
    payload = {"summary": summary, "sound": sound, "mutants": mutants}
    (HERE / "RESULTS.json").write_text(json.dumps(payload, indent=1) + "\n")
    (HERE / "RESULTS.md").write_text(markdown(summary, missed))
    print(json.dumps({k: summary[k] for k in ("mutants_after_equivalence_removal", "caught")}))


if __name__ == "__main__":
    main()
