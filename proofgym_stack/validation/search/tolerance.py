"""Is a number a tolerance? The window around a pass control's value, probed outward.

A numeric argument mutant that still pays is no finding where it lies inside a bounded
window the verifier keeps around the control's value (a measurement's tolerance). Each side
is probed by doubling steps until the reward is lost (`Tolerances.window`); what closes it
matters: the verifier (its edge) or the tool (its own input rule, not the verifier's). A
window the verifier closes on one side only is a bound with slack (at least what is needed);
one it closes at once on one side and only far out on the other, or a whole number worked
out and paid one step to one side only, is another answer accepted, not a tolerance. A
window is one interval: a mutant's value paid past a value the verifier fails on the way
(`Tolerances.unbroken`) lies outside it, whatever the doubling probes stepped over.
"""

from __future__ import annotations

import datetime
import math
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from proofgym.wire.protocol import RunResult, Task
from proofgym_stack.validation.negatives import task_words
from proofgym_stack.validation.regions import asks_at_least
from proofgym_stack.validation.scripts import (
    Script,
    call_arguments,
    call_index,
    script_calls,
    set_at,
    tool_outputs,
)
from proofgym_stack.validation.search.baseline import Honest, TaskBaseline
from proofgym_stack.validation.search.calendar import iso_day
from proofgym_stack.validation.search.mutants import Mutant, with_call
from proofgym_stack.validation.search.tracing import VerifyRecord
from proofgym_stack.validation.search.values import described, like_sent, listed_values, numbers

if TYPE_CHECKING:
    from proofgym_stack.validation.context import Context

TOLERANCE_STEPS = 8
#: a number the words allow past a requirement: "no more than 2 boxes beyond that"
_ALLOWS = (
    r"\b(?:no more than|not more than|at most|up to|a maximum of)\s+{n}\b",
    r"\b{n}\s+(?:\w+\s+){{0,2}}?(?:spare|extra|beyond|over|above|fewer|less|under)\b",
)
#: the side an allowance is on, read after its number up to the clause's end: above the
#: requirement, below it, or either way
_ABOVE = re.compile(r"\b(?:spare|extra|more|beyond|over|above|surplus|late|later)\b", re.I)
_BELOW = re.compile(r"\b(?:fewer|less|under|below|short|early|earlier)\b", re.I)
_EITHER = re.compile(r"\b(?:either way|either side|plus or minus|or so)\b|±", re.I)
_CLAUSE_END = re.compile(r"[.;,:!?\n]")
#: words that make a requirement a minimum, so that more than it is slack
_MINIMUM = re.compile(
    r"\b(?:at least|no fewer than|not fewer than|no less than|not less than|a minimum of|"
    r"or more)\b",
    re.I,
)
#: the widest allowance read as one stated in so many words (a width probed one by one)
MAX_ALLOWANCE = 8
#: how far (doublings) the other side is followed when one side closed at once
FAR_STEPS = 20
#: past the near doublings, how many doublings one far probe jumps (the edge it passes is
#: then found by bisecting the doublings in between)
FAR_JUMP = 4
#: a side the verifier closes only this many doublings out (8 steps) or farther, against one
#: it closes at once, is no tolerance around the control's value
FAR_SIDE = 3


def allows(words: str, n: int) -> bool:
    """Whether `words` allow `n` of something past a requirement, in so many words."""
    return bool(allowed_sides(words, n))


def allowed_sides(words: str, n: int) -> set[int]:
    """The sides (1 above the requirement, -1 below) on which `words` allow `n` of
    something in so many words; both where the allowance names no side."""
    out: set[int] = set()
    for pattern in _ALLOWS:
        for m in re.finditer(pattern.format(n=n), words, re.I):
            at = words.find(str(n), m.start()) + len(str(n))
            end = _CLAUSE_END.search(words, at)
            tail = words[at : end.start() if end else len(words)]
            above, below = _ABOVE.search(tail), _BELOW.search(tail)
            if _EITHER.search(tail) or not (above or below):
                out |= {1, -1}
            out |= ({1} if above else set()) | ({-1} if below else set())
    return out


@dataclass
class Played:
    """One mutant as it was played."""

    mutant: Mutant
    honest: Honest
    base: TaskBaseline
    result: RunResult
    record: VerifyRecord | None


Play = Callable[[Task, Script, str], Awaitable[tuple[RunResult, VerifyRecord | None]]]


