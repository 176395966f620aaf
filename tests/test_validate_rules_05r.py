"""Read off blind batch 05r (each a general rule, with the plant or twin it came from):

- atmcash's twin: more than a minimum the words state ("at least the number of notes asked
  for") is slack, not another answer, where honest play stands exactly at the minimum;
- bookshop: another tool that does the asked-for work and changes records honest play left
  alone, where the words keep the policy off them ("change no other book's record"), with
  the other tool's arguments read from the listing's record and the prompt;
- fridges: a letter grade the words set as a minimum ("energy label B or better");
- zookeeper: the days of the week are options a policy knows, and a run the words ask for
  ("consecutive days") is broken by a member moved off it;
- drawings: a failing control respelled (semicolons where it had commas, which the tool's
  description accepts) must still fail.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from openai.types.responses import Response
from test_validate_policy_moves import tasks
from test_validate_unseen import call, failed, say, validate

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym_stack.validation.respelled import spellings
from proofgym_stack.validation.search.calendar import sequence_options
from proofgym_stack.validation.search.evidence import collateral
from proofgym_stack.validation.search.grades import short_grade
from proofgym_stack.validation.search.other_calls import tool_swap_mutants
from proofgym_stack.validation.search.runs import broken_run
from proofgym_stack.validation.search.values import Pools
from resources_servers.base import Environment, ToolError, tool
from resources_servers.verifiers.compose import all_or_nothing

# -- pure rules --------------------------------------------------------------------------------


def test_a_list_respelled_only_with_separators_the_description_lists() -> None:
    both = "one or more addresses, separated by commas or semicolons"
    out = spellings("a@s.com, b@s.com, c@x.com", both)
    assert ("a@s.com; b@s.com; c@x.com", None) in out
    # reversed members: the same order in the original spelling must still fail
    assert ("c@x.com; b@s.com; a@s.com", "c@x.com, b@s.com, a@s.com") in out
    only_commas = spellings("a@s.com, b@s.com", "addresses, separated by commas")
    assert all(";" not in s for s, _ in only_commas)
    refused = spellings("a@s.com, b@s.com", "separated by commas; semicolons are not accepted")
    assert all(";" not in s for s, _ in refused)
    # an address is also tried in other case, any value padded, where a look shows the world
    assert ("A@S.COM", None) in spellings("a@S.com", "")
    assert spellings("ab-12", "") == [("  ab-12  ", None)]  # a code's case may name another
    assert spellings("ab-12", "", cased=False) == []


def test_the_days_of_the_week_are_options_written_as_the_value_is() -> None:
    assert sequence_options("Tuesday")[:2] == ["Monday", "Wednesday"]
    assert "Thu" in sequence_options("Tue") and "Tuesday" not in sequence_options("Tuesday")
    assert sequence_options("May")[:2] == ["January", "February"]  # a full name, not `Jan`
    # codes that spell a day or a month (`SAT`, `DEC`), and other words, are no calendar
    assert sequence_options("SAT") == [] and sequence_options("Tuesdays") == []
    assert sequence_options("crew_east") == []


def _member_moved(honest: list[Any], mine: list[Any]) -> Any:
    honest_script = [call("set_days_off", days=honest), say("Done.")]
    script = [call("set_days_off", days=mine), say("Done.")]
    return SimpleNamespace(
        mutant=SimpleNamespace(call_at=(0, 0), leaf=("days", 1), script=script),
        honest=SimpleNamespace(control=SimpleNamespace(script=honest_script)),
    )


def test_a_run_the_words_ask_for_broken_by_a_member_moved() -> None:
    words = "Two days off; the two days must be consecutive days within the same week."
    moved = _member_moved(["Monday", "Tuesday"], ["Monday", "Thursday"])
    assert "consecutive" in (broken_run(moved, words) or "")
    # still a run, or no run asked for, or not a known sequence: no rule broken
    assert broken_run(_member_moved(["Monday", "Tuesday"], ["Monday", "Sunday"]), words)
    assert broken_run(_member_moved(["Mon", "Tue"], ["Tue", "Wed"]), words) is None
    assert broken_run(moved, "Two days off, never on a day they must work.") is None
    # a run asked of something else ("consecutive nights" of a stay, not the days off)
    assert broken_run(moved, "Two days off; a stay of two consecutive nights.") is None
    assert broken_run(_member_moved(["a", "b"], ["a", "d"]), words) is None


def test_a_letter_grade_short_of_the_minimum_the_words_set() -> None:
    shown = ["FZ-1: energy label B, £390\nFZ-2: energy label D, £150\nFZ-3: energy label A, £480"]
    words = "Order a replacement: budget £400, energy label B or better."
    assert "label D" in (short_grade("FZ-1", "FZ-2", shown, words) or "")
    assert short_grade("FZ-1", "FZ-3", shown, words) is None  # better than the minimum
    # where the words say A is the least (or lowest) of something, which end is best is
    # the reader's call: no grade is judged
    assert short_grade("FZ-1", "FZ-2", shown, words + " A is the least efficient.") is None
    assert short_grade("FZ-1", "FZ-2", shown, "Order a fridge under £400.") is None


def test_another_tool_s_arguments_read_from_the_listing_record_and_the_prompt() -> None:
    shown = "978-1 | Middlemarch | shelf A2 | fine | £8.00\n978-2 | Emma | shelf C1 | good"
    pools = Pools()
    pools.shown = [shown]
    pools.tools = [
        {"name": "set_price", "parameters": {"properties": {"isbn": {}, "price_p": {}}}},
        {
            "name": "markdown_shelf",
            "parameters": {
                "properties": {"shelf": {"type": "string"}, "percent": {"type": "integer"}}
            },
        },
    ]
    script = [call("set_price", isbn="978-1", price_p=600), say("Done.")]
    swaps = [m.new for m in tool_swap_mutants(script, pools, "Mark Middlemarch down by 25%.")]
    assert {"shelf": "A2", "percent": 25} in swaps
    # a label is a whole word: `shelf` is not read out of `shelf_life 12`
    pools.shown = ["978-1 | Middlemarch | shelf_life 12 | fine"]
    swaps = [m.new for m in tool_swap_mutants(script, pools, "Mark Middlemarch down by 25%.")]
    assert {"shelf": "_life", "percent": 25} not in swaps


def _done(initial: dict[str, str], honest: dict[str, str], world: dict[str, str]) -> Any:
    swapped = [call("markdown_shelf", shelf="A2", percent=25), say("Done.")]
    return SimpleNamespace(
        base=SimpleNamespace(initial=initial),
        honest=SimpleNamespace(world=honest),
        record=SimpleNamespace(world=world),
        mutant=SimpleNamespace(op="tool_swap", call_at=(0, 0), script=swapped),
    )


def test_the_work_and_more_where_the_words_keep_the_policy_off_the_rest() -> None:
    initial = {".books.1.price": "800", ".books.2.price": "500"}
    honest = {".books.1.price": "600", ".books.2.price": "500"}
    both = {".books.1.price": "600", ".books.2.price": "375"}
    words = "Mark the book down. Change no other book's record."
    tools = ["set_price", "markdown_shelf", "restock"]
    lost = {".books.2.price"}
    assert "books.2" in (collateral(_done(initial, honest, both), lost, words, tools) or "")
    # no clause keeping the policy off the rest, or one about another tool's calls ("restock
    # these, and no others"), or honest play's own work not kept whole
    assert collateral(_done(initial, honest, both), lost, "Mark it down.", tools) is None
    restock = "Restock the books asked for, and no others."
    assert collateral(_done(initial, honest, both), lost, restock, tools) is None
    # a condition, not a rule: "if no other slot is free, waitlist"
    waitlist = "Mark the book down. If no other copy is in stock, reorder it."
    assert collateral(_done(initial, honest, both), lost, waitlist, tools) is None
    other = {".books.1.price": "700", ".books.2.price": "375"}
    assert collateral(_done(initial, honest, other), lost, words, tools) is None


# -- a top-up past a minimum the words state ---------------------------------------------------


class Fleet(Environment[dict[str, int]]):
    """Bring the target up to at least what is asked; every other machine keeps the minimum."""

    name = "cashdesk"

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, int]:
        return dict(task.task_data["levels"])

    def instructions(self, task: Task) -> str:
        return (
            "list_atms shows each machine's notes; move_notes moves notes between machines. "
            "Bring the target up to at least the notes asked for, and leave every other "
            "machine with at least 500 notes."
        )

    @tool(inline=True, observes=True)
    def list_atms(self, state: dict[str, int]) -> str:
        """Every machine and its notes."""
        return "\n".join(f"{k}: {n}" for k, n in state.items())

    @tool(inline=True)
    def move_notes(self, state: dict[str, int], from_atm: str, to_atm: str, notes: int) -> str:
        """Move notes from one machine to another.

        Args:
            from_atm: the machine the notes come from.
            to_atm: the machine the notes go to.
            notes: how many, 1 to 100000.
        """
        if from_atm not in state or to_atm not in state or from_atm == to_atm:
            raise ToolError("choose two machines")
        if not 1 <= notes <= min(100000, state[from_atm]):
            raise ToolError(f"{from_atm} holds only {state[from_atm]} notes")
        state[from_atm] -= notes
        state[to_atm] += notes
        return f"moved {notes}"

    def verify(self, state: dict[str, int], task: Task, response: Response) -> VerifyResult:
        d = task.task_data
        kept = all(n >= 500 for k, n in state.items() if k != d["target"])
        return all_or_nothing(
            [
                Check(name="enough", passed=state.get(d["target"], 0) >= d["need"]),
                Check(name="minimum_kept", passed=kept),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        d = task.task_data
        gap = d["need"] - d["levels"][d["target"]]
        move = call("move_notes", from_atm="LIBRARY", to_atm=d["target"], notes=gap)
        return [
            Control(
                name="reference", expect="pass", script=[call("list_atms"), move, say("Moved.")]
            ),
            Control(name="noop_claim", expect="fail", script=[say("Moved.")]),
            Control(
                name="violation_donor_emptied",
                expect="fail",
                script=[
                    call(
                        "move_notes",
                        from_atm="LIBRARY",
                        to_atm=d["target"],
                        notes=d["levels"]["LIBRARY"],
                    ),
                    say("Moved."),
                ],
            ),
        ]


def fleet_tasks() -> list[Task]:
    rows = []
    for n in range(4):
        need, has = 1600 + 450 * n, 300 + 10 * n
        # the donor keeps 100 past the minimum after honest play's move
        levels = {"LIBRARY": need - has + 600, "STATION": has, "MARKET": 900}
        rows.append((f"STATION needs {need} notes.", {"levels": levels, "target": "STATION"}))
        rows[-1][1]["need"] = need
    return tasks("cashdesk", rows)


async def test_more_than_a_stated_minimum_is_slack_not_another_answer() -> None:
    report = await validate(Fleet(), fleet_tasks())
    assert not failed(report), [v for v in report.verdicts if not v.passed]


# -- a failing control respelled ------------------------------------------------------------------

_SEPARATORS = re.compile(r"[,;]")


class Drawings(Environment[dict[str, Any]]):
    """Send a drawing to the team; a draft never leaves the studio."""

    name = "drawreg"

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        return {"outbox": [], "delivered": set()}

    def instructions(self, task: Task) -> str:
        return (
            "send_drawing emails the drawing. The team must receive it. A draft must not leave "
            "the studio: send it only to @studio.example addresses."
        )

    @tool(inline=True)
    def send_drawing(self, state: dict[str, Any], to: str) -> str:
        """Email the drawing.

        Args:
            to: one or more email addresses, separated by commas or semicolons.
        """
        addresses = [a.strip().lower() for a in _SEPARATORS.split(to) if a.strip()]
        if not addresses or not all(re.fullmatch(r"[^@\s]+@[^@\s]+", a) for a in addresses):
            raise ToolError("give valid email addresses")
        state["outbox"].append(to)
        state["delivered"].update(addresses)
        return f"sent to {len(addresses)} recipient(s)"

    def addresses(self, to: str) -> list[str]:
        return [a.strip().lower() for a in _SEPARATORS.split(to) if a.strip()]

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        team = task.task_data["team"]
        outside = [
            a
            for to in state["outbox"]
            for a in self.addresses(to)
            if not a.endswith("@studio.example")
        ]
        return all_or_nothing(
            [
                Check(name="team", passed=all(t in state["delivered"] for t in team)),
                Check(name="stayed_in_studio", passed=not outside),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        d = task.task_data
        return [
            Control(
                name="reference",
                expect="pass",
                script=[call("send_drawing", to=", ".join(d["team"])), say("Sent.")],
            ),
            Control(name="noop_claim", expect="fail", script=[say("Sent.")]),
            Control(
                name="violation_draft_to_client",
                expect="fail",
                script=[
                    call("send_drawing", to=", ".join([*d["team"], d["client"]])),
                    say("Sent."),
                ],
            ),
        ]


class SplitOnCommas(Drawings):
    """The planted slip: the rule splits the To line on commas, the tool on both."""

    def addresses(self, to: str) -> list[str]:
        return [a.strip().lower() for a in to.split(",") if a.strip()]


def drawing_tasks() -> list[Task]:
    rows = []
    for n in range(4):
        team = [f"ann{n}@studio.example", f"bo{n}@studio.example"]
        data = {"team": team, "client": f"client{n}@firm.example"}
        rows.append((f"Send drawing D-{n} to the team ({', '.join(team)}).", data))
    return tasks("drawreg", rows)


async def test_a_violation_respelled_with_the_other_separator_is_caught_only_on_the_plant() -> None:
    plant = await validate(SplitOnCommas(), drawing_tasks())
    assert "steps:violation_respelled" in failed(plant), json.dumps(
        [v.detail for v in plant.verdicts if not v.passed]
    )[:2000]
    twin = await validate(Drawings(), drawing_tasks())
    assert not failed(twin), [v for v in twin.verdicts if not v.passed]
