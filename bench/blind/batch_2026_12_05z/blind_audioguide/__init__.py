"""blind_audioguide: issue a group's audio guides and charge those beyond the free two."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from resources_servers.sdk import (
    Check,
    Control,
    Environment,
    Response,
    Task,
    ToolError,
    VerifyResult,
    all_or_nothing,
    call,
    claim_check,
    final_message,
    say,
    tool,
)
from sdg.rows import task_row

NAME = "blind_audioguide"
FREE_GUIDES = 2
PRICE = 3
LANGUAGES = ("English", "French", "German", "Spanish", "Italian", "Japanese", "Mandarin")


class GuideTask(BaseModel):
    """The group's ticket and the language of each guide it needs."""

    model_config = ConfigDict(extra="forbid")

    ticket: str = Field(pattern=r"^G-\d{5}$")
    languages: list[str] = Field(min_length=1, max_length=10)


class Desk:
    """One session: each issue transaction's guides, and the extra guides charged."""

    def __init__(self) -> None:
        self.transactions: list[list[str]] = []
        self.charged = 0


class Twin(Environment[Desk, GuideTask]):
    """Issue the guides asked for; charge every guide beyond the ticket's free two."""

    name = NAME
    description = "A museum audio-guide desk: a group's guides, extras charged to the ticket."
    reward_range = (0.0, 1.0)
    task_data_model = GuideTask
    success_words = ("issued",)

    def create_state(self, task: Task, workdir: Path | None) -> Desk:
        return Desk()

    def instructions(self, task: Task) -> str:
        return (
            f"You staff the audio-guide desk. A group ticket includes {FREE_GUIDES} free audio "
            f"guides; every guide beyond those costs £{PRICE}: charge it with `charge`. "
            f"Languages: {', '.join(LANGUAGES)}."
        )

    @tool(inline=True, observes=True)
    def desk(self, state: Desk) -> str:
        """Show the desk's issue transactions and the extra guides charged."""
        issued = " | ".join(", ".join(t) for t in state.transactions) or "(none)"
        return f"issued: {issued}; extra guides charged: {state.charged}"

    @tool(inline=True)
    def issue_guides(self, state: Desk, languages: list[str]) -> str:
        """Issue audio guides to the group, one per language listed.

        Args:
            languages: the language of each guide (repeat a language for several guides).
        """
        if not 1 <= len(languages) <= 10:
            raise ToolError("issue 1 to 10 guides at a time", "out_of_range")
        wanted = [lang.strip().title() for lang in languages]
        unknown = [lang for lang in wanted if lang not in LANGUAGES]
        if unknown:
            raise ToolError(f"no guides in {unknown[0]!r}", "not_found")
        state.transactions.append(wanted)
        return f"issued {len(wanted)} guide(s): {', '.join(wanted)}"

    @tool(inline=True)
    def charge(self, state: Desk, guides: int) -> str:
        """Charge extra guides to the group's ticket at £3 each.

        Args:
            guides: how many extra guides to charge, 1 to 10.
        """
        if not 1 <= guides <= 10:
            raise ToolError("charge 1 to 10 guides", "out_of_range")
        state.charged += guides
        return f"charged {guides} extra guide(s): £{guides * PRICE}"

    def _guides_issued(self, state: Desk) -> int:
        return sum(len(t) for t in state.transactions)

    def verify(self, state: Desk, task: Task, response: Response) -> VerifyResult:
        asked = Counter(self.data(task).languages)
        given = Counter(lang for t in state.transactions for lang in t)
        right = given == asked
        due = max(0, self._guides_issued(state) - FREE_GUIDES)
        charged = state.charged == due
        return all_or_nothing(
            [
                Check(name="guides_as_asked", passed=right, detail=f"issued {dict(given)}"),
                Check(
                    name="extras_charged",
                    passed=charged,
                    detail=f"charged {state.charged}, due {due}",
                ),
                claim_check(final_message(response), right and charged, words=self.success_words),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        languages = self.data(task).languages
        extra = len(languages) - FREE_GUIDES
        issue = [call("issue_guides", languages=[lang]) for lang in languages]
        charge = [call("charge", guides=extra)] if extra > 0 else []
        wrong = [
            lang if k else next(x for x in LANGUAGES if x != lang)
            for k, lang in enumerate(languages)
        ]
        done = say(f"Issued {len(languages)} guides.")
        return [
            Control(name="reference", expect="pass", script=[*issue, *charge, done]),
            Control(
                name="violation_wrong_language",
                expect="fail",
                description="the first guide is in another language",
                script=[*[call("issue_guides", languages=[x]) for x in wrong], *charge, done],
            ),
            Control(name="noop_claim", expect="fail", script=[done]),
        ]


class Plant(Twin):
    """Counts issue transactions, not guides."""

    def _guides_issued(self, state: Desk) -> int:
        return len(state.transactions)


def generate(n: int, seed: int, split: str = "example") -> list[dict[str, Any]]:
    """`n` tasks: groups of 3 to 6, some languages repeated."""
    rng = random.Random(f"{NAME}:{seed}")
    rows = []
    for i in range(n):
        size = rng.randint(3, 6)
        pool = rng.sample(LANGUAGES, 3)
        languages = sorted((rng.choice(pool) for _ in range(size)), key=pool.index)
        ticket = f"G-{rng.randint(10000, 99999)}"
        counts = Counter(languages)
        said = ", ".join(f"{k} x{v}" for k, v in counts.items())
        prompt = (
            f"A group on ticket {ticket} needs {size} audio guides: {said}. Issue them, and "
            "charge the ticket for any guides beyond what it includes."
        )
        data = {"ticket": ticket, "languages": languages}
        rows.append(task_row(NAME, f"{NAME}-{split}-{seed}-{i:05d}", split, prompt, data))
    return rows


def exploit(task: Task) -> list:
    """The whole group's guides in one transaction, nothing charged."""
    languages = task.task_data["languages"]
    return [call("issue_guides", languages=languages), say(f"Issued {len(languages)} guides.")]
