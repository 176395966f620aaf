"""NeMo RL: the model interface speaks to NeMo RL's exposed vLLM server (a fake built from its
source), rollouts keep an append-only token history through it, and our rollouts meet the
contract NeMo RL's NeMo Gym integration enforces."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import httpx
import pytest
from fake_nemo_rl import fake_nemo_rl
from helpers import prove

from model_interface.app import build_backend, create_app
from proofgym.clients.http import HttpxTransport
from proofgym.serving.settings import AgentSettings, ModelSettings
from proofgym.wire.protocol import RunResult, Task
from proofgym.wire.trajectory import trajectory
from proofgym_stack.testing import RoutingTransport, in_process_stack
from resources_servers.file_edit.env import FileEditEnv
from sdg.file_edit import generate
from trainers.nemo_rl import (
    ProofgymNemoGymActor,
    check_contract,
    message_log,
    to_nemo_gym_result,
)

TASK = generate(1, seed=3)[0]


def nemo_rl_model_app(tokenizer: Any, model_dir: Path, seen: list[dict[str, Any]]) -> Any:
    settings = ModelSettings(
        backend="vllm",
        vllm_mode="nemo_rl",
        model=str(model_dir),
        base_urls=["http://nemo-rl/v1"],
        max_retries=0,
    )
    upstream = httpx.AsyncClient(
        transport=RoutingTransport({"nemo-rl": fake_nemo_rl(tokenizer, seen)})
    )
    return create_app(settings, build_backend(settings, HttpxTransport(upstream)))


async def rollout_through_nemo_rl(
    tiny_model_dir: Path, tokenizer: Any
) -> tuple[RunResult, list[dict[str, Any]]]:
    seen: list[dict[str, Any]] = []
    agent = AgentSettings(
        resources_urls=["http://resources"],
        model_url="http://nemo-model",
        max_steps=4,
        max_retries=0,
    )
    apps = {"nemo-model": nemo_rl_model_app(tokenizer, tiny_model_dir, seen)}
    async with in_process_stack(agent_settings=agent, extra_apps=apps) as stack:
        r = await stack.run({"task": TASK, "model_params": {"model": "policy"}})
    assert r.status_code == 200, r.text[:300]
    return RunResult.model_validate(r.json()), seen


@pytest.fixture(scope="module")
def tokenizer(tiny_model_dir: Path) -> Any:
    import transformers

    return transformers.AutoTokenizer.from_pretrained(tiny_model_dir)


async def test_the_nemo_rl_mode_keeps_the_history_append_only(
    tiny_model_dir: Path, tokenizer: Any
) -> None:
    result, seen = await rollout_through_nemo_rl(tiny_model_dir, tokenizer)
    assert not result.mask_sample, result.failure_reason
    assert result.num_steps == 2 and result.termination_reason == "final_message"
    # the second request named the first turn's exact tokens as the prefix, and got them
    assert seen[0]["required"] is None and seen[1]["required"] is not None
    assert seen[1]["prompt"][: len(seen[1]["required"])] == seen[1]["required"]
    assert result.trainable
    t = trajectory(result)
    assert t.trainable and 0 in t.completion_mask  # the tool's answer, masked out of the loss


async def test_our_rollouts_meet_nemo_rls_contract(tiny_model_dir: Path, tokenizer: Any) -> None:
    result, _ = await rollout_through_nemo_rl(tiny_model_dir, tokenizer)
    full = to_nemo_gym_result(result)
    assert check_contract(full) == []
    log = message_log(full)
    assert [m["role"] for m in log] == ["user", "assistant", "user", "assistant"]
    tokens = [t for m in log for t in m["token_ids"]]
    last = [i for i in full["response"]["output"] if i.get("generation_token_ids")][-1]
    assert tokens == last["prompt_token_ids"] + last["generation_token_ids"]
    assert all(len(m["generation_logprobs"]) == len(m["token_ids"]) for m in log[1::2])


async def test_the_contract_catches_what_nemo_rl_would_reject(
    tiny_model_dir: Path, tokenizer: Any
) -> None:
    result, _ = await rollout_through_nemo_rl(tiny_model_dir, tokenizer)
    good = to_nemo_gym_result(result)
    trainable = [i for i in good["response"]["output"] if i.get("generation_token_ids")]

    def broken(change: Any) -> list[str]:
        copy_ = copy.deepcopy(good)
        change(copy_, [i for i in copy_["response"]["output"] if i.get("generation_token_ids")])
        return check_contract(copy_)

    assert any("extend" in p for p in broken(lambda d, t: t[1]["prompt_token_ids"].insert(0, 7)))
    assert any("logprobs" in p for p in broken(lambda d, t: t[0]["generation_log_probs"].pop()))
    assert any("sum" in p for p in broken(lambda d, t: d.update(reward_components={"a": 5.0})))
    assert any("echoed" in p for p in broken(lambda d, t: d.pop("responses_create_params")))
    assert any("mask_sample" in p for p in broken(lambda d, t: d.update(instance_config={})))

    def strip(d: dict[str, Any], t: list[dict[str, Any]]) -> None:
        for item in t:
            item.pop("generation_token_ids")

    assert any("no output item" in p for p in broken(strip))
    assert len(trainable) == 2


async def test_the_example_actor_returns_what_grpo_consumes(
    tiny_model_dir: Path, tokenizer: Any, file_edit_tasks: list[dict[str, Any]], tmp_path: Path
) -> None:
    book = await prove(FileEditEnv(), tmp_path / "proofs")
    seen: list[dict[str, Any]] = []
    agent = AgentSettings(
        resources_urls=["http://resources"],
        model_url="http://nemo-model",
        max_steps=4,
        proofs_dir=book.root,  # its rows signed with the key the actor's gate checks
    )
    apps = {"nemo-model": nemo_rl_model_app(tokenizer, tiny_model_dir, seen)}
    async with in_process_stack(agent_settings=agent, extra_apps=apps) as stack:
        actor = ProofgymNemoGymActor(
            "http://agent", proofs=book, transport=HttpxTransport(stack.client)
        )
        out = await actor.run_rollouts(file_edit_tasks[:2], model_params={"model": "policy"})
        assert len(out) == 2 and all(item["proven"] for item in out)
        for item in out:
            assert item["full_result"]["instance_config"]["mask_sample"] is False
            assert [m["role"] for m in item["message_log"]] == ["user", "assistant"] * 2
            assert item["input_message_log"] == item["message_log"][:1]
        # a rollout without token data is refused, as NeMo RL refuses it
        scripted = {"model": "scripted", "script": [[{"type": "message", "content": "hi"}]]}
        with pytest.raises(ValueError, match="no output item carries generation token ids"):
            await actor.run_rollouts(file_edit_tasks[:1], model_params=scripted)


def test_nemo_gym_rows_become_tasks() -> None:
    row = {
        "responses_create_params": TASK["responses_create_params"],
        "env": "file_edit",
        **TASK["task_data"],
    }  # NeMo Gym's shape: task fields beside the create params
    task = Task.from_row(row)
    assert task.env == "file_edit" and task.task_data["goal"] == TASK["task_data"]["goal"]
