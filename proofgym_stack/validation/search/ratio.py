"""A ratio the words state ("one course marshal per 50 expected runners"), and a mutant short
of the count it asks for.

A verifier may take fewer of a tool's calls than honest play made (a share: any four of the
five marshals); that is the policy's freedom unless the task's words state how many are
needed. They do where they give a ratio, one thing per so many of a quantity the prompt
gives ("expects 225 runners"), with its rounding ("to the nearest, a half rounds up";
"rounded up"; by default up, as a minimum is). A ratio that caps ("at most one stall per 20
visitors") asks for no count. Honest play's count of the tool's calls must be exactly the
need read so (which ties the ratio to the tool: "one first-aider per 100 runners" is not the
marshals' ratio); a mutant that leaves fewer distinct effective calls of the tool than the
need breaks the stated rule.
"""

from __future__ import annotations

import json
import math
import re

from proofgym_stack.validation.negatives import prompt_text
from proofgym_stack.validation.scripts import Script, call_arguments, refused_calls, script_calls
from proofgym_stack.validation.search.tolerance import Played

_NUMBER = r"(\d[\d,]*(?:\.\d+)?)"
#: "one marshal per 50 runners", "1 adult for every 8 children", "two staff per 30 guests"
_RATIO = re.compile(
    rf"\b(one|two|three|four|a|an|\d+)\s+([a-z][a-z -]{{0,30}}?)\s+"
    rf"(?:per|for every|for each|to every|every)\s+{_NUMBER}\s+"
    r"((?:(?!(?:and|or|per|but)\b)[a-z-]+\s*){1,4})",
    re.I,
)
_SMALL = {"one": 1, "a": 1, "an": 1, "two": 2, "three": 3, "four": 4}
#: a ratio that caps, not one that asks for a count
_CAPS = re.compile(r"\b(?:at most|no more than|up to|maximum|max|limit|cap|not exceed)\b", re.I)


def _need(count: float, per: float, clause: str) -> int:
    """`count / per` rounded as the clause says: to the nearest (a half up), down, or up."""
    x = count / per
    if re.search(r"\bnearest\b", clause, re.I):
        return math.floor(x + 0.5)
    if re.search(r"\b(?:rounded|round) down\b", clause, re.I):
        return math.floor(x)
    return math.ceil(x)


def _quantity(nouns: str, prompt: str) -> float | None:
    """The one quantity of the prompt counted in one of `nouns` (the words after the ratio's
    number: "expected runners"), or None: none, several, or a range ("51 or 60 swimmers")."""
    for word in nouns.split():
        noun = word.lower().rstrip("s")
        if len(noun) < 3:
            continue
        named = rf"(?:[a-z-]+\s+)?{re.escape(noun)}s?\b"
        found = {
            float(n.replace(",", "")) for n in re.findall(rf"{_NUMBER}\s+{named}", prompt, re.I)
        }
        if not found:
            continue
        span = rf"{_NUMBER}\s*(?:or|to|and|-|\u2013)\s*{_NUMBER}\s+{named}"
        if len(found) != 1 or re.search(span, prompt, re.I):
            return None
        return found.pop()
    return None


def ratio_needs(words: str, prompt: str) -> list[tuple[int, str]]:
    """Every count a ratio of the words asks for, applied to the one quantity of the prompt
    its nouns name, with its clause (a capping ratio asks for none)."""
    out = []
    for sentence in re.split(r"(?<=[.!?;])\s+|\n", words):
        if _CAPS.search(sentence):
            continue
        for hit in _RATIO.finditer(sentence):
            head = hit.group(1).lower()
            each = _SMALL.get(head) or (int(head) if head.isdigit() else 0)
            per = float(hit.group(3).replace(",", ""))
            count = _quantity(hit.group(4), prompt)
            if count is None or per <= 0 or each <= 0:
                continue
            out.append((each * _need(count, per, sentence), " ".join(sentence.split())[:120]))
    return out


def _effective(script: Script, refused: set[tuple[int, int]], tool: str) -> int:
    """Distinct calls of `tool` in `script` that took effect."""
    return len(
        {
            json.dumps(call_arguments(item), sort_keys=True)
            for t, i, item in script_calls(script)
            if item.get("name") == tool and (t, i) not in refused
        }
    )


def short_of_a_ratio(p: Played, words: str) -> str | None:
    """Why the mutant breaks a ratio the words state: fewer distinct effective calls of the
    tool it changed than the count the ratio asks for, which honest play's count is; or
    None."""
    tool = p.mutant.site.split(".")[0]
    honest = _effective(p.honest.control.script, set(), tool)
    for need, clause in ratio_needs(words, prompt_text(p.base.task)):
        if need != honest:
            continue
        mine = _effective(p.mutant.script, refused_calls(p.mutant.script, p.result), tool)
        if mine < need:
            return f"{mine} {tool} where the task's ratio asks for {need} ({clause!r})"
    return None
