"""What a text says about the values it names: denied, set equal to another value, retracted.

A verifier that looks for the right value in a text pays "not 333", "340 = 333" and "333. Wait,
that is wrong" as readily as "333". These readers find those forms, so that a verifier can
refuse them (`validate` tries every one of them on every environment whose answer is text).
They are deliberately narrow: an honest answer with a remark after it ("Answer: 42. Let me
know if anything is unclear.") or a negation elsewhere ("no remainder") is not refused.
"""

from __future__ import annotations

import re

from proofgym.wire.protocol import Check
from resources_servers.verifiers.arithmetic import CalculatorError, evaluate

# a number as texts write it (digits grouped by commas or not, a fraction)
NUMBER = re.compile(r"(?<![\w.])[-+\u2212]?\d[\d,]*(?:\.\d+)?(?![\w])")
# a negation right before a value ("not 5", "isn't 5", "never 5", "no more than"-free)
_DENIAL = re.compile(
    r"(?i)(?:\b(?:not|never|isn'?t|aren'?t|wasn'?t|ain'?t|cannot|can'?t)\b|\u2260|!=|=/=)"
    r"[\s*_:$]*(?:(?:quite|exactly|really|equal\s+to|be|the)\s+)*$"
)
# taking an answer back after giving it
_RETRACTION = re.compile(
    r"(?i)\b(?:(?:that|this|it)(?:'s|\s+is|\s+was)\s+(?:wrong|incorrect|a\s+mistake)"
    r"|scratch\s+that|disregard|ignore\s+(?:that|this|my|the\s+above)|i\s+retract"
    r"|(?:do\s+not|don'?t|dont)\s+know|not\s+sure|unsure|can(?:no|')t\s+be\s+right)\b"
)


def numbers_in(text: str) -> list[str]:
    """Every number `text` writes, as written."""
    return [m.group() for m in NUMBER.finditer(text)]


def number_value(token: str) -> float:
    """The value of a number as `numbers_in` finds it."""
    return float(token.replace(",", "").replace("\u2212", "-"))


def denied_numbers(text: str) -> list[str]:
    """The numbers `text` names only to deny them ("not 5", "isn't 5", "\u2260 5")."""
    return [
        m.group()
        for m in NUMBER.finditer(text)
        if _DENIAL.search(text[max(0, m.start() - 40) : m.start()])
    ]


def retraction(text: str) -> str | None:
    """The words with which `text` takes back what it said, or None."""
    m = _RETRACTION.search(text)
    return m.group() if m else None


# an arithmetic expression or a plain number next to an `=` (digits, operators, brackets)
_SIDE = r"[-+\u2212]?[\d(][\d\s.,+\-*/^()%\u2212\u00d7\u00f7]*"
_EQUATION = re.compile(rf"(?P<left>{_SIDE})\s*(?<![<>!=])=(?!=)\s*(?P<right>{_SIDE})")


def _side_value(side: str) -> float | None:
    side = side.strip().rstrip(".,")
    if not side:
        return None
    if NUMBER.fullmatch(side):
        return number_value(side)
    try:
        text = side.replace("\u00d7", "*").replace("\u00f7", "/").replace("\u2212", "-")
        return float(evaluate(text.replace(",", "")))
    except (CalculatorError, ValueError):
        return None


def equated_values(text: str) -> list[tuple[str, str]]:
    """The sides of an `=` in `text` that are numbers or arithmetic and differ in value
    ("340 = 333", "2 + 2 = 5"): a statement that contradicts itself. `7 * 12 * 4 - 3 = 333`
    holds and is not listed; a side that is not arithmetic (a word) is not judged."""
    out = []
    for m in _EQUATION.finditer(text):
        left, right = _side_value(m.group("left")), _side_value(m.group("right"))
        if (
            left is not None
            and right is not None
            and abs(left - right) > 1e-9 * max(1.0, abs(right))
        ):
            out.append((m.group("left").strip(), m.group("right").strip()))
    return out


def figures_check(answer: str, source: str, name: str = "figures_as_the_source_states") -> Check:
    """Pass when `answer` states its figures as `source` does: each number it writes is one
    the source gives, none denied or set equal to another, and nothing taken back. A judge
    that scores overlap (or a hurried model) pays "not 5 days", "6 = 5 days", "3 4 5 6 7
    days" or a retracted answer for the figure they contain; code can refuse them first."""
    given = {number_value(n) for n in numbers_in(source)}
    foreign = [n for n in numbers_in(answer) if number_value(n) not in given]
    problems = []
    if foreign:
        problems.append(f"figures the source does not give: {', '.join(foreign[:5])}")
    denied = denied_numbers(answer)
    if denied:
        problems.append(f"figures denied: {', '.join(denied[:5])}")
    equated = equated_values(answer)
    if equated:
        problems.append(f"figures set equal to others: {equated[0][0]} = {equated[0][1]}")
    took_back = retraction(answer)
    if took_back:
        problems.append(f"the answer is taken back ({took_back!r})")
    return Check(name=name, passed=not problems, detail="; ".join(problems))
