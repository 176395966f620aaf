"""Calibrations and rules read off blind batch 05n: a cap the words put on one day's count, a
share the words rule out ("every section must be recorded"), a corner of an accepted region
(no near miss), a refused call left aside when a replay chose among listed options, another
tool after the work that undoes nothing, a count that names no record, and one-a-line
listings that are options, not a leaked answer. Each rule is tested on the smallest input it
reads; the two rules that change a verdict are tested on a plant that must be caught and a
sound twin that must not be accused."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any

from openai.types.responses import Response
from test_validate_policy_moves import pays, tasks
from test_validate_unseen import call, failed, say, validate

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym.wire.responses import final_message
from proofgym_stack.validation.leaks import _listed
from proofgym_stack.validation.scripts import offered_choices
from proofgym_stack.validation.search.caps import cap_crossed
from proofgym_stack.validation.search.options import names_its_record
from proofgym_stack.validation.search.world import undone
from proofgym_stack.validation.shares import every_one_required
from resources_servers.base import Environment, ToolError, tool
from resources_servers.verifiers.compose import all_or_nothing

# -- the rules on their own ------------------------------------------------------------------


def test_a_cap_on_one_day_counts_the_moments_of_that_day() -> None:
    honest = [
        call("book", slot="2026-03-02 09:00"),
        call("book", slot="2026-03-02 14:00"),
        call("book", slot="2026-03-03 09:00"),
    ]
    third = [*honest[:2], call("book", slot="2026-03-02 16:00")]
    words = "Book three lessons, at most 2 lessons a day."
    assert "2026-03-02" in (cap_crossed(honest, third, "book", words) or "")
    assert cap_crossed(honest, third, "book", "Book three lessons.") is None  # no cap stated
    # the third call refused by the tool did nothing: no count crossed
    assert cap_crossed(honest, third, "book", words, frozenset({(2, 0)})) is None
    # a cap per guest does not count days, and another option swapped in is judged only by
    # a cap that names what it counts per
    per_guest = "Book three lessons, at most 2 bookings per guest."
    assert cap_crossed(honest, third, "book", per_guest) is None
    ann = [call("buy", guest="Ann", show="X"), call("buy", guest="Ann", show="Y")]
    swapped = [call("buy", guest="Ann", show="X"), call("buy", guest="Ann", show="X")]
    extra = [*ann, call("buy", guest="Ann", show="Z")]
    words = "Buy tickets, no more than 2 tickets per guest."
    assert cap_crossed(ann, swapped, "buy", words, named_only=True) is None
    assert "guest" in (cap_crossed(ann, extra, "buy", words, named_only=True) or "")


def test_every_one_required_reads_a_rule_on_the_argument_s_things() -> None:
    keys = {"section", "species"}
    rule = every_one_required("Record counts. Every section must be on the sheet.", keys)
    assert rule == "Every section must be on the sheet"
    # a how-to without a rule, a noun the call does not name, or a share the words grant
    assert every_one_required("Survey each section with survey(section).", keys) is None
    assert every_one_required("Every row must be entered.", keys) is None
    assert every_one_required("Every section must be on it; 90% right passes.", keys) is None
    # a rule on each thing's form or order is no rule that each be there
    assert every_one_required("Each species must be a whole number from 0 to 20.", keys) is None
    assert every_one_required("Each section must be recorded after the survey.", keys) is None


def test_undone_is_what_honest_play_did_taken_back() -> None:
    initial = {".stock.A": "1", ".fitted.#": "0"}
    honest = {".stock.A": "0", ".fitted.#": "1", ".fitted[0]": "'A'"}
    more_stock = {".stock.A": "2", ".fitted.#": "1", ".fitted[0]": "'A'"}
    taken_back = {".stock.A": "1", ".fitted.#": "0"}
    assert undone(more_stock, honest, initial) == set()  # moved on past honest play's value
    assert undone(taken_back, honest, initial) == {".stock.A", ".fitted[]"}
    # one of two like members honest play left taken back, though one was there before
    cart = {".cart[0]": "'apple'"}
    two = {".cart[0]": "'apple'", ".cart[1]": "'apple'"}
    assert undone(cart, two, cart) == {".cart[]"}


def test_a_number_names_its_record_only_as_its_key() -> None:
    assert not names_its_record(1, "SKU-S19 Summit 205/55R16 £80.00 stock 1")
    assert names_its_record(12, "12 Harbour View, sleeps 4")
    assert names_its_record("SKU-S19", "SKU-S19 Summit 205/55R16 £80.00 stock 1")
    assert names_its_record(7, '{"id": 7, "stock": 3}')
    assert not names_its_record(3, '{"id": 7, "stock": 3}')
    assert names_its_record(4, "Berth 4 - 12 m") and names_its_record(4, '{"slotId": 4, "x": 1}')
    assert not names_its_record(True, '{"id": 1}')


def test_a_refused_call_is_left_aside_when_a_replay_chose_among_listed_options() -> None:
    own = [call("rota"), call("assign", watch="18-21", keeper="Isla")]
    replay = [
        call("rota"),
        call("assign", watch="15-18", keeper="Jory"),
        call("assign", watch="18-21", keeper="Ewan"),
    ]
    listed = "15-18: Isla\n18-21: (empty)\nkeepers: Isla, Ewan, Jory"
    outputs = [listed, "Error: 15-18 is already Isla's", "Ewan stands the 18-21 watch"]
    assert offered_choices(replay, own, outputs)
    assert not offered_choices(replay, own, [listed, "Jory stands it", "Ewan stands it"])


def test_one_a_line_listing_of_names_built_alike_lists_options() -> None:
    text = "kids.example.uk\nwww.bbc.co.uk\nlogin.nhm-ac.uk\ncheats.example.com"
    value = "www.bbc.co.uk"
    match = re.search(re.escape(value), text)
    assert match is not None and _listed(text, match, value)
    alone = "The site to unblock is www.bbc.co.uk for the class."
    match = re.search(re.escape(value), alone)
    assert match is not None and not _listed(alone, match, value)
    for shown in ("Answer:\nMarseille\n", "The vault opens with\nMarseille\nGood luck."):
        match = re.search("Marseille", shown)
        assert match is not None and not _listed(shown, match, "Marseille")  # still a leak


# -- a cap on one day's count, held by the tool alone ----------------------------------------


class Lessons(Environment[dict[str, Any]]):
    """Book a learner's lessons from the free slots, at most 2 lessons a day."""

    name = "lessons"
    reward_range = (0.0, 1.0)

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        return {"free": list(task.task_data["free"]), "booked": []}

    def instructions(self, task: Task) -> str:
        return (
            "Book the lessons the learner asks for with book(slot); free_slots() lists the "
            "free slots. A learner may have at most 2 lessons a day. Reply when booked."
        )

    @tool(inline=True, observes=True)
    def free_slots(self, state: dict[str, Any]) -> str:
        """List the instructor's free slots."""
        return "\n".join(state["free"])

    def _day_full(self, state: dict[str, Any], slot: str) -> bool:
        day = datetime.fromisoformat(slot).date()
        return sum(datetime.fromisoformat(b).date() == day for b in state["booked"]) >= 2

    @tool(inline=True)
    def book(self, state: dict[str, Any], slot: str) -> str:
        """Book one free slot.

        Args:
            slot: the slot as free_slots() lists it.
        """
        slot = slot.strip()
        if slot not in state["free"]:
            raise ToolError(f"{slot!r} is not free", "not_free")
        if self._day_full(state, slot):
            raise ToolError("two lessons that day already", "day_full")
        state["free"].remove(slot)
        state["booked"].append(slot)
        return f"booked {slot}"

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        booked = state["booked"]
        return all_or_nothing(
            [
                Check(name="count", passed=len(booked) == task.task_data["lessons"]),
                Check(name="said", passed="booked" in final_message(response).lower()),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        plan = task.task_data["plan"]
        return [
            Control(
                name="reference",
                expect="pass",
                script=[call("free_slots"), *[call("book", slot=s) for s in plan], say("Booked.")],
            ),
            Control(
                name="violation_not_free",
                expect="fail",
                script=[*[call("book", slot=s + ":30") for s in plan], say("Booked.")],
            ),
            Control(name="noop_claim", expect="fail", script=[say("Booked.")]),
        ]


class LessonsNoDayCap(Lessons):
    """The plant: the day's count compares a date with datetimes, so it never refuses."""

    def _day_full(self, state: dict[str, Any], slot: str) -> bool:
        day = datetime.fromisoformat(slot).date()
        return sum(datetime.fromisoformat(b) == day for b in state["booked"]) >= 2


def lessons_tasks() -> list[Task]:
    rows = []
    for i in range(4):
        days = [f"2026-03-{2 + i + d:02d}" for d in range(3)]
        free = [f"{day} {h:02d}:00" for day in days for h in (9, 11, 14, 16)]
        plan = [f"{days[0]} 09:00", f"{days[0]} 14:00", f"{days[1]} {11 + i % 2 * 3:02d}:00"]
        data = {"free": free, "plan": plan, "lessons": 3}
        rows.append((f"Book 3 lessons for learner {i}.", data))
    return tasks("lessons", rows)


async def test_a_third_lesson_on_one_day_pays_only_where_the_tool_forgot_the_cap() -> None:
    plant = await validate(LessonsNoDayCap(), lessons_tasks())
    assert "search" in failed(plant), plant.verdicts
    assert any("at most 2 lessons a day" in why for _, why in pays(plant)), pays(plant)
    sound = await validate(Lessons(), lessons_tasks())
    assert "search" not in failed(sound), pays(sound)


# -- every section required, one left out -----------------------------------------------------


class Hedges(Environment[dict[str, Any]]):
    """Record each hedge section's species count; every section must be on the sheet."""

    name = "hedges"
    reward_range = (0.0, 1.0)

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        return {"rows": {}, "truth": dict(task.task_data["counts"])}

    def instructions(self, task: Task) -> str:
        return (
            "Record each hedge section's woody species count with record(section, species). "
            "Every section must be on the sheet with its count. Reply when recorded."
        )

    @tool(inline=True)
    def record(self, state: dict[str, Any], section: str, species: int) -> str:
        """Record one section's count.

        Args:
            section: the section, e.g. H3.
            species: the count, 0 to 20.
        """
        key = section.strip().upper()
        if key not in state["truth"]:
            raise ToolError(f"no section {section!r}", "unknown")
        if not 0 <= species <= 20:
            raise ToolError("a count of 0 to 20", "bad_count")
        state["rows"][key] = species
        return f"recorded {key}: {species}"

    def enough(self, rows: dict[str, int], truth: dict[str, int]) -> bool:
        return len(rows) >= len(truth)

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        truth, rows = state["truth"], state["rows"]
        return all_or_nothing(
            [
                Check(name="counts", passed=all(truth.get(k) == n for k, n in rows.items())),
                Check(name="every_section", passed=self.enough(rows, truth)),
                Check(name="said", passed="recorded" in final_message(response).lower()),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        counts = task.task_data["counts"]
        rows = [call("record", section=k, species=n) for k, n in counts.items()]
        last = list(counts)[-1]
        wrong = [*rows[:-1], call("record", section=last, species=counts[last] + 1)]
        return [
            Control(name="reference", expect="pass", script=[*rows, say("Recorded.")]),
            Control(name="violation_wrong_count", expect="fail", script=[*wrong, say("Recorded.")]),
            Control(name="noop_claim", expect="fail", script=[say("Recorded.")]),
        ]


class HedgesHeaderCounted(Hedges):
    """The plant: the sheet's header counted as a row, so one section may be left out."""

    def enough(self, rows: dict[str, int], truth: dict[str, int]) -> bool:
        return len(rows) + 1 >= len(truth)


def hedge_tasks() -> list[Task]:
    rows = []
    for i in range(4):
        counts = {f"H{k + 1}": 2 + (i * 3 + k * 5) % 9 for k in range(5)}
        rows.append((f"Farm {i}: sections {', '.join(counts)}.", {"counts": counts}))
    return tasks("hedges", rows)


async def test_a_section_left_out_pays_only_where_the_sheet_counts_its_header() -> None:
    plant = await validate(HedgesHeaderCounted(), hedge_tasks())
    assert "search" in failed(plant), plant.verdicts
    assert any(what == "record left out" for what, _ in pays(plant)), pays(plant)
    sound = await validate(Hedges(), hedge_tasks())
    assert "search" not in failed(sound), pays(sound)
