"""An order the task's words give a few words ("Size classes: compact < mid < large"), and an
option below the one the task needs ("a car needs a spot of its class or larger").

Where the words rank some words with `<` (or `>`), at least three of them, and ask for at
least a rank ("or larger", "or higher", "or better", "at least"), and the prompt names one
of the ranked words (the car is "large-size"), another option chosen in honest play's place
whose record holds a ranked word below that one, where honest play's record holds one at or
above it, breaks the stated rule (a compact spot for a large car: the size test applied only
to reserved spots).
"""

from __future__ import annotations

import re
from typing import Any

from proofgym_stack.validation.search.options import record_of

_WORD = r"[a-z][\w-]*"
_RANKED = re.compile(rf"\b{_WORD}(?:\s*<\s*{_WORD}){{2,}}|\b{_WORD}(?:\s*>\s*{_WORD}){{2,}}", re.I)
_AT_LEAST = re.compile(
    r"\bor (?:larger|bigger|higher|above|better|more|greater|longer|wider|heavier)\b"
    r"|\bat least\b",
    re.I,
)


def ranks(words: str) -> dict[str, int]:
    """The words' ranked words, lower-cased, each with its rank (0 the lowest), from the
    first `a < b < c` (or `c > b > a`) the words hold; {} where none."""
    hit = _RANKED.search(words)
    if hit is None:
        return {}
    text = hit.group(0)
    parts = [p.strip().lower() for p in re.split(r"[<>]", text)]
    if ">" in text:
        parts.reverse()
    return {p: k for k, p in enumerate(parts)} if len(set(parts)) == len(parts) else {}


def _ranked_in(text: str, order: dict[str, int]) -> set[str]:
    return {w for w in order if re.search(rf"(?<![\w-]){re.escape(w)}(?![\w])", text, re.I)}


def below_the_need(old: Any, new: Any, outputs: list[str], words: str, prompt: str) -> str | None:
    """Why `new` (another option) breaks a rank the words ask for at least, which honest
    `old` keeps: its record's ranked word is below the one the prompt names; or None."""
    order = ranks(words)
    if not order or not _AT_LEAST.search(words):
        return None
    need = _ranked_in(prompt, order)
    if len(need) != 1:
        return None
    want = order[need.pop()]
    old_record, new_record = record_of(old, outputs), record_of(new, outputs)
    if not old_record or not new_record or old_record == new_record:
        return None
    mine, theirs = _ranked_in(old_record, order), _ranked_in(new_record, order)
    if len(mine) != 1 or len(theirs) != 1:
        return None
    a, b = mine.pop(), theirs.pop()
    if not order[a] >= want > order[b]:
        return None
    needed = next(w for w, k in order.items() if k == want)
    return f"{new} is {b}, below the {needed} the task needs ({old}: {a})"
