"""`proofgym learn --control`: the same model trained again on rewards that carry no
information, the gap between the runs with its interval and p-value; and `learn` saying why
when the reward does not move."""

from __future__ import annotations

import asyncio
import json
import random
import struct
import zlib
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest
from helpers import prove
from typer.testing import CliRunner

from proofgym.rollouts.learnability import (
    ControlError,
    RewardControl,
    final_window,
    gap,
    learnability_of,
    learnability_section,
    random_rewards,
    shuffled_within_groups,
)
from proofgym.rollouts.proofs import Identity
from proofgym.wire.protocol import RunResult
from proofgym_stack.learn import learn
from resources_servers.letters.env import LettersEnv
from resources_servers.math.env import MathEnv


def test_shuffled_rewards_are_a_permutation_within_each_group() -> None:
    keys = ["a", "a", "a", "b", "b", "a"]
    rewards: list[float | None] = [0.1, 0.2, None, 0.7, 0.9, 0.3]
    moved = 0
    for seed in range(20):
        shown = shuffled_within_groups(keys, rewards, random.Random(seed))
        assert shown[2] is None  # a left-out rollout stays left out, and lends nothing
        in_a = [x for k, x in zip(keys, shown, strict=True) if k == "a" and x is not None]
        assert sorted(in_a) == [0.1, 0.2, 0.3]
        assert sorted([shown[3], shown[4]]) == [0.7, 0.9]  # type: ignore[type-var]
        moved += shown != rewards
    assert moved >= 15  # it really shuffles (1 in 12 draws leaves both groups in place)


def test_random_rewards_are_bernoulli_for_pass_fail_and_uniform_for_graded() -> None:
    rng = random.Random(0)
    binary = random_rewards([1.0, 0.0, 0.0, 0.0, None] * 200, [(0.0, 1.0)] * 1000, rng)
    drawn = [x for x in binary if x is not None]
    assert set(drawn) == {0.0, 1.0} and binary[4] is None
    assert 0.2 < sum(drawn) / len(drawn) < 0.3  # at the real pass rate, 1 in 4
    graded = random_rewards([0.3, 0.5] * 500, [(0.0, 2.0)] * 1000, rng)
    values = [x for x in graded if x is not None]
    assert min(values) >= 0 and max(values) <= 2 and len(set(values)) > 900
    assert 0.9 < sum(values) / len(values) < 1.1  # uniform over the range, not the real mean


def test_the_gap_is_trusted_only_when_its_interval_excludes_zero() -> None:
    rng = random.Random(1)
    same = gap([rng.random() for _ in range(80)], [rng.random() for _ in range(80)], seed=0)
    assert not same.trusted and same.ci[0] < 0 < same.ci[1] and same.p_value > 0.05
    apart = gap(
        [0.8 + 0.1 * rng.random() for _ in range(40)], [0.1 * rng.random() for _ in range(40)]
    )
    assert apart.trusted and apart.ci[0] > 0.6 and apart.p_value < 0.01
    assert apart.gap == pytest.approx(apart.real - apart.control, abs=1e-3)
    with pytest.raises(ControlError, match="both sides"):
        gap([], [0.5])


def _steps(means: list[float], per_step: int = 4) -> list[list[RunResult]]:
    return [
        [RunResult.model_construct(reward=m, mask_sample=False) for _ in range(per_step)]
        for m in means
    ]


def test_the_window_is_a_share_of_the_last_steps_and_a_wider_one_weighs_more_rollouts() -> None:
    # the runs part at step 10 of 40; the real one keeps a reward of 0.5 on alternate steps
    real = _steps([0.5] * 10 + [0.5, 0.0] * 15)
    control = _steps([0.5] * 10 + [0.0] * 30)
    assert len(final_window(real)) == 4 * 4  # the last 10%: 4 steps of 4 rollouts
    assert len(final_window(real, 0.5)) == 20 * 4
    with pytest.raises(ControlError, match="share of the steps"):
        final_window(real, 0.0)
    narrow = learnability_of(
        env="e", model="m", steps=40, seed=0, kind="shuffled", real=real, control=control
    )
    wide = learnability_of(
        env="e", model="m", steps=40, seed=0, kind="shuffled", real=real, control=control,
        window=0.5,
    )  # fmt: skip
    assert narrow.real.final_rollouts == 16 and wide.real.final_rollouts == 80
    assert wide.window.startswith("last 50% of steps") and narrow.window.startswith("last 10%")
    assert wide.gap == pytest.approx(0.25) and wide.ci[0] > narrow.ci[0]


