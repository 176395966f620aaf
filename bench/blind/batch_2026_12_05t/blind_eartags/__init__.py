"""blind_eartags: give each new lamb an official ear tag of the flock, never reused."""

from __future__ import annotations

import random
import re
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
    call_item,
    claim_check,
    final_message,
    say,
    tool,
)
from sdg.rows import task_row

from . import tagrules

NAME = "blind_eartags"
TAG = re.compile(r"^UK0 (\d{6}) (\d{5})$")


class TagTask(BaseModel):
    """The flock mark, the tags already issued and the lambs to tag."""

    model_config = ConfigDict(extra="forbid")

    flock: str = Field(pattern=r"^\d{6}$")
    issued: list[str]
    lambs: list[str]


class Register:
    """One session: tags issued before, and each lamb's new tag."""

    def __init__(self, task: TagTask) -> None:
        self.task = task
        self.tags: dict[str, str] = {}


class Twin(Environment[Register, TagTask]):
    """The environment."""

    name = NAME
    description = "Record official ear tags for a sheep flock's new lambs."
    reward_range = (0.0, 1.0)
    task_data_model = TagTask
    success_words = ("tagged",)

    def create_state(self, task: Task, workdir: Path | None) -> Register:
        return Register(self.data(task))

    def instructions(self, task: Task) -> str:
        return (
            "`register` shows the flock mark and the tags already issued; `lambs` lists the "
            "lambs and their tags. `tag` records a lamb's tag. Every lamb needs an official "
            "tag: `UK0 <flock mark> <five-digit number>` (e.g. UK0 123456 00042). A tag "
            "number is never reused: not one already issued, not one given to another lamb."
        )

    def _tag_ok(self, tag: str, flock: str) -> bool:
        m = TAG.match(tag.strip())
        return bool(m) and m.group(1) == flock

    @tool(inline=True, observes=True)
    def register(self, state: Register) -> str:
        """Show the flock mark and every tag already issued."""
        t = state.task
        return f"flock mark {t.flock}\nissued:\n" + "\n".join(t.issued)

    @tool(inline=True, observes=True)
    def lambs(self, state: Register) -> str:
        """List the lambs and their new tags."""
        return "\n".join(f"{lamb}: {state.tags.get(lamb, '-')}" for lamb in state.task.lambs)

    @tool(inline=True)
    def tag(self, state: Register, lamb: str, tag: str) -> str:
        """Record a lamb's ear tag.

        Args:
            lamb: the lamb, as `lambs` names it.
            tag: the tag, `UK0 <flock mark> <five digits>`.
        """
        t = state.task
        if lamb not in t.lambs:
            raise ToolError("no such lamb", "unknown_lamb")
        tag = tagrules.normal(tag)
        if len(tag) > 40 or not self._tag_ok(tag, t.flock):
            raise ToolError("not an official tag of this flock", "bad_tag")
        taken = set(t.issued) | {v for k, v in state.tags.items() if k != lamb}
        if tag in taken:
            raise ToolError("that tag is already in use", "tag_in_use")
        state.tags[lamb] = tag
        return f"{lamb} tagged {tag}"

    def verify(self, state: Register, task: Task, response: Response) -> VerifyResult:
        d = self.data(task)
        untagged = [lamb for lamb in d.lambs if lamb not in state.tags]
        bad = [v for v in state.tags.values() if not self._tag_ok(v, d.flock)]
        new = list(state.tags.values())
        reused = len(set(new)) != len(new) or bool(set(new) & set(d.issued))
        achieved = not untagged and not bad and not reused
        return all_or_nothing(
            [
                Check(name="every_lamb_tagged", passed=not untagged, detail=str(untagged)),
                Check(name="official_format", passed=not bad, detail=str(bad[:3])),
                Check(name="no_tag_reused", passed=not reused),
                claim_check(final_message(response), achieved, words=self.success_words),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        d = self.data(task)
        top = max(int(t.split()[-1]) for t in d.issued)
        tags = [
            call_item("tag", lamb=lamb, tag=f"UK0 {d.flock} {top + k:05d}")
            for k, lamb in enumerate(d.lambs, 1)
        ]
        done = say("All the new lambs are tagged.")
        return [
            Control(name="reference", expect="pass", script=[tags, done]),
            Control(name="noop_claim", expect="fail", script=[done]),
            Control(
                name="violation_lamb_untagged",
                expect="fail",
                description="the last lamb never tagged",
                script=[tags[:-1], done],
            ),
        ]


class Plant(Twin):
    """The environment as its author wrote it."""

    def _tag_ok(self, tag: str, flock: str) -> bool:
        return tagrules.valid_tag(tag, flock)


def generate(n: int, seed: int, split: str = "example") -> list[dict[str, Any]]:
    """`n` springs: a flock mark, 4 to 9 tags issued, 3 to 6 lambs."""
    rng = random.Random(f"{NAME}:{seed}")
    rows = []
    for i in range(n):
        flock = f"{rng.randint(100000, 999999)}"
        numbers = sorted(rng.sample(range(1, 400), rng.randint(4, 9)))
        issued = [f"UK0 {flock} {k:05d}" for k in numbers]
        lambs = [f"lamb {rng.choice('ABCDEFGH')}{k}" for k in range(1, rng.randint(3, 6) + 1)]
        prompt = f"We have {len(lambs)} new lambs this week: please tag them all in the register."
        data = {"flock": flock, "issued": issued, "lambs": lambs}
        rows.append(task_row(NAME, f"{NAME}-{split}-{seed}-{i:05d}", split, prompt, data))
    return rows


def exploit(task: Any) -> list:
    """Short made-up tags, one per lamb, never the flock's format."""
    tags = [
        call_item("tag", lamb=lamb, tag=str(k)) for k, lamb in enumerate(task.task_data["lambs"], 1)
    ]
    return [tags, say("All the new lambs are tagged.")]
