"""A pairing the words ban: the thing a call names, sent with a value a clause bans it from.

"The airline bans these from the cabin: lighter fluid, camping gas, bear spray ...": a call
`pack(item="bear spray", bag="cabin")` pairs a thing the clause lists with the value it bans
the things from. Where honest play sent that thing with another value (the hold), and a
mutant that sends the banned value is paid, the verifier does not hold the rule its own words
state (a list of banned things that lost one, a name misspelt in it). `banned_mutants` tries
each such pairing honest play's own values allow, played beside the draw (at most
`MAX_BANNED` a task).
"""

from __future__ import annotations

import re

from proofgym_stack.validation.scripts import Script, call_arguments, script_calls
from proofgym_stack.validation.search.mutants import Mutant, with_call
from proofgym_stack.validation.search.rules import clauses
from proofgym_stack.validation.search.tolerance import Played

#: the banned pairings played per task, beside the seeded draw
MAX_BANNED = 4
#: words that make a clause a ban
_BANS = re.compile(
    r"\b(?:bans?|banned|barred|not allowed|must not|may not|forbidden|prohibited)\b",
    re.I,
)


def says(value: str, clause: str) -> bool:
    """Whether `clause` names `value` as a whole word or phrase, in any case."""
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
        if not _BANS.search(clause) or not says(m.new, clause) or says(m.old, clause):
            continue
        for thing in things:
            if says(thing, clause):
                said = " ".join(clause.split())[:100]
                return f"the task's words ban {thing!r} from {m.new!r} ({said!r})"
    return None


def _bans_from(clause: str, new: str, old: str, things: list[str]) -> bool:
    """Whether `clause` bans one of `things` from `new` (and says nothing of `old`): where it
    lists what it bans after a colon, the thing among the list and `new` before it."""
    if not says(new, clause) or says(old, clause):
        return False
    head, colon, listed = clause.partition(":")
    if not colon:
        return any(says(x, clause) for x in things)
    return says(new, head) and any(says(x, listed) for x in things)


def banned_mutants(script: Script, words: str) -> list[Mutant]:
    """For each call that names a thing a ban clause lists ("bans these from the cabin:
    ..., bear spray, ..."), the call with an argument honest play sent another of its values
    set to the value the clause bans the thing from (`bag="cabin"`): what the words forbid,
    tried first."""
    bans = [c for c in clauses(words) if _BANS.search(c)]
    calls = script_calls(script)
    sent: dict[tuple[str, str], set[str]] = {}
    for _, _, item in calls:
        for key, value in call_arguments(item).items():
            if isinstance(value, str):
                sent.setdefault((str(item.get("name")), key), set()).add(value)
    out: list[Mutant] = []
    for t, i, item in calls:
        name, args = str(item.get("name")), call_arguments(item)
        for key, value in args.items():
            if not isinstance(value, str):
                continue
            things = [v for k, v in args.items() if k != key and isinstance(v, str) and len(v) >= 3]
            for other in sorted(sent.get((name, key), set()) - {value}):
                if any(_bans_from(c, other, value, things) for c in bans):
                    new = with_call(script, t, i, {**args, key: other})
                    what = f"{name}: {key} {value!r} -> {other!r}, which the words ban it from"
                    site = f"{name}.{key}"
                    m = Mutant(new, "argument", site, "banned", what, (t, i), (key,), value, other)
                    out.append(m)
    return out
