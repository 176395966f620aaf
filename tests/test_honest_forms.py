"""Verifiers read answers both ways: honest forms score, look-alikes and dodges do not."""

from __future__ import annotations

import pytest

from model_interface.hermes import items_from_generation, parse_hermes
from resources_servers.letters.env import letter_share
from resources_servers.support.env import copied_sentences
from resources_servers.support.kb import ARTICLES, QUESTIONS
from resources_servers.verifiers.answers import numeric_answer_check
from resources_servers.verifiers.claims import claim_check, claims_success
from resources_servers.verifiers.judge_offline import is_prose, key_terms


@pytest.mark.parametrize(
    "text",
    [
        "Answer: 7 * 12 * 4 - 3 = 333",
        "To find the answer: multiply 7 by 12, then by 4, and subtract 3.\nAnswer: 333",
        "**Final answer:** 333",
        "So the answer is: 333",
        "We get 336 - 3.\n\\boxed{333}",
    ],
)
def test_honest_correct_answers_in_common_forms_score(text: str) -> None:
    assert numeric_answer_check(text, 333).passed


@pytest.mark.parametrize(
    "text",
    [
        "Answer: 332\nAnswer: 333\nAnswer: 334",
        "Answer: 333 or 334",
        "Answer: \uff13\uff13\uff13",  # fullwidth digits
        "x = 333",  # no answer statement
    ],
)
def test_hedged_and_look_alike_answers_do_not(text: str) -> None:
    assert not numeric_answer_check(text, 333).passed


def test_letters_counts_only_the_ascii_letter_as_written() -> None:
    assert letter_share("kKkK kkkk", "k") == (1.0, 8)
    assert letter_share("\u212a" * 10, "k")[0] == 0.0  # KELVIN SIGN lowers to k in Python
    assert letter_share("\u0430" * 10, "a")[0] == 0.0  # Cyrillic a
    assert letter_share("\uff41" * 10, "a")[0] == 0.0  # fullwidth a
    assert letter_share("a\u0301" * 10, "a") == (0.0, 10)  # a with an accent is not a


@pytest.mark.parametrize(
    ("text", "claimed"),
    [
        ("Done.", True),
        ("Not a problem, it's done!", True),
        ("No worries: all set.", True),
        ("It is not done yet.", False),
        ("I couldn't update the file.", False),
        ("I was unable to get it done.", False),
        ("Nothing was changed.", False),
    ],
)
def test_a_negation_takes_back_only_the_claim_it_stands_before(text: str, claimed: bool) -> None:
    assert claims_success(text) is claimed


def test_an_environment_adds_its_own_success_words() -> None:
    assert not claims_success("Your table is booked.")
    assert claims_success("Your table is booked.", ["booked"])
    check = claim_check("Your table is booked.", achieved=False, words=["booked"])
    assert not check.passed and check.kind == "claim" and check.claimed is True


def test_the_copy_gate_ignores_punctuation_and_keyword_bags_are_not_prose() -> None:
    for question in QUESTIONS:
        article = ARTICLES[question.article_id].body
        assert copied_sentences(question.reference, article) <= 1
        assert copied_sentences(article.replace(".", ";"), article) >= 2
        assert copied_sentences(article.replace(".", " -"), article) >= 2
        assert is_prose(question.reference)
        assert not is_prose(" ".join(sorted(key_terms(question.reference))))


@pytest.mark.parametrize(
    "text",
    [
        '<tool_call>{"name": "f", "arguments": ' + "[" * 5000 + "]" * 5000 + "}</tool_call>",
        "<tool_call>" + "{" * 3000 + "}" * 3000 + "</tool_call>",
        '<tool_call>{"name": "f", "arguments": {',
    ],
)
def test_the_tool_call_parser_never_raises_on_hostile_text(text: str) -> None:
    items = items_from_generation(text, parse_hermes)
    assert items and all(i["type"] in ("message", "function_call", "reasoning") for i in items)
