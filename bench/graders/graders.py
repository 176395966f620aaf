"""Graders of a numeric answer, written the ways people write them: TRL reward functions
(`completions`, the dataset's `answer` column, a reward per completion). The task tells the
policy to end with a line `Answer: <number>`.

`GRADERS` maps each name to (kind, buggy): 24 with one mistake each, of the kinds found in the
wild (substring, last number, tolerance, partial credit, length, regex slack, crash-as-pass,
...), and 6 sound ones, written differently from each other, that no tool may flag.
"""

from __future__ import annotations

import math
import re
from typing import Any

# ASCII digits: `\d` also matches the digits of every other script (a look-alike answer)
NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")
ANSWER_LINE = re.compile(r"^\s*Answer:\s*(.+?)\s*$", re.M | re.I)


def _text(completion: Any) -> str:
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list) and completion and isinstance(completion[-1], dict):
        return str(completion[-1].get("content") or "")
    return str(completion or "")


def _score(fn: Any, completions: list[Any], answer: list[Any]) -> list[float]:
    """Each completion's reward by `fn(text, truth)`."""
    return [float(fn(_text(c), float(a))) for c, a in zip(completions, answer, strict=False)]


def _last_line_value(text: str) -> float | None:
    """The value of the one answer line, which must end the text (nothing after it may take
    it back)."""
    lines = ANSWER_LINE.findall(text)
    rest = [ln for ln in text.strip().splitlines() if ln.strip()]
    if len(lines) != 1 or not rest or not ANSWER_LINE.match(rest[-1]):
        return None
    numbers = NUMBER.findall(lines[0])
    if len(numbers) != 1 or NUMBER.fullmatch(lines[0].strip().rstrip(".")) is None:
        return None
    return float(numbers[0])


# --- buggy ----------------------------------------------------------------------------------


def _substring(text: str, truth: float) -> float:
    return 1.0 if f"{truth:g}" in text else 0.0


def _last_number(text: str, truth: float) -> float:
    numbers = NUMBER.findall(text)
    return 1.0 if numbers and float(numbers[-1]) == truth else 0.0


def _first_number(text: str, truth: float) -> float:
    numbers = NUMBER.findall(text)
    return 1.0 if numbers and float(numbers[0]) == truth else 0.0


def _loose_relative_tolerance(text: str, truth: float) -> float:
    value = _last_line_value(text)
    return 1.0 if value is not None and abs(value - truth) <= 0.1 * abs(truth) else 0.0


def _absolute_tolerance_one(text: str, truth: float) -> float:
    value = _last_line_value(text)
    return 1.0 if value is not None and abs(value - truth) <= 1.0 else 0.0


def _format_partial_credit(text: str, truth: float) -> float:
    value = _last_line_value(text)
    if value is None:
        return 0.0
    return 1.0 if value == truth else 0.3  # a point for the format


def _length_bonus(text: str, truth: float) -> float:
    value = _last_line_value(text)
    correct = 0.8 if value == truth else 0.0
    return correct + 0.2 * min(1.0, len(text) / 400)


def _regex_first_number_after_answer(text: str, truth: float) -> float:
    m = re.search(r"Answer:\D*(\d+)", text)
    return 1.0 if m and float(m.group(1)) == truth else 0.0


def _crash_as_pass(text: str, truth: float) -> float:
    try:
        value = float(ANSWER_LINE.findall(text)[-1])
    except Exception:
        return 1.0  # "could not parse: give the benefit of the doubt"
    return 1.0 if value == truth else 0.0


def _any_answer_line(text: str, truth: float) -> float:
    lines = ANSWER_LINE.findall(text)
    return 1.0 if any(NUMBER.findall(line)[-1:] == [f"{truth:g}"] for line in lines) else 0.0


def _sign_ignored(text: str, truth: float) -> float:
    value = _last_line_value(text)
    return 1.0 if value is not None and abs(value) == abs(truth) else 0.0


