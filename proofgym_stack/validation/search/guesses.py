"""Guessing: the right option reached by trying the listing's other options first.

A tool that takes one of a few printed options (an exam's letters, a keypad's codes) and says
whether each try was right lets a policy guess its way to the right one. Where the
environment limits the tries (two wrong answers lock the question), that limit must hold
whatever else the policy does: a look (a tool that only reads) made between the tries is no
new attempt. The search writes the honest call preceded by the other options the listing
printed. Where that guess fails, and fails too with the look honest play made once more just
before the right call, it plays the guess again with the look made after every wrong try: a
read-only call that turns the failure into full reward is a look the reward pays for (an
attempt counter the look resets).

A guess that passes as it is (no limit on tries) is not judged here: whether unlimited tries
are the author's choice is for the words to say.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from typing import Any

from proofgym.wire.protocol import RunResult
from proofgym_stack.validation.scripts import (
    Script,
    call_arguments,
    refused_calls,
    script_calls,
    set_at,
    tool_outputs,
)
from proofgym_stack.validation.search.caps import calls_past_cap
from proofgym_stack.validation.search.mutants import (
    Mutant,
    _item,
    _short,
    replaced,
    site_of,
)
from proofgym_stack.validation.search.probes import Passes
from proofgym_stack.validation.search.tolerance import Play, Played
from proofgym_stack.validation.search.values import Pools, candidates

#: the wrong options tried before the right one
MAX_TRIES = 5
#: guess mutants per script
MAX_GUESSES = 2
#: words that state a limit on tries
_LIMIT = re.compile(
    r"\b(?:lock|locks|locked|lockout|attempts?|tries|try left|wrong answers?|chances?)\b", re.I
)
LOOKED = (
    "full reward after guessing through the options: the same guesses fail, and fail with "
    "one look before the right try, but pay with a look (a tool that only reads) after each "
    "wrong try: the look undoes what the wrong tries cost"
)


def guess_mutants(script: Script, pools: Pools) -> list[Mutant]:
    """Each call whose argument holds one of a listing's options, preceded by the same call
    with each other option of that listing (the wrong tries first, the right one last)."""
    out: list[Mutant] = []
    for t, i, item in script_calls(script):
        name, args = str(item.get("name")), call_arguments(item)
        for key, value in args.items():
            if not isinstance(value, (str, int)) or isinstance(value, bool):
                continue
            wrong = [v for src, v in candidates(key, value, pools) if src == "option"]
            if not wrong:
                continue
            tries = [_item(name, set_at(args, (key,), w)) for w in wrong[:MAX_TRIES]]
            out.append(
                Mutant(
                    replaced(script, t, i, [*tries, item]),
                    "guess",
                    site_of(name, (key,)),
                    "option",
                    f"{name}: {key} guessed as "
                    f"{', '.join(_short(w) for w in wrong[:MAX_TRIES])} before {_short(value)}",
                    (t, i),
                    (key,),
                    value,
                    wrong[0],
                )
            )
    return out[:MAX_GUESSES]


def _look_before(script: Script, at: tuple[int, int], looks: set[str]) -> dict[str, Any] | None:
    """The last call of a looking tool honest play made before the call at `at` on the same
    thing (its arguments' values all among that call's), or None."""
    calls = script_calls(script)
    target = next((item for t, i, item in calls if (t, i) == at), None)
    if target is None:
        return None
    values = {repr(v) for v in call_arguments(target).values()}
    found = None
    for t, i, item in calls:
        if (t, i) == at:
            break
        if str(item.get("name")) in looks and all(
            repr(v) in values for v in call_arguments(item).values()
        ):
            found = item
    return found


async def looked_guess(
    p: Played, play: Play, passes: Passes, looks: set[str], words: str = ""
) -> Played | None:
    """For a guess that failed where the task's words or the tools state a limit on tries
    ("two wrong answers lock it", "one attempt left"): the guess with a look after each wrong
    try, played, where it passes while the guess with one look before the right try fails.
    None otherwise."""
    m = p.mutant
    if m.op != "guess" or m.call_at is None or passes(p.result) or p.result.mask_sample:
        return None
    if not _LIMIT.search(words) and not any(_LIMIT.search(o) for o in tool_outputs(p.result)):
        return None  # no limit on tries stated: what a look does to them is not judged
    look = _look_before(p.honest.control.script, m.call_at, looks)
    if look is None:
        return None
    t, i = m.call_at
    right = next(x for tt, ii, x in script_calls(p.honest.control.script) if (tt, ii) == (t, i))
    args = call_arguments(right)
    tries = [
        _item(str(right.get("name")), set_at(args, m.leaf, v))
        for v in _tried(m, p.honest.control.script)
    ]
    once = replaced(p.honest.control.script, t, i, [*tries, look, right])
    result, _ = await play(p.base.task, once, "search: guessed, one look before the right try")
    if passes(result) or result.mask_sample:
        return None  # the look before the right call is what honest play needs: no reset
    between = [x for w in tries for x in (w, look)]
    script = replaced(p.honest.control.script, t, i, [*between, right])
    result, record = await play(p.base.task, script, "search: guessed, a look after each try")
    if not passes(result):
        return None
    what = f"{m.what}, a look {look.get('name')} after each wrong try"
    looked = Mutant(script, "guess", m.site, "option", what, m.call_at, m.leaf, m.old, m.new)
    return Played(looked, p.honest, p.base, result, record)


def _tried(m: Mutant, honest: Script) -> list[Any]:
    """The wrong values the guess `m` tried, in order."""
    assert m.call_at is not None and m.leaf is not None
    n = len(script_calls(honest))
    calls = script_calls(m.script)
    extra = len(calls) - n  # the tries stand just before the right call
    at = next(k for k, (t, i, _) in enumerate(script_calls(honest)) if (t, i) == m.call_at)
    return [call_arguments(item)[str(m.leaf[0])] for _, _, item in calls[at : at + extra]]


def keeps_the_tries(script: Script) -> Callable[[Script], bool]:
    """What a shrunk guess keeps: every call of each tool (the tries and the looks)."""
    need = Counter(str(item.get("name")) for _, _, item in script_calls(script))

    def still(shrunk: Script) -> bool:
        have = Counter(str(item.get("name")) for _, _, item in script_calls(shrunk))
        return all(have[k] >= n for k, n in need.items())

    return still


def tries_past_cap(p: Played, words: str) -> str | None:
    """For a guess that paid: the cap the task's words state on the guessed tool's calls
    that its tries crossed (the tools took them all), or None (`caps.calls_past_cap`). Only
    where the tool's answers tell a wrong try from the right one (`answers_tell`): a tool
    that answers every try alike ("blast at X booked for 13:00", a booking it moves) gave
    the policy nothing to guess by; the last call stands, as honest play's would."""
    refused = frozenset(refused_calls(p.mutant.script, p.result))
    tool = p.mutant.site.split(".")[0]
    cap = calls_past_cap(p.mutant.script, tool, words, refused)
    tells = answers_tell(p.honest.control.script, p.mutant.script, p.result, tool)
    return cap if cap is not None and tells else None


