"""A step a rule requires only in its scope: needed for one thing, not for another.

The reference samples every beach, then opens the clean ones and closes the rest. Leaving out
the sample of a beach it closes still pays, for the rule is "a beach may open only with a
sample": a closed beach needs none. That is the rule's scope, not a rule nothing checks, and
it shows in the reference itself: the samples that are needed (removed, the reward is lost)
are of things the reference then treats one way (opens), the unneeded one of a thing it
treats another way (closes). A step the same tool makes on things all treated alike, needed
for the first and not for the others (a guard applied to the first member only), is no
scope: it stays accused.

`scoped(calls, unneeded, needed)` says which unneeded calls are out of the rule's scope; the
fate of a call is what the reference does after it to the things it names (each later call
naming one of its string values, that value written `*`).
"""

from __future__ import annotations

import json
from typing import Any

from proofgym_stack.validation.scripts import call_arguments

Call = dict[str, Any]


def things(call: Call) -> set[str]:
    """The string values a call names (the things it acts on), folded."""
    return {
        v.strip().lower() for v in call_arguments(call).values() if isinstance(v, str) and v.strip()
    }


def fate(calls: list[Call], k: int) -> frozenset[str]:
    """What the script does after call `k` to the things call `k` names: each later call
    of another tool naming one of them, with that value written `*`."""
    named = things(calls[k])
    out = set()
    for later in calls[k + 1 :]:
        if later.get("name") == calls[k].get("name"):
            continue  # a sibling step of the same kind (the CAB's approval after the lead's)
        args = call_arguments(later)
        hits = {key for key, v in args.items() if isinstance(v, str) and v.strip().lower() in named}
        if hits:
            shown = {key: ("*" if key in hits else v) for key, v in args.items()}
            out.add(f"{later.get('name')}:{json.dumps(shown, sort_keys=True)}")
    return frozenset(out)


def scoped(calls: list[Call], unneeded: list[int], needed: list[int]) -> set[int]:
    """The unneeded calls out of their rule's scope: the same tool's call is needed on other
    things, and what the script then does to this call's things differs from what it does
    to each of theirs."""
    out = set()
    for u in unneeded:
        siblings = [n for n in needed if calls[n].get("name") == calls[u].get("name")]
        mine = fate(calls, u)
        if not siblings or not mine:
            continue
        if all(fate(calls, n) and fate(calls, n) != mine for n in siblings):
            out.add(u)
    return out
