"""Task sets you can trust: each instance once, train and eval disjoint whatever the seeds,
and LLM-drafted statements kept only when they still state their instance."""

from __future__ import annotations

import asyncio
import hashlib
import importlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import serve_in_thread
from openai.types.responses import Response
from typer.testing import CliRunner

from model_interface.app import create_app as model_app
from model_interface.request import ResponsesRequest
from proofgym.wire.protocol import Control, Task
from proofgym.wire.responses import assistant_message, build_response
from proofgym_stack.cli import app
from proofgym_stack.drafting import controls_failing
from resources_servers.math import Env as MathEnv
from sdg.llm import drop_reason, near_duplicates, statement
from sdg.sets import build_set, identity_function, split_of

MATH = importlib.import_module("sdg.math")


def prompts(rows: list[dict[str, Any]]) -> list[str]:
    return [statement(r) for r in rows]


def test_train_and_eval_never_share_an_instance_whatever_the_seeds() -> None:
    train, _ = build_set("math", MATH, 5000, seed=1, split="train")
    identity = identity_function(MATH)
    train_ids = {identity(r) for r in train}
    for seed in (1, 2, 3):
        evals, _ = build_set("math", MATH, 1000, seed=seed, split="eval")
        assert len(evals) == 1000
        assert not train_ids & {identity(r) for r in evals}
        assert not set(prompts(train)) & set(prompts(evals))
        assert all(split_of("math", identity(r)) == "eval" for r in evals)
    # what the raw generator does with two seeds: the leak this prevents
    raw_train = MATH.generate(5000, seed=1, split="train")
    raw_eval = MATH.generate(1000, seed=2, split="eval")
    assert {identity(r) for r in raw_train} & {identity(r) for r in raw_eval}


@pytest.mark.parametrize(("env", "n"), [("math", 5000), ("file_edit", 300), ("workflow", 200)])
def test_a_set_holds_each_instance_once(env: str, n: int) -> None:
    module = importlib.import_module(f"sdg.{env}")
    rows, report = build_set(env, module, n, seed=4, split="train")
    identity = identity_function(module)
    assert len(rows) == n and len({identity(r) for r in rows}) == n
    assert len(set(prompts(rows))) == n and len({r["task_id"] for r in rows}) == n
    if env == "math":
        assert report.duplicates > 0  # the generator repeats itself; the set does not


def test_a_small_instance_space_is_reported_spent() -> None:
    letters = importlib.import_module("sdg.letters")
    rows, report = build_set("letters", letters, 32, seed=0, split="train")
    assert report.exhausted and 0 < len(rows) < 32
    assert len({r["task_data"]["min_chars"] for r in rows}) == len(rows)


