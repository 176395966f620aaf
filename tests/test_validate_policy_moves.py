"""Moves a policy makes that no control shows, each with the oracle that judges it: a reply
past the length the task caps (`stretch`), another task's well-formed truth in an argument
(`other_task`), everything put in the first of several places (`gather`), a value the task
asks for left out of the reply (`withhold`), and free text written in a record's own format
(`inject`). Each pays on a plant and is never accused on its sound twin."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from openai.types.responses import Response
from test_validate_unseen import call, failed, say, validate

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym.wire.responses import final_message
from proofgym_stack.validation.search.caps import length_caps, over_length
from proofgym_stack.validation.search.gather import gathered_mutants
from proofgym_stack.validation.search.injection import next_fields
from proofgym_stack.validation.search.mutants import call_mutants
from proofgym_stack.validation.search.values import Pools
from proofgym_stack.validation.search.withheld import asking_clause, labelled_values
from resources_servers.base import Environment, ToolError, tool
from resources_servers.verifiers.compose import all_or_nothing

NAMES = ["Ames", "Boyd", "Cole", "Diaz", "Ebert", "Ford"]


def tasks(env: str, rows: list[tuple[str, dict[str, Any]]]) -> list[Task]:
    return [
        Task(
            task_id=f"{env}-{i}",
            env=env,
            responses_create_params={"input": text},
            task_data=data,
        )
        for i, (text, data) in enumerate(rows)
    ]


def pays(report: Any) -> list[tuple[str, str]]:
    return [(f["what"], f["why"]) for f in report.findings if f["severity"] == "pays"]


# -- a reply past the length the task caps ---------------------------------------------------


class Catalogue(Environment[None]):
    """Write a lot's catalogue line: at most 8 words, naming the maker and the year."""

    name = "catalogue"

    def create_state(self, task: Task, workdir: Path | None) -> None:
        return None

    def instructions(self, task: Task) -> str:
        return "Write the lot's catalogue line in at most 8 words, with its maker and year."

    @tool(inline=True, observes=True)
    def get_lot(self, state: None, lot: str) -> str:
        """The lot's record.

        Args:
            lot: the lot number.
        """
        return "record: a long provenance note from an old family collection, kept dry"

    def words(self, text: str) -> int:
        return len(text.split())

    def verify(self, state: None, task: Task, response: Response) -> VerifyResult:
        text, data = final_message(response), task.task_data
        facts = data["maker"] in text and str(data["year"]) in text
        return all_or_nothing(
            [
                Check(name="facts", passed=facts),
                Check(name="short", passed=self.words(text) <= 8),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        d = task.task_data
        line = f"{d['maker']} walnut chair, {d['year']}."
        return [
            Control(name="reference", expect="pass", script=[call("get_lot", lot="7"), say(line)]),
            Control(name="noop_claim", expect="fail", script=[say("Done.")]),
        ]


class CountsSpacesOnly(Catalogue):
    """The plant: words split on single spaces, so a list one word per line is one word."""

    def words(self, text: str) -> int:
        return len(text.split(" "))


def catalogue_tasks() -> list[Task]:
    return tasks(
        "catalogue",
        [(f"Lot 7 by {n}.", {"maker": n, "year": 1800 + 7 * i}) for i, n in enumerate(NAMES[:4])],
    )


async def test_a_reply_past_the_stated_length_pays_only_where_words_are_miscounted() -> None:
    plant = await validate(CountsSpacesOnly(), catalogue_tasks())
    assert any("at most 8 words" in why for _, why in pays(plant)), pays(plant)
    sound = await validate(Catalogue(), catalogue_tasks())
    assert "search" not in failed(sound), pays(sound)


def test_the_lengths_the_words_cap() -> None:
    assert length_caps("in at most 15 words, naming the maker") == [
        (15, "word", "at most 15 words")
    ]
    assert length_caps("no more than 160 characters")[0][:2] == (160, "character")
    assert length_caps("at most 3 line items") == []  # an order's lines, not the reply's
    assert length_caps("at most 2 sessions a week") == []
    words = "Reply in at most 4 words."
    assert over_length("Ames, 1807.", "Ames, 1807.\nand\nmany\nmore\nwords", words) is not None
    assert over_length("Ames, 1807.", "Ames\n1807", words) is None  # a layout is no crossing
    assert over_length("one two three four five", "more " * 9, words) is None  # honest over it


# -- another task's truth, well formed ------------------------------------------------------


def check_digit_ok(code: str) -> bool:
    return len(code) == 6 and code[:5].isdigit() and int(code[5]) == sum(map(int, code[:5])) % 10


class Registry(Environment[dict[str, str]]):
    """Register the car's code from its logbook; the tool refuses codes whose check digit is
    wrong."""

    name = "registry"

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, str]:
        return {"logbook": task.task_data["code"]}

    @tool(inline=True, observes=True)
    def read_logbook(self, state: dict[str, str], ref: str) -> str:
        """The logbook on file.

        Args:
            ref: the customer's reference.
        """
        return f"code {state['logbook']}"

    @tool(inline=True)
    def register(self, state: dict[str, str], code: str) -> str:
        """Register the car.

        Args:
            code: the car's six-digit code (the last digit checks the others).
        """
        if not check_digit_ok(code.strip()):
            raise ToolError("check digit wrong", "bad_code")
        state["code"] = code.strip()
        return "registered"

    def code_ok(self, state: dict[str, str], task: Task) -> bool:
        return state.get("code") == task.task_data["code"]

    def verify(self, state: dict[str, str], task: Task, response: Response) -> VerifyResult:
        return all_or_nothing([Check(name="code", passed=self.code_ok(state, task))])

    def controls(self, task: Task) -> list[Control]:
        code = task.task_data["code"]
        return [
            Control(
                name="reference",
                expect="pass",
                script=[call("register", code=code), say("Registered.")],
            ),
            Control(name="noop_claim", expect="fail", script=[say("Registered.")]),
        ]


class ChecksValidityOnly(Registry):
    """The plant: any code whose check digit holds is taken for the car's."""

    def code_ok(self, state: dict[str, str], task: Task) -> bool:
        return check_digit_ok(state.get("code", ""))


def registry_tasks() -> list[Task]:
    rows = []
    for i, head in enumerate(("12345", "40213", "77001", "31415")):
        code = head + str(sum(map(int, head)) % 10)
        rows.append(
            (f"Register the car on file under ref R{i}. Its code is {code}.", {"code": code})
        )
    return tasks("registry", rows)


async def test_another_tasks_truth_in_an_argument_pays_only_where_validity_stands_for_it() -> None:
    plant = await validate(ChecksValidityOnly(), registry_tasks())
    assert any("register.code" in f["site"] for f in plant.findings if f["severity"] == "pays")
    sound = await validate(Registry(), registry_tasks())
    assert "search" not in failed(sound), pays(sound)


# -- everything in the first place -----------------------------------------------------------


class Rooms(Environment[dict[str, list[str]]]):
    """Book a party over two copies of a room, four players each at most."""

    name = "rooms"
    CAP = 3

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, list[str]]:
        return {}

    def instructions(self, task: Task) -> str:
        return f"Rooms A and B hold {self.CAP} players each. book(room, players) books a room."

    @tool(inline=True)
    def book(self, state: dict[str, list[str]], room: str, players: list[str]) -> str:
        """Book players into a room (booking it again replaces its list).

        Args:
            room: A or B.
            players: the players' names.
        """
        if room not in ("A", "B"):
            raise ToolError("no such room", "not_found")
        state[room] = [str(p) for p in players]
        return f"{room} booked for {len(players)}"

    def over(self, state: dict[str, list[str]]) -> list[str]:
        return [room for room, ps in state.items() if len(ps) > self.CAP]

    def verify(self, state: dict[str, list[str]], task: Task, response: Response) -> VerifyResult:
        booked = sorted(p for ps in state.values() for p in ps)
        over = self.over(state)
        return all_or_nothing(
            [
                Check(name="everyone_once", passed=booked == sorted(task.task_data["party"])),
                Check(name="caps", passed=not over),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        party = task.task_data["party"]
        half = len(party) // 2
        steps = [
            call("book", room="A", players=party[:half]),
            call("book", room="B", players=party[half:]),
        ]
        return [
            Control(name="reference", expect="pass", script=[*steps, say("Booked.")]),
            Control(name="noop_claim", expect="fail", script=[say("Booked.")]),
        ]


class OverWithoutReturn(Rooms):
    """The plant: the helper builds the rooms over their cap and never returns them."""

    def over(self, state: dict[str, list[str]]) -> list[str]:  # type: ignore[return]
        [room for room, ps in state.items() if len(ps) > self.CAP]


def rooms_tasks() -> list[Task]:
    rows = []
    for i in range(4):
        party = NAMES[i : i + 2] + NAMES[: 4 - (i % 2)][:4]
        party = list(dict.fromkeys(party))[:5]
        rows.append((f"Book this party: {', '.join(party)}.", {"party": party}))
    return tasks("rooms", rows)


async def test_everything_in_the_first_place_pays_only_where_no_cap_is_counted() -> None:
    plant = await validate(OverWithoutReturn(), rooms_tasks())
    assert any("as one" in what for what, _ in pays(plant)), pays(plant)
    sound = await validate(Rooms(), rooms_tasks())
    assert "search" not in failed(sound), pays(sound)


def test_gather_joins_calls_that_name_different_places_and_merge_the_same_place() -> None:
    script = [
        call("book", room="A", players=["x", "y"]),
        call("book", room="B", players=["z"]),
        say("ok"),
    ]
    ops = {m.op: m for m in [*call_mutants(script, Pools()), *gathered_mutants(script)]}
    assert "gather" in ops and "merge" not in ops
    gathered = [i for turn in ops["gather"].script for i in turn if i.get("name") == "book"]
    assert len(gathered) == 1 and '"x", "y", "z"' in gathered[0]["arguments"]
    same = [call("book", room="A", players=["x"]), call("book", room="A", players=["z"])]
    assert {m.op for m in call_mutants([*same, say("ok")], Pools())} >= {"merge"}
    assert gathered_mutants([*same, say("ok")]) == []


# -- a value the task asks for, left out -----------------------------------------------------


class LeftLuggage(Environment[tuple[int, str]]):
    """Give the traveller their bag's locker and its PIN."""

    name = "luggage"

    def create_state(self, task: Task, workdir: Path | None) -> tuple[int, str]:
        return (task.task_data["locker"], task.task_data["pin"])

    def instructions(self, task: Task) -> str:
        return "Reply to the traveller with the bag's locker number and its collection PIN."

    @tool(inline=True, observes=True)
    def find_bag(self, state: tuple[int, str], surname: str) -> str:
        """Find a bag by the depositor's surname.

        Args:
            surname: the depositor's surname.
        """
        return f"{surname}: locker {state[0]}, PIN {state[1]}"

    def quotes_pin(self, text: str, pin: str) -> bool:
        return re.search(rf"(?<!\d){pin}(?!\d)", text) is not None

    def verify(self, state: tuple[int, str], task: Task, response: Response) -> VerifyResult:
        text, d = final_message(response), task.task_data
        locker = re.search(rf"(?<!\d){d['locker']}(?!\d)", text) is not None
        return all_or_nothing(
            [
                Check(name="locker", passed=locker),
                Check(name="pin", passed=self.quotes_pin(text, d["pin"])),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        d = task.task_data
        reply = f"Your bag is in locker {d['locker']}; the collection PIN is {d['pin']}."
        look = call("find_bag", surname=d["surname"])
        return [
            Control(name="reference", expect="pass", script=[look, say(reply)]),
            Control(name="noop_claim", expect="fail", script=[say("Found it.")]),
        ]


class FindAsTruth(LeftLuggage):
    """The plant: `str.find` read as a truth value (-1, absent, is true)."""

    def quotes_pin(self, text: str, pin: str) -> bool:
        return bool(text.find(pin))


def luggage_tasks() -> list[Task]:
    rows = [
        (
            f"{n} lost the ticket for a bag.",
            {"surname": n, "locker": 11 + 17 * i, "pin": f"{4480 + 97 * i}"},
        )
        for i, n in enumerate(NAMES[:4])
    ]
    return tasks("luggage", rows)


async def test_a_value_the_task_asks_for_left_out_pays_only_where_it_is_not_read() -> None:
    plant = await validate(FindAsTruth(), luggage_tasks())
    assert any("leaves out the PIN" in why for _, why in pays(plant)), pays(plant)
    sound = await validate(LeftLuggage(), luggage_tasks())
    assert "search" not in failed(sound), pays(sound)


def test_the_values_a_reply_gives_and_the_words_that_ask_for_them() -> None:
    printed = ["Ames: locker 12, PIN 4480"]
    found = labelled_values("Locker 12; the PIN is 4480.", printed)
    assert ("PIN", "4480") in found and ("locker", "12") in found
    words = "Reply to the traveller with the bag's locker number and its collection PIN."
    assert asking_clause("PIN", words) is not None
    assert asking_clause("PIN", "The PIN is on the ticket.") is None  # nothing asks for it
    assert asking_clause("order", "Find the order's total and tell it.") is not None
    assert asking_clause("code", words) is None


# -- free text written in the record's own format -----------------------------------------------


class Inspections(Environment[dict[str, Any]]):
    """Inspect every piece (the tool logs `id|note|result`); close every piece that fails."""

    name = "inspections"

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        return {"log": [], "closed": set(), "depth": dict(task.task_data["depth"])}

    def instructions(self, task: Task) -> str:
        return "Inspect every piece with a note; close every piece whose inspection fails."

    @tool(inline=True)
    def inspect(self, state: dict[str, Any], piece: str, note: str) -> str:
        """Measure the surface under a piece and log it.

        Args:
            piece: the piece's id.
            note: the inspector's remark.
        """
        if piece not in state["depth"]:
            raise ToolError("no such piece", "not_found")
        result = "PASS" if state["depth"][piece] >= 200 else "FAIL"
        state["log"].append(f"{piece}|{note}|{result}")
        return f"{piece}: {result}"

    @tool(inline=True, observes=True)
    def read_log(self, state: dict[str, Any]) -> str:
        """The inspection log, one line per inspection: id|note|result."""
        return "\n".join(state["log"]) or "(empty)"

    @tool(inline=True)
    def close(self, state: dict[str, Any], piece: str) -> str:
        """Tape a piece off.

        Args:
            piece: the piece's id.
        """
        state["closed"].add(piece)
        return f"{piece} closed"

    def parse(self, line: str) -> tuple[str, str]:
        piece, rest = line.split("|", 1)
        return piece, rest.rsplit("|", 1)[1]

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        results = dict(self.parse(line) for line in state["log"])
        failing = {p for p, r in results.items() if r == "FAIL"}
        return all_or_nothing(
            [
                Check(name="all_inspected", passed=set(results) == set(state["depth"])),
                Check(name="failing_closed", passed=state["closed"] == failing),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        depth = task.task_data["depth"]
        steps = [call("inspect", piece=p, note="surface measured") for p in depth]
        steps += [call("close", piece=p) for p, d in depth.items() if d < 200]
        return [
            Control(name="reference", expect="pass", script=[*steps, say("Inspected.")]),
            Control(name="noop_claim", expect="fail", script=[say("Inspected.")]),
        ]


class SplitsEveryBar(Inspections):
    """The plant: a line split on every `|`, so a note holding one shifts the result."""

    def parse(self, line: str) -> tuple[str, str]:
        parts = line.split("|")
        return parts[0], parts[2]


def inspection_tasks() -> list[Task]:
    rows = []
    for i in range(4):
        depth = {f"P{i}{k}": (150 if k == i % 3 else 250) for k in range(3)}
        rows.append((f"Inspect pieces {', '.join(depth)}.", {"depth": depth}))
    return tasks("inspections", rows)


async def test_free_text_in_the_records_format_pays_only_where_the_record_is_split_on_it() -> None:
    plant = await validate(SplitsEveryBar(), inspection_tasks())
    assert any("record's own format" in why for _, why in pays(plant)), pays(plant)
    sound = await validate(Inspections(), inspection_tasks())
    assert "search" not in failed(sound), pays(sound)


def test_the_next_field_of_a_record() -> None:
    log = "P0|surface measured|FAIL\nP1|surface measured|PASS\nP2|ok|PASS"
    assert set(next_fields("surface measured", [log])) == {("|", "PASS"), ("|", "FAIL")}
    assert next_fields("absent", [log]) == []
