"""A refused call tried again another way (the search's retries).

A policy whose call a tool refuses tries again: it flips a flag the schema offers, or sends
the batch in smaller parts. For each played mutant whose changed call the tool refused (a
parcel too heavy for Economy, an order past the budget), the search makes that call again
with each boolean argument flipped, and with each list argument sent one member per call
(`retried`). Where the retry is accepted and pays, and leaves the world honest play would
not (the parcel posted by Economy after all), the refusal was a rule the tool enforces on one
path only (`bypassed`): the flag that lifts it has nothing to do with it (its own words,
past the tool's common ones, share none with the refusal), or the rule was past a total, not
per call (the refusal names no limit "per order"). A retry still refused anywhere bypasses
nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from proofgym.wire.protocol import RunResult
from proofgym_stack.validation.scripts import (
    call_arguments,
    call_index,
    tool_outputs,
)
from proofgym_stack.validation.search.budget import FIRST, one_step
from proofgym_stack.validation.search.evidence import answered_with_error, refused
from proofgym_stack.validation.search.mutants import Mutant, _item, _short, replaced, with_call
from proofgym_stack.validation.search.options import _object, records
from proofgym_stack.validation.search.tolerance import Played
from proofgym_stack.validation.search.values import tool_properties
from proofgym_stack.validation.search.world import lost

#: retries played per search, beside the follow-ups' draw
MAX_RETRIED = 12
OP = "retry"
#: true spelt as a string, as a policy writing JSON by hand may send it
SPELT = "true"
#: a refusal of one call's size, which a policy may meet by sending less per call
_PER_CALL = re.compile(
    r"\b(?:per|each|a single|one)\s+(?:\w+\s+)?(?:order|call|request|batch|message|booking|"
    r"transaction|shipment|parcel|transfer)\b"
    r"|\b(?:at most|up to|no more than|max(?:imum)?(?: of)?|limit(?:ed)?(?: is| of| to)?)\s+\d+"
    r"|\btoo (?:many|large|big)\b|\bat a time\b|\bbatch limit\b"
    r"|\b(?:over|more than) \d+ (?:items|members|entries|files|photos|rows|lines|seats)\b",
    re.I,
)
#: words of a refusal about a total, which parts do not meet: a budget, a balance
_TOTAL = re.compile(
    r"\b(?:total|budget|remaining|overall|running|spend|spent|balance|cumulative|allowance)\b"
    r"|[£$€]|\b(?:GBP|USD|EUR)\b",
    re.I,
)
_WORD = re.compile(r"[A-Za-z]{4,}")


def _refusal(p: Played) -> str | None:
    """What the tool answered the changed call with, where it refused it (`refused`)."""
    m = p.mutant
    if not refused(p) or m.call_at is None:
        return None
    return tool_outputs(p.result)[call_index(m.script, *m.call_at) or 0]


def retried(played: list[Played]) -> list[tuple[Mutant, Played]]:
    """For each played mutant whose changed call the tool refused: the call made again with
    each of its booleans flipped, and with each list argument one member per call; each
    kept with the mutant it retries. At most `MAX_RETRIED`."""
    out: list[tuple[Mutant, Played]] = []
    for p in played:
        refusal = _refusal(p)
        m = p.mutant
        if refusal is None or m.call_at is None:
            continue
        t, i = m.call_at
        item = m.script[t][i]
        name, args = str(item.get("name")), call_arguments(item)
        # the schema's flags, sent or left to their default (False unless it says)
        flags = {k: bool(v.get("default", False)) for k, v in _booleans(p, name).items()}
        flags.update({k: v for k, v in args.items() if isinstance(v, bool)})
        for key, value in flags.items():
            if (key,) != m.leaf:
                script = with_call(m.script, t, i, {**args, key: not value})
                what = f"{m.what}, refused, then retried with {key}={not value}"
                out.append((replace(m, script=script, op=OP, what=what, note=refusal), p))
                if not value:  # true as a policy may spell it: a string the tool coerces
                    script = with_call(m.script, t, i, {**args, key: SPELT})
                    what = f"{m.what}, refused, then retried with {key}={SPELT!r}"
                    out.append((replace(m, script=script, op=OP, what=what, note=refusal), p))
        for key, value in args.items():
            if isinstance(value, list) and len(value) >= 2:
                parts = [_item(name, {**args, key: [member]}) for member in value]
                script = replaced(m.script, t, i, parts)
                what = f"{m.what}, refused, then retried one {key} member per call"
                out.append(
                    (replace(m, script=script, op=OP, what=what, note=refusal, call_at=None), p)
                )
    # a number one step past a limit the tool keeps first (a gate opened 1% past its safe
    # limit: what a switch may let through), then the options a listing printed (Economy
    # for a parcel), junk last (`oak`)
    # (of each kind, a flag spelt as a string after every flag sent as a boolean)
    out.sort(key=lambda pair: (not one_step(pair[1].mutant.old, pair[1].mutant.new),
                               f"={SPELT!r}" in pair[0].what,
                               pair[0].source not in FIRST))  # fmt: skip
    return out[:MAX_RETRIED]


def _booleans(p: Played, tool: str) -> dict[str, dict[str, Any]]:
    """The boolean parameters of `tool`'s schema, by name."""
    props = tool_properties(p.base.pools.tools, tool)
    return {k: v for k, v in props.items() if v.get("type") == "boolean"}