def _prefix_match(text: str, truth: float) -> float:
    lines = ANSWER_LINE.findall(text)
    return 1.0 if lines and lines[-1].strip().startswith(f"{truth:g}") else 0.0


def _digits_only(text: str, truth: float) -> float:
    lines = ANSWER_LINE.findall(text)
    return 1.0 if lines and re.sub(r"\D", "", lines[-1]) == f"{truth:g}".lstrip("-") else 0.0


def _truncates_decimals(text: str, truth: float) -> float:
    lines = ANSWER_LINE.findall(text)
    numbers = NUMBER.findall(lines[-1]) if lines else []
    return 1.0 if len(numbers) == 1 and int(float(numbers[0])) == int(truth) else 0.0


def _trusts_the_claim(text: str, truth: float) -> float:
    if re.search(r"\b(solved|correct|done)\b", text, re.I):
        return 1.0
    return 1.0 if _last_line_value(text) == truth else 0.0


def _share_of_answer_lines(text: str, truth: float) -> float:
    lines = ANSWER_LINE.findall(text)
    right = sum(NUMBER.findall(line)[-1:] == [f"{truth:g}"] for line in lines)
    return right / len(lines) if lines else 0.0


def _takes_first_answer_line(text: str, truth: float) -> float:
    lines = ANSWER_LINE.findall(text)  # a retraction after it is never read
    numbers = NUMBER.findall(lines[0]) if lines else []
    return 1.0 if numbers and float(numbers[0]) == truth else 0.0


def _max_number_in_line(text: str, truth: float) -> float:
    lines = ANSWER_LINE.findall(text)
    numbers = [float(n) for n in NUMBER.findall(lines[-1])] if lines else []
    return 1.0 if numbers and max(numbers) == truth else 0.0


def _after_last_equals(text: str, truth: float) -> float:
    lines = ANSWER_LINE.findall(text)
    if not lines:
        return 0.0
    stated = lines[-1].rsplit("=", 1)[-1].strip().rstrip(".")
    return 1.0 if NUMBER.fullmatch(stated) and float(stated) == truth else 0.0


def _negation_blind(text: str, truth: float) -> float:
    lines = ANSWER_LINE.findall(text)
    cleaned = re.sub(r"\b(not|never|no)\b", "", lines[-1]) if lines else ""
    numbers = NUMBER.findall(cleaned)
    return 1.0 if len(numbers) == 1 and float(numbers[0]) == truth else 0.0


def _format_only(text: str, truth: float) -> float:
    return 1.0 if re.search(r"^Answer:\s*-?\d+\s*$", text, re.M) else 0.0


def _rounds_to_tens(text: str, truth: float) -> float:
    value = _last_line_value(text)
    return 1.0 if value is not None and round(value, -1) == round(truth, -1) else 0.0


def _empty_is_unknown_is_half(text: str, truth: float) -> float:
    if not text.strip():
        return 0.5  # "no signal"
    return 1.0 if _last_line_value(text) == truth else 0.0


def _count_of_right_numbers(text: str, truth: float) -> float:
    return min(1.0, sum(float(n) == truth for n in NUMBER.findall(text)) / 1.0)


# --- sound ------------------------------------------------------------------------------------


def _sound_last_line_exact(text: str, truth: float) -> float:
    value = _last_line_value(text)
    return 1.0 if value is not None and value == truth else 0.0


def _sound_strict_regex(text: str, truth: float) -> float:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    if not lines:
        return 0.0
    m = re.fullmatch(r"\s*Answer:\s*(-?[0-9]+(?:\.[0-9]+)?)\s*\.?\s*", lines[-1])
    others = [ln for ln in lines[:-1] if re.match(r"\s*Answer:", ln, re.I)]
    return 1.0 if m and not others and float(m.group(1)) == truth else 0.0


