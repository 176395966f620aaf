"""Mixes of environments: written with weights, split by them, scored by them; `profile` and
`eval` report each environment's reward, turns, truncation and masked share."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_profile import _store
from typer.testing import CliRunner

from proofgym.rollouts.mixes import Mix, MixError
from proofgym.rollouts.profiling import Sample, env_figures, figures_by_env
from proofgym_stack.cli import app

ROOT = Path(__file__).resolve().parent.parent


def test_a_mix_is_written_with_weights() -> None:
    assert Mix.parse("letters").weights == {"letters": 1.0}
    assert Mix.parse("letters, math").weights == {"letters": 1.0, "math": 1.0}
    mix = Mix.parse("letters=3,math=1")
    assert mix.share("letters") == 0.75 and mix.share("code") == 0.0
    assert mix.label() == "letters=3,math=1" and Mix.parse("math").label() == "math"
    for bad, said in [
        ("", "empty part"),
        ("letters,,math", "empty part"),
        ("letters=0", "positive"),
        ("letters=-1", "positive"),
        ("letters=nan", "positive"),
        ("letters=x", "not a number"),
        ("../etc", "not an environment name"),
        ("math,math", "twice"),
    ]:
        with pytest.raises(MixError, match=said):
            Mix.parse(bad)


def test_counts_follow_the_weights_and_sum_to_the_total() -> None:
    mix = Mix.parse("a=3,b=1")
    assert mix.counts(8) == {"a": 6, "b": 2}
    assert mix.counts(3) == {"a": 2, "b": 1}
    assert Mix.parse("a=100,b=1").counts(4) == {"a": 3, "b": 1}  # each at least one
    three = Mix.parse("a,b,c")
    for total in range(3, 20):
        counts = three.counts(total)
        assert sum(counts.values()) == total and max(counts.values()) - min(counts.values()) <= 1


def test_the_score_is_the_weighted_mean_of_the_environments_means() -> None:
    mix = Mix.parse("a=3,b=1")
    assert mix.score({"a": 1.0, "b": 0.0}) == 0.75
    assert mix.score({"a": 1.0, "b": None}) is None


def _s(
    env: str, reward: float, *, masked: bool = False, turns: int = 1, cut: bool = False
) -> Sample:
    return Sample(env=env, task_id="t", reward=reward, masked=masked, failure_kind=None,
                  passed=reward >= 1, output_length=1, tool_calls=0, checks=(), turns=turns,
                  truncated=cut)  # fmt: skip


def test_figures_by_hand() -> None:
    figures = env_figures([_s("a", 1.0, turns=2), _s("a", 0.0, turns=4, cut=True),
                           _s("a", 0.0, masked=True)])  # fmt: skip
    assert figures == {
        "rollouts": 3, "reward": 0.5, "pass_rate": 0.5, "turns": 3.0,
        "truncated_share": 0.5, "masked_share": pytest.approx(1 / 3, abs=1e-6),
        "verify_error_share": 0.0, "verify_error_tasks": [],  # masked, not by verify
    }  # fmt: skip
    assert set(figures_by_env([_s("b", 1.0), _s("a", 1.0)])) == {"a", "b"}


async def test_profile_and_eval_of_a_mixed_store(
    tmp_path: Path, file_edit_tasks: list[dict[str, Any]]
) -> None:
    lines = (ROOT / "tasks" / "math" / "example.jsonl").read_text().splitlines()
    math_rows = [json.loads(line) for line in lines if line.strip()][:2]
    edits, maths = tmp_path / "edit.jsonl", tmp_path / "math.jsonl"
    edits.write_text("\n".join(json.dumps(t) for t in file_edit_tasks[:2]))
    maths.write_text("\n".join(json.dumps(t) for t in math_rows))
    db = tmp_path / "mixed.db"
    await _store(db, edits, "reference")  # file_edit: every rollout 1
    await _store(db, maths, "noop_claim")  # math: every rollout 0
    runner = CliRunner()

    def mixed(weights: str) -> dict[str, Any]:
        done = runner.invoke(app, ["profile", str(db), "--json", "--mix", weights])
        assert done.exit_code == 0, done.output
        return json.loads(done.stdout[: done.stdout.rindex("}") + 1])

    result = mixed("file_edit=3,math=1")
    assert result["mix"]["score"] == pytest.approx(0.75)
    assert result["mix"]["rollout_share"] == {"file_edit": 0.5, "math": 0.5}
    assert mixed("file_edit=1,math=3")["mix"]["score"] == pytest.approx(0.25)
    assert mixed("file_edit")["mix"]["left_out"] == ["math"]
    for env in ("file_edit", "math"):
        figures = result["envs"][env]
        assert figures["masked_share"] == 0.0 and figures["truncated_share"] == 0.0
        assert figures["turns"] >= 1
    shown = runner.invoke(app, ["profile", str(db), "--mix", "file_edit=3,math=1"])
    assert "score 0.75 (weighted mean" in " ".join(shown.output.split())
    absent = runner.invoke(app, ["profile", str(db), "--mix", "code"])
    assert absent.exit_code == 2 and "holds no rollout of" in absent.output
    wrong = runner.invoke(app, ["profile", str(db), "--mix", "math=0"])
    assert wrong.exit_code == 2 and "positive" in wrong.output
    # eval takes several files: each must be of the eval split
    refused = runner.invoke(app, ["eval", str(edits), str(maths), "--mix", "math,file_edit"])
    assert refused.exit_code == 2 and "not of the eval split" in refused.output


def test_learn_takes_one_config_object_checked_when_built() -> None:
    from pydantic import ValidationError

    from proofgym_stack.learn import PRETRAINED_LEARNING_RATE, TINY_LEARNING_RATE, LearnConfig

    config = LearnConfig(env="letters=3,math=1", steps=5)
    assert config.mix().weights == {"letters": 3.0, "math": 1.0}
    assert config.rate() == TINY_LEARNING_RATE
    assert LearnConfig(model_dir=Path("m")).rate() == PRETRAINED_LEARNING_RATE
    assert LearnConfig(learning_rate=1e-4).rate() == 1e-4
    for bad in ({"steps": 0}, {"generations": 1}, {"learning_rate": 0}, {"stepz": 3}):
        with pytest.raises(ValidationError):
            LearnConfig(**bad)
    with pytest.raises(MixError):
        LearnConfig(env="math=0").mix()