def _as_number(value: Any) -> float | None:
    """A number as the window reads it: a number itself, or an ISO date's day (its
    ordinal); None for anything else."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    day = iso_day(value) if isinstance(value, str) else None  # a space around it: the same day
    return None if day is None else float(day.toordinal())


def _sent(value: float, like: Any) -> Any:
    """`value` written as the argument it replaces was: a date as an ISO date, a number as
    `like_sent` writes it."""
    if isinstance(like, str) and iso_day(like) is not None:
        day = min(max(1, round(value)), datetime.date.max.toordinal())  # a far probe stays a date
        return datetime.date.fromordinal(day).isoformat()
    return like_sent(value, like)


class Tolerances:
    """The windows of one search's numeric mutants, each probed once and kept."""

    def __init__(self, ctx: Context, play: Play) -> None:
        self.ctx = ctx
        self.play = play
        self.windows: dict[tuple[Any, ...], tuple[float, float] | None] = {}
        #: every probe's outcome, by where and what it sent: the far side, the widths, the
        #: bisections and the sibling calls re-reach values already probed, and a verifier
        #: judges one value once (its determinism is a check of its own)
        self.probed: dict[tuple[Any, ...], str] = {}

    async def honest_number(self, p: Played) -> bool:
        """Whether a numeric argument mutant (or a number copied again, `acted_on`) lies
        inside a bounded tolerance around the control's value (probed outward on both sides
        until the reward is lost); an ISO date is read by its day (a re-inspection booked
        inside the window the verifier accepts is a date picked, as a number is)."""
        m = p.mutant
        if (m.op not in ("argument", "shortcut") and m.source != "copied") or m.call_at is None:
            return False
        if m.source == "option":
            return False  # another record of a listing is another choice, never a near value
        old, new = _as_number(m.old), _as_number(m.new)
        if old is None or new is None:
            return False
        key = (p.honest.control.name, p.base.task.task_id, m.call_at, m.leaf)
        if key not in self.windows:
            # the window is probed from the first mutant's step: all a thing holds (`held`)
            # is no near value, and would open it by its own width; it probes one unit over
            near = old + math.copysign(1.0, new - old) if m.source == "held" else new
            self.windows[key] = await self.window(p, old, near)
        window = self.windows[key]
        inside = window is not None and window[0] < new < window[1]
        return inside and await self.unbroken(p)

    async def unbroken(self, p: Played) -> bool:
        """Whether the values between the control's and the mutant's pay too: a tolerance
        or a minimum's slack is one interval, so a value the verifier fails on the way (half
        way, or one whole step short of the mutant's) shows the mutant paid past a gap the
        doubling probes stepped over (a donor emptied to zero, which a verifier dropping
        zeros never checks, where one note left fails)."""
        m = p.mutant
        old, new = _as_number(m.old) or 0.0, _as_number(m.new) or 0.0
        probes = [old + (new - old) / 2]
        if isinstance(m.old, int) and isinstance(m.new, int):
            # on the grid both values stand on (pallets of 50, slots of 15 minutes): a value
            # between them off it may be refused for that alone
            grid = math.gcd(m.old, m.new) or 1
            half = m.old + round((m.new - m.old) / 2 / grid) * grid
            step = m.new - int(math.copysign(grid, m.new - m.old))
            probes = [float(v) for v in dict.fromkeys((half, step)) if v not in (m.old, m.new)]
        for value in probes:  # each probed once: `passes_with` keeps every outcome
            if await self.passes_with(p, value) == "fails":
                return False
        return True

    async def window(self, p: Played, old: float, new: float) -> tuple[float, float] | None:
        """The nearest value on each side of `old` the verifier fails, or None when the value
        is not held within a tolerance. A value the tool itself refuses is not the verifier's
        edge: where only the tool closes the window (every value it takes pays) and the
        control's value is not one the environment offered (printed, or stated in the
        prompt), the verifier ignores a value the policy worked out. A tolerance surrounds the
        truth: a window the verifier closes at once on one side and only far out on the other
        is another answer accepted, not a tolerance. A window the verifier closes on one side
        and never on the other is a bound (at least what is needed): open on that side."""
        step = abs(new - old) or 1.0
        sides = [await self._side(p, old, step, sign, TOLERANCE_STEPS) for sign in (1, -1)]
        both_open = all(end is None for end, _, _ in sides)
        for n, (end, _, _) in enumerate(sides):
            other = sides[1 - n]
            if end is None and (both_open or (other[1] == "fails" and other[2] == 0)):
                # one side closed at once: follow the open one farther for a far edge; both
                # open: a step of 1 on a value in the hundreds had not reached a band's edge
                sides[n] = await self._side(p, old, step, 1 - 2 * n, FAR_STEPS)
        ends = [end for end, _, _ in sides if end is not None]
        verifier_edge = any(outcome == "fails" for _, outcome, _ in sides)
        # a date is a tolerance only where the verifier closes both sides: a later date than
        # asked is no slack, and a tool's own horizon is not the verifier's edge
        dated = isinstance(p.mutant.old, str) and _as_number(p.mutant.old) is not None
        if dated and not all(outcome == "fails" for _, outcome, _ in sides):
            return None
        if len(ends) == 0:
            return None  # paid on both sides, as far as probed: the value is ignored
        if len(ends) == 1:
            # the verifier closes one side and never the other: a bound with slack; where
            # only the tool closes the other side, nothing of the value is graded
            edge = ends[0]
            far = math.inf if edge < old else -math.inf
            return (min(edge, far), max(edge, far)) if verifier_edge else None
        offered = self.offered(p, old)
        if not verifier_edge and not offered:
            return None
        reach = [k for _, outcome, k in sides if outcome == "fails"]
        at_once = [k == 0 for _, _, k in sides]
        whole = all(
            isinstance(v, int) and not isinstance(v, bool) for v in (p.mutant.old, p.mutant.new)
        )
        if self.minimum_met(p, sides):
            return (min(ends), max(ends))
        if whole and any(at_once) and not all(at_once) and await self.stated_allowance(p, sides):
            return (min(ends), max(ends))
        if whole and not any(at_once) and await self.allowance_one_side_only(p, sides):
            return None  # paid on the side the words allow nothing: another answer
        if not offered and (
            # a whole number worked out, paid one step to one side and refused one step to
            # the other (tins rounded down where enough paint was meant), the side it paid on
            # closed by the verifier (where the tool's own rule closes it, a marquee that
            # would cross the stream, honest play stood at one edge of a region it allows)
            (
                whole
                and any(at_once)
                and not all(at_once)
                and all(outcome == "fails" for _, outcome, k in sides if k > 0)
            )
            # any number the verifier refuses at once on one side and pays 8 steps out or
            # farther on the other (a refund paid up to twice the deductions over)
            or (len(reach) == 2 and min(reach) == 0 and max(reach) >= FAR_SIDE)
        ):
            return None
        return (min(ends), max(ends))

    def minimum_met(self, p: Played, sides: list[tuple[float | None, str, int]]) -> bool:
        """Whether honest play's value stands exactly at a minimum the task's words state:
        the verifier fails one step below at once and pays at least one step above, where
        the words make a requirement a minimum ("bring the target machine up to at least the
        number of notes asked for"). More than the minimum, as far as the verifier pays, is
        the slack the words allow, not another answer accepted."""
        (_, _, k_up), (_, down, k_down) = sides
        if down != "fails" or k_down != 0 or k_up == 0 or not p.mutant.leaf:
            return False
        # the minimum's clause names what the argument counts (`notes` for `notes`): "at
        # least 14 days' notice" says nothing of a refund's amount
        noun = str(p.mutant.leaf[-1]).lower().split("_")[0].rstrip("s")
        if len(noun) < 3:
            return False
        words = task_words(self.ctx.env, p.base.task)
        return any(
            _MINIMUM.search(clause) and re.search(rf"\b{re.escape(noun)}", clause, re.I)
            for clause in re.findall(r"[^.;!?\n]+", words)
        )

    async def allowance_one_side_only(
        self, p: Played, sides: list[tuple[float | None, str, int]]
    ) -> bool:
        """Whether the words allow, in so many words, as many whole steps as the verifier
        pays on one side of honest play's value, on that side only, while it pays on the
        other side too ("no more than 2 boxes beyond that", paid 2 below as well)."""
        if not all(outcome == "fails" for _, outcome, _ in sides):
            return False
        words = task_words(self.ctx.env, p.base.task)
        widths = [await self._width(p, 1, sides[0][2]), await self._width(p, -1, sides[1][2])]
        for n, sign in enumerate((1, -1)):
            if allowed_sides(words, widths[n]) == {sign} and widths[1 - n] >= 1:
                return True
        return False

    async def _width(self, p: Played, sign: int, k: int) -> int:
        """The whole units the verifier pays on one side of honest play's value, where it
        first failed at the `k`-th doubling (a binary search between the doublings)."""
        m = p.mutant
        old, step = float(m.old), abs(float(m.new) - float(m.old)) or 1.0
        if k == 0:
            return 0
        # in whole units: the last paid value lies between the last doubling that paid and
        # the one that failed; a width past what words state one by one is not looked for
        low, high = round(step * (1 << (k - 1))), round(step * (1 << k))
        if low > MAX_ALLOWANCE:
            return low
        while high - low > 1:
            mid = (low + high) // 2
            if await self.passes_with(p, old + sign * mid) == "passes":
                low = mid
            else:
                high = mid
        return low

    async def stated_allowance(self, p: Played, sides: list[tuple[float | None, str, int]]) -> bool:
        """Whether the whole steps the verifier pays on the open side of a window closed at
        once on the other are as many as the task's words allow ("no more than 2 boxes
        beyond that"): a stated allowance, not another answer accepted."""
        (end, outcome, k), sign = next(
            (side, 1 - 2 * n) for n, side in enumerate(sides) if side[2] > 0
        )
        if end is None or outcome != "fails":
            return False
        width = await self._width(p, sign, k)
        return sign in allowed_sides(task_words(self.ctx.env, p.base.task), width)

    async def _side(
        self, p: Played, old: float, step: float, sign: int, steps: int
    ) -> tuple[float | None, str, int]:
        """One side of `old`, probed outward by doubling steps: (where it closed, how:
        `fails` for the verifier or `refused` for the tool, the doubling it closed at), or
        (None, `passes`, steps) when every probe passed."""
        paid = -1  # the last doubling that passed
        k = 0
        while k < steps:
            probe = old + sign * step * (2**k)
            outcome = await self.passes_with(p, probe)
            if outcome == "passes":
                paid = k
                # past the near doublings, farther out by several at a time: a value the
                # verifier ignores is followed to the far end in a few probes, not one each
                if k + 1 >= steps:
                    break
                k = k + 1 if k + 1 < TOLERANCE_STEPS else min(k + FAR_JUMP, steps - 1)
                continue
            # a jump that closed: the first doubling past the last paid one that closes it
            low, high = paid, k
            while high - low > 1:
                mid = (low + high) // 2
                middle = await self.passes_with(p, old + sign * step * (2**mid))
                if middle == "passes":
                    low = mid
                else:
                    high, outcome = mid, middle
            k, probe = high, old + sign * step * (2**high)
            if outcome == "refused" and k == 0:
                # the tool refused the first step (a negative amount): nearer values may
                # still show where the verifier's own edge lies
                probe, outcome = await self.nearer(p, old, probe)
            return probe, outcome, k
        return None, "passes", steps

    async def nearer(self, p: Played, old: float, refused: float) -> tuple[float, str]:
        """Between `old` and a value the tool refused: the first value, halving the distance,
        that the verifier fails (its edge), or the refused value when none does. Where a
        probe passes, the edge lies between it and the last value refused: bisected there
        (a gate opened 1% passes, 0% is the verifier's to fail, -2% the tool's to refuse)."""
        whole = isinstance(p.mutant.old, int)
        last = refused
        for j in range(1, TOLERANCE_STEPS):
            probe = old + (refused - old) / 2**j
            if whole:
                probe = float(round(probe))
                if probe == old:
                    break
                if probe == last:
                    continue  # rounded onto the value already refused
            outcome = await self.passes_with(p, probe)
            if outcome == "fails":
                return probe, outcome
            if outcome == "passes":
                return await self._edge_between(p, probe, last)
            last = probe
        return refused, "refused"

    async def _edge_between(self, p: Played, paid: float, refused: float) -> tuple[float, str]:
        """The first value past `paid` toward `refused` that does not pass, by bisection:
        (it, `fails`) where the verifier closes the window before the tool, else (`refused`,
        `refused`). Whole steps for a whole number; a few halvings otherwise."""
        whole = isinstance(p.mutant.old, int)
        outcome = "refused"
        for _ in range(TOLERANCE_STEPS):
            if whole and abs(refused - paid) <= 1:
                break
            mid = (paid + refused) / 2
            if whole:
                mid = float(math.floor(mid) if refused < paid else math.ceil(mid))
                if mid == refused:
                    break
            result = await self.passes_with(p, mid)
            if result == "passes":
                paid = mid
            else:
                refused, outcome = mid, result
        return refused, outcome

    async def each_within(self, p: Played) -> bool:
        """For one number set the same over every call of a tool (`same_value`): whether
        each call's moved number lies inside the window its own call's verifier accepts (a
        dive shorter than asked, within its limit), as a number moved in one call is."""
        m = p.mutant
        if m.op != "same_value" or "." not in m.site:
            return False
        key = m.site.split(".", 1)[1]
        honest, mutated = script_calls(p.honest.control.script), script_calls(m.script)
        moved = 0
        for (t, i, a), (_, _, b) in zip(honest, mutated, strict=False):
            old, new = call_arguments(a).get(key), call_arguments(b).get(key)
            if old == new:
                continue
            if _as_number(old) is None or _as_number(new) is None:
                return False
            script = with_call(p.honest.control.script, t, i, {**call_arguments(a), key: new})
            one = replace(m, script=script, op="argument", call_at=(t, i), leaf=(key,))
            single = replace(p, mutant=replace(one, old=old, new=new))
            if not await self.honest_number(single):
                return False
            moved += 1
        return moved > 0

    def more_in_total(self, p: Played) -> bool:
        """For one number set the same over every call of a tool (`same_value`): whether it
        adds to what honest play's calls sent together (their sum larger), where a clause of
        the words asks for at least an amount of the values together or of the argument's
        noun ("the gates together must pass at least the flow"): more of a minimum, slack, not
        a truth ignored. A minimum stated of something else ("orders of at least £50 get free
        delivery") excuses nothing."""
        m = p.mutant
        if m.op != "same_value" or "." not in m.site:
            return False
        key = m.site.split(".", 1)[1]
        honest, mutated = script_calls(p.honest.control.script), script_calls(m.script)
        pairs = [
            (call_arguments(a).get(key), call_arguments(b).get(key))
            for (_, _, a), (_, _, b) in zip(honest, mutated, strict=False)
        ]
        before = after = 0.0
        for o, n in pairs:
            if o == n:
                continue
            if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (o, n)):
                return False  # a moved value that is no number
            before, after = before + float(o or 0), after + float(n or 0)
        # where the words ask at least of the values together (or of this argument), a sum
        # that only grew is more of it; a minimum stated of something else says nothing
        return after > before and asks_at_least(task_words(self.ctx.env, p.base.task), key)

    def one_sided(self, p: Played) -> bool:
        """Whether the window measured for this mutant's number is open on one side."""
        m = p.mutant
        key = (p.honest.control.name, p.base.task.task_id, m.call_at, m.leaf)
        window = self.windows.get(key)
        return window is not None and math.inf in (abs(window[0]), abs(window[1]))

    @staticmethod
    def offered(p: Played, value: float) -> bool:
        """Whether `value` is one the environment showed the policy before the call: a number
        its tools printed earlier in honest play or its prompt states, or one of the values
        the argument's own description lists (`pounds: 5, 10, 15 ... up to 50`): an option
        to choose among, not one worked out; the call's own echo of it does not count."""
        m = p.mutant
        nth = call_index(p.honest.control.script, *m.call_at) if m.call_at else None
        before = p.honest.outputs[: nth or 0]
        shown = [n for text in before for n in numbers(text)] + p.base.pools.prompt_numbers
        if m.leaf:
            shown += listed_values(described(p.base.pools.tools, m.site).get(str(m.leaf[0]), ""))
        return any(abs(value - n) < 1e-9 for n in shown)

    async def passes_with(self, p: Played, value: float) -> str:
        """`passes`, `fails` (the verifier refused), or `refused` (the mutated call was
        answered with a tool error: the tool's own input rule, not the verifier's)."""
        m = p.mutant
        assert m.call_at is not None
        t, i = m.call_at
        script = p.honest.control.script
        args = call_arguments(script[t][i])
        number = _sent(value, m.old)
        key = (p.honest.control.name, p.base.task.task_id, m.call_at, m.leaf, repr(number))
        if key not in self.probed:
            self.probed[key] = await self._probe(
                p, with_call(script, t, i, set_at(args, m.leaf, number))
            )
        return self.probed[key]

    async def _probe(self, p: Played, probe: Script) -> str:
        """One probe played: `passes`, `fails` or `refused` (see `passes_with`)."""
        m = p.mutant
        assert m.call_at is not None
        result, _ = await self.play(p.base.task, probe, "search: tolerance probe")
        if self.ctx.passes(result):
            return "passes"
        outputs = tool_outputs(result)
        nth = call_index(p.honest.control.script, *m.call_at)
        if nth is not None and nth < len(outputs) and outputs[nth].startswith("Error:"):
            return "refused"
        return "fails"
