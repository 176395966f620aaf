"""Every option at once: the honest call made again with each other option of its argument.

Where an argument takes one of a few named options (the boxes a form's `box` argument lists,
the other entries of a listing), a policy can tick them all: the right one is among them. A
verifier that checks "the right one is ticked" and counts the ticks wrongly (a chained XOR
for "exactly one of three", true again when all three are) pays it. Such a spray is more of
an action, reported and not accused, unless the task's words cap the tool's calls and honest
play keeps within the cap ("tick exactly one filing-status box with tick_box").

These mutants are played beside the seeded draw (at most `MAX_EVERY` a search), so that no
other mutant's draw changes.
"""

from __future__ import annotations

import json
import re

from proofgym_stack.validation.scripts import (
    Script,
    call_arguments,
    leaves,
    refused_calls,
    set_at,
)
from proofgym_stack.validation.search.caps import calls_past_cap
from proofgym_stack.validation.search.mutants import (
    Mutant,
    leaf_key,
    replaced,
    site_of,
    with_call,
)
from proofgym_stack.validation.search.tolerance import Play, Played
from proofgym_stack.validation.search.values import Pools, candidates
from proofgym_stack.validation.search.world import lost

SOURCE = "every_option"
#: such sprays played a search
MAX_EVERY = 4
#: a closed set of options is small: more than this many is a listing to choose from
MAX_OPTIONS = 8


def every_option(script: Script, pools: Pools) -> list[Mutant]:
    """Each call with a text argument that takes one of 2 to `MAX_OPTIONS` other named
    options (printed beside the honest value, or listed in the argument's description), made
    again with every one of them after the honest call."""
    out: list[Mutant] = []
    for t, turn in enumerate(script):
        for i, item in enumerate(turn):
            if item.get("type") != "function_call":
                continue
            name, args = str(item.get("name")), call_arguments(item)
            for path, value in leaves(args):
                if not path or not isinstance(value, str):
                    continue
                key = leaf_key(path)
                named = [*pools.described.get(key, []), *listed(pools, name, key, value)]
                printed = [v for src, v in candidates(key, value, pools) if src == "option"]
                unique = dict.fromkeys([*printed, *named])
                others = [v for v in unique if isinstance(v, str) and v != value]
                if not 2 <= len(others) <= MAX_OPTIONS:
                    continue
                calls = [item] + [
                    {"type": "function_call", "name": name, "arguments": json.dumps(a)}
                    for a in (set_at(args, path, v) for v in others)
                ]
                out.append(
                    Mutant(
                        replaced(script, t, i, calls),
                        "spray",
                        site_of(name, path),
                        SOURCE,
                        f"{name}: {key} sent again as every other option ({', '.join(others)})",
                        call_at=(t, i),
                        leaf=path,
                        old=value,
                        new=others[-1],
                    )
                )
    return out


_OPTION = re.compile(r"[A-Za-z][\w-]*")


def listed(pools: Pools, tool: str, key: str, value: str) -> list[str]:
    """The options the description of `tool`'s argument `key` lists, where it lists the
    honest `value` among them ("box: single, married_joint or head_of_household")."""
    for schema in pools.tools:
        if schema.get("name") != tool:
            continue
        prop = ((schema.get("parameters") or {}).get("properties") or {}).get(key)
        text = str(prop.get("description") or "") if isinstance(prop, dict) else ""
        for clause in re.split(r"[.;:(]", text):
            parts = [p.strip() for p in re.split(r",|\bor\b|\band\b", clause)]
            names = [p for p in parts if _OPTION.fullmatch(p)]
            if len(names) == len(parts) >= 2 and value in names:
                return names
    return []


async def overrides(p: Played, play: Play) -> bool:
    """Whether the spray only left the last option in place of the honest one: its world is
    the one honest play leaves with that option sent instead (a judge set again and again,
    the last one kept). That is another option chosen, judged as such elsewhere, not every
    option held at once."""
    m = p.mutant
    if m.call_at is None or p.record is None:
        return False
    t, i = m.call_at
    args = call_arguments(p.honest.control.script[t][i])
    last = with_call(p.honest.control.script, t, i, set_at(args, m.leaf, m.new))
    _, record = await play(p.base.task, last, "search: the last option alone")
    if record is None:
        return False
    ignored = p.base.ignored
    return not lost(record.world, p.record.world, ignored) and not lost(
        p.record.world, record.world, ignored
    )


def past_the_cap(p: Played, words: str) -> str | None:
    """For a spray that paid: the cap the words state on the sprayed tool's calls that it
    crossed while honest play kept within it, or None (`caps.calls_past_cap`)."""
    tool = p.mutant.site.split(".")[0]
    if calls_past_cap(p.honest.control.script, tool, words) is not None:
        return None  # honest play is past it too: the cap counts something else
    refused = frozenset(refused_calls(p.mutant.script, p.result))
    return calls_past_cap(p.mutant.script, tool, words, refused)