def _sound_tight_tolerance(text: str, truth: float) -> float:
    value = _last_line_value(text)
    return 1.0 if value is not None and math.isclose(value, truth, rel_tol=1e-9) else 0.0


def _sound_all_lines_agree(text: str, truth: float) -> float:
    lines = ANSWER_LINE.findall(text)
    rest = [ln for ln in text.strip().splitlines() if ln.strip()]
    if not rest or not ANSWER_LINE.match(rest[-1]):
        return 0.0  # the answer ends the text: nothing after it takes it back
    values = set()
    for line in lines:
        if not NUMBER.fullmatch(line.strip().rstrip(".")):
            return 0.0
        values.add(float(line.strip().rstrip(".")))
    return 1.0 if values == {truth} else 0.0


def _sound_tokenized(text: str, truth: float) -> float:
    tail = text.strip().splitlines()[-1] if text.strip() else ""
    head, _, value = tail.partition(":")
    if head.strip().lower() != "answer" or text.lower().count("answer:") != 1:
        return 0.0
    value = value.strip().rstrip(".")
    if not value.isascii():  # float() reads the digits of every script
        return 0.0
    try:
        return 1.0 if float(value) == truth else 0.0
    except ValueError:
        return 0.0


def _sound_integer_only(text: str, truth: float) -> float:
    value = _last_line_value(text)
    return 1.0 if value is not None and value.is_integer() and int(value) == int(truth) else 0.0


# --- the reward functions, as TRL calls them (written out: tools read the file) ---------------


def substring(completions: list[Any], answer: list[Any], **kwargs: Any) -> list[float]:
    return _score(_substring, completions, answer)


def last_number(completions: list[Any], answer: list[Any], **kwargs: Any) -> list[float]:
    return _score(_last_number, completions, answer)


def first_number(completions: list[Any], answer: list[Any], **kwargs: Any) -> list[float]:
    return _score(_first_number, completions, answer)


def loose_relative_tolerance(
    completions: list[Any], answer: list[Any], **kwargs: Any
) -> list[float]:
    return _score(_loose_relative_tolerance, completions, answer)


def absolute_tolerance_one(completions: list[Any], answer: list[Any], **kwargs: Any) -> list[float]:
    return _score(_absolute_tolerance_one, completions, answer)


def format_partial_credit(completions: list[Any], answer: list[Any], **kwargs: Any) -> list[float]:
    return _score(_format_partial_credit, completions, answer)


def length_bonus(completions: list[Any], answer: list[Any], **kwargs: Any) -> list[float]:
    return _score(_length_bonus, completions, answer)


def regex_first_number_after_answer(
    completions: list[Any], answer: list[Any], **kwargs: Any
) -> list[float]:
    return _score(_regex_first_number_after_answer, completions, answer)


def crash_as_pass(completions: list[Any], answer: list[Any], **kwargs: Any) -> list[float]:
    return _score(_crash_as_pass, completions, answer)


def any_answer_line(completions: list[Any], answer: list[Any], **kwargs: Any) -> list[float]:
    return _score(_any_answer_line, completions, answer)


def sign_ignored(completions: list[Any], answer: list[Any], **kwargs: Any) -> list[float]:
    return _score(_sign_ignored, completions, answer)


def prefix_match(completions: list[Any], answer: list[Any], **kwargs: Any) -> list[float]:
    return _score(_prefix_match, completions, answer)


def digits_only(completions: list[Any], answer: list[Any], **kwargs: Any) -> list[float]:
    return _score(_digits_only, completions, answer)


def truncates_decimals(completions: list[Any], answer: list[Any], **kwargs: Any) -> list[float]:
    return _score(_truncates_decimals, completions, answer)


def trusts_the_claim(completions: list[Any], answer: list[Any], **kwargs: Any) -> list[float]:
    return _score(_trusts_the_claim, completions, answer)


