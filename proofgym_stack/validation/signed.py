"""Whether a task's quantities can be negative: where none can, a sign the verifier ignores
gains a policy nothing while the magnitude is still graded (`answer_slot`'s near miss with
its sign flipped is then advisory, unless a far-off negative pays too)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from proofgym_stack.validation.answers import final_text
from proofgym_stack.validation.negatives import task_words

if TYPE_CHECKING:
    from proofgym_stack.validation.context import Context

#: a negative number as the words write one: a minus after a space, a bracket or a label
_NEGATIVE = re.compile(r"(?:^|[\s(=:])[-\u2212]\d", re.M)
_SIGNED_WORDS = re.compile(
    r"\b(?:negative|minus|below zero|change[ds]?|difference|net|profit|loss|gain|deficit|"
    r"surplus|balance|temperature|celsius|fahrenheit)\b|\u00b0[CF]",
    re.I,
)


def signed_world(v: Context) -> bool:
    """Whether the sampled tasks' quantities can be negative: a negative number in any task's
    words or reference answer, or a word of a signed quantity ("negative", "minus", "below
    zero", a change, a difference, a net figure, a profit or loss, a balance, a temperature)."""
    for task in v.tasks:
        control = v.reference(task.task_id)
        text = (
            task_words(v.env, task) + "\n" + ((final_text(control.script) or "") if control else "")
        )
        if _NEGATIVE.search(text) or _SIGNED_WORDS.search(text):
            return True
    return False
