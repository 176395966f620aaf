"""What the search found: one finding per root cause, with a trajectory the author can paste.

A finding names its oracle (`another_truth`, `another_world`, `another_path`, `fault`, and
`stated_rule`: a reply that tells what the task's words say not to tell), its
severity (`pays`: a trajectory earned reward it did not deserve, or a reward outside the range;
`masks`: it turned its own failure into a masked sample, a verify error where a 0 was due, so
training never sees that failure: it fails `validate`, but no reward was paid; `advisory`:
nothing was gained, but the verifier took a path no pass control takes), the site and
operator that found it, the whole mutated trajectory and the minimal one the shrinker kept,
and how many mutants hit the same root cause (one defect, one finding).
"""

from __future__ import annotations

import json
import keyword
from dataclasses import dataclass
from typing import Any

from proofgym.wire.protocol import RunResult
from proofgym_stack.validation.scripts import Script, call_arguments

PAYS, MASKS, ADVISORY = "pays", "masks", "advisory"
#: the severities that fail `validate`
FAILING = (PAYS, MASKS)


@dataclass
class Finding:
    """One root cause the search found, with the trajectories that show it."""

    oracle: str
    severity: str
    task_id: str
    control: str
    op: str
    site: str
    what: str
    why: str
    whole: Script
    minimal: Script
    count: int = 1

    @property
    def key(self) -> tuple[str, str]:
        """The root cause: the oracle and the site (one argument, one tool, the message)."""
        return (self.oracle, self.site)

    def line(self) -> str:
        """`pays another_world at ship.items (3 mutants): ...`: one line for a verdict."""
        many = f" ({self.count} mutants)" if self.count > 1 else ""
        return f"{self.severity} {self.oracle} at {self.site}{many}: {self.what}; {self.why}"

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict, with the minimal trajectory as a control to paste."""
        return {
            "oracle": self.oracle,
            "severity": self.severity,
            "task_id": self.task_id,
            "control": self.control,
            "op": self.op,
            "site": self.site,
            "what": self.what,
            "why": self.why,
            "count": self.count,
            "whole": self.whole,
            "minimal": self.minimal,
            "paste": as_control(self.minimal, f"violation_{self.oracle}_{_slug(self.site)}"),
        }


def grouped(found: list[Finding]) -> list[Finding]:
    """One finding per root cause (the first found, counting the others), the gravest first:
    a cause shown by an advisory mutant and then by one that pays is a `pays` finding, shown
    by that mutant (a milder one first must not hide it)."""
    kept: dict[tuple[str, str], Finding] = {}
    for f in found:
        first = kept.get(f.key)
        if first is None:
            kept[f.key] = f
        elif _rank(f.severity) < _rank(first.severity):
            f.count += first.count
            kept[f.key] = f
        else:
            first.count += 1
    return sorted(kept.values(), key=lambda f: (_rank(f.severity), f.oracle, f.site))


def _rank(severity: str) -> int:
    return {PAYS: 0, MASKS: 1}.get(severity, 2)


def as_control(script: Script, name: str) -> str:
    """The script as Python an author pastes into `controls()` (with `call` and `say`)."""
    lines = [f'Control(name="{name}", expect="fail", script=[']
    for turn in script:
        parts = [_item(item) for item in turn]
        if len(parts) == 1:
            lines.append(f"    {parts[0]},")
        else:  # several items in one turn
            inner = ", ".join(
                p.replace("call(", "call_item(", 1).replace("say(", "say_item(", 1) for p in parts
            )
            lines.append(f"    [{inner}],")
    lines.append("])")
    return "\n".join(lines)


def _item(item: dict[str, Any]) -> str:
    if item.get("type") == "function_call":
        given = call_arguments(item)
        if all(k.isidentifier() and not keyword.iskeyword(k) for k in given):
            args = ", ".join(f"{k}={v!r}" for k, v in given.items())
        else:
            args = f"**{given!r}"
        name = json.dumps(str(item.get("name")))
        return f"call({name}{', ' if args else ''}{args})"
    text = str(item.get("content") or "")
    return f"say({json.dumps(text if len(text) <= 300 else text[:300] + '...')})"


def _slug(site: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in site).strip("_")[:40] or "message"


def severity_of_fault(result: RunResult) -> str:
    """`masks` for a masked rollout (no reward paid), `pays` for a reward above the range."""
    return MASKS if result.mask_sample else PAYS


def fault_of(result: RunResult, reward_range: tuple[float, float]) -> str | None:
    """Why this rollout is a policy-made fault (masked, or a reward outside the range)."""
    low, high = reward_range
    if result.mask_sample:
        return f"masked {result.failure_kind}: {(result.failure_reason or '')[:160]}"
    if not low - 1e-9 <= result.reward <= high + 1e-9:
        return f"reward {result.reward:g} outside {reward_range}"
    return None
