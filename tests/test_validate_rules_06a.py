"""Read off blind batch 06a's first run (its misses), each a general rule, with the plant it
came from:

- bowling: a later call of a tool made as its sibling onto what the first call made
  (`add_bowlers(lane=1, bowlers=4)` for the second `book_lane`), and the numbers sent for one
  thing summed against a cap the words state on what it holds ("a lane takes at most 6
  bowlers");
- netball: neighbours of a list swapped, and a ranking with tie-breaks whose swapped
  neighbours' records differ;
- toolshed: the author's own violation turned round (it waitlists what honest play lent;
  the mutant lends what honest play waitlisted, and is paid);
- cargobike: a route's step that only a one-way link the other way allows.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from blind_check import plant_and_twin

from proofgym.wire.protocol import Control
from proofgym_stack.validation.search.caps import summed_past_cap
from proofgym_stack.validation.search.member_order import swapped_in_a_ranking
from proofgym_stack.validation.search.mirrored import mirrored_violation
from proofgym_stack.validation.search.mutants import Mutant
from proofgym_stack.validation.search.other_calls import _onto_earlier
from proofgym_stack.validation.search.route import links, wrong_way


def _call(name: str, **args: Any) -> list[dict[str, Any]]:
    return [{"type": "function_call", "name": name, "arguments": args}]


def test_a_later_call_is_made_onto_what_the_first_made() -> None:
    script = [_call("book_lane", lane=1, party="Ng", bowlers=6)]
    script += [_call("book_lane", lane=2, party="Ng", bowlers=4)]
    props = {"lane": {"type": "integer"}, "bowlers": {"type": "integer"}}
    assert _onto_earlier(script, 1, 0, props) == {"lane": 1, "bowlers": 4}
    assert _onto_earlier(script, 0, 0, props) is None  # nothing made before the first
    assert _onto_earlier(script, 1, 0, {"lane": {"type": "integer"}}) is None  # one parameter
    # an earlier call without one of the shared parameters is no call to grow
    noted = [script[0], _call("book_lane", note="x", lane=2, bowlers=4)]
    assert (
        _onto_earlier(noted, 1, 0, {"note": {"type": "string"}, "lane": {"type": "integer"}})
        is None
    )


def test_numbers_sent_for_one_thing_are_summed_against_what_it_may_hold() -> None:
    words = "A lane takes at most 6 bowlers. Book every bowler of the party."
    honest = [_call("book_lane", lane=1, party="Ng", bowlers=6)]
    honest += [_call("book_lane", lane=2, party="Ng", bowlers=4)]
    grown = [honest[0], _call("add_bowlers", lane=1, bowlers=4)]
    why = summed_past_cap(honest, grown, words, frozenset())
    assert why is not None and "lane 1" in why and "10" in why
    # the party itself is given 10 by honest play too: no cap on it is read
    assert summed_past_cap(honest, honest, words, frozenset()) is None
    # a refused addition took no effect
    assert summed_past_cap(honest, grown, words, frozenset({(1, 0)})) is None
    # a cap on what a table seats sums under the table, not under the time
    seats = "A table seats at most 6 guests."
    dinner = [_call("book", table="T1", time="19:00", guests=4)]
    more = [*dinner, _call("book", table="T2", time="19:00", guests=4)]
    assert summed_past_cap(dinner, more, seats, frozenset()) is None


def test_a_ranking_with_tie_breaks_swapped_where_the_records_differ() -> None:
    words = (
        "Results: Ashford W4 D0 L6 goals 307-298; Bexley W4 D0 L6 goals 384-412; Carlton W4 "
        "D0 L6 goals 300-298. Rank the teams by points; teams level on points by goal "
        "difference; then by goals for."
    )
    honest = [_call("publish", order=["Ashford", "Carlton", "Bexley"])]
    swapped = [_call("publish", order=["Carlton", "Ashford", "Bexley"])]
    why = swapped_in_a_ranking(honest, swapped, words)
    assert why is not None and "Carlton above Ashford" in why
    # no tie-break stated: level teams may stand either way
    plain = words.replace("; teams level on points by goal difference; then by goals for", "")
    assert swapped_in_a_ranking(honest, swapped, plain) is None
    # two members whose records are the same: a tie no stated key breaks
    same = words.replace("300-298", "307-298")
    assert swapped_in_a_ranking(honest, swapped, same) is None
    # everyday words are no ranking: "order by Friday, then by Monday"
    errand = (
        "Place the order by Friday, then by Monday confirm delivery. Flour: 2 bags; Sugar: 3 bags."
    )
    flour = [_call("order", items=["Flour", "Sugar"])]
    assert swapped_in_a_ranking(flour, [_call("order", items=["Sugar", "Flour"])], errand) is None
    # tied members may stand in any order
    shared = words + " Teams level on everything share a place, in any order."
    assert swapped_in_a_ranking(honest, swapped, shared) is None
    # not neighbours: no swap of two
    far = [_call("publish", order=["Bexley", "Carlton", "Ashford"])]
    assert swapped_in_a_ranking(honest, far, words) is None


def _swapped(old: str, new: str, args: dict[str, Any], honest: list[Any]) -> Any:
    script = [*honest[:-1], _call(new, **args)]
    m = Mutant(script, "tool_swap", old, "tool_swap", "", (len(script) - 1, 0))
    return SimpleNamespace(mutant=m, honest=SimpleNamespace(control=SimpleNamespace(script=honest)))


def test_the_author_s_violation_turned_round() -> None:
    drill, cutter = (
        {"tool_name": "drill", "member": "Hal"},
        {"tool_name": "cutter", "member": "Hal"},
    )
    honest = [_call("lend", **drill), _call("waitlist", **cutter)]
    violation = Control(
        name="violation_waitlisted_a_free_tool",
        expect="fail",
        script=[_call("waitlist", **drill), _call("waitlist", **cutter)],
    )
    p = _swapped("waitlist", "lend", cutter, honest)
    why = mirrored_violation(p, [violation])
    assert why is not None and "violation_waitlisted_a_free_tool" in why
    # a failing control that never turns the choice (it leaves a tool out) says nothing
    short = Control(name="violation_short", expect="fail", script=[_call("lend", **drill)])
    assert mirrored_violation(p, [short]) is None
    # a look honest play made beside its action (a quote of each, then one booked), the
    # failing control booking another: no choice between the look and the action shown
    quotes = [_call("quote", courier="A"), _call("quote", courier="B"), _call("book", courier="A")]
    dearest = Control(
        name="violation_dearest",
        expect="fail",
        script=[*quotes[:2], _call("book", courier="B")],
    )
    assert (
        mirrored_violation(_swapped("quote", "book", {"courier": "B"}, quotes), [dearest]) is None
    )
    # a tool honest play never made: no choice between the two was shown
    q = _swapped("waitlist", "reserve", cutter, honest)
    assert mirrored_violation(q, [violation]) is None


def test_a_route_against_a_one_way_link() -> None:
    shown = [
        "Depot <-> Bell Yard: 220 m\nBell Yard <-> Church Gate: 150 m\n"
        "Church Gate -> Market Cross: 140 m (one-way)\nMarket Cross -> Bell Yard: 90 m (one-way)"
    ]
    assert ("market cross", "bell yard") in links(shown)
    assert ("bell yard", "market cross") not in links(shown)
    honest = [_call("submit_route", stops=["Depot", "Bell Yard", "Church Gate", "Market Cross"])]
    short = [_call("submit_route", stops=["Depot", "Bell Yard", "Market Cross"])]
    why = wrong_way(honest, short, shown)
    assert why is not None and "bell yard to market cross" in why
    assert wrong_way(honest, honest, shown) is None
    # honest play's route not read off this listing: no rule
    off = [_call("submit_route", stops=["Depot", "Quay"])]
    assert wrong_way(off, short, shown) is None
    # a long arrow is one arrow: `A <-- B` is a link from B to A
    assert links(["Depot <-- Bell Yard: 80 m"]) == {("bell yard", "depot")}


async def test_06a_plants_are_caught_and_their_twins_pass() -> None:
    for plant in ("blind_bowling", "blind_netball", "blind_toolshed", "blind_cargobike"):
        plant_fails, twin_fails = await plant_and_twin("06a", plant)
        assert plant_fails, (plant, plant_fails)
        assert not twin_fails, (plant, twin_fails)
