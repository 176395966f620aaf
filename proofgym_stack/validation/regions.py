"""Another task's answer inside the region this task accepts around its own.

Some tasks accept a region of answers: a break of at least 40 minutes anywhere inside a
window, an order with up to two spare boxes. Another task's honest answer may fall inside
that region: a choice in the region, not a truth ignored. Where two honest trajectories
differ only in numbers (plain, or inside text: a clock time, a date), the target is asked
whether it grades those numbers at all: its own trajectory with each differing number moved
past the other task's, further the same way (one at a time, the others as the other task has
them; the numbers one argument of one tool sends with the same pair of values, every day's
walk 33 where the other task has 38, move together as one choice), must fail (a region the
verifier closes on that side). Four gaps further first; where that still pays, just past
the nearest numbers beyond it that the task's words state (a daily cap of 62 minutes: the
region's stated edge); a value across zero is no probe. A verifier that ignores the number
pays all of that too, and the replay stays a finding.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

from proofgym.wire.protocol import RunResult, Task
from proofgym_stack.validation.negatives import task_words
from proofgym_stack.validation.scripts import (
    Script,
    call_arguments,
    leaves,
    refused_calls,
    script_calls,
    set_at,
)

if TYPE_CHECKING:
    from proofgym_stack.validation.context import Context

#: how far past the other task's value the probe goes, as multiples of the gap: 4, then 2
#: and 1.25 where the tools refuse the farther value or it crosses zero (then just past the
#: numbers the words state)
FURTHER = (4, 2, 1.25)
#: the most groups of differing numbers probed one by one (more: no region is claimed)
MAX_DIFFS = 8
_CLOCK = re.compile(r"^(\d{1,2}):(\d{2})$")
_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")

Diff = tuple[int, tuple[Any, ...], Any, Any]


def as_number(value: Any) -> float | None:
    """A value read as a number on its own scale: a number, a clock time in minutes, an ISO
    date in days; None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        if m := _CLOCK.match(value.strip()):
            return int(m.group(1)) * 60 + int(m.group(2))
        if _DATE.match(value.strip()):
            try:
                return float(date.fromisoformat(value.strip()).toordinal())
            except ValueError:
                return None
    return None


def written_like(x: float, like: Any) -> Any:
    """`x` written the way `like` is (a number, a clock time, a date); None where it cannot be."""
    if isinstance(like, int):
        return round(x)
    if isinstance(like, float):
        return x
    text = str(like).strip()
    if _CLOCK.match(text):
        minutes = round(x)
        return f"{minutes // 60:02d}:{minutes % 60:02d}" if 0 <= minutes < 24 * 60 else None
    try:
        return (date.fromordinal(1) + timedelta(days=round(x) - 1)).isoformat()
    except (ValueError, OverflowError):
        return None


def _key(item: dict[str, Any]) -> tuple[Any, ...]:
    """A call's tool and its values that are not numbers: what names the thing it acts on."""
    rest = [(p, repr(x)) for p, x in leaves(call_arguments(item)) if as_number(x) is None]
    return (item.get("name"), tuple(sorted(rest)))


def differing_numbers(
    script: Script, own: Script, skip: frozenset[tuple[int, int]] = frozenset()
) -> list[Diff] | None:
    """(call of `own`, path, own value, other value) for each leaf where another trajectory
    (its calls at `skip` left aside: refused, they took no effect) makes the same calls on the
    same things, in any order, with other numbers; None where it differs in anything else."""
    return differing_leaves(script, own, _key, skip)


def differing_leaves(
    script: Script,
    own: Script,
    key: Callable[[dict[str, Any]], tuple[Any, ...]],
    skip: frozenset[tuple[int, int]] = frozenset(),
) -> list[Diff] | None:
    """(call of `own`, path, own value, other value) for each leaf where `script` (its calls
    at `skip` left aside) makes the same calls as `own`, matched by `key` (what names the
    thing a call acts on), in any order; None where a call is unmatched on either side."""
    theirs: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for t, i, item in script_calls(script):
        if (t, i) not in skip:
            theirs.setdefault(key(item), []).append(item)
    out: list[Diff] = []
    for n, (_, _, a) in enumerate(script_calls(own)):
        match = theirs.get(key(a))
        if not match:
            return None
        b = match.pop(0)
        ours, others = dict(leaves(call_arguments(a))), dict(leaves(call_arguments(b)))
        if set(ours) != set(others):
            return None
        out += [(n, p, x, others[p]) for p, x in ours.items() if others[p] != x]
    if any(theirs.values()):
        return None  # a call the other made that took effect here and honest play never made
    return out


def beyond(
    own: Script, diffs: list[Diff], k: float, moved: int | frozenset[int] | None = None
) -> Script | None:
    """`own` with each differing value moved `k` times its gap to the other task's; where
    `moved` is given, only that one (or those: a group), the others set to the other task's
    values."""
    group = frozenset([moved]) if isinstance(moved, int) else moved
    turns = [list(turn) for turn in own]
    calls = script_calls(own)
    for j, (n, path, mine, other) in enumerate(diffs):
        x, y = as_number(mine), as_number(other)
        assert x is not None and y is not None
        new = written_like(x + k * (y - x), mine) if group is None or j in group else other
        if new is None:
            return None
        t, i, item = calls[n]
        args = call_arguments(turns[t][i])
        turns[t][i] = {**item, "arguments": set_at(args, path, new)}
    return turns