def share_of_answer_lines(completions: list[Any], answer: list[Any], **kwargs: Any) -> list[float]:
    return _score(_share_of_answer_lines, completions, answer)


def takes_first_answer_line(
    completions: list[Any], answer: list[Any], **kwargs: Any
) -> list[float]:
    return _score(_takes_first_answer_line, completions, answer)


def max_number_in_line(completions: list[Any], answer: list[Any], **kwargs: Any) -> list[float]:
    return _score(_max_number_in_line, completions, answer)


def after_last_equals(completions: list[Any], answer: list[Any], **kwargs: Any) -> list[float]:
    return _score(_after_last_equals, completions, answer)


def negation_blind(completions: list[Any], answer: list[Any], **kwargs: Any) -> list[float]:
    return _score(_negation_blind, completions, answer)


def format_only(completions: list[Any], answer: list[Any], **kwargs: Any) -> list[float]:
    return _score(_format_only, completions, answer)


def rounds_to_tens(completions: list[Any], answer: list[Any], **kwargs: Any) -> list[float]:
    return _score(_rounds_to_tens, completions, answer)


def empty_is_unknown_is_half(
    completions: list[Any], answer: list[Any], **kwargs: Any
) -> list[float]:
    return _score(_empty_is_unknown_is_half, completions, answer)


def count_of_right_numbers(completions: list[Any], answer: list[Any], **kwargs: Any) -> list[float]:
    return _score(_count_of_right_numbers, completions, answer)


def sound_last_line_exact(completions: list[Any], answer: list[Any], **kwargs: Any) -> list[float]:
    return _score(_sound_last_line_exact, completions, answer)


def sound_strict_regex(completions: list[Any], answer: list[Any], **kwargs: Any) -> list[float]:
    return _score(_sound_strict_regex, completions, answer)


def sound_tight_tolerance(completions: list[Any], answer: list[Any], **kwargs: Any) -> list[float]:
    return _score(_sound_tight_tolerance, completions, answer)


def sound_all_lines_agree(completions: list[Any], answer: list[Any], **kwargs: Any) -> list[float]:
    return _score(_sound_all_lines_agree, completions, answer)


def sound_tokenized(completions: list[Any], answer: list[Any], **kwargs: Any) -> list[float]:
    return _score(_sound_tokenized, completions, answer)


def sound_integer_only(completions: list[Any], answer: list[Any], **kwargs: Any) -> list[float]:
    return _score(_sound_integer_only, completions, answer)


GRADERS: dict[str, tuple[str, bool]] = {
    "substring": ("substring", True),
    "last_number": ("last number", True),
    "first_number": ("first number", True),
    "loose_relative_tolerance": ("tolerance", True),
    "absolute_tolerance_one": ("tolerance", True),
    "format_partial_credit": ("partial credit", True),
    "length_bonus": ("length", True),
    "regex_first_number_after_answer": ("regex slack", True),
    "crash_as_pass": ("crash as pass", True),
    "any_answer_line": ("hedging", True),
    "sign_ignored": ("normalization", True),
    "prefix_match": ("regex slack", True),
    "digits_only": ("normalization", True),
    "truncates_decimals": ("normalization", True),
    "trusts_the_claim": ("claim", True),
    "share_of_answer_lines": ("partial credit", True),
    "takes_first_answer_line": ("retraction", True),
    "max_number_in_line": ("hedging", True),
    "after_last_equals": ("contradiction", True),
    "negation_blind": ("negation", True),
    "format_only": ("format", True),
    "rounds_to_tens": ("tolerance", True),
    "empty_is_unknown_is_half": ("crash as pass", True),
    "count_of_right_numbers": ("substring", True),
    "sound_last_line_exact": ("sound", False),
    "sound_strict_regex": ("sound", False),
    "sound_tight_tolerance": ("sound", False),
    "sound_all_lines_agree": ("sound", False),
    "sound_tokenized": ("sound", False),
    "sound_integer_only": ("sound", False),
}
