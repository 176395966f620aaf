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

from proofgym_stack.validation.regions import _across_zero, _past_stated, beyond, moved_together
from proofgym_stack.validation.scripts import call_arguments
from proofgym_stack.validation.search.caps import text_past_length
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
    own += [_call("deliver", slot=33)]
    diffs = [(n, ("minutes",), 33, 38) for n in range(3)] + [(3, ("slot",), 33, 38)]
    groups = moved_together(diffs, own)
    # the same pair of values under another argument is another choice: probed on its own
    assert sorted(map(sorted, groups)) == [[0, 1, 2], [3]]
    far = beyond(own, diffs, 4, moved=frozenset({0, 1, 2}))
    assert far is not None
    assert [a.get("minutes", a.get("slot")) for _, a in _args(far)] == [53, 53, 53, 38]


def test_a_region_is_closed_only_by_a_probe_that_fails_for_the_number() -> None:
    diffs: list[Any] = [(0, ("minutes",), 33, 38)]
    # just past the numbers the words state beyond four gaps, nearest first
    ks = _past_stated(diffs, frozenset({0}), "at least 33 a day, no day over 62, 5 dogs")
    assert [round(33 + k * 5) for k in ks] == [63]
    # a value moved across zero is no probe (a sign refused for its own reason)
    assert _across_zero([(0, ("n",), 33, 28)], frozenset({0}), 8)
    assert not _across_zero([(0, ("n",), 33, 28)], frozenset({0}), 4)
    # a whole number rounded onto zero crosses it as written (3 against 1: 0.5 is sent as 0)
    assert _across_zero([(0, ("n",), 3, 1)], frozenset({0}), 1.25)
    # a clock time's or a date's stated numbers are on another scale: none probed
    assert _past_stated([(0, ("at",), "10:00", "09:30")], frozenset({0}), "40 seats, 2026") == []


def test_a_one_line_listing_of_ranges_gives_its_other_slots() -> None:
    diary = "08:00-09:30: free; 09:30-11:00: free; 11:00-12:30: free; 12:30-14:00: Allen"
    assert len(records([diary])[0]) == 4
    assert siblings("11:00", [diary]) == ["08:00", "09:30", "12:30"]  # starts, not ends
    assert siblings("11:00", ["Booked 11:00 for Mr Dube"]) == []  # one record: no listing
    # one semicolon in a line is prose, not a listing
    assert siblings("11:00", ["Booked 11:00 for Mr Dube; confirmation 12:00 sent"]) == []
    # a range's ends are numbers where the value is; a date's parts are no range
    assert siblings(30, ["10-30 kg: £5; 30-50 kg: £8; 50-70 kg: £11"]) == [10, 50]
    assert siblings("2024", ["2024-05-01: open\n2023-06-02: closed"]) == []


def test_rows_of_items_are_one_listing() -> None:
    hall = "front row: 1 free, 2 Tibbles (entire tom), 3 free\nback row: 4 free, 5 Max, 6 free"
    assert siblings(6, [hall])[:5] == [1, 2, 3, 4, 5]
    assert records(["a, b, c\nd"]) == [["a, b, c", "d"]]  # a line without items: no rows
    # a table's columns are no rows of options: a price's siblings are other prices
    table = "name,price,stock\nA,10,5\nB,12,7"
    assert 5 not in siblings(10, [table]) and 7 not in siblings(10, [table])


def test_a_shortened_name_is_sent_as_the_prompt_writes_it() -> None:
    prompt = (
        "Mary Felix Pemberton won the Dunmore Veterans Cup, ahead of Ben Pemberton. Meet "
        "at The Grand Hotel. Engrave the winner's name."
    )
    assert named_whole("M. F. Pemberton", prompt) == ["Mary Felix Pemberton"]
    assert named_whole("Pemberton", prompt) == ["Mary Felix Pemberton", "Ben Pemberton"]
    assert named_whole("hotel lobby", prompt) == []  # another last word
    assert named_whole("Grand Hotel", prompt) == ["The Grand Hotel"]
    assert named_whole("X. Pemberton", prompt) == []  # an initial of no word of the name
    names = ("engrave", "text")
    assert text_past_length("M. F. Pemberton", "Mary Felix Pemberton", prompt, names) is None
    line = "Engrave the name; its line holds 17 characters, spaces included."
    assert text_past_length("M. F. Pemberton", "Mary Felix Pemberton", line, names)
    assert not text_past_length("M. F. Pemberton", "Mary F. Pemberton", line, names)  # 17 fits
    # a cap on titles says nothing of a note
    titles = "Titles hold at most 40 characters."
    assert text_past_length("short", "x" * 51, titles, ("add_note", "body")) is None


