"""Reading bench/rg_table.py's rows: the table of bench/PEER_TABLE_REASONING_GYM.md, and the
hand audit's sample (`audit_sample`) and precision (`wilson`).

A row is one dataset: `status` (`validated`, `no reference`, `error`, `timeout`), `reason`,
`report` (what `proofgym validate --json` printed for it) and `honest_forms` (each of the
environment's own honest variants scored again on the sampled tasks, form by form).
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

#: one row per dataset, appended as each finishes (bench/rg_table.py)
TABLE_JSONL = Path(__file__).with_name("RG_TABLE.jsonl")
#: the hand audit: the sampled findings and each one's judgement
AUDIT_JSON = Path(__file__).with_name("RG_AUDIT.json")
#: reasoning-gym 0.1.25 ships 106 datasets; `composite` (a mix of the others) is not served
RELEASE_DATASETS = 106
#: failed verdicts that are a wrong 0 (an honest answer refused), not a reward paid
HONEST = "honest_variant:"
#: the seed of the audit's draw
AUDIT_SEED = 45


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The rows written so far, the last one of each dataset (a retried error replaces its
    row); a line cut short by a kill is skipped, so that dataset runs again."""
    rows: dict[str, dict[str, Any]] = {}
    if not path.exists():
        return []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        rows[row["dataset"]] = row
    return sorted(rows.values(), key=lambda r: r["dataset"])


def verdicts(row: dict[str, Any]) -> list[dict[str, Any]]:
    """The verdicts of a validated row (none for a row that did not run)."""
    return list(row.get("report", {}).get("verdicts", []))


def failed(row: dict[str, Any]) -> dict[str, str]:
    """Each failed verdict's name and detail."""
    return {v["name"]: v["detail"] for v in verdicts(row) if v["outcome"] == "fail"}


def paying(row: dict[str, Any]) -> list[dict[str, Any]]:
    """The search's findings of severity `pays` (each with its minimal trajectory)."""
    return [f for f in row.get("report", {}).get("findings", []) if f["severity"] == "pays"]


def refused_forms(row: dict[str, Any]) -> dict[str, tuple[int, int]]:
    """Each honest form the grader refused on the sampled tasks: (refused, judged)."""
    forms = row.get("honest_forms", {})
    return {k: (v["refused"], v["judged"]) for k, v in forms.items() if v["refused"]}