def test_an_unknown_control_and_a_bad_learnability_file_say_why(tmp_path: Path) -> None:
    with pytest.raises(ControlError, match="no control named 'noise'"):
        RewardControl("noise", {})  # type: ignore[arg-type]
    with pytest.raises(ControlError, match="cannot read it"):
        learnability_section(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text('{"env": "letters"}')
    with pytest.raises(ControlError, match="not a learnability result"):
        learnability_section(tmp_path / "bad.json")


def _groups(keys: list[str], values: list[float | None]) -> dict[str, list[float]]:
    out: dict[str, list[float]] = defaultdict(list)
    for k, v in zip(keys, values, strict=True):
        if v is not None:
            out[k].append(v)
    return out


def test_learn_against_a_shuffled_control_on_letters(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import trainers.trl
    from proofgym.rollouts.store import RolloutStore

    received: list[list[float | None]] = []  # what TRL's reward function got, call by call
    real_reward_function = trainers.trl.environment_reward

    def recording(*args: Any, **kwargs: Any) -> list[float | None]:
        rewards = real_reward_function(*args, **kwargs)
        received.append(list(rewards))
        return rewards

    monkeypatch.setattr(trainers.trl, "environment_reward", recording)
    book = asyncio.run(prove(LettersEnv(), tmp_path / "proofs"))
    db = tmp_path / "learn.db"
    result = learn(
        "letters", steps=3, tasks=4, generations=4, control="shuffled", proofs=book, db=db
    )
    assert result.control is not None and result.learnability is not None
    assert len(result.rewards) == len(result.control.rewards) == 3
    # the trainer saw, each step, a permutation of each group's real rewards, not the rewards
    assert len(result.control_seen) == 3 and len(received) == 6  # the real run's 3, then 3
    assert received[3:] == [shown for _, _, shown in result.control_seen]
    permuted = 0
    for keys, real, shown in result.control_seen:
        real_groups, shown_groups = _groups(keys, real), _groups(keys, shown)
        assert {k: sorted(v) for k, v in real_groups.items()} == {
            k: sorted(v) for k, v in shown_groups.items()
        }
        permuted += real != shown
    assert permuted >= 1
    # and the environment judged the control's rollouts for real: its own store holds them,
    # with the real rewards the control was handed
    store = RolloutStore(db.with_suffix(".control.db"))
    stored = sorted(r["record"]["reward"] for r in store.rows())
    store.close()
    assert stored == sorted(x for _, real, _ in result.control_seen for x in real if x is not None)
    # the control's curve is the verifier's reward; what the trainer saw is apart
    assert len(result.control.shown_rewards) == 3
    out = result.to_json()
    assert out["control"]["control_kind"] == "shuffled" and out["control_kind"] is None
    section = out["learnability"]
    assert {"env", "model", "steps", "seeds", "control_kind", "real", "control", "gap", "ci",
            "p_value", "trusted", "verdict"} <= set(section)  # fmt: skip
    assert (
        section["steps"] == 3 and section["seeds"] == [0] and section["control_kind"] == "shuffled"
    )
    lo, hi = section["ci"]
    assert lo <= section["gap"] <= hi and 0 < section["p_value"] <= 1
    assert section["trusted"] == (lo > 0 or hi < 0)
    assert section["real"]["final_rollouts"] == section["control"]["final_rollouts"] == 4
    # the certificate of the version it trained on now carries the comparison, signed again:
    # it still admits, and a hand edit of the section voids it
    assert result.learnability_certificate is not None
    cert_path = Path(result.learnability_certificate)
    carried = json.loads(cert_path.read_text())["learnability"]
    assert carried["control_kind"] == "shuffled" and carried["gap"] == section["gap"]
    ident = Identity.serving("letters", LettersEnv.version(), LettersEnv().reward_inputs())
    assert book.why_not(ident) is None
    edited = json.loads(cert_path.read_text())
    edited["learnability"]["gap"] = 0.99
    cert_path.write_text(json.dumps(edited))
    assert "signature is invalid" in str(book.why_not(ident))


def test_the_cli_writes_the_learnability_file_and_the_curve_with_the_control(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from proofgym_stack.cli import app

    asyncio.run(prove(LettersEnv(), tmp_path / "proofs"))
    monkeypatch.setenv("PROOFGYM_PROOFS_DIR", str(tmp_path / "proofs"))
    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    plot = tmp_path / "curve.png"
    args = ["learn", "letters", "--steps", "2", "--tasks", "2", "--generations", "2"]
    bad = CliRunner().invoke(app, [*args, "--control", "noise"])
    assert bad.exit_code == 2 and "--control" in bad.output and "Traceback" not in bad.output
    run = CliRunner().invoke(app, [*args, "--control", "random", "--plot", str(plot), "--json"])
    assert run.exit_code == 0, run.output
    written = plot.with_suffix(".learnability.json")
    section = learnability_section(written)
    assert section["control_kind"] == "random" and section["steps"] == 2
    assert section["model"] == "tiny (untrained)"
    assert json.loads(written.read_text())["control"]["per_step"]
    # the curve: the control's colour is drawn, and text (the title) sits above the plot
    pixels = _pixels(plot.read_bytes())
    colours = Counter(px for row in pixels for px in row)
    assert colours[(200, 90, 30)] > 20 and colours[(27, 127, 59)] > 20  # legend and lines
    assert any(px == (40, 40, 40) for row in pixels[4:18] for px in row)


def _pixels(png: bytes) -> list[list[tuple[int, int, int]]]:
    width, height = struct.unpack(">II", png[16:24])
    idat = png.index(b"IDAT")
    (length,) = struct.unpack(">I", png[idat - 4 : idat])
    raw = zlib.decompress(png[idat + 4 : idat + 4 + length])
    stride = 1 + 3 * width
    return [
        [tuple(raw[y * stride + 1 + 3 * x : y * stride + 4 + 3 * x]) for x in range(width)]  # type: ignore[misc]
        for y in range(height)
    ]


def test_a_new_user_whose_reward_stays_at_zero_is_told_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from proofgym.rollouts.store import RolloutStore
    from proofgym_stack.cli import app

    asyncio.run(prove(MathEnv(), tmp_path / "proofs"))
    monkeypatch.setenv("PROOFGYM_PROOFS_DIR", str(tmp_path / "proofs"))
    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    db = tmp_path / "math.db"
    args = ["learn", "math", "--steps", "4", "--tasks", "2", "--generations", "2", "--db", str(db)]
    run = CliRunner().invoke(app, args)
    assert run.exit_code == 0, run.output
    store = RolloutStore(db)
    records = [r["record"] for r in store.rows()]
    store.close()
    assert len(records) == 8 and all(r["reward"] == 0 for r in records)  # the premise
    failures = Counter(c["name"] for r in records for c in r["checks"] if not c["passed"])
    dominant = failures.most_common(1)[0][0]
    text = " ".join(run.output.split())
    assert "the reward did not rise" in text
    assert "100% of GRPO groups (4 of 4) gave every rollout the same reward" in text
    assert f"the check failing most is `{dominant}`" in text
    assert "% of rollouts called a tool" in text and "cut at the length or step limit" in text


def test_the_diagnosis_is_left_out_when_the_reward_rises() -> None:
    from proofgym_stack.learn_report import LearnResult

    rising = LearnResult(env="e", steps=10, rewards=[0.1] * 5 + [0.9] * 5)
    flat = LearnResult(env="e", steps=10, rewards=[0.1] * 10)
    assert rising.rose and not flat.rose
    assert rising.to_json()["rose"] is True
