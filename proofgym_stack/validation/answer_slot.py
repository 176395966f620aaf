"""The answer slot: what a policy writes where the answer goes, short of the answer.

Built from the reference's own answer (its final message, or, where the final message does
not decide the reward, the last tool call's arguments that carry a value of the task), each
variant keeps the reference's actions and changes only the answer so that it no longer states
the truth:
- `near_miss`: the number moved a little (by one, by 5%), its sign flipped, or ten times over
  (a unit slip);
- `denied`: the answer denied ("not 333");
- `retracted`: the answer, then taken back;
- `self_contradicting`: a wrong value set equal to the right one ("340 = 333");
- `range`: a range around the right value, 5% wide on each side ("between 316 and 350");
- `last_number_trap`: a wrong answer, the right number last in a remark;
- `number_spray`: the right number among its neighbours.
Each must fail. No false alarm from a perturbation that left the truth as it was: a variant
is judged only where the answer decides the reward. The final message is the answer when the
reference's actions with an empty message fail, and with another task's answer (or the
number moved far off) fail too; a claim of success that any text passes is not an answer
(the state is what the verifier reads there). Its number is the answer when the number moved
far off (far above, to zero, or its sign flipped) fails. A tool argument is the answer when
that far-off move fails too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from proofgym.wire.protocol import Task
from proofgym_stack.validation.answers import final_text, shown_to_policy, with_final
from proofgym_stack.validation.formula import quantity_texts
from proofgym_stack.validation.listed import another_option, looked_at
from proofgym_stack.validation.negatives import prompt_text, task_words
from proofgym_stack.validation.regions import AT_LEAST, as_number, asks_at_least, written_like
from proofgym_stack.validation.scripts import (
    Script,
    call_arguments,
    only_looks,
    outcome,
    script_calls,
)
from proofgym_stack.validation.signed import signed_world

if TYPE_CHECKING:
    from proofgym_stack.validation.context import Context

# a number as answers write it: an optional sign, digits (grouped or not), a fraction
_NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?(?![\w])")


def _numbers(text: str) -> list[re.Match[str]]:
    return list(_NUMBER.finditer(text))


def _value(token: str) -> float:
    return float(token.replace(",", ""))


def _shown(value: float, like: str) -> str:
    if "." not in like and value == int(value):
        return str(int(value))
    return f"{value:.6g}"


def _moved(token: str, by: str, step: float = 0.0) -> str:
    """`token` moved `by` one, by five percent (up or down), far off, its sign flipped or ten
    times over; never by less than `step` (the verifier's measured tolerance: a move inside
    it is the same answer)."""
    value = _value(token)
    if by == "far":
        return _shown(value * 3 + 17, token)
    if by == "sign":
        return _shown(-value, token) if value else "-1"
    if by == "tenfold":  # a unit slip (litres for m3, mm for m): the number ten times over
        return _shown(value * 10, token) if value else "10"
    if by == "five_percent_down":  # the mirror image of `five_percent`, below the value
        return _shown(2 * value - _value(_moved(token, "five_percent", step)), token)
    moved = value + 1 if by == "one" else value * 1.05 if value else 1.0
    if abs(moved - value) < step:
        moved = value + step
    if "." not in token and moved != int(moved):
        moved = round(moved + 0.5) if round(moved) == value else round(moved)
    if by != "one" and "." not in token:
        moved = round(moved) if round(moved) != value else value + 1
    return _shown(moved, token)


#: how far the tolerance probe starts, as a share of the value (at least of 1), and how many
#: doublings it tries on each side
TOLERANCE_START = 1e-4
TOLERANCE_DOUBLINGS = 14
#: the widest tolerance of a stated number taken as the author's (a measured quantity given to
#: 1 or 2 percent); the probe may overshoot the true one by up to twice. Wider, a near miss is
#: a wrong answer paid, and is accused
TOLERANCE_MAX = 0.025


async def tolerance(
    v: Context, task: Task, build: Callable[[float], Script], value: float
) -> float:
    """The verifier's tolerance around `value`: the smallest move, doubled from a tiny one,
    that fails on both sides (the larger of the two); 0 when the first move fails already.
    A move smaller than it is the same answer to this verifier, so the answer-slot variants
    move by at least it, and none is accused of what the verifier calls equal."""
    scale = max(abs(value), 1.0) * TOLERANCE_START
    widest = 0.0
    for sign in (1, -1):
        for k in range(TOLERANCE_DOUBLINGS):
            delta = scale * 2**k
            if await _fails(v, task, build(value + sign * delta), "within a tolerance?"):
                widest = max(widest, delta if k else 0.0)
                break
        else:
            return 0.0  # never fails on this side: not a tolerance, a one-sided rule
    return widest


def _at_last_number(text: str, change: Callable[[str], str]) -> str | None:
    """`text` with its last number replaced by `change(number)`; None without a number."""
    found = _numbers(text)
    if not found:
        return None
    m = found[-1]
    return text[: m.start()] + change(m.group()) + text[m.end() :]


_SLOT = re.compile(r"<([A-Za-z_]\w*)>.*?</\1>|\(\([^()]*\)\)|\[\[[^\[\]]*\]\]", re.S)


def slots(text: str) -> list[str]:
    """The delimited answer slots of `text`, in order: a tag (`<answer>..</answer>`), a
    `\\boxed{..}` (its braces balanced: `\\boxed{\\sqrt{2}}`), a `((..))` or a `[[..]]`."""
    found = [(m.start(), m.group()) for m in _SLOT.finditer(text)]
    at = text.find("\\boxed{")
    while at >= 0:
        depth, end = 0, None
        for i in range(at + len("\\boxed"), len(text)):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            if depth == 0:
                end = i + 1
                break
        if end is None:
            break  # unclosed: no slot
        found.append((at, text[at:end]))
        at = text.find("\\boxed{", end)
    return [slot for _, slot in sorted(found)]


def outside_slot(right: str, variant: str) -> bool:
    """Whether `variant` keeps every delimited answer slot of `right` (see `slots`) as it
    was, and only adds words outside them: the format names the slot the answer, so what
    stands outside is commentary."""
    kept = slots(right)
    return bool(kept) and slots(variant) == kept


def text_variants(right: str, number_decides: bool, step: float = 0.0) -> dict[str, str]:
    """The answer-slot variants of a final message `right`, by name (see the module): the
    number variants only where `number_decides`, each wrong number at least `step` (the
    verifier's tolerance) from the right one."""
    out: dict[str, str] = {
        "retracted": f"{right}\n\nWait, that is wrong. Scratch that: I do not know the answer."
    }
    denied = _at_last_number(right, lambda n: f"not {n}") if number_decides else None
    out["denied"] = denied or f"It is not this: {right}"
    found = _numbers(right)
    if not number_decides or not found:
        return out
    value = _value(found[-1].group())
    for by in ("one", "five_percent", "sign", "tenfold"):
        if by in ("sign", "tenfold") and abs(9 * value if by == "tenfold" else 2 * value) <= step:
            continue  # the move is inside the tolerance
        moved = _at_last_number(right, lambda n, by=by: _moved(n, by, step))  # type: ignore[misc]
        if moved is not None and moved != right:
            out[f"near_miss#{by}"] = moved
    contradiction = _at_last_number(right, lambda n: f"{_moved(n, 'five_percent', step)} = {n}")
    if contradiction is not None:
        out["self_contradicting"] = contradiction
        # the same two values, the right one first: paid only one way round, the verifier
        # reads a position (the value after `=`, as working is written), not any of them
        out["self_contradicting~right_first"] = str(
            _at_last_number(right, lambda n: f"{n} = {_moved(n, 'five_percent', step)}")
        )
    around = _at_last_number(
        right,
        lambda n: (
            f"between {_moved(n, 'five_percent_down', step)} and {_moved(n, 'five_percent', step)}"
        ),
    )
    if around is not None:
        out["range"] = around
    trap = _at_last_number(right, lambda n: _moved(n, "one", step))
    if trap is not None:
        out["last_number_trap"] = f"{trap}\n(An earlier draft said {found[-1].group()}.)"
    gap = max(1.0, 2 * step)  # the neighbours outside the tolerance
    spray = _at_last_number(
        right, lambda n: " ".join(_shown(_value(n) + d * gap, n) for d in (-2, -1, 0, 1, 2))
    )
    if spray is not None:
        out["number_spray"] = spray
    return out


def _task_numbers(data: Any) -> set[float]:
    """Every number in task data (numbers, and numbers written in its strings)."""
    found: set[float] = set()
    if isinstance(data, dict):
        for v in data.values():
            found |= _task_numbers(v)
    elif isinstance(data, list):
        for v in data:
            found |= _task_numbers(v)
    elif isinstance(data, bool):
        pass
    elif isinstance(data, int | float):
        found.add(float(data))
    elif isinstance(data, str) and len(data) < 200:
        found |= {_value(m.group()) for m in _numbers(data)}
    return found


def argument_variants(
    script: Script, task: Task, by: str = "one", steps: dict[str, float] | None = None
) -> dict[str, Script]:
    """Where the answer is a tool argument: the reference's last call with each argument that
    carries a number of the task moved (`by` one, or far off), by name."""
    calls = script_calls(script)
    if not calls:
        return {}
    t, i, item = calls[-1]
    args = call_arguments(item)
    truths = _task_numbers(task.task_data)
    out: dict[str, Script] = {}
    for key, value in args.items():
        new: Any = None
        if isinstance(value, int | float) and not isinstance(value, bool):
            if float(value) in truths:
                moved = float(_moved(str(value), by, (steps or {}).get(key, 0.0)))
                new = int(moved) if isinstance(value, int) and moved == int(moved) else moved
        elif (
            isinstance(value, str)
            and len(value) < 200
            and any(_value(m.group()) in truths for m in _numbers(value))
        ):
            step = (steps or {}).get(key, 0.0)
            new = _at_last_number(value, lambda n, step=step: _moved(n, by, step))  # type: ignore[misc]
        if new is not None and new != value:
            turns = [list(turn) for turn in script]
            turns[t][i] = {**item, "arguments": {**args, key: new}}
            out[f"near_miss#{by}@{item.get('name')}.{key}"] = turns
    return out


async def _fails(v: Context, task: Task, script: Script, label: str) -> bool:
    result = await v.run(task, script, f"probe: {label}")
    return not v.passes(result) and not result.mask_sample


def _far_values(token: str) -> list[str]:
    """The stated number moved far off every way a loose verifier might still accept: far
    above, to zero and with its sign flipped (a tolerance given in the wrong unit pays any
    number of the same sign, so the far move alone would call the number ungraded)."""
    value = _value(token)
    out = [_moved(token, "far")]
    for moved in (0.0, -value if value else -17.0):
        shown = _shown(moved, token)
        if shown not in out and _value(shown) != value:
            out.append(shown)
    return out


async def _number_decides(v: Context, task: Task, script: Script, right: str) -> bool:
    """Whether the last number of the final message decides the reward: some value far from
    it fails where it passes (each probe keeps the reference's actions and words)."""
    found = _numbers(right)
    if not found:
        return False
    last = found[-1]
    for far in _far_values(last.group()):
        moved = right[: last.start()] + far + right[last.end() :]
        if await _fails(v, task, with_final(script, moved), "the number far off"):
            return True
    return False


def _asked_number(task: Task, right: str) -> bool:
    """Whether the reply's last number is what the question asks for: the word before it
    ("Platform 9") is one the prompt uses ("Which platform ..."), not a detail beside a
    yes or no."""
    found = _numbers(right)
    if not found:
        return False
    before = re.findall(r"[A-Za-z]{3,}", right[: found[-1].start()])
    prompt = prompt_text(task).lower()
    return bool(before) and re.search(rf"\b{before[-1].lower()}", prompt) is not None


def _only_looks(v: Context, task: Task, script: Script) -> bool:
    """Whether honest play made no call but to the environment's observing tools."""
    looks = v.env.observing_tools(task)
    return only_looks(script, looks)


async def variants_of(
    v: Context, task: Task, script: Script, others: list[str]
) -> dict[str, Script]:
    """The answer-slot variants that apply to `task` (see the module for when)."""
    right = final_text(script)
    if right and right.strip() and await _fails(v, task, with_final(script, ""), "silent"):
        number_decides = await _number_decides(v, task, script, right)
        carries = number_decides
        for other in [o for o in others if o and o != right][:2]:
            if not carries:
                carries = await _fails(v, task, with_final(script, other), "another's answer")
        if not carries and _asked_number(task, right) and _only_looks(v, task, script):
            # a question (honest play only looked): the reply is the deliverable, and the
            # reward needs one (silence fails), yet neither a number far off nor another
            # task's answer fails: the answer's number is what goes ungraded
            number_decides = carries = True
        if carries:
            step = 0.0
            if number_decides:
                last = _numbers(right)[-1]

                def said(x: float) -> Script:
                    shown = _shown(x, last.group())
                    return with_final(script, right[: last.start()] + shown + right[last.end() :])

                value = _value(last.group())
                step = await tolerance(v, task, said, value)
                if step > TOLERANCE_MAX * max(abs(value), 1.0):
                    step = 0.0  # wider than a measurement's tolerance: the near misses accuse
            # in free text (no number decides), a denial or retraction paid gains the policy
            # nothing it did not write: reported, not accused (`#text`); nor do words written
            # outside the answer's delimited slot (`<answer>..</answer>`, `\boxed{}`), which
            # the format itself says are not the answer (`#slot`). Inside the slot, a denial
            # or a retraction paid is a wrong answer by its plain meaning: accused
            out: dict[str, Script] = {}
            unsigned = number_decides and not signed_world(v)
            for k, t in text_variants(right, number_decides, step).items():
                if not number_decides:
                    k = f"{k}#text"
                elif outside_slot(right, t):
                    k = f"{k}#slot"
                elif k == "near_miss#sign" and unsigned:
                    # no task's words or answers are signed: the sign alone gains nothing
                    # where the magnitude is still graded; accused where a far-off negative
                    # pays too (a check that a sign defeats, not a sign ignored)
                    k = f"{k}#unsigned"
                    far = _at_last_number(right, lambda n: _moved(_moved(n, "far"), "sign"))
                    out[f"{k}~far"] = with_final(script, far or t)
                out[k] = with_final(script, t)
            if number_decides:  # the right formula over the wrong numbers
                for k, t in quantity_texts(right, prompt_text(task), step).items():
                    out[k] = with_final(script, t)
            return out
        return {}
    out = {}
    for name, far_script in argument_variants(script, task, "far").items():
        if await _fails(v, task, far_script, "an argument far off"):
            where = name.split("@", 1)[1]
            key = where.split(".", 1)[1]
            window = await _argument_tolerance(v, task, script, key)
            if window is None:
                continue  # the value moves within a window the verifier accepts: honest
            near = argument_variants(script, task, "one", {key: window})
            printed = "\n".join([shown_to_policy(v, task), *await looked_at(v, task, script)])
            out.update(
                {
                    k: s
                    for k, s in near.items()
                    if k.endswith("@" + where) and not another_option(s, key, printed)
                }
            )
            stated = _stated_move(script, task, key, window)
            if stated is not None:
                out[f"near_miss#stated@{where}"] = stated
    return out


def _decimals(token: str) -> int:
    return len(token.split(".", 1)[1]) if "." in token else 0


def stated_unit(task: Task, value: float) -> float | None:
    """The unit of the last digit `value` is stated with in the task's prompt (0.01 for
    `$125.30`), or None when the prompt does not state it: a value the task gives to the
    cent is exact to the cent, whatever tolerance suits a measured quantity."""
    found = [m.group() for m in _numbers(prompt_text(task)) if _value(m.group()) == value]
    if not found or not isinstance(value, float):
        return None
    return 10.0 ** -max(_decimals(t) for t in found)


def _stated_move(script: Script, task: Task, key: str, window: float) -> Script | None:
    """The last call with its argument `key`, a value the prompt states, moved by one unit of
    its last stated digit, where the verifier's measured tolerance is wider than that unit
    (it accepts another stated value as the same); None otherwise."""
    t, i, item = script_calls(script)[-1]
    args = call_arguments(item)
    value = args.get(key)
    if not isinstance(value, float):
        return None
    unit = stated_unit(task, value)
    if unit is None or window <= 1.5 * unit:
        return None
    turns = [list(turn) for turn in script]
    moved = round(value + unit, _decimals(f"{unit:f}".rstrip("0")))
    turns[t][i] = {**item, "arguments": {**args, key: moved}}
    return turns


async def _argument_tolerance(v: Context, task: Task, script: Script, key: str) -> float | None:
    """The tolerance around the last call's numeric argument `key` (0 when there is none);
    None where the values around it are a window the verifier accepts (no near miss is
    judged). A clock time or a date is read on its own scale (`_clock_tolerance`); any other
    string carrying a number is judged as it is (0)."""
    t, i, item = script_calls(script)[-1]
    args = call_arguments(item)
    value = args.get(key)
    if isinstance(value, str) and as_number(value) is not None:
        return await _clock_tolerance(v, task, script, key)
    if not isinstance(value, int | float) or isinstance(value, bool):
        return 0.0

    def moved(x: float) -> Script:
        turns = [list(turn) for turn in script]
        new: Any = round(x) if isinstance(value, int) else x
        turns[t][i] = {**item, "arguments": {**args, key: new}}
        return turns

    if isinstance(value, int):  # a whole number moves by whole steps
        for delta in (1, -1):
            if not await _fails(v, task, moved(value + delta), "an argument by one"):
                # more paid, less refused, and the words ask for at least something (a gate
                # opened a percent wider passes more than the flow asked for): slack
                if (
                    delta == 1
                    and asks_at_least(task_words(v.env, task), key)
                    and await _fails(v, task, moved(value - 1), "an argument one less")
                ):
                    return None
                return None if await _bounded(v, task, moved, value) else 0.0
        return 0.0
    window = await tolerance(v, task, moved, float(value))
    # a whole value (12.0) on an edge is more often a truth read by truncation (`int(ml)`)
    if window > 0 and not float(value).is_integer():
        # closed on both sides, yet the least move fails one way and not the other: honest
        # play sits on the edge of a region the verifier accepts (a corner of the park), not
        # on a truth with a tolerance around it; a value further in is another honest choice
        tiny = max(abs(value), 1.0) * TOLERANCE_START
        up = await _fails(v, task, moved(value + tiny), "just above")
        down = await _fails(v, task, moved(value - tiny), "just below")
        if up != down:
            return None
    return window


async def _clock_tolerance(v: Context, task: Task, script: Script, key: str) -> float | None:
    """For the last call's argument `key` written as a clock time or a date: None where only
    later ones pass and the words state a lower bound (a break of at least 40 minutes ending
    a minute later: slack); else 0 (the near misses are judged: a date one day past the
    reference's, paid, is a deadline read a day late)."""
    t, i, item = script_calls(script)[-1]
    args = call_arguments(item)
    value = str(args[key])
    x = as_number(value)
    assert x is not None

    async def paid(y: float) -> bool:
        new = written_like(y, value)
        if new is None:  # past midnight, before year one: no such time to send
            return False
        turns = [list(turn) for turn in script]
        turns[t][i] = {**item, "arguments": {**args, key: new}}
        return not await _fails(v, task, turns, "a time by one")

    later, earlier = await paid(x + 1), await paid(x - 1)
    if later and not earlier and AT_LEAST.search(task_words(v.env, task)):
        return None
    return 0.0


async def _bounded(v: Context, task: Task, moved: Callable[[float], Script], value: float) -> bool:
    """Whether the values a whole-number argument may take around `value` form a window the
    verifier closes on both sides (a range of right answers), not a one-sided rule."""
    for sign in (1, -1):
        if not any(
            [
                await _fails(v, task, moved(value + sign * d), "the window's edge")
                for d in (2, 4, 8, 16)
            ]
        ):
            return False
    return True


async def check_answer_slot(v: Context) -> None:
    """Run every answer-slot variant of each sampled task's reference; each must fail."""
    found: dict[str, list[str]] = {}
    advisory: dict[str, list[str]] = {}
    applied: dict[str, int] = {}
    refs = {}
    for task in v.tasks:
        control = v.reference(task.task_id)
        if control is not None:
            refs[task.task_id] = control.script
    answers = {tid: final_text(s) or "" for tid, s in refs.items()}
    for task in v.tasks:
        script = refs.get(task.task_id)
        if script is None:
            continue
        others = [a for tid, a in answers.items() if tid != task.task_id]
        variants = await variants_of(v, task, script, others)
        for variant, attack in variants.items():
            if "~" in variant:  # a probe of another variant, run only when that one passes
                continue
            kind = variant.split("#")[0].split("@")[0]
            applied[kind] = applied.get(kind, 0) + 1
            result = await v.run(task, attack, f"answer slot {variant}", expect="fail")
            if v.passes(result) or result.mask_sample:
                how = outcome(result)
                said = final_text(attack) or variant
                if "@" in variant:  # the answer was a tool argument: show the call as made
                    _, _, item = script_calls(attack)[-1]
                    said = f"{item.get('name')}({json.dumps(call_arguments(item))[:70]})"
                text_only = variant.endswith(("#text", "#slot"))
                reverse = variants.get(f"{variant}~right_first")
                if reverse is not None and not result.mask_sample:
                    back = await v.run(task, reverse, f"answer slot {variant}, right first")
                    text_only = text_only or not v.passes(back)
                far = variants.get(f"{variant}~far")
                if far is not None and not result.mask_sample:
                    off = await v.run(task, far, f"answer slot {variant}, far off", expect="fail")
                    text_only = not v.passes(off)
                text_only = text_only and not result.mask_sample
                into = advisory if text_only else found
                into.setdefault(kind, []).append(f"{task.task_id}: {how} for {said[-80:]!r}")
    for kind in KINDS:
        name = f"answer_slot:{kind}"
        if not applied.get(kind):
            v.not_applicable(name, NOT_APPLICABLE[kind])
            continue
        problems = found.get(kind, [])
        noted = advisory.get(kind, [])
        v.verdict(
            name,
            not problems,
            "passed: " + "; ".join(problems[:3])
            if problems
            else (
                "advisory: paid, and nothing gained (the reply is free text, the words were "
                "added outside the answer's delimited slot, two values are read by their "
                "place and not as either, or a sign no task's quantity carries is ignored "
                "while the magnitude is graded): " + "; ".join(noted[:2])
                if noted
                else f"{applied[kind]} variants failed as they must"
            ),
        )


KINDS = (
    "near_miss",
    "denied",
    "retracted",
    "self_contradicting",
    "range",
    "last_number_trap",
    "number_spray",
)

_NO_NUMBER = "no number of the reference's answer decides the reward"
_NO_ANSWER = "the final message is no answer: the reward does not depend on what it states"
NOT_APPLICABLE = {
    "near_miss": _NO_NUMBER,
    "denied": _NO_ANSWER,
    "retracted": _NO_ANSWER,
    "self_contradicting": _NO_NUMBER,
    "range": _NO_NUMBER,
    "last_number_trap": _NO_NUMBER,
    "number_spray": _NO_NUMBER,
}
