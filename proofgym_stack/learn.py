"""`proofgym learn`: does a model get a learning signal from an environment in a few hundred
steps? GRPO with TRL through the real services, on a model folder or the tiny model.

The resources server and the agent run as processes; the model interface runs in this process
around the trainer's own model (LiveModel), so every rollout samples from the weights the
optimizer just updated. The answer is the reward curve: mean reward per step, and the means
over the first and the last 10% of steps.
"""

from __future__ import annotations

import importlib
import itertools
import json
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proofgym.protocol import Task
from proofgym_stack.up import Stack, free_port


@dataclass
class LearnResult:
    """What a learning run showed."""

    env: str
    steps: int
    rewards: list[float] = field(default_factory=list)  # mean reward of each step
    seconds: float = 0.0
    weights_changed: bool = False  # whether the optimizer moved the policy at all

    @property
    def reward_first(self) -> float:
        """Mean reward over the first 10% of steps (at least one)."""
        k = max(1, len(self.rewards) // 10)
        return sum(self.rewards[:k]) / k if self.rewards else 0.0

    @property
    def reward_last(self) -> float:
        """Mean reward over the last 10% of steps (at least one)."""
        k = max(1, len(self.rewards) // 10)
        return sum(self.rewards[-k:]) / k if self.rewards else 0.0

    def to_json(self) -> dict[str, Any]:
        """The JSON `proofgym learn --json` prints."""
        return {
            "env": self.env,
            "steps": self.steps,
            "reward_first": round(self.reward_first, 4),
            "reward_last": round(self.reward_last, 4),
            "seconds": round(self.seconds, 1),
        }


def learn(
    env: str = "letters",
    *,
    model_dir: Path | None = None,
    steps: int = 100,
    learning_rate: float = 5e-3,
    generations: int = 8,
    max_completion_length: int = 24,
    tasks: int = 32,
    seed: int = 0,
    on_step: Callable[[int, float], None] | None = None,
) -> LearnResult:
    """Train for `steps` GRPO steps on `env`'s generated tasks; the reward curve."""
    import transformers

    from model_interface.live import LiveModel
    from trainers.trl import ProofgymRollouts, grpo_trainer

    transformers.set_seed(seed)
    rows = importlib.import_module(f"sdg.{env}").generate(tasks, seed=seed, split="train")
    task_list = [Task.model_validate(r) for r in rows]
    with tempfile.TemporaryDirectory(prefix="proofgym-learn-") as tmp:
        if model_dir is None:
            from model_interface.tiny_model import build

            model_dir = build(Path(tmp) / "tiny", seed=seed)
        tokenizer = transformers.AutoTokenizer.from_pretrained(model_dir)
        model = transformers.AutoModelForCausalLM.from_pretrained(model_dir)
        rollouts = ProofgymRollouts(task_list)
        result = LearnResult(env=env, steps=steps)

        class Curve(transformers.TrainerCallback):  # type: ignore[misc]
            def on_log(
                self, args: Any, state: Any, control: Any, logs: Any = None, **kw: Any
            ) -> None:
                if logs and "reward" in logs:
                    result.rewards.append(float(logs["reward"]))
                    if on_step:
                        on_step(len(result.rewards), float(logs["reward"]))

        trainer = grpo_trainer(
            model,
            tokenizer,
            rollouts,
            generations=generations,
            steps=steps,
            callbacks=[Curve()],
            output_dir=str(Path(tmp) / "out"),
            learning_rate=learning_rate,
            lr_scheduler_type="constant",
            max_completion_length=max_completion_length,
            temperature=1.0,
            beta=0.0,
            save_strategy="no",
            bf16=False,
            use_cpu=True,
            disable_tqdm=True,
            seed=seed,
        )
        trainer.remove_callback(transformers.PrinterCallback)  # the curve is ours to show
        policy = trainer.model
        assert policy is not None
        before = [p.detach().clone() for p in policy.parameters()]
        start = time.perf_counter()
        with LiveModel(trainer.model, tokenizer, name="policy") as live:
            stack = Stack(
                agent_port=free_port(),
                resources_ports=[free_port()],
                model_url=live.url,
                env={"PROOFGYM_ENVS": json.dumps([env]), "PROOFGYM_MAX_STEPS": "2"},
            )
            stack.start()
            rollouts.client.url = stack.agent_url
            try:
                trainer.train()
            finally:
                stack.stop()
                rollouts.client.close()
        result.seconds = time.perf_counter() - start
        after = list(policy.parameters())
        result.weights_changed = any(
            not bool((a.detach() == b).all()) for a, b in zip(after, before, strict=True)
        )
    return result


def write_png(values: list[float], path: Path, width: int = 480, height: int = 240) -> None:
    """A line chart of `values` (0 to 1 on the vertical axis) as a PNG, standard library only."""
    import struct
    import zlib

    pixels = [[(255, 255, 255)] * width for _ in range(height)]
    pad = 20

    def plot(x: int, y: int, color: tuple[int, int, int]) -> None:
        if 0 <= x < width and 0 <= y < height:
            pixels[y][x] = color

    for x in range(pad, width - pad):  # axes and the 0.5 line
        plot(x, height - pad, (60, 60, 60))
        plot(x, height - pad - (height - 2 * pad) // 2, (200, 200, 200))
    for y in range(pad, height - pad):
        plot(pad, y, (60, 60, 60))
    if values:
        points = [
            (
                pad + round(i * (width - 2 * pad) / max(1, len(values) - 1)),
                height - pad - round(max(0.0, min(1.0, v)) * (height - 2 * pad)),
            )
            for i, v in enumerate(values)
        ]
        for (x0, y0), (x1, y1) in itertools.pairwise(points):
            n = max(abs(x1 - x0), abs(y1 - y0), 1)
            for k in range(n + 1):
                x, y = x0 + (x1 - x0) * k // n, y0 + (y1 - y0) * k // n
                for dx, dy in ((0, 0), (0, 1), (1, 0)):
                    plot(x + dx, y + dy, (27, 127, 59))
    raw = b"".join(b"\x00" + bytes(c for px in row for c in px) for row in pixels)

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(png + chunk(b"IEND", b""))


__all__ = ["LearnResult", "learn", "write_png"]
