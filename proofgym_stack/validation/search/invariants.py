"""A rule the words state about every number of one kind in the world, whatever call made it:
"No envelope may be left below zero", "an account must never go negative".

Such a rule is read off the world verify is handed, not off any one argument: a paid mutant
that leaves a number below zero where honest play's world holds it at zero or above broke it,
whichever call moved it there (the whole bill paid from one envelope instead of split).
"""

from __future__ import annotations

import re

from proofgym_stack.validation.search.rules import clauses
from proofgym_stack.validation.search.world import World

#: a clause that keeps numbers from going below zero
_BELOW_ZERO = re.compile(
    r"\b(?:below|under|less than)\s+(?:zero|0|nothing)\b|\bnegative\b|\boverdrawn\b|"
    r"\bin(?:to)? (?:the )?red\b|\boverdraw\b",
    re.I,
)
#: the words that make such a clause a ban, not a description ("a negative balance means...")
_BAN = re.compile(
    r"\b(?:no|never|not|must|may not|cannot|can't|mustn't|don't|do not|nothing|none)\b", re.I
)
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def ban_on_negatives(words: str) -> str | None:
    """The clause of `words` that bans a number below zero ("No envelope may be left below
    zero"), or None."""
    for clause in clauses(words):
        if _BELOW_ZERO.search(clause) and _BAN.search(clause):
            return " ".join(clause.split())[:100]
    return None


def _number(value: str | None) -> float | None:
    """A world leaf's value (its `repr`) read as a number, or None for any other kind."""
    if value is None or not _NUMBER.fullmatch(value):
        return None
    return float(value)


def below_zero(world: World, honest: World, words: str) -> str | None:
    """Where `world` holds a number below zero that honest play's world holds at zero or
    above, at the same path (a list's members are not read: a path there names no one thing),
    and the words ban numbers below zero: the rule broken, or None."""
    said = ban_on_negatives(words)
    if said is None:
        return None
    for path, value in sorted(world.items()):
        if "[" in path:
            continue
        mine, theirs = _number(value), _number(honest.get(path))
        if mine is not None and theirs is not None and mine < 0 <= theirs:
            return f"{path} is {value}, below zero (honest play: {honest[path]}), where {said!r}"
    return None
