"""An order the task's words state: "check X with verify_resident before any work (open_door,
change_lock, cut_keys)".

Reordering calls is something honest play does freely, so the search never holds an order
against a policy on its own. Where the words name tools on both sides of "before" (or
"after"), honest play keeps that order, and a reordered trajectory that breaks it is paid,
the verifier does not enforce the order its own words state (a rule checked against the last
occurrence, or never checked).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from proofgym_stack.validation.scripts import Script, script_calls
from proofgym_stack.validation.search.member_order import broken_member_order, swapped_in_a_ranking
from proofgym_stack.validation.search.rules import clauses

_BEFORE = re.compile(r"\b(before|prior to|after)\b", re.I)
#: words that free the order, or turn it round: no stated order is read from such a clause
_FREE = re.compile(
    r"\b(?:before or after|after or before|either|any order|whichever order|never|not|n't|"
    r"no need)\b",
    re.I,
)
#: how far after "before" the tool it names may stand ("before any work on a lock (open_door")
_NEAR = 60


def _named(text: str, tools: list[str]) -> list[str]:
    """The tools `text` names by their own names (`verify_resident`, or "verify resident")."""
    low = text.lower()
    out = []
    for tool in tools:
        spoken = tool.replace("_", " ").lower()
        if re.search(rf"(?<![\w]){re.escape(tool.lower())}(?![\w])", low) or (
            " " in spoken and re.search(rf"\b{re.escape(spoken)}\b", low)
        ):
            out.append(tool)
    return out


def stated_orders(words: str, tools: list[str]) -> list[tuple[str, str, str]]:
    """(first, then, clause) for each pair of tools the words put in an order: "A before B",
    "B after A", "Before B, A". A clause that frees the order or negates it states none."""
    out = []
    for clause in clauses(words):
        m = _BEFORE.search(clause)
        if m is None or _FREE.search(clause):
            continue
        head, tail = clause[: m.start()], clause[m.end() :]
        if not head.strip(" (") and "," in tail:  # "Before calling fit_lock, run check_id"
            named, rest = tail.split(",", 1)
            left, right = _named(rest, tools), _named(named, tools)
        else:
            near = re.split(r"\s(?:and|then|so)\s", tail[:_NEAR], maxsplit=1)[0]
            left, right = _named(head, tools), _named(near, tools)
        if m.group(1).lower() == "after":
            left, right = right, left
        out += [(a, b, clause.strip()) for a in left for b in right if a != b]
    return out


def _first(script: Script, tool: str, skip: frozenset[tuple[int, int]]) -> int | None:
    names = [str(item.get("name")) for t, i, item in script_calls(script) if (t, i) not in skip]
    return names.index(tool) if tool in names else None


def broken_order(
    honest: Script, mutant: Script, words: str, refused: frozenset[tuple[int, int]] = frozenset()
) -> str | None:
    """The stated order the mutant breaks and honest play keeps, as a reason; None where
    the words state none or the mutant keeps each. The mutant's calls at `refused` (the tools
    refused them: the tool kept the order) do not count."""
    tools = list(dict.fromkeys(str(item.get("name")) for _, _, item in script_calls(honest)))
    none: frozenset[tuple[int, int]] = frozenset()
    for a, b, clause in stated_orders(words, tools):
        ha, hb = _first(honest, a, none), _first(honest, b, none)
        ma, mb = _first(mutant, a, refused), _first(mutant, b, refused)
        if None in (ha, hb, ma, mb):
            continue
        assert ha is not None and hb is not None and ma is not None and mb is not None
        if ha < hb and mb < ma:
            return f"the task's words state an order ({clause!r}); this made {b} before {a}"
    # the members of a list argument, in an order the words state ("X: requires Y"), or a
    # ranking with tie-breaks whose neighbours were swapped
    return broken_member_order(honest, mutant, words) or swapped_in_a_ranking(honest, mutant, words)


def order_still_broken(honest: Script, words: str) -> Callable[[Script], bool]:
    """What a shrunk trajectory keeps: a stated order still broken."""
    return lambda script: broken_order(honest, script, words) is not None
