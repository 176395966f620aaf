"""Reading the peer table (bench/nemo_gym_table.py runs it): one server's `Row`, what its
verdicts say (validated, or why not), which failed verdicts are findings about its reward, and
docs/peers.md written from the table's JSON."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Row:
    """One server's line of the table."""

    name: str
    status: str = "not run"  # validated | not bridged | did not start | no reference | error
    reason: str = ""
    tasks: int = 0
    passed: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    model_refs: list[str] = field(default_factory=list)
    #: recorded full-reward rollouts that earned less when replayed (left out of the tasks)
    unreproduced: list[str] = field(default_factory=list)
    #: the judge its model references were served by (`--model-url`), else empty: none
    judge: str = ""
    #: requests its verify or tools sent to the model server it names (ours answers 503)
    model_calls: int = 0
    #: started only once its requirements.txt was installed (`--install`)
    installed: bool = False
    seconds: float = 0.0
    #: the search's findings (oracle, severity, site, what, why, minimal trajectory)
    findings: list[dict[str, Any]] = field(default_factory=list)
    #: the rollouts that had to fail and were paid, whole (label, task, reward, script)
    paid: list[dict[str, Any]] = field(default_factory=list)


#: a rollout masked because the judge it calls is our 503 endpoint (its URL may be cut short:
#: the table keeps each verdict's detail shortened)
NO_MODEL = re.compile(
    r"127\.0\.0\.1:\d+/v1/|no model is served|\(judge_failed\): ClientResponseError: 503"
)


def unreproduced(row: Row, lost: list[str]) -> tuple[str, str]:
    """Why no recorded rollout could be the reference: a model it needs, or the replay."""
    if any(NO_MODEL.search(problem) for problem in lost):
        return needs_model(row)
    return "reference not reproduced", f"no full-reward rollout earns it again: {lost[0]}"[:300]


def needs_model(row: Row) -> tuple[str, str]:
    refs = ", ".join(row.model_refs) or "a judge"
    return "needs a model", f"its verify calls a model server ({refs}): none runs on this CPU"


def classify(row: Row) -> tuple[str, str]:
    """What a finished validation says about the server. Its verdicts are findings only when
    the peer's own reference replayed to its reward: a reference masked by the model server it
    needs (ours answers 503) says the peer needs a judge; one that earned less says the
    recorded rollout does not reproduce (tools that answer differently, time, randomness)."""
    ref = row.failed.get("control:reference")
    if ref is None:
        return "validated", ""
    if NO_MODEL.search(ref):
        return needs_model(row)
    return "reference not reproduced", ref[:240]


#: failed verdicts that say what the peer ships, not what its reward does
DECLARATIONS = frozenset({"violation_declared", "controls_declared"})
#: each finding's family, by the verdict's name (its prefix before ':', or the whole name)
FAMILIES = {
    "negative": "reward hole",
    "attack": "reward hole",
    "answer_slot": "reward hole",
    "steps": "reward hole",
    "floor": "reward hole",
    "replay": "reward hole",
    "information_flow": "reward hole",
    "floor_gap": "reward hole",
    "control": "reward hole",
    "adversarial": "crash or hole under hostile input",
    "reward_well_formed": "verify crashes (masked samples)",
    "determinism": "nondeterminism",
    "isolation_parallel": "isolation",
    "isolation_probe": "isolation",
    "isolation_colliding": "isolation",
    "no_ground_truth_leak": "leak",
    "honest_variant": "a wrong 0 for an honest answer",
    "honest_variants": "a wrong 0 for an honest answer",
    # the search's failed verdict: a paying finding (a reward hole) or a policy-made mask
    "search": "reward hole or policy-made mask",
}


#: the label a verdict's rollouts go by where it is not the verdict's own name
LABELS = {"adversarial:claim_without_action": "bare claim"}


def _words(text: str) -> str:
    return " ".join(text.replace(":", " ").replace("_", " ").split())


def paid_for(row: dict[str, Any], verdict: str) -> list[dict[str, Any]]:
    """The paid rollouts, whole, of a failed verdict of `row`: those whose label names it
    (`attack hedged_candidates` for `attack:hedged_candidates`)."""
    label = _words(LABELS.get(verdict, verdict))
    return [p for p in row.get("paid", []) if _words(p.get("label", "")).startswith(label)]


