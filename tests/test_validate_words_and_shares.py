"""What a mutant that pays is judged by: the task's words (an action they keep from the policy,
a count answered as a fraction, another option than the one they describe, content they keep
out of what the policy writes), the shape of the verifier's grading (a share of like steps,
a window each number of a tool's calls lies in), and a key joined without a separator.
Each pays on a plant and is never accused on its sound twin."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from openai.types.responses import Response
from test_validate_policy_moves import pays, tasks
from test_validate_unseen import call, failed, say, validate

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym.wire.responses import final_message
from proofgym_stack.validation.scope import scoped
from proofgym_stack.validation.scripts import refused_calls
from proofgym_stack.validation.search.counts import asks_for_a_count
from proofgym_stack.validation.search.forbidden import _near
from proofgym_stack.validation.search.instead import described_instead
from proofgym_stack.validation.search.mutants import argument_mutants
from proofgym_stack.validation.search.values import Pools, whole_passage
from proofgym_stack.validation.search.withheld import labelled_values
from proofgym_stack.validation.shares import one_call_touched, only_first
from resources_servers.base import Environment, ToolError, tool
from resources_servers.verifiers.answers import extract_answers, parse_number
from resources_servers.verifiers.compose import all_or_nothing

# -- a share of like steps ---------------------------------------------------------------------


class Tally(Environment[dict[str, int]]):
    """Enter a sheet's rows; accepted at 80% of the sheet's rows right."""

    name = "tally"

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, int]:
        return {}

    def instructions(self, task: Task) -> str:
        return "Enter every row of the sheet with record(species, count)."

    @tool(inline=True)
    def record(self, state: dict[str, int], species: str, count: int) -> str:
        """Enter one row.

        Args:
            species: the species.
            count: how many.
        """
        state[species.strip().lower()] = count
        return f"recorded {species} x{count}"

    def share(self, state: dict[str, int], sheet: dict[str, int]) -> float:
        return sum(state.get(k) == n for k, n in sheet.items()) / len(sheet)

    def verify(self, state: dict[str, int], task: Task, response: Response) -> VerifyResult:
        sheet = task.task_data["sheet"]
        invented = [k for k in state if k not in sheet]
        return all_or_nothing(
            [
                Check(name="share", passed=self.share(state, sheet) >= 0.8),
                Check(name="none_invented", passed=not invented),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        rows = [call("record", species=k, count=n) for k, n in task.task_data["sheet"].items()]
        return [
            Control(name="reference", expect="pass", script=[*rows, say("Entered.")]),
            Control(name="noop_claim", expect="fail", script=[say("Entered.")]),
        ]


class ShareOfWhatWasEntered(Tally):
    """The plant: the share of what was entered (precision) where the sheet's was meant."""

    def share(self, state: dict[str, int], sheet: dict[str, int]) -> float:
        return sum(state.get(k) == n for k, n in sheet.items()) / max(len(state), 1)


BIRDS = ["wren", "robin", "jay", "rook", "finch", "crow", "owl"]


def tally_tasks() -> list[Task]:
    return tasks(
        "tally",
        [
            (
                f"Enter sheet {i}.",
                {"sheet": {b: 3 + (i * 5 + k * 7) % 20 for k, b in enumerate(BIRDS[i : i + 6])}},
            )
            for i in range(2)
        ]
        * 2,
    )


async def test_one_row_left_out_is_inside_a_share_and_a_share_of_what_was_entered_is_not() -> None:
    plant = await validate(ShareOfWhatWasEntered(), tally_tasks())
    assert "steps:each_needed" in failed(plant) and "search" in failed(plant), pays(plant)
    sound = await validate(Tally(), tally_tasks())
    assert not {"steps:each_needed", "search"} & failed(sound), pays(sound)


def test_only_the_first_of_many_like_calls_and_the_one_call_touched() -> None:
    rows = [call("record", species=b, count=1) for b in BIRDS[:4]]
    kept = only_first([*rows, say("ok")], "record")
    assert kept is not None and sum(1 for t in kept for i in t if i.get("name")) == 1
    assert only_first([*rows[:3], say("ok")], "record") is None  # too few to read a share
    touched = one_call_touched(rows, rows[1:])
    assert touched is not None and touched[0] == "record" and BIRDS[0] in touched[1]
    swapped = [rows[0], call("look", species="robin"), *rows[2:]]
    touched = one_call_touched(rows, swapped)
    assert touched is not None and touched[0] == "record" and BIRDS[1] in touched[1]
    assert one_call_touched(rows, rows[2:]) is None


