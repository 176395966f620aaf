"""A verifier that grades a share of like steps: "at least 90% of the sheet's rows entered".

Where honest play makes many calls of one tool (a row each) and the verifier accepts a share of
them done right, one row left out or entered wrong still pays: that is the tolerance the author
wrote, not a step nothing checks. It is told apart by keeping only the first of those calls: a
verifier that grades a share of what was asked fails that; one that reads only some of the
calls, or the share of what was entered instead of what was asked, still pays it.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import TYPE_CHECKING

from proofgym.wire.protocol import Control, Task
from proofgym_stack.validation.negatives import task_words
from proofgym_stack.validation.scripts import Script, call_arguments, script_calls

if TYPE_CHECKING:
    from proofgym_stack.validation.context import Context

#: the fewest calls of one tool a share is read over (one of four is already a quarter)
MIN_CALLS = 4


def only_first(script: Script, tool: str) -> Script | None:
    """`script` with every call of `tool` but the first left out; None where it makes fewer
    than `MIN_CALLS` of them."""
    calls = [(t, i) for t, i, item in script_calls(script) if item.get("name") == tool]
    if len(calls) < MIN_CALLS:
        return None
    drop = set(calls[1:])
    out = [
        [item for i, item in enumerate(turn) if (t, i) not in drop] for t, turn in enumerate(script)
    ]
    return [turn for turn in out if turn]


def _calls_of(script: Script) -> Counter[tuple[str, str]]:
    return Counter(
        (str(item.get("name")), json.dumps(call_arguments(item), sort_keys=True))
        for _, _, item in script_calls(script)
    )


def one_call_touched(honest: Script, mutant: Script) -> tuple[str, str] | None:
    """The tool and arguments of the one call the mutant left out or changed (every other
    call as honest play made it), or None where it touched more than one."""
    before, after = _calls_of(honest), _calls_of(mutant)
    removed, added = before - after, after - before
    if sum(removed.values()) != 1 or sum(added.values()) > 1:
        return None
    # the one call made another way (another tool in its place, a look instead) is still
    # one of the like calls missing
    ((tool, args),) = removed
    return tool, args


def without_call(script: Script, tool: str, args: str) -> Script | None:
    """`script` without its first call of `tool` with the arguments `args` (JSON, sorted);
    None where it makes no such call."""
    for t, i, item in script_calls(script):
        if item.get("name") == tool and json.dumps(call_arguments(item), sort_keys=True) == args:
            out = [
                [x for k, x in enumerate(turn) if (n, k) != (t, i)] for n, turn in enumerate(script)
            ]
            return [turn for turn in out if turn]
    return None


async def graded_as_a_share(ctx: Context, task: Task, script: Script, tool: str) -> bool:
    """Whether the verifier grades `tool`'s calls as a share: `script` (which passes) with
    only the first of them kept fails, and is not masked."""
    kept = only_first(script, tool)
    if kept is None:
        return False
    result = await ctx.run(task, kept, f"a share: only the first {tool} kept", expect="fail")
    return not ctx.passes(result) and not result.mask_sample


#: a clause that makes a rule of its words ("every section must be on the sheet")
_MUST = re.compile(r"\b(?:must|has to|have to|needs? to|is required|are required|shall)\b", re.I)
#: "every section", "each bed", "all the rows": the quantifier and the noun after it
_EVERY = re.compile(r"\b(?:every|each|all(?: the)?)\s+([a-z]+)", re.I)
#: what the rule requires of each thing: that it be there (recorded, on the sheet)
_PRESENT = re.compile(
    r"\b(?:on the|in the|recorded|entered|included|listed|logged|present|covered)\b", re.I
)
#: a clause about order or form, not presence ("surveyed before you record it")
_NOT_PRESENCE = re.compile(r"\b(?:before|after|first|then|whole number|between|from \d)", re.I)
#: words that grant a share ("at least 80% of the rows", "most of them")
_A_SHARE = re.compile(r"%|\bper ?cent\b|\bat least \d|\bmost of\b|\bmajority\b", re.I)


def every_one_required(words: str, keys: set[str]) -> str | None:
    """The clause of the task's `words` that requires every one of the things a tool's
    argument names to be there ("every section must be on the sheet", for
    `record(section, ...)`), where the words grant no share anywhere; None otherwise. Such
    words leave the author no tolerance of one thing left out."""
    if _A_SHARE.search(words):
        return None
    for clause in re.split(r"[.;!?\n]", words):
        if not _MUST.search(clause) or not _PRESENT.search(clause):
            continue
        if _NOT_PRESENCE.search(clause):
            continue
        for found in _EVERY.finditer(clause):
            noun = found.group(1).lower()
            if noun in keys or noun.rstrip("s") in keys:
                return " ".join(clause.split())
    return None


def _things(script: Script, tool: str) -> set[str]:
    """The arguments whose values tell `tool`'s calls apart in `script` (`section` of
    `record(section, species)` made once per section), and their parts (`section_id`
    gives `section` too)."""
    seen: dict[str, set[str]] = {}
    for _, _, item in script_calls(script):
        if item.get("name") == tool:
            for key, value in call_arguments(item).items():
                seen.setdefault(str(key).lower(), set()).add(json.dumps(value, sort_keys=True))
    keys = [k for k, values in seen.items() if len(values) > 1]
    return set(keys) | {part for k in keys for part in k.split("_") if len(part) > 2}


class Shares:
    """For one search: whether a mutant touched one of many like calls of a tool whose
    calls the verifier grades as a share (one row wrong inside the author's tolerance),
    each (task, control, tool) probed once."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.known: dict[tuple[str, str, str], bool] = {}
        #: (task, control, tool, the call's arguments) -> honest play without it still pays
        self.spare: dict[tuple[str, str, str, str], bool] = {}

    async def within(self, control: Control, mutant: Script, task: Task) -> bool:
        """Whether `mutant`, one call of `control`'s changed, stays inside a share: the
        verifier grades the tool's calls as a share, and honest play without that one call
        still pays, as it does without another of them (a verifier that needs every call is no
        share, whatever else it reads; one that reads every call but this one ignores it)."""
        touched = one_call_touched(control.script, mutant)
        if touched is None:
            return False
        tool, args = touched
        left_out = not (_calls_of(mutant) - _calls_of(control.script))
        words = task_words(self.ctx.env, task)
        if left_out and every_one_required(words, _things(control.script, tool)):
            return False  # the words require each one there: no share is the author's to grant
        key = (task.task_id, control.name, tool)
        if key not in self.known:
            self.known[key] = await graded_as_a_share(self.ctx, task, control.script, tool)
        if not self.known[key]:
            return False
        if not await self._spare(task, control, tool, args):
            return False
        # a share grants its slack to any of the like calls: where every other one left out
        # fails, this one is simply not read (a ticket's settings, each required, and the
        # root-login line never checked), not the author's tolerance
        others = [a for a in _distinct_args(control.script, tool) if a != args]
        picked = others[:1] + others[-1:] if len(others) > 1 else others
        for other in picked:
            if await self._spare(task, control, tool, other):
                return True
        return False

    async def _spare(self, task: Task, control: Control, tool: str, args: str) -> bool:
        """Whether honest play without its call of `tool` with `args` still pays (kept)."""
        spare = (task.task_id, control.name, tool, args)
        if spare not in self.spare:
            left = without_call(control.script, tool, args)
            if left is None:
                self.spare[spare] = False
            else:
                result = await self.ctx.run(task, left, f"a share: one {tool} call left out")
                self.spare[spare] = self.ctx.passes(result) and not result.mask_sample
        return self.spare[spare]


def _distinct_args(script: Script, tool: str) -> list[str]:
    """The arguments (JSON, sorted) of `tool`'s calls in `script`, each once, in order."""
    seen: dict[str, None] = {}
    for _, _, item in script_calls(script):
        if item.get("name") == tool:
            seen.setdefault(json.dumps(call_arguments(item), sort_keys=True), None)
    return list(seen)
