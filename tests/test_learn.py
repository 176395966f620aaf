"""`proofgym learn`: the tiny untrained model gets a learning signal from the letters
environment through the real services, with TRL's GRPOTrainer, on 2 CPU cores."""

from __future__ import annotations

import asyncio
import json
import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from helpers import prove

from proofgym.rollouts.proofs import ProofBook, UnprovenRollouts
from proofgym_stack.learn import LearnResult, learn, write_png
from resources_servers.letters.env import LettersEnv
from resources_servers.math.env import MathEnv

ROOT = Path(__file__).resolve().parent.parent


def test_the_tiny_model_learns_letters(tmp_path: Path) -> None:
    plot = tmp_path / "curve.png"
    env = {
        **os.environ,
        "TRL_EXPERIMENTAL_SILENCE": "1",
        "PROOFGYM_PROOFS_DIR": str(tmp_path / "proofs"),
    }
    cli = [sys.executable, "-m", "proofgym_stack.cli"]
    learn_letters = [*cli, "learn", "--json", "--plot", str(plot)]
    # letters as it is now never passed `validate` here: nothing trains
    refused = subprocess.run(
        learn_letters, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert refused.returncode == 1 and "never passed `proofgym validate`" in refused.stderr
    assert not plot.exists()
    proven = subprocess.run(
        [*cli, "validate", "letters", "--sample", "2", "--parallel", "16"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proven.returncode == 0 and "proven: letters" in proven.stderr, proven.stderr[-2000:]
    run = subprocess.run(
        learn_letters, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout)
    assert result["unproven"] == 0
    assert {"env", "steps", "reward_first", "reward_last", "seconds", "per_step"} <= set(result)
    assert result["env"] == "letters" and result["steps"] == 100
    assert result["learning_rate"] == 5e-3  # the tiny model's default, not a pretrained one's
    steps = result["per_step"]
    assert [s["step"] for s in steps] == list(range(1, 101))
    assert all(s["seconds"] > 0 and 0 <= s["reward"] <= 1 for s in steps)
    assert result["reward_first"] < 0.3  # an untrained model: about 0
    assert result["reward_last"] >= 0.5, result  # and it learned
    assert plot.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_the_optimizer_moves_the_weights(tmp_path: Path) -> None:
    book = asyncio.run(prove(LettersEnv(), tmp_path / "proofs"))
    result = learn("letters", steps=2, tasks=8, proofs=book)
    assert result.weights_changed and len(result.rewards) == 2 and result.unproven == 0


def test_an_unproven_environment_trains_only_when_asked_and_counted(tmp_path: Path) -> None:
    empty = ProofBook(tmp_path / "none")
    with pytest.raises(UnprovenRollouts, match="letters"):
        learn("letters", steps=1, tasks=2, generations=2, proofs=empty)
    result = learn("letters", steps=1, tasks=2, generations=2, proofs=empty, allow_unproven=True)
    assert result.unproven == 2 and result.to_json()["unproven"] == 2


def test_first_and_last_tenths_and_the_png() -> None:
    r = LearnResult(env="e", steps=20, rewards=[0.0] * 2 + [0.5] * 16 + [1.0] * 2)
    assert (r.reward_first, r.reward_last) == (0.0, 1.0)
    assert LearnResult(env="e", steps=1, rewards=[0.25]).reward_last == 0.25
    path = Path(os.environ.get("TMPDIR", "/tmp")) / f"proofgym-curve-{os.getpid()}.png"
    write_png([0.1, 0.5, 0.9], path, width=40, height=20)
    data = path.read_bytes()
    path.unlink()
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (40, 20)
    idat = data.index(b"IDAT")
    (length,) = struct.unpack(">I", data[idat - 4 : idat])
    assert len(zlib.decompress(data[idat + 4 : idat + 4 + length])) == 20 * (1 + 40 * 3)


def test_a_supervised_warm_up_then_grpo_keeping_every_rollout(tmp_path: Path) -> None:
    from proofgym.rollouts.store import RolloutStore

    db = tmp_path / "learn.db"
    book = asyncio.run(prove(MathEnv(), tmp_path / "proofs"))
    result = learn(
        "math", steps=2, tasks=4, generations=2, sft_steps=2, db=db, max_steps=2, eval_samples=1,
        proofs=book,
    )  # fmt: skip
    # math's alternative control uses the calculator: the warm-up learns from those 4
    assert result.sft_rows == 4 and len(result.sft_loss) == 2
    assert len(result.rewards) == 2 and len(result.step_seconds) == 2
    assert len(result.tool_call_share) == 2
    assert result.weights_changed
    store = RolloutStore(db)
    rows = list(store.rows())
    store.close()
    # the warm-up's 4 reference and 4 alternative rollouts, the 4 tasks once before GRPO,
    # 2 steps of 2 rollouts each, the 4 tasks once after
    assert len(rows) == 20
    assert sum(1 for r in rows if r["record"]["reward"] == 1.0) >= 8
    # the evaluations are what the store holds for them: the 4 tasks, before and after
    assert result.eval_before is not None and result.eval_after is not None
    assert result.eval_before.rollouts == result.eval_after.rollouts == 4
    played = [r["record"] for r in rows[8:12]], [r["record"] for r in rows[-4:]]
    for evaluation, records in zip((result.eval_before, result.eval_after), played, strict=True):
        usable = [r for r in records if not r["mask_sample"]]
        assert evaluation.masked == 4 - len(usable)
        assert evaluation.reward == pytest.approx(
            sum(r["reward"] for r in usable) / max(1, len(usable))
        )
        assert sorted(evaluation.per_task) == sorted({r["task_id"] for r in records})
        for task_id, task in evaluation.per_task.items():
            mine = [r for r in usable if r["task_id"] == task_id]
            assert task["rollouts"] == len(mine)
            assert task["reward"] == pytest.approx(
                sum(r["reward"] for r in mine) / max(1, len(mine)), abs=1e-4
            )
    assert result.to_json()["eval_after"]["rollouts"] == 4


def test_the_warm_up_never_sees_a_reinforced_task() -> None:
    from proofgym_stack.learn import disjoint_tasks

    reinforced, warmup = disjoint_tasks("math", 8, seed=0)
    assert len(reinforced) == 8 and 0 < len(warmup) <= 8
    data = {json.dumps(t.task_data, sort_keys=True) for t in reinforced}
    assert not data & {json.dumps(t.task_data, sort_keys=True) for t in warmup}
    assert not {t.task_id for t in reinforced} & {t.task_id for t in warmup}


def test_several_task_groups_per_step(tmp_path: Path) -> None:
    from proofgym.rollouts.store import RolloutStore

    db = tmp_path / "groups.db"
    book = asyncio.run(prove(LettersEnv(), tmp_path / "proofs"))
    result = learn("letters", steps=2, tasks=4, generations=2, groups=2, db=db, proofs=book)
    assert len(result.rewards) == 2
    store = RolloutStore(db)
    rows = list(store.rows())
    store.close()
    # each step: 2 tasks, each played twice
    assert len(rows) == 2 * 2 * 2
    first_step = rows[:4]
    assert len({r["task_id"] for r in first_step}) == 2


def test_a_mix_trains_on_both_environments_and_reports_each(tmp_path: Path) -> None:
    book = asyncio.run(prove(LettersEnv(), tmp_path / "proofs"))
    with pytest.raises(UnprovenRollouts, match="math"):  # each environment of a mix is proven
        learn("letters,math", steps=1, tasks=2, generations=2, proofs=book)
    asyncio.run(prove(MathEnv(), tmp_path / "proofs"))
    result = learn(
        "letters=3,math=1", steps=2, tasks=4, generations=2, groups=2, max_steps=1, proofs=book
    )
    out = result.to_json()
    assert out["env"] == "letters=3,math=1" and out["weights"] == {"letters": 3.0, "math": 1.0}
    assert set(out["per_env"]) <= {"letters", "math"} and out["per_env"]
    for figures in out["per_env"].values():
        assert {"rollouts", "reward", "turns", "truncated_share", "masked_share"} <= set(figures)
        assert {"reward_first", "reward_last"} <= set(figures)
    assert sum(f["rollouts"] for f in out["per_env"].values()) == 2 * 2 * 2


def test_a_mix_splits_the_tasks_by_weight_and_interleaves_them() -> None:
    from proofgym.rollouts.mixes import Mix
    from proofgym_stack.learn import mixed_tasks

    reinforced, warmup = mixed_tasks(Mix.parse("letters=3,math=1"), 8, seed=0)
    envs = [t.env for t in reinforced]
    assert envs.count("letters") == 6 and envs.count("math") == 2
    assert envs[:4].count("math") == 1  # in proportion from the start, not math last
    assert {t.env for t in warmup} == {"letters", "math"}
