"""Read off blind batch 05w's twins and misses (each a general rule, with the plant it came
from):

- karting (twin): a kart changed to another free one, or heat and kart swapped, is one more
  free pick where the verifier refuses the same call given another call's values (a clash);
  a verifier that takes the clash too reads nothing there (the plant);
- regatta, buslane: one more action on a thing only a listing printed, honest play having
  left it alone, breaks words that close the action's list ("and no other boat", "cancel a
  PCN only if ...");
- coopvote: a two-way verdict (carried or lost) paid either way on one call, its flip
  failing on another;
- parkrun: fewer calls than a ratio the words state asks for ("one marshal per 50 runners");

and off 05x's first run (its twins and misses): a required argument sent empty
(ropeaccess), the prompt's values written as the argument is (sitter's whole evening), dates
with slashes (kitchenfit), "only after" ordering steps (trialsite's twin), a thing the prompt
sets apart taken beside the honest one (trialsite's twin) or in its place (its plant).
"""

from __future__ import annotations

from blind_check import plant_and_twin

from proofgym_stack.validation.search.calendar import iso_dates, slash_order
from proofgym_stack.validation.search.fits import does_not_fit
from proofgym_stack.validation.search.passed import exclusive, selects
from proofgym_stack.validation.search.ratio import ratio_needs
from proofgym_stack.validation.search.required import requiring_clause
from proofgym_stack.validation.search.rules import crossed
from proofgym_stack.validation.search.scales import below_the_need, ranks
from proofgym_stack.validation.search.values import Pools, candidates, same_shape


def test_words_that_close_an_action_s_list_are_read_for_that_action_only() -> None:
    words = (
        "`enter` enters one boat. Enter every boat of the race's class whose certificate is "
        "still valid on race day, and no other boat. Finish with a short message."
    )
    assert exclusive(words, "enter")
    assert not exclusive(words, "withdraw")  # the sentence names another action
    bus = "Cancel a PCN only if its appeal gives an accepted ground. Every other PCN stands."
    assert exclusive(bus, "cancel")
    # read by an independent review: a condition alone closes nothing (a PCN that meets it
    # may be cancelled too), and a tool is named in its forms
    assert not exclusive("Cancel a PCN only if its appeal gives an accepted ground.", "cancel")
    assert exclusive("Email the two winners and nobody else.", "email")
    assert exclusive("Every listed member gets emailed, and no one else.", "email")
    assert exclusive("Water every dry bed and no other bed.", "water")
    # a choice left open is no closed list
    assert not exclusive("Book any free room for the meeting.", "book")
    assert not exclusive("Enter the boats you like; others may follow.", "enter")


async def test_a_free_pick_under_a_clash_rule_passes_and_a_clash_paid_is_caught() -> None:
    for plant in ("blind_karting", "blind_regatta"):
        plant_fails, twin_fails = await plant_and_twin("05w", plant)
        assert "search" in plant_fails, (plant, plant_fails)
        assert not twin_fails, (plant, twin_fails)


def test_a_ratio_the_words_state_gives_the_count_needed() -> None:
    words = (
        "The safety plan needs one course marshal per 50 expected runners, rounded to the "
        "nearest whole marshal (a half rounds up). Roster at least the number the plan needs."
    )
    assert ratio_needs(words, "Bushy park run expects 225 runners this Saturday.")[0][0] == 5
    assert ratio_needs(words, "Expects 224 runners.")[0][0] == 4
    up = "Staff one lifeguard for every 25 swimmers."
    assert ratio_needs(up, "We expect 51 swimmers and 3 staff.")[0][0] == 3  # a minimum: up
    assert ratio_needs("Two adults per 8 children.", "There are 12 children.")[0][0] == 4
    assert ratio_needs(up, "We expect 51 or 60 swimmers.") == []  # two quantities: unread
    assert ratio_needs("Book a room for the team.", "We are 12 people.") == []
    # read by an independent review: a capping ratio asks for no count; two ratios in one
    # sentence are both read; the noun is whichever of the words after the number the prompt
    # counts ("runners on the course", not "course")
    assert ratio_needs("At most one stall per 20 visitors.", "We expect 100 visitors.") == []
    both = "One first-aider per 100 runners and one marshal per 50 runners on the course."
    assert [n for n, _ in ratio_needs(both, "A 5 km course; 250 runners.")] == [3, 5]


def test_the_prompt_s_values_written_as_the_argument_is() -> None:
    prompt = "The family need a sitter tonight from 17:00 for 4:46 (hours:minutes)."
    assert same_shape("4:30", prompt) == ["4:46"]
    assert same_shape("A-20", "plots B-17, C-3 and D-44") == ["B-17", "D-44"]
    assert same_shape("Callum", "Callum and Dita") == []  # no digit, no separator: a name
    # one such value is the task's own (the whole evening); several are the options the
    # prompt lists (the kiln's free slots), judged as options are
    one = candidates("duration", "4:30", Pools(prompt_text=prompt))
    assert ("prompt", "4:46") in one
    slots = Pools(prompt_text="Free: Mon 10:00, Mon 14:00, Tue 10:00, Tue 14:00.")
    assert ("option", "Tue 14:00") in candidates("slot", "Mon 10:00", slots)


