"""The leak scan on a secret that maps the task's own entities to options the prompt lists.

From the blind corpus (batch 2026-12-04b, a seating plan): the secret `plan` maps each guest to
a table; the prompt names every guest and every table, as the task must. Showing the tables is
not showing the plan; showing a guest beside their table is.
"""

from __future__ import annotations

from proofgym.wire.protocol import Task
from proofgym_stack.validation.leaks import first_leak, secrets_of

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
