"""A bound the words state, seen broken by a look (`search/monitored.py`), and the eager round
that reaches it (`search/edges.py`): read off blind batch 05o's offgrid, a "never below at any
hour" limit checked on the day's last level only. The parsing and the comparison are tested on
their smallest inputs; the whole search on a plant that must be caught and a sound twin."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from openai.types.responses import Response
from test_validate_policy_moves import pays, tasks
from test_validate_unseen import call, failed, say, validate

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym_stack.validation.search.edges import edge_mutants
from proofgym_stack.validation.search.monitored import (
    Bound,
    broken,
    named_with,
    stated_bounds,
    with_looks,
)
from resources_servers.base import Environment, ToolError, tool
from resources_servers.verifiers.compose import all_or_nothing


def test_the_bounds_the_words_state() -> None:
    (low,) = stated_bounds("The battery starts at 2000 Wh and must never drop below 900 Wh.")
    assert (low.side, low.number) == ("min", 900.0)
    (high,) = stated_bounds("The tank must not exceed 5,000 litres at any time.")
    assert (high.side, high.number) == ("max", 5000.0)
    (stay,) = stated_bounds("Keep the pH: it must stay above 7.2 all day.")
    assert (stay.side, stay.number) == ("min", 7.2)
    # a bound that holds only at some moments, or on a condition, is no invariant of the path
    assert stated_bounds("From 17:00 the battery must never drop below 400 Wh.") == []
    assert stated_bounds("By 18:00 the battery must not be below 400 Wh.") == []
    # "no" inside a word is no negation
    assert stated_bounds("Find a casino under 500 m away.") == []
    # a count or a goal is no bound kept along the way
    assert stated_bounds("Book at least 3 rooms for under 200 each.") == []
    assert stated_bounds("Schedule every load between 6:00 and 9:00.") == []


def test_a_bound_is_broken_only_where_the_actions_move_it_and_honest_play_keeps_it() -> None:
    bound = Bound("min", 900.0, "never below 900 Wh")
    untouched = {("look", "level", "*"): [2000.0, 2100.0], ("look", "solar", "*"): [0.0, 400.0]}
    honest = {("look", "level", "*"): [1500.0, 1200.0], ("look", "solar", "*"): [0.0, 400.0]}
    dipped = {("look", "level", "*"): [700.0, 1200.0], ("look", "solar", "*"): [0.0, 400.0]}
    assert broken(bound, untouched, honest, dipped) == (("look", "level", "*"), 700.0)
    assert broken(bound, untouched, honest, honest) is None
    # a number the actions never move (the solar forecast) says nothing of the path
    assert broken(bound, honest, honest, dipped) is None
    # a number honest play itself keeps below the bound is another quantity
    low = {("look", "level", "*"): [800.0, 1200.0]}
    assert broken(bound, untouched, low, dipped) is None


def _hours(script: list[Any]) -> list[int]:
    return [json.loads(i["arguments"])["hour"] for t in script for i in t if "arguments" in i]


def test_the_series_is_tied_to_the_bound_s_quantity_by_the_words() -> None:
    bound = Bound("min", 900.0, "The battery starts at 2000 Wh and must never drop below 900 Wh.")
    words = "plan shows the loads, the solar spilled and the battery level hour by hour"
    assert named_with(bound, ("plan", "level_by_hour", "*"), words)
    assert named_with(bound, ("plan", "battery_wh", "*"), "")
    # another quantity the same look prints beside it
    assert not named_with(bound, ("plan", "solar_spilled_wh", "*"), words)


def test_every_call_moves_to_the_edge_its_thing_s_line_states() -> None:
    prompt = "Loads:\n- pump: 400 Wh, between 9:00 and 16:00\n- kiln: 900 Wh, from 8:00 to 19:00"
    honest = [call("run", load="pump", hour=14), call("run", load="kiln", hour=12), say("ok")]
    below, above = edge_mutants(honest, prompt)
    assert (_hours(below.script), _hours(above.script)) == ([9, 8], [16, 19])
    # the kiln at its edge already: one call moved above is the argument mutants' work
    at_edge = [call("run", load="pump", hour=14), call("run", load="kiln", hour=19), say("ok")]
    assert [_hours(m.script) for m in edge_mutants(at_edge, prompt)] == [[9, 8]]
    assert edge_mutants(honest, "Run the pump and the kiln today.") == []
    assert edge_mutants(honest[1:], prompt) == []  # one call: no round


def test_the_looks_go_before_the_final_message() -> None:
    script = [call("run", load="pump", hour=9), say("done")]
    out = with_looks(script, ["plan"])
    assert [i.get("name") or i.get("content") for turn in out for i in turn] == [
        "run",
        "plan",
        "done",
    ]


# -- a plant caught, its twin not accused -----------------------------------------------------

START, RESERVE = 1000, 400


class Day:
    """One session: the hour each load runs."""

    def __init__(self, task: Task) -> None:
        self.task = task
        self.plan: dict[str, int] = {}


def levels(task: Task, plan: dict[str, int]) -> list[int]:
    """The battery level after each hour 8..18: the hour's solar in, its loads out."""
    d = task.task_data
    level, out = START, []
    for hour in range(8, 19):
        level += 150 if hour >= 12 else 0
        level -= sum(w for name, w in d["loads"].items() if plan.get(name) == hour)
        out.append(level)
    return out


