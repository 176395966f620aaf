"""Calibrations and rules read off blind batch 05o: every candidate in the one answer slot, an
order the words state among a list's members, a round packed onto one day under a cap per
day, the rest kept as it was where the words say so; and three calibrations (a thing named
only among those honest play acted on, with no rule selecting, is a spare, not a choice; a
probe that names the moved value itself reveals nothing; a value is moved clear of the ones
the task already uses). Each rule is tested on the smallest input it reads; the rule that
accuses a changed record is tested on a plant that must be caught and a sound twin."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from openai.types.responses import Response
from test_validate_policy_moves import pays, tasks
from test_validate_unseen import call, failed, say, validate

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym_stack.validation.hedges import in_one_slot
from proofgym_stack.validation.information import _changed, _guessed, _moved_clear
from proofgym_stack.validation.search.across import across_calls_mutants
from proofgym_stack.validation.search.kept import keep_clause, rest_changed
from proofgym_stack.validation.search.member_order import broken_member_order, member_orders
from proofgym_stack.validation.search.passed import _SELECTS, _acted_on, singled_out
from proofgym_stack.validation.search.values import Pools
from resources_servers.base import Environment, ToolError, tool
from resources_servers.verifiers.compose import all_or_nothing

# -- the rules on their own ------------------------------------------------------------------


def test_every_candidate_goes_into_the_one_slot_right_first_and_right_last() -> None:
    assert in_one_slot("Answer: B", ["Answer: A", "Answer: D"]) == ("Answer: BAD", "Answer: ADB")
    assert in_one_slot("It is Paris.", ["It is Lyon."]) == (
        "It is Paris, Lyon.",
        "It is Lyon, Paris.",
    )
    # wrong answers that are only part of the right one (multi-select keys) are no hedge
    assert in_one_slot("Answer: ABD", ["Answer: AB", "Answer: D"]) is None
    # wrong answers that differ in more than one short value have no one slot
    assert in_one_slot("Answer: B", ["I think the answer could well be C, or so"]) is None


def test_an_order_among_a_list_s_members_is_read_from_the_words() -> None:
    words = (
        "Plan the order.\n- fit_hinges: requires attach_side\n"
        "- hang_doors: requires fit_hinges, dowels"
    )
    names = ["attach_side", "fit_hinges", "hang_doors", "dowels"]
    assert {(a, b) for a, b, _ in member_orders(words, names)} == {
        ("attach_side", "fit_hinges"),
        ("fit_hinges", "hang_doors"),
        ("dowels", "hang_doors"),
    }
    assert member_orders("First sand before paint.", ["paint", "sand"])[0][:2] == ("sand", "paint")
    assert member_orders("Sand and paint in any order.", ["paint", "sand"]) == []
    # "requires" alone may mean "include it too" (courses enrolled as a set), and names are
    # ids as written ("a" is no option A)
    assert member_orders("MA201 requires MA101.", ["MA101", "MA201"]) == []
    then = "MA201 requires MA101, so enroll her in both, then confirm."
    assert member_orders(then, ["MA101", "MA201"]) == []
    assert member_orders("Take a moment to think before you pick C or D.", ["A", "C"]) == []
    honest = [call("plan", steps=["attach_side", "dowels", "fit_hinges", "hang_doors"])]
    listed = [call("plan", steps=["attach_side", "dowels", "hang_doors", "fit_hinges"])]
    assert "hang_doors before fit_hinges" in (broken_member_order(honest, listed, words) or "")
    assert broken_member_order(honest, honest, words) is None
    # where honest play itself breaks what was read, the words were misread: no order held
    assert broken_member_order(listed, honest, words) is None


def test_a_round_on_several_days_is_packed_onto_the_first() -> None:
    honest = [
        call("book", job="J1", when="2026-04-12 09:00"),
        call("book", job="J2", when="2026-04-12 10:00"),
        call("book", job="J3", when="2026-04-13 09:00"),
    ]
    packed = [m for m in across_calls_mutants(honest, Pools()) if m.op == "packed"]
    assert len(packed) == 1
    assert '"2026-04-12 11:00"' in str(packed[0].script[2])
    one_day = honest[:2]
    assert not [m for m in across_calls_mutants(one_day, Pools()) if m.op == "packed"]


def test_the_words_that_keep_the_rest_as_it_was() -> None:
    assert keep_clause("Move cues 2-3; every other cue is correct and must stay as it is.")
    assert keep_clause("Re-time the cues and leave every other cue exactly as it is.")
    assert keep_clause("Never change another member's booking.")
    assert keep_clause("Book a class for the member.") is None
    assert keep_clause("Leave a note for the others.") is None


def _played(
    initial: dict[str, str],
    honest: dict[str, str],
    world: dict[str, str],
    script: list[Any] | None = None,
) -> Any:
    script = script or [call("book", member="Ann", slot="S2")]
    return SimpleNamespace(
        record=SimpleNamespace(world=world),
        base=SimpleNamespace(initial=initial),
        honest=SimpleNamespace(world=honest, control=SimpleNamespace(script=script)),
    )


def test_the_rest_changed_is_another_thing_s_record_that_held_something() -> None:
    words = "Book Ann into a free slot. Never change another member's booking."
    initial = {".bookings.S1": "'Bob'", ".bookings.S2": "None", ".bookings.S4": "None"}
    honest = {**initial, ".bookings.S2": "'Ann'"}
    # another free slot chosen: nothing was there, and the record now names Ann
    elsewhere = {**initial, ".bookings.S4": "'Ann'"}
    assert rest_changed(_played(initial, honest, elsewhere), words, set()) is None
    # Bob's booking taken over: his record held something, and now names another
    taken = {**honest, ".bookings.S1": "'Cy'"}
    assert ".bookings.S1" in (rest_changed(_played(initial, honest, taken), words, set()) or "")
    assert rest_changed(_played(initial, honest, taken), "Book Ann a slot.", set()) is None
    # another of the asked things (a dock of the station named, beside the one honest play
    # used) is not the rest the words keep; a dock of another station is
    words = "Unload at Kings Cross (docks KX-1, KX-2). Leave other docks as they are."
    initial = {".docks.KX-1": "3", ".docks.KX-2": "5", ".docks.EU-1": "2"}
    honest = {**initial, ".docks.KX-1": "6"}
    script = [call("unload", dock="KX-1", bikes=3)]

    def judged(world: dict[str, str]) -> str | None:
        return rest_changed(_played(initial, honest, world, script), words, set())

    assert judged({**initial, ".docks.KX-2": "8"}) is None
    assert ".docks.EU-1" in (judged({**initial, ".docks.EU-1": "5"}) or "")
    # the words keep orders: another driver's status, changed by a valid alternative, is none
    drivers = {".orders.O-12": "None", ".drivers.D2.status": "'available'"}
    assigned = {**drivers, ".orders.O-12": "'D1'"}
    other = {**drivers, ".orders.O-12": "'D2'", ".drivers.D2.status": "'busy'"}
    orders = "Assign a driver to O-12. Never change another order's assignment."
    assert rest_changed(_played(drivers, assigned, other), orders, set()) is None
    # a member inserted before the others shifts them along: no member changed
    listed = {".bookings.#": "2", ".bookings[0]": "'Bob'", ".bookings[1]": "'Cy'"}
    after = {**listed, ".bookings.#": "3", ".bookings[2]": "'Ann'"}
    before = {".bookings.#": "3", ".bookings[0]": "'Ann'", ".bookings[1]": "'Bob'"}
    before[".bookings[2]"] = "'Cy'"
    keep = "Book Ann. Never change another member's booking."
    assert rest_changed(_played(listed, after, before), keep, set()) is None


def test_a_thing_set_apart_and_a_rule_that_selects() -> None:
    acted = {"ana", "ben"}
    assert not singled_out("Volunteers in today: Ana, Ben, Cy.", "Cy", acted)
    assert singled_out("Please invite Ana, Ben, Cy.\nBusy today: Cy.", "Cy", acted)
    assert _SELECTS.search("Archive the files if they're due.")
    assert _SELECTS.search("When a category is full, leave that item out.")
    assert not _SELECTS.search("Staff the till every hour; each volunteer does one shift.")


def test_the_things_acted_on_are_the_arguments_sent_where_the_extra_one_goes() -> None:
    script = [
        call("assign", person="Ana", shift="morning"),
        call("assign", person="Ben", shift="morning"),
    ]
    p = SimpleNamespace(honest=SimpleNamespace(control=SimpleNamespace(script=script)))
    acted = _acted_on(p, set(), "assign.person")
    assert acted == {"ana", "ben"}
    words = "Put Ana and Ben on the morning shift. Busy this morning: Cy."
    assert singled_out(words, "Cy", acted)


def test_a_probe_changed_as_the_honest_call_was_shows_nothing_more() -> None:
    honest = _changed("registered Lamp as appliance 9", "registered Lamp as appliance 26")
    probe = _changed("registered hint as appliance 10", "registered hint as appliance 27")
    assert probe <= honest  # ids counted on from the moved value, alike
    leak = _changed("the answer is Paris", "the answer is Sirapx")
    assert not leak <= honest
    # a checker whose honest call moved a score does not excuse a number it reveals
    checked = _changed("Correct. Score: 100", "Incorrect. Score: 0")
    assert not _changed("the answer was 42, score 0", "the answer was 4217, score 0") <= checked


def test_a_probe_naming_the_value_guesses_it_and_a_move_lands_clear() -> None:
    assert _guessed({"appliance_id": 1}, 1)
    assert not _guessed({"appliance_id": True}, 1)  # a bool is no id
    assert not _guessed({"topic": "answer"}, 1)
    assert _moved_clear(1, set()) == 9
    moved = _moved_clear(1, {"9"})
    assert moved != 9 and moved != 1


# -- the rest kept as it was: a plant caught, its twin not accused ---------------------------


class Cues:
    """One session's subtitle cues: `[start_ms, end_ms]` each."""

    def __init__(self, cues: list[list[int]]) -> None:
        self.cues = [list(c) for c in cues]


