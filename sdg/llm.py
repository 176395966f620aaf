"""LLM-drafted task statements over a ground truth computed by code: what a draft must keep.

A generator exposes its ground-truth skeleton with `facts(row) -> list[str]`: the strings
(numbers, names, constraints) any statement of the instance must state verbatim. A model may
reword the statement; it never touches `task_data`, so the answer is still the one the code
computed. A draft is dropped, with its reason, when it no longer states that instance:

- `missing_fact`: a fact of the skeleton is gone or changed, or a figure is stated fewer
  times than in the original;
- `new_number`: it states a number the original does not (a changed quantity, or the answer);
- `empty`, `too_long`, `unchanged`: no statement, a rambling one, or no rewording at all;
- `near_duplicate`: another kept draft of the same facts says nearly the same (the sets of
  their words overlap by a Jaccard index of 0.85 or more).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from types import ModuleType
from typing import Any

INSTRUCTIONS = (
    "Rewrite the task statement below in different words, as a different person might write "
    "it. Keep every number, name and unit exactly as written, keep what is asked, add no "
    "number and no hint, and do not solve it. Reply with the new statement only."
)
DROP_REASONS = ("missing_fact", "new_number", "empty", "too_long", "unchanged", "near_duplicate")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?![\w])")
_WORD = re.compile(r"[a-z0-9]+")


def skeleton(module: ModuleType) -> Callable[[dict[str, Any]], list[str]] | None:
    """The generator's `facts`, or None when it exposes no ground-truth skeleton."""
    facts = getattr(module, "facts", None)
    return facts if callable(facts) else None


def statement(row: dict[str, Any]) -> str:
    """The task statement: the text of the row's first input message."""
    first = row["responses_create_params"]["input"][0]
    content = first["content"]
    return content if isinstance(content, str) else "".join(p.get("text", "") for p in content)


def with_statement(row: dict[str, Any], text: str) -> dict[str, Any]:
    """The row with its statement replaced (its task_data, hence its answer, untouched)."""
    params = dict(row["responses_create_params"])
    params["input"] = [{**params["input"][0], "content": text}, *params["input"][1:]]
    return {**row, "responses_create_params": params}


def numbers(text: str) -> Counter[str]:
    """The numbers a text states, with how often (1,200 and 1200 are the same number)."""
    return Counter(n.replace(",", "") for n in _NUMBER.findall(text))


def drop_reason(original: str, draft: str, facts: list[str]) -> str | None:
    """Why `draft` cannot replace `original`, or None when it can."""
    text = draft.strip()
    if not text:
        return "empty"
    if len(text) > 3 * len(original) + 200:
        return "too_long"
    if " ".join(text.split()) == " ".join(original.split()):
        return "unchanged"
    stated, asked = numbers(text), numbers(original)
    # every figure as often as the original states it: a quantity changed into another one
    # the text also holds ("3 boxes ... 4 days" -> "4 boxes ... 4 days") is caught too
    if any(fact not in text for fact in facts) or asked - stated:
        return "missing_fact"
    if set(stated) - set(asked):
        return "new_number"
    return None


def words(text: str) -> set[str]:
    """The distinct words of a lower-cased text."""
    return set(_WORD.findall(text.lower()))


def near_duplicates(texts: list[tuple[str, list[str]]], threshold: float = 0.85) -> set[int]:
    """Indexes of texts that nearly repeat an earlier one with the same facts (compared only
    within the same facts, so the work stays near linear)."""
    kept: dict[tuple[str, ...], list[set[str]]] = {}
    dropped = set()
    for index, (text, facts) in enumerate(texts):
        mine = words(text) or {""}
        bucket = kept.setdefault(tuple(sorted(facts)), [])
        if any(len(mine & other) / len(mine | other) >= threshold for other in bucket):
            dropped.add(index)
        else:
            bucket.append(mine)
    return dropped
