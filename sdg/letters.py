"""letters tasks: one letter to write, with a minimum length; the same for the same seed."""

from __future__ import annotations

import random
from typing import Any

from sdg.rows import task_row

LETTER = "e"  # one letter for all tasks: the learnability check wants one signal to find


def generate(n: int, seed: int, split: str = "example") -> list[dict[str, Any]]:
    """`n` tasks whose minimum lengths vary with the seed; each is checked to be solvable."""
    rng = random.Random(f"letters:{seed}")
    rows = []
    for i in range(n):
        need = rng.randint(4, 12)
        assert need + 8 <= 200  # self-check: the reference answer fits what is counted
        rows.append(
            task_row(
                "letters",
                f"letters-{seed}-{i:04d}",
                split,
                f"Reply with at least {need} characters, as many of them as possible the "
                f"letter '{LETTER}'.",
                {"letter": LETTER, "min_chars": need},
            )
        )
    return rows
