"""Another option whose record lacks what the prompt asked for, in a field the words rule on.

"Please book a locum for the Friday session at Station Parade surgery", with a listing of
`L06 Dr Iris Reid: surgeries Station Parade, Mill Lane; free Friday, Wednesday` and the rule
"A locum may only work a session at a surgery whose performers list they are on": honest play
booked L06, whose record holds the prompt's "Station Parade" under `surgeries`; a mutant that
books L01 (`surgeries Elm Street, Harbour Road`) and is paid chose a record without it. The
field's label must be spoken in a clause of the words that restricts ("only", "must"): the
prompt's value in a record is a match the task asks for only where the words say so.
"""

from __future__ import annotations

import re
from typing import Any

from proofgym_stack.validation.search.options import names_its_record, record_of
from proofgym_stack.validation.search.rules import clauses

#: a run of capitalised words in the prompt: a place, a day, a name ("Station Parade")
_PHRASE = re.compile(r"\b[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,3}\b")
#: capitalised words that open a sentence or are said of anyone: never a value asked for
_NOT_A_VALUE = {"please", "i", "we", "you", "the", "a", "an", "can", "could", "would", "book"}
#: a clause that restricts a choice
_RESTRICTS = re.compile(r"\b(?:only|must|never|may not|cannot|can't|not allowed)\b", re.I)
#: the fields of a listing's record: split at `;`, `|`, tabs and a `:` after the record's name
_FIELDS = re.compile(r"[;|\t]|:\s")


def _phrases(prompt: str) -> list[str]:
    """The prompt's capitalised phrases, each once, without an opening word such as
    "Please"."""
    out: list[str] = []
    for m in _PHRASE.finditer(prompt):
        words = m.group().split()
        while words and words[0].lower() in _NOT_A_VALUE:
            words = words[1:]
        if words and " ".join(words) not in out:
            out.append(" ".join(words))
    return out


def _holds(record: str, phrase: str) -> bool:
    """Whether `record` holds `phrase` as written (case and all: "Any driver" is no value a
    record of "any weekday" holds)."""
    return re.search(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])", record) is not None


def _label(record: str, phrase: str) -> str | None:
    """The word that opens the field of `record` holding `phrase` (`surgeries` of
    `surgeries Station Parade, Mill Lane`), or None where the field opens with the phrase."""
    for field in _FIELDS.split(record):
        if _holds(field, phrase):
            first = re.match(r"\s*([^\W\d_]{3,})\b", field)
            if first and not _holds(first.group(1), phrase.split()[0]):
                return first.group(1)
    return None


def lacks_the_asked(old: Any, new: Any, outputs: list[str], words: str, prompt: str) -> str | None:
    """Why choosing `new` instead of honest `old` breaks a rule the words state: the prompt
    names a value that `old`'s record holds under a label and `new`'s record lacks, and a
    restricting clause of the words speaks that label ("at a surgery whose performers list
    they are on" for `surgeries`); or None."""
    old_record, new_record = record_of(old, outputs), record_of(new, outputs)
    if not old_record or not new_record or old_record == new_record:
        return None
    # the options are records' names, not quantities two records share (an opening of 40%)
    if not names_its_record(old, old_record) or not names_its_record(new, new_record):
        return None
    rules = [c for c in clauses(words) if _RESTRICTS.search(c)]
    for phrase in _phrases(prompt):
        if not _holds(old_record, phrase) or _holds(new_record, phrase):
            continue
        label = _label(old_record, phrase)
        if label is None:
            continue
        stem = label.lower()[: max(4, len(label) - 3)]
        said = [c for c in rules if re.search(rf"\b{re.escape(stem)}", c, re.I)]
        if said:
            return (
                f"{new}'s record lacks {phrase!r}, which the prompt asks for and {old}'s holds "
                f"under {label!r}, where {' '.join(said[0].split())[:90]!r}"
            )
    return None
