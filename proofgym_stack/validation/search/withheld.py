"""A value the task asks the reply to give, left out of it.

Honest play's reply gives values the tools printed after a label (`locker 12, PIN 4480`: a
value holds a digit, a number or a code);
where the task's words ask the reply for that label ("reply with the locker number and its
collection PIN"), the reply with the value taken out is a reply that did not do what was
asked. Where it still pays, the verifier does not read what it asks for (a check that passes
when the value is absent). A value whose label the words never ask for is the policy's
freedom to leave out.
"""

from __future__ import annotations

import re

from proofgym_stack.validation.scripts import Script, final_reply
from proofgym_stack.validation.search.mutants import Mutant, final_message
from proofgym_stack.validation.search.rules import clauses

#: a label printed just before its value: `PIN 4480`, `locker: 12`, `ref #A-7` (a lookahead:
#: the value of one label may be the label of the next, `Ames: locker 12`)
_LABELLED = re.compile(
    r"(?=\b([A-Za-z][A-Za-z]{1,19})(?:[ \t]*[:#=][ \t]*|[ \t]+)([A-Za-z0-9][\w./-]{0,30}))"
)
#: words before a value that are not its label
_NOT_LABELS = frozenset(
    {
        "is",
        "are",
        "was",
        "were",
        "be",
        "the",
        "a",
        "an",
        "and",
        "or",
        "of",
        "to",
        "in",
        "at",
        "on",
        "for",
        "with",
        "by",
        "from",
        "its",
        "it",
        "as",
        "no",
        "not",
        "your",
        "our",
        "their",
        "this",
        "that",
        "has",
        "have",
        "had",
    }
)
#: a clause that asks the reply for something: a verb of telling, or giving with the reply
#: named ("give the PIN in your reply"; "give them a plot" asks for an action)
_ASK = re.compile(
    r"\b(?:tell|reply|respond|quote|report|say|inform|confirm|let \w+ know)\b|"
    r"\b(?:give|provide|include|state)\b.*\b(?:reply|message|answer|response)\b|"
    r"\b(?:reply|message|answer|response)\b.*\b(?:give|provide|include|state)\b",
    re.I,
)
#: the text a withheld value is replaced with
WITHHELD = "(not given)"
MAX_WITHHELD = 4


def asking_clause(label: str, words: str) -> str | None:
    """The clause of the task's words that asks the reply for `label`, or None."""
    for clause in clauses(words):
        if _ASK.search(clause) and re.search(rf"\b{re.escape(label)}s?\b", clause, re.I):
            return str(clause).strip()[:100]
    return None


def labelled_values(reply: str, printed: list[str]) -> list[tuple[str, str]]:
    """(label, value) for each value the reply gives that a tool printed after a label."""
    out: dict[str, str] = {}
    for text in printed:
        for m in _LABELLED.finditer(text):
            label, value = m.group(1), m.group(2).rstrip(".,")
            if label.lower() in _NOT_LABELS or len(value) < 2 or value in out:
                continue
            if not any(c.isdigit() for c in value):
                continue  # a word after a word ("book confocal") is prose, not a value
            if re.search(rf"(?<![\w]){re.escape(value)}(?![\w])", reply):
                out[value] = label
    return [(label, value) for value, label in out.items()]


def withheld_mutants(script: Script, printed: list[str], words: str) -> list[Mutant]:
    """The final message with one value the task's words ask for taken out."""
    where = final_message(script)
    if where is None:
        return []
    t, i = where
    reply = final_reply(script)
    out = []
    for label, value in labelled_values(reply, printed):
        if asking_clause(label, words) is None:
            continue
        cut = re.sub(rf"(?<![\w]){re.escape(value)}(?![\w])", WITHHELD, reply)
        turned = [list(turn) for turn in script]
        turned[t][i] = {"type": "message", "content": cut}
        what = f"final message without the {label} {value}"
        out.append(Mutant(turned, "withhold", "message", "withhold", what, old=label, new=value))
    return out[:MAX_WITHHELD]


def still_withheld(value: str, script: Script) -> bool:
    """Whether `script`'s reply still leaves `value` out."""
    return re.search(rf"(?<![\w]){re.escape(value)}(?![\w])", final_reply(script)) is None
