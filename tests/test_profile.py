"""`proofgym profile` and `eval`: figures checked against hand-computed ones, the separation
alarm on identical policies (and not on reference against no-op), a self-contained report."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from proofgym.clients.http import HttpxTransport, ServiceClient
from proofgym.rollouts.collect import collect, load_tasks
from proofgym.rollouts.profiling import (
    Sample,
    compare,
    mean_ci,
    pass_at_k,
    profile,
    profile_env,
    spearman,
)
from proofgym.rollouts.store import RolloutStore
from proofgym.serving.settings import ClientSettings
from proofgym_stack.cli import app
from proofgym_stack.testing import in_process_stack


def sample(task: str, reward: float, *, length: int = 10, calls: int = 1, env: str = "e") -> Sample:
    return Sample(
        env=env,
        task_id=task,
        reward=reward,
        masked=False,
        failure_kind=None,
        passed=reward >= 1.0,
        output_length=length,
        tool_calls=calls,
        checks=(("goal", reward >= 1.0), ("format", True)),
    )


def test_pass_at_k_is_the_unbiased_estimator() -> None:
    assert pass_at_k(5, 2, 1) == pytest.approx(0.4)
    assert pass_at_k(5, 2, 2) == pytest.approx(1 - 3 / 10)  # 1 - C(3,2)/C(5,2)
    assert pass_at_k(5, 0, 3) == 0.0 and pass_at_k(5, 4, 2) == 1.0
    with pytest.raises(ValueError):
        pass_at_k(2, 1, 3)


def test_mean_ci_and_spearman_by_hand() -> None:
    mean, lo, hi = mean_ci([1.0, 2.0, 3.0])
    half = 4.303 * 1.0 / math.sqrt(3)  # t(0.975, df=2) * sd / sqrt(n)
    assert (mean, lo, hi) == pytest.approx((2.0, 2.0 - half, 2.0 + half))
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    # ties share ranks: x ranks 1.5,1.5,3,4 against 1,2,3,4
    assert spearman([1, 1, 2, 3], [1, 2, 3, 4]) == pytest.approx(0.9486832980505138)
    assert spearman([1, 1, 1], [1, 2, 3]) is None


def test_an_environment_profile_by_hand() -> None:
    samples = [
        *(sample("a", r) for r in (1.0, 1.0, 1.0)),  # always passes: too easy, zero variance
        *(sample("b", r) for r in (0.0, 0.0, 0.0)),  # never: too hard, zero variance
        *(sample("c", r) for r in (1.0, 0.0, 0.0)),  # signal
    ]
    p = profile_env("e", samples)
    assert p["rollouts"] == p["usable"] == 9 and p["tasks"] == 3
    assert p["pass_rate"] == pytest.approx(4 / 9)
    assert p["zero_variance_share"] == pytest.approx(2 / 3)
    assert p["too_easy"] == ["a"] and p["too_hard"] == ["b"]
    # pass@2 per task: a 1, b 0, c 1 - C(2,2)/C(3,2) = 2/3
    assert p["pass_at_k"]["2"] == pytest.approx((1 + 0 + 2 / 3) / 3, abs=1e-6)
    assert p["pass_at_k"]["3"] == pytest.approx(2 / 3, abs=1e-6)
    assert p["checks"] == {"format": 1.0, "goal": pytest.approx(4 / 9, abs=1e-6)}


def test_the_length_alarm_fires_when_reward_rises_with_length() -> None:
    rising = [sample(f"t{i}", i / 10, length=100 + i) for i in range(12)]
    flat = [sample(f"t{i}", (i * 7) % 3 / 2, length=100 + i) for i in range(12)]
    assert profile_env("e", rising)["length_alarm"] is True
    assert profile_env("e", flat)["length_alarm"] is False


def test_identical_policies_do_not_separate() -> None:
    a = [sample(t, r) for t in "xyz" for r in (1.0, 0.0)]
    result = compare(a, list(a))["e"]
    assert result["separated"] is False and result["difference"] == 0.0
    better = compare([sample(t, 1.0) for t in "xyz" * 3], [sample(t, 0.0) for t in "xyz" * 3])
    assert better["e"]["separated"] is True and better["e"]["every_policy_solves"] == []


async def _store(path: Path, tasks_file: Path, control: str) -> None:
    store = RolloutStore(path)
    async with in_process_stack() as stack:
        client = ServiceClient(ClientSettings(), HttpxTransport(stack.client))
        await collect(
            load_tasks(tasks_file),
            agent_url="http://agent",
            store=store,
            client=client,
            repeats=3,
            concurrency=4,
            control=control,
        )
    store.close()


async def test_profile_of_real_rollouts_and_the_report(
    tmp_path: Path, file_edit_tasks: list[dict[str, Any]]
) -> None:
    tasks_file = tmp_path / "t.jsonl"
    tasks_file.write_text("\n".join(json.dumps(t) for t in file_edit_tasks[:3]))
    ref, noop = tmp_path / "ref.db", tmp_path / "noop.db"
    await _store(ref, tasks_file, "reference")
    await _store(noop, tasks_file, "noop_claim")
    runner = CliRunner()
    report = tmp_path / "report.html"
    done = runner.invoke(
        app, ["profile", str(ref), "--compare", str(noop), "--json", "--out", str(report)]
    )
    assert done.exit_code == 0, done.output
    result = json.loads(done.stdout[: done.stdout.rindex("}") + 1])
    env = result["envs"]["file_edit"]
    assert env["rollouts"] == 9 and env["pass_rate"] == 1.0 and env["pass_at_k"]["3"] == 1.0
    assert env["zero_variance_share"] == 1.0  # the scripted reference always does the same
    assert result["compare"]["file_edit"]["separated"] is True
    page = report.read_text()
    assert page.startswith("<!doctype html>") and "<svg" in page and "file_edit" in page
    assert "http://" not in page and "https://" not in page and "<script" not in page
    same = runner.invoke(app, ["profile", str(ref), "--compare", str(ref)])
    assert same.exit_code == 1 and "NOT separated" in same.output
    # failure rates, not counts: the no-op fails its goal in every rollout
    failing = runner.invoke(app, ["profile", str(noop)])
    assert "fails 100% of rollouts" in " ".join(failing.output.split()), failing.output
    passing = runner.invoke(app, ["profile", str(ref)])
    assert "every check passed in every rollout" in " ".join(passing.output.split())


def test_eval_refuses_other_splits_and_train_instances(
    tmp_path: Path, file_edit_tasks: list[dict[str, Any]]
) -> None:
    train = tmp_path / "train.jsonl"
    evals = tmp_path / "eval.jsonl"
    train.write_text("\n".join(json.dumps({**t, "split": "train"}) for t in file_edit_tasks[:3]))
    runner = CliRunner()
    not_eval = runner.invoke(app, ["eval", str(train)])
    assert not_eval.exit_code == 2 and "not of the eval split" in not_eval.output
    # the same instance under another id is still the same instance
    copied = [
        {**t, "split": "eval", "task_id": t["task_id"] + "-copy"} for t in file_edit_tasks[2:4]
    ]
    evals.write_text("\n".join(json.dumps(t) for t in copied))
    leaked = runner.invoke(app, ["eval", str(evals), "--train", str(train)])
    assert leaked.exit_code == 2 and "also in" in leaked.output


def test_profile_json_has_a_stable_shape() -> None:
    result = profile([sample("a", 1.0), sample("a", 0.0)])
    assert result["version"] == 1
    assert set(result["envs"]["e"]) >= {
        "rollouts", "usable", "tasks", "masked", "reward", "pass_rate", "pass_at_k",
        "zero_variance_share", "reward_vs_length", "reward_vs_tool_calls", "length_alarm",
        "checks", "too_easy", "too_hard", "per_task",
    }  # fmt: skip


def test_plots_label_their_axes_and_read_right_on_degenerate_data() -> None:
    import re

    from proofgym_stack.report import HEIGHT, PAD, curve_svg, histogram_svg, scatter_svg

    # every reward 1, one length: the point sits mid-plot at a labelled 1, not on an axis at 0
    svg = scatter_svg([[40.0, 2.0, 1.0]] * 5, 0, "length")
    cy = float(re.search(r'cy="([\d.]+)"', svg).group(1))  # type: ignore[union-attr]
    assert abs(cy - ((HEIGHT - PAD - 4) + 10) / 2) < 1
    labels = re.findall(r">([-\d.e]+)</text>", svg)
    assert "1" in labels and "40" in labels
    assert ">reward</text>" in svg and ">length</text>" in svg
    assert {"0", "1"} <= set(re.findall(r">([-\d.e]+)</text>", curve_svg({"1": 1.0, "4": 1.0})))
    hist = histogram_svg({"counts": [0.0, 0.0, 9.0], "edges": [0.0, 0.5, 0.75, 1.0]})
    assert {"0", "1", "9"} <= set(re.findall(r">([-\d.e]+)</text>", hist))


def test_verify_errors_past_one_percent_are_an_alarm_naming_the_tasks() -> None:
    from proofgym.rollouts.profiling import Sample, env_figures, verify_error_alarm

    def sample(task: str, kind: str | None) -> Sample:
        base = {f: None for f in Sample.__dataclass_fields__}
        base.update(
            env="e", task_id=task, reward=0.0, masked=kind is not None, failure_kind=kind,
            passed=False, turns=1, truncated=False, output_length=1, tool_calls=0, checks=(),
        )  # fmt: skip
        return Sample(**base)

    quiet = [sample(f"t{i}", None) for i in range(199)] + [sample("t0", "verify_error")]
    assert verify_error_alarm(env_figures(quiet)) is None  # 0.5%: under the share
    loud = [sample(f"t{i}", None) for i in range(95)] + [
        sample(f"t{i}", "verify_error") for i in range(5)
    ]
    alarm = verify_error_alarm(env_figures(loud))
    assert alarm is not None and "5%" in alarm and "t0" in alarm
    model = [sample(f"t{i}", None) for i in range(90)] + [sample("t1", "model_error")] * 10
    assert verify_error_alarm(env_figures(model)) is None  # only verify errors count


def test_the_terminal_table_fits_80_columns_with_long_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from rich.console import Console

    from proofgym_stack import console as consoles
    from proofgym_stack.cli_profile import _print_profile

    long_env = "customer_support_escalations_with_refunds"
    long_check = "the_final_answer_matches_the_expected_ticket_state"
    samples = [
        Sample(env=env, task_id=f"t{t}", reward=float(k % 2), masked=False, failure_kind=None,
               passed=k % 2 == 1, output_length=10 * k, tool_calls=k % 3, turns=12,
               checks=((long_check, k % 2 == 1), ("no_refund_over_the_limit", True)))
        for env in (long_env, "letters") for t in range(400) for k in range(3)
    ]  # fmt: skip
    result = profile(samples)
    screen = Console(width=80, record=True, force_terminal=False)
    monkeypatch.setattr(consoles.console, "_made", screen)
    _print_profile(result, None)
    text = screen.export_text()
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert "…" not in text  # nothing cut short: long names fold, figures stay whole
    assert long_env in "".join(line[:14].strip() for line in lines)  # folded, in full
    row = next(line for line in lines if line.startswith("letters"))
    figures = result["envs"]["letters"]
    assert f"{figures['usable']}/{figures['rollouts']}" in row  # 1200/1200
    assert f"{figures['reward']['mean']:.2f}" in row
    assert f"{figures['zero_variance_share']:.2f}" in row
    assert f"{long_check} (fails 67% of rollouts)" in " ".join(text.split())
