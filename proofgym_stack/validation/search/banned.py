"""A pairing the words ban: the thing a call names, sent with a value a clause bans it from.

"The airline bans these from the cabin: lighter fluid, camping gas, bear spray ...": a call
`pack(item="bear spray", bag="cabin")` pairs a thing the clause lists with the value it bans
the things from. Where honest play sent that thing with another value (the hold), and a
mutant that sends the banned value is paid, the verifier does not hold the rule its own words
state (a list of banned things that lost one, a name misspelt in it).
"""

from __future__ import annotations

import re

from proofgym_stack.validation.scripts import call_arguments, script_calls
from proofgym_stack.validation.search.rules import clauses
from proofgym_stack.validation.search.tolerance import Played

#: words that make a clause a ban
_BANS = re.compile(
    r"\b(?:bans?|banned|barred|never|not allowed|must not|may not|forbidden|prohibited|"
    r"no)\b",
    re.I,
)


def _said(value: str, clause: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(value.strip())}(?![\w-])", clause, re.I) is not None


def banned_pairing(p: Played, words: str) -> str | None:
    """For an argument changed to `new` in a call that names a thing (its other text
    arguments): a clause of the words with a ban word that names `new` and the thing, and
    not honest play's value: the ban broken, as a reason; or None."""
    m = p.mutant
    if m.op != "argument" or m.call_at is None or not isinstance(m.new, str):
        return None
    if not isinstance(m.old, str) or not m.new.strip() or len(m.new.strip()) < 3:
        return None
    t, i = m.call_at
    item = next((it for ct, ci, it in script_calls(m.script) if (ct, ci) == (t, i)), None)
    if item is None:
        return None
    key = str(m.leaf[-1]) if m.leaf else ""
    things = [
        v
        for k, v in call_arguments(item).items()
        if k != key and isinstance(v, str) and len(v) >= 3
    ]
    for clause in clauses(words):
        if not _BANS.search(clause) or not _said(m.new, clause) or _said(m.old, clause):
            continue
        for thing in things:
            if _said(thing, clause):
                said = " ".join(clause.split())[:100]
                return f"the task's words ban {thing!r} from {m.new!r} ({said!r})"
    return None
