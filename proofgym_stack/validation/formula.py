"""Another quantity the prompt's numbers give: the right formula over the wrong numbers.

A question gives several measured numbers ("24 stitches and 32 rows to 10 cm; 50 cm wide,
60 cm long") and asks for one quantity (stitches to cast on: 50 x 24 / 10 = 120). A policy
that confuses the quantities works the same formula over the other numbers (rows: 60 x 32 /
10 = 192). `formula_of` finds the simplest formula over two of the prompt's numbers that
gives the right answer (a product or a quotient, scaled by a power of ten; a sum or a
difference), and `other_quantities` works it over other pairs, those sharing no number with
the right pair first: wrong answers a confused policy gives, which the verifier must refuse.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable

#: a number as a prompt writes it (grouped, with a fraction; not part of a word or a date)
_NUMBER = re.compile(r"(?<![\w.:/-])\d[\d,]*(?:\.\d+)?(?![\w:/-])")
#: the most other quantities tried per answer
MAX_OTHERS = 3
#: the most numbers of a prompt searched (a longer list is data, not a question's givens)
MAX_NUMBERS = 8

Formula = tuple[str, Callable[[float, float], float]]
_SCALES = (1.0, 10.0, 100.0, 1000.0)
_SHAPES: list[tuple[str, Callable[[float, float, float], float]]] = [
    ("a*b/k", lambda a, b, k: a * b / k),
    ("a*b*k", lambda a, b, k: a * b * k),
    ("a/b*k", lambda a, b, k: a / b * k if b else float("nan")),
    ("a+b", lambda a, b, k: a + b),
    ("a-b", lambda a, b, k: a - b),
]


def prompt_numbers(prompt: str) -> list[float]:
    """The distinct numbers the prompt states, in order (at most MAX_NUMBERS; none past)."""
    found = [
        x
        for x in dict.fromkeys(float(m.group().replace(",", "")) for m in _NUMBER.finditer(prompt))
        if math.isfinite(x)
    ]
    return found if 3 <= len(found) <= MAX_NUMBERS else []


def _matches(x: float, value: float, whole: bool) -> bool:
    return round(x) == value if whole else abs(x - value) <= 1e-9 * max(1.0, abs(value))


def formula_of(
    value: float, numbers: list[float], whole: bool
) -> tuple[int, int, str, float] | None:
    """(index a, index b, shape, scale) of the first formula over two of `numbers` that gives
    `value` (rounded where the answer is `whole`); None where none does, or the right answer
    is one of the givens."""
    if value in numbers:
        return None
    for shape, f in _SHAPES:
        for k in _SCALES if "k" in shape else (1.0,):
            for a, b in itertools.permutations(range(len(numbers)), 2):
                if numbers[a] in _SCALES[1:] and "k" in shape:
                    continue  # a scale given as a number ("to 10 cm") is the formula's k
                x = f(numbers[a], numbers[b], k)
                if math.isfinite(x) and _matches(x, value, whole):
                    return a, b, shape, k
    return None


def other_quantities(value: float, prompt: str, whole: bool) -> list[float]:
    """The same formula worked over other pairs of the prompt's numbers (those sharing no
    number with the right pair first), each distinct from `value` and from each other."""
    numbers = prompt_numbers(prompt)
    found = formula_of(value, numbers, whole)
    if found is None:
        return []
    a, b, shape, k = found
    f = dict(_SHAPES)[shape]
    pairs = [
        (c, d)
        for c, d in itertools.permutations(range(len(numbers)), 2)
        if {c, d} != {a, b} and not ("k" in shape and {numbers[c], numbers[d]} & set(_SCALES[1:]))
    ]
    pairs.sort(key=lambda cd: len({cd[0], cd[1]} & {a, b}))
    out: list[float] = []
    for c, d in pairs:
        x = f(numbers[c], numbers[d], k)
        if not math.isfinite(x) or x <= 0:
            continue
        x = float(round(x)) if whole else round(x, 6)
        if x != value and x not in out:
            out.append(x)
        if len(out) >= MAX_OTHERS:
            break
    return out


#: a number as an answer writes it (answer_slot's own)
_ANSWER_NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?(?![\w])")


def quantity_texts(right: str, prompt: str, step: float) -> dict[str, str]:
    """The final message `right` with its last number replaced by each other quantity the
    prompt's numbers give (`near_miss#quantity<n>`), each further than `step` (the
    verifier's tolerance) from the right answer."""
    found = list(_ANSWER_NUMBER.finditer(right))
    if not found:
        return {}
    last = found[-1]
    token = last.group()
    whole = "." not in token
    value = float(token.replace(",", ""))
    out = {}
    for n, x in enumerate(other_quantities(value, prompt, whole)):
        if abs(x - value) <= step:
            continue
        shown = str(int(x)) if whole else f"{x:g}"
        out[f"near_miss#quantity{n}"] = right[: last.start()] + shown + right[last.end() :]
    return out
