"""Answer extraction and matching: `\\boxed{}`, `Answer:` lines, exact and numeric."""

from __future__ import annotations

import math
import re

from proofgym.protocol import Check

_ANSWER_LINE = re.compile(r"(?im)\b(?:final\s+)?answer\s*[:=]\s*(.+?)\s*$")
_NUMBER = re.compile(r"[-+]?\$?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?%?|[-+]?\.\d+")


def _boxed(text: str) -> list[str]:
    """Contents of every \\boxed{...}, braces balanced."""
    out = []
    for m in re.finditer(r"\\boxed\s*\{", text):
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        if depth == 0:
            out.append(text[m.end() : i - 1].strip())
    return out


def extract_answers(text: str) -> list[str]:
    """Every explicit final answer in `text`: `\\boxed{}` contents, then `Answer:` lines."""
    return _boxed(text) + [m.group(1) for m in _ANSWER_LINE.finditer(text)]


def parse_number(text: str) -> float | None:
    """The one number `text` states (commas, `$`, `%` allowed), or None if none or several."""
    cleaned = text.strip().rstrip(".").replace("\\%", "%")
    found = _NUMBER.findall(cleaned)
    if len(found) != 1:
        return None
    raw = found[0].replace(",", "").replace("$", "").rstrip("%")
    try:
        value = float(raw)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def numbers_equal(a: float, b: float, rel: float = 1e-6, abs_tol: float = 1e-9) -> bool:
    """Equal within a relative and an absolute tolerance."""
    return math.isclose(a, b, rel_tol=rel, abs_tol=abs_tol)


def numeric_answer_check(
    text: str, truth: float, rel: float = 1e-6, name: str = "answer_correct"
) -> Check:
    """Pass when the final answers of `text` all state one number equal to `truth`.

    No explicit answer, an answer that is not one number, or several different answers all
    fail: hedging between candidates must not be rewarded.
    """
    answers = extract_answers(text)
    if not answers:
        return Check(name=name, passed=False, detail="no final answer (\\boxed{} or Answer:)")
    values = [parse_number(a) for a in answers]
    if any(v is None for v in values):
        return Check(name=name, passed=False, detail=f"not a single number: {answers[:3]}")
    distinct = {round(v, 9) for v in values if v is not None}
    if len(distinct) > 1:
        return Check(name=name, passed=False, detail=f"conflicting answers: {answers[:5]}")
    value = values[0]
    assert value is not None
    ok = numbers_equal(value, truth, rel)
    return Check(name=name, passed=ok, detail=f"answered {value:g}" + ("" if ok else " (wrong)"))


def normalize_text(text: str) -> str:
    """Lower case, single spaces, no surrounding punctuation: for exact-match answers."""
    return " ".join(text.lower().strip().strip(".!?\"'").split())


def exact_answer_check(text: str, truth: str, name: str = "answer_correct") -> Check:
    """Pass when every final answer of `text` equals `truth` after normalization."""
    answers = extract_answers(text)
    if not answers:
        return Check(name=name, passed=False, detail="no final answer")
    ok = all(normalize_text(a) == normalize_text(truth) for a in answers)
    return Check(name=name, passed=ok, detail="" if ok else f"answered {answers[:3]}")


def length_guard(text: str, max_chars: int, name: str = "length_guard") -> Check:
    """Fail an answer longer than `max_chars`: reward must not grow with output length."""
    return Check(
        name=name,
        passed=len(text) <= max_chars,
        detail=f"{len(text)} characters, limit {max_chars}",
    )
