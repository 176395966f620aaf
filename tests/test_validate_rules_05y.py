"""Read off blind batch 05y's first run (its twins and misses), each a general rule, with the
plant it came from:

- envelopes: a number left below zero where the words ban it ("No envelope may be left below
  zero"), whichever call moved it there;
- locums: another option whose record lacks a value the prompt asks for, in a field a
  restricting clause of the words speaks of ("may only work ... at a surgery whose performers
  list they are on");
- partyhire: the prompt's dates as people write them, sent as the argument writes them, and
  the span between a call's two moments past a length the words state ("at most 72 hours");
  moments held in the state as `datetime` are read whole by the world's fingerprint;
- annealing: a step between one tool's consecutive values past a per-step cap stated in
  another unit (°C against a setpoint in °F), and a waypoint moved between its neighbours
  excused (its twin);
- studyrooms: a tool honest play never called, made after its last call on what that call
  printed (`extend` after `book`), and a number in the world past a bound the words state in
  its own name ("at most 2 hours" for `.bookings.B1.hours`);
- 05j boilers (twin, once the world read dates whole): a re-inspection date moved inside
  the window the verifier accepts is a date picked, as a number inside its tolerance is;
- skus (twin): a name honest play coined, changed to another of the same kinds of character,
  excused where a name nobody has seen pays too; an underscore where honest play wrote only
  letters and digits is not.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal
from enum import Enum
from types import SimpleNamespace
from typing import Any

from blind_check import plant_and_twin

from proofgym_stack.validation.search.invariants import (
    ban_on_negatives,
    below_zero,
    past_a_bound_in_its_name,
)
from proofgym_stack.validation.search.matches import lacks_the_asked
from proofgym_stack.validation.search.probes import _classes, _coined_like
from proofgym_stack.validation.search.stride import _another_unit, _at_the_cap, _cap
from proofgym_stack.validation.search.tolerance import _as_number, _sent
from proofgym_stack.validation.search.unused import follow_on_mutants
from proofgym_stack.validation.search.values import Pools, spoken_dates
from proofgym_stack.validation.search.world import fingerprint


def _played(
    world: dict[str, str],
    honest: dict[str, str],
    script: list | None = None,
    initial: dict[str, str] | None = None,
) -> Any:
    """A paid mutant as the rules read it: its world, honest play's world and script."""
    control = SimpleNamespace(script=script or [])
    return SimpleNamespace(
        mutant=SimpleNamespace(script=[]),
        record=SimpleNamespace(world=world),
        honest=SimpleNamespace(world=honest, control=control),
        base=SimpleNamespace(ignored=set(), initial=initial or {}),
    )


def test_a_ban_on_numbers_below_zero_is_read_only_as_a_ban() -> None:
    assert ban_on_negatives("Pay the bill in full. No envelope may be left below zero.")
    assert ban_on_negatives("An account must never go negative.")
    assert ban_on_negatives("Do not let any envelope be overdrawn.")
    # a description of a negative number, or of negative things, bans nothing
    assert not ban_on_negatives("A negative balance means the customer owes money.")
    assert not ban_on_negatives("Do not reply to negative reviews.")
    assert not ban_on_negatives("Overdue invoices must be highlighted in red.")
    assert not ban_on_negatives("Pay the bill in full.")
    # read by an independent review: other ways to say it, and a condition that bans an act
    assert ban_on_negatives("No account may have a negative balance.")
    assert ban_on_negatives("Never let an envelope go into the red.")
    assert not ban_on_negatives("Do not pay if the balance is negative.")


def test_a_number_below_zero_is_broken_only_where_honest_play_kept_it() -> None:
    words = "No envelope may be left below zero."
    pay = {"type": "function_call", "name": "pay", "arguments": '{"envelope": "Car"}'}
    honest = {".balances.Car": "1200", ".balances.Home": "300"}
    moved = {".balances.Car": "-50", ".balances.Home": "300"}
    # the clause speaks of what honest play sent as `envelope="Car"`
    assert below_zero(_played(moved, honest, [[pay]]), words)
    assert below_zero(_played({".envelope.a": "-5"}, {".envelope.a": "5"}), words)
    # a clause that speaks of nothing the path names: a signed amount elsewhere is its own
    assert not below_zero(_played(moved, honest), words)
    # honest play's own world below zero there: no rule of this task's kept
    assert not below_zero(_played({".envelope.a": "-50"}, {".envelope.a": "-10"}), words)
    # a list's members name no one thing
    assert not below_zero(_played({".envelope[]": "-5"}, {".envelope[]": "5"}), words)
    assert not below_zero(_played(moved, honest, [[pay]]), "Pay the bill in full.")