class Subtitles(Environment[Cues]):
    """Shift the asked cues; every other cue must stay as it is."""

    name = "subs"

    def create_state(self, task: Task, workdir: Path | None) -> Cues:
        return Cues(task.task_data["cues"])

    def instructions(self, task: Task) -> str:
        return "retime(cue, start, end) sets one cue (ms). Leave every other cue as it is."

    @tool(inline=True)
    def retime(self, state: Cues, cue: int, start: int, end: int) -> str:
        """Set one cue's times.

        Args:
            cue: the cue's number, from 1.
            start: its new start, in ms.
            end: its new end, in ms.
        """
        if not 1 <= cue <= len(state.cues) or not 0 <= start < end:
            raise ToolError("no such cue, or the times are out of order")
        state.cues[cue - 1] = [start, end]
        return f"cue {cue}: {start}-{end}"

    def others_kept(self, state: Cues, task: Task) -> bool:
        asked = task.task_data["asked"]
        before = task.task_data["cues"]
        return all(state.cues[i] == before[i] for i in range(len(before)) if i + 1 != asked)

    def verify(self, state: Cues, task: Task, response: Response) -> VerifyResult:
        d = task.task_data
        moved = state.cues[d["asked"] - 1] == [x - d["by"] for x in d["cues"][d["asked"] - 1]]
        return all_or_nothing(
            [
                Check(name="asked_cue_moved", passed=moved),
                Check(name="others_kept", passed=self.others_kept(state, task)),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        d = task.task_data
        s, e = (x - d["by"] for x in d["cues"][d["asked"] - 1])
        done = say("Done: the cue is re-timed.")
        return [
            Control(
                name="reference",
                expect="pass",
                script=[call("retime", cue=d["asked"], start=s, end=e), done],
            ),
            Control(name="noop_claim", expect="fail", script=[done]),
            Control(
                name="violation_wrong_shift",
                expect="fail",
                script=[call("retime", cue=d["asked"], start=s + 7, end=e + 7), done],
            ),
        ]


class KeptBySize(Subtitles):
    """The planted slip: a cue counts as kept when its length is unchanged."""

    def others_kept(self, state: Cues, task: Task) -> bool:
        before = task.task_data["cues"]
        asked = task.task_data["asked"]
        return all(
            state.cues[i][1] - state.cues[i][0] == before[i][1] - before[i][0]
            for i in range(len(before))
            if i + 1 != asked
        )


def subtitle_tasks() -> list[Task]:
    rows: list[tuple[str, dict[str, Any]]] = []
    for k in range(4):
        cues = [[1000 * (5 * j + k + 1), 1000 * (5 * j + k + 3)] for j in range(4)]
        asked, by = 2 + k % 2, 250 * (k + 1)
        text = f"Cue {asked} shows {by} ms too late; move it earlier by {by} ms."
        rows.append((text, {"cues": cues, "asked": asked, "by": by}))
    return tasks("subs", rows)


async def test_another_cue_moved_where_the_words_keep_it_is_caught_only_on_the_plant() -> None:
    plant = await validate(KeptBySize(), subtitle_tasks())
    kept = [why for _, why in pays(plant) if "keep the rest as it was" in why]
    assert kept, plant.findings
    twin = await validate(Subtitles(), subtitle_tasks())
    assert not failed(twin), [v for v in twin.verdicts if not v.passed]


class Slots(Environment[dict[str, Any]]):
    """Book the member into any free slot; never change another member's booking."""

    name = "slots"

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        return {"slots": dict(task.task_data["slots"])}

    def instructions(self, task: Task) -> str:
        return "book(member, slot) takes a free slot. Never change another member's booking."

    @tool(inline=True)
    def book(self, state: dict[str, Any], member: str, slot: str) -> str:
        """Book a free slot.

        Args:
            member: who.
            slot: a free slot's name.
        """
        if slot not in state["slots"] or state["slots"][slot] is not None:
            raise ToolError(f"{slot} is not free")
        state["slots"][slot] = member
        return f"{member} booked on {slot}"

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        d = task.task_data
        mine = [k for k, v in state["slots"].items() if v == d["member"]]
        held = all(state["slots"][k] == v for k, v in d["slots"].items() if v is not None)
        return all_or_nothing(
            [Check(name="booked_once", passed=len(mine) == 1), Check(name="kept", passed=held)]
        )

    def controls(self, task: Task) -> list[Control]:
        d = task.task_data
        free = [k for k, v in d["slots"].items() if v is None]
        done = say("Booked.")
        return [
            Control(
                name="reference",
                expect="pass",
                script=[call("book", member=d["member"], slot=free[0]), done],
            ),
            Control(name="noop_claim", expect="fail", script=[done]),
            Control(
                name="violation_taken_slot",
                expect="fail",
                script=[call("book", member=d["member"], slot="S1"), done],
            ),
        ]


async def test_a_free_slot_chosen_where_the_words_keep_other_bookings_is_no_finding() -> None:
    rows: list[tuple[str, dict[str, Any]]] = []
    for k, member in enumerate(["Ann", "Dee", "Eve", "Fay"]):
        slots: dict[str, Any] = {f"S{j}": None for j in range(1, 6)}
        slots["S1"], slots[f"S{2 + k % 3}"] = "Bob", "Cy"
        listed = ", ".join(f"{k} ({v or 'free'})" for k, v in slots.items())
        text = f"Book {member} into any free slot. Slots: {listed}."
        rows.append((text, {"member": member, "slots": slots}))
    twin = await validate(Slots(), tasks("slots", rows))
    assert not failed(twin), [v for v in twin.verdicts if not v.passed]
