"""reasoning-gym's datasets as environments `rg_<dataset>` (the `rg` extra): tasks by seed,
disjoint by split; the dataset's own grader behind a wall that turns its faults into a 0 the
grader is blamed for; the controls; the listing; a rollout through the real loop."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip(
    "reasoning_gym", reason="the rg extra is not installed (pip install -e '.[rg]')"
)

from typer.testing import CliRunner

from interop.reasoning_gym import env as rg_env
from interop.reasoning_gym import generate as rg_generate
from interop.reasoning_gym.grader import GraderPool
from proofgym.serving.settings import ResourcesSettings
from proofgym.wire.protocol import ENV_NAME, Task
from proofgym.wire.responses import assistant_message, build_response
from proofgym_stack.cli import app
from proofgym_stack.environments import available_environments, default_names
from proofgym_stack.testing import in_process_stack

FAULTY = str(Path(__file__).with_name("rg_faulty.py"))


def verdict(env: Any, task: Task, text: str) -> Any:
    """`env`'s verdict on a final message `text`."""
    response = build_response([assistant_message(text)], model="m")
    return env.verify(rg_env.NoState(), task, response)


def faulty_task(dataset: str) -> Task:
    return Task.model_validate(
        {
            "task_id": f"rg_{dataset}-test-0-00000",
            "env": f"rg_{dataset}",
            "responses_create_params": {"input": "What is 6 * 7?"},
            "task_data": {
                "dataset": dataset,
                "config": {},
                "rg_seed": 0,
                "entry": {"question": "What is 6 * 7?", "answer": "42", "metadata": {}},
                "reference": "42",
            },
        }
    )