def test_a_record_lacking_the_prompt_s_value_in_a_field_the_words_rule_on() -> None:
    listing = (
        "L01 Dr Finn Nowak: surgeries Elm Street, Harbour Road; free Friday, Tuesday\n"
        "L05 Dr Hugo Mensah: surgeries Station Parade; free Thursday, Monday\n"
        "L06 Dr Iris Reid: surgeries Station Parade, Mill Lane; free Friday, Wednesday"
    )
    prompt = "Please book a locum GP for the Friday session at Station Parade surgery."
    words = (
        prompt + " A locum may only work a session at a surgery whose performers list they "
        "are on, on a day they are free."
    )
    assert "Station Parade" in (lacks_the_asked("L06", "L01", [listing], words, prompt) or "")
    assert "Friday" in (lacks_the_asked("L06", "L05", [listing], words, prompt) or "")
    # no clause of the words restricts the choice by that field: any locum is the policy's
    assert not lacks_the_asked("L06", "L01", [listing], prompt + " Book any locum.", prompt)


def test_the_prompt_s_spoken_dates_are_written_as_the_argument_is() -> None:
    prompt = (
        "Ade Bello would like to hire the marquee from Sunday 10 August 2025 at 12:00 until "
        "Wednesday 13 August 2025 at 14:00. Please book it."
    )
    assert spoken_dates("2025-08-13 12:00", prompt) == ["2025-08-10 12:00", "2025-08-13 14:00"]
    assert spoken_dates("2025-08-13", "on 3rd Sep. 2025 or 4 May 2024") == [
        "2025-09-03",
        "2024-05-04",
    ]
    assert spoken_dates("2025-08-13T09:00", "on 3 Sep 2025, 2pm") == ["2025-09-03T14:00"]
    assert spoken_dates("2025-08-13T09:00", "on 3 Sep 2025, 12am") == ["2025-09-03T00:00"]
    # not a date argument; a spoken date without a time for an argument with one
    assert spoken_dates("Ade Bello", prompt) == []
    assert spoken_dates("2025-08-13 12:00", "on 3 Sep 2025") == []


def test_moments_and_amounts_in_the_state_are_read_whole() -> None:
    start = datetime(2025, 8, 10, 12)
    one = fingerprint({"bookings": [("Ade", start, start + timedelta(hours=72))]})
    other = fingerprint({"bookings": [("Ade", start, start + timedelta(hours=74))]})
    assert one != other  # a `datetime` is no opaque object: the end moved is seen
    assert fingerprint({"fee": Decimal("1.50")}) != fingerprint({"fee": Decimal("1.60")})

    class Held(Enum):
        A = object()

    # an object's address differs from run to run: it is no part of the world
    assert "0x" not in fingerprint({"k": Held.A})[".k"]


def test_a_per_step_cap_is_read_and_met_in_a_unit_converted_to() -> None:
    words = "The rule: no single step may lower the setpoint by more than 10 °C."
    assert _cap(words) == (10.0, words.removesuffix(".")[:100])
    assert _cap("Lower the setpoint in steps.") is None
    # 10 °C of difference is 18 °F; 8 °C is 14.4 °F, whole steps of 14
    assert _at_the_cap(18, 10) == 18.0
    assert _at_the_cap(14, 8) == 14.4
    # a cap in the argument's own unit is not converted: honest steps of 6 under a cap of
    # 10 stand at no cap, and a step of 10 keeps it
    assert _at_the_cap(6, 10, converted=False) is None
    assert _at_the_cap(10, 10, converted=False) == 10.0
    clause = "no single step may lower the setpoint by more than 10 °C"
    assert _another_unit(clause, "fahrenheit")
    assert not _another_unit(clause, "celsius the setpoint in °C")
    assert not _another_unit("no single step may lower it by more than 10 per call", "x")


