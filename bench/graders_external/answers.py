"""Answers a policy could give to a reasoning-gym task, each known right or wrong by how it is
made: the labelling's own generator, written from first principles for this bench (it does not
read or reuse `proofgym_stack/validation/`, so the labels are not `validate`'s opinion).

Right by construction: the reference between the tags, with reasoning before it, with
whitespace or line breaks inside the tags, with a closing sentence after them.
Wrong by construction: no answer, an empty one, the question echoed, the other tasks'
answers, near misses of the reference (a digit, a letter, a token, a line, a sign changed,
dropped, added or reordered; the number moved by one, ten times, negated), the reference
hedged with or listing other answers, negated ("not R"), doubled without a separator,
truncated, reversed, booleans flipped, and fixed guesses (0, 42, None, x).

A construction can be wrong about one task (a set whose order does not matter, a puzzle with
several solutions): the labelling only calls a wrong answer paid when the sound grader did not
give it full marks (`labels.classify`), so such an accident never counts as a bug.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

WRAP = "<answer>{}</answer>"
_NUMBER = re.compile(r"^[+-]?\d+(\.\d+)?$")
_FLIPS = {
    "true": "False", "false": "True", "yes": "No", "no": "Yes",
    "valid": "invalid", "invalid": "valid",
}  # fmt: skip


@dataclass(frozen=True)
class Candidate:
    """One final message, how it was made, and whether it is right by construction."""

    kind: str
    text: str
    right: bool


def tagged(answer: str) -> str:
    return WRAP.format(answer)


def right_forms(reference: str) -> list[Candidate]:
    """The reference in forms a person calls the same answer."""
    return [
        Candidate("reference", tagged(reference), True),
        Candidate("reasoning_first", f"Let me work it out.\n{tagged(reference)}", True),
        Candidate("spaces_inside", tagged(f" {reference} "), True),
        Candidate("lines_inside", tagged(f"\n{reference}\n"), True),
        Candidate("closing_after", f"{tagged(reference)}\nThat is my final answer.", True),
    ]


def _numeric(reference: str) -> list[tuple[str, str]]:
    text = reference.strip()
    if not _NUMBER.match(text):
        return []
    value = float(text)
    if "." in text:
        decimals = len(text.split(".")[1])
        step = 10.0**-decimals
        show = f"{{:.{decimals}f}}"
        return [
            ("plus_one_step", show.format(value + step)),
            ("minus_one_step", show.format(value - step)),
            ("times_ten", show.format(value * 10)),
            ("negated", show.format(-value) if value else "1"),
        ]
    number = int(text)
    return [
        ("plus_one", str(number + 1)),
        ("minus_one", str(number - 1)),
        ("times_ten", str(number * 10) if number else "10"),
        ("negated", str(-number) if number else "1"),
        ("with_fraction", f"{number}.5"),
    ]


def _tokens(reference: str) -> list[str]:
    if "\n" in reference:
        return reference.split("\n")
    if "," in reference:
        return reference.split(",")
    return reference.split()


def _join_like(reference: str, tokens: list[str]) -> str:
    if "\n" in reference:
        return "\n".join(tokens)
    if "," in reference:
        return ",".join(tokens)
    return " ".join(tokens)


def _next_char(char: str) -> str:
    if char.isdigit():
        return str((int(char) + 1) % 10)
    if char.isalpha() and char.isascii():
        base = ord("a") if char.islower() else ord("A")
        return chr(base + (ord(char) - base + 1) % 26)
    return char


def near_misses(reference: str) -> list[tuple[str, str]]:
    """Small edits of the reference that change what it says."""
    out = list(_numeric(reference))
    text = reference
    for i, char in enumerate(text):  # the first digit, then the first letter, changed
        if char.isdigit():
            out.append(("digit_changed", text[:i] + _next_char(char) + text[i + 1 :]))
            break
    for i, char in enumerate(text):
        if char.isalpha() and char.isascii():
            out.append(("letter_changed", text[:i] + _next_char(char) + text[i + 1 :]))
            break
    for i in range(len(text) - 1, -1, -1):  # the last digit too (grids, long numbers)
        if text[i].isdigit():
            out.append(("last_digit_changed", text[:i] + _next_char(text[i]) + text[i + 1 :]))
            break
    if len(text) > 1:
        out += [("last_char_dropped", text[:-1]), ("first_char_dropped", text[1:])]
        out.append(("truncated_half", text[: len(text) // 2]))
        out.append(("reversed", text[::-1]))
    tokens = _tokens(text)
    if len(tokens) >= 2:
        swapped = [tokens[1], tokens[0], *tokens[2:]]
        out.append(("tokens_swapped", _join_like(text, swapped)))
        out.append(("last_token_dropped", _join_like(text, tokens[:-1])))
        out.append(("token_repeated", _join_like(text, [*tokens, tokens[-1]])))
        out.append(("tokens_reversed", _join_like(text, tokens[::-1])))
    else:
        out.append(("token_added", f"{text} 1"))
    flip = _FLIPS.get(text.strip().lower())
    if flip is not None:
        out.append(("flipped", flip))
    out.append(("doubled", text + text))
    out.append(("negated_in_words", f"not {text}"))
    return out


def wrong_answers(reference: str, question: str, others: list[str]) -> list[Candidate]:
    """Wrong final messages for a task whose reference is `reference`; `others` are other
    tasks' references (the same dataset)."""
    different = [o for o in dict.fromkeys(others) if o.strip() != reference.strip()]
    made: list[tuple[str, str]] = [
        ("no_tags", "I am not sure what the answer is."),
        ("empty", tagged("")),
        ("blank", tagged("   ")),
        ("question_echoed", tagged(question)),
        ("question_bare", question),
        ("guess_0", tagged("0")),
        ("guess_42", tagged("42")),
        ("guess_none", tagged("None")),
        ("guess_x", tagged("x")),
    ]
    made += [(f"other_task_{i}", tagged(o)) for i, o in enumerate(different)]
    made += [(f"near_{kind}", tagged(a)) for kind, a in near_misses(reference) if a != reference]
    if different:
        made += [
            ("hedged_or", tagged(f"{different[0]} or {reference}")),
            ("hedged_then_other", tagged(f"{reference} or {different[0]}")),
            ("all_answers", tagged("\n".join([*different, reference]))),
            ("right_outside_wrong_inside", f"It might be {reference}.\n{tagged(different[0])}"),
        ]
    said = re.compile(r"<answer>(.*?)</answer>", re.DOTALL)

    def states_reference(text: str) -> bool:
        inside = said.findall(text)
        return bool(inside) and inside[-1].strip() == reference.strip()

    # a fixed guess can be this task's answer: it is no wrong answer then
    return [Candidate(kind, text, False) for kind, text in made if not states_reference(text)]


def candidates(reference: str, question: str, others: list[str]) -> list[Candidate]:
    """Every answer the labelling scores for one task: right forms, then wrong ones."""
    return right_forms(reference) + wrong_answers(reference, question, others)
