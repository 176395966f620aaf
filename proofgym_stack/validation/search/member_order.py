"""An order among the members of a list the task's words state: "hang_doors: requires
attach_left_side, insert_dowels", "sand before paint".

Reordering a list's members is something honest play does freely (`list_reorder` is an honest
kind), so the search holds no order against a policy on its own. Where the words put two of
the members honest play sent in an order (the one after "requires", "needs", "depends on" or
"after" comes first; the one before "before" does), honest play keeps every such pair, and a
reordered list that breaks one is paid, the verifier does not enforce the order its own words
state (the members' presence checked, never their places).

A list the words rank ("Rank the teams by points; teams level on points by goal
difference"), with a tie-break, is an answer by its order: two neighbours honest play ranked,
swapped and paid, where the records the words give them differ in their numbers (a tie-break
could tell them apart), is a ranking the verifier checks on its first key only.
"""

from __future__ import annotations

import re

from proofgym_stack.validation.scripts import Script, call_arguments, script_calls
from proofgym_stack.validation.search.rules import clauses, full_sentences

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


#: words that make a list's order its answer: a ranking or a league's standings
_RANKED = re.compile(r"\b(?:rank(?:ed|ing|s)?|standings|league table)\b", re.I)
#: words that break a tie between members level on the first key
_TIE_BREAK = re.compile(
    r"\b(?:level on|equal on|tie-?breaks?|ties (?:are )?broken|if (?:they are )?(?:level|equal|"
    r"tied)|then by)\b",
    re.I,
)
#: words that leave tied members in any order
_ANY_ORDER = re.compile(
    r"\b(?:any order|either order|whichever order|share (?:a|the) place)\b", re.I
)
_DIGITS = re.compile(r"\d+(?:\.\d+)?")


def _record(name: str, words: str) -> str | None:
    """The clause or line of the words that gives `name`'s record (`Bexley Blaze W5 D1 L4
    goals 384-412`)."""
    for piece in re.split(r"[;\n]", words):
        if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", piece):
            return piece.replace(name, " ")
    return None


def swapped_in_a_ranking(honest: Script, mutant: Script, words: str) -> str | None:
    """Where the mutant swapped two neighbours of a list honest play sent, the words rank the
    list and break its ties, and the records the words give the two differ in their numbers:
    the ranking broken, as a reason; or None."""
    ours, theirs = members(honest), members(mutant)
    if len(ours) != len(theirs) or sorted(ours) != sorted(theirs):
        return None
    moved = [k for k in range(len(ours)) if ours[k] != theirs[k]]
    if len(moved) != 2 or moved[1] != moved[0] + 1:
        return None
    if _ANY_ORDER.search(words):
        return None
    sentences = [x for x in full_sentences(words) if x.strip()]
    # the ranking and its tie-break in one sentence or the next
    ranked = next(
        (
            x
            for n, x in enumerate(sentences)
            if _RANKED.search(x) and _TIE_BREAK.search(" ".join(sentences[n : n + 2]))
        ),
        None,
    )
    if ranked is None:
        return None
    upper, lower = ours[moved[0]], ours[moved[1]]
    a, b = _record(upper, words), _record(lower, words)
    if a is None or b is None or _DIGITS.findall(a) == _DIGITS.findall(b):
        return None
    if not _DIGITS.findall(a):
        return None
    return (
        f"the task's words rank the list and break ties ({' '.join(ranked.split())[:80]!r}); "
        f"this put {lower} above {upper}, whose records differ"
    )
