"""Read off blind batch 05u's last misses and twin and 05t's last twin, written before batch
05v existed, then off 05v's misses (each a general rule, with the plant it came from):

- bellrota: a rule the words state against one value on two neighbouring slots ("nobody
  conducts two Sundays running"), judged on the rota the calls leave;
- tankfarm: overshoot and correct: an amount moved past a total the words cap, then moved
  back (the world is honest play's; the total moved is not);
- levelcrossing (twin): another truth reached by more of one tool's amounts (a train waited
  for 24 minutes where the target's clears in 20) is the target's own honest play;
- opencinema (twin): another task's bag of offered choices (speakers of the catalogue) that
  the target accepts, where the target grades its own bag;
- musiclessons: the other party a listing pairs with the prompt's value fills a tool's second
  name (the student holding the slot asked for);
- karaoke: another row of the prompt's list acted on whole and where it stands; a term a
  look lists that the words keep out;
- knitting: the right formula over the prompt's other numbers (rows for stitches);
- microchip: an id whose listing record the prompt does not name (another Fenwick);
- rowing: a refused call made again after the obstacle is cleared; "never cancel another
  member's booking" keeps the rest;
- stables: a list in the final world past a count the words cap.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from blind_check import plant_and_twin
from test_validate_unseen import failed, validate

from bench.blind.harness import load, tasks_of
from proofgym_stack.validation.formula import formula_of, other_quantities, quantity_texts
from proofgym_stack.validation.search.caps import held_caps, world_past_cap
from proofgym_stack.validation.search.kept import _WHEN, keep_clause
from proofgym_stack.validation.search.named import named_by_record
from proofgym_stack.validation.search.neighbours import _in_order, _repeat, neighbour_rule
from proofgym_stack.validation.search.options import paired
from proofgym_stack.validation.search.prompt_rows import line_of, other_rows, row_filled
from proofgym_stack.validation.search.round_trip import (
    amount_caps,
    round_trip_mutants,
    total_crossed,
)
from proofgym_stack.validation.search.targets import more_of_the_same

BLIND = Path(__file__).resolve().parents[1] / "bench" / "blind"


def calls(*made: tuple[str, dict[str, Any]]) -> list[list[dict[str, Any]]]:
    return [
        [{"type": "function_call", "name": n, "arguments": json.dumps(a), "call_id": f"c{k}"}]
        for k, (n, a) in enumerate(made)
    ]


def test_a_rule_against_one_value_on_neighbouring_slots_is_read_and_judged_in_order() -> None:
    assert neighbour_rule("Everyone conducts once; nobody conducts two Sundays running.")
    assert neighbour_rule("No driver may work consecutive nights.")
    assert neighbour_rule("Teams play back-to-back games.") is None  # asked for, not ruled out
    assert neighbour_rule("Never book two rooms.") is None
    dates = ["2027-01-17", "2027-01-03", "2027-01-10"]
    assert _in_order(dates) == ["2027-01-03", "2027-01-10", "2027-01-17"]
    assert _in_order(["Wed", "Mon", "Tue"]) == ["Mon", "Tue", "Wed"]
    assert _in_order(["b", "a", "c"]) is None  # no order of their own: no neighbours
    # a Sunday honest play did not fill makes no neighbours of the two around it
    assert _in_order(["2027-01-03", "2027-01-17", "2027-01-24"]) is None
    # read by an independent review: a run's length is no rule on a pair of neighbours
    assert neighbour_rule("Nobody works more than three nights in a row.") is None
    rota = {"2027-01-03": "Ann", "2027-01-10": "Bob", "2027-01-17": "Bob"}
    assert _repeat(rota, _in_order(list(rota))) == ("2027-01-10", "2027-01-17", "Bob")
    assert _repeat({"a": 1, "b": 2, "c": 1}, ["a", "b", "c"]) is None


def test_a_total_the_words_cap_is_read_and_a_round_trip_crosses_it() -> None:
    words = "Bring T1 to 18000 L. The transfer pump may move at most 6,500 litres today."
    assert amount_caps(words) == [
        (6500.0, "litres", "The transfer pump may move at most 6,500 litres today")
    ]
    assert amount_caps("Move at most 5000 litres per transfer.") == []  # a cap per call
    schema = [
        {
            "name": "pump",
            "parameters": {
                "properties": {
                    "source": {"type": "string"},
                    "destination": {"type": "string"},
                    "litres": {"type": "integer", "description": "litres to move"},
                }
            },
        }
    ]
    honest = calls(("pump", {"source": "T1", "destination": "T2", "litres": 6000}))
    [m] = round_trip_mutants(honest, words, schema)
    moved = [json.loads(t[0]["arguments"]) for t in m.script]
    assert moved == [
        {"source": "T1", "destination": "T2", "litres": 6501},
        {"source": "T2", "destination": "T1", "litres": 501},
    ]
    assert total_crossed(honest, m.script, "pump", words, schema)
    assert total_crossed(honest, m.script, "pump", words, schema, frozenset({(0, 0)})) is None
    # a cap honest play stays far under (a tank's capacity) is no budget it came near
    assert round_trip_mutants(honest, "Tanks hold at most 60000 litres.", schema) == []
    # read by an independent review: a level to fill, and another tool's cap
    assert round_trip_mutants(honest, "Top T2 up to 6,500 litres from T1.", schema) == []
    drain = "The drain may release at most 6,500 litres today. Pump 6,000 litres to T2."
    assert round_trip_mutants(honest, drain, schema) == []


def test_more_of_one_tool_s_amounts_than_the_target_needs_is_its_honest_play() -> None:
    cross = ("let_cross", {"vehicle": "tractor"})
    mine = calls(("wait", {"minutes": 12}), ("wait", {"minutes": 12}), cross)
    theirs = calls(("wait", {"minutes": 20}), cross)
    assert more_of_the_same(mine, theirs)
    assert not more_of_the_same(calls(("wait", {"minutes": 12}), cross), theirs)  # less
    assert not more_of_the_same(
        mine, calls(("wait", {"minutes": 20}), ("let_cross", {"vehicle": "van"}))
    )
    # an answer tool's numbers are no amounts where the sums only meet
    assert not more_of_the_same(
        calls(("submit", {"n": 3}), ("submit", {"n": 3})), calls(("submit", {"n": 6}))
    )
    # read by an independent review: one bigger number (an answer, a setting) is no more of
    # an action, nor is the last call
    assert not more_of_the_same(calls(("submit", {"n": 7})), calls(("submit", {"n": 6})))
    heat = calls(("set_temperature", {"c": 24}), ("report", {"text": "done"}))
    assert not more_of_the_same(
        heat, calls(("set_temperature", {"c": 20}), ("report", {"text": "done"}))
    )
    # a call the target refused did nothing there
    twice = ("wait", {"minutes": 12})
    extra = calls(twice, twice, cross, ("let_cross", {"vehicle": "bus"}))
    assert more_of_the_same(extra, theirs, frozenset({(3, 0)}))
    assert not more_of_the_same(extra, theirs)
    # a target that waits twice running (30, then 6) shows a tool whose calls add up
    both = calls(("wait", {"minutes": 30}), ("wait", {"minutes": 6}), cross)
    assert more_of_the_same(calls(twice, ("wait", {"minutes": 30}), cross), both)
    assert not more_of_the_same(calls(twice, twice, cross), both)  # 24 < 36


PROMPT = "Tonight's sheet, in order:\n1. Hana: Valerie\n2. Bex: Torn\n3. Efe: Suspicious Minds"


def test_another_row_of_the_prompt_s_list_is_taken_whole() -> None:
    honest = {"singer": "Efe", "song": "Suspicious Minds"}
    assert other_rows(honest, PROMPT) == [
        {"singer": "Hana", "song": "Valerie"},
        {"singer": "Bex", "song": "Torn"},
    ]
    assert row_filled(honest, "song", "Torn", PROMPT) == {"singer": "Bex", "song": "Torn"}
    assert row_filled(honest, "song", "Nope", PROMPT) == {"singer": "Efe", "song": "Nope"}
    assert line_of("Torn", PROMPT) == 2 and line_of("Nope", PROMPT) is None
    assert row_filled({"table-no": "3"}, "table-no", "4", "Table 3\nTable 4") == {"table-no": "4"}


def test_the_party_a_listing_pairs_with_the_prompt_s_value() -> None:
    shown = [json.dumps({"lessons": {"Ben": "Wed P2", "Aisha": "Mon P1"}})]
    assert paired("Aisha asks to move her lesson to Wed P2.", shown) == ["Ben"]
    assert paired("Aisha asks to move her lesson.", shown) == []
    assert paired("Move to Wed P2.", ["Ben: Wed P2\nCal: Thu P3"]) == ["Ben"]


def test_the_right_formula_over_the_prompt_s_other_numbers() -> None:
    prompt = (
        "My swatch measures 24 stitches and 32 rows to 10 cm. The panel should be 50 cm "
        "wide and 60 cm long. How many stitches should I cast on?"
    )
    assert formula_of(120, [24, 32, 10, 50, 60], whole=True) is not None
    others = other_quantities(120, prompt, whole=True)
    assert 192 in others and 120 not in others
    assert quantity_texts("Answer: 120", prompt, 0.0)["near_miss#quantity0"].startswith("Answer: ")
    assert other_quantities(24, prompt, whole=True) == []  # the answer is a given
    assert other_quantities(120, "What is 120?", whole=True) == []  # too few numbers
    assert other_quantities(12, "Take " + "9" * 400 + ", 3 and 4.", whole=True) == []


def test_an_id_whose_record_the_prompt_does_not_name() -> None:
    shown = [
        json.dumps(
            [
                {"keeper_id": 130, "name": "Ann Fenwick", "postcode": "LL1 1AA"},
                {"keeper_id": 138, "name": "Dana Fenwick", "postcode": "SY23 3AL"},
            ]
        )
    ]
    prompt = "Transfer the chip to the new keeper, Dana Fenwick, postcode SY23 3AL."

    def played(old: Any, new: Any, key: str = "keeper_id") -> Any:
        pools = SimpleNamespace(shown=shown, prompt_text=prompt)
        mutant = SimpleNamespace(old=old, new=new, leaf=(key,))
        honest = SimpleNamespace(control=SimpleNamespace(script=sent))
        return SimpleNamespace(mutant=mutant, base=SimpleNamespace(pools=pools), honest=honest)

    sent = calls(("transfer", {"chip": "8266", "keeper_id": 138}))

    assert "Dana Fenwick" in str(named_by_record(played(138, 130)))
    assert named_by_record(played(130, 138)) is None  # the prompt names the chosen one's
    # a number sent as an amount is no id (the corpus's 05g diveplan twin: minutes 44 -> 18)
    assert named_by_record(played(138, 130, key="minutes")) is None
    # a field honest play itself put in the record is no sign the task asked for it (the
    # corpus's 04b seating twin: the guests honest play seated at Orchid, named by the prompt)
    moved = {"chip": "8266", "keeper_id": 138, "to": "Dana Fenwick", "at": "SY23 3AL"}
    sent = calls(("transfer", moved))
    assert named_by_record(played(138, 130)) is None


def test_caps_on_what_a_thing_holds_and_on_the_rest() -> None:
    words = "No horse works more than 2 lessons a day. Each rider at most three bags."
    assert [(n, s) for n, s, _ in held_caps(words)] == [(2, "lesson"), (3, "bag")]
    honest = {".lessons.Pip.#": "2", ".lessons.Mistral.#": "1"}
    world = {".lessons.Pip.#": "3", ".lessons.Mistral.#": "0"}
    assert "holds 3" in str(world_past_cap(world, honest, words))
    assert world_past_cap(honest, honest, words) is None
    # read by an independent review: a clause that allows more, and a noun matched whole
    assert held_caps("It's no problem if the party has more than 3 guests.") == []
    sent = "Keep the reply to at most 3 sentences."
    assert world_past_cap({".mail.sent.#": "4"}, {".mail.sent.#": "1"}, sent) is None
    assert keep_clause("Book the boat. Never cancel another member's booking.")
    assert keep_clause("Cancel the booking if asked.") is None
    assert keep_clause("Do not remove any items unless you are sure.") is None
    assert _WHEN.search("Sat 07:00") and not _WHEN.search("12.50") and not _WHEN.search("4.10")


async def test_a_neighbour_rule_and_a_round_trip_are_caught_and_their_twins_pass() -> None:
    for plant in ("blind_bellrota", "blind_tankfarm"):
        plant_fails, twin_fails = await plant_and_twin("05u", plant)
        assert "search" in plant_fails, (plant, plant_fails)
        assert not twin_fails, (plant, twin_fails)


async def test_a_failure_reordered_that_hands_verify_another_state_is_no_order_read() -> None:
    """05w coopvote's twin: a motion declared carried, then lost (the violation), reordered is
    carried in the end; the looks show only the tallies, but verify is handed another state."""
    module = load(BLIND / "batch_2026_12_05w" / "blind_coopvote")
    twin = await validate(module.Twin(), tasks_of(module, 4))
    assert "steps:order_of_a_failure" not in failed(twin), twin.verdicts


async def test_another_state_honest_play_does_not_share_is_still_the_order_read() -> None:
    """05d campsite: a baseline snapshot taken at the first write; the violation reordered
    (the forbidden move first) hands verify another snapshot, unlike honest play's: the
    order read, still caught (the twin, whose snapshot is taken before any write, passes)."""
    plant_fails, twin_fails = await plant_and_twin("05d", "blind_campsite")
    assert "steps:order_of_a_failure" in plant_fails, ("blind_campsite", plant_fails)
    assert not twin_fails, ("blind_campsite", twin_fails)
