"""math tasks: GSM8K-style word problems with one integer answer, computed and checked."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

from sdg.rows import task_row

NAMES = ["Ava", "Ben", "Chloe", "Dev", "Elif", "Farid", "Greta", "Hiro", "Ines", "Jonas"]
Template = Callable[[random.Random, str], tuple[str, str]]


def _bakery(r: random.Random, who: str) -> tuple[str, str]:
    boxes, per, days, gift = r.randint(3, 20), r.randint(4, 12), r.randint(2, 9), r.randint(1, 30)
    return (
        f"{who}'s bakery sells {boxes} boxes of {per} muffins every day. After {days} days, "
        f"{gift} of the muffins sold were refunded. How many muffins stayed sold?",
        f"{boxes} * {per} * {days} - {gift}",
    )


def _savings(r: random.Random, who: str) -> tuple[str, str]:
    start, weekly, weeks, spend = (
        r.randint(10, 200),
        r.randint(5, 40),
        r.randint(3, 20),
        r.randint(5, 60),
    )
    return (
        f"{who} has ${start}, saves ${weekly} each week for {weeks} weeks, then spends "
        f"${spend} on a gift. How many dollars does {who} have left?",
        f"{start} + {weekly} * {weeks} - {spend}",
    )


def _trip(r: random.Random, who: str) -> tuple[str, str]:
    speed, hours, back = r.randint(30, 90), r.randint(2, 7), r.randint(1, 3)
    return (
        f"{who} drives at {speed} km per hour for {hours} hours, then drives back toward "
        f"home for {back} hours at the same speed. How many km from home is {who}?",
        f"{speed} * ({hours} - {back})",
    )


def _garden(r: random.Random, who: str) -> tuple[str, str]:
    rows, per, dead, extra = r.randint(4, 15), r.randint(5, 20), r.randint(1, 10), r.randint(2, 9)
    return (
        f"{who} plants {rows} rows of {per} tulips. {dead} tulips do not grow, and {who} "
        f"later plants {extra} more rows of {per}. How many tulips grow?",
        f"({rows} + {extra}) * {per} - {dead}",
    )


def _split(r: random.Random, who: str) -> tuple[str, str]:
    friends, each, tip = r.randint(2, 8), r.randint(6, 30), r.randint(2, 20)
    return (
        f"{who} and {friends} friends each pay ${each} for dinner, and together they add "
        f"a ${tip} tip. What is the total paid, in dollars?",
        f"({friends} + 1) * {each} + {tip}",
    )


TEMPLATES: list[Template] = [_bakery, _savings, _trip, _garden, _split]


def generate(n: int, seed: int, split: str = "example") -> list[dict[str, Any]]:
    """`n` tasks, the same for the same seed; the answer never appears in the problem text."""
    rng = random.Random(seed)
    tasks: list[dict[str, Any]] = []
    while len(tasks) < n:
        template = TEMPLATES[len(tasks) % len(TEMPLATES)]
        text, expression = template(rng, rng.choice(NAMES))
        answer = eval(expression, {"__builtins__": {}})  # our own template, never input
        if answer <= 0 or str(answer) in text:
            continue
        tasks.append(
            task_row(
                "math",
                f"math-{seed}-{len(tasks):04d}",
                split,
                text,
                {"answer": answer, "expression": expression},
            )
        )
    return tasks


def identity(row: dict[str, Any]) -> str:
    """The instance a row poses: its expression (a name or a wording changes nothing)."""
    return "".join(str(row["task_data"]["expression"]).split())


def facts(row: dict[str, Any]) -> list[str]:
    """The ground-truth skeleton a rewording must keep: every number, and the person's name."""
    text = row["responses_create_params"]["input"][0]["content"]
    names = [name for name in NAMES if name in text]
    return sorted({n for n in re.findall(r"\d+", text)}) + names
