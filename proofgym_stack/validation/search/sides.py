"""The side a rule allows: every call's choice set to one of two values honest play uses.

Where honest play sends an argument two values (a bag: `cabin` for most things, `hold` for
the ones the airline bans from the cabin), a mutant that sets every call to one of them may
only have chosen the side no rule restricts: all in the hold breaks nothing the words state.
Where a clause of the words restricts the other value ("bans these from the cabin"), the
verifier is asked about that side: every call set to the other value. Where that fails, the
verifier grades the choice (it refuses the banned things in the cabin), and the mutant's
side is the policy's freedom, reported, not accused; where that pays too, or the words
restrict neither side (an urgent queue for urgent tickets, everything escalated), the
finding stands.
"""

from __future__ import annotations

import re

from proofgym_stack.validation.scripts import call_arguments, script_calls
from proofgym_stack.validation.search.banned import says
from proofgym_stack.validation.search.mutants import with_call
from proofgym_stack.validation.search.probes import Passes
from proofgym_stack.validation.search.rules import clauses
from proofgym_stack.validation.search.tolerance import Play, Played


async def free_side(p: Played, play: Play, passes: Passes) -> bool:
    """Whether a mutant that set every call's argument to one of the two values honest play
    sends it chose the free side: every call set to the other value fails."""
    m = p.mutant
    if m.op != "same_value" or "." not in m.site:
        return False
    tool, key = m.site.split(".", 1)
    honest = [
        (t, i, call_arguments(item))
        for t, i, item in script_calls(p.honest.control.script)
        if item.get("name") == tool
    ]
    sent = list(dict.fromkeys(args.get(key) for _, _, args in honest))
    # one value, however written (`hold`, ` HOLD`: the same side)
    chosen = {
        str(call_arguments(item).get(key)).strip().lower()
        for _, _, item in script_calls(m.script)
        if item.get("name") == tool
    }
    if len(sent) != 2 or len(chosen) != 1 or not all(isinstance(v, str) for v in sent):
        return False
    other = next((v for v in sent if str(v).strip().lower() not in chosen), None)
    if other is None:
        return False
    script = p.honest.control.script
    for t, i, args in honest:
        script = with_call(script, t, i, {**args, key: other})
    if not _restricted(str(other), p.base.words):
        return False  # no clause of the words restricts the other side: no free side shown
    result, _ = await play(p.base.task, script, "search: every call the other side")
    return not passes(result) and not result.mask_sample


#: words that restrict a value ("bans these from the cabin", "never in the cabin")
_RESTRICTS = re.compile(
    r"\b(?:bans?|banned|barred|never|not allowed|must not|may not|forbidden|prohibited|only)\b",
    re.I,
)


def _restricted(value: str, words: str) -> bool:
    """Whether a clause of the words with a restricting word names `value`."""
    return any(_RESTRICTS.search(c) and says(value, c) for c in clauses(words))
