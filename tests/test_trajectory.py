"""The trainer's view of a rollout: prompt, completion, a mask that is 0 exactly on what the
environment inserted, logprobs aligned with it, and no reward for what must not be trained."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import transformers
from helpers import tiny_model_rollout

from proofgym.wire.protocol import RunResult
from proofgym.wire.responses import (
    assistant_message,
    build_response,
    function_call,
    function_call_output,
)
from proofgym.wire.trajectory import trajectory
from sdg.file_edit import generate


def result_with(output: list[dict[str, Any]], **fields: Any) -> RunResult:
    base: dict[str, Any] = {
        "rollout_id": "trajectory-test-0001",
        "task_id": "t",
        "env": "e",
        "reward": 1.0,
        "response": build_response(output, model="m"),
        "num_steps": 1,
        "termination_reason": "final_message",
        "trainable": True,
    }
    return RunResult.model_validate({**base, **fields})


def turn(kind: str, prompt: list[int], gen: list[int]) -> dict[str, Any]:
    tokens = {
        "prompt_token_ids": prompt,
        "generation_token_ids": gen,
        "generation_log_probs": [-0.5 - i for i in range(len(gen))],
    }
    if kind == "call":
        return function_call("f", "{}", f"c{len(prompt)}", **tokens)
    return assistant_message("x", **tokens)


def test_one_turn() -> None:
    t = trajectory(result_with([turn("message", [1, 2, 3], [7, 8])]))
    assert (t.prompt_ids, t.completion_ids, t.completion_mask) == ([1, 2, 3], [7, 8], [1, 1])
    assert t.logprobs == [-0.5, -1.5] and t.reward == 1.0 and t.trainable


def test_tool_turns_interleave_model_and_environment_tokens() -> None:
    output = [
        turn("call", [1, 2], [3, 4]),
        function_call_output("c2", "42"),
        turn("message", [1, 2, 3, 4, 9, 9, 9], [5]),
    ]
    t = trajectory(result_with(output))
    assert t.prompt_ids == [1, 2]
    assert t.completion_ids == [3, 4, 9, 9, 9, 5]
    assert t.completion_mask == [1, 1, 0, 0, 0, 1]
    assert t.logprobs == [-0.5, -1.5, 0.0, 0.0, 0.0, -0.5]


def test_what_must_not_be_trained_gets_no_reward_and_says_why() -> None:
    gap = [turn("call", [1, 2], [3]), turn("message", [1, 2, 4], [5])]  # re-tokenized history
    broken = trajectory(result_with(gap))
    assert broken.reward is None and "does not extend" in (broken.reason or "")
    masked = trajectory(
        result_with(
            [turn("message", [1], [2])],
            mask_sample=True,
            failure_kind="model_error",
            failure_reason="down",
            trainable=False,
        )
    )
    assert masked.reward is None and "model_error" in (masked.reason or "") and not masked.trainable
    plain = trajectory(result_with([assistant_message("no tokens")]))
    assert plain.reward is None and "no token data" in (plain.reason or "")


def test_lengths_always_agree() -> None:
    rng = random.Random(0)
    for _ in range(200):
        history: list[int] = [rng.randrange(100) for _ in range(rng.randint(1, 5))]
        output = []
        for _ in range(rng.randint(1, 6)):
            gen = [rng.randrange(100) for _ in range(rng.randint(1, 4))]
            output.append(turn("call", list(history), gen))
            history = history + gen + [rng.randrange(100) for _ in range(rng.randint(0, 3))]
        t = trajectory(result_with(output))
        assert len(t.completion_ids) == len(t.completion_mask) == len(t.logprobs)
        assert (
            t.prompt_ids + t.completion_ids
            == output[-1]["prompt_token_ids"] + output[-1]["generation_token_ids"]
        )


async def test_a_real_rollout_of_the_tiny_model(tool_calling_model_dir: Path) -> None:
    task = generate(1, seed=3)[0]
    r = await tiny_model_rollout(tool_calling_model_dir, task, max_steps=3)
    result = RunResult.model_validate(r.json())
    t = trajectory(result)
    assert t.reward is not None and t.trainable, t.reason
    marked = [i for i in r.json()["response"]["output"] if "generation_token_ids" in i]
    assert len(marked) == 3
    last = marked[-1]
    assert t.prompt_ids == marked[0]["prompt_token_ids"]
    assert (
        t.prompt_ids + t.completion_ids == last["prompt_token_ids"] + last["generation_token_ids"]
    )
    model_tokens = [tok for tok, m in zip(t.completion_ids, t.completion_mask, strict=True) if m]
    assert model_tokens == [tok for m in marked for tok in m["generation_token_ids"]]
    model_logprobs = [lp for lp, m in zip(t.logprobs, t.completion_mask, strict=True) if m]
    assert model_logprobs == [lp for m in marked for lp in m["generation_log_probs"]]
    # what the mask calls the environment's is where the tool's answer went
    tokenizer = transformers.AutoTokenizer.from_pretrained(tool_calling_model_dir)
    inserted = [tok for tok, m in zip(t.completion_ids, t.completion_mask, strict=True) if not m]
    first_file = next(iter(task["task_data"]["files"]))
    assert first_file in tokenizer.decode(inserted)
