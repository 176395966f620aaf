"""bench/learnability.py's `--eval` figure: the change of reward from before GRPO to after it,
with a bootstrap interval over tasks and a sign-flip p (a note of reward before and after with
confidence, issue 45)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.learnability import eval_change  # noqa: E402


def _evaluation(rewards: dict[str, float]) -> dict[str, object]:
    return {
        "reward": sum(rewards.values()) / len(rewards),
        "per_task": {t: {"reward": r, "rollouts": 4, "masked": 0} for t, r in rewards.items()},
    }


def test_a_rise_on_every_task_has_an_interval_above_zero_and_a_small_p() -> None:
    before = _evaluation({f"t{k}": 0.25 for k in range(12)})
    after = _evaluation({f"t{k}": 0.75 if k % 3 else 0.5 for k in range(12)})
    e = eval_change(before, after)
    assert e is not None and e["tasks"] == 12
    assert e["change"] > 0.3 and e["ci"][0] > 0 and e["p_value"] < 0.01


def test_changes_that_cancel_out_are_no_rise() -> None:
    before = _evaluation({f"t{k}": 0.5 for k in range(8)})
    after = _evaluation({f"t{k}": 0.75 if k % 2 else 0.25 for k in range(8)})
    e = eval_change(before, after)
    assert e is not None and e["change"] == 0
    assert e["ci"][0] < 0 < e["ci"][1] and e["p_value"] > 0.5


def test_no_evaluation_or_no_common_task_is_no_figure() -> None:
    assert eval_change(None, _evaluation({"a": 1.0})) is None
    assert eval_change(_evaluation({"a": 0.0}), _evaluation({"b": 1.0})) is None
