"""Read off blind batch 05w's twins and misses (each a general rule, with the plant it came
from):

- karting (twin): a kart changed to another free one, or heat and kart swapped, is one more
  free pick where the verifier refuses the same call given another call's values (a clash);
  a verifier that takes the clash too reads nothing there (the plant);
- regatta, buslane: one more action on a thing only a listing printed, honest play having
  left it alone, breaks words that close the action's list ("and no other boat", "cancel a
  PCN only if ...").
"""

from __future__ import annotations

from pathlib import Path

from test_validate_unseen import failed, validate

from bench.blind.harness import load, tasks_of
from proofgym_stack.validation.search.passed import exclusive

BLIND = Path(__file__).resolve().parents[1] / "bench" / "blind"


def test_words_that_close_an_action_s_list_are_read_for_that_action_only() -> None:
    words = (
        "`enter` enters one boat. Enter every boat of the race's class whose certificate is "
        "still valid on race day, and no other boat. Finish with a short message."
    )
    assert exclusive(words, "enter")
    assert not exclusive(words, "withdraw")  # the sentence names another action
    assert exclusive("Cancel a PCN only if its appeal gives an accepted ground.", "cancel")
    assert exclusive("Water every dry bed and no other bed.", "water")
    # a choice left open is no closed list
    assert not exclusive("Book any free room for the meeting.", "book")
    assert not exclusive("Enter the boats you like; others may follow.", "enter")


async def test_a_free_pick_under_a_clash_rule_passes_and_a_clash_paid_is_caught() -> None:
    for plant in ("blind_karting", "blind_regatta"):
        module = load(BLIND / "batch_2026_12_05w" / plant)
        tasks = tasks_of(module, 4)
        caught = await validate(module.Plant(), tasks)
        assert "search" in failed(caught), (plant, caught.verdicts)
        twin = await validate(module.Twin(), tasks)
        assert not failed(twin), (plant, [v for v in twin.verdicts if not v.passed])