@pytest.fixture
def faulty_pool(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The shared grading pool swapped for one whose workers know the faulty datasets and
    give a grader 1.5 s."""
    pool = GraderPool(size=1, timeout_s=1.5, preload=(FAULTY,))
    monkeypatch.setattr(rg_env, "_POOL", [pool])
    yield pool
    pool.close()


def test_tasks_are_the_same_for_the_same_seed_and_differ_by_seed() -> None:
    first = rg_generate.generate("basic_arithmetic", 4, seed=3, split="train")
    again = rg_generate.generate("basic_arithmetic", 4, seed=3, split="train")
    other = rg_generate.generate("basic_arithmetic", 4, seed=4, split="train")
    assert first == again
    questions = {r["task_data"]["entry"]["question"] for r in first}
    assert len(questions) == 4
    assert questions.isdisjoint(r["task_data"]["entry"]["question"] for r in other)
    row = first[0]
    assert row["env"] == "rg_basic_arithmetic" and ENV_NAME.fullmatch(row["env"])
    prompt = row["responses_create_params"]["input"][0]["content"]
    assert prompt.startswith(row["task_data"]["entry"]["question"])
    assert "<answer>" in prompt  # the answer format the grader's extraction reads
    assert row["task_data"]["config"]["max_terms"] >= 2  # the difficulty knobs travel
    assert "seed" not in row["task_data"]["config"]


def test_the_splits_draw_from_seed_ranges_that_never_meet() -> None:
    seeds = {
        split: {
            rg_generate.row_seed("basic_arithmetic", s, split, i)
            for s in range(20)
            for i in range(50)
        }
        for split in ("train", "eval", "example")
    }
    assert max(seeds["train"]) < 2**31 <= min(seeds["eval"])
    assert max(seeds["eval"]) < 3 * 2**30 <= min(seeds["example"])
    assert max(seeds["example"]) < 2**32  # numpy takes no larger seed
    train = rg_generate.generate("basic_arithmetic", 3, seed=1, split="train")
    evals = rg_generate.generate("basic_arithmetic", 3, seed=1, split="eval")
    assert all(r["task_data"]["rg_seed"] < 2**31 for r in train)
    assert all(2**31 <= r["task_data"]["rg_seed"] < 3 * 2**30 for r in evals)


def test_sdg_writes_a_set_for_an_rg_environment(tmp_path: Path) -> None:
    out = tmp_path / "tasks" / "rg_spell_backward" / "train.jsonl"
    done = CliRunner().invoke(
        app, ["sdg", "rg_spell_backward", "--n", "3", "--seed", "2", "--out", str(out)]
    )
    assert done.exit_code == 0, done.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["task_id"] for r in rows] == [f"rg_spell_backward-train-2-0000{i}" for i in range(3)]
    manifest = json.loads((out.parent / "manifest.json").read_text())
    [entry] = [e for e in manifest.values() if isinstance(e, dict) and e.get("count") == 3]
    assert entry["env"] == "rg_spell_backward" and entry["seed"] == 2
    assert (
        entry["env_version"]
        == available_environments(ResourcesSettings())["rg_spell_backward"].version()
    )


@pytest.mark.parametrize(
    "dataset",
    ["basic_arithmetic", "spell_backward", "knights_knaves", "mini_sudoku", "graph_color"],
)
def test_the_reference_passes_and_the_failing_controls_fail(dataset: str) -> None:
    env = available_environments(ResourcesSettings())[f"rg_{dataset}"]()
    for row in rg_generate.generate(dataset, 2, seed=5, split="example"):
        task = Task.model_validate(row)
        env.validate_task(task)
        for control in env.controls(task):
            text = control.script[-1][-1]["content"]
            result = verdict(env, task, text)
            assert not result.mask_sample
            assert (result.reward >= 1.0) == (control.expect == "pass"), (control.name, result)


def test_a_dataset_with_no_right_answer_to_check_by_is_refused() -> None:
    with pytest.raises(rg_generate.NoReference, match="no right answer"):
        rg_generate.generate("boxnet", 2, seed=0)


def test_a_grader_that_raises_scores_0_and_is_named(faulty_pool: GraderPool) -> None:
    env = rg_env._env_class("faulty_raises")()
    result = verdict(env, faulty_task("faulty_raises"), "<answer>forty-two</answer>")
    assert (result.reward, result.mask_sample) == (0.0, False)
    [check] = result.checks
    assert check.name == "grader_ran" and not check.passed
    assert "grader's fault (raised)" in (check.detail or "")
    assert "ValueError" in (check.detail or "")


def test_a_grader_that_hangs_is_killed_and_scores_0(faulty_pool: GraderPool) -> None:
    env = rg_env._env_class("faulty_hangs")()
    started = time.monotonic()
    result = verdict(env, faulty_task("faulty_hangs"), "<answer>42</answer>")
    assert time.monotonic() - started < 10  # the deadline, not the grader's hour
    assert (result.reward, result.mask_sample) == (0.0, False)
    assert "(timeout)" in (result.checks[0].detail or "")
    # the hung worker was replaced: the next grading gets an answer
    other = rg_env._env_class("faulty_raises")()
    assert "(raised)" in (verdict(other, faulty_task("faulty_raises"), "x").checks[0].detail or "")


@pytest.mark.parametrize(
    "dataset,name,says",
    [
        ("faulty_above_range", "grader_reward_in_range", "2.0"),
        ("faulty_nan", "grader_reward_in_range", "nan"),
        ("faulty_not_a_number", "grader_ran", "'1.0'"),
    ],
)
def test_a_reward_that_is_no_number_in_0_1_scores_0(
    faulty_pool: GraderPool, dataset: str, name: str, says: str
) -> None:
    env = rg_env._env_class(dataset)()
    result = verdict(env, faulty_task(dataset), "<answer>42</answer>")
    assert (result.reward, result.mask_sample) == (0.0, False)
    assert [(c.name, c.passed) for c in result.checks] == [(name, False)]
    assert says in (result.checks[0].detail or "")


def test_a_huge_message_scores_0_without_reaching_the_grader() -> None:
    env = available_environments(ResourcesSettings())["rg_basic_arithmetic"]()
    task = Task.model_validate(rg_generate.generate("basic_arithmetic", 1, seed=0)[0])
    right = f"<answer>{task.task_data['reference']}</answer>"
    assert verdict(env, task, right).reward == 1.0
    huge = verdict(env, task, "x" * rg_env.MAX_MESSAGE_CHARS + right)
    assert huge.reward == 0.0 and [c.name for c in huge.checks] == ["length_guard"]
    # under the limit, a message of unclosed tags is graded in bounded time
    started = time.monotonic()
    hostile = verdict(env, task, "<answer>" * (rg_env.MAX_MESSAGE_CHARS // 9))
    assert hostile.reward == 0.0 and time.monotonic() - started < 10


def test_honest_variants_state_the_reference_in_the_forms_a_person_reads_alike() -> None:
    assert rg_env.answer_forms("6") == {
        "answer_bold": "**6**",
        "answer_full_stop": "6.",
        "answer_number_form": "6.0",
    }
    assert rg_env.answer_forms("76972082")["answer_number_form"] == "76,972,082"
    assert rg_env.answer_forms("-3.5")["answer_number_form"] == "-3.50"
    sentence = rg_env.answer_forms("Zoey is a knight, and Oliver is a knave")
    assert sentence["answer_full_stop"].endswith("knave.")
    # a one-word string may be what is asked letter by letter: no full stop after it
    assert set(rg_env.answer_forms("olleh")) == {"answer_bold"}
    # a grid's lines are its form
    assert rg_env.answer_forms("1 0\n0 1") == {}
    env = available_environments(ResourcesSettings())["rg_basic_arithmetic"]()
    task = Task.model_validate(rg_generate.generate("basic_arithmetic", 1, seed=0)[0])
    variants = env.honest_variants(task, "")
    assert {"tags_on_own_lines", "answer_bold", "answer_full_stop"} <= set(variants)
    # what validate found: the dataset's grader refuses the bold answer (a wrong 0)
    assert verdict(env, task, variants["answer_bold"]).reward < 1.0


def test_a_generator_that_prints_leaves_stdout_to_the_report(
    capfd: pytest.CaptureFixture[str],
) -> None:
    # bf's generator prints dots: `validate --json` could not be read before
    rg_generate.task_data("bf", rg_generate.row_seed("bf", 0, "example", 0))
    out, _ = capfd.readouterr()
    assert out == ""


def test_envs_lists_every_dataset_and_validate_runs_them_only_when_named() -> None:
    available = available_environments(ResourcesSettings())
    rg = sorted(n for n in available if n.startswith("rg_"))
    assert len(rg) == 105 and "rg_basic_arithmetic" in rg and "rg_composite" not in rg
    assert all(ENV_NAME.fullmatch(n) for n in rg)  # URL prefixes, folders, metric labels
    assert "math" in default_names(available)
    assert not any(n.startswith("rg_") for n in default_names(available))
    versions = {available[n].version() for n in rg[:5]}
    assert len(versions) == 5 and all(len(v) == 16 for v in versions)


def test_the_version_moves_with_the_reasoning_gym_release(monkeypatch: pytest.MonkeyPatch) -> None:
    before = rg_env._env_class("basic_arithmetic").version()
    monkeypatch.setattr(rg_env, "release_digest", lambda: "0.1.26:0123456789ab")
    assert rg_env._env_class("basic_arithmetic").version() != before


async def test_a_rollout_through_the_real_loop() -> None:
    env = available_environments(ResourcesSettings())["rg_basic_arithmetic"]()
    task = rg_generate.generate("basic_arithmetic", 1, seed=7)[0]
    async with in_process_stack(envs={env.name: env}) as stack:
        rewards = {}
        for control in ("reference", "violation_answer_retracted", "noop_claim"):
            result = (await stack.run({"task": task, "control": control})).json()
            assert not result["mask_sample"], result["failure_reason"]
            rewards[control] = result["reward"]
        wrong = str(int(float(task["task_data"]["reference"])) + 1)
        body = {"task": task, "model_params": {"model": "scripted", "script": [
            [{"type": "message", "content": f"<answer>{wrong}</answer>"}]
        ]}}  # fmt: skip
        scripted = (await stack.run(body)).json()
    assert rewards == {"reference": 1.0, "violation_answer_retracted": 0.0, "noop_claim": 0.0}
    assert scripted["reward"] == 0.0 and not scripted["mask_sample"]
    checks = {c["name"]: c for c in scripted["checks"]}
    assert checks["answer_tagged"]["passed"] and wrong in checks["answer_tagged"]["detail"]


async def test_the_tiny_model_plays_one_unmasked_and_in_range(tiny_model_dir: Path) -> None:
    from proofgym.serving.settings import AgentSettings, ModelSettings

    env = available_environments(ResourcesSettings())["rg_basic_arithmetic"]()
    task = rg_generate.generate("basic_arithmetic", 1, seed=7)[0]
    model = ModelSettings(
        backend="local",
        model=str(tiny_model_dir),
        default_max_tokens=24,
        pinned_sampling={"temperature": 0.0},
    )
    agent = AgentSettings(resources_urls=["http://resources"], model_url="http://model")
    async with in_process_stack(
        model_settings=model, agent_settings=agent, envs={env.name: env}
    ) as stack:
        result = (await stack.run({"task": task, "model_params": {"model": "tiny"}})).json()
    assert not result["mask_sample"], result["failure_reason"]
    assert math.isfinite(result["reward"]) and 0.0 <= result["reward"] <= 1.0
    assert result["trainable"]