def bypassed(p: Played, described: dict[str, str]) -> str | None:
    """Why a retry that paid is a finding, or None: the world differs from honest play's
    where the refused change took effect after all, and what made the tool accept it does
    not answer its refusal (a flag whose description shares no word with the refusal; parts
    of a batch refused past a total, not a limit per call). `described`: argument name ->
    its description, for the retried tool."""
    m = p.mutant
    if m.op != OP or p.record is None:
        return None
    if any(out.startswith("Error:") for out in tool_outputs(p.result)):
        return None  # still refused somewhere (one member's own fault): nothing bypassed
    gone = lost(p.record.world, p.honest.world, p.base.ignored)
    if not gone:
        return None
    refusal = m.note
    flipped = re.search(r"retried with (\w+)=", m.what)
    if flipped:
        flag = flipped.group(1)
        refused_key = m.site.partition(".")[2]
        # the tool's common words (`parcel`, in another argument's description) answer
        # nothing, unless the flag's name or the refused argument's description uses them
        common = stems(
            " ".join(f"{k} {v}" for k, v in described.items() if k not in (flag, refused_key))
        ) - stems(f"{flag.replace('_', ' ')} {described.get(refused_key, '')}")
        own = stems(f"{flag.replace('_', ' ')} {described.get(flag, '')}")
        shared = (stems(refusal) & own) - common
        if shared:
            return None  # the flag's own words answer the refusal: what it is for
        how = f"flipping {flipped.group(1)}"
    else:
        if per_call(refusal):
            return None  # a limit per call, met by sending less per call
        how = "sending it in parts"
    return (
        f"full reward with another world at {', '.join(sorted(gone)[:3])}: the tool refused "
        f"the change ({_short(refusal, 80)}), and {how} made it take it"
    )


def spelt_pays(played: list[Played], passes: Callable[[RunResult], bool]) -> list[Played]:
    """The retries with a flag spelt as a string (`"true"`) that paid where the same retry
    with the flag sent as `true` failed, leaving the same world: the tool took both as one
    value, and the verifier read the spelling, not what it did (a rule checked on the raw
    arguments with `is True`)."""
    found = []
    for p in played:
        m = p.mutant
        if m.op != OP or f"={SPELT!r}" not in m.what or p.record is None or not passes(p.result):
            continue
        if _still_refused(p):
            continue  # the tool refused the spelling: it took nothing as true
        head, _, tail = m.what.rpartition(f"={SPELT!r}")
        plain = f"{head}=True{tail}"
        for q in played:
            if (
                q.mutant.op == OP
                and q.mutant.what == plain
                and q.base.task.task_id == p.base.task.task_id
                and q.honest.control.name == p.honest.control.name
                and q.record is not None
                and not passes(q.result)
                and not q.result.mask_sample
                and not _still_refused(q)
                and not lost(p.record.world, q.record.world, p.base.ignored)
                and not lost(q.record.world, p.record.world, p.base.ignored)
            ):
                found.append(p)
                break
    return found


def _still_refused(p: Played) -> bool:
    """Whether the retried call itself was refused again (or never reached)."""
    return answered_with_error(p) is not False


SPELT_WHY = (
    "full reward for a flag spelt {spelt!r}, where the same call with true fails: the tool "
    "took both as true and left the same world, so the verifier reads how the argument was "
    "spelt, not what the tool did (a rule checked on the raw arguments)"
)


def per_call(refusal: str) -> bool:
    """Whether a tool's refusal names a limit on one call ("at most 5 items per order",
    "too many"), which a policy meets by sending less per call."""
    return _PER_CALL.search(refusal) is not None and _TOTAL.search(refusal) is None


def stems(text: str) -> set[str]:
    """The words of `text` by their first five letters (`weight` and `weights`, `confirm` and
    `confirmation` alike), past a few that say nothing."""
    return {w.lower()[:5] for w in _WORD.findall(text)} - _SAYS_NOTHING


#: words that tie a refusal to no rule ("only 3 places free", "duty manager only")
_SAYS_NOTHING = frozenset(
    {"error", "with", "that", "this", "only", "must", "from", "have", "will", "when", "than",
     "into", "each", "your", "been", "also", "there", "their", "which"}
)  # fmt: skip


#: the retries after an obstacle cleared, per search
MAX_CLEARED = 4
CLEARED = "cleared"


def cleared(played: list[Played]) -> list[tuple[Mutant, Played]]:
    """For each played mutant whose changed call the tool refused, on a value a listing's
    record prints (a boat another member's booking holds): that call made again right after
    another tool whose every required parameter the record fills by name (`cancel` with the
    booking's `booking_id`): the obstacle cleared first, as a policy set on its way does.
    Judged as any other mutant, by the world it leaves and the task's words."""
    out: list[tuple[Mutant, Played]] = []
    for p in played:
        m = p.mutant
        if _refusal(p) is None or m.call_at is None or not isinstance(m.new, (str, int)):
            continue
        if isinstance(m.new, bool):
            continue
        t, i = m.call_at
        called = str(m.script[t][i].get("name"))
        rows = [r for listing in records(p.base.pools.shown) for r in listing]
        holding = [o for r in rows if (o := _object(r)) and str(m.new) in map(str, o.values())]
        for tool in p.base.pools.tools:
            name, params = str(tool.get("name")), tool.get("parameters") or {}
            needed = list(params.get("required") or (params.get("properties") or {}))
            if name == called or not needed:
                continue
            for row in holding:
                if all(k in row for k in needed):
                    args = {k: row[k] for k in needed}
                    script = replaced(m.script, t, i, [_item(name, args), m.script[t][i]])
                    what = f"{m.what}, refused, then made after {name}({_short(args, 50)})"
                    out.append((replace(m, script=script, op=CLEARED, what=what, call_at=None), p))
                    break
    return out[:MAX_CLEARED]
