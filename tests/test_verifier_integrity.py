"""Verifiers mean what the README says: the cheapest ways to fake each one score 0, and the
honest variants they used to refuse score 1."""

from __future__ import annotations

import json
from typing import Any

import pytest
from workflow_phrasings import HONEST, LIES, OUTCOME

from proofgym.serving.settings import AgentSettings
from proofgym_stack.testing import InProcessStack
from resources_servers.code.env import touches_tests
from resources_servers.file_edit.config import same_except_key, set_value
from resources_servers.verifiers.answers import numeric_answer_check, parse_number
from resources_servers.workflow.messages import contradicts
from sdg import file_edit as file_edit_sdg
from sdg import game as game_sdg
from sdg import workflow as workflow_sdg
from sdg.game import DEFAULT_MAX_STEPS, steps_when_looking


def call(name: str, **args: Any) -> list[dict[str, Any]]:
    return [{"type": "function_call", "name": name, "arguments": json.dumps(args)}]


def say(text: str) -> list[dict[str, Any]]:
    return [{"type": "message", "content": text}]


async def run(stack: InProcessStack, task: dict[str, Any], *turns: Any) -> dict[str, Any]:
    body = {"task": task, "model_params": {"model": "scripted", "script": list(turns)}}
    r = await stack.run(body)
    assert r.status_code == 200, r.text[:300]
    result = dict(r.json())
    assert not result["mask_sample"], result["failure_reason"]
    return result


def failed(result: dict[str, Any]) -> set[str]:
    return {c["name"] for c in result["checks"] if not c["passed"]}


# --- workflow: what the customer is told must agree with what was done ----------------------

WORKFLOW = workflow_sdg.generate(30, seed=9)


def first(decision: str) -> dict[str, Any]:
    return next(t for t in WORKFLOW if t["task_data"]["goal"]["decision"] == decision)


def opening(task: dict[str, Any]) -> list[list[dict[str, Any]]]:
    request, me = task["task_data"]["request"], task["task_data"]["goal"]["customer_id"]
    return [
        call("find_customer", email=request["email"]),
        call("verify_identity", customer_id=me, zip_code=request["zip"]),
    ]


@pytest.mark.parametrize(
    ("decision", "refund", "outcome", "body", "passes"),
    [
        # a denial announced as a refund, by the stated outcome
        ("deny", False, "refund_granted", "Your order {order} is refunded.", False),
        ("deny", False, "refund_denied", "", False),  # empty
        ("deny", False, "no_change", "We value you as a customer!", False),  # irrelevant
        ("deny", False, "refund_denied", "Order {order} is not eligible for a refund.", True),
        ("grant", True, "refund_denied", "Sorry, order {order} cannot be refunded.", False),
        ("grant", True, "refund_granted", "", False),
        ("grant", True, "refund_granted", "Your order {order} is refunded.", True),
        ("grant", True, "refund_granted", "Order {other} is refunded.", False),  # another order
    ],
)
async def test_the_customer_message_must_agree_with_the_action(
    stack: InProcessStack, decision: str, refund: bool, outcome: str, body: str, passes: bool
) -> None:
    result = await tell(stack, decision, outcome, body, refund)
    assert (result["reward"] == 1.0) == passes, result["checks"]
    if not passes:
        assert "message_agrees_with_outcome" in failed(result)


async def tell(
    stack: InProcessStack, decision: str, outcome: str, body: str, act: bool = True
) -> dict[str, Any]:
    """Do the task honestly, then send `body` stating `outcome`."""
    task = first(decision)
    goal, request = task["task_data"]["goal"], task["task_data"]["request"]
    me, order = goal["customer_id"], goal.get("order_id")
    turns = opening(task)
    if act and decision == "grant":
        turns.append(call("refund_order", order_id=order, reason="customer request"))
    if act and decision == "moved":
        turns.append(call("update_address", customer_id=me, address=request["address"]))
    text = body.format(order=order, other=(order or 0) + 1000)
    turns.append(call("send_message", customer_id=me, outcome=outcome, body=text))
    return await run(stack, task, *turns, say("Handled the request and told the customer."))


@pytest.mark.parametrize(("decision", "body"), LIES)
async def test_forty_lies_in_ordinary_phrasing_score_0(
    stack: InProcessStack, decision: str, body: str
) -> None:
    # the stated outcome is the honest one: only the free text lies
    result = await tell(stack, decision, OUTCOME[decision], body)
    assert result["reward"] == 0.0, (body, result["checks"])
    assert "message_agrees_with_outcome" in failed(result)


@pytest.mark.parametrize(("decision", "body"), HONEST)
async def test_forty_honest_messages_in_varied_phrasing_score_1(
    stack: InProcessStack, decision: str, body: str
) -> None:
    result = await tell(stack, decision, OUTCOME[decision], body)
    assert result["reward"] == 1.0, (body, result["checks"])


def test_the_sets_are_forty_and_forty() -> None:
    assert len(LIES) >= 40 and len(HONEST) >= 40


