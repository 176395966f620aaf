"""Another task's answer among the several a task accepts from a closed set of choices.

Some tasks are constraints over a few closed choices, not one answer: put each rig on circuit A
or B so that neither overloads, seat each guest at table 1, 2 or 3. Many combinations satisfy
one task, and another task's honest combination may satisfy this one too: a choice the target
accepts, not a truth it ignores. Where a trajectory differs from the target's own honest one
only in such choices (string values at an argument that takes, across every sampled task's
honest play, a few values that repeat: a vocabulary, not names), the target is asked whether
it grades those choices at all: its own honest trajectory with one choice changed to another
word of the vocabulary must fail somewhere. A verifier that ignores the choice pays every such
change, and the accusation stands. Where the choices are a bag (a speaker of the catalogue
placed per call, as many as the plan needs), another task's bag may differ in its size too:
it is accepted as another combination where the rest of the two trajectories is the same and
the target grades its own bag (one call of it left out, or given another word, fails there).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from proofgym.wire.protocol import RunResult, Task
from proofgym_stack.validation.regions import Diff, differing_leaves
from proofgym_stack.validation.scripts import (
    ArgPath,
    Script,
    call_arguments,
    leaves,
    only_looks,
    refused_calls,
    script_calls,
    set_at,
    shown,
    tool_outputs,
)

if TYPE_CHECKING:
    from proofgym_stack.validation.context import Context

#: the most words a vocabulary of choices has (more: names, not choices)
MAX_WORDS = 7
#: the most differing choices probed before the target is judged not to grade them
MAX_PROBES = 8

Site = tuple[Any, ArgPath]


def _choice_like(value: Any) -> bool:
    """A value a closed set of choices could hold: a word, or a whole number (a weekday 1-5)."""
    if isinstance(value, str):
        return bool(value.strip())
    return isinstance(value, int) and not isinstance(value, bool)


def vocabulary(scripts: list[Script]) -> dict[Site, set[Any]]:
    """(tool, argument path) -> its words, where the values sent there across the honest
    trajectories are a closed set: two to MAX_WORDS of them, some word sent more than once
    within one trajectory (a circuit several rigs share, a weekday several tasks go on; not a
    rig's id, sent once per trajectory)."""
    seen: dict[Site, list[Any]] = {}
    repeated: set[Site] = set()
    shared: dict[Site, dict[Any, int]] = {}  # word -> in how many trajectories
    for script in scripts:
        here: dict[Site, list[Any]] = {}
        for _, _, item in script_calls(script):
            for path, value in leaves(call_arguments(item)):
                if _choice_like(value):
                    here.setdefault((item.get("name"), path), []).append(value)
        for site, values in here.items():
            seen.setdefault(site, []).extend(values)
            if len(values) > len(set(values)):
                repeated.add(site)
            for word in set(values):
                shared.setdefault(site, {})[word] = shared.get(site, {}).get(word, 0) + 1
    # a task's own ids (its cart, repeated within it) are no vocabulary: at least two words
    # are sent in two trajectories or more
    return {
        site: set(values)
        for site, values in seen.items()
        if site in repeated
        and 2 <= len(set(values)) <= MAX_WORDS
        and sum(n >= 2 for n in shared[site].values()) >= 2
    }


def _key(item: dict[str, Any], words: dict[Site, set[Any]]) -> tuple[Any, ...]:
    """A call's tool and its values that are not choices: what names the thing it acts on."""
    name = item.get("name")
    rest = [(p, repr(x)) for p, x in leaves(call_arguments(item)) if (name, p) not in words]
    return (name, tuple(sorted(rest)))


def differing_choices(
    script: Script,
    own: Script,
    words: dict[Site, set[Any]],
    skip: frozenset[tuple[int, int]] = frozenset(),
) -> list[Diff] | None:
    """(call of `own`, path, own word, the other's word) for each choice where `script` (its
    calls at `skip` left aside: refused, they took no effect) makes the same calls on the same
    things as `own`, in any order, with other words; None where it differs in anything else."""
    calls = [
        (t, i, _key(item, words), call_arguments(item))
        for t, i, item in script_calls(script)
        if (t, i) not in skip
    ]
    # a thing acted on again with another word: the last call that took effect stands
    # ("scheduling again moves it"; the refused ones did nothing); the same call made twice
    # is two calls (a tool that adds)
    again = {
        (t, i)
        for n, (t, i, k, args) in enumerate(calls)
        if any(k == c[2] and args != c[3] for c in calls[n + 1 :])
    }
    return differing_leaves(script, own, lambda item: _key(item, words), skip | again)


def _changed(own: Script, n: int, path: ArgPath, word: str) -> Script:
    turns = [list(turn) for turn in own]
    t, i, item = script_calls(own)[n]
    turns[t][i] = {**item, "arguments": set_at(call_arguments(item), path, word)}
    return turns


async def among_accepted(
    v: Context, target: Task, script: Script, own: Script, result: RunResult
) -> bool:
    """Whether `script` (paid on `target` with `result`) makes, where its calls took effect,
    the target's own honest calls, or differs from them only in closed choices the target
    grades: one of them changed alone fails there (a verifier that grades only some of them
    may be excused: the probe does not tell which)."""
    refs = [c.script for t in v.tasks if (c := v.reference(t.task_id)) is not None]
    words = vocabulary(refs)
    skip = frozenset(refused_calls(script, result))
    diffs = differing_choices(script, own, words, skip)
    if diffs is None:
        return await _another_bag(v, target, script, own, words, skip)
    if not diffs:
        # where its calls took effect they are the target's own honest ones: the same
        # actions, only the report of them differs; where honest play only looked (or made
        # no call), the reply is the answer, and it differs
        looks = v.env.observing_tools(target)
        return not only_looks(own, looks)
    # the target grades these choices: one of them changed alone fails there, the ones
    # where the two differ (as the other trajectory has them) tried first
    probes = [(n, path, word) for n, path, _, word in diffs]
    for n, (_, _, item) in enumerate(script_calls(own)):
        for path, value in leaves(call_arguments(item)):
            for word in sorted(words.get((item.get("name"), path), set()) - {value}, key=repr):
                probes.append((n, path, word))
    for n, path, word in list(dict.fromkeys(probes))[:MAX_PROBES]:
        probe = _changed(own, n, path, word)
        got = await v.run(target, probe, "probe: another of the target's choices")
        if got.mask_sample or refused_calls(probe, got):
            continue  # a word the tools refuse says nothing of what is graded
        if not v.passes(got):
            return True
    return False


def _bag(
    script: Script, words: dict[Site, set[Any]], skip: frozenset[tuple[int, int]]
) -> tuple[list[tuple[Any, str]], dict[tuple[Any, ...], int], list[int]]:
    """The script's calls that took effect split in two: the others, in order (each its
    tool and arguments), and the bag of those whose every argument is a choice (with how
    many of each); and where in the script's calls each of the bag's calls stands."""
    others: list[tuple[Any, str]] = []
    bag: dict[tuple[Any, ...], int] = {}
    at: list[int] = []
    for n, (t, i, item) in enumerate(script_calls(script)):
        if (t, i) in skip:
            continue
        name, found = item.get("name"), leaves(call_arguments(item))
        if found and all((name, p) in words for p, _ in found):
            key = (name, *sorted((p, repr(x)) for p, x in found))
            bag[key] = bag.get(key, 0) + 1
            at.append(n)
        else:
            others.append((name, repr(sorted(call_arguments(item).items()))))
    return others, bag, at


async def _another_bag(
    v: Context,
    target: Task,
    script: Script,
    own: Script,
    words: dict[Site, set[Any]],
    skip: frozenset[tuple[int, int]],
) -> bool:
    """Whether `script` differs from the target's own honest play only in its bag of
    choices, and the target grades its own bag: one call of it left out, or its word
    changed, fails there."""
    words = {**_bag_words([script, own]), **words}
    others, bag, _ = _bag(script, words, skip)
    theirs, own_bag, at = _bag(own, words, frozenset())
    if others != theirs or not own_bag or bag == own_bag:
        return False
    # the bag's words are the environment's offer: a listing the target shows lists them all
    listing = "\n".join(await _listings(v, target))
    sent = [
        x
        for _, _, i in script_calls(script)
        for p, x in leaves(call_arguments(i))
        if (i.get("name"), p) in words
    ]
    if not all(shown(x, listing) for x in sent):
        return False
    probes: list[Script] = []
    for n in at:  # a word changed (a count that only counts speakers is not grading them)
        _, _, item = script_calls(own)[n]
        for path, value in leaves(call_arguments(item)):
            probes += [
                _changed(own, n, path, w)
                for w in sorted(words[(item.get("name"), path)] - {value}, key=repr)
            ]
    for probe in probes[:MAX_PROBES]:
        got = await v.run(target, probe, "probe: the target's bag of choices changed")
        if got.mask_sample or refused_calls(probe, got):
            continue  # a word the tools refuse says nothing of what is graded
        if not v.passes(got):
            return True
    return False


def _bag_words(scripts: list[Script]) -> dict[Site, set[Any]]:
    """(tool, path) -> its words where one value is sent more than once within one script
    and the site takes at most MAX_WORDS values in all: a bag's candidates (whether they are
    the environment's choices, not a task's own ids, its listings decide)."""
    seen: dict[Site, list[Any]] = {}
    repeated: set[Site] = set()
    for script in scripts:
        here: dict[Site, list[Any]] = {}
        for _, _, item in script_calls(script):
            for path, value in leaves(call_arguments(item)):
                if _choice_like(value):
                    here.setdefault((item.get("name"), path), []).append(value)
        for site, values in here.items():
            seen.setdefault(site, []).extend(values)
            if len(values) > len(set(values)):
                repeated.add(site)
    return {s: set(v) for s, v in seen.items() if s in repeated and len(set(v)) <= MAX_WORDS}


async def _listings(v: Context, target: Task) -> list[str]:
    """What the target's looks that take no argument print (a catalogue), played once."""
    looks = v.env.observing_tools(target)
    calls = [
        {"type": "function_call", "name": name, "arguments": "{}", "call_id": f"look_{name}"}
        for schema in v.env.task_tool_schemas(target)
        if (name := str(schema.get("name"))) in looks
        and not (schema.get("parameters") or {}).get("required")
    ]
    if not calls:
        return []
    got = await v.run(target, [calls, [{"type": "message", "content": ""}]], "probe: the looks")
    return tool_outputs(got)
