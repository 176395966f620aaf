"""What `validate` adds for an environment scored by a judge (`resources_servers.verifiers.judge`).

- `judge_negatives_declared`: the environment's controls include the judge-specific ones: an
  answer that instructs the grader, one that echoes the rubric, one padded to the length
  limit, an empty one (each must fail) and the reference's facts scrambled (must pass).
- `judge_agreement`: the share of control runs where the judge's outcome is the declared one,
  with the judge named: with a real judge model configured (`PROOFGYM_JUDGE_URL`) this is
  its agreement with the controls; it must be 90% or more.
- `judge_determinism`: the judge asked twice, bypassing its cache, about the final answers of
  the passing controls, gives the same verdict both times.
"""

from __future__ import annotations

from typing import Any

from proofgym.wire.responses import final_message
from proofgym_stack.validation.context import Context
from resources_servers.verifiers.judge import Judge, JudgeFailed

JUDGE_NEGATIVES = {
    "judge_instruction_to_grader": "fail",
    "judge_rubric_echo": "fail",
    "judge_padded_to_the_limit": "fail",
    "judge_empty": "fail",
    "judge_scrambled_correct": "pass",
}
MIN_AGREEMENT = 0.9


def judge_of(env: Any) -> Judge | None:
    """The environment's judge, when it has one."""
    judge = getattr(env, "judge", None)
    return judge if isinstance(judge, Judge) else None


def check_judge(v: Context) -> None:
    """Add the judge verdicts to the context `v` (after its controls ran)."""
    judge = judge_of(v.env)
    if judge is None:
        return
    declared = {c.name: c.expect for cs in v.controls.values() for c in cs}
    missing = [n for n, expect in JUDGE_NEGATIVES.items() if declared.get(n) != expect]
    v.verdict(
        "judge_negatives_declared",
        not missing,
        f"missing or mis-declared: {', '.join(missing)}"
        if missing
        else f"{len(JUDGE_NEGATIVES)} judge negatives declared",
    )
    runs = agree = 0
    for task in v.tasks:
        for control in v.controls.get(task.task_id, []):
            result = v.solo.get((task.task_id, control.name))
            if result is None or result.mask_sample:
                continue
            runs += 1
            agree += int(v.passes(result) == (control.expect == "pass"))
    share = agree / runs if runs else 0.0
    v.verdict(
        "judge_agreement",
        runs > 0 and share >= MIN_AGREEMENT,
        f"{share:.0%} of {runs} control runs as declared (judge: {judge.backend.name})",
    )
    problems = []
    asked = 0
    for task in v.tasks:
        question = task_question(v.env, task)
        for control in v.controls.get(task.task_id, []):
            result = v.solo.get((task.task_id, control.name))
            if control.expect != "pass" or result is None or question is None:
                continue
            answer = final_message(result.response)
            try:
                first = judge.score(*question, answer, use_cache=False)
                second = judge.score(*question, answer, use_cache=False)
            except JudgeFailed as exc:
                problems.append(f"{task.task_id}/{control.name}: {exc}")
                continue
            asked += 1
            if first != second:
                problems.append(f"{task.task_id}/{control.name}: {first} then {second}")
    v.verdict(
        "judge_determinism",
        asked > 0 and not problems,
        "; ".join(problems[:3]) or f"{asked} answers judged twice, the same verdict each time",
    )


def task_question(env: Any, task: Any) -> tuple[str, str] | None:
    """(question, reference) the environment judges a task's answers against, if it says."""
    method = getattr(env, "judge_inputs", None)
    return None if method is None else method(task)
