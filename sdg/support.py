"""support tasks: one customer question of the knowledge base each, greeted by name."""

from __future__ import annotations

import random
from typing import Any

from resources_servers.support.kb import QUESTIONS
from sdg.rows import task_row

CUSTOMERS = ["Ana", "Bilal", "Chen", "Dora", "Emeka", "Fatima", "Goran", "Hana"]


def generate(n: int, seed: int, split: str = "example") -> list[dict[str, Any]]:
    """`n` tasks, the same for the same seed; questions cycle in a seeded order."""
    rng = random.Random(f"support:{seed}")
    order = list(QUESTIONS)
    rng.shuffle(order)
    rows = []
    for i in range(n):
        question = order[i % len(order)]
        customer = rng.choice(CUSTOMERS)
        rows.append(
            task_row(
                "support",
                f"support-{seed}-{i:04d}",
                split,
                f"Message from {customer}: {question.text}",
                {"question_id": question.question_id, "customer": customer},
            )
        )
    return rows


def identity(row: dict[str, Any]) -> str:
    """The instance a row poses: its question (the greeting changes nothing)."""
    return str(row["task_data"]["question_id"])
