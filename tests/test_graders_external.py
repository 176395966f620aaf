"""The machinery of the external grader set (bench/graders_external/): which source lines are a
grader's, cosmic-ray's mutations of them, the differential labelling on a toy grader, and the
removal of equivalent mutants. The full run (validate and falsepass on hundreds of mutants)
is the bench itself, not a test."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from bench.graders_external import answers as gen
from bench.graders_external.labels import Scored, classify
from bench.graders_external.mutation import grader_scope

TOY = """
def norm(text):
    return text.strip().lower()


def unused(text):
    return text * 2


class Base:
    def common(self, a):
        return a


class ToyDataset(Base):
    def __init__(self):
        self.size = 3

    def generate(self, n):
        return [unused(str(i)) for i in range(n)]

    def score_answer(self, answer, entry):
        if answer is None:
            return 0.0
        if self._same(answer, entry["answer"]):
            return 1.0
        return 0.01 if self.common(answer) else 0.0

    def _same(self, a, b):
        return norm(a) == norm(b)
"""


def lines_of(name: str) -> set[int]:
    """The lines of the def named `name` in TOY (to its last line)."""
    rows = TOY.splitlines()
    start = next(i for i, row in enumerate(rows, 1) if f"def {name}(" in row)
    end = start
    while end < len(rows) and (not rows[end].strip() or rows[end].startswith("        ")):
        end += 1
    while not rows[end - 1].strip():
        end -= 1
    return set(range(start, end + 1))


def test_grader_scope_follows_calls_from_score_answer_and_nothing_else() -> None:
    scope = grader_scope(TOY, "ToyDataset")
    wanted = lines_of("score_answer") | lines_of("_same") | lines_of("norm") | lines_of("common")
    assert wanted <= scope
    for other in ("unused", "generate", "__init__"):
        assert not lines_of(other) & scope, other
    assert grader_scope(TOY, "Base") == set()  # no score_answer of its own: the default grader


def test_cosmic_ray_mutates_only_the_graders_lines() -> None:
    from bench.graders_external import mutation

    try:
        mutation.cosmic_ray()
    except ImportError:
        pytest.skip("cosmic-ray is not installed beside the project (COSMIC_RAY_SITE)")
    scope = grader_scope(TOY, "ToyDataset")
    found = mutation.candidates(TOY, scope)
    assert found and all(c["line"] in scope for c in found)
    eq = next(c for c in found if c["operator"].endswith("Eq_NotEq"))
    code = mutation.mutate(TOY, eq["operator"], eq["occurrence"])
    assert code is not None
    assert "return norm(a) != norm(b)" in code
    assert mutation.diff(TOY, code).splitlines() == [
        "-        return norm(a) == norm(b)",
        "+        return norm(a) != norm(b)",
    ]


def extract(text: str) -> str | None:
    found = re.findall(r"<answer>(.*?)</answer>", text, re.DOTALL)
    return found[-1].strip() if found else None


Grader = Callable[[str | None, str], float]


def sound(answer: str | None, truth: str) -> float:
    if answer is None:
        return 0.0
    return 1.0 if answer == truth else (0.01 if answer else 0.0)


def label_of(mutant: Grader) -> str:
    """The label the differential check gives `mutant` against `sound` on three toy tasks."""
    truths = ["42", "apple pie", "True"]
    scored = []
    for t, truth in enumerate(truths):
        others = truths[:t] + truths[t + 1 :]
        for c in gen.candidates(truth, f"What is task {t}?", others):
            answer = extract(c.text)
            scored.append(
                Scored(t, c.kind, c.right, sound(answer, truth), mutant(answer, truth), c.text)
            )
    return classify(scored).label


def test_answers_are_right_or_wrong_by_construction() -> None:
    made = gen.candidates("42", "What is six times seven?", ["41", "7"])
    right = {extract(c.text) for c in made if c.right}
    assert right == {"42"}
    wrong = [extract(c.text) for c in made if not c.right]
    assert "42" not in wrong
    assert {"43", "41", "420", "-42", "", None, "7", "What is six times seven?"} <= set(wrong)
    assert any(c.kind == "near_flipped" for c in gen.candidates("True", "?", []))


def test_differential_labels_on_a_toy_grader() -> None:
    assert label_of(sound) == "equivalent"
    assert label_of(lambda a, t: 1.0 if a else 0.0) == "pays"  # any answer passes
    assert label_of(lambda a, t: 1.0 if a is not None and t in a else 0.0) == "pays"
    # differs only on answers no policy gives here (over 10,000 characters): equivalent
    assert label_of(lambda a, t: 1.0 if len(a or "") > 10_000 else sound(a, t)) == "equivalent"
    # a digit-only truth refused: a right answer taught as wrong
    assert label_of(lambda a, t: 0.0 if t.isdigit() else sound(a, t)) == "wrong_0"
    # partial credit lost on wrong answers only
    assert label_of(lambda a, t: 1.0 if a == t else 0.0) == "lowers_wrong"


def test_paying_label_keeps_its_witnesses_and_whether_it_paid_in_full() -> None:
    def half(answer: str | None, truth: str) -> float:
        return 1.0 if answer == truth else (0.5 if answer else 0.0)

    scored = [
        Scored(0, "reference", True, 1.0, 1.0, "<answer>42</answer>"),
        Scored(0, "near_plus_one", False, 0.01, half("43", "42"), "<answer>43</answer>"),
        Scored(0, "empty", False, 0.0, 0.0, "<answer></answer>"),
    ]
    label = classify(scored)
    assert (label.label, label.pays_full, label.max_gain) == ("pays", False, 0.49)
    assert label.witnesses[0]["kind"] == "near_plus_one"
    scored.append(Scored(0, "spaces_inside", True, 1.0, 0.0, "<answer> 42 </answer>"))
    assert classify(scored).as_dict()["refuses_right"] is True


def test_a_mutant_runs_where_reasoning_gym_builds_the_grader() -> None:
    pytest.importorskip("reasoning_gym", reason="the rg extra is not installed")
    import reasoning_gym
    from reasoning_gym.factory import DATASETS

    from bench.graders_external.mutation import dataset_source
    from bench.graders_external.stage import env_reward, mutant_installed

    module, path, _ = dataset_source("spell_backward")
    with open(path) as f:
        source = f.read()
    # the grader's exact match, turned around by hand (what Eq_NotEq makes)
    code = source.replace("if expected_answer == answer:", "if expected_answer != answer:")
    assert code != source
    entry = {"question": "Spell this word backward: cat", "answer": "tac", "metadata": {}}
    real = DATASETS["spell_backward"]
    with mutant_installed(module, path, code):
        grader = reasoning_gym.create_dataset("spell_backward", size=1)
        assert type(grader) is not real[0]
        mutant = env_reward(lambda a: grader.score_answer(a, entry), "<answer>dog</answer>")
    assert DATASETS["spell_backward"] == real
    grader = reasoning_gym.create_dataset("spell_backward", size=1)
    assert env_reward(lambda a: grader.score_answer(a, entry), "<answer>dog</answer>") < mutant
