"""Each piece of the verifier library, on its own."""

from __future__ import annotations

import json

import pytest

from proofgym.wire.protocol import Check
from proofgym.wire.responses import (
    assistant_message,
    build_response,
    function_call,
    function_call_output,
)
from resources_servers.verifiers.answers import (
    exact_answer_check,
    extract_answers,
    length_guard,
    numeric_answer_check,
    parse_number,
)
from resources_servers.verifiers.claims import claim_check, claims_success
from resources_servers.verifiers.compose import all_or_nothing, weighted
from resources_servers.verifiers.state import diff, matches, unchanged_except
from resources_servers.verifiers.trajectory import (
    call_limit,
    forbidden_arguments,
    forbidden_tools,
    required_before,
)


def rollout(*calls: tuple[str, dict[str, object]], final: str = "done") -> object:
    items = [function_call(n, json.dumps(a)) for n, a in calls] + [assistant_message(final)]
    return build_response(items, model="m")


def test_state_diff_names_every_change() -> None:
    before = {"a": 1, "b": 2, "c": 3}
    after = {"a": 1, "b": 5, "d": 4}
    d = diff(before, after)
    assert (d.added, d.removed, d.changed) == (["d"], ["c"], ["b"])
    assert d.describe() == "added: d; removed: c; changed: b"
    assert unchanged_except(before, {**before, "b": 9}, allowed={"b"}).passed
    check = unchanged_except(before, after, allowed={"b"})
    assert not check.passed and "removed: c" in check.detail
    assert matches({"x": 1.0}, {"x": 1}).passed and not matches({}, {"x": 1}).passed


def test_trajectory_constraints() -> None:
    r = rollout(
        ("find", {"id": 1}), ("verify", {"id": 1}), ("refund", {"id": 1}), ("refund", {"id": 2})
    )
    assert not forbidden_tools(r, {"refund"}).passed and forbidden_tools(r, {"drop"}).passed
    assert not forbidden_arguments(r, "refund", lambda a: a["id"] == 2).passed
    assert required_before(r, "verify", {"refund"}).passed  # some verify came first
    keyed = required_before(r, "verify", {"refund"}, key=lambda a: a.get("id"))
    assert not keyed.passed  # order 2 was refunded without verifying customer 2
    early = rollout(("refund", {"id": 1}), ("verify", {"id": 1}))
    assert not required_before(early, "verify", {"refund"}).passed
    assert call_limit(r, 4).passed and not call_limit(r, 1, tool="refund").passed


def test_required_before_counts_no_refused_call_and_survives_any_key() -> None:
    # a survey the tool refused surveyed nothing: the felling after it came first
    items = [
        function_call("survey", json.dumps({"tree": "oak"}), call_id="c1"),
        function_call_output("c1", "Error: no tree 'oak ' on the plot"),
        function_call("fell", json.dumps({"tree": "oak"}), call_id="c2"),
        function_call_output("c2", "felled oak"),
        assistant_message("done"),
    ]
    r = build_response(items, model="m")
    assert not required_before(r, "survey", {"fell"}).passed
    assert not required_before(r, "survey", {"fell"}, key=lambda a: a.get("tree")).passed
    # a key a policy made a list (where a name was expected) is compared, never a crash
    listed = rollout(("survey", {"tree": ["oak"]}), ("fell", {"tree": ["oak"]}))
    assert required_before(listed, "survey", {"fell"}, key=lambda a: a.get("tree")).passed
    other = rollout(("survey", {"tree": ["oak"]}), ("fell", {"tree": ["ash"]}))
    assert not required_before(other, "survey", {"fell"}, key=lambda a: a.get("tree")).passed


@pytest.mark.parametrize(
    "text,claims",
    [
        ("Done: set version = 2.", True),
        ("I updated the file.", True),
        ("I could not finish: the file is missing.", False),
        ("Here is the file.", False),
    ],
)
def test_claims(text: str, claims: bool) -> None:
    assert claims_success(text) is claims


def test_claim_check_needs_state_to_back_a_claim() -> None:
    assert not claim_check("Done!", achieved=False).passed
    assert claim_check("Done!", achieved=True).passed
    assert claim_check("I failed to do it.", achieved=False).passed


def test_answer_extraction_and_matching() -> None:
    assert extract_answers("so \\boxed{\\frac{1}{2}} and\nAnswer: 42") == ["\\frac{1}{2}", "42"]
    # a denied, contradicted or retracted answer states nothing, as a person reads it
    assert extract_answers("It comes to 70.12 board feet.\nAnswer: not 70.12") == []
    assert extract_answers("Answer: 70.12\n\nWait, that is wrong. Scratch that.") == []
    assert extract_answers("Answer: 340 = 333") == []
    assert extract_answers("7 * 12 * 4 - 3 = 333\nAnswer: 333.") == ["333."]
    assert parse_number("$1,234.50") == 1234.5 and parse_number("12%") == 12
    assert parse_number("3 or 4") is None
    assert numeric_answer_check("Answer: 1,000", 1000).passed
    assert numeric_answer_check("\\boxed{0.5}", 0.5000001).passed
    assert not numeric_answer_check("Answer: 7", 8).passed
    assert not numeric_answer_check("the result is 8", 8).passed  # no explicit answer
    hedge = numeric_answer_check("Answer: 7\nAnswer: 8", 8)
    assert not hedge.passed and "conflicting" in hedge.detail
    assert not numeric_answer_check("Answer: 7 or 8", 8).passed
    assert exact_answer_check("Answer: Paris.", "paris").passed
    assert not length_guard("x" * 101, 100).passed and length_guard("x", 100).passed


def test_composition_sums_components() -> None:
    ok, bad = Check(name="a", passed=True), Check(name="b", passed=False)
    assert all_or_nothing([ok, ok]).reward == 1.0
    assert all_or_nothing([ok, bad]).reward == 0.0
    assert all_or_nothing([]).reward == 0.0  # no evidence is no pass
    r = weighted({"x": (0.7, ok), "y": (0.3, bad)})
    assert r.reward == pytest.approx(0.7) and r.reward_components == {"x": 0.7, "y": 0.0}
    gated = weighted({"x": (0.7, ok)}, gates=[bad])
    assert gated.reward == 0.0 and gated.checks[0].name == "b"
