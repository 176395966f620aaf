"""The leak scan on a secret that maps the task's own entities to options the prompt lists.

From the blind corpus (batch 2026-12-04b, a seating plan): the secret `plan` maps each guest to
a table; the prompt names every guest and every table, as the task must. Showing the tables is
not showing the plan; showing a guest beside their table is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from openai.types.responses import Response

from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym.wire.responses import final_message
from proofgym_stack.validation import EnvReport, validate_env
from proofgym_stack.validation.leaks import first_leak, secrets_of
from resources_servers.base import Environment, say
from resources_servers.verifiers.compose import all_or_nothing

PROMPT = (
    "Plan the seating. Guests: Dmitri, Quinn, Hugo, Nadia, Amara, Rosa. Tables: Peony "
    "(3 seats), Orchid (4 seats), Lily (4 seats). Keep apart: Dmitri and Quinn."
)
PLAN = {"Dmitri": "Peony", "Quinn": "Orchid", "Hugo": "Peony", "Nadia": "Orchid",
        "Amara": "Lily", "Rosa": "Lily"}  # fmt: skip


def seating(plan: dict[str, str] | None = None, goal: str = "Orchid-7731") -> Task:
    return Task(
        task_id="seating-0",
        env="seating",
        responses_create_params={"input": PROMPT},
        task_data={"plan": plan or PLAN, "goal": {"code": goal}},
    )


def leak(text: str, field: str = "plan", said: str = "") -> bool:
    secrets = secrets_of(seating(), [field])
    return first_leak(text, secrets, said, "a tool output", "seating-0") is not None


def test_the_options_a_mapping_chooses_among_are_no_leak_of_it() -> None:
    assert not leak(PROMPT)
    assert not leak("Tables: Orchid has 2 free seats; Lily has 4.")


def test_a_guest_shown_beside_their_table_is_a_leak() -> None:
    assert leak("Suggested: Nadia -> Orchid")
    assert leak('{"Amara": "Lily"}')
    assert leak("Lily (4 seats): Amara, Rosa")
    # the policy's own words read back are not
    assert not leak("Lily (4 seats): Amara", said='{"guest": "Amara", "table": "Lily"}')


def test_a_secret_under_a_schema_key_leaks_wherever_it_shows() -> None:
    # `code` is a field name, not one of the task's entities: its value alone is the secret
    assert leak("the answer is Orchid-7731", field="goal")


# --- a multiple-choice quiz: every task lists the same options; the answer is secret --------

CITIES = ["Marseille", "Toulouse", "Bordeaux", "Grenoble"]


class Quiz(Environment[None]):
    """Name the city the clue describes, among the options the prompt lists."""

    name = "quiz"
    secret_fields = ("answer",)

    def create_state(self, task: Task, workdir: Path | None) -> None:
        return None

    def verify(self, state: None, task: Task, response: Response) -> VerifyResult:
        ok = task.task_data["answer"].lower() in final_message(response).lower()
        return all_or_nothing([Check(name="answer", passed=ok)])

    def controls(self, task: Task) -> list[Control]:
        wrong = next(c for c in CITIES if c != task.task_data["answer"])
        return [
            Control(name="reference", expect="pass", script=[say(task.task_data["answer"])]),
            Control(name="violation_wrong_city", expect="fail", script=[say(wrong)]),
            Control(name="noop_claim", expect="fail", script=[say("Done.")]),
        ]


def quiz_tasks(hint: bool) -> list[Task]:
    out = []
    for k, city in enumerate(CITIES):
        prompt = f"Clue #{k}: which city is it? One of: {', '.join(CITIES)}."
        if hint:  # the mistake: the clue gives the answer away, and only this task's
            prompt = f"Clue #{k}: which city is it? (It is {city}.)"
        out.append(
            Task(
                task_id=f"quiz-example-0-{k:05d}",
                env="quiz",
                responses_create_params={"input": prompt},
                task_data={"answer": city},
            )
        )
    return out


def leak_verdict(report: EnvReport) -> Any:
    return next(v for v in report.verdicts if v.name == "no_ground_truth_leak")


async def test_an_answer_among_the_options_every_task_lists_is_no_leak() -> None:
    # reasoning-gym's multiple-choice datasets: each answer shows in every task's prompt, as
    # one option of the same list, on tasks whose answers differ
    report = await validate_env(Quiz(), quiz_tasks(hint=False), parallel=8, sample=4)
    assert leak_verdict(report).passed, leak_verdict(report).detail
    # a prompt that names its own task's answer, and no other task's, still leaks it
    report = await validate_env(Quiz(), quiz_tasks(hint=True), parallel=8, sample=4)
    assert not leak_verdict(report).passed


# --- a value shows whole, and not as one of the options the text lists ---------------------


def shows(text: str, value: Any) -> bool:
    task = Task(
        task_id="q-0", env="q", responses_create_params={"input": ""}, task_data={"a": value}
    )
    return first_leak(text, secrets_of(task, ["a"]), "", "the prompt", "q-0") is not None


def test_a_value_shows_only_whole() -> None:
    # reasoning-gym's number_format: the candidates are printed with more digits
    assert not shows("Which is largest? 23476677.004000 23476691.631000", "23476691.631")
    assert not shows("the code is 482137", 48213)
    # its `ab`: the program's first tokens are the same symbols as its result
    program = "Consider the program:\n\n#A #A #B #B B# A# #A\n\nReturn its final state."
    assert not shows(program, "#A #A #B #B B#")
    assert shows("Its final state is #A #A #B #B B#.", "#A #A #B #B B#")
    assert shows("the code is 48213.", 48213)
    assert shows("Reply: collect it from 16 June at the desk", "collect it from 16 June")


def test_an_answer_among_the_options_the_text_lists_is_no_leak() -> None:
    assert not shows("State the weekday (Monday through Sunday).", "Sunday")
    assert not shows("Which is largest: 23,476,686.046 23476677.004 23476691.631?", "23476691.631")
    assert not shows("One of: Paris, Marseille, Nice.", "Marseille")
    # named on its own, beside a key or in a sentence, it is given away
    assert shows("One of: Paris, Marseille, Nice. (It is Marseille.)", "Marseille")
    assert shows("secret_code: 48213, status: ok", 48213)
    assert shows("The answer is Marseille", "Marseille")


def test_a_name_of_several_words_among_the_others_a_list_gives_is_no_leak() -> None:
    import re as _re

    from proofgym_stack.validation.leaks import _listed

    roll = "Students on the list: Jun Reyes, Ezra Price, Gus Vidal, Cleo Sato."
    assert _listed(roll, _re.search("Ezra Price", roll), "Ezra Price")  # type: ignore[arg-type]
    told = "Only Jun Reyes and Ezra Price signed the slip."
    assert not _listed(told, _re.search("Jun Reyes", told), "Jun Reyes")  # type: ignore[arg-type]