def wilson(hits: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion `hits / n` (95% by default)."""
    if n == 0:
        return (0.0, 1.0)
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def population(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """What the audit draws from, one item per (dataset, root cause): `pays` (a failed verdict
    that is a reward paid, or a search finding that pays) and `wrong_0` (an honest form the
    grader refused: one of the environment's own, or a universal one validate failed)."""
    pays: list[dict[str, Any]] = []
    wrong: list[dict[str, Any]] = []
    for row in rows:
        d = row["dataset"]
        for name, detail in failed(row).items():
            if name == "search" or name.startswith(HONEST):
                if name.startswith(HONEST) and name != f"{HONEST}own":
                    wrong.append({"dataset": d, "finding": name, "detail": detail[:600]})
                continue
            pays.append({"dataset": d, "finding": name, "detail": detail[:600]})
        for f in paying(row):
            pays.append(
                {
                    "dataset": d,
                    "finding": f"search:{f['oracle']}@{f['site']}",
                    "detail": f"{f['what']}; {f['why']}"[:600],
                    "minimal": f["minimal"],
                }
            )
        for form, entry in row.get("honest_forms", {}).items():
            if entry["refused"]:
                wrong.append(
                    {"dataset": d, "finding": f"own:{form}", "examples": entry["examples"][:2]}
                )
    return {"pays": pays, "wrong_0": wrong}


def audit_sample(rows: list[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    """`n` findings drawn with a fixed seed, half from each kind (all of a kind when it has
    fewer), each kind's draw without replacement and in the population's order."""
    rng = random.Random(AUDIT_SEED)
    pool = population(rows)
    out: list[dict[str, Any]] = []
    for kind, items in pool.items():
        take = min(len(items), n // 2)
        for item in rng.sample(items, take):
            out.append({"kind": kind, **item})
    return out


def precision(audit: dict[str, Any]) -> str:
    """The audit's precision, strict (only `real` counts) and lenient (`arguable` too), each
    with its Wilson 95% interval, overall and by kind."""
    items = audit["items"]
    kinds = "; ".join(
        f"{kind}: {_share([i for i in items if i['kind'] == kind], ('real',))}"
        for kind in ("pays", "wrong_0")
    )
    return (
        f"{len(items)} findings drawn with seed {audit['seed']}; a real problem of the grader "
        f"(a wrong reward) in **{_share(items, ('real',))}** (precision, Wilson 95%); counting "
        f"the arguable ones as real, {_share(items, ('real', 'arguable'))}. By kind, strict: "
        f"{kinds}."
    )


def still_reported(item: dict[str, Any], rows: list[dict[str, Any]]) -> bool:
    """Whether the table's rows still report an audited finding (a failed verdict of its
    name, `honest_variant:own` for one of the environment's own forms, `search` for the
    search's): an audit made on an older table, read against this one."""
    row = next((r for r in rows if r["dataset"] == item["dataset"]), None)
    if row is None or row["status"] != "validated":
        return False
    finding = str(item["finding"])
    name = (
        "honest_variant:own"
        if finding.startswith("own:")
        else "search"
        if finding.startswith("search")
        else finding
    )
    return name in failed(row)


def precision_now(audit: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    """The audit's precision over the audited findings this table still reports."""
    kept = [i for i in audit["items"] if still_reported(i, rows)]
    gone = [i for i in audit["items"] if i not in kept]
    judged = ", ".join(
        f"{sum(1 for i in gone if i['judgement'] == j)} {j}"
        for j in ("real", "arguable", "false alarm")
    )

    return (
        f"This table's validator no longer reports {len(gone)} of the {len(audit['items'])} "
        f"({judged}); over the {len(kept)} it still reports, a real problem in "
        f"**{_share(kept, ('real',))}**, counting the arguable ones "
        f"{_share(kept, ('real', 'arguable'))}."
    )


def _share(items: list[dict[str, Any]], counted: tuple[str, ...]) -> str:
    """`hits/n = share [lo, hi]`: the items judged one of `counted`, with a Wilson 95%
    interval."""
    hits = sum(1 for i in items if i["judgement"] in counted)
    lo, hi = wilson(hits, len(items))
    return f"{hits}/{len(items)} = {hits / max(1, len(items)):.2f} [{lo:.2f}, {hi:.2f}]"


def audit_markdown(audit: dict[str, Any]) -> str:
    """bench/RG_AUDIT.md: each audited finding, what was seen, the judgement and why."""
    lines = [
        "# Hand audit of validate's findings on reasoning-gym's graders",
        "",
        "Drawn from bench/RG_TABLE.jsonl by `bench/rg_table.py --audit-sample 24` (12 `pays`",
        "findings: failed verdicts that accuse a reward paid or a truth shown, and the search's",
        "paying findings; 12 `wrong_0`: an honest form of the right answer refused), each read",
        "against the dataset's question, answer and grader",
        "(`.venv/lib/python3.11/site-packages/reasoning_gym`). Judgements: **real** (a person",
        "would call the reward wrong), **false alarm** (validate is wrong), **arguable** (the",
        "reward follows the format the policy was told, against what a reader of the whole",
        "reply would say). The strict precision counts only `real`.",
        "",
        precision(audit),
        "",
        "| # | kind | dataset | finding | what I saw | judgement | why |",
        "|---|---|---|---|---|---|---|",
    ]
    for i in audit["items"]:
        lines.append(
            f"| {i['n']} | {i['kind']} | `{i['dataset']}` | `{i['finding']}` | "
            f"{cell(i['saw'])} | {i['judgement']} | {cell(i['why'])} |"
        )
    return "\n".join(lines) + "\n"


def cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "/")


def _summary(rows: list[dict[str, Any]], audit: dict[str, Any] | None) -> list[str]:
    ran = [r for r in rows if r["status"] == "validated"]
    norun = [r for r in rows if r["status"] != "validated"]
    clean = [r for r in ran if not failed(r)]
    by_verdict: dict[str, int] = {}
    for row in ran:
        for name in failed(row):
            by_verdict[name] = by_verdict.get(name, 0) + 1
    forms: dict[str, list[int]] = {}
    for row in ran:
        for form, entry in row.get("honest_forms", {}).items():
            seen = forms.setdefault(form, [0, 0])
            seen[0] += bool(entry["refused"])
            seen[1] += 1
    fn = [0, 0]
    fp = [0, 0]
    for row in ran:
        rates = row["report"]["error_rates"]
        fn[0] += rates["false_negative"]["wrong"]
        fn[1] += rates["false_negative"]["judged"]
        fp[0] += rates["false_positive"]["wrong"]
        fp[1] += rates["false_positive"]["judged"]
    search_pays = sum(len(paying(r)) for r in ran)
    search_sets = sum(1 for r in ran if paying(r))
    lines = [
        f"- **{len(ran)} of {RELEASE_DATASETS}** datasets validated to the end (the issue asks "
        f"for 90): {len(rows)} served as `rg_*` (`composite` is a mix of the others, not "
        f"served); {len(norun)} could not run: "
        + ", ".join(f"`{r['dataset']}` ({r['status']})" for r in norun)
        + ".",
        f"- {len(clean)} passed every verdict; {len(ran) - len(clean)} failed at least one: "
        + ", ".join(
            f"`{k}` ({n})" for k, n in sorted(by_verdict.items(), key=lambda kv: (-kv[1], kv[0]))
        )
        + ".",
        "- Honest answers refused (wrong 0s), datasets whose grader refused the form on at "
        "least one sampled task, of those where it applies: "
        + ", ".join(f"`{k}` {v[0]}/{v[1]}" for k, v in sorted(forms.items()))
        + f". Over every honest variant validate ran: {fn[0]}/{fn[1]} refused.",
        f"- Rollouts that had to fail and were paid a pass: {fp[0]}/{fp[1]}. The search "
        f"found {search_pays} finding(s) that pay, in {search_sets} dataset(s).",
    ]
    if audit:
        audited = "- **Hand audit** ([bench/RG_AUDIT.md](../bench/RG_AUDIT.md)): "
        lines.append(audited + precision(audit) + " " + precision_now(audit, rows))
    return lines


def markdown(rows: list[dict[str, Any]], audit: dict[str, Any] | None) -> str:
    """bench/PEER_TABLE_REASONING_GYM.md from the rows (and the audit, when there is one)."""
    lines = [
        "## reasoning-gym datasets, every one",
        "",
        "reasoning-gym 0.1.25's datasets served as `rg_<dataset>` (the `rg` extra,",
        "[docs/reasoning_gym.md](reasoning_gym.md)): the reference is the dataset's own answer",
        "between `<answer>` tags, the controls `violation_answer_retracted` and `noop_claim`",
        "are ours, the grader is the dataset's own `score_answer` after reasoning-gym's",
        "`extract_answer`. Each dataset: the 8 tasks its generator makes with seed 0 (4",
        "sampled), a full run (search included). The environment's honest variants are the",
        "reference inside the tags in Markdown bold, with a full stop (a number or a sentence),",
        "and a number in another form (`6.0`, `76,972,082`); each is scored again form by form",
        "on the sampled tasks for the column of forms refused. Rebuild (part of",
        "`make peer-table`; resumable: each dataset's row is appended to bench/RG_TABLE.jsonl",
        "as it finishes, and a new run skips the rows there):",
        "",
        "```bash",
        ".venv/bin/python bench/rg_table.py        # every dataset (about 10 s each)",
        ".venv/bin/python bench/rg_table.py --markdown bench/PEER_TABLE_REASONING_GYM.md",
        "```",
        "",
        *_summary(rows, audit),
        "",
        "| environment | verdicts | failed | honest variants refused | forms refused "
        "| had to fail, paid | search: pays / advisory |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        name = f"`{row['env']}`"
        if row["status"] != "validated":
            why = cell(row.get("reason", ""))[:200]
            lines.append(f"| {name} | {row['status']} | {why} | | | | |")
            continue
        vs = verdicts(row)
        judged = [v for v in vs if v["outcome"] != "n/a"]
        passed = sum(1 for v in judged if v["outcome"] == "pass")
        ok = "pass" if row["report"]["passed"] else "FAILED"
        names = ", ".join(f"`{k}`" for k in sorted(failed(row))) or "-"
        rates = row["report"]["error_rates"]
        fn, fp = rates["false_negative"], rates["false_positive"]
        forms = ", ".join(f"{k} {r}/{j}" for k, (r, j) in sorted(refused_forms(row).items()))
        found = row["report"].get("findings", [])
        pays = len(paying(row))
        lines.append(
            f"| {name} | {ok} {passed}/{len(judged)} | {names} | {fn['wrong']}/{fn['judged']} "
            f"| {forms or '-'} | {fp['wrong']}/{fp['judged']} | {pays} / {len(found) - pays} |"
        )
    lines += _details(rows)
    return "\n".join(lines) + "\n"


#: failed verdicts described once for every dataset that has them, not row by row
COMMON = {
    "answer_slot:retracted": (
        "the right answer between the tags, then `Wait, that is wrong. Scratch that: I do "
        "not know the answer.` outside them, scores 1: reasoning-gym reads only the last tags "
        "(the format the policy is told). Words outside the answer's tags are commentary to "
        "validate (advisory, not failed; until this table, a failed verdict in 63 datasets "
        "where the answer is a number); inside the tags it is still judged."
    ),
    f"{HONEST}own": (
        "an honest variant of the environment's own refused: the forms column says which."
    ),
}


def _details(rows: list[dict[str, Any]]) -> list[str]:
    lines = ["", "What the failed verdicts say:", ""]
    for name, what in COMMON.items():
        having = [r["dataset"] for r in rows if name in failed(r)]
        lines.append(f"- **`{name}`** ({len(having)} datasets): {what}")
    lines += ["", "Dataset by dataset, the other failed verdicts and the search's findings", ""]
    for row in rows:
        others = {k: v for k, v in failed(row).items() if k not in COMMON and k != "search"}
        found = paying(row)
        if not others and not found:
            continue
        lines.append(f"**{row['env']}**")
        for name, detail in sorted(others.items()):
            lines.append(f"- `{name}`: {cell(detail)[:300]}")
        for f in found:
            minimal = json.dumps(f["minimal"], ensure_ascii=False)
            lines.append(
                f"- search, pays, `{f['oracle']}` at `{f['site']}` ({f['count']} mutants): "
                f"{cell(f['what'])[:200]}; {cell(f['why'])[:200]}. Minimal trajectory: "
                f"`{cell(minimal)[:300]}`"
            )
        lines.append("")
    return lines
