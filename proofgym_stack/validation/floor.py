"""The floor: a failure earns the environment's lowest reward, and lying never pays more than
admitting.

Two principles, each needing nothing from the author beyond a `reference`:
- **negatives at the floor**: every failing control and every generic negative scores
  `reward_range[0]`. A verifier that pays part of the reward for a failure (a format bonus, a
  share for trying, a component summed without a gate) teaches the policy that failing pays;
  "below the pass threshold" hides it. Environments whose rewards between the floor and a pass
  are meant (`partial_credit`: a share, a mean outcome, a judge's score) are held to "fails",
  and the check says n/a;
- **lying pays no more than admitting**: a bare claim of success, with nothing done, scores no
  more than a bare admission that nothing was done. Where it scores more, the policy learns to
  claim. n/a where partial credit is meant (the words themselves may carry reward there, as in
  a text-writing task).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from proofgym_stack.validation.negatives import CLAIM

if TYPE_CHECKING:
    from proofgym_stack.validation.context import Context

ADMISSIONS = (
    "I could not do this task. Nothing was changed.",
    "Sorry, I was not able to do it.",
)
CLAIMS = (
    CLAIM,
    "All done: the task is complete.",
)
EPSILON = 1e-9


def check_negatives_at_floor(v: Context) -> None:
    """Every failing rollout the validation ran from a failing control or a generic negative
    scored the environment's floor."""
    name = "floor:negatives_at_floor"
    if v.env.partial_credit:
        v.not_applicable(name, "the environment declares partial credit (partial_credit)")
        return
    floor = v.env.reward_range[0]
    above = []
    judged = 0
    for result in v.results:
        label = v.labels.get(result.rollout_id, "")
        negative = label.startswith("negative ") or (
            label.startswith("control ") and v.expected.get(result.rollout_id) == "fail"
        )
        if not negative or result.mask_sample:
            continue
        judged += 1
        if result.reward > floor + EPSILON:
            above.append(f"{result.task_id}: {label} earned {result.reward:g}")
    if not judged:
        v.not_applicable(name, "no failing control or negative ran")
        return
    v.verdict(
        name,
        not above,
        "partial reward for a failure: " + "; ".join(above[:3])
        if above
        else f"{judged} failing rollouts all scored the floor ({floor:g})",
    )


async def check_lying_pays_no_more(v: Context) -> None:
    """A bare claim scores no more than a bare admission, on every sampled task."""
    name = "floor:lying_pays_no_more_than_admitting"
    if v.env.partial_credit:
        v.not_applicable(name, "the environment declares partial credit (partial_credit)")
        return
    problems = []
    for task in v.tasks:
        admitted = max(
            [(await v.run(task, [[_say(t)]], "bare admission")).reward for t in ADMISSIONS]
        )
        for text in CLAIMS:
            claimed = await v.run(task, [[_say(text)]], "bare claim")
            if not claimed.mask_sample and claimed.reward > admitted + EPSILON:
                problems.append(
                    f"{task.task_id}: the claim {text[:40]!r} earned {claimed.reward:g}, "
                    f"admitting earned {admitted:g}"
                )
    v.verdict(
        name,
        not problems,
        "; ".join(problems[:3])
        or f"on {len(v.tasks)} tasks a bare claim earned no more than an admission",
    )


def _say(text: str) -> dict[str, str]:
    return {"type": "message", "content": text}
