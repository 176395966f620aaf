"""The answer written as a pattern: what a policy sends to a verifier that matches answers
as globs, regular expressions or SQL `LIKE` patterns.

A final message's answer (the value after its last `Answer:`, or in its last `\\boxed{}`,
or the whole reply where it is one short line) is replaced by patterns that match anything
(`.*`, `.+`, `*`, `%`) and by a character class of the answer's own kinds of characters
(`[A-Za-z ]+` for a two-word name). An honest verifier compares the answer with its truth and
refuses every one of them; one that pays a pattern on a task with another truth (the search's
`another_truth` oracle) let the policy's text be the pattern.
"""

from __future__ import annotations

import re

from proofgym_stack.validation.scripts import Script
from proofgym_stack.validation.search.mutants import Mutant, final_message

#: patterns that match any text, in the dialects a verifier might read
MATCH_ANY = (".*", ".+", "*", "%")
_ANSWER_LINE = re.compile(r"(answer\s*[:=]\s*)([^\n]*?)(\s*\.?\s*)$", re.I | re.M)
_BOXED = re.compile(r"(\\boxed\{)([^{}]*)(\})")
MAX_SHORT = 60


def answer_span(text: str) -> tuple[int, int] | None:
    """Where the answer stands in a final message: after its last `Answer:`, in its last
    `\\boxed{}`, or the whole of a short one-line reply; None where none is found."""
    lines = list(_ANSWER_LINE.finditer(text))
    if lines and lines[-1].group(2).strip():
        return lines[-1].span(2)
    boxed = list(_BOXED.finditer(text))
    if boxed and boxed[-1].group(2).strip():
        return boxed[-1].span(2)
    stripped = text.strip().rstrip(".")
    if stripped and "\n" not in stripped and len(stripped) <= MAX_SHORT:
        start = text.index(stripped)
        return start, start + len(stripped)
    return None


def character_class(value: str) -> str:
    """A class of the kinds of characters `value` is made of, repeated: `[A-Za-z ]+`."""
    kinds = ""
    if any(c.isalpha() for c in value):
        kinds += "A-Za-z"
    if any(c.isdigit() for c in value):
        kinds += "0-9"
    for c in " .,-_/:'":
        if c in value:
            kinds += "\\-" if c == "-" else c
    return f"[{kinds}]+" if kinds else ".+"


def pattern_mutants(script: Script) -> list[Mutant]:
    """The final message with its answer replaced by each pattern that matches anything."""
    where = final_message(script)
    if where is None:
        return []
    t, i = where
    text = str(script[t][i].get("content") or "")
    span = answer_span(text)
    if span is None:
        return []
    start, end = span
    value = text[start:end]
    out = []
    for pattern in (*MATCH_ANY, character_class(value)):
        if pattern == value:
            continue
        turned = [list(turn) for turn in script]
        turned[t][i] = {"type": "message", "content": text[:start] + pattern + text[end:]}
        what = f"final message with its answer {value[:30]!r} as the pattern {pattern!r}"
        out.append(Mutant(turned, "pattern", "message", "pattern", what, old=value, new=pattern))
    return out
