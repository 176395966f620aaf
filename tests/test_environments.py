"""math, workflow and game: controls through the real loop, tools, and their edge cases."""

from __future__ import annotations

import json
import statistics
from typing import Any

import pytest

from proofgym_stack.testing import InProcessStack
from resources_servers.game.blackjack import Game, basic_strategy, play, reckless, value
from resources_servers.verifiers.arithmetic import CalculatorError, evaluate
from sdg import game as game_sdg
from sdg import math as math_sdg
from sdg import workflow as workflow_sdg

MATH = math_sdg.generate(5, seed=8)
WORKFLOW = workflow_sdg.generate(6, seed=9)
GAME = game_sdg.generate(3, seed=4)


def scripted(task: dict[str, Any], *turns: list[dict[str, Any]]) -> dict[str, Any]:
    return {"task": task, "model_params": {"model": "scripted", "script": list(turns)}}


def call(name: str, **args: Any) -> list[dict[str, Any]]:
    return [{"type": "function_call", "name": name, "arguments": json.dumps(args)}]


def say(text: str) -> list[dict[str, Any]]:
    return [{"type": "message", "content": text}]


def outputs(result: dict[str, Any]) -> list[str]:
    return [
        i["output"] for i in result["response"]["output"] if i["type"] == "function_call_output"
    ]


@pytest.mark.parametrize("tasks", [MATH, WORKFLOW, GAME], ids=["math", "workflow", "game"])
async def test_controls_through_the_real_loop(
    stack: InProcessStack, tasks: list[dict[str, Any]]
) -> None:
    for task in tasks[:3]:
        controls = (
            await stack.client.post(f"http://resources/{task['env']}/controls", json={"task": task})
        ).json()["controls"]
        info = (await stack.client.get(f"http://resources/{task['env']}/info")).json()
        for control in controls:
            result = (await stack.run({"task": task, "control": control["name"]})).json()
            assert not result["mask_sample"], result["failure_reason"]
            passed = result["reward"] >= (0.2 if task["env"] == "game" else info["reward_range"][1])
            assert passed == (control["expect"] == "pass"), (control["name"], result["checks"])


@pytest.mark.parametrize(
    "expression,expected",
    [
        ("(3 + 4) * 12", "84"),
        ("7 / 2", "3.5"),
        ("2 ^ 10", "1024"),
        ("-3 // 2", "-2"),
        ("10 % 4", "2"),
        ("1e3 + 1", "1001"),
    ],
)
def test_calculator(expression: str, expected: str) -> None:
    assert evaluate(expression) == expected


@pytest.mark.parametrize(
    "hostile",
    [
        "__import__('os').system('id')",
        "9 ** 9 ** 9",
        "1 / 0",
        "x + 1",
        "[1] * 10**9",
        "(lambda: 1)()",
        "1" * 400,
        "open('/etc/passwd')",
    ],
)
def test_calculator_refuses_anything_but_arithmetic(hostile: str) -> None:
    with pytest.raises(CalculatorError):
        evaluate(hostile)


async def test_math_answers(stack: InProcessStack) -> None:
    task = MATH[0]
    answer = task["task_data"]["answer"]
    cases = {
        f"It is {answer}.": 0.0,  # no explicit final answer
        f"Answer: {answer}": 1.0,
        f"Answer: {answer:,}.0": 1.0,
        f"\\boxed{{{answer}}} or maybe Answer: {answer + 2}": 0.0,
        "Answer: " + "9" * 4000: 0.0,
    }
    for text, reward in cases.items():
        result = (await stack.run(scripted(task, say(text)))).json()
        assert result["reward"] == reward, (text, result["checks"])
    bad = (
        await stack.run(
            scripted(task, call("calculator", expression="import os"), say("Answer: 1"))
        )
    ).json()
    assert outputs(bad)[0].startswith("Error: not an arithmetic expression")


async def test_workflow_rules_are_named_when_broken(stack: InProcessStack) -> None:
    task = next(t for t in WORKFLOW if t["task_data"]["goal"]["decision"] == "grant")
    result = (await stack.run({"task": task, "control": "violation_refund_before_verify"})).json()
    failed = {c["name"] for c in result["checks"] if not c["passed"]}
    assert failed == {"identity_verified_before_change"}
    wrong_zip = (
        await stack.run(
            scripted(
                task,
                call(
                    "verify_identity",
                    customer_id=task["task_data"]["goal"]["customer_id"],
                    zip_code="00000",
                ),
                say("Verified."),
            )
        )
    ).json()
    assert "does not match" in outputs(wrong_zip)[0]
    unknown = (await stack.run(scripted(task, call("get_order", order_id=1), say("x")))).json()
    assert "no order 1" in outputs(unknown)[0]


async def test_game_illegal_moves_are_tool_errors(stack: InProcessStack) -> None:
    task = GAME[0]
    result = (
        await stack.run(scripted(task, call("play", move="double"), call("look"), say("stopping")))
    ).json()
    assert "invalid arguments" in outputs(result)[0] and "hand 1 of 5" in outputs(result)[1]
    assert result["reward"] == -1.0  # an unfinished game scores the bottom of the range
    game = Game(seed=1, hands=1)
    game.stand()
    with pytest.raises(Exception, match="game is over"):
        game.hit()


def test_a_sound_strategy_beats_a_poor_one_over_a_fixed_seed_set() -> None:
    seeds = range(1000, 1300)
    sound = statistics.mean(play(s, 5, basic_strategy)[1] for s in seeds)
    poor = statistics.mean(play(s, 5, reckless)[1] for s in seeds)
    assert sound > poor + 0.3, (sound, poor)


def test_the_same_seed_deals_the_same_game() -> None:
    a, b = Game(seed=77), Game(seed=77)
    assert (a.player, a.dealer, a.shoe) == (b.player, b.dealer, b.shoe)
    assert value(["A", "K"]) == (21, True) and value(["A", "A", "9"]) == (21, True)
    assert value(["K", "Q", "5"]) == (25, False)