def family(verdict: str, row: dict[str, Any] | None = None) -> str:
    """The kind of a failed verdict; the search's by its findings' severities where the row
    keeps them (`pays`: a reward hole; `masks` alone: a policy-made mask, no reward paid)."""
    if verdict == "search" and row is not None and row.get("findings"):
        severities = {f.get("severity") for f in row["findings"]}
        if "pays" in severities:
            return "reward hole"
        if "masks" in severities:
            return "policy-made mask"
    return FAMILIES.get(verdict.split(":", 1)[0], FAMILIES.get(verdict, "other"))


def findings(row: dict[str, Any]) -> dict[str, str]:
    """The failed verdicts that say something about the server's reward: not a control the
    peer does not ship, and not a rollout masked only because the judge it calls is not
    served here (those are listed as judged-away, not as findings)."""
    return {
        k: v for k, v in row["failed"].items() if k not in DECLARATIONS and not NO_MODEL.search(v)
    }


def judged_away(row: dict[str, Any]) -> list[str]:
    """Failed verdicts whose rollouts were masked by the missing judge."""
    return sorted(k for k, v in row["failed"].items() if NO_MODEL.search(v))


def markdown(table: dict[str, Any]) -> str:
    """docs/peers.md from the table's JSON."""
    rows = table["servers"]
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["status"]] = counts.get(row["status"], 0) + 1
    order = [
        "validated",
        "needs a model",
        "reference not reproduced",
        "no reference",
        "not bridged",
        "not a server",
        "did not start",
        "error",
    ]
    lines = [
        "# The peers' environments, validated in public",
        "",
        f"`proofgym validate`, through the NeMo Gym bridge, on every resources server the NeMo "
        f"Gym {table['nemo_gym']} wheel ships ({len(rows)} folders under `resources_servers/`). "
        "Reproduce:",
        "",
        "```bash",
        "make peer-table   # NeMo Gym in .interop/nemo, then bench/nemo_gym_table.py --install",
        "```",
        "",
        "How each server is run (bench/nemo_gym_table.py): alone, from its folder, with its own",
        "config; a model server it names (a judge) is pointed at an endpoint that answers 503,",
        "so a verify that needs one shows it. A server that misses a module gets its",
        "`requirements.txt` in a venv of its own (never a git or URL requirement: nothing but",
        "the package index is reachable here). Its tasks are its example rows that have a",
        "full-reward example rollout; that rollout, replayed action by action, is the",
        "`reference`, kept only if it earns the full reward again when replayed; the one",
        "control we add is `noop_claim` (success claimed, nothing done: must fail). No",
        "control names the peer's own rules, so `violation_declared` fails for every",
        "server and is not counted as a finding. What remains failed is what `validate`",
        "found: a reward paid to a trajectory that did not earn it, a verify that crashes",
        "(masked) on what a policy can send, state crossing sessions, a replay that differs.",
        "",
        *_trust(rows),
        "",
        "| result | servers |",
        "|---|---|",
    ]
    lines += [f"| {s} | {counts[s]} |" for s in order if s in counts]
    validated = [r for r in rows if r["status"] == "validated"]
    by_family: dict[str, int] = {}
    by_verdict: dict[str, int] = {}
    for row in validated:
        for name in findings(row):
            by_verdict[name] = by_verdict.get(name, 0) + 1
        for kind in {family(name, row) for name in findings(row)}:
            by_family[kind] = by_family.get(kind, 0) + 1
    common = sorted(by_verdict.items(), key=lambda kv: (-kv[1], kv[0]))[:4]
    lines += [
        "",
        f"Of the {len(validated)} validated: "
        + ", ".join(f"{n} with a finding of kind {k!r}" for k, n in sorted(by_family.items()))
        + f"; {sum(1 for r in validated if not findings(r))} with none. Most common: "
        + ", ".join(f"`{k}` ({n})" for k, n in common)
        + ".",
    ]
    lines += [
        "",
        "| server | result | verdicts passed / failed | findings | note |",
        "|---|---|---|---|---|",
    ]
    for row in sorted(rows, key=lambda r: (order.index(r["status"]), r["name"])):
        found = findings(row)
        ran = row["status"] == "validated"
        counted = f"{len(row['passed'])} / {len(row['failed'])}" if row["passed"] else ""
        names = ", ".join(f"`{k}`" for k in sorted(found)) if ran else ""
        note = row["reason"].replace("|", "/").replace("\n", " ")
        if ran and row.get("unreproduced"):
            note = f"{len(row['unreproduced'])} recorded rollout(s) did not reproduce"
        away = judged_away(row) if ran else []
        if away:
            note = (note + "; " if note else "") + (
                f"its verify called a judge on some answers: {len(away)} verdict(s) masked "
                "by the missing judge, not counted"
            )
        if row.get("installed"):
            note = (note + "; " if note else "") + "requirements.txt installed"
        if row.get("judge") and row.get("model_refs"):
            note = (note + "; " if note else "") + f"judged by {row['judge']}"
        lines.append(f"| {row['name']} | {row['status']} | {counted} | {names} | {note} |")
    lines += ["", OPENENV.read_text(), REASONING_GYM.read_text()]
    if JUDGED.exists():  # the servers that need a judge, run with one (`--model-url`)
        judged = json.loads(JUDGED.read_text())["servers"]
        lines += [
            "## With a judge served by proofgym's model interface",
            "",
            f"`--model-url` pointed the judges at {judged[0]['judge'] or 'a model server'}"
            " (bench/NEMO_GYM_JUDGED.json):",
            "",
        ]
        for row in judged:
            lost = "; ".join(p[:160] for p in row["unreproduced"][:2])
            lines.append(
                f"- **{row['name']}**: {row['tasks']} task(s) whose recorded reference this "
                f"judge paid again; not again: {lost or 'none'}. Then: {row['status']}"
                + (f" ({row['reason'][:160]})" if row["status"] == "error" else "")
            )
        lines.append("")
    lines += ["## What validate found, server by server", ""]
    for row in rows:
        found = findings(row)
        if row["status"] != "validated":
            continue
        if not found:
            lines += [f"**{row['name']}**: every verdict passed.", ""]
            continue
        lines.append(f"**{row['name']}**")
        for name, detail in sorted(found.items()):
            shown = " ".join(detail.split())[:220].replace("|", "/")
            lines.append(f"- `{name}` ({family(name, row)}): {shown}")
        for f in row.get("findings", []):
            again = f.get("replayed")
            if again:
                said = "paid again" if again["reproduces"] else "did not pay again"
                lines.append(
                    f"  - replayed afresh against the server, `{f['oracle']}` at "
                    f"`{f['site']}`: {said} ({again['saw'][:160]})"
                )
        lines.append("")
    return "\n".join(lines) + "\n"