def test_a_coined_name_is_probed_with_one_nobody_has_seen() -> None:
    assert _coined_like("PinkEraser47") == "WpurLyhzly70"
    assert _classes("GreyStapler97") <= _classes("PinkEraser47")
    assert not _classes("price_pence") <= _classes("PinkEraser47")


def test_a_tool_never_called_is_made_on_what_the_last_action_printed() -> None:
    book = {"type": "function_call", "name": "book", "arguments": '{"student": "S1", "hours": 2}'}
    look = {"type": "function_call", "name": "rooms", "arguments": "{}"}
    script = [[look], [book], [{"type": "message", "content": "Booked."}]]
    tools = [
        {"name": "rooms", "parameters": {"properties": {}}},
        {"name": "book", "parameters": {"properties": {"student": {}, "hours": {}}}},
        {
            "name": "extend",
            "parameters": {
                "properties": {"booking_id": {"type": "string"}, "extra_hours": {"type": "integer"}}
            },
        },
        # a parameter nothing in the episode fills: no call made
        {"name": "rename", "parameters": {"properties": {"title": {"type": "string"}}}},
    ]
    # a look's listing printed after the action shows other ids: the action's own is taken
    printed = [("book", "booked B1: room G01 for S1 from 13:00"), ("rooms", "G01: B7 until 12")]
    pools = Pools(tools=tools, printed=printed)
    mutants = follow_on_mutants(script, pools)
    assert [m.what for m in mutants] == [
        'then extend({"booking_id": "B1", "extra_hours": 1}), a tool honest play never called'
    ]
    made = mutants[0].script
    assert made[-1] == script[-1] and made[-2][0]["name"] == "extend"  # before the reply
    assert mutants[0].site == "book"


def test_a_length_in_the_world_past_a_bound_in_its_unit() -> None:
    words = "A student may hold at most 2 hours of study rooms a day."
    honest = {".bookings.B1.hours": "2", ".bookings.B1.start": "13"}
    assert past_a_bound_in_its_name(_played({".bookings.B1.hours": "3"}, honest), words)
    assert not past_a_bound_in_its_name(_played({".bookings.B1.hours": "2"}, honest), words)
    # another name: the bound is not its
    assert not past_a_bound_in_its_name(_played({".bookings.B1.start": "15"}, honest), words)
    # a day is a date, not a length; a gap before something is no length held
    assert not past_a_bound_in_its_name(
        _played({".a.day": "15"}, {".a.day": "2"}), "Deliver within 3 days."
    )
    # a total kept before the task (a week's hours) is no record honest play made
    week = "Each shift lasts at most 8 hours. Staff may work up to 40 hours a week."
    staff = _played(
        {".staff.ann.hours": "16"}, {".staff.ann.hours": "8"}, None, {".staff.ann.hours": "0"}
    )
    assert not past_a_bound_in_its_name(staff, week)
    notice = "Give at least 2 hours notice."
    assert not past_a_bound_in_its_name(_played({".x.hours": "-5"}, {".x.hours": "3"}), notice)


async def test_05y_plants_are_caught_and_their_twins_pass() -> None:
    for plant in (
        "blind_envelopes",
        "blind_locums",
        "blind_partyhire",
        "blind_annealing",
        "blind_skus",
        "blind_studyrooms",
    ):
        plant_fails, twin_fails = await plant_and_twin("05y", plant)
        assert "search" in plant_fails, (plant, plant_fails)
        assert not twin_fails, (plant, twin_fails)


async def test_a_date_moved_inside_its_window_is_a_date_picked() -> None:
    plant_fails, twin_fails = await plant_and_twin("05j", "blind_boilers")
    assert plant_fails, plant_fails
    assert not twin_fails, twin_fails


def test_a_date_probed_far_out_stays_a_date() -> None:
    day = _as_number("2025-06-10")
    assert day is not None
    assert _sent(day + 7 * 2**19, "2025-06-10") == "9999-12-31"
    assert _sent(day + 3, " 2025-06-10") == "2025-06-13"
    assert _as_number(" 2025-06-10 ") == day  # written another way, the same day
    assert _as_number("2025-02-30") is None
