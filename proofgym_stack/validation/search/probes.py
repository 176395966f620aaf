"""Probes: a passing mutant played again in another form, to tell a hole from honest play.

Each takes the played mutant, the search's `play` and its `passes`, plays one more rollout and
says whether the finding stands: one more made first as well as last (no later answer a
first-answer rule ignores), a spray with the right value last as well as first, an aliased
call whose call left out fails (the alias did the needed call's work without its effect), a
list still paid with one member dropped whose members alone never pay (slack in a goal), a
call's changed values refused when copied from another call (a free pick under a rule), a
two-way verdict whose flip fails on another call (the verdicts are graded, this one not).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from proofgym.wire.protocol import RunResult
from proofgym_stack.validation.scripts import call_arguments, refused_calls, script_calls, set_at
from proofgym_stack.validation.search.mutants import replaced, with_call
from proofgym_stack.validation.search.passed import only_singled_out
from proofgym_stack.validation.search.rules import full_sentences
from proofgym_stack.validation.search.tolerance import Play, Played
from proofgym_stack.validation.search.values import tool_properties
from proofgym_stack.validation.search.world import lost

Passes = Callable[[RunResult], bool]


async def first_too(p: Played, play: Play, passes: Passes) -> bool:
    """For a `one_more` mutant: the extra call made before every other call pays too (it
    is no later answer that a first-answer rule ignores)."""
    calls = script_calls(p.mutant.script)
    at = p.mutant.extra_at
    t, i, extra = next((c for c in calls if c[:2] == at), calls[-1])
    script = replaced(p.mutant.script, t, i, [])
    t0, i0, first = script_calls(script)[0]
    script = replaced(script, t0, i0, [extra, first])
    result, _ = await play(p.base.task, script, "search: one more, made first")
    return passes(result)


async def extra_stands(p: Played, play: Play, passes: Passes, words: str) -> bool:
    """For a `one_more` mutant on a thing honest play left alone: it pays made first too
    (`first_too`), and where only the words setting the thing apart let it through
    (`passed.only_singled_out`), it pays in the place of the honest thing as well: else the
    verifier asks for the honest thing and lets an extra one be (an extra sign-off beside
    the investigator's)."""
    if not await first_too(p, play, passes):
        return False
    m = p.mutant
    if not only_singled_out(p, words) or not m.leaf or not isinstance(m.leaf[0], str):
        return True
    key, tool = m.leaf[0], m.site.split(".")[0]
    honest = p.honest.control.script
    for t, i, item in script_calls(honest):
        args = call_arguments(item)
        if item.get("name") == tool and args.get(key) == m.old:
            script = with_call(honest, t, i, {**args, key: m.new})
            result, _ = await play(p.base.task, script, "search: one more, in the honest place")
            return passes(result)
    return True


async def both_ends(p: Played, play: Play, passes: Passes) -> bool:
    """For a spray: the right value last passes too (else a first-answer rule: honest)."""
    m = p.mutant
    if m.op != "spray":
        return True
    # the spray put the right call first: move it to the end of the sprayed calls
    script = [list(t) for t in m.script]
    flat = [
        (t, i)
        for t, turn in enumerate(script)
        for i, item in enumerate(turn)
        if item.get("type") == "function_call" and item.get("name") == m.site.split(".")[0]
    ]
    sprays = (
        [x for x in flat if script[x[0]][x[1]] != script[flat[0][0]][flat[0][1]]] if flat else []
    )
    if not sprays:
        return True
    first = flat[0]
    right = script[first[0]][first[1]]
    last = sprays[-1]
    script[first[0]][first[1]], script[last[0]][last[1]] = script[last[0]][last[1]], right
    result, _ = await play(p.base.task, script, "search: spray, the right value last")
    return passes(result)


async def alias_pays(p: Played, play: Play, passes: Passes) -> bool:
    """For an `alias` mutant that passed: it leaves another world, and the call it changed
    is needed (the trajectory without that call fails). A call on one thing in two roles
    then did the needed call's work without its effect (fish moved from the display to
    itself count as fish brought in)."""
    if p.record is None or p.mutant.call_at is None:
        return False
    if not lost(p.record.world, p.honest.world, p.base.ignored):
        return False
    t, i = p.mutant.call_at
    script = replaced(p.honest.control.script, t, i, [])
    result, _ = await play(p.base.task, script, "search: the aliased call left out")
    return not passes(result) and not result.mask_sample


async def slack(p: Played, play: Play, passes: Passes) -> bool:
    """For a list that still pays with one member dropped: whether no single member
    alone pays. Then the verifier counts what the members add up to against a goal the
    honest list reached with room to spare (free at least 500 MB, and the plan freed
    640): fewer members that still reach it are the policy's freedom, not a member the
    verifier ignores. (Where one member alone pays, the others are not graded: accused.)"""
    m = p.mutant
    if m.op != "list_drop" or m.call_at is None or not isinstance(m.old, list):
        return False
    if len(m.old) < 3:  # dropping one of two already left a single member that paid
        return False
    t, i = m.call_at
    args = call_arguments(m.script[t][i])
    for k in sorted({0, len(m.old) // 2, len(m.old) - 1}):
        alone = with_call(m.script, t, i, set_at(args, m.leaf, [m.old[k]]))
        result, _ = await play(p.base.task, alone, "search: one member alone")
        if passes(result):
            return False
    return True


async def spare_member(p: Played, play: Play, passes: Passes) -> bool:
    """For one member of a list argument set to another value: whether honest play's list
    without that member pays too. Then the member was spare (a goal with room: free at
    least 500 MB), and another in its place is the policy's freedom, not a member the
    verifier ignores."""
    m = p.mutant
    if m.op != "argument" or m.call_at is None:
        return False
    at = next((k for k, part in enumerate(m.leaf) if isinstance(part, int)), None)
    if at is None:
        return False
    t, i = m.call_at
    args = call_arguments(p.honest.control.script[t][i])
    box: Any = args
    for part in m.leaf[:at]:
        box = box[part]
    if not isinstance(box, list) or len(box) < 2:
        return False
    index = int(m.leaf[at])
    fewer = set_at(args, m.leaf[:at], box[:index] + box[index + 1 :])
    result, _ = await play(
        p.base.task, with_call(p.honest.control.script, t, i, fewer), "search: spare"
    )
    return passes(result)


def _one_changed_call(p: Played) -> tuple[int, int, list[str]] | None:
    """The one call the mutant changed (same script shape as honest play), with the scalar
    arguments it changed; None where the mutant changed more or other than that."""
    honest, script = p.honest.control.script, p.mutant.script
    if [len(t) for t in honest] != [len(t) for t in script]:
        return None
    changed = [
        (t, i)
        for t, turn in enumerate(script)
        for i, item in enumerate(turn)
        if item != honest[t][i]
    ]
    if len(changed) != 1:
        return None
    a, b = honest[changed[0][0]][changed[0][1]], script[changed[0][0]][changed[0][1]]
    if b.get("type") != "function_call" or a.get("name") != b.get("name"):
        return None
    t, i = changed[0]
    old, new = call_arguments(honest[t][i]), call_arguments(script[t][i])
    if set(old) != set(new):
        return None
    keys = [k for k in new if new[k] != old[k]]
    scalar = all(
        isinstance(new[k], (str, int, float)) and not isinstance(new[k], bool) for k in keys
    )
    return (t, i, keys) if keys and scalar else None


async def free_pick(p: Played, play: Play, passes: Passes) -> bool:
    """For one call whose scalar arguments the mutant changed to values no other call of
    that tool holds: whether the verifier refuses the same call given another call's values
    (a duplicate the tool takes). Then the verifier judges these arguments against the rest
    (a kart nobody else has in that heat), and the mutant's distinct values are one more
    free pick it accepted, not an argument it never reads, where the two calls' values
    swapped pay too (a verifier that grades each call's values on their own refuses the
    swap: the owner without the skill). A verifier that pays the duplicate reads nothing
    here: the finding stands."""
    at = _one_changed_call(p)
    if at is None:
        return False
    t, i, keys = at
    script = p.mutant.script
    name = script[t][i].get("name")
    args = call_arguments(script[t][i])
    mine = tuple(args[k] for k in keys)
    others = [
        (ct, ci, tuple(call_arguments(item).get(k) for k in keys))
        for ct, ci, item in script_calls(script)
        if item.get("name") == name and (ct, ci) != (t, i)
    ]
    if not others or any(mine == o or None in o for _, _, o in others):
        return False
    for ct, ci, values in others[:2]:
        copied = with_call(script, t, i, {**args, **dict(zip(keys, values, strict=True))})
        result, _ = await play(p.base.task, copied, "search: another call's values")
        if passes(result) or result.mask_sample or refused_calls(copied, result):
            continue
        # a clash rule takes the two calls' values swapped; a verifier that grades each
        # call's values on their own (a skill, a deadline) refuses them
        theirs = call_arguments(script[ct][ci])
        swapped = with_call(copied, ct, ci, {**theirs, **dict(zip(keys, mine, strict=True))})
        result, _ = await play(p.base.task, swapped, "search: two calls' values swapped")
        return passes(result)
    return False


#: words that leave a verdict to the policy ("either is fine", "you may mark it private")
_PERMITS = re.compile(r"\b(?:either|may|optional|your choice|up to you|any)\b", re.I)


async def verdict_ungraded(p: Played, play: Play, passes: Passes, words: str) -> str | None:
    """For one call's two-way verdict flipped (an argument whose schema offers exactly two
    values: carried or lost): whether the same flip on another call of the tool fails. Then
    the verifier grades these verdicts, and one it pays either way is not graded (a motion
    declared carried on a plurality): the rule it breaks, or None. Not where a sentence of
    the words naming either value leaves it free ("either is fine", "you may").
    (A boolean verdict has no `enum` and is not read here.)"""
    at = _one_changed_call(p)
    if at is None or len(at[2]) != 1:
        return None
    t, i, (key,) = at
    script = p.mutant.script
    name = str(script[t][i].get("name"))
    enum = tool_properties(p.base.pools.tools, name).get(key, {}).get("enum")
    if not isinstance(enum, list) or len(enum) != 2 or p.mutant.new not in enum:
        return None
    spoken = [re.compile(rf"(?<![\w-]){re.escape(str(e))}(?![\w-])", re.I) for e in enum]
    if any(
        _PERMITS.search(sentence) and any(v.search(sentence) for v in spoken)
        for sentence in re.split(r"(?<=[.!?;])\s+|\n", words)
    ):
        return None  # the words leave this verdict free somewhere: not graded is no hole
    old = (
        p.mutant.old if p.mutant.old in enum else call_arguments(p.honest.control.script[t][i])[key]
    )
    for ct, ci, item in script_calls(script):
        args = call_arguments(item)
        if item.get("name") != name or (ct, ci) == (t, i) or args.get(key) != old:
            continue
        flipped = with_call(script, ct, ci, {**args, key: p.mutant.new})
        result, _ = await play(p.base.task, flipped, "search: the same verdict flipped elsewhere")
        if not passes(result) and not result.mask_sample and not refused_calls(flipped, result):
            return f"a two-way verdict paid either way ({key}), its flip failing elsewhere"
    return None


def _classes(text: str) -> set[str]:
    """The kinds of character `text` is written in: upper, lower, digit, each other one
    itself."""
    return {
        "upper" if c.isupper() else "lower" if c.islower() else "digit" if c.isdigit() else c
        for c in text
    }


def _coined_like(value: str) -> str:
    """Another value written as `value` is, that no one has seen: each letter moved seven
    along its alphabet, each digit three, every other character kept."""
    out = []
    for c in value:
        if c.isascii() and c.isalpha():
            base = ord("A") if c.isupper() else ord("a")
            out.append(chr(base + (ord(c) - base + 7) % 26))
        elif c.isdigit():
            out.append(str((int(c) + 3) % 10))
        else:
            out.append(c)
    return "".join(out)


#: a length band the words state for a text: "6 to 16 characters", "between 4 and 8 chars"
_LENGTH_BAND = re.compile(
    r"\b(\d{1,3})\s*(?:to|-|\u2013|and)\s*(\d{1,3})\s*(?:characters?|chars?|letters?)\b", re.I
)


def _length_allowed(old: str, new: str, words: str, key: str = "") -> bool:
    """Whether `new` is as long as a name of honest play's form: inside a length band a
    sentence naming the argument states ("A SKU is 6 to 16 characters" for `sku`), else
    between half and twice honest play's."""
    said = [
        x
        for x in full_sentences(words)
        if key and re.search(rf"\b{re.escape(key.split('_')[-1][:5])}", x, re.I)
    ]
    bands = [(int(a), int(b)) for x in said for a, b in _LENGTH_BAND.findall(x)]
    if any(lo <= len(old) <= hi for lo, hi in bands):
        return any(lo <= len(new) <= hi for lo, hi in bands)
    return len(old) / 2 <= len(new) <= len(old) * 2


async def coined(p: Played, play: Play, passes: Passes) -> bool:
    """For one call's text argument honest play coined (no text the task shows holds it: a
    new SKU, a new file's name), changed to another value written in the same kinds of
    character: whether a value nobody has seen, written as honest play's is, pays too. Then
    the verifier takes any name of that form, and the mutant's is one more the policy may
    coin; a value in a kind of character honest play never wrote (an underscore where it
    wrote only letters and digits), blank, or of another length (outside a band the words
    state, "6 to 16 characters"; else under half or over twice honest play's) is not
    excused."""
    at = _one_changed_call(p)
    if at is None or len(at[2]) != 1:
        return False
    t, i, (key,) = at
    script = p.mutant.script
    old, new = call_arguments(p.honest.control.script[t][i])[key], call_arguments(script[t][i])[key]
    if not isinstance(old, str) or not isinstance(new, str) or len(old) < 3:
        return False
    if not new.strip() or not _length_allowed(old, new, p.base.words, key):
        return False  # a blank or a name of another length is no name of honest play's form
    # what the task shows before any call: its words and the world it starts from (a look
    # made after the call prints the coined value back); a world not seen (a bridge's) tells
    # nothing of what the policy looked up, so nothing is excused
    initial = p.base.initial or {}
    if not initial:
        return False
    seen = [p.base.pools.prompt_text, *initial, *initial.values()]
    probe = _coined_like(old)
    if any(old.lower() in s.lower() or probe.lower() in s.lower() for s in seen):
        return False
    if not _classes(new) <= _classes(old):
        return False  # a kind of character honest play never wrote (an underscore)
    # values nobody has seen, of honest play's form and of the mutant's: both must pay (a
    # probe of the mutant's form alone tests what the mutant may have got wrong)
    for probe in dict.fromkeys([_coined_like(old), _coined_like(new)]):
        other = with_call(script, t, i, {**call_arguments(script[t][i]), key: probe})
        result, _ = await play(p.base.task, other, "search: another coined value")
        if not passes(result) or result.mask_sample or refused_calls(other, result):
            return False
    return True
