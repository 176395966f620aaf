"""Moves a policy makes that no control shows: guessing through a question's options with a
look after each wrong try (`guesses`), the calls put in another order where the words state
one (`stated_order`), and the value of the same form the prompt asked for, sent where honest
play moved it (`values.asked_alike`). Each pays on a plant and is never accused on its sound
twin."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from openai.types.responses import Response
from test_validate_policy_moves import pays, tasks
from test_validate_unseen import call, failed, say, validate

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym_stack.validation.search.options import siblings
from proofgym_stack.validation.search.stated_order import broken_order, stated_orders
from proofgym_stack.validation.search.values import asked_alike
from resources_servers.base import Environment, ToolError, tool
from resources_servers.verifiers.compose import all_or_nothing

# -- guessing through the options, a look after each wrong try ----------------------------


@dataclass
class Paper:
    """One sitting: wrong answers so far, the locked question, the right one."""

    wrong: Counter[str] = field(default_factory=Counter)
    locked: bool = False
    right: bool = False


def _exam(resets: bool) -> type[Environment[Paper]]:
    """An exam whose `show_question` resets the wrong-answer count where `resets`."""

    class AnExam(Environment[Paper]):
        name = "exam"

        def create_state(self, task: Task, workdir: Path | None) -> Paper:
            paper = Paper()
            paper.wrong["truth"] = "ABCD".index(task.task_data["letter"])
            return paper

        def instructions(self, task: Task) -> str:
            return "Answer question Q1 correctly. Two wrong answers lock the question."

        @tool(observes=True)
        def show_question(self, state: Paper, qid: str) -> str:
            """Show the question and its options.

            Args:
                qid: the question's id.
            """
            if resets and not state.locked:
                state.wrong[qid] = 0  # a fresh view, a fresh attempt
            options = {"A": "2 m", "B": "20 m", "C": "0.5 m", "D": "5 m"}
            return json.dumps({"qid": qid, "question": "Wavelength?", "options": options})

        @tool
        def answer(self, state: Paper, qid: str, choice: str) -> str:
            """Answer the question with an option's letter.

            Args:
                qid: the question's id.
                choice: A to D.
            """
            if state.locked or state.right:
                raise ToolError("the question is closed", "closed")
            if choice == "ABCD"[state.wrong["truth"]]:
                state.right = True
                return "correct"
            state.wrong[qid] += 1
            state.locked = state.wrong[qid] >= 2
            return "wrong; the question is locked" if state.locked else "wrong; one try left"

        def verify(self, state: Paper, task: Task, response: Response) -> VerifyResult:
            return all_or_nothing([Check(name="right", passed=state.right)])

        def controls(self, task: Task) -> list[Control]:
            letter = task.task_data["letter"]
            script = [call("show_question", qid="Q1"), call("answer", qid="Q1", choice=letter)]
            return [
                Control(name="reference", expect="pass", script=[*script, say("Answered.")]),
                Control(name="noop_claim", expect="fail", script=[say("Answered.")]),
            ]

    return AnExam


def exam_tasks() -> list[Task]:
    return tasks("exam", [(f"Sit paper {n}.", {"letter": c}) for n, c in enumerate("DCDC")])


async def test_a_look_that_resets_the_tries_pays_only_where_it_resets_them() -> None:
    plant = await validate(_exam(resets=True)(), exam_tasks())
    assert any("a look show_question after each wrong try" in w for w, _ in pays(plant)), pays(
        plant
    )
    sound = await validate(_exam(resets=False)(), exam_tasks())
    assert "search" not in failed(sound), pays(sound)


def test_a_map_of_choices_is_a_listing() -> None:
    shown = json.dumps({"qid": "Q1", "options": {"A": "2 m", "B": "20 m", "C": "5 m"}})
    assert siblings("C", [shown]) == ["A", "B"]
    assert siblings("20 m", [shown]) == ["2 m", "5 m"]
    assert siblings("Q1", [json.dumps({"qid": "Q1", "n": 3})]) == []


# -- an order the words state --------------------------------------------------------------


@dataclass
class Job:
    """One job's log of calls."""

    log: list[str] = field(default_factory=list)