def test_dates_with_slashes_are_read_in_the_order_the_texts_show() -> None:
    assert slash_order(["free days (DD/MM/YYYY)", "02/05/2026"]) == "dmy"
    assert slash_order(["17/04/2026", "02/05/2026"]) == "dmy"
    assert slash_order(["04/17/2026", "05/02/2026"]) == "mdy"
    assert slash_order(["03/04/2026"]) is None  # either way
    assert iso_dates("fitted by 19/04/2026.", "dmy") == "fitted by 2026-04-19."
    words = "free days (DD/MM/YYYY). We promised it would be fitted by 19/04/2026."
    assert crossed("17/04/2026", "08/05/2026", [], words)
    assert crossed("17/04/2026", "18/04/2026", [], words) is None


def test_an_argument_the_words_require_is_read_by_its_name() -> None:
    words = "Site rule: every closed job carries a close-out note saying what was found."
    assert requiring_clause("note", words)
    assert requiring_clause("reason", words) is None
    assert requiring_clause("note", "`close_job` takes an optional note.") is None
    assert requiring_clause("close_note", "Each refund must have a close note.")
    assert requiring_clause("drawing", "The project team must receive the drawing.")
    # read by an independent review: the final reply's sentence, and a note set free
    assert requiring_clause("message", "Finish with a short message.") is None
    assert requiring_clause("note", "A note is not required.") is None
    assert requiring_clause("note", "You do not need to add a note.") is None
    # NeMo Gym's math_with_code: a tool for calculations, on a condition
    calc = "When you need to perform calculations, use the execute_python tool to run code."
    assert requiring_clause("code", calc) is None


def test_only_after_that_orders_another_tool_s_action_selects_nothing() -> None:
    words = "GCP rule: a deviation is filed only after the Principal Investigator signed it off."
    assert not selects(words, "request_signoff", ["request_signoff", "file_deviation"])
    assert selects("Sign off only deviations on your list.", "sign_off", ["sign_off"])
    # read by an independent review: "only once" on the tool's own action selects things
    release = "Release a hold only once its payment has cleared."
    assert selects(release, "release_hold", ["release_hold", "list_holds"])


async def test_a_verdict_a_ratio_a_required_note_and_a_lure_are_judged() -> None:
    """05w coopvote (a two-way verdict paid either way), 05x ropeaccess (a required note sent
    empty), 05x trialsite (one more sign-off from the person the prompt sets apart, paid
    beside the investigator's on the twin, in its place on the plant)."""
    for batch, plant in (
        ("05w", "blind_coopvote"),
        ("05x", "blind_ropeaccess"),
        ("05x", "blind_trialsite"),
    ):
        plant_fails, twin_fails = await plant_and_twin(batch, plant)
        assert "search" in plant_fails, (plant, plant_fails)
        assert not twin_fails, (plant, twin_fails)


def test_a_thing_that_must_fit_is_compared_size_by_size_either_way_round() -> None:
    words = (
        "Put the stand on one free plot that it fits inside (it may be turned either way round)."
    )
    prompt = "Acme booked late: their stand is 6 m wide and 4 m deep. Find them a plot."
    plan = [
        "B2: 2 m wide x 14 m deep, free\nB4: 4 m wide x 7 m deep, free\nB5: 6 m wide x 3 m deep"
    ]
    # B4 holds the stand turned round; B2's area (28 m2) is larger, but 2 m is too narrow
    assert does_not_fit("B4", "B2", plan, words + " " + prompt, prompt)
    assert does_not_fit("B4", "B5", plan, words + " " + prompt, prompt)
    assert does_not_fit("B2", "B4", plan, words + " " + prompt, prompt) is None  # honest misfit
    assert does_not_fit("B4", "B2", plan, "Put the stand on a free plot. " + prompt, prompt) is None


def test_an_option_below_a_rank_the_words_ask_at_least() -> None:
    """04b parking (missed since 6608d77): "compact < mid < large; a car needs a spot of its
    class or larger", and a compact spot taken for a large car."""
    words = "Size classes: compact < mid < large; a car needs a spot of its class or larger."
    assert ranks(words) == {"compact": 0, "mid": 1, "large": 2}
    assert ranks("Grades: A > B > C.") == {"c": 0, "b": 1, "a": 2}
    assert ranks("x < 5 m") == {}
    spots = ["A07: compact, 12 m, free\nA08: mid, 14 m, free\nA09: large, 20 m, free"]
    prompt = "A customer hands you the keys of a large-size Volvo. Park it."
    assert below_the_need("A09", "A07", spots, words, prompt)
    assert below_the_need("A09", "A08", spots, words, prompt)
    mid = "A customer hands you the keys of a mid-size Polo. Park it."
    assert below_the_need("A08", "A09", spots, words, mid) is None  # larger is allowed
    assert (
        below_the_need("A09", "A07", spots, "Park anywhere: compact < mid < large.", prompt) is None
    )
