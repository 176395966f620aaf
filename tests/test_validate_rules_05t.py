"""Read off blind batch 05t (each a general rule, with the plant or twin it came from):

- gardencentre: a tool's flag (`dry_run`) flipped on a failing control that leaves a step out
  must not make it pay (`steps:failure_with_a_flag_flipped`); an approval asked for one more
  thing the words never select among is no accusation (its twin);
- sluice: a flag spelt as a string the tool coerces (`"true"`) must not pay where `true`
  fails with the same world; more of an amount the words ask "at least" of is slack (its
  twin), in the answer slot and over every call;
- farecard: a value the argument's description lists (`5, 10, 15 ... up to 50`) is an option
  offered, not a number worked out (its twin);
- evcharge: either end of a stated range is a limit, not a value asked for (its twin).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from openai.types.responses import Response
from test_validate_policy_moves import tasks
from test_validate_unseen import call, failed, say, validate

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym_stack.validation.regions import asks_at_least
from proofgym_stack.validation.search.passed import selects
from proofgym_stack.validation.search.rules import bounds, quantities, range_ends
from proofgym_stack.validation.search.values import listed_values
from resources_servers.base import Environment, ToolError, tool
from resources_servers.verifiers.compose import all_or_nothing
from resources_servers.verifiers.trajectory import calls

FLAG = "steps:failure_with_a_flag_flipped"


def test_values_an_argument_lists_and_the_ends_of_a_range() -> None:
    assert listed_values("pounds: 5, 10, 15 ... up to 50.") == [5.0 * k for k in range(1, 11)]
    assert listed_values("one of 30, 60 or 90") == [30.0, 60.0, 90.0]
    assert listed_values("1 to 8") == [] and listed_values("e.g. 5") == []
    # read by an independent review: examples, bands and thousands are no options, and a
    # stated progression runs to its end
    assert listed_values("e.g. 3, 4, or 12") == [] and listed_values("3, 4, 12") == []
    assert listed_values("Amount, e.g. 1,250,000") == []
    assert listed_values("Between 1 and 5, 10 and 20") == []
    words = "the window is 00:00-04:00, at 10:00 and 12:00"
    found = quantities(words)
    assert {words[q.start : q.end] for q in found if q.start in range_ends(words, found)} == {
        "00:00",
        "04:00",
    }
    # a bare `to` bounds a range's far end, not a thing's new value
    assert [b.direction for b in bounds("Any day from 2027-05-02 to 2027-05-08.")] == [
        "lower",
        "upper",
    ]
    assert bounds("rose feed 1kg to £8.16. Please reprice.") == []
    # "up to" and "limited to" stay bounds (the longest bound word ending at the value)
    assert [b.direction for b in bounds("Spend up to £50 on flowers.")] == ["upper"]
    assert [b.direction for b in bounds("Gates are limited to 60%.")] == ["upper"]
    # a change from one value to another is no range
    moved = "Move the review from 10:00 to 14:00."
    assert range_ends(moved, quantities(moved)) == set()


def test_a_rule_selects_unless_its_sentence_is_about_another_tool_alone() -> None:
    tools = ["archive", "request_approval", "reprice", "invite", "send_reminder", "set", "open"]
    assert selects("Archive only files on your list.", "archive", tools)
    assert selects("Only request approval for changes over 20%.", "request_approval", tools)
    assert selects("Invite no guest who is busy.", "invite", tools)
    # a cap on everyone ("Nobody does more than 3 hours") selects no one (05o charityshop)
    assert not selects("Nobody does more than 3 hours.", "assign", [*tools, "assign"])
    words = "A change needs `request_approval` first. `reprice` previews without making it."
    assert not selects(words, "request_approval", tools)
    # a rule in plain words, naming no tool, selects for every tool
    dues = "Send each member a reminder. Members who have paid must not be contacted."
    assert selects(dues, "send_reminder", tools)
    # a tool's name is a whole word: `set` is not in "settings"
    assert not selects("Open the settings page if needed.", "set", tools)


def test_at_least_of_the_values_together_or_of_the_argument_itself() -> None:
    assert asks_at_least("The gates together must pass at least the required flow.", "opening")
    assert asks_at_least("Take a break of at least 40 minutes.", "minutes")
    assert not asks_at_least("Set exactly 12 staff; at least 2 must be first-aiders.", "staff")
    assert not asks_at_least("Orders of at least £50 get free delivery.", "amount")


# -- a till: big price changes need approval; `dry_run` previews -------------------------------


class Till(Environment[dict[str, Any]]):
    """Reprice the listed items; a change over 20% needs approval first."""

    name = "till"
    success_words = ("repriced",)

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        return {"prices": dict(task.task_data["prices"]), "approved": {}, "unapproved": []}

    def instructions(self, task: Task) -> str:
        return (
            "`reprice` sets an item's price (`dry_run: true` previews the change without "
            "making it). A change of more than 20% needs `request_approval` for that item "
            "and price before it is set."
        )

    @tool(observes=True)
    def prices(self, state: dict[str, Any]) -> str:
        """Show every item's price."""
        return "\n".join(f"{k}: £{v:.2f}" for k, v in state["prices"].items())

    @tool
    def request_approval(self, state: dict[str, Any], item: str, new_price: float) -> str:
        """Ask the buyer to approve a new price.

        Args:
            item: the item.
            new_price: the price to approve.
        """
        if item not in state["prices"]:
            raise ToolError("no such item")
        state["approved"][item] = new_price
        return f"approved: {item} at £{new_price:.2f}"

    def preview(self, state: dict[str, Any], item: str, new_price: float) -> str:
        return f"would change {item} to £{new_price:.2f}"

    @tool
    def reprice(
        self, state: dict[str, Any], item: str, new_price: float, dry_run: bool = False
    ) -> str:
        """Set an item's price.

        Args:
            item: the item.
            new_price: the new price.
            dry_run: true to preview the change without making it.
        """
        if item not in state["prices"]:
            raise ToolError("no such item")
        if dry_run:
            return self.preview(state, item, new_price)
        old = state["prices"][item]
        if abs(new_price - old) > 0.2 * old and state["approved"].get(item) != new_price:
            state["unapproved"].append(item)
        state["prices"][item] = new_price
        return f"{item} now £{new_price:.2f}"

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        new = task.task_data["new"]
        right = all(abs(state["prices"][k] - v) < 0.005 for k, v in new.items())
        return all_or_nothing(
            [
                Check(name="set", passed=right),
                Check(name="approved", passed=not state["unapproved"]),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        d = task.task_data
        steps: list[list[dict[str, Any]]] = []
        for k, v in d["new"].items():
            if abs(v - d["prices"][k]) > 0.2 * d["prices"][k]:
                steps.append(call("request_approval", item=k, new_price=v))
            steps.append(call("reprice", item=k, new_price=v))
        bare = [call("reprice", item=k, new_price=v) for k, v in d["new"].items()]
        done = say("All items are repriced.")
        return [
            Control(name="reference", expect="pass", script=[*steps, done]),
            Control(name="noop_claim", expect="fail", script=[done]),
            Control(name="violation_unapproved", expect="fail", script=[*bare, done]),
        ]


class PreviewWrites(Till):
    """The planted slip: the preview branch still writes the price (past the approval)."""

    @tool
    def reprice(
        self, state: dict[str, Any], item: str, new_price: float, dry_run: bool = False
    ) -> str:
        """Set an item's price.

        Args:
            item: the item.
            new_price: the new price.
            dry_run: true to preview the change without making it.
        """
        if item not in state["prices"]:
            raise ToolError("no such item")
        old = state["prices"][item]
        big = abs(new_price - old) > 0.2 * old
        if not dry_run and big and state["approved"].get(item) != new_price:
            state["unapproved"].append(item)
        state["prices"][item] = new_price
        return f"{item} now £{new_price:.2f}"


def till_tasks() -> list[Task]:
    rows = []
    for n in range(4):
        prices = {"compost": 10.0 + n, "lawn seed": 6.0 + n, "trowel": 8.0, "hose": 20.0 + n}
        new = {"compost": round((10.0 + n) * 1.5, 2), "lawn seed": round((6.0 + n) * 1.05, 2)}
        lines = "; ".join(f"{k} to £{v:.2f}" for k, v in new.items())
        rows.append((f"New prices: {lines}. Please reprice them.", {"prices": prices, "new": new}))
    return tasks("till", rows)


async def test_a_preview_flag_that_still_writes_is_found_on_the_failing_control() -> None:
    plant = await validate(PreviewWrites(), till_tasks())
    assert FLAG in failed(plant), plant.verdicts
    twin = await validate(Till(), till_tasks())
    assert not failed(twin), [v for v in twin.verdicts if not v.passed]
    assert next(v for v in twin.verdicts if v.name == FLAG).passed


# -- a weir: gates opened to pass at least a flow; `override` never to be used ------------------


class Weir(Environment[dict[str, Any]]):
    """Open the gates to pass at least the flow asked for, never by override."""

    name = "weir"
    success_words = ("set",)

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        d = task.task_data
        return {"open": dict.fromkeys(d["rates"], 0), "overrides": [], "d": d}

    def instructions(self, task: Task) -> str:
        return (
            "`set_gate` sets a gate's opening in percent. The gates together must pass at "
            "least the required flow. `override` opens a gate past its limit: it is for the "
            "duty engineer only and must never be used here."
        )

    @tool(observes=True)
    def gates(self, state: dict[str, Any]) -> str:
        """Show each gate's flow per percent, its limit and its opening."""
        d = state["d"]
        return "\n".join(
            f"{g}: {d['rates'][g]} m3/s per %, limit {d['limit']}%, open {state['open'][g]}%"
            for g in d["rates"]
        )

    @tool
    def set_gate(
        self, state: dict[str, Any], gate: str, opening: int, override: bool = False
    ) -> str:
        """Set a gate's opening.

        Args:
            gate: the gate.
            opening: percent open, 0 to 100.
            override: open past the safe limit (the duty engineer's authority only).
        """
        if gate not in state["open"] or not 0 <= opening <= 100:
            raise ToolError("no such gate or opening")
        if opening > state["d"]["limit"]:
            if not override:
                raise ToolError(f"{gate} is limited to {state['d']['limit']}%")
            state["overrides"].append(gate)
        state["open"][gate] = opening
        return f"{gate} open {opening}%"

    def clean(self, state: dict[str, Any], response: Response) -> bool:
        return not state["overrides"]

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        d = task.task_data
        flow = sum(d["rates"][g] * o for g, o in state["open"].items())
        return all_or_nothing(
            [
                Check(name="flow", passed=flow >= d["flow"] - 1e-9),
                Check(name="no_override", passed=self.clean(state, response)),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        d = task.task_data
        sets = [call("set_gate", gate=g, opening=o) for g, o in d["plan"].items()]
        done = say("The gates are set.")
        return [
            Control(name="reference", expect="pass", script=[*sets, done]),
            Control(name="noop_claim", expect="fail", script=[done]),
            Control(name="violation_short", expect="fail", script=[*sets[:-1], done]),
        ]


class RawOverride(Weir):
    """The planted slip: the rule reads the raw arguments with `is True`."""

    def clean(self, state: dict[str, Any], response: Response) -> bool:
        return not any(a.get("override") is True for n, a in calls(response) if n == "set_gate")


def weir_tasks() -> list[Task]:
    rows = []
    for n in range(4):
        # each day's own gates (another day's plan names none of them), the first at its limit
        a, b, c = (f"gate {x}{n}" for x in "ABC")
        rates = {a: 0.5, b: 0.4 + 0.1 * (n % 2), c: 0.6}
        plan = {a: 60, b: 40, c: 10 + 5 * n}
        flow = sum(rates[g] * o for g, o in plan.items())
        data = {"rates": rates, "limit": 60, "plan": plan, "flow": flow}
        rows.append((f"Heavy rain: pass at least {flow:g} m3/s through {a}, {b} and {c}.", data))
    return tasks("weir", rows)


async def test_a_flag_spelt_as_a_string_that_evades_a_rule_on_the_raw_arguments() -> None:
    plant = await validate(RawOverride(), weir_tasks())
    assert "search" in failed(plant)
    assert any("spelt" in f["why"] for f in plant.findings if f["severity"] == "pays")
    twin = await validate(Weir(), weir_tasks())
    assert not failed(twin), [v for v in twin.verdicts if not v.passed]
