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
from proofgym_stack.validation.search.rules import clauses

_BEFORE = re.compile(r"\b(before|prior to|after)\b", re.I)


def _named(text: str, tools: list[str]) -> list[str]:
    """The tools `text` names by their own names (`verify_resident`, or "verify resident")."""
    low = text.lower()
    out = []
    for tool in tools:
        spoken = tool.replace("_", " ").lower()
        if re.search(rf"(?<![\w]){re.escape(tool.lower())}(?![\w])", low) or (
            " " in spoken and spoken in low
        ):
            out.append(tool)
    return out


def stated_orders(words: str, tools: list[str]) -> list[tuple[str, str, str]]:
    """(first, then, clause) for each pair of tools the words put in an order."""
    out = []
    for clause in clauses(words):
        m = _BEFORE.search(clause)
        if m is None:
            continue
        left, right = _named(clause[: m.start()], tools), _named(clause[m.end() :], tools)
        if m.group(1).lower() == "after":
            left, right = right, left
        out += [(a, b, clause.strip()) for a in left for b in right if a != b]
    return out


def _first(script: Script, tool: str) -> int | None:
    names = [str(item.get("name")) for _, _, item in script_calls(script)]
    return names.index(tool) if tool in names else None


def broken_order(honest: Script, mutant: Script, words: str) -> str | None:
    """The stated order the mutant breaks and honest play keeps, as a reason; None where
    the words state none or the mutant keeps each."""
    tools = list(dict.fromkeys(str(item.get("name")) for _, _, item in script_calls(honest)))
    for a, b, clause in stated_orders(words, tools):
        ha, hb, ma, mb = _first(honest, a), _first(honest, b), _first(mutant, a), _first(mutant, b)
        if None in (ha, hb, ma, mb):
            continue
        assert ha is not None and hb is not None and ma is not None and mb is not None
        if ha < hb and mb < ma:
            return f"the task's words state an order ({clause!r}); this made {b} before {a}"
    return None


def order_still_broken(honest: Script, words: str) -> Callable[[Script], bool]:
    """What a shrunk trajectory keeps: a stated order still broken."""
    return lambda script: broken_order(honest, script, words) is not None