class Cabin(Environment[Day]):
    """Run every load in its window; the battery never below the reserve."""

    name = "cabin"

    def create_state(self, task: Task, workdir: Path | None) -> Day:
        return Day(task)

    def instructions(self, task: Task) -> str:
        return "run(load, hour) schedules a load; plan shows the battery level hour by hour."

    @tool(inline=True, observes=True)
    def plan(self, state: Day) -> str:
        """Show the plan and the battery level at the end of each hour."""
        lv = dict(zip(range(8, 19), levels(state.task, state.plan), strict=True))
        return json.dumps({"plan": state.plan, "level_by_hour": lv})

    @tool(inline=True)
    def run(self, state: Day, load: str, hour: int) -> str:
        """Schedule a load.

        Args:
            load: the load's name.
            hour: the hour, inside the load's window.
        """
        lo, hi = state.task.task_data["windows"].get(load, (99, 0))
        if not lo <= hour <= hi:
            raise ToolError(f"{load} runs between {lo}:00 and {hi}:00")
        state.plan[load] = hour
        return f"{load} at {hour}:00"

    def low(self, path: list[int]) -> int:
        return min(path)

    def verify(self, state: Day, task: Task, response: Response) -> VerifyResult:
        all_run = set(state.plan) == set(task.task_data["loads"])
        kept = self.low(levels(task, state.plan)) >= RESERVE
        return all_or_nothing(
            [Check(name="all_run", passed=all_run), Check(name="reserve", passed=kept)]
        )

    def controls(self, task: Task) -> list[Control]:
        d = task.task_data
        late = [call("run", load=n, hour=d["windows"][n][1]) for n in d["loads"]]
        done = say("Done: every load is scheduled.")
        return [
            Control(name="reference", expect="pass", script=[*late, done]),
            Control(name="noop_claim", expect="fail", script=[done]),
            Control(name="violation_one_left", expect="fail", script=[*late[:-1], done]),
        ]


class LastHourOnly(Cabin):
    """The planted slip: the reserve checked on the day's last level only."""

    def low(self, path: list[int]) -> int:
        return path[-1]


def cabin_tasks() -> list[Task]:
    rows: list[tuple[str, dict[str, Any]]] = []
    for k in range(4):
        # each task its own loads: one task's plan is no other's
        pump, kiln, washer = f"pump{k}", f"kiln{k}", f"washer{k}"
        loads = {pump: 300 + 10 * k, kiln: 350, washer: 250 - 10 * k}
        windows = {pump: (8, 15 + k % 2), kiln: (9, 17), washer: (8, 18)}
        lines = "\n".join(
            f"- {n}: {w} Wh, between {windows[n][0]}:00 and {windows[n][1]}:00"
            for n, w in loads.items()
        )
        text = (
            f"Plan the day. The battery starts at {START} Wh and must never drop below "
            f"{RESERVE} Wh. Loads:\n{lines}"
        )
        rows.append((text, {"loads": loads, "windows": windows}))
    return tasks("cabin", rows)


async def test_a_bound_kept_at_the_end_only_is_caught_on_the_plant_not_the_twin() -> None:
    for task in cabin_tasks():  # every load early dips under the reserve, late never does
        early = {n: w[0] for n, w in task.task_data["windows"].items()}
        late = {n: w[1] for n, w in task.task_data["windows"].items()}
        assert min(levels(task, early)) < RESERVE <= min(levels(task, late))
        assert levels(task, early)[-1] >= RESERVE
    plant = await validate(LastHourOnly(), cabin_tasks())
    seen = [why for _, why in pays(plant) if "the verifier does not read the path" in why]
    assert seen and "level_by_hour" in seen[0], pays(plant)
    minimal = [f["paste"] for f in plant.findings if "read the path" in f["why"]]
    assert minimal and "plan" in minimal[0]  # the look that shows the dip is kept
    twin = await validate(Cabin(), cabin_tasks())
    assert not failed(twin), [v for v in twin.verdicts if not v.passed]