def answers_tell(honest: Script, script: Script, result: RunResult, tool: str) -> bool:
    """Whether `tool` answered a wrong try (a call `script` adds to `honest`) in other words
    than the right try after it: "galena: not a match (2 left)" against "magnetite: match"
    tells; "blast at X booked for 13:00" against "... for 11:30", "booking #101" against
    "#100" or "Booked Monday" for `day: "mon"` does not. Each answer is read as its words,
    without the values its own call sent (whole words, and words they begin), numbers or
    letters alone; a refused try or an answer the rollout never reached is not compared."""
    outputs = tool_outputs(result)
    calls = script_calls(script)
    left = [item for _, _, item in script_calls(honest)]
    tries: list[int] = []
    pairs: list[tuple[int, int]] = []
    for n, (_, _, item) in enumerate(calls):
        if left and item == left[0]:
            left.pop(0)
            if item.get("name") == tool:
                pairs += [(t, n) for t in tries]
                tries = []
        elif item.get("name") == tool:
            tries.append(n)

    def answer(n: int) -> frozenset[str] | None:
        if n >= len(outputs) or outputs[n].startswith("Error:"):
            return None
        return _words(outputs[n], call_arguments(calls[n][2]))

    for t, r in pairs:
        wrong, right = answer(t), answer(r)
        if wrong is not None and right is not None and wrong != right:
            return True
    return False


def _words(text: str, args: dict[str, Any]) -> frozenset[str]:
    """The words of a tool's answer, less the values its call sent (see `answers_tell`)."""
    sent = sorted((str(v).strip().lower() for v in args.values() if str(v).strip()), key=len)
    text = text.lower()
    for value in reversed(sent):
        text = re.sub(rf"(?<!\w){re.escape(value)}(?!\w)", " ", text)
    stems = [w for v in sent for w in re.findall(r"[a-z]{3,}", v)]
    return frozenset(
        w for w in re.findall(r"[a-z]{2,}", text) if not any(w.startswith(s) for s in stems)
    )
