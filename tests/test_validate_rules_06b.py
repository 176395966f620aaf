"""Read off blind batch 06b's first run (its three twins and five misses), each a general
rule, with the plant it came from:

- bouncy (twin): another task's placements inside this task's region, eight numbers apart,
  each moved one and a quarter gaps on where four cross zero;
- cabinbag (twin): every call's choice set to one of the two values honest play uses, where
  every call set to the other fails (all in the hold: the free side); and (plant) a thing
  sent with a value a clause of the words bans it from (bear spray in the cabin);
- reuse (twin): a date moved to another day a look lists is another option, not a near
  miss; and (plant) the looks made before any action, so the option honest play took is
  still among the listing's (the Sunday the van is free);
- dryclean: an option of several tokens (`2026-05-19 10:00` in `Tue 2026-05-19 10:00`), a
  bound after a named weekday ("back by Tue 2026-05-19 16:00"), and a moment's clock time
  not compared alone;
- jurypool: the options the prompt singles out first (the excused jurors), and a role read
  off the list it heads ("The judge has excused: Kaur, Grant, Evans");
- pawnshop: a payment short of honest play's where the words ask the whole amount.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from blind_check import plant_and_twin

from proofgym_stack.validation.listed import another_option
from proofgym_stack.validation.search.banned import banned_mutants, banned_pairing
from proofgym_stack.validation.search.in_full import short_of_in_full
from proofgym_stack.validation.search.mutants import Mutant
from proofgym_stack.validation.search.options import siblings
from proofgym_stack.validation.search.probes import _length_allowed
from proofgym_stack.validation.search.roles import roles_of as _roles
from proofgym_stack.validation.search.rules import bounds, crossed
from proofgym_stack.validation.search.sides import _restricted


def _call(name: str, **args: Any) -> list[dict[str, Any]]:
    return [{"type": "function_call", "name": name, "arguments": args}]


def _argument(script: list[Any], site: str, key: str, old: Any, new: Any) -> Any:
    m = Mutant(script, "argument", site, "option", "", (0, 0), (key,), old, new)
    return SimpleNamespace(mutant=m)


def test_a_thing_sent_with_the_value_the_words_ban_it_from() -> None:
    words = (
        "The airline bans these from the cabin: lighter fluid, bear spray, flares; they must "
        "go in the hold."
    )
    spray = _argument(
        [_call("pack", item="bear spray", bag="cabin")], "pack.bag", "bag", "hold", "cabin"
    )
    why = banned_pairing(spray, words)
    assert why is not None and "bear spray" in why
    fleece = _argument(
        [_call("pack", item="fleece", bag="cabin")], "pack.bag", "bag", "hold", "cabin"
    )
    assert banned_pairing(fleece, words) is None  # the clause never names a fleece
    back = _argument(
        [_call("pack", item="bear spray", bag="hold")], "pack.bag", "bag", "cabin", "hold"
    )
    assert banned_pairing(back, words) is None  # into the hold: no ban on it
    tuesday = _argument(
        [_call("book", who="Ben", day="Tuesday")], "book.day", "day", "Monday", "Tuesday"
    )
    assert banned_pairing(tuesday, "Ben has no objection to Tuesday.") is None  # no ban


def test_the_pairings_the_words_ban_are_tried() -> None:
    words = "The airline bans these from the cabin: bear spray, flares; they go in the hold."
    script = [
        _call("pack", item="bear spray", bag="hold"),
        _call("pack", item="fleece", bag="cabin"),
    ]
    tried = [(m.old, m.new, m.call_at) for m in banned_mutants(script, words)]
    # bear spray into the cabin, never the fleece into the banned list's place
    assert tried == [("hold", "cabin", (0, 0))]
    assert banned_mutants(script, "Pack everything.") == []


def test_an_option_of_several_tokens_and_a_deadline_after_a_weekday() -> None:
    slots = (
        "Mon 2026-05-18 16:00 (express, £12)\nTue 2026-05-19 10:00 (express, £8)\n"
        "Wed 2026-05-20 09:00 (standard)"
    )
    assert siblings("2026-05-19 10:00", [slots]) == ["2026-05-18 16:00", "2026-05-20 09:00"]
    words = "Dr Varga needs it back by Tue 2026-05-19 16:00. Promise a ready-by slot."
    assert any(b.kind == "datetime" and b.direction == "upper" for b in bounds(words))
    assert crossed("2026-05-19 10:00", "2026-05-20 09:00", [slots], words)
    # the day before at a later clock time is in time: a moment's clock time is not compared
    assert crossed("2026-05-19 10:00", "2026-05-18 16:00", [slots], words) is None
    # a word that starts like a weekday ("month") is no weekday to skip before a value
    assert not bounds("by month 2026-05-19")
    assert bounds("by Monday 2026-05-18")


def test_a_side_is_free_only_where_the_words_restrict_the_other() -> None:
    words = "The airline bans these from the cabin: bear spray, flares; they go in the hold."
    assert _restricted("cabin", words)
    assert not _restricted("hold", words)
    assert not _restricted("normal", "Put urgent tickets in the urgent queue.")


def test_a_day_a_look_lists_is_another_option_unless_marked_booked() -> None:
    moved = [_call("book_collection", day="2026-05-12")]
    assert another_option(moved, "day", "Mon 2026-05-11\nTue 2026-05-12\nWed 2026-05-13")
    assert not another_option(moved, "day", "Mon 2026-05-11\nTue 2026-05-12: booked")
    # "taken" in a snapshot's line is no mark of a thing not on offer
    snap = [_call("delete_snapshot", snapshot_id="media@daily-2026-11-10")]
    listing = "media@daily-2026-11-10 taken 2026-11-10 size 4 GB"
    assert another_option(snap, "snapshot_id", listing)


def test_a_coined_name_is_as_long_as_the_words_allow() -> None:
    sku = "A SKU is 6 to 16 characters, letters and digits only."
    assert _length_allowed("GreyStapler97", "GreySt", sku, "sku")
    assert not _length_allowed("GreyStapler97", "GreyS", sku, "sku")
    # a band stated of another thing (passwords) is not the SKU's
    other = "Passwords must be 8 to 64 characters."
    assert not _length_allowed("GreyStapler97", "G" * 43, other, "sku")
    assert not _length_allowed("GreyStapler97", "GreySt", other, "sku")  # under half


def test_a_role_read_off_the_list_it_heads() -> None:
    prompt = "Court 3 needs 5 jurors. The judge has excused: Kaur, Grant and Evans. Summon them."
    assert _roles("Kaur", [], (prompt,)) == {"excused"}  # the list's first member too
    assert _roles("Grant", [], (prompt,)) == {"excused"}
    assert _roles("Evans", [], (prompt,)) == {"excused"}
    assert _roles("Chen", [], (prompt,)) == set()
    # the prompt's prose gives no roles: only its lists do, and only to names
    assert _roles(1, [], ("Give the new pupil 1 locker.",)) == set()
    assert _roles("Sam", [], ("Ask the pupil Sam first.",)) == set()


def test_a_payment_short_of_the_whole_amount() -> None:
    script = [_call("pay", ticket="T1", amount=1388.6)]
    words = "The customer owes the loan plus interest, rounded up to the penny."
    short = _argument(script, "pay.amount", "amount", 1389.6, 1388.6)
    assert short_of_in_full(short, words)
    more = _argument(script, "pay.amount", "amount", 1389.6, 1390.6)
    assert short_of_in_full(more, words) is None  # more than owed is slack
    assert short_of_in_full(short, words + " A minimum payment of £50 keeps it open.") is None
    days = _argument(script, "extend.days", "days", 5, 4)
    assert short_of_in_full(days, words) is None  # no money paid
    # a day of a payment's schedule is no money; a cent short is within rounding
    day = _argument(script, "schedule_payment.day", "day", 15, 14)
    assert short_of_in_full(day, words) is None
    assert short_of_in_full(_argument(script, "pay.amount", "amount", 200, 199.99), words) is None
    gift = "The appeal's outstanding goal is £500; any amount helps."
    assert short_of_in_full(_argument(script, "donate.amount", "amount", 25, 20), gift) is None


async def test_06b_plants_are_caught_and_their_twins_pass() -> None:
    # cabinbag's banned pairing shows on the tasks whose kit holds the fused names: its
    # twin alone is checked on these four tasks
    _, twin_fails = await plant_and_twin("06b", "blind_cabinbag")
    assert not twin_fails, twin_fails
    for plant in (
        "blind_bouncy",
        "blind_reuse",
        "blind_dryclean",
        "blind_jurypool",
        "blind_pawnshop",
    ):
        plant_fails, twin_fails = await plant_and_twin("06b", plant)
        assert plant_fails, (plant, plant_fails)
        assert not twin_fails, (plant, twin_fails)
