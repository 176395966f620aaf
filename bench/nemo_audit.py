"""The audit of the peer table: a seeded sample of `validate`'s accusations that a reward was
paid, each judged by reading the NeMo Gym server's own grader.

    .venv/bin/python bench/nemo_audit.py --sample 24   # draw (keeps judgements already made)
    .venv/bin/python bench/nemo_audit.py --markdown    # bench/NEMO_AUDIT.md from the judgements

The audit stays as judged when the table is made again: `--markdown` also reads it against the
table as it is now (which audited accusations the validator still makes).

The population is every accusation of a reward paid in bench/NEMO_GYM_TABLE.json, one item per
(server, root cause): a failed verdict that says a rollout which had to fail was paid (the
answer slot, the attacks, the negatives, a bare claim, a replay on another task), and each of
the search's findings whose severity is `pays` and that paid again when the table replayed
its minimal trajectory afresh against the server (`nemo_gym_table.confirmed`). A finding
that only reports (advisory), a masked rollout (`masks`), a crash under hostile input, a
missing declaration or a judge this machine does not serve is not an accusation of a reward
paid, and is not drawn. Each item is judged by someone other than the
validator's author: **real** (the reward was not earned: a person reading the grader and the
trajectory would refuse it), **arguable** (the reward follows a contract the policy was told,
against what a reader of the whole reply would say), **false alarm** (the reward was earned, or
the trajectory is not what the finding says). The strict precision counts only `real`.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.nemo_gym_report import findings, paid_for  # noqa: E402
from bench.rg_report import cell, wilson  # noqa: E402

TABLE = ROOT / "bench" / "NEMO_GYM_TABLE.json"
AUDIT_JSON = ROOT / "bench" / "NEMO_AUDIT.json"
AUDIT_MD = ROOT / "bench" / "NEMO_AUDIT.md"
SEED = 47
#: failed verdicts that say a rollout which had to fail was paid
PAID = ("answer_slot:", "attack:", "negative:", "control:noop_claim", "replay:")
PAID_NAMES = frozenset({"adversarial:claim_without_action", "no_ground_truth_leak"})
JUDGEMENTS = ("real", "arguable", "false alarm")


#: verdicts that each say one thing of a server: a reply that answers nothing was paid (empty,
#: garbage, a bare claim in any of its forms): one root cause, one accusation
NO_ANSWER = (
    "control:noop_claim",
    "negative:empty_answer",
    "negative:garbage_text",
    "negative:claim_without_action",
    "adversarial:claim_without_action",
)
NO_ANSWER_PAID = "a reply with no answer paid: "


def accusations(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every accusation of a reward paid, one per (server, root cause), in the table's order:
    the verdicts that a reply with no answer was paid (`NO_ANSWER`) are one item, named
    `a reply with no answer paid: <verdicts>`, with each verdict's detail."""
    out: list[dict[str, Any]] = []
    for row in rows:
        if row["status"] != "validated":
            continue
        found = findings(row)
        empty = [n for n in NO_ANSWER if n in found]
        if empty:
            detail = " | ".join(f"{n}: {found[n]}" for n in empty)
            out.append({"server": row["name"], "finding": NO_ANSWER_PAID + ", ".join(empty),
                        "detail": detail[:900]})  # fmt: skip
        for name, detail in sorted(found.items()):
            if name in NO_ANSWER:
                continue
            if name.startswith(PAID) or name in PAID_NAMES:
                item = {"server": row["name"], "finding": name, "detail": detail}
                whole = paid_for(row, name)[:3]  # the paid rollouts, whole, where kept
                out.append({**item, "paid": whole} if whole else item)
        for f in row.get("findings", []):
            # a finding that did not pay again when replayed afresh is not drawn
            if f.get("severity") == "pays" and (f.get("replayed") or {}).get("reproduces", True):
                out.append(
                    {
                        "server": row["name"],
                        "finding": f"search:{f['oracle']}@{f['site']}",
                        "detail": f"{f.get('what', '')}; {f.get('why', '')}"[:600],
                        "minimal": f.get("minimal"),
                    }
                )
    return out


