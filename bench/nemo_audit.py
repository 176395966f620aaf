"""The audit of the peer table: a seeded sample of `validate`'s accusations that a reward was
paid, each judged by reading the NeMo Gym server's own grader.

    .venv/bin/python bench/nemo_audit.py --sample 24   # draw (keeps judgements already made)
    .venv/bin/python bench/nemo_audit.py --markdown    # bench/NEMO_AUDIT.md from the judgements

The population is every accusation of a reward paid in bench/NEMO_GYM_TABLE.json, one item per
(server, root cause): a failed verdict that says a rollout which had to fail was paid (the
answer slot, the attacks, the negatives, a bare claim, a replay on another task), and each of
the search's findings whose severity is `pays`. A finding that only reports (advisory), a crash
under hostile input, a missing declaration or a judge this machine does not serve is not an
accusation of a reward paid, and is not drawn. Each item is judged by someone other than the
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

from bench.nemo_gym_report import findings  # noqa: E402
from bench.rg_report import wilson  # noqa: E402

TABLE = ROOT / "bench" / "NEMO_GYM_TABLE.json"
AUDIT_JSON = ROOT / "bench" / "NEMO_AUDIT.json"
AUDIT_MD = ROOT / "bench" / "NEMO_AUDIT.md"
SEED = 47
#: failed verdicts that say a rollout which had to fail was paid
PAID = ("answer_slot:", "attack:", "negative:", "control:noop_claim", "replay:")
PAID_NAMES = frozenset({"adversarial:claim_without_action", "no_ground_truth_leak"})
JUDGEMENTS = ("real", "arguable", "false alarm")


def accusations(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every accusation of a reward paid, one per (server, root cause), in the table's order."""
    out: list[dict[str, Any]] = []
    for row in rows:
        if row["status"] != "validated":
            continue
        for name, detail in sorted(findings(row).items()):
            if name.startswith(PAID) or name in PAID_NAMES:
                out.append({"server": row["name"], "finding": name, "detail": detail})
        for f in row.get("findings", []):
            if f.get("severity") == "pays":
                out.append(
                    {
                        "server": row["name"],
                        "finding": f"search:{f['oracle']}@{f['site']}",
                        "detail": f"{f['what']}; {f['why']}"[:600],
                        "minimal": f.get("minimal"),
                    }
                )
    return out


def draw(rows: list[dict[str, Any]], n: int, judged: list[dict[str, Any]]) -> dict[str, Any]:
    """`n` accusations drawn with the fixed seed, at most a third from any one server (so one
    server's many findings cannot fill the sample), judgements already made kept."""
    pool = accusations(rows)
    rng = random.Random(SEED)
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
    return {"seed": SEED, "population": len(pool), "drawn": len(items), "items": items}


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


def markdown(audit: dict[str, Any]) -> str:
    """bench/NEMO_AUDIT.md: each audited accusation, what was seen, the judgement and why."""
    lines = [
        "# The audit of the peer table: accusations of a reward paid, judged by reading the grader",
        "",
        (__doc__ or "").split("\n\n", 2)[2].strip(),
        "",
        precision(audit),
        "",
        "| # | server | finding | what was seen | judgement | why |",
        "|---|---|---|---|---|---|",
    ]
    for i in audit["items"]:
        lines.append(
            f"| {i['n']} | `{i['server']}` | `{i['finding']}` | {_cell(i['saw'])} | "
            f"{i['judgement'] or 'not judged'} | {_cell(i['why'])} |"
        )
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "/")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sample", type=int, default=None, help="draw this many accusations")
    parser.add_argument("--markdown", action="store_true", help="write bench/NEMO_AUDIT.md")
    args = parser.parse_args()
    if args.sample is not None:
        rows = json.loads(TABLE.read_text())["servers"]
        judged = json.loads(AUDIT_JSON.read_text())["items"] if AUDIT_JSON.exists() else []
        audit = draw(rows, args.sample, judged)
        AUDIT_JSON.write_text(json.dumps(audit, indent=1, ensure_ascii=False) + "\n")
        print(f"drew {audit['drawn']} of {audit['population']} into {AUDIT_JSON}")
    if args.markdown:
        audit = json.loads(AUDIT_JSON.read_text())
        missing = [i["n"] for i in audit["items"] if i["judgement"] not in JUDGEMENTS]
        if missing:
            print(f"not judged yet: items {missing}", file=sys.stderr)
        AUDIT_MD.write_text(markdown(audit))
        print(f"wrote {AUDIT_MD}: {precision(audit)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
