"""Task data the task model drops: a value the task's words state that nothing can grade.

An environment reads its task through `task_data_model`. A model that ignores unknown keys
(`extra="ignore"`) silently drops a key the rows carry under another name than the model's
(a field renamed in the generator, `budget` now `budget_gbp`), and a lenient default then
switches off the rule that key stood for ("None: no cap"). The check finds such keys: for up
to two sampled tasks, each top-level key of `task_data` the model does not keep whose value
the task's words (prompt, instructions) state. The reference is then replayed on the task
with that value moved far both ways (a hundredth of it and a hundred times it; for text, a
word nobody uses): where it still passes both times, no code reads the value (a raw
`task.task_data[...]` read would have bound on one side), and the words promise a rule the
verifier cannot check.

Not findings: a dropped key the words never state (metadata: a source, a difficulty), and an
environment without a task model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from proofgym.wire.protocol import Task
from proofgym_stack.validation.negatives import task_words

if TYPE_CHECKING:
    from proofgym_stack.validation.context import Context

NAME = "task_data:dropped_by_the_model"
MAX_TASKS = 2
UNUSED_WORD = "zzq-unused"


def kept_keys(model: Any) -> set[str]:
    """The keys a pydantic model reads from its input: field names and their aliases."""
    out: set[str] = set()
    for name, field in model.model_fields.items():
        out.add(name)
        for alias in (field.alias, field.validation_alias):
            if isinstance(alias, str):
                out.add(alias)
    return out


def stated(value: Any, words: str) -> bool:
    """Whether `words` state `value` (a number in any of its usual forms, a text of at least
    three characters, case aside)."""
    if isinstance(value, bool) or value is None:
        return False
    low = words.lower()
    if isinstance(value, (int, float)):
        forms = {f"{value:g}", f"{value:,.2f}", f"{value:.2f}", f"{value:,}"}
        if float(value).is_integer():
            forms |= {str(int(value)), f"{int(value):,}"}
        return any(form in low for form in forms)
    if isinstance(value, str):
        return len(value.strip()) >= 3 and value.strip().lower() in low
    return False


def moved(value: Any) -> list[Any]:
    """`value` moved far both ways: a hundredth and a hundred times a number, another word
    for a text."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        small, big = value / 100, value * 100
        if isinstance(value, int):
            small, big = int(small), int(big)
        return [small, big]
    return [UNUSED_WORD]


async def check_dropped_keys(v: Context) -> None:
    """Fail where a key the task's words state is dropped by the task model and the
    reference passes with its value moved far both ways."""
    model = v.env.task_data_model
    if model is None:
        v.not_applicable(NAME, "no task model: the environment reads task_data itself")
        return
    if model.model_config.get("extra") == "allow":
        v.not_applicable(NAME, "the task model keeps every key (extra='allow')")
        return
    kept = kept_keys(model)
    tried, problems = 0, []
    for task in v.tasks[:MAX_TASKS]:
        reference = v.reference(task.task_id)
        if reference is None:
            continue
        words = task_words(v.env, task)
        for key, value in task.task_data.items():
            if key in kept or not stated(value, words):
                continue
            tried += 1
            unread = True
            for other in moved(value):
                changed = Task(**{**task.model_dump(), "task_data": {**task.task_data, key: other}})
                result = await v.run(changed, reference.script, f"the reference, {key} moved")
                if not v.passes(result):
                    unread = False
                    break
            if unread:
                problems.append(
                    f"{task.task_id}: {key}={value!r} is stated to the policy, dropped by "
                    f"{model.__name__} (it keeps {', '.join(sorted(kept))[:120]}), and the "
                    "reference passes with it moved far both ways"
                )
    if not tried:
        v.not_applicable(NAME, "every key the task's words state is one the task model keeps")
        return
    v.verdict(
        NAME,
        not problems,
        "a value the task states is never read (a key the model drops: renamed?): "
        + "; ".join(problems[:3])
        if problems
        else f"{tried} stated keys the model drops: each read all the same",
    )