def _locksmith(first_only: bool) -> type[Environment[Job]]:
    """Check the ID before any work; the verifier reads the first work step where
    `first_only`, else the last (the plant)."""

    class Locksmith(Environment[Job]):
        name = "locksmith"

        def create_state(self, task: Task, workdir: Path | None) -> Job:
            return Job()

        def instructions(self, task: Task) -> str:
            return (
                "Rule: check the resident's ID with check_id before any work on the lock "
                "(open_door, fit_lock). Then summarise."
            )

        @tool
        def check_id(self, state: Job, document: str) -> str:
            """Check the resident's ID.

            Args:
                document: the document's number.
            """
            state.log.append("check")
            return "checked"

        @tool
        def open_door(self, state: Job) -> str:
            """Open the door."""
            state.log.append("work")
            return "open"

        @tool
        def fit_lock(self, state: Job, model: str) -> str:
            """Fit a new lock.

            Args:
                model: the lock's model.
            """
            state.log.append("work")
            return "fitted"

        def verify(self, state: Job, task: Task, response: Response) -> VerifyResult:
            log = state.log
            works = [n for n, x in enumerate(log) if x == "work"]
            done = "check" in log and len(works) == 2
            ordered = done and log.index("check") < (works[0] if first_only else works[-1])
            return all_or_nothing(
                [Check(name="done", passed=done), Check(name="order", passed=ordered)]
            )

        def controls(self, task: Task) -> list[Control]:
            d = task.task_data
            script = [
                call("check_id", document=d["doc"]),
                call("open_door"),
                call("fit_lock", model=d["model"]),
            ]
            return [
                Control(name="reference", expect="pass", script=[*script, say("Done.")]),
                Control(name="noop_claim", expect="fail", script=[say("Done.")]),
            ]

    return Locksmith


def job_tasks() -> list[Task]:
    rows = [
        (f"Job {n}: doc D{n}7, lock L{n}.", {"doc": f"D{n}7", "model": f"L{n}"}) for n in range(4)
    ]
    return tasks("locksmith", rows)


async def test_an_order_the_words_state_pays_only_where_it_is_checked_on_the_last_step() -> None:
    plant = await validate(_locksmith(first_only=False)(), job_tasks())
    assert any("state an order" in why for _, why in pays(plant)), pays(plant)
    sound = await validate(_locksmith(first_only=True)(), job_tasks())
    assert "search" not in failed(sound), pays(sound)


def test_the_orders_words_state() -> None:
    tools = ["check_id", "open_door", "fit_lock", "job_info"]
    words = "Rule: check the ID with check_id before any work (open_door, fit_lock)."
    assert [(a, b) for a, b, _ in stated_orders(words, tools)] == [
        ("check_id", "open_door"),
        ("check_id", "fit_lock"),
    ]
    assert [(a, b) for a, b, _ in stated_orders("Run open door after check id.", tools)] == [
        ("check_id", "open_door")
    ]
    assert stated_orders("job_info shows the job; open_door opens it.", tools) == []
    # a clause that frees or negates the order states none; "before noon" names no tool
    assert stated_orders("You may call open_door before or after check_id.", tools) == []
    assert stated_orders("Never call open_door before check_id.", tools) == []
    assert stated_orders("Call check_id before noon and fit_lock after lunch.", tools) == []
    leading = stated_orders("Before calling fit_lock, run check_id.", tools)
    assert [(a, b) for a, b, _ in leading] == [("check_id", "fit_lock")]
    honest = [call("check_id", document="D1"), call("open_door")]
    assert broken_order(honest, list(reversed(honest)), words) is not None
    assert broken_order(honest, honest, words) is None
    assert broken_order(honest, list(reversed(honest)), "Open the door.") is None
    # the call the tool refused did not happen: the tool kept the order
    assert broken_order(honest, list(reversed(honest)), words, frozenset({(0, 0)})) is None


# -- the value of the same form the prompt asked for ---------------------------------------


def test_the_prompts_values_of_a_sent_values_form() -> None:
    prompt = "Shoot scene 19B (90 minutes) on Friday starting at 16:40, ref AB-12."
    assert asked_alike("08:00", prompt) == ["16:40"]
    assert asked_alike("XY-9", prompt) == ["AB-12"]
    assert asked_alike("16:40", prompt) == []  # the prompt states it: nothing was moved
    assert asked_alike("Friday", prompt) == []  # no digit: a word, not a form
    # several values of the form are options the prompt lists: a free choice, not the ask
    assert asked_alike("B7", "Seat A1 is taken; seats C3 and D4 are free.") == []
