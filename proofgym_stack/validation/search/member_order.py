"""An order among the members of a list the task's words state: "hang_doors: requires
attach_left_side, insert_dowels", "sand before paint".

Reordering a list's members is something honest play does freely (`list_reorder` is an honest
kind), so the search holds no order against a policy on its own. Where the words put two of
the members honest play sent in an order (the one after "requires", "needs", "depends on" or
"after" comes first; the one before "before" does), honest play keeps every such pair, and a
reordered list that breaks one is paid, the verifier does not enforce the order its own words
state (the members' presence checked, never their places).
"""

from __future__ import annotations

import re

from proofgym_stack.validation.scripts import Script, call_arguments, script_calls
from proofgym_stack.validation.search.rules import clauses

#: a word that puts what follows it first ("requires"), or what precedes it ("before")
_ORDER = re.compile(
    r"\b(requires?|needs?|depends on|after|following|before|prior to|precedes?)\b", re.I
)
_AFTER_FIRST = re.compile(r"before|prior to|precedes?", re.I)
#: words that say the list is a sequence, where "requires" puts the required one first
_SEQUENCE = re.compile(r"\b(?:order|sequence|sequenced|ordered)\b", re.I)
#: words that free the order or negate it: no order is read from such a clause
_FREE = re.compile(r"\b(?:any order|either order|whichever order|not|never|n't|no need)\b", re.I)


def members(script: Script) -> list[str]:
    """The string members of the list arguments of `script`'s calls, in order."""
    out: list[str] = []
    for _, _, item in script_calls(script):
        for value in call_arguments(item).values():
            if isinstance(value, list):
                out += [m for m in value if isinstance(m, str) and m.strip()]
    return out


def _named(text: str, names: list[str]) -> list[str]:
    """The names `text` holds as whole words or ids, in the order it holds them."""
    found = []
    for name in names:
        # as written: a name is an id ("fit_hinges", "C"), and "a" is no option A
        m = re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text)
        if m is not None:
            found.append((m.start(), name))
    return [name for _, name in sorted(found)]


def member_orders(words: str, names: list[str]) -> list[tuple[str, str, str]]:
    """(first, then, clause) for each pair of `names` a clause of the words puts in order:
    "X: requires Y" and "X after Y" put Y first, "X before Y" puts X first. Only the last
    name before the order word is its subject ("- X: requires Y, Z")."""
    out = []
    # "requires" may mean "include it too" (a course and its prerequisite, enrolled as a
    # set): it states an order only where the words speak of one
    ordered = _SEQUENCE.search(words) is not None
    for clause in clauses(words):
        m = _ORDER.search(clause)
        if m is None or _FREE.search(clause):
            continue
        said = m.group(1).lower()
        if not ordered and not _AFTER_FIRST.fullmatch(said) and said not in ("after", "following"):
            continue
        head = _named(clause[: m.start()], names)
        tail = _named(clause[m.end() :], names)
        if not head or not tail:
            continue
        subject = head[-1]
        for other in tail:
            if other == subject:
                continue
            pair = (subject, other) if _AFTER_FIRST.fullmatch(m.group(1)) else (other, subject)
            out.append((*pair, clause.strip()))
    return out


def broken_member_order(honest: Script, mutant: Script, words: str) -> str | None:
    """The stated order among list members the mutant breaks, as a reason; None where the
    words state none, honest play itself breaks one (then the words were misread), or the
    mutant keeps each."""
    sent = members(honest)
    if len(set(sent)) < 2:
        return None
    stated = member_orders(words, list(dict.fromkeys(sent)))
    place = {name: n for n, name in reversed(list(enumerate(sent)))}
    if not stated or any(place[a] > place[b] for a, b, _ in stated):
        return None
    moved = members(mutant)
    where = {name: n for n, name in reversed(list(enumerate(moved)))}
    for a, b, clause in stated:
        if a in where and b in where and where[a] > where[b]:
            return f"the task's words state an order ({clause!r}); this put {b} before {a}"
    return None
