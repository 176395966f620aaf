"""An age rule the words state, read against a record's date of birth.

"The adult field only for players aged 18 or over on the game day", "the 16-25 discount is
only for a holder aged 16 to 25 today": where another option chosen (the adult field) is
the one a sentence of the words bounds by age, the person the changed call names has a
record that prints a date of birth (`Sam: born 2008-03-02`), and the day the age is taken on
is given (a label the sentence names, `game day 2026-02-28`, or the words' `today is ...`),
the age is counted in whole years by the calendar (a birthday not yet reached this year
does not count) and compared with the bound. An age the bound keeps is no finding.
"""

from __future__ import annotations

import re
from datetime import date

from proofgym_stack.validation.scripts import call_arguments
from proofgym_stack.validation.search.calendar import iso_day
from proofgym_stack.validation.search.rules import full_sentences
from proofgym_stack.validation.search.tolerance import Played

_DATE = r"(\d{4}-\d{2}-\d{2})"
_BORN = re.compile(rf"\b(?:born|birth|dob|d\.o\.b\.?)\b[^0-9\n]{{0,16}}{_DATE}", re.I)
#: an age bound: (pattern, which ends it gives)
_BOUNDS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\baged?\s+(\d{1,3})\s*(?:to|-|\u2013|and)\s*(\d{1,3})\b", re.I), "both"),
    (re.compile(r"\b(\d{1,3})\s*(?:-|\u2013)\s*(\d{1,3})\s+(?:year|yr)s?[- ]olds?\b", re.I),
     "both"),
    (re.compile(r"\baged?\s+(\d{1,3})\s+or\s+(?:over|older|above|more)\b", re.I), "low"),
    (re.compile(r"\b(?:at least|over|minimum age of)\s+(\d{1,3})\s+(?:years?\s+old|year)", re.I),
     "low"),
    (re.compile(r"\b(?:aged under|aged below|younger than)\s+(\d{1,3})\b", re.I), "below"),
    (re.compile(r"\b(?:under|below)\s+(\d{1,3})\s*(?:years?\s+old|-?year-olds?|yrs?\b)", re.I),
     "below"),
]  # fmt: skip


def age_on(born: date, day: date) -> int:
    """Whole years from `born` to `day`, by the calendar."""
    return day.year - born.year - ((day.month, day.day) < (born.month, born.day))


def _date(m: re.Match[str]) -> date | None:
    """The ISO date a match's last group holds (None for a day that does not exist)."""
    return iso_day(m.group(m.lastindex or 0))


#: a sentence that keeps ages out rather than naming those allowed ("closed to under-12s")
_KEPT_OUT = re.compile(r"\b(?:not|never|no|closed to|barred|banned|except)\b", re.I)


def _limits(sentence: str) -> tuple[int, int] | None:
    """The ages a sentence allows, [low, high], or None where it states no age bound (or
    states one it keeps out: "closed to players under 18")."""
    if _KEPT_OUT.search(sentence):
        return None
    for pattern, ends in _BOUNDS:
        if m := pattern.search(sentence):
            if ends == "both":
                low, high = sorted((int(m.group(1)), int(m.group(2))))
                return low, high
            if ends == "low":
                return int(m.group(1)), 10**3
            return 0, int(m.group(1)) - 1
    return None


def _day(sentence: str, texts: list[str]) -> date | None:
    """The day the sentence takes ages on: a label it names (`on the game day`, printed
    `game day 2026-02-28`), or today's date the texts state."""
    if m := re.search(r"\bon the ([a-z]+(?: [a-z]+)?)\b", sentence, re.I):
        label = re.compile(rf"^\s*(?:the )?{re.escape(m.group(1))}\s*[:=]?\s*{_DATE}", re.I | re.M)
        for text in texts:
            if found := label.search(text):
                return _date(found)
    if re.search(r"\btoday\b", sentence, re.I):
        today = re.compile(rf"\btoday(?: is|:)\s*(?:\w+,?\s+)?{_DATE}", re.I)
        for text in texts:
            if found := today.search(text):
                return _date(found)
    return None


def under_age_rule(p: Played, words: str) -> str | None:
    """For another option chosen (or a flag set) in a call that names a person: the age
    rule of the words the option falls under that the person's age on the day breaks, or
    None."""
    m = p.mutant
    if m.call_at is None or m.new is None or m.new == m.old:
        return None
    t, i = m.call_at
    args = call_arguments(m.script[t][i])
    if isinstance(m.new, bool) and (m.new is not True or not m.leaf):
        return None
    chosen = str(m.leaf[-1]).replace("_", " ") if isinstance(m.new, bool) else str(m.new)
    if not chosen.strip():
        return None
    shown = [*p.base.pools.shown, *p.base.pools.before]
    texts = [words, *shown]
    for sentence in full_sentences(words):
        named = _names(sentence, chosen, every=not isinstance(m.new, bool))
        if not named or (limits := _limits(sentence)) is None:
            continue
        day = _day(sentence, texts)
        if day is None:
            continue
        # every person the call names with a date of birth (a player and a guardian): the
        # rule is broken only where none of them meets it
        people = [(v, b) for v in args.values() if isinstance(v, str) and (b := _birth(v, shown))]
        ages = [(v, b, age_on(b, day)) for v, b in people]
        if ages and not any(limits[0] <= age <= limits[1] for _, _, age in ages):
            value, birth, age = ages[0]
            return (
                f"{value} is {age} on {day.isoformat()} (born {birth.isoformat()}), and "
                f"the words keep {chosen!r} to ages {_shown(limits)} ({sentence.strip()!r})"
            )
    return None


def _birth(name: str, shown: list[str]) -> date | None:
    """The date of birth a line of the listings prints beside `name` (`Sam: born
    2008-03-02`), where exactly one such line names it."""
    if len(name.strip()) < 2:
        return None
    named = re.compile(rf"(?<!\w){re.escape(name.strip())}(?!\w)")
    found = {
        _date(m)
        for text in shown
        for line in text.splitlines()
        if (at := named.search(line)) and (m := _BORN.search(line, at.end()))
    } - {None}
    return found.pop() if len(found) == 1 else None


def _names(sentence: str, chosen: str, every: bool) -> bool:
    """Whether the sentence names the option (every word of it), or a flag (its head, the
    last word: `discount` of `young_person_discount`, not `child` of `child_seat`)."""
    text = sentence.lower()
    words = re.findall(r"[a-z0-9]+", chosen.lower())
    if not every:
        words = words[-1:] if words and len(words[-1]) >= 4 else []
    found = [bool(re.search(rf"\b{re.escape(w)}\b", text)) for w in words if len(w) > 2]
    return bool(found) and all(found)


def _shown(limits: tuple[int, int]) -> str:
    low, high = limits
    return f"{low} or over" if high >= 10**3 else f"{low} to {high}"
