"""A verifier or tool that raises StopIteration (a `next()` without a default) ends the rollout:
never a `/run` that hangs (a future cannot hold a StopIteration)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from openai.types.responses import Response

from proofgym.wire.protocol import Control, RunResult, Task, VerifyResult
from proofgym_stack.testing import in_process_stack
from resources_servers.base import Environment, call, say, tool


class NextWithoutDefault(Environment[dict[str, Any]]):
    """verify looks for a record with `next()` and no default: StopIteration when none."""

    name = "nextless"

    def create_state(self, task: Task, workdir: Path | None) -> dict[str, Any]:
        return {"records": []}

    @tool
    def find(self, state: dict[str, Any], key: str) -> str:
        """Find a record.

        Args:
            key: the record's key.
        """
        return str(next(r for r in state["records"] if r == key))

    def verify(self, state: dict[str, Any], task: Task, response: Response) -> VerifyResult:
        first = next(r for r in state["records"] if r == "goal")
        return VerifyResult(reward=1.0 if first else 0.0)

    def controls(self, task: Task) -> list[Control]:
        return [Control(name="reference", expect="pass", script=[say("done")])]


class InlineNextWithoutDefault(NextWithoutDefault):
    inline_verify = True


TASK = Task(
    task_id="nextless-example-0-00000",
    env="nextless",
    responses_create_params={"input": "find it"},
)


async def run(env: Environment[Any], script: list[Any]) -> RunResult:
    async with in_process_stack(envs={env.name: env}) as stack:
        body = {
            "task": TASK.model_dump(mode="json"),
            "model_params": {"model": "scripted", "script": script},
        }
        r = await asyncio.wait_for(stack.run(body), 20)
        assert r.status_code == 200, r.text
        return RunResult.model_validate(r.json())


@pytest.mark.parametrize("env_cls", [NextWithoutDefault, InlineNextWithoutDefault])
async def test_a_verify_raising_stop_iteration_is_a_verify_error_not_a_hang(
    env_cls: type[NextWithoutDefault],
) -> None:
    result = await run(env_cls(), [say("done")])
    assert result.mask_sample and result.failure_kind == "verify_error"


async def test_a_tool_raising_stop_iteration_is_a_tool_error_the_policy_sees() -> None:
    result = await run(NextWithoutDefault(), [*[call("find", key="x")], say("done")])
    outputs = [getattr(i, "output", "") for i in result.response.output]
    assert any("StopIteration" in str(o) for o in outputs), outputs


def test_the_leak_scan_reads_a_policys_own_arguments_as_written_and_bounded() -> None:
    import json

    from proofgym_stack.validation.leaks import _argument_texts

    code = "def f(x):\n    return x\n"
    assert code in _argument_texts(json.dumps({"path": "a.py", "content": code}))
    assert _argument_texts("[" * 10_000 + "]" * 10_000) == []  # too deep: nothing, no crash
