"""The reward function falsepass audits: an `rg_*` environment's reward, as a TRL reward
function (`falsepass init fp_reward.py --dataset rows.jsonl`).

falsepass runs in its own virtualenv, without reasoning-gym; this file is stdlib only. It
grades each completion the way an `rg_*` environment's `verify` does: a reply over
`MAX_MESSAGE_CHARS` scores 0, else the project's grading worker (`python -m
interop.reasoning_gym.worker`, run by the project's interpreter, with the mutant's preload
file when one is named) reads the answer and runs the dataset's `score_answer`; a grader that
raises, hangs, crashes or answers no number, NaN or a number outside [0, 1] scores 0.

Settings (environment variables): `RG3_PYTHON` (the project's interpreter), `RG3_ROOT` (the
checkout), `RG3_PRELOAD` (a mutant's preload file; unset or empty: the sound grader).
"""

from __future__ import annotations

import json
import math
import os
import select
import subprocess
from typing import Any

MAX_MESSAGE_CHARS = 20_000
TIMEOUT_S = 10.0
_WORKER: list[subprocess.Popen[str]] = []


def _start() -> subprocess.Popen[str]:
    root = os.environ["RG3_ROOT"]
    args = [os.environ["RG3_PYTHON"], "-m", "interop.reasoning_gym.worker"]
    if os.environ.get("RG3_PRELOAD"):
        args += ["--preload", os.environ["RG3_PRELOAD"]]
    env = {**os.environ, "PYTHONPATH": root}
    proc = subprocess.Popen(
        args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        text=True, cwd=root, env=env,
    )  # fmt: skip
    ready = _read(proc, 120.0)
    if not isinstance(ready, dict) or not ready.get("ready"):
        raise RuntimeError(f"the grading worker did not start: {ready!r}")
    return proc


def _read(proc: subprocess.Popen[str], timeout_s: float) -> Any:
    assert proc.stdout is not None
    if not select.select([proc.stdout], [], [], timeout_s)[0]:
        return None
    line = proc.stdout.readline()
    try:
        return json.loads(line) if line else None
    except ValueError:
        return None


def _grade(dataset: str, config: dict[str, Any], entry: dict[str, Any], text: str) -> float:
    if len(text) > MAX_MESSAGE_CHARS:
        return 0.0
    if not _WORKER or _WORKER[0].poll() is not None:
        _WORKER[:] = [_start()]
    proc = _WORKER[0]
    assert proc.stdin is not None
    request = {"dataset": dataset, "config": config, "entry": entry, "text": text}
    proc.stdin.write(json.dumps(request) + "\n")
    proc.stdin.flush()
    reply = _read(proc, TIMEOUT_S)
    if not isinstance(reply, dict):  # hung or crashed: the grader's fault, 0 (as verify)
        proc.kill()
        proc.wait()
        _WORKER.clear()
        return 0.0
    reward = reply.get("reward")
    if not reply.get("ok") or not isinstance(reward, int | float) or isinstance(reward, bool):
        return 0.0
    value = float(reward)
    return value if math.isfinite(value) and 0.0 <= value <= 1.0 else 0.0


def _text(completion: Any) -> str:
    if isinstance(completion, str):
        return completion
    turns = [str(m.get("content") or "") for m in completion if m.get("role") == "assistant"]
    return turns[-1] if turns else ""


def rg_reward(
    completions: list[Any], answer: list[str], entry: list[str], dataset: list[str],
    config: list[str], **kwargs: Any,
) -> list[float]:  # fmt: skip
    """The `rg_*` environment's reward of each completion (`answer` is the reference; the
    grader reads the stored `entry`, as the environment does)."""
    return [
        _grade(d, json.loads(c), json.loads(e), _text(completion))
        for completion, e, d, c in zip(completions, entry, dataset, config, strict=True)
    ]
