"""What a played mutant's world shows against honest play's: the evidence the search's
oracles weigh (what was left behind or left stale, what only a later option or a value the
tasks fixed explains)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from proofgym.wire.protocol import RunResult, Task
from proofgym_stack.validation.scripts import (
    call_arguments,
    call_index,
    leaves,
    refused_calls,
    script_calls,
    tool_outputs,
)
from proofgym_stack.validation.search.counts import counts_whole_things
from proofgym_stack.validation.search.mutants import Mutant
from proofgym_stack.validation.search.options import listed_with, siblings
from proofgym_stack.validation.search.rules import clauses
from proofgym_stack.validation.search.tolerance import Played
from proofgym_stack.validation.search.world import World, as_sets, lost, members, stale_records


def gained_at(world: World, honest: World, where: set[str]) -> set[str]:
    """The paths of `where` at which `world` holds members the honest world lacks."""
    mine, theirs = members(world), members(honest)
    out = set()
    for path in where:
        extra = list(mine.get(path, []))
        for value in theirs.get(path, []):
            if value in extra:
                extra.remove(value)
        if extra:
            out.add(path)
    return out


def short_list(paths: set[str]) -> str:
    return ", ".join(sorted(paths)[:3])


def printed_option(p: Played) -> bool:
    """A follow-up whose new value is another option of the listing that printed the honest
    one (an observing tool's listing read beside honest play): another option chosen
    instead, as an `option` mutant is, reached through an earlier change; or another task's
    value that this task's tools print too (another photo of the same library)."""
    m = p.mutant
    if m.source == "other_task" and isinstance(m.new, str):  # another task's, printed here too
        return any(m.new in text for text in p.base.pools.shown)
    return m.op == "follow_up" and m.new in siblings(m.old, p.base.pools.shown)


def listed_option(p: Played) -> bool:
    """An argument set to another member of a list the tools printed beside the honest value
    ("free at 9, 11, 14, 16"), or to another record's value of a listing: another option."""
    m = p.mutant
    if m.op != "argument" or m.new is None or m.old is None or m.new == m.old:
        return False
    shown = p.base.pools.shown
    if m.new in siblings(m.old, shown):
        return True
    return any(str(m.new) in listed_with(str(m.old), text) for text in shown)


def same_at(a: World, b: World, paths: set[str]) -> bool:
    """Whether two worlds hold the same at every one of `paths` (paths as `lost` names them:
    a list's members under its path, read as a multiset)."""
    mine, theirs = members(a), members(b)
    return all(sorted(mine.get(p, [])) == sorted(theirs.get(p, [])) for p in paths)


def task_values(tasks: list[Task]) -> set[str]:
    """Every scalar of the sampled tasks' data, as JSON: the values the tasks fixed."""
    out: set[str] = set()
    for task in tasks:
        out.update(json.dumps(v) for _, v in leaves(task.task_data))
    return out


def free_text(value: Any, fixed: set[str]) -> bool:
    """A string the policy writes freely (a note, a reason): not a value any task fixed. At
    a site whose tool takes junk, a tool that refuses it empty says nothing of whether the
    verifier reads it."""
    return isinstance(value, str) and json.dumps(value) not in fixed


def stale_lists(p: Played) -> set[str]:
    """The lists in which the mutant left a record as it was that honest play changed."""
    if p.record is None:
        return set()
    return stale_records(p.record.world, p.honest.world, p.base.initial, p.base.ignored)


def left_behind(p: Played, lost_paths: set[str]) -> bool:
    """Whether a call made with another tool left part of the replaced call's work undone: a
    path the world lost that honest play changed is, after the mutant, as it was before any
    action (the source bin of a transfer redone as a correction of the destination keeps its
    stock), not changed another way (flag where reject was: the claim decided otherwise)."""
    initial = p.base.initial
    if not initial or p.record is None:
        return False
    world, honest = p.record.world, p.honest.world
    return any(
        honest.get(path) != initial.get(path) and world.get(path) == initial.get(path)
        for path in lost_paths
    )


def trimmed_prose(m: Mutant) -> bool:
    """Whether `m` only cut the last character off a text of several words (a notice without
    its closing full stop): the same message to a reader, not a value the verifier ignores."""
    if m.source != "shortened" or not isinstance(m.old, str) or not isinstance(m.new, str):
        return False
    return len(m.old.split()) >= 4 and m.old.startswith(m.new) and len(m.new) >= len(m.old) - 1


def refused(p: Played) -> bool:
    """Whether the mutated call was answered with a tool error (the tool's own input rule
    refused it, before anything the verifier grades)."""
    return p.mutant.op == "argument" and answered_with_error(p) is True


def answered_with_error(p: Played) -> bool | None:
    """Whether the mutant's changed call was answered with a tool error; None where it has
    no one changed call or the rollout never reached it."""
    m = p.mutant
    if m.call_at is None:
        return None
    nth = call_index(m.script, *m.call_at)
    outputs = tool_outputs(p.result)
    if nth is None or nth >= len(outputs):
        return None
    return outputs[nth].startswith("Error:")


def no_effect(p: Played) -> bool:
    """Whether the mutant did, on its own task, just what honest play did: the same world,
    and every call it added refused by the tools (a call made twice, the second refused).
    Played on another task, it is honest play with a call there that was never needed here:
    no evidence that the verifier ignores the truth."""
    if p.record is None:
        return False
    if lost(p.record.world, p.honest.world, p.base.ignored) or lost(
        p.honest.world, p.record.world, p.base.ignored
    ):
        return False
    errors = len(refused_calls(p.mutant.script, p.result))
    honest = sum(o.startswith("Error:") for o in p.honest.outputs)
    extra = len(script_calls(p.mutant.script)) - len(script_calls(p.honest.control.script))
    return extra > 0 and errors - honest == extra


#: operators that make an action twice: a world that differs only by the same record twice
#: is an honest repeat
REPEATS = frozenset({"call_repeat", "list_duplicate"})


def repeated(p: Played) -> bool:
    """A repeat whose only effect is the same record twice (an article read twice): the
    world, lists read as sets, is the honest one."""
    if p.mutant.op not in REPEATS or p.record is None:
        return False
    ignored = p.base.ignored
    return as_sets(p.record.world, ignored) == as_sets(p.honest.world, ignored)


def ticked_only(p: Played, diff: set[str]) -> bool:
    """Whether the mutant added calls and every path it lost is a whole number that only
    went up, by no more than the calls it added: a clock or counter the extra calls
    advanced (a sequence number ticked by an approval made after the merge), which honest
    play's own work did not lose; what those calls did is more of an action, judged as such."""
    if p.record is None or not diff:
        return False
    extra = len(script_calls(p.mutant.script)) - len(script_calls(p.honest.control.script))
    if extra < 1:
        return False
    for path in diff:
        mine, honest = p.record.world.get(path), p.honest.world.get(path)
        if mine is None or honest is None or not (_whole(mine) and _whole(honest)):
            return False
        if not 0 < int(mine) - int(honest) <= extra:
            return False
    return True


def _whole(value: str) -> bool:
    """Whether a world's leaf (a value's repr) is a whole number."""
    return value.lstrip("-").isdigit()


#: words by which a tool says no without raising an error ("Not approved: ...")
_SAID_NO = re.compile(
    r"\b(?:not|rejected|refused|denied|declined|failed|invalid|disallowed|unapproved|"
    r"insufficient|blocked)\b",
    re.I,
)


def said_no(p: Played, looks: set[str]) -> str | None:
    """For an acting call changed by the mutant: the output in which its tool said no in
    words ("Not approved: the plan must include ...") where honest play's same call was
    answered without such a word. Where the mutant, which went on as honest play did, still
    pays, the verifier does not hold the policy to what the tool decided."""
    m = p.mutant
    if m.op != "argument" or m.call_at is None:
        return None
    t, i = m.call_at
    if t >= len(m.script) or i >= len(m.script[t]) or str(m.script[t][i].get("name")) in looks:
        return None
    nth = call_index(m.script, t, i)
    mine, honest = tool_outputs(p.result), p.honest.outputs
    if nth is None or nth >= len(mine) or nth >= len(honest) or mine[nth].startswith("Error:"):
        return None
    # the value sent, echoed back ("Reply sent: not before noon"), is not the tool's answer
    answer = mine[nth].replace(str(m.new), " ") if str(m.new).strip() else mine[nth]
    if _SAID_NO.search(answer) and not _SAID_NO.search(honest[nth]):
        return mine[nth].strip()[:100]
    return None


def needed_steps(played: list[Played], passes: Callable[[RunResult], bool]) -> set[tuple[str, str]]:
    """(task, tool) pairs whose one call in honest play, left out, fails: the steps the
    verifier needs (a tool called twice is left out: which of its calls is needed is not
    known)."""

    def once(p: Played) -> bool:
        calls = script_calls(p.honest.control.script)
        return sum(str(item.get("name")) == p.mutant.site for _, _, item in calls) == 1

    return {
        (p.base.task.task_id, p.mutant.site)
        for p in played
        if p.mutant.op == "call_drop"
        and not passes(p.result)
        and not p.result.mask_sample
        and once(p)
    }


def acts_after(m: Mutant, looks: set[str]) -> bool:
    """Whether the mutant's changed call is followed by an acting call (one of a tool that
    does not only look): a step that gates what comes after it."""
    at = None if m.call_at is None else call_index(m.script, *m.call_at)
    later = script_calls(m.script)[at + 1 :] if at is not None else []
    return any(str(item.get("name")) not in looks for _, _, item in later)


def counted(p: Played, needed: set[tuple[str, str]], looks: set[str]) -> bool:
    """Whether the mutant's changed call is a needed step (`needed_steps`) that gates a later
    action: where its tool said no and the mutant still pays, the verifier counted the step,
    not its outcome (code that errs before a right answer gates nothing)."""
    return (p.base.task.task_id, p.mutant.site.split(".")[0]) in needed and acts_after(
        p.mutant, looks
    )


def made_by_honest_play(p: Played) -> bool:
    """Whether the tool an `undo` mutant added after the last call is one honest play
    itself called (`order_in` again after ordering and fitting), not an inverse it never
    needed (`remove_item` after `add_item`)."""
    last = script_calls(p.mutant.script)[-1][2].get("name")
    return any(item.get("name") == last for _, _, item in script_calls(p.honest.control.script))


def graded(site: str, failed_sites: set[str]) -> bool:
    """Whether the verifier grades `site`: some mutant of it failed (for a whole call, some
    mutant of the call or of one of its arguments)."""
    if "." in site or site == "message":
        return site in failed_sites
    return any(s == site or s.startswith(site + ".") for s in failed_sites)


#: a world's leaves that hold nothing: a place honest play writes into without taking anything
_EMPTY = frozenset({"None", "''", '""', "{}", "[]", "()", "set()"})


def overwrote_another(p: Played) -> str | None:
    """Where honest play wrote its values only into places that held nothing (a free locker's
    `null`, a key not there yet) and the mutant wrote one of those same values, a name honest
    play passed in a call and the world held nowhere before, over a place that held another
    name honest play left standing (another pupil's), leaving honest play's own place empty:
    the path and what it held. The verifier pays an action that takes what belonged to
    another record, where the honest action took nothing; or None. Only places keyed by
    name count: a list's members shift by index when one is added before them."""
    initial = p.base.initial
    if not initial or p.record is None:
        return None
    world, honest, ignored = p.record.world, p.honest.world, p.base.ignored

    def written(into: World) -> dict[str, str]:
        return {
            path: value
            for path, value in into.items()
            if path not in ignored and not path.endswith(".#") and initial.get(path) != value
        }

    made = written(honest)
    if not made or any("[" in path or initial.get(path, "None") not in _EMPTY for path in made):
        return None  # honest play itself changed what was there: no taking to tell apart
    if any(world.get(path) == value for path, value in made.items()):
        return None  # the mutant did honest play's write too: more of an action
    sent = {repr(v) for _, _, item in script_calls(p.honest.control.script) for v in _strings(item)}
    before = set(initial.values())
    # names, not numbers: a count that comes back to what it held says nothing of whose it is
    ours = {v for v in made.values() if v[:1] in "'\"" and v in sent and v not in before}
    for path, value in sorted(written(world).items()):
        was = initial.get(path)
        if "[" in path or was is None or was in _EMPTY or was[:1] not in "'\"":
            continue
        if honest.get(path) == was and value in ours:
            return (
                f"it writes {value} over {path} (which held {was}), where honest play "
                "wrote only into empty places"
            )
    return None


def _strings(item: dict[str, Any]) -> list[str]:
    """The text values a call passed (its arguments, stripped as a tool would keep them)."""
    return [v.strip() for v in call_arguments(item).values() if isinstance(v, str)]


#: a clause that keeps the policy off everything but what it was asked to change ("change no
#: other book's record", "leave everything else as it is"): a prohibition within a few words
#: of the others, in a clause that states no condition ("if no other slot is free")
_KEEP_OFF = re.compile(
    r"\b(?:no|not|never|don't|do not|leave|without)\b(?:\W+\w+){0,4}?\W+"
    r"(?:other|others|else|the rest)\b",
    re.I,
)
CONDITION = re.compile(r"\b(?:if|unless|when|where|otherwise)\b", re.I)


def collateral(p: Played, diff: set[str], words: str, tools: list[str]) -> str | None:
    """Where a call made with another tool kept every change honest play made and also
    changed records honest play never touched (every other book on the shelf marked down
    with the one asked for), and a clause of the task's words keeps the policy off the
    others ("change no other book's record"; a clause that names one of the `tools` must
    name the one the mutant took: "dispatch ... and no others" keeps no invoice off): the
    records it changed and the clause; or None. Another action that does the asked-for
    work and more is no alternative the task allows."""
    initial = p.base.initial
    if p.mutant.op != "tool_swap" or not initial or p.record is None or not diff:
        return None
    honest, world = p.honest.world, p.record.world
    made = {
        path for path, v in honest.items() if initial.get(path) != v and not path.endswith(".#")
    }
    if not made or any(world.get(path) != honest[path] for path in made):
        return None  # honest play's own work not kept whole: judged as another world
    touched = {path.rsplit(".", 1)[0] for path in made}
    extra = {
        path
        for path in diff
        if "[" not in path  # a record keyed by name: a list's members are read as a multiset
        and honest.get(path) == initial.get(path)
        and path.rsplit(".", 1)[0] not in touched
    }
    at = p.mutant.call_at
    taken = next(
        (str(it.get("name")) for t, i, it in script_calls(p.mutant.script) if (t, i) == at), ""
    )
    said = next(
        (
            c
            for c in clauses(words)
            if _KEEP_OFF.search(c) and not CONDITION.search(c) and _about(c, taken, tools)
        ),
        None,
    )
    if not extra or said is None:
        return None
    return (
        f"it also changes {short_list(extra)}, which honest play left as it was, where the "
        f"words say {said.strip()[:80]!r}"
    )


def _about(clause: str, taken: str, tools: list[str]) -> bool:
    """Whether `clause` may speak of a call of the tool `taken`: it names none of the tools,
    or it names that one (by name or its first five letters)."""

    def names(tool: str) -> bool:
        head = tool.split("_", 1)[0].lower()
        spoken = re.escape(tool).replace("_", "[_ ]")
        return bool(
            re.search(rf"\b{spoken}\b", clause, re.I)
            or (len(head) >= 5 and re.search(rf"\b{re.escape(head[:5])}", clause, re.I))
        )

    named = [tool for tool in tools if names(tool)]
    return not named or taken in named


def fraction_of_a_count(p: Played) -> str | None:
    """For half a thing less (source `fraction`) paid: why it is a hole, where the argument
    counts whole things (`counts.counts_whole_things`) and the world the verifier was handed
    lost what honest play left; or None."""
    m = p.mutant
    if m.source != "fraction" or not m.leaf or not isinstance(m.leaf[-1], str):
        return None
    if p.record is None:
        return None
    gone = lost(p.record.world, p.honest.world, p.base.ignored)
    if not gone or not counts_whole_things(m.leaf[-1], m.site.split(".")[0], p.base.pools.tools):
        return None
    return (
        f"full reward with {m.new:g} {m.leaf[-1]} (another world at {short_list(gone)}): a "
        "count of whole things taken as a fraction"
    )
