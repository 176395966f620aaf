"""Every candidate answer in the one slot: `Answer: BCD` where the question takes one letter.

Where the wrong answers a question recognises differ from the right one in one short value
(the same words around it), a policy hedges by writing them all where the one value goes;
a verifier that tests the slot by containment (`truth in stated`) pays it.
"""

from __future__ import annotations

import re

from proofgym_stack.validation.search.values import common_prefix


def in_one_slot(right: str, wrong: list[str]) -> tuple[str, str] | None:
    """Where the wrong answers differ from the right one in one short value only (the same
    words around it: `Answer: B`, `Answer: C`), the answer with every candidate's value in
    its slot, the right one first and the right one last (`Answer: BCD`, `Answer: CDB`:
    run together where each is one character, else listed with commas); else None."""
    texts = [right, *wrong]
    head = common_prefix(texts)
    tail = common_prefix([t[len(head) :][::-1] for t in texts])[::-1]
    values = [t[len(head) : len(t) - len(tail)] for t in texts]
    if any(not x.strip() or len(x) > 24 or "\n" in x for x in values):
        return None
    letters = all(re.fullmatch(r"[A-Za-z ,;/]+", x) for x in values)
    if letters and all(set(x) <= set(values[0]) for x in values[1:]):
        return None  # the wrong ones only part of the right one (AB beside ABD): no hedge
    glue = "" if all(len(x) == 1 for x in values) else ", "
    first, last = [values[0], *values[1:]], [*values[1:], values[0]]
    return head + glue.join(first) + tail, head + glue.join(last) + tail
