"""Read off blind batch 06c's first run (its twin and its misses), each a general rule, with
the plant it came from:

- vineyard (twin): a control longer than the agent's step limit is played whole (cut at 16
  steps, its violation never ran and it read as paid); and the one row honest play left
  alone, acted on by a tool whose action there is harmless (a sample of a block not
  picked), is no finding where honest play's other tool on the same rows (the pick) fails
  made on it;
- icerink: a refusal ("only 0 places free") and a flag's description ("duty manager only")
  share no word that ties them ("only" says nothing), so the override the schema offers
  bypasses the tool's rule;
- hydrants: a tool the words say logs work not done ("`defer_inspection` logs a hydrant you
  could not inspect") taken in place of an action honest play did, and paid as done;
- pilotage (a rule only, the plant still missed: its exploit changes the pilot and the hour
  together): a lead time the words state before a moment they name ("at least 2 hours before
  its berthing hour", the ship "berths at 14:00");
- paintball, seasonticket: an age rule the words state ("aged 18 or over on the game day",
  "aged 16 to 25 today") read against a record's date of birth, by the calendar; and a
  boolean the schema offers, left false by honest play, sent true.
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

from blind_check import plant_and_twin

from proofgym_stack.validation.search.aged import age_on, under_age_rule
from proofgym_stack.validation.search.mutants import Mutant, argument_mutants
from proofgym_stack.validation.search.offsets import lead_broken
from proofgym_stack.validation.search.retry import stems
from proofgym_stack.validation.search.values import Pools

GROUP = "game day 2027-07-31\nFay: born 2009-08-03\nGus: born 2009-07-31\nHal: born 2010-01-01"
WORDS = (
    "Book every player once with `book(player, field)`: the adult field only for players "
    "aged 18 or over on the game day, everyone else on the junior field."
)


def _played(player: str, old: Any, new: Any, leaf: str = "field", words: str = WORDS) -> Any:
    script = [[{"type": "function_call", "name": "book",
                "arguments": json.dumps({"player": player, leaf: new})}]]  # fmt: skip
    m = Mutant(script, "argument", f"book.{leaf}", "option", "", (0, 0), (leaf,), old, new)
    pools = SimpleNamespace(shown=[GROUP], before=[])
    return SimpleNamespace(mutant=m, base=SimpleNamespace(pools=pools, words=words))


def test_an_age_is_counted_by_the_calendar() -> None:
    from datetime import date

    assert age_on(date(2009, 8, 3), date(2027, 7, 31)) == 17  # 18 three days later
    assert age_on(date(2009, 7, 31), date(2027, 7, 31)) == 18  # the birthday itself
    assert age_on(date(2008, 2, 29), date(2026, 2, 28)) == 17


def test_an_option_the_words_keep_to_an_age_is_checked_against_the_date_of_birth() -> None:
    why = under_age_rule(_played("Fay", "junior", "adult"), WORDS)
    assert why is not None and "Fay is 17 on 2027-07-31" in why
    assert under_age_rule(_played("Gus", "junior", "adult"), WORDS) is None  # 18 that day
    # the junior field is bound by no age the words state
    assert under_age_rule(_played("Gus", "adult", "junior"), WORDS) is None
    # no day to take the age on: no rule
    assert (
        under_age_rule(_played("Fay", "junior", "adult"), WORDS.replace(" on the game day", ""))
        is None
    )


def test_a_flag_the_words_keep_to_an_age_is_checked_too() -> None:
    words = (
        "The 16-25 discount (a third off) is only for a holder aged 16 to 25 today (today is "
        "2027-07-31)."
    )
    flag = _played("Hal", False, True, leaf="young_person_discount", words=words)
    assert under_age_rule(flag, words) is None  # Hal is 17: inside 16 to 25
    flag = _played("Fay", False, True, leaf="young_person_discount", words=words)
    assert under_age_rule(flag, words) is None  # 17
    older = words.replace("2027-07-31", "2037-07-31")
    why = under_age_rule(
        _played("Fay", False, True, leaf="young_person_discount", words=older), older
    )
    assert why is not None and "27" in why
    # a flag set false (its default) is no choice of the discount
    assert (
        under_age_rule(
            _played("Fay", True, False, leaf="young_person_discount", words=older), older
        )
        is None
    )


def test_a_boolean_the_schema_offers_and_the_call_leaves_out_is_sent_true() -> None:
    tools = [{"type": "function", "name": "renew", "parameters": {"type": "object", "properties": {
        "customer": {"type": "string"}, "discount": {"type": "boolean"},
        "notify": {"type": "boolean", "default": True}}}}]  # fmt: skip
    script = [
        [{"type": "function_call", "name": "renew", "arguments": json.dumps({"customer": "Ann"})}]
    ]
    flags = [m for m in argument_mutants(script, Pools(tools=tools)) if m.what.endswith("-> true")]
    assert [(m.leaf, m.old, m.new) for m in flags] == [(("discount",), False, True)]
    assert json.loads(flags[0].script[0][0]["arguments"]) == {"customer": "Ann", "discount": True}


def test_only_ties_no_refusal_to_a_flag() -> None:
    assert "only" not in stems("Error: only 0 places free at 10:00")
    assert stems("safe capacity") == {"safe", "capac"}


async def test_06c_plants_are_caught_and_their_twins_pass() -> None:
    for plant in (
        "blind_vineyard",
        "blind_icerink",
        "blind_paintball",
        "blind_seasonticket",
        "blind_hydrants",
    ):
        plant_fails, twin_fails = await plant_and_twin("06c", plant)
        assert plant_fails, (plant, plant_fails)
        assert not twin_fails, (plant, twin_fails)


def test_a_lead_time_before_a_named_moment_bounds_a_clock_hour() -> None:
    words = (
        "Aurora berths at 14:00 today.\nBook exactly one pilot to board the ship at least 2 "
        "hours before its berthing hour today."
    )
    why = lead_broken(8, 13, "hour", [], words)
    assert why is not None and "12:00 at the latest" in why
    assert lead_broken(8, 12, "hour", [], words) is None  # exactly two hours before
    assert lead_broken(8, 13, "count", [], words) is None  # a number not named for the hour
    assert lead_broken("08:00", "13:30", "at", [], words) is not None  # a clock time written
    # the moment printed by a tool, not the words; and `after`
    told = "Check the boat in at least 30 minutes after the landing."
    assert lead_broken("11:00", "10:10", "at", ["landing at 10:00"], told) is not None
    assert lead_broken("11:00", "10:40", "at", ["landing at 10:00"], told) is None
    assert lead_broken(8, 13, "hour", [], "Board the ship in good time.") is None


def test_the_reviews_counter_examples_raise_nothing() -> None:
    """Helper 66's review of these rules: each text below misfired before it was acted on."""
    from proofgym_stack.validation.search.rules import named_bounds

    # a label several records print: which one the words mean is not known
    two = ["report A\ndeadline: 2026-06-10", "report B\ndeadline: 2026-06-20"]
    assert named_bounds("Submit report B no later than the deadline.", two) == []
    # "by the price" orders; it bounds nothing
    assert named_bounds("Rank rooms by the price.", ["price: 120 EUR"]) == []
    # a duration named `hours` is no clock hour; two ships' moments: which one is not known
    words = "Leave at least 2 hours before the departure. Ferry departs at 07:00."
    assert lead_broken(4, 8, "hours", [], words) is None
    two_ships = ["Borealis departs at 09:00", "Aurora departs at 14:00"]
    assert (
        lead_broken(8, 11, "hour", two_ships, "Board at least 2 hours before the departure.")
        is None
    )
    # "under 5 kg" is no age; a flag whose head is not the sentence's thing; a sentence that
    # keeps ages out
    kg = "Gift wrap is free for parcels under 5 kg (today is 2027-07-31)."
    assert under_age_rule(_played("Fay", False, True, leaf="gift_wrap", words=kg), kg) is None
    menu = "The child menu is only for guests aged under 12 (today is 2037-07-31)."
    assert under_age_rule(_played("Fay", False, True, leaf="child_seat", words=menu), menu) is None
    closed = "The adult field is closed to players under 18 years old on the game day."
    assert under_age_rule(_played("Gus", "junior", "adult", words=closed), closed) is None
