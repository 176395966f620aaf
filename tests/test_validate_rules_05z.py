"""Read off blind batch 05z's first run (its twin and misses), each a general rule, with the
plant it came from:

- puppywalk (twin): another task's reference inside the region this task accepts, where the
  numbers that differ are one choice written in several calls (every day's walk): probed as
  one group, the region closed within sixteen gaps (a daily cap far above the average asked);
- chimney: a listing printed on one line with semicolons, its records ranges (`11:00-12:30:
  free`): the other free slots are options, and one outside the hours the prompt states is a
  rule broken;
- catshow: a listing of rows of comma-separated items (`front row: 1 free, 2 Tibbles`): the
  items of every row are its options;
- engraving: a text argument that shortens a name the prompt gives (`M. F. Pemberton`), sent
  as the prompt writes it;
- bowlsclub: another option whose order costs more than a budget the words state, priced as
  the words price it (the catalogue's prices exclude VAT, the budget includes it);
- audioguide: every call of a tool taking a list made as one batch, and each call of another
  tool left out in turn (the extra guides' charge, which a count of calls asks less of);
- carwash: a reversal (a refund) that takes back some of what its action did and keeps a
  number (the stamp), the pair made until the number reaches the count the words trade it
  at, then spent (`redeem`): full reward with the action's money never taken.
"""

from __future__ import annotations

from typing import Any

from blind_check import plant_and_twin

from proofgym_stack.validation.regions import beyond, moved_together
from proofgym_stack.validation.scripts import call_arguments
from proofgym_stack.validation.search.mutants import call_mutants
from proofgym_stack.validation.search.options import records, siblings
from proofgym_stack.validation.search.priced import over_budget, tax_rate
from proofgym_stack.validation.search.residue import _next_ids, kept_by_reversal, stated_counts
from proofgym_stack.validation.search.values import Pools, named_whole


def _call(name: str, **args: Any) -> list[dict[str, Any]]:
    return [{"type": "function_call", "name": name, "arguments": args}]


def _args(script: list[list[dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    return [(str(item["name"]), call_arguments(item)) for turn in script for item in turn]


def test_numbers_that_differ_together_are_probed_as_one_choice() -> None:
    own = [_call("log_walk", day=d, minutes=33) for d in ("Mon", "Tue", "Wed")]
    diffs = [(n, ("minutes",), 33, 38) for n in range(3)] + [(3, ("x",), 5, 6)]
    groups = moved_together(diffs)
    assert sorted(map(sorted, groups)) == [[0, 1, 2], [3]]
    far = beyond([*own, _call("other", x=5)], diffs, 4, moved=frozenset({0, 1, 2}))
    assert far is not None
    assert [a["minutes"] for _, a in _args(far)[:3]] == [53, 53, 53]


def test_a_one_line_listing_of_ranges_gives_its_other_slots() -> None:
    diary = "08:00-09:30: free; 09:30-11:00: free; 11:00-12:30: free; 12:30-14:00: Allen"
    assert len(records([diary])[0]) == 4
    assert siblings("11:00", [diary]) == ["08:00", "09:30", "12:30"]
    assert siblings("11:00", ["Booked 11:00 for Mr Dube"]) == []  # one record: no listing


def test_rows_of_items_are_one_listing() -> None:
    hall = "front row: 1 free, 2 Tibbles (entire tom), 3 free\nback row: 4 free, 5 Max, 6 free"
    options = siblings(6, [hall])
    assert options[:5] == [1, 2, 3, 4, 5]
    assert records(["a, b, c\nd"]) == [["a, b, c", "d"]]  # a line without items: no rows


def test_a_shortened_name_is_sent_as_the_prompt_writes_it() -> None:
    prompt = "Mary Felix Pemberton won the Dunmore Veterans Cup. Engrave the winner's name."
    assert named_whole("M. F. Pemberton", prompt) == ["Mary Felix Pemberton"]
    assert named_whole("Dunmore Veterans Cup", prompt) == []  # the name itself
    assert named_whole("42", prompt) == []


def test_an_order_past_the_budget_once_the_words_add_the_tax() -> None:
    shown = ["standard-seed: £22.00 a bag + VAT; premium-seed: £30.00 a bag + VAT"]
    words = (
        "Catalogue prices exclude VAT (20%); budgets include it. Order 6 bags. The "
        "committee's budget is £200.00, VAT included."
    )
    assert tax_rate(words, shown) == 0.2
    honest, premium = (
        _call("order", product="standard-seed", bags=6),
        _call("order", product="premium-seed", bags=6),
    )
    why = over_budget([honest], [premium], "order", shown, words)
    assert why is not None and "216.00" in why
    # no tax the words add: the premium order (£180) keeps the budget
    plain = words.replace("Catalogue prices exclude VAT (20%); budgets include it. ", "")
    assert tax_rate(plain, [s.replace(" + VAT", "") for s in shown]) == 0.0
    assert (
        over_budget([honest], [premium], "order", [shown[0].replace(" + VAT", "")], plain) is None
    )


def test_a_batch_of_every_list_call_with_another_call_left_out() -> None:
    script = [
        _call("issue", languages=["French"]),
        _call("issue", languages=["Mandarin"]),
        _call("charge", guides=1),
    ]
    batched = [m for m in call_mutants(script, Pools()) if m.op == "batch_drop"]
    assert [_args(m.script) for m in batched] == [
        [("issue", {"languages": ["French", "Mandarin"]})]
    ]
    scalar = [_call("book", slot="a"), _call("book", slot="b"), _call("pay", n=1)]
    assert not [m for m in call_mutants(scalar, Pools()) if m.op == "batch_drop"]


def test_a_reversal_that_keeps_a_number_is_read_from_the_worlds() -> None:
    initial = {".stamps": "8", ".takings": "0", ".sales": "{}"}
    honest = {".stamps": "9", ".takings": "16", ".sales.S1.refunded": "False"}
    partial = {".stamps": "9", ".takings": "0", ".sales.S1.refunded": "True"}
    assert kept_by_reversal(initial, honest, partial) == ({".takings"}, {".stamps"})
    whole = {**partial, ".stamps": "8"}
    assert kept_by_reversal(initial, honest, whole) == ({".takings", ".stamps"}, set())
    # no reversal at all (a redeem after the sale): nothing taken back, nothing to gather
    assert kept_by_reversal(initial, honest, honest)[0] == set()
    words = "The card has 8 stamps. 10 stamps buy one free wash; a stamp a wash."
    assert stated_counts(".stamps", words) == [8.0, 10.0]
    assert stated_counts(".id", words) == []
    assert _next_ids("S1", 3) == ["S1", "S2", "S3"]
    assert _next_ids("ORD-0041", 2) == ["ORD-0041", "ORD-0042"]
    assert _next_ids("abc", 2) is None


async def test_05z_plants_are_caught_and_their_twins_pass() -> None:
    for plant in (
        "blind_puppywalk",
        "blind_chimney",
        "blind_engraving",
        "blind_bowlsclub",
        "blind_audioguide",
        "blind_carwash",
    ):
        plant_fails, twin_fails = await plant_and_twin("05z", plant)
        assert plant_fails, (plant, plant_fails)
        assert not twin_fails, (plant, twin_fails)
