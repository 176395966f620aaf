"""A bound the words state by a thing's name ("expiring on the day or later") whose value a
tool prints under that name as a label ("day: 2026-06-10"), and a list's end member swapped
for another entry of the listing it was read from (a guard that reads one end of the list
only). Read off blind batch 05c's lifeguard, which last stop's run lost."""

from __future__ import annotations

import json

from blind_check import plant_and_twin

from proofgym_stack.validation.search.other_calls import grown_mutants
from proofgym_stack.validation.search.rules import crossed, named_bounds
from proofgym_stack.validation.search.values import Pools

WORDS = (
    "Every lifeguard on a shift must hold a certificate valid on the day (expiring on the "
    "day or later), and nobody works both shifts."
)
ROSTER = (
    "day: 2026-06-10\nmorning: needs 2, crew: none\nlifeguards:\n"
    "  Amara: certificate expires 2026-01-31\n  Bex: certificate expires 2026-09-01\n"
    "  Cole: certificate expires 2026-07-02"
)


def test_a_bound_by_a_name_takes_the_value_printed_under_that_label() -> None:
    (bound,) = named_bounds(WORDS, [ROSTER])
    assert (bound.kind, bound.direction) == ("date", "lower")
    assert "2026-06-10" in bound.phrase
    why = crossed("Bex", "Amara", [ROSTER], WORDS)
    assert why is not None and "2026-01-31" in why
    assert crossed("Bex", "Cole", [ROSTER], WORDS) is None  # both valid on the day


def test_a_name_no_label_carries_or_an_untyped_label_is_no_bound() -> None:
    assert named_bounds(WORDS, ["lifeguards:\n  Amara: certificate expires 2026-01-31"]) == []
    assert named_bounds(WORDS, ["day: the first Monday"]) == []
    # "by the manager": no label `manager:` with a typed value
    assert named_bounds("Shifts are approved by the manager.", ["manager: Kit"]) == []
    upper = named_bounds("Return it no later than the deadline.", ["deadline: 2026-05-01"])
    assert [(b.direction, b.kind) for b in upper] == [("upper", "date")]


def test_a_lists_ends_are_swapped_for_other_entries_of_the_listing() -> None:
    script = [
        [{"type": "function_call", "name": "roster", "arguments": {}}],
        [
            {
                "type": "function_call",
                "name": "staff_shift",
                "arguments": {"shift": "morning", "guards": ["Bex", "Cole"]},
            }
        ],
        [{"type": "message", "content": "Staffed."}],
    ]
    pools = Pools(shown=[ROSTER])
    swapped = [m for m in grown_mutants(script, pools) if m.op == "list_swap_in"]
    crews = [json.loads(m.script[1][0]["arguments"])["guards"] for m in swapped]
    assert ["Bex", "Amara"] in crews and ["Amara", "Cole"] in crews
    assert all(len(c) == 2 for c in crews)  # the list's size kept
    assert {(m.old, m.new) for m in swapped} >= {("Cole", "Amara"), ("Bex", "Amara")}


async def test_lifeguard_is_caught_and_its_twin_passes() -> None:
    plant_fails, twin_fails = await plant_and_twin("05c", "blind_lifeguard")
    assert "search" in plant_fails, plant_fails
    assert not twin_fails, twin_fails