async def inside_a_region(
    v: Context, target: Task, script: Script, own: Script, result: RunResult
) -> bool:
    """Whether `script` (another task's honest trajectory, paid on `target` with `result`)
    differs from `target`'s own only in numbers the target grades as a region: moved further
    the same way they fail there."""
    diffs = differing_numbers(script, own, frozenset(refused_calls(script, result)))
    groups = moved_together(diffs or [], own)
    if not groups or len(groups) > MAX_DIFFS:
        return False
    # each group on its own, the others as the other task has them: one the verifier
    # ignores must not hide behind one it grades
    words = task_words(v.env, target)
    return all([await _closed_past(v, target, own, diffs or [], g, words) for g in groups])


def moved_together(diffs: list[Diff], own: Script | None = None) -> list[frozenset[int]]:
    """The differing numbers grouped by their tool, argument and pair of values (every day's
    walk 33 where the other task has 38): one choice written in several calls, probed as
    one. Another argument with the same pair (a slot number beside a box count) is another
    choice: one the verifier ignores must not hide behind one it grades."""
    calls = script_calls(own) if own is not None else []
    groups: dict[tuple[Any, ...], set[int]] = {}
    for j, (n, path, mine, other) in enumerate(diffs):
        tool = calls[n][2].get("name") if n < len(calls) else None
        key = (tool, path, as_number(mine), as_number(other))
        groups.setdefault(key, set()).add(j)
    return [frozenset(g) for g in groups.values()]


async def _closed_past(
    v: Context, target: Task, own: Script, diffs: list[Diff], group: frozenset[int], words: str
) -> bool:
    """Whether the differing numbers of `group`, moved further past the other task's values,
    fail on `target`: four gaps further (two, then one and a quarter, where the tools refuse
    that or it crosses zero); where that still pays, just past the nearest numbers beyond it
    that the task's `words` state (a daily cap of 62 minutes: the region's stated edge). A
    value the tools refuse, or one across zero, is no probe."""
    paid_at = None
    for k in (*FURTHER, *_past_stated(diffs, group, words)):
        if k in FURTHER and paid_at is not None:
            continue  # a nearer probe only where the farther ones were refused
        if k not in FURTHER and paid_at is None:
            break  # a stated edge is probed only beyond a far probe that paid
        far = beyond(own, diffs, k, moved=group)
        if far is None or _across_zero(diffs, group, k):
            continue
        result = await v.run(target, far, "probe: past another task's answer")
        if result.mask_sample or refused_calls(far, result):
            continue  # a value the tools refuse says nothing of what the verifier grades
        if not v.passes(result):
            return True
        paid_at = k if paid_at is None else max(paid_at, k)
    return False


def _past_stated(diffs: list[Diff], group: frozenset[int], words: str) -> list[float]:
    """How many gaps past the other task's value lie just beyond the numbers the words state
    further out than four gaps (nearest first, at most two): where a stated cap would close
    the region."""
    j = min(group)
    if isinstance(diffs[j][2], str):
        return []  # a clock time or a date: the words' bare numbers are on another scale
    x, y = as_number(diffs[j][2]), as_number(diffs[j][3])
    if x is None or y is None or x == y:
        return []
    gap = y - x
    step = 1.0 if isinstance(diffs[j][2], int) else abs(gap) / 2
    out: list[float] = []
    for n in sorted({float(t) for t in _STATED.findall(words)}, key=lambda n: abs(n - x)):
        k = (n + step * (1 if gap > 0 else -1) - x) / gap
        if FURTHER[0] < k <= MAX_GAPS and len(out) < 2:
            out.append(k)
    return out


#: the farthest a stated number is probed, in gaps (a number far out is no edge of this one)
MAX_GAPS = 16
#: a number the words state (not part of a word or a longer number)
_STATED = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w])")


def _moved(diffs: list[Diff], group: frozenset[int], k: float) -> list[float]:
    """The group's numbers moved `k` gaps past the other task's, as they are written (a
    whole number rounded: 0.5 bowlers is sent as 0)."""
    out = []
    for j in sorted(group):
        mine = diffs[j][2]
        x, y = as_number(mine), as_number(diffs[j][3])
        if x is None or y is None:
            continue
        sent = as_number(written_like(x + k * (y - x), mine))
        out.append(x + k * (y - x) if sent is None else sent)
    return out


def _across_zero(diffs: list[Diff], group: frozenset[int], k: float) -> bool:
    """Whether moving the group `k` gaps takes a number across zero (a sign the verifier may
    refuse for its own reason: no evidence of the region's edge)."""
    starts = _moved(diffs, group, 0)
    return any(
        a * b < 0 or (a != 0 and b == 0)
        for a, b in zip(starts, _moved(diffs, group, k), strict=True)
    )


#: words that state a lower bound: a value above honest play's is slack, not a near miss
AT_LEAST = re.compile(
    r"\b(?:at least|no less than|not less than|no fewer than|not fewer than|a minimum of|"
    r"or more|or longer|no earlier than|not before|or later)\b",
    re.I,
)
#: words that put several values together under one bound ("the gates together", "in total")
_TOGETHER = re.compile(r"\b(?:together|in total|total|combined|altogether|between them)\b", re.I)


def asks_at_least(words: str, noun: str = "") -> bool:
    """Whether a clause of the words asks for at least something of the values together
    ("the gates together must pass at least the required flow"), or of `noun` itself (a
    break "of at least 40 minutes" for `minutes`): where more is slack. A minimum stated of
    something else ("at least 2 must be first-aiders") says nothing of this value."""
    stem = noun.lower().split("_")[-1].rstrip("s")[:5] if len(noun) >= 3 else ""
    for clause in re.findall(r"[^.;!?\n]+", words):
        if not AT_LEAST.search(clause):
            continue
        if _TOGETHER.search(clause) or (stem and re.search(rf"\b{re.escape(stem)}", clause, re.I)):
            return True
    return False