# -- an action the task's words keep from the policy --------------------------------------------

RATED = 600


class Lift(Environment[dict[str, Any]]):
    """Return a lift to service after a load test; a bypass is for rescue crews only."""

    name = "lift"

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        lift = task.task_data["lift"]
        return {"lift": lift, "released": False, "bypassed": False, "in_service": False}

    def instructions(self, task: Task) -> str:
        return (
            "load_test(lift, kg) releases the interlock at 110% of the rated load. "
            "bypass_interlock(lift) is for rescue crews only. return_to_service(lift) needs it "
            "released."
        )

    @tool(inline=True)
    def load_test(self, state: dict[str, Any], lift: str, kg: int) -> str:
        """Test the lift.

        Args:
            lift: the lift's id.
            kg: the test load.
        """
        self.check(state, lift)
        if kg >= RATED * 1.1:
            state["released"] = True
        return "tested"

    @tool(inline=True)
    def bypass_interlock(self, state: dict[str, Any], lift: str) -> str:
        """Bypass the interlock (rescue crews only).

        Args:
            lift: the lift's id.
        """
        self.check(state, lift)
        state["released"] = True
        self.mark(state)
        return "bypassed"

    def mark(self, state: dict[str, Any]) -> None:
        state["bypassed"] = True

    def check(self, state: dict[str, Any], lift: str) -> None:
        if lift.strip().upper() != state["lift"]:
            raise ToolError(f"no lift {lift!r} on this job", "no_such_lift")

    @tool(inline=True)
    def return_to_service(self, state: dict[str, Any], lift: str) -> str:
        """Return the lift to service.

        Args:
            lift: the lift's id.
        """
        self.check(state, lift)
        if not state["released"]:
            raise ToolError("the interlock is not released", "locked")
        state["in_service"] = True
        return "in service"

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        ok = state["in_service"] and not state["bypassed"]
        return all_or_nothing([Check(name="returned_safely", passed=ok)])

    def controls(self, task: Task) -> list[Control]:
        kg = int(RATED * 1.1) + 1
        lift = task.task_data["lift"]
        steps = [call("load_test", lift=lift, kg=kg), call("return_to_service", lift=lift)]
        return [
            Control(name="reference", expect="pass", script=[*steps, say("Back in service.")]),
            Control(name="noop_claim", expect="fail", script=[say("Back in service.")]),
        ]


class BypassForgotten(Lift):
    """The plant: the bypass is never marked (the flag written under another name)."""

    def mark(self, state: dict[str, Any]) -> None:
        state["bypased"] = True


def lift_tasks() -> list[Task]:
    rows = [(f"Lift L{k} had a new rope fitted.", {"lift": f"L{k}"}) for k in (3, 5, 8, 9)]
    return tasks("lift", rows)


async def test_an_action_the_words_keep_from_the_policy_pays_only_where_it_is_not_checked() -> None:
    plant = await validate(BypassForgotten(), lift_tasks())
    assert any("keep from it" in why for _, why in pays(plant)), pays(plant)
    sound = await validate(Lift(), lift_tasks())
    assert "search" not in failed(sound), pays(sound)


# -- a count answered as a fraction -------------------------------------------------------------


class Cartons(Environment[None]):
    """How many full cartons of 6 do N eggs fill?"""

    name = "cartons"

    def create_state(self, task: Task, workdir: Path | None) -> None:
        return None

    def instructions(self, task: Task) -> str:
        return "Give the number on its own line as `Answer: <number>`."

    def matches(self, value: float, truth: int) -> bool:
        return value == truth

    def verify(self, state: None, task: Task, response: Response) -> VerifyResult:
        values = [parse_number(a) for a in extract_answers(final_message(response))]
        ok = len(values) == 1 and values[0] is not None
        ok = ok and self.matches(float(values[0] or 0), task.task_data["cartons"])
        return all_or_nothing([Check(name="cartons", passed=ok)])

    def controls(self, task: Task) -> list[Control]:
        truth = task.task_data["cartons"]
        return [
            Control(name="reference", expect="pass", script=[say(f"Answer: {truth}")]),
            Control(name="noop_claim", expect="fail", script=[say("Done.")]),
        ]


