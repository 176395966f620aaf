"""math judges its answer from at most MAX_ANSWER_CHARS of the final message (so verify is
quick enough for the event loop): an honest answer after a long working still scores 1, and
the cheap cheats around the cut score 0."""

from __future__ import annotations

from proofgym.wire.protocol import Task
from proofgym.wire.responses import assistant_message, build_response
from resources_servers.math import Env as MathEnv
from resources_servers.math.env import MAX_ANSWER_CHARS, MathState

TASK = Task.model_validate(
    {
        "task_id": "t",
        "env": "math",
        "responses_create_params": {"input": "What is 6 * 7?"},
        "task_data": {"answer": 42, "expression": "6 * 7"},
    }
)


def reward(text: str) -> float:
    response = build_response([assistant_message(text)], model="m")
    return MathEnv().verify(MathState(), TASK, response).reward


def test_an_honest_answer_after_a_long_working_scores_1() -> None:
    working = "Six sevens make forty-two. " * ((MAX_ANSWER_CHARS - 40) // 27)
    assert len(working) < MAX_ANSWER_CHARS - 12
    assert reward(working + "\nAnswer: 42") == 1.0
    assert reward("Answer: 42") == 1.0


def test_the_cheats_around_the_cut_score_0() -> None:
    padding = " " + "x" * MAX_ANSWER_CHARS
    assert reward("Answer: 42" + padding) == 0.0  # right answer, then padding past the cut
    assert reward(padding + "\nAnswer: 42") == 0.0  # the answer past the cut
    assert reward("Answer: 41" + padding + "\nAnswer: 42") == 0.0  # hedged across the cut
    assert reward("Done: I solved the problem.") == 0.0  # claims, answers nothing