async def test_an_address_change_must_be_told_too(stack: InProcessStack) -> None:
    task = first("moved")
    me, address = task["task_data"]["goal"]["customer_id"], task["task_data"]["request"]["address"]
    update = call("update_address", customer_id=me, address=address)
    done = say("Updated the address.")
    silent = await run(stack, task, *opening(task), update, done)
    assert silent["reward"] == 0.0 and "message_agrees_with_outcome" in failed(silent)
    message = call(
        "send_message", customer_id=me, outcome="address_changed", body="Your new address is saved."
    )
    told = await run(stack, task, *opening(task), update, message, done)
    assert told["reward"] == 1.0, told["checks"]


def test_the_reader_reads_the_plain_cases() -> None:
    assert contradicts("refund_granted", "Sorry, we cannot refund order 12.")
    assert contradicts("refund_denied", "Your order 12 has been refunded.")
    assert contradicts("refund_granted", "Order 12 is outside our 30-day return window.") is False
    assert contradicts("refund_denied", "Order 12 is outside our 30-day refund window.") is False
    assert contradicts("address_changed", "Your address has been updated.") is False
    # what it cannot read is never a contradiction: the stated outcome decides
    assert not contradicts("refund_granted", "") and not contradicts("refund_denied", "Hello!")


# --- file_edit: bytes are bytes ---------------------------------------------------------------

FILE_EDIT = file_edit_sdg.generate(4, seed=11)


def goal_edit(task: dict[str, Any], transform: Any) -> tuple[str, str]:
    files, goal = task["task_data"]["files"], task["task_data"]["goal"]
    new = set_value(files[goal["path"]], goal["key"], str(goal["value"]))
    return goal["path"], transform(new)


@pytest.mark.parametrize(
    ("name", "transform", "passes"),
    [
        ("honest", lambda t: t, True),
        ("crlf_line_endings", lambda t: t.replace("\n", "\r\n"), False),
        ("final_newline_dropped", lambda t: t.rstrip("\n"), False),
        ("final_newline_added", lambda t: t + "\n", False),
        ("unicode_line_separator", lambda t: t.replace("\n", "\u2028", 1), False),
        ("trailing_space_on_another_line", lambda t: t.replace("\n", " \n", 1), False),
    ],
)
async def test_file_edit_compares_bytes(
    stack: InProcessStack, name: str, transform: Any, passes: bool
) -> None:
    for task in FILE_EDIT[:2]:
        path, content = goal_edit(task, transform)
        if content == goal_edit(task, lambda t: t)[1] and not passes:
            continue  # the transform changed nothing on this file (no line to change)
        result = await run(
            stack, task, call("write_file", path=path, content=content), say(f"Done: set {path}.")
        )
        assert (result["reward"] == 1.0) == passes, (name, result["checks"])


def test_the_value_line_may_be_quoted_or_spaced_differently() -> None:
    before = "a = 1\nport = 80\nb = 2\n"
    assert same_except_key(before, "a = 1\nport='8080'\nb = 2\n", "port")
    assert not same_except_key(before, "a = 1\nport = 8080\r\nb = 2\n", "b")
    assert not same_except_key(before, "a = 1\nb = 2\nport = 8080\n", "port")  # moved line


# --- math: only unambiguous number forms ------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "truth", "passes"),
    [
        ("Answer: \u22125", 5, False),  # a Unicode minus is a minus, not noise
        ("Answer: \u22125", -5, True),
        ("Answer: \u20135", 5, False),  # an en dash may be a range: refused
        ("Answer: 1,2345", 12345, False),  # a comma that does not group threes
        ("Answer: 12,345", 12345, True),
        ("Answer: 3,5", 35, False),
        ("Answer: \u0664\u0662", 42, False),  # digits of another script
        ("Answer: 42 apples", 42, True),
        ("\\boxed{$1,234.50}", 1234.5, True),
    ],
)
def test_math_reads_only_unambiguous_numbers(answer: str, truth: float, passes: bool) -> None:
    assert numeric_answer_check(answer, truth).passed == passes, parse_number(answer)


# --- code: a scratch file is not a test edit --------------------------------------------------


def test_only_paths_inside_tests_touch_the_tests() -> None:
    assert touches_tests("tests/visible_tests.json") and touches_tests("./tests/x.py")
    assert not touches_tests("tests_scratch.py") and not touches_tests("my_tests/x.py")


# --- game: the budget fits a careful policy ---------------------------------------------------


async def test_a_policy_that_looks_before_every_move_finishes_within_the_default_budget(
    stack: InProcessStack,
) -> None:
    for task in game_sdg.generate(4, seed=4):
        result = await stack.run({"task": task, "control": "alternative_looks_before_every_move"})
        body = result.json()
        assert body["termination_reason"] == "final_message", body["termination_reason"]
        assert body["num_steps"] <= DEFAULT_MAX_STEPS
        assert body["reward"] >= 0.2, body["checks"]
    assert steps_when_looking(7) == 15 <= DEFAULT_MAX_STEPS < steps_when_looking(8)
    assert AgentSettings.model_fields["max_steps"].default == DEFAULT_MAX_STEPS