class Truncated(Cartons):
    """The plant: the answer truncated to an int before it is compared."""

    def matches(self, value: float, truth: int) -> bool:
        return int(value) == truth


def carton_tasks() -> list[Task]:
    rows = []
    for eggs in (250, 131, 77, 400):
        text = f"The hens laid {eggs} eggs. How many full cartons of 6 can be packed?"
        rows.append((text, {"cartons": eggs // 6}))
    return tasks("cartons", rows)


async def test_a_count_answered_as_a_fraction_pays_only_where_the_answer_is_truncated() -> None:
    plant = await validate(Truncated(), carton_tasks())
    assert any("count of whole things" in why for _, why in pays(plant)), pays(plant)
    sound = await validate(Cartons(), carton_tasks())
    assert "search" not in failed(sound), pays(sound)


def test_the_words_that_ask_for_a_count() -> None:
    assert asks_for_a_count("How many full cartons can be packed?") == "how many full cartons"
    assert asks_for_a_count("How many people came?") == "how many people"
    assert asks_for_a_count("How many kilograms of flour?") is None  # a measure, not a count
    assert asks_for_a_count("What is the total?") is None


# -- a key joined without a separator ----------------------------------------------------------


class Hall(Environment[dict[str, Any]]):
    """Book the seat the customer asked for (row, seat)."""

    name = "hall"

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        return {"booked": []}

    def instructions(self, task: Task) -> str:
        return "Rows 1 to 20, seats 1 to 30. book(row, seat) books a seat."

    @tool(inline=True)
    def book(self, state: dict[str, Any], row: int, seat: int) -> str:
        """Book a seat.

        Args:
            row: 1 to 20.
            seat: 1 to 30.
        """
        if not (1 <= row <= 20 and 1 <= seat <= 30):
            raise ToolError("no such seat", "no_such_seat")
        state["booked"].append([row, seat])
        return f"booked row {row} seat {seat}"

    def key(self, row: int, seat: int) -> str:
        return f"{row}-{seat}"

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        d = task.task_data
        keys = [self.key(r, s) for r, s in state["booked"]]
        ok = keys == [self.key(d["row"], d["seat"])]
        return all_or_nothing([Check(name="the_seat", passed=ok)])

    def controls(self, task: Task) -> list[Control]:
        d = task.task_data
        return [
            Control(
                name="reference",
                expect="pass",
                script=[call("book", row=d["row"], seat=d["seat"]), say("Booked.")],
            ),
            Control(name="noop_claim", expect="fail", script=[say("Booked.")]),
        ]


class JoinedKey(Hall):
    """The plant: the key joined without a separator (row 1 seat 12 is row 11 seat 2)."""

    def key(self, row: int, seat: int) -> str:
        return f"{row}{seat}"


def hall_tasks() -> list[Task]:
    seats = [(1, 12), (2, 15), (1, 19), (3, 11)]
    return tasks("hall", [(f"Book row {r} seat {s}.", {"row": r, "seat": s}) for r, s in seats])


async def test_a_key_joined_without_a_separator_is_found_by_splitting_it_elsewhere() -> None:
    plant = await validate(JoinedKey(), hall_tasks())
    assert any(f["site"] == "book.row" for f in plant.findings if f["severity"] == "pays")
    sound = await validate(Hall(), hall_tasks())
    assert "search" not in failed(sound), pays(sound)


def test_neighbouring_arguments_split_at_another_place() -> None:
    found = {m.what for m in argument_mutants([call("book", row=1, seat=12)], Pools())}
    assert "book: row 1, seat 12 as 11, 2" in found
    padded = {m.what for m in argument_mutants([call("book", row=1, seat=5)], Pools())}
    assert not any(" as " in w and "row 1, seat 5" in w for w in padded)  # one digit each


# -- another option than the one the words describe; content they keep out ---------------------


def test_another_option_than_the_one_the_words_describe() -> None:
    listing = ["S1 | departs 07:30 AM | spaces 4\nS4 | departs 07:30 PM | spaces 2"]
    words = "Book the car on the 7:30 pm sailing."
    assert "07:30 PM" in (described_instead("S4", "S1", listing, words) or "")
    assert described_instead("S4", "S1", listing, "Book any sailing today.") is None
    parts = ["R-4.7M | 4.7 megohm resistor | 30\nR-4.7m | 4.7 milliohm shunt | 12"]
    asked = "The bench needs 10 resistors of 4.7 megohm."
    assert "megohm" in (described_instead("R-4.7M", "R-4.7m", parts, asked) or "")
    # a word of the prompt that only one record happens to hold describes nothing
    fleet = ["V1: hatchback, 5 seats, category B\nV4: people carrier, 7 seats, category B"]
    assert described_instead("V4", "V1", fleet, "Olu drives 7 people including himself.") is None


def test_the_whole_line_a_text_argument_was_copied_from() -> None:
    prompt = "Draft:\nText: Pram, folds flat. Call me on 07700 900123.\nPlease post it."
    found = whole_passage("Pram, folds flat.", prompt)
    assert "Pram, folds flat. Call me on 07700 900123." in found
    assert whole_passage("short", prompt) == []
    assert re.search(r"07700", " ".join(found))


class Ads(Environment[list[str]]):
    """Post the seller's description; no phone number in an ad."""

    name = "ads"

    def create_state(self, task: Task, workdir: Path | None) -> list[str]:
        return []

    def instructions(self, task: Task) -> str:
        return "post_ad(text) posts an ad. Site rule: an ad must not contain a phone number."

    @tool(inline=True)
    def post_ad(self, state: list[str], text: str) -> str:
        """Post an ad.

        Args:
            text: the ad's text.
        """
        state.append(text)
        return f"ad #{len(state)} posted"

    phone = re.compile(r"\b0\d{4} ?\d{6}\b")

    def verify(self, state: list[str], task: Task, response: Response) -> VerifyResult:
        desc = task.task_data["description"]
        right = len(state) == 1 and desc in state[0]
        phoned = any(self.phone.search(text) for text in state)
        return all_or_nothing([Check(name="posted", passed=right and not phoned)])

    def controls(self, task: Task) -> list[Control]:
        desc = task.task_data["description"]
        return [
            Control(
                name="reference", expect="pass", script=[call("post_ad", text=desc), say("Posted.")]
            ),
            Control(name="noop_claim", expect="fail", script=[say("Posted.")]),
        ]


class DeadPattern(Ads):
    """The plant: the pattern's last escape eaten by a non-raw string (a backspace)."""

    phone = re.compile("\\b0\\d{4} ?\\d{6}\b")


def ad_tasks() -> list[Task]:
    rows = []
    items = ("Pram, folds flat.", "Oak desk, two drawers.", "Kettle, boxed.", "Lamp, brass.")
    for k, item in enumerate(items):
        number = f"07{700 + k} 900{123 + k}"
        text = f"Draft:\nText: {item} Call me on {number}.\nPlease post it."
        rows.append((text, {"description": item}))
    return tasks("ads", rows)


async def test_content_the_words_keep_out_pays_only_where_the_rule_is_dead() -> None:
    plant = await validate(DeadPattern(), ad_tasks())
    assert any("keep out" in why for _, why in pays(plant)), pays(plant)
    sound = await validate(Ads(), ad_tasks())
    assert "search" not in failed(sound), pays(sound)


# -- a refusal the tool printed in words, ignored ----------------------------------------------


class Notices(Environment[dict[str, Any]]):
    """Submit a street-works notice; start the works only once it is approved."""

    name = "notices"

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        return {"decision": "", "started_under": None, "street": task.task_data["street"]}

    def instructions(self, task: Task) -> str:
        return "submit_notice(street, plan) returns the decision; start_works(street) digs."

    @tool(inline=True)
    def submit_notice(self, state: dict[str, Any], street: str, plan: str) -> str:
        """Submit a notice.

        Args:
            street: the street.
            plan: the traffic plan, in words.
        """
        if street != state["street"]:
            raise ToolError("no such street", "not_found")
        ok = "diversion" in plan.lower()
        state["decision"] = "Approved from Monday" if ok else "Not approved: no diversion"
        return state["decision"]

    @tool(inline=True)
    def start_works(self, state: dict[str, Any], street: str) -> str:
        """Start the works.

        Args:
            street: the street.
        """
        if street != state["street"]:
            raise ToolError("no such street", "not_found")
        state["started_under"] = state["decision"]
        return "works started"

    def approved(self, decision: str) -> bool:
        return decision.lower().startswith("approved")

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        ok = state["started_under"] is not None and self.approved(state["started_under"])
        return all_or_nothing([Check(name="started_when_approved", passed=ok)])

    def controls(self, task: Task) -> list[Control]:
        street = task.task_data["street"]
        steps = [
            call("submit_notice", street=street, plan="A pedestrian diversion by the park."),
            call("start_works", street=street),
        ]
        return [
            Control(name="reference", expect="pass", script=[*steps, say("Started.")]),
            Control(name="noop_claim", expect="fail", script=[say("Started.")]),
        ]


class NegationBlind(Notices):
    """The plant: "approved" searched in "Not approved: ..."."""

    def approved(self, decision: str) -> bool:
        return "approved" in decision.lower()


def notice_tasks() -> list[Task]:
    streets = ("Kings Road", "Harbour Way", "Mill Lane", "Church Street")
    return tasks("notices", [(f"Renew the sewer on {s}.", {"street": s}) for s in streets])


async def test_a_refusal_in_words_ignored_pays_only_where_the_decision_is_misread() -> None:
    plant = await validate(NegationBlind(), notice_tasks())
    assert any("the tool said" in why for _, why in pays(plant)), pays(plant)
    sound = await validate(Notices(), notice_tasks())
    assert "search" not in failed(sound), pays(sound)


def test_a_sibling_step_of_the_same_kind_is_no_scope() -> None:
    lead = call("approve", change="C1", approver="lead")[0]
    cab = call("approve", change="C1", approver="cab")[0]
    deploy = call("deploy", change="C1")[0]
    assert scoped([lead, cab, deploy], unneeded=[1], needed=[0]) == set()
    sample_a, open_a = call("sample", beach="A")[0], call("open", beach="A")[0]
    sample_b, close_b = call("sample", beach="B")[0], call("close", beach="B")[0]
    assert scoped([sample_a, open_a, sample_b, close_b], unneeded=[2], needed=[0]) == {2}


def test_the_calibrations_the_corpus_twins_called_for() -> None:
    # a value the reply gives holds a digit: "book confocal" is prose
    assert labelled_values("Booked: book confocal, PIN 4480.", ["book confocal; PIN 4480"]) == [
        ("PIN", "4480")
    ]
    # a mark keeps an action from the policy only within five words of its name
    assert _near("bypass[_ ]interlock", "bypass_interlock(lift) is for rescue crews only")
    assert not _near(
        "flag", "A claim over its limit must not be approved: reject it, or send it back with flag"
    )
    # a deadline's date is a limit, not the option's name; a time of day names one
    slots = ["S1 | 06 Jun 2027 10:00 | van\nS2 | 07 Jun 2027 10:00 | van"]
    assert described_instead("S2", "S1", slots, "The wedding is on 07 Jun 2027.") is None
    sailings = ["S1 | departs 07:30 AM\nS4 | departs 07:30 PM"]
    assert described_instead("S4", "S1", sailings, "Book it on the 7:30 pm sailing.") is not None
    assert described_instead("S4", "S1", sailings, "Arrive by 7:30 pm.") is None


def test_a_call_the_tool_refused_took_no_effect() -> None:
    outputs = [
        SimpleNamespace(type="function_call_output", output="dispatched L-30"),
        SimpleNamespace(type="function_call_output", output="Error: no lot '74-L'"),
    ]
    result: Any = SimpleNamespace(response=SimpleNamespace(output=outputs))
    script = [call("dispatch", lot_id="L-30"), call("dispatch", lot_id="74-L"), say("ok")]
    assert refused_calls(script, result) == {(1, 0)}
