"""code tasks: small functions with visible and hidden tests, each checked by running both
reference implementations on every case."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sdg.rows import task_row


@dataclass(frozen=True)
class Family:
    """One kind of function: its description, two implementations, an input generator."""

    function: str
    signature: str
    description: str
    solution: str
    alternative: str
    inputs: Callable[[random.Random], list[Any]]


def _words(rng: random.Random) -> str:
    pool = ["alpha", "beta", "gamma", "delta", "echo", "fox", "golf", "hotel", "ice", "jade"]
    return " ".join(rng.choice(pool) for _ in range(rng.randint(0, 6)))


FAMILIES = [
    Family(
        "sum_multiples",
        "def sum_multiples(n: int, k: int) -> int",
        "Return the sum of every non-negative multiple of k that is smaller than n "
        "(0 when n <= 0). k is at least 1.",
        "def sum_multiples(n, k):\n    return sum(range(0, max(n, 0), k))\n",
        "def sum_multiples(n, k):\n    if n <= 0:\n        return 0\n    m = (n - 1) // k\n"
        "    return k * m * (m + 1) // 2\n",
        lambda r: [r.randint(-5, 500), r.randint(1, 12)],
    ),
    Family(
        "count_vowels",
        "def count_vowels(text: str) -> int",
        "Return how many characters of text are vowels (a, e, i, o, u, either case).",
        "def count_vowels(text):\n    return sum(c in 'aeiouAEIOU' for c in text)\n",
        "import re\n\ndef count_vowels(text):\n    return len(re.findall('[aeiou]', text, re.I))\n",
        lambda r: [_words(r).upper() if r.random() < 0.3 else _words(r)],
    ),
    Family(
        "reverse_words",
        "def reverse_words(text: str) -> str",
        "Return the words of text (split on whitespace) in reverse order, joined by single spaces.",
        "def reverse_words(text):\n    return ' '.join(reversed(text.split()))\n",
        "def reverse_words(text):\n    words = text.split()\n    out = []\n"
        "    while words:\n        out.append(words.pop())\n    return ' '.join(out)\n",
        lambda r: [("  " if r.random() < 0.3 else "") + _words(r)],
    ),
    Family(
        "second_largest",
        "def second_largest(values: list[int]) -> int | None",
        "Return the second largest distinct value of the list, or None if there is none.",
        "def second_largest(values):\n    distinct = sorted(set(values))\n"
        "    return distinct[-2] if len(distinct) >= 2 else None\n",
        "def second_largest(values):\n    best = second = None\n    for v in values:\n"
        "        if best is None or v > best:\n            best, second = v, best\n"
        "        elif v != best and (second is None or v > second):\n            second = v\n"
        "    return second\n",
        lambda r: [[r.randint(-20, 20) for _ in range(r.randint(0, 8))]],
    ),
    Family(
        "run_length",
        "def run_length(text: str) -> str",
        "Encode text by runs: each maximal run of one character becomes the character "
        "followed by the run length, e.g. 'aaab' -> 'a3b1'.",
        "from itertools import groupby\n\ndef run_length(text):\n"
        "    return ''.join(f'{c}{len(list(g))}' for c, g in groupby(text))\n",
        "def run_length(text):\n    out, i = [], 0\n    while i < len(text):\n        j = i\n"
        "        while j < len(text) and text[j] == text[i]:\n            j += 1\n"
        "        out.append(text[i] + str(j - i))\n        i = j\n    return ''.join(out)\n",
        lambda r: ["".join(r.choice("aab") * r.randint(1, 3) for _ in range(r.randint(0, 5)))],
    ),
    Family(
        "is_palindrome",
        "def is_palindrome(text: str) -> bool",
        "Return whether text reads the same backwards, ignoring case and every character "
        "that is not a letter or digit.",
        "def is_palindrome(text):\n    s = [c.lower() for c in text if c.isalnum()]\n"
        "    return s == s[::-1]\n",
        "def is_palindrome(text):\n    s = ''.join(filter(str.isalnum, text)).lower()\n"
        "    i, j = 0, len(s) - 1\n    while i < j:\n        if s[i] != s[j]:\n"
        "            return False\n        i, j = i + 1, j - 1\n    return True\n",
        lambda r: [
            r.choice(
                [
                    "Never odd or even",
                    "abc",
                    "A man, a plan",
                    "racecar!",
                    "",
                    "No lemon, no melon",
                    "xyzzy",
                    f"{r.randint(0, 99999)}",
                ]
            )
        ],
    ),
]


def _run(source: str, function: str, args: list[Any]) -> Any:
    namespace: dict[str, Any] = {}
    exec(source, namespace)  # our own reference code, never a policy's
    return namespace[function](*args)


def _cases(family: Family, rng: random.Random, n: int) -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = []
    seen: set[str] = set()
    while len(cases) < n:
        args = family.inputs(rng)
        key = repr(args)
        if key in seen and len(seen) < 40:
            continue
        seen.add(key)
        expected = _run(family.solution, family.function, args)
        assert _run(family.alternative, family.function, args) == expected, (family, args)
        cases.append({"args": args, "expected": expected})
    return cases


def generate(n: int, seed: int, split: str = "example") -> list[dict[str, Any]]:
    """`n` tasks, the same for the same seed; both implementations agree on every case."""
    rng = random.Random(seed)
    tasks = []
    for index in range(n):
        family = FAMILIES[(seed + index) % len(FAMILIES)]
        visible = _cases(family, rng, 3)
        examples = "\n".join(
            f"{family.function}(*{c['args']!r}) == {c['expected']!r}" for c in visible
        )
        prompt = f"{family.signature}\n{family.description}\n{examples}"
        # Self-check: no hidden argument may be readable in what the policy sees.
        hidden = [
            c
            for c in _cases(family, rng, 16)
            if not any(isinstance(a, str) and a.strip() and a in prompt for a in c["args"])
        ][:8]
        tasks.append(
            task_row(
                "code",
                f"code-{seed}-{index:04d}",
                split,
                f"Implement `{family.signature}` in solution.py.\n"
                f"{family.description}\nExamples:\n{examples}",
                {
                    "function": family.function,
                    "visible_tests": visible,
                    "hidden_tests": hidden,
                    "solution": family.solution,
                    "alternative": family.alternative,
                    "stub": f"{family.signature}:\n    raise NotImplementedError\n",
                },
            )
        )
    return tasks