#: the audits of the table's accusations (bench/nemo_audit.py), oldest first
AUDITS = Path(__file__).parent


def _trust(rows: list[dict[str, Any]]) -> list[str]:
    """How far to trust the findings: each audit's precision, as judged and as read against
    this table."""
    lead = "**How far to trust it.** These findings are leads, not verdicts."
    # oldest first: each audit draws with the next seed (47, 48, 49, ...)
    files = sorted(AUDITS.glob("NEMO_AUDIT*.json"), key=lambda p: json.loads(p.read_text())["seed"])
    if not files:
        return [lead + " No audit of this table has been judged."]
    from bench.nemo_audit import precision, precision_now

    out = [
        lead + " Each audit draws accusations of a reward paid and has each judged by someone "
        "other than the validator's author, reading the server's grader."
    ]
    for path in files:
        audit = json.loads(path.read_text())
        md = path.with_suffix(".md").name
        out += [
            "",
            f"- [bench/{md}](../bench/{md}): {precision(audit)} {precision_now(audit, rows)}",
        ]
    return out


#: the OpenEnv environments the package index holds and how each fared here (hand-written:
#: each was read or installed by hand; bench/PEER_TABLE_OPENENV.md says how)
OPENENV = Path(__file__).with_name("PEER_TABLE_OPENENV.md")
#: reasoning-gym's datasets as `rg_*` environments: written by bench/rg_table.py (`make rg-table`)
REASONING_GYM = Path(__file__).with_name("PEER_TABLE_REASONING_GYM.md")
#: the judge-needing servers run with a judge (`--model-url ... --out` this file)
JUDGED = Path(__file__).with_name("NEMO_GYM_JUDGED.json")


def reclassified(row: dict[str, Any]) -> dict[str, Any]:
    """A stored row's status recomputed by this harness's rules (they may have grown)."""
    kept = Row(**{k: v for k, v in row.items() if k in Row.__dataclass_fields__})
    if kept.status in ("validated", "needs a model", "reference not reproduced"):
        if kept.tasks == 0 and kept.unreproduced:
            kept.status, kept.reason = unreproduced(kept, kept.unreproduced)
        elif kept.passed or kept.failed:
            kept.status, kept.reason = classify(kept)
        if kept.model_calls and kept.status == "reference not reproduced":
            kept.status, kept.reason = needs_model(kept)
    return asdict(kept)