def test_an_order_past_the_budget_once_the_words_add_the_tax() -> None:
    shown = [
        "standard-seed: £22.00 a bag + VAT; premium-seed: £30.00 a bag + VAT; "
        "lawn-sand: £9.00 a bag + VAT"
    ]
    words = (
        "Catalogue prices exclude VAT (20%); budgets include it. Order 6 bags. The "
        "committee's budget is £200.00, VAT included."
    )
    assert tax_rate(words, shown) == 0.2
    honest = _call("order", product="standard-seed", bags=6)
    premium = _call("order", product="premium-seed", bags=6)
    why = over_budget([honest], [premium], "order", shown, words, "standard-seed", "premium-seed")
    assert why is not None and "216.00" in why
    # a budget before tax: the premium order (£180 net) keeps it
    net = words.replace("VAT included", "before VAT")
    assert (
        over_budget([honest], [premium], "order", shown, net, "standard-seed", "premium-seed")
        is None
    )
    # another day is no other option: its number is not a count of bags
    day12 = _call("order", product="standard-seed", bags=6, day=12)
    day14 = _call("order", product="standard-seed", bags=6, day=14)
    assert over_budget([day12], [day14], "order", shown, words, 12, 14) is None
    # a tax year is no tax rate
    assert tax_rate("The tax year 2024 at 15% ends in April.", []) == 0.0


def test_a_batch_of_every_list_call_with_another_call_left_out() -> None:
    script = [
        _call("issue_guides", languages=["French"]),
        _call("issue_guides", languages=["Mandarin"]),
        _call("charge", guides=1),
    ]
    batched = [m for m in call_mutants(script, Pools()) if m.op == "batch_drop"]
    assert [_args(m.script) for m in batched] == [
        [("issue_guides", {"languages": ["French", "Mandarin"]})]
    ]
    # a fee per call (no count of the things the batch carries) is the batch's honest saving
    fee = [*script[:2], _call("pay_fee", transactions=2)]
    assert not [m for m in call_mutants(fee, Pools()) if m.op == "batch_drop"]
    scalar = [_call("book", slot="a"), _call("book", slot="b"), _call("pay", n=1)]
    assert not [m for m in call_mutants(scalar, Pools()) if m.op == "batch_drop"]
    for odd in (None, 3, "Mandarin"):  # a member that is no list: no batch, no crash
        mixed = [script[0], _call("issue_guides", languages=odd), script[2]]
        assert not [m for m in call_mutants(mixed, Pools()) if m.op == "batch_drop"]


def test_a_reversal_that_keeps_a_number_is_read_from_the_worlds() -> None:
    initial = {".stamps": "8", ".takings": "0", ".sales": "{}"}
    honest = {".stamps": "9", ".takings": "16", ".sales.S1.refunded": "False"}
    partial = {".stamps": "9", ".takings": "0", ".sales.S1.refunded": "True"}
    assert kept_by_reversal(initial, honest, partial) == ({".takings"}, {".stamps"})
    whole = {**partial, ".stamps": "8"}
    assert kept_by_reversal(initial, honest, whole) == ({".takings", ".stamps"}, set())
    # no reversal at all (a redeem after the sale): nothing taken back, nothing to gather
    assert kept_by_reversal(initial, honest, honest)[0] == set()
    words = "The card has 8 stamps. 10 stamps buy one free wash; ten loyalty stamps too."
    assert stated_counts(".stamps", words) == [8.0, 10.0, 10.0]
    assert stated_counts(".class", "2 classes a week") == [2.0]
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
