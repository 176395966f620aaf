"""NeMo RL on proofgym: our RunResult as NeMo RL's NeMo Gym integration reads a rollout.

NeMo RL drives NeMo Gym from a Ray actor; it cannot be installed next to proofgym (its PyPI
package is a placeholder; it needs Python 3.13 and its own torch). So this module holds the
three things that make the integration work without importing it:

- `to_nemo_gym_result(result)`: a RunResult in the shape NeMo RL's actor post-processes
  (`responses_create_params` echoed, the Response, `reward`, `reward_components`,
  `instance_config.mask_sample`);
- `check_contract(result)`: the rules NeMo RL enforces on that shape, as a list of problems (a
  short restatement, in our words, of `nemo_rl/environments/nemo_gym.py` in NVIDIA-NeMo/RL:
  `_postprocess_nemo_gym_to_nemo_rl_result` and `validate_reward_components_match_scalar`, as
  read at commit 00420a153d2c45366226de1eedf44609b5a7b144); run in our CI on real rollouts;
- `ProofgymNemoGymActor`: an example of the actor for NeMo RL's side (wrap it with
  `ray.remote`), which runs rows through our agent and returns what NeMo RL's GRPO consumes:
  per rollout a `message_log` of token segments (environment tokens as `user`, model tokens as
  `assistant` with their logprobs) and the full result.

The policy's generation server in such a run is NeMo RL's own vLLM HTTP server; point the model
interface at it with `PROOFGYM_BACKEND=vllm PROOFGYM_VLLM_MODE=nemo_rl`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from proofgym.clients.agent_client import AgentClient
from proofgym.rollouts.proofs import ProofBook
from proofgym.wire.protocol import RunResult, Task

NEMO_RL_COMMIT = "00420a153d2c45366226de1eedf44609b5a7b144"
TOKEN_FIELDS = ("prompt_token_ids", "generation_token_ids", "generation_log_probs")


def to_nemo_gym_result(result: RunResult) -> dict[str, Any]:
    """The rollout as NeMo Gym returns it to NeMo RL."""
    return {
        "responses_create_params": dict(result.responses_create_params),
        "response": result.response.model_dump(mode="json"),
        "reward": result.reward,
        "reward_components": dict(result.reward_components),
        "instance_config": {"mask_sample": result.mask_sample},
        "failure_kind": result.failure_kind,
        "rollout_id": result.rollout_id,
        "task_id": result.task_id,
    }


def _trainable_items(result: dict[str, Any]) -> list[dict[str, Any]]:
    output = ((result.get("response") or {}).get("output")) or []
    return [i for i in output if isinstance(i, dict) and i.get("generation_token_ids")]


def check_contract(result: dict[str, Any]) -> list[str]:
    """Every way `result` breaks what NeMo RL requires of a NeMo Gym result; empty when none."""
    problems: list[str] = []
    params = result.get("responses_create_params")
    if not isinstance(params, dict) or not isinstance(params.get("input"), list):
        problems.append("responses_create_params.input must be echoed as a list")
    if not isinstance((result.get("response") or {}).get("output"), list):
        problems.append("response.output must be a list")
        return problems
    mask = (result.get("instance_config") or {}).get("mask_sample")
    if not isinstance(mask, bool):
        problems.append("instance_config.mask_sample must be a bool")
    components = result.get("reward_components") or {}
    if components:
        total = sum(float(v) for v in components.values())
        if not math.isclose(float(result.get("reward", 0.0)), total, rel_tol=1e-5, abs_tol=1e-6):
            problems.append(f"reward {result.get('reward')} is not the sum of its components")
    items = _trainable_items(result)
    if not items and not mask:
        problems.append("no output item carries generation token ids (NeMo RL raises on it)")
    seen: list[int] = []
    for n, item in enumerate(items):
        prompt, generated, logprobs = (item.get(f) for f in TOKEN_FIELDS)
        if not (
            isinstance(prompt, list) and isinstance(generated, list) and isinstance(logprobs, list)
        ):
            problems.append(f"trainable item {n} lacks prompt_token_ids or generation_log_probs")
            break
        if len(logprobs) != len(generated):
            problems.append(f"trainable item {n}: {len(generated)} ids, {len(logprobs)} logprobs")
        if prompt[: len(seen)] != seen:
            problems.append(f"trainable item {n}: its prompt does not extend the history")
            break
        seen = list(prompt) + list(generated)
    return problems


def message_log(result: dict[str, Any]) -> list[dict[str, Any]]:
    """NeMo RL's message log of a result: per turn, the tokens the environment added (`user`)
    and the tokens the model generated (`assistant`, with `generation_logprobs`); lists here,
    where NeMo RL holds tensors. ValueError when the contract is broken."""
    problems = check_contract(result)
    if problems:
        raise ValueError("; ".join(problems))
    log: list[dict[str, Any]] = []
    seen = 0
    for item in _trainable_items(result):
        prompt, generated, logprobs = (list(item[f]) for f in TOKEN_FIELDS)
        log.append({"role": "user", "content": "", "token_ids": prompt[seen:]})
        log.append(
            {
                "role": "assistant",
                "content": "",
                "token_ids": generated,
                "generation_logprobs": [float(x) for x in logprobs],
            }
        )
        seen = len(prompt) + len(generated)
    return log


class ProofgymNemoGymActor:
    """What NeMo RL's NeMo Gym actor does, against proofgym's agent (wrap with `ray.remote`).

    `run_rollouts(rows)` takes NeMo Gym rows (or proofgym tasks) and returns, per row, NeMo RL's
    post-processed result: `message_log`, `input_message_log`, `full_result`, and the reward
    and mask NeMo RL's GRPO reads.
    """

    def __init__(
        self,
        agent_url: str = "http://127.0.0.1:8000",
        *,
        proofs: ProofBook | None = None,
        allow_unproven: bool = False,
        **client: Any,
    ) -> None:
        """`proofs` (default `runs/proofs`): rollouts of environment versions not proven there
        raise UnprovenRollouts instead of reaching GRPO, unless `allow_unproven` (then each
        result says `proven: False`)."""
        self.client = AgentClient(agent_url, **client)
        self.proofs = proofs or ProofBook()
        self.allow_unproven = allow_unproven

    async def run_rollouts(
        self, rows: Sequence[dict[str, Any]], model_params: dict[str, Any] | None = None
    ) -> list[dict[str, Any]]:
        """One rollout per row through the agent, in row order. A rollout the policy server
        gave no token data raises ValueError, as NeMo RL does: the run is misconfigured."""
        tasks = [Task.from_row(row) for row in rows]
        results = await self.client.run_many(tasks, model_params=model_params or {})
        out = []
        for result, proven in self.proofs.admit(results, self.allow_unproven):
            full = to_nemo_gym_result(result)
            log = message_log(full) if not result.mask_sample else []
            out.append(
                {
                    "message_log": log,
                    "input_message_log": log[:1],
                    "full_result": full,
                    "total_reward": result.reward,
                    "mask_sample": result.mask_sample,
                    "proven": proven,
                }
            )
        return out
