"""Answer extraction and matching: `\\boxed{}`, `Answer:` lines, exact and numeric."""

from __future__ import annotations

import math
import re

from proofgym.wire.protocol import Check
from resources_servers.verifiers.statements import denied_numbers, equated_values, retraction

# An answer statement starts its line ("Answer: 42", "**Final answer:** 42", "So the answer is:
# 42"): "answer:" in the middle of a reasoning line ("to find the answer: multiply") is not one.
# Markdown emphasis around the statement (`**Answer: 42**`) is not part of what it states.
_ANSWER_LINE = re.compile(
    r"(?im)^[\s*_#>-]*(?:(?:so|thus|hence|therefore|the|my|final),?\s+){0,3}answer"
    r"(?:\s+is)?[\s*_]*[:=][\s*_]*(.+?)[\s*_]*$"
)
# A number an answer may state: ASCII digits, plain (12345) or grouped by commas in threes
# (12,345), an optional fraction (.5, 0.5) and exponent (1e5), an optional sign (- or +, or
# U+2212 MINUS SIGN), `$` before and `%` after.
# Inline, only a statement ("my answer: 41"); `answer = ...` mid-line is reasoning (an equation
# about the answer, "so the answer = 12 * 3"), not a statement of it.
_ANSWER_INLINE = re.compile(r"(?i)\banswer(?:\s+is)?\s*:\s*([^\n]+?)\s*$", re.M)
_STRICT_NUMBER = re.compile(
    r"(?P<sign>[-+\u2212])?\$?(?P<int>[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)?"
    r"(?P<frac>\.[0-9]+)?(?P<exp>[eE][-+]?[0-9]+)?%?"
)
_SEPARATORS = re.compile(r"[\s=:;()\[\]{}<>]+")
_DIGIT = re.compile(r"\d")


def _boxed_spans(text: str) -> list[tuple[str, int]]:
    """Contents of every \\boxed{...}, braces balanced, with where each box ends."""
    out = []
    for m in re.finditer(r"\\boxed\s*\{", text):
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        if depth == 0:
            out.append((text[m.end() : i - 1].strip(), i))
    return out


def _stated_value(answer: str) -> str:
    """What an answer states: the value after its last `=` when it shows its working
    (`7 * 12 * 4 - 3 = 333` states 333)."""
    return answer.rsplit("=", 1)[-1].strip() if "=" in answer else answer


def answer_statements(text: str) -> list[tuple[str, int]]:
    """Every explicit final answer statement in `text`, whole, with where it ends: `\\boxed{}`
    contents, lines that start with `Answer:` (or `Final answer:`, `So the answer is:`), and
    `answer: N` inside a line when it states one number."""
    found = [(b, e) for b, e in _boxed_spans(text)]
    found += [(m.group(1), m.end(1)) for m in _ANSWER_LINE.finditer(text)]
    # "answer: N" inside a line is reasoning ("to find the answer: multiply 7 by 12") unless
    # it states one number: then it is an answer too, so a hedge cannot hide mid-line
    starts = {m.start(1) for m in _ANSWER_LINE.finditer(text)}
    for m in _ANSWER_INLINE.finditer(text):
        if m.start(1) not in starts and parse_number(_stated_value(m.group(1))) is not None:
            found.append((m.group(1), m.end(1)))
    return found


def extract_answers(text: str) -> list[str]:
    """Every explicit final answer in `text`, as a person reads it (`answer_statements`),
    each taken after its last `=`. A reply whose answer denies its value ("Answer: not
    333"), sets it equal to another ("340 = 333") or is taken back after it was given
    ("Answer: 333. Wait, that is wrong.") states no answer: [] (`statement_problem` says
    why), so a verifier built on it never pays a denial for the value it denies."""
    if statement_problem(text) is not None:
        return []
    return [_stated_value(a) for a, _ in answer_statements(text)]


def statement_problem(text: str) -> str | None:
    """Why the answer statements of `text` do not state their value, or None: a value
    denied ("not 333"), a side set equal to another value ("340 = 333"), or the answer taken
    back after it was given ("Answer: 333. Wait, that is wrong.")."""
    statements = answer_statements(text)
    for statement, _ in statements:
        denied = denied_numbers(statement)
        if denied:
            return f"the answer denies the value it names: {statement[:80]!r}"
        contradiction = equated_values(statement)
        if contradiction:
            left, right = contradiction[0]
            return f"the answer sets {left} equal to {right}: {statement[:80]!r}"
    if statements:
        last_end = max(end for _, end in statements)
        took_back = retraction(text[last_end:])
        if took_back:
            return f"the answer is taken back after it was given ({took_back!r})"
    return None


def parse_number(text: str) -> float | None:
    """The one number `text` states, or None when it states none, several, or any number in
    an ambiguous form.

    Accepted: `42`, `-3`, `\u22123` (minus sign), `+7`, `1,234,567`, `3.25`, `.5`, `2.5e-3`,
    `$12.50`, `12%`, with words around them (`42 apples`). Refused, so that a wrong number is
    never read as a right one: digits of other scripts, commas not grouping threes (`1,2345`,
    `3,5`), dashes other than the minus sign before a number (`\u20135`, which may be a range),
    and letters or other marks joined to a number (`x=4` aside: `=` separates).
    """
    cleaned = text.strip().replace("\\%", "%")
    found: list[float] = []
    for token in _SEPARATORS.split(cleaned):
        token = token.strip("'\"").rstrip(".,!?")
        if not _DIGIT.search(token):
            continue
        m = _STRICT_NUMBER.fullmatch(token)
        if m is None or not (m.group("int") or m.group("frac")):
            return None  # a number in a form we will not guess at
        raw = token.replace("\u2212", "-").replace(",", "").replace("$", "").rstrip("%")
        try:
            value = float(raw)
        except ValueError:
            return None
        found.append(value)
    if len(found) != 1 or not math.isfinite(found[0]):
        return None
    return found[0]


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
    problem = statement_problem(text)
    if problem is not None:
        return Check(name=name, passed=False, detail=problem)
    answers = extract_answers(text)
    if not answers:
        return Check(name=name, passed=False, detail="no final answer (\\boxed{} or Answer:)")
    values = [parse_number(a) for a in answers]
    if any(v is None for v in values):
        return Check(
            name=name,
            passed=False,
            detail=f"not exactly one number in an unambiguous form: {answers[:3]}",
        )
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
    problem = statement_problem(text)
    if problem is not None:
        return Check(name=name, passed=False, detail=problem)
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