def draw(
    rows: list[dict[str, Any]], n: int, judged: list[dict[str, Any]], seed: int = SEED
) -> dict[str, Any]:
    """`n` accusations drawn with the fixed seed, at most a third from any one server (so one
    server's many findings cannot fill the sample), judgements already made kept."""
    pool = accusations(rows)
    rng = random.Random(seed)
    rng.shuffle(pool)
    per_server: dict[str, int] = {}
    cap = max(1, n // 3)
    picked: list[dict[str, Any]] = []
    for item in pool:
        if len(picked) == n:
            break
        if per_server.get(item["server"], 0) >= cap:
            continue
        per_server[item["server"]] = per_server.get(item["server"], 0) + 1
        picked.append(item)
    old = {(i["server"], i["finding"]): i for i in judged}
    items = []
    for k, item in enumerate(picked, 1):
        before = old.get((item["server"], item["finding"]), {})
        items.append(
            {
                "n": k,
                **item,
                "saw": before.get("saw", ""),
                "judgement": before.get("judgement", ""),
                "why": before.get("why", ""),
            }
        )
    return {"seed": seed, "population": len(pool), "drawn": len(items), "items": items}


def share(items: list[dict[str, Any]], counted: tuple[str, ...]) -> str:
    """`hits/n = share [lo, hi]` (Wilson 95%)."""
    hits = sum(1 for i in items if i["judgement"] in counted)
    lo, hi = wilson(hits, len(items))
    return f"{hits}/{len(items)} = {hits / max(1, len(items)):.2f} [{lo:.2f}, {hi:.2f}]"


def precision(audit: dict[str, Any]) -> str:
    """The audited precision, strict and counting the arguable ones, with the sample's size."""
    items = [i for i in audit["items"] if i["judgement"] in JUDGEMENTS]
    servers = len({i["server"] for i in items})
    search = [i for i in items if i["finding"].startswith("search:")]
    return (
        f"{len(items)} accusations of a reward paid, across {servers} servers, drawn with seed "
        f"{audit['seed']} from {audit['population']}: the reward was really not earned in "
        f"**{share(items, ('real',))}** (precision, Wilson 95%); counting the arguable ones, "
        f"{share(items, ('real', 'arguable'))}. The search's own `pays` findings among them: "
        f"{share(search, ('real',))}."
    )


def still_reported(item: dict[str, Any], rows: list[dict[str, Any]]) -> bool:
    """Whether a table (one made after the audit) still accuses what an audited item did:
    the same failed verdict on the server, or a `pays` finding of the same oracle and site."""
    row = next((r for r in rows if r["name"] == item["server"]), None)
    if row is None or row["status"] != "validated":
        return False
    finding = str(item["finding"])
    if finding.startswith(NO_ANSWER_PAID):
        return any(n in findings(row) for n in finding.removeprefix(NO_ANSWER_PAID).split(", "))
    if finding.startswith("search:"):
        return any(
            f"search:{f['oracle']}@{f['site']}" == finding and f.get("severity") == "pays"
            for f in row.get("findings", [])
        )
    return finding in findings(row)


def precision_now(audit: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    """The audit read against a later table: which audited accusations it still makes, and
    the precision over those."""
    judged = [i for i in audit["items"] if i["judgement"] in JUDGEMENTS]
    kept = [i for i in judged if still_reported(i, rows)]
    gone = [i for i in judged if i not in kept]
    by = ", ".join(f"{sum(1 for i in gone if i['judgement'] == j)} {j}" for j in JUDGEMENTS)
    return (
        f"Read against the table as it is now, {len(gone)} of the {len(judged)} are no longer "
        f"accused ({by}); over the {len(kept)} still accused, the reward was really not earned "
        f"in **{share(kept, ('real',))}**, counting the arguable ones "
        f"{share(kept, ('real', 'arguable'))}."
    )


def markdown(audit: dict[str, Any]) -> str:
    """bench/NEMO_AUDIT.md: each audited accusation, what was seen, the judgement and why."""
    lines = [
        "# The audit of the peer table: accusations of a reward paid, judged by reading the grader",
        "",
        (__doc__ or "").split("\n\n", 2)[2].strip(),
        "",
        precision(audit),
        "",
        precision_now(audit, json.loads(TABLE.read_text())["servers"]),
        "",
        "| # | server | finding | what was seen | judgement | why |",
        "|---|---|---|---|---|---|",
    ]
    for i in audit["items"]:
        lines.append(
            f"| {i['n']} | `{i['server']}` | `{i['finding']}` | {cell(str(i['saw']))} | "
            f"{i['judgement'] or 'not judged'} | {cell(str(i['why']))} |"
        )
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sample", type=int, default=None, help="draw this many accusations")
    parser.add_argument("--markdown", action="store_true", help="write bench/NEMO_AUDIT.md")
    parser.add_argument("--file", type=Path, default=AUDIT_JSON, help="the audit's JSON")
    parser.add_argument("--seed", type=int, default=SEED, help="the draw's seed")
    args = parser.parse_args()
    audit_json, audit_md = args.file, args.file.with_suffix(".md")
    if args.sample is not None:
        rows = json.loads(TABLE.read_text())["servers"]
        judged = json.loads(audit_json.read_text())["items"] if audit_json.exists() else []
        audit = draw(rows, args.sample, judged, args.seed)
        audit_json.write_text(json.dumps(audit, indent=1, ensure_ascii=False) + "\n")
        print(f"drew {audit['drawn']} of {audit['population']} into {audit_json}")
    if args.markdown:
        audit = json.loads(audit_json.read_text())
        missing = [i["n"] for i in audit["items"] if i["judgement"] not in JUDGEMENTS]
        if missing:
            print(f"not judged yet: items {missing}", file=sys.stderr)
        audit_md.write_text(markdown(audit))
        rows = json.loads(TABLE.read_text())["servers"]
        print(f"wrote {audit_md}: {precision(audit)} {precision_now(audit, rows)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