def test_sdg_writes_distinct_instances_and_says_so_in_the_manifest(tmp_path: Path) -> None:
    out = tmp_path / "math" / "eval.jsonl"
    result = CliRunner().invoke(
        app, ["sdg", "math", "--n", "40", "--split", "eval", "--seed", "9", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 40 and all(r["split"] == "eval" for r in rows)
    entry = json.loads((tmp_path / "math" / "manifest.json").read_text())["eval.jsonl"]
    assert entry["distinct_instances"] == 40 and entry["other_split_skipped"] > 0


ORIGINAL = (
    "Ava's bakery sells 12 boxes of 6 muffins every day. After 3 days, 9 of the muffins "
    "sold were refunded. How many muffins stayed sold?"
)
FACTS = ["12", "3", "6", "9", "Ava"]


@pytest.mark.parametrize(
    ("draft", "reason"),
    [
        (
            "Every day Ava's bakery sells 12 boxes holding 6 muffins each. Over 3 days, 9 "
            "muffins were refunded. How many stayed sold?",
            None,
        ),
        ("", "empty"),
        (ORIGINAL, "unchanged"),
        (ORIGINAL.replace("12 boxes", "13 boxes"), "missing_fact"),
        (ORIGINAL.replace("Ava", "Ben"), "missing_fact"),
        (ORIGINAL + " (The answer is 207.)", "new_number"),
        (ORIGINAL + " Hint: there are 2 steps.", "new_number"),
        (ORIGINAL + " " + "Really. " * 200, "too_long"),
    ],
    ids=[
        "faithful",
        "empty",
        "unchanged",
        "changed_number",
        "changed_name",
        "leaks_answer",
        "adds_number",
        "rambles",
    ],
)
def test_a_draft_is_kept_only_when_it_states_the_same_facts(draft: str, reason: str) -> None:
    assert drop_reason(ORIGINAL, draft, FACTS) == reason


def test_near_duplicates_are_found_within_the_same_facts() -> None:
    a = "Ava sells 12 boxes of 6 muffins a day for 3 days and refunds 9. How many stay sold?"
    b = "Ava sells 12 boxes of 6 muffins a day for 3 days and refunds 9. How many stayed sold?"
    c = "Over 3 days Ava's shop moves 12 boxes (6 muffins each) daily; 9 come back. Sold?"
    assert near_duplicates([(a, FACTS), (b, FACTS), (c, FACTS), (b, ["1"])]) == {1}


class Rewording:
    """A model backend that rewords a statement by a fixed rule, and gets some wrong on
    purpose, by a hash of the statement: a changed number, an added number, or a failure."""

    def __init__(self) -> None:
        self.down = False

    async def respond(self, request: ResponsesRequest, route_key: str) -> Response:
        text = request.input if isinstance(request.input, str) else ""
        if self.down:
            from proofgym.wire.errors import Unavailable

            raise Unavailable("the rewording model is down", kind="backend_unavailable")
        fault = int(hashlib.sha256(text.encode()).hexdigest(), 16) % 5
        if fault == 0:  # changes a quantity
            draft = re.sub(r"\d+", lambda m: str(int(m.group()) + 1), text, count=1)
        elif fault == 1:  # adds a number
            draft = f"{text} Hint: 7777 people got this wrong."
        else:
            draft = f"Here is a question for you. {text.replace('How many', 'What number of')}"
        return build_response([assistant_message(draft)], model="rewording")

    async def chat(self, body: dict[str, Any], route_key: str) -> dict[str, Any]:
        raise NotImplementedError

    def models(self) -> list[str]:
        return ["rewording"]

    async def aclose(self) -> None:
        return None


@pytest.fixture
def rewording_model() -> Iterator[tuple[str, Rewording]]:
    backend = Rewording()
    with serve_in_thread(model_app(backend=backend)) as url:
        yield url, backend


def sdg_llm(url: str, out: Path, n: int = 30) -> Any:
    args = ["sdg", "math", "--n", str(n), "--seed", "5", "--split", "train", "--out", str(out)]
    return CliRunner().invoke(app, [*args, "--llm", "--model-url", url, "--model", "rewording"])


def test_sdg_llm_keeps_faithful_drafts_and_drops_the_rest_by_reason(
    tmp_path: Path, rewording_model: tuple[str, Rewording]
) -> None:
    url, _ = rewording_model
    out = tmp_path / "a" / "train.jsonl"
    result = sdg_llm(url, out)
    assert result.exit_code == 0, result.output
    kept = [json.loads(line) for line in out.read_text().splitlines()]
    originals, _ = build_set("math", MATH, 30, seed=5, split="train")
    by_id = {r["task_id"]: r for r in originals}
    faults = [int(hashlib.sha256(statement(r).encode()).hexdigest(), 16) % 5 for r in originals]
    assert len(kept) == sum(1 for f in faults if f >= 2) > 0
    for row in kept:
        source = by_id[row["task_id"]]
        assert row["task_data"] == source["task_data"]  # the ground truth is code's
        assert statement(row) == "Here is a question for you. " + statement(source).replace(
            "How many", "What number of"
        )
    entry = json.loads((tmp_path / "a" / "manifest.json").read_text())["train.jsonl"]
    llm = entry["llm"]
    assert llm["model"] == "rewording" and "Keep every number" in llm["instructions"]
    assert llm["dropped"].get("missing_fact", 0) + llm["dropped"].get("new_number", 0) == sum(
        1 for f in faults if f < 2
    )
    assert not (tmp_path / "a" / "train.llm-journal.jsonl").exists()
    # reproducible from what the manifest records: the same command, the same file
    again = tmp_path / "b" / "train.jsonl"
    assert sdg_llm(url, again).exit_code == 0
    assert again.read_bytes() == out.read_bytes()


def test_sdg_llm_resumes_after_the_model_failed(
    tmp_path: Path, rewording_model: tuple[str, Rewording]
) -> None:
    url, backend = rewording_model
    out = tmp_path / "train.jsonl"
    backend.down = True
    failed = sdg_llm(url, out, n=10)
    assert failed.exit_code == 2 and "run the same command again" in failed.output
    assert not out.exists()
    backend.down = False
    done = sdg_llm(url, out, n=10)
    assert done.exit_code == 0, done.output
    assert out.exists()


def test_sdg_llm_refuses_an_environment_without_a_skeleton(
    tmp_path: Path, rewording_model: tuple[str, Rewording]
) -> None:
    url, _ = rewording_model
    args = ["sdg", "file_edit", "--n", "4", "--out", str(tmp_path / "t.jsonl"), "--llm"]
    result = CliRunner().invoke(app, [*args, "--model-url", url])
    assert result.exit_code == 2 and "skeleton" in result.output


class MisjudgedMath(MathEnv):
    """math, except that for one task a control expects what it cannot get."""

    def controls(self, task: Task) -> list[Control]:
        controls = super().controls(task)
        if task.task_data["answer"] == BROKEN_ANSWER:
            controls = [
                Control(name=c.name, expect="pass", script=c.script, role="alternative")
                for c in controls
            ]
        return controls


BROKEN_ANSWER = 424242


def test_a_task_whose_controls_fail_is_found() -> None:
    rows, _ = build_set("math", MATH, 4, seed=1, split="train")
    broken = {**rows[1], "task_data": {**rows[1]["task_data"], "answer": BROKEN_ANSWER}}
    failing = asyncio.run(controls_failing(MisjudgedMath(), [rows[0], broken, rows[2]]))
    assert failing == {broken["task_id"]}


class ContradictsItsRoles(MathEnv):
    """For one task, its controls' roles contradict what they expect: the server cannot
    answer them (its 500), and the task is not kept."""

    def controls(self, task: Task) -> list[Control]:
        controls = super().controls(task)
        if task.task_data["answer"] == BROKEN_ANSWER:
            controls = [c.model_copy(update={"expect": "pass"}) for c in controls]
        return controls


def test_a_task_whose_controls_cannot_be_answered_is_not_kept() -> None:
    rows, _ = build_set("math", MATH, 3, seed=2, split="train")
    broken = {**rows[1], "task_data": {**rows[1]["task_data"], "answer": BROKEN_ANSWER}}
    failing = asyncio.run(controls_failing(ContradictsItsRoles(), [rows[0], broken, rows[2]]))
    assert failing == {broken["task_id"]}
