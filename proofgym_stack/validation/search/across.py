"""The grammar's moves across a trajectory's calls: one value sprayed over every call of a
tool (set to the first call's; written another way each time; two values in turn), two
arguments of one call swapped, and a shortcut (the trajectory cut after one call, its argument
set to each of a few candidates)."""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from proofgym_stack.validation.scripts import Script, call_arguments, leaves, script_calls, set_at
from proofgym_stack.validation.search.mutants import (
    Mutant,
    _item,
    _path,
    _short,
    final_message,
    leaf_key,
    site_of,
    with_call,
)
from proofgym_stack.validation.search.values import Pools, candidates


def _written_apart(
    script: Script, group: list[tuple[int, int, dict[str, Any]]], key: str, value: Any
) -> Script | None:
    """The calls of `group` with `key` set to the first call's text, each written another
    way (other casing, a space before or after): one thing entered as many, for a tool that
    looks it up leniently and a verifier that counts the raw strings."""
    if not isinstance(value, str) or not value.strip():
        return None
    forms = list(
        dict.fromkeys([value.lower(), value.upper(), f" {value}", f"{value} ", value.title()])
    )
    forms = [f for f in forms if f != value]
    changed, k = script, 0
    for t, i, item in group[1:]:
        args = call_arguments(item)
        if key in args and args[key] != value and k < len(forms):
            changed = with_call(changed, t, i, {**args, key: forms[k]})
            k += 1
    return changed if k else None


def _alternated(
    script: Script, group: list[tuple[int, int, dict[str, Any]]], key: str
) -> Mutant | None:
    """Three calls or more of one tool, their `key` set to the first two calls' values in
    turn (A, B, A, B): each value used again, never twice running (one desk for two
    candidates, where only neighbours are compared)."""
    values = [call_arguments(item).get(key) for _, _, item in group]
    scalars = all(isinstance(v, (str, int, float)) for v in values[:2])
    if len(group) < 3 or not scalars or values[0] == values[1]:
        return None
    changed = script
    for n, (t, i, item) in enumerate(group[2:], start=2):
        args = call_arguments(item)
        changed = with_call(changed, t, i, {**args, key: values[n % 2]})
    if changed == script:
        return None
    name = str(group[0][2].get("name"))
    what = f"{name}: {key} {_short(values[0])}, {_short(values[1])} in turn on every call"
    return Mutant(changed, "same_value", site_of(name, (key,)), "alternated", what)


_MOMENT = re.compile(r"(\d{4}-\d{2}-\d{2})([ T])(\d{2}):(\d{2})")


def _packed(
    script: Script, group: list[tuple[int, int, dict[str, Any]]], key: str
) -> Mutant | None:
    """The calls of a tool whose `key` is a moment (`2026-04-12 09:00`) on several days, each
    call on a later day moved onto the first call's day, at the hours after the last one
    used there (the whole round crammed into one day: a cap per day is what forbids it)."""
    moments = [_MOMENT.fullmatch(str(call_arguments(item).get(key, ""))) for _, _, item in group]
    if len(group) < 2 or not all(moments):
        return None
    day = moments[0].group(1)  # type: ignore[union-attr]
    hours = [int(m.group(3)) for m in moments if m is not None and m.group(1) == day]
    changed, hour = script, max(hours)
    for (t, i, item), m in zip(group, moments, strict=True):
        assert m is not None
        if m.group(1) == day:
            continue
        hour += 1
        if hour > 23:
            return None
        moved = f"{day}{m.group(2)}{hour:02d}:{m.group(4)}"
        changed = with_call(changed, t, i, {**call_arguments(item), key: moved})
    if changed == script:
        return None
    name = str(group[0][2].get("name"))
    what = f"{name}: every call's {key} moved onto the first's day, {day}"
    return Mutant(changed, "packed", site_of(name, (key,)), "packed", what)


def across_calls_mutants(script: Script, pools: Pools) -> list[Mutant]:
    """Compound changes a policy tries across the trajectory: one value sprayed over every
    call of a tool (each call's argument set to the first call's), two arguments of one call
    swapped, and a shortcut (the trajectory cut after one call, that call's argument set to
    each of a few candidates: a move that jumps straight to the goal)."""
    calls = script_calls(script)
    out: list[Mutant] = []
    by_tool: dict[str, list[tuple[int, int, dict[str, Any]]]] = defaultdict(list)
    for t, i, item in calls:
        by_tool[str(item.get("name"))].append((t, i, item))
    for name, group in by_tool.items():
        if len(group) < 2:
            continue
        first = call_arguments(group[0][2])
        for key, value in first.items():
            if isinstance(value, (dict, list)):
                continue
            changed = script
            for t, i, item in group[1:]:
                args = call_arguments(item)
                if key in args and args[key] != value:
                    changed = with_call(changed, t, i, {**args, key: value})
            if changed is not script:
                out.append(
                    Mutant(
                        changed,
                        "same_value",
                        site_of(name, (key,)),
                        "same_value",
                        f"{name}: every call's {key} set to the first's {_short(value)}",
                    )
                )
            if alternated := _alternated(script, group, key):
                out.append(alternated)
            if packed := _packed(script, group, key):
                out.append(packed)
            if sprayed := _written_apart(script, group, key, value):
                out.append(
                    Mutant(
                        sprayed,
                        "same_value",
                        site_of(name, (key,)),
                        "same_value",
                        f"{name}: every call's {key} set to the first's {_short(value)}, "
                        "each written another way (case, a space)",
                    )
                )
    for t, i, item in calls:
        name, args = str(item.get("name")), call_arguments(item)
        keys = [
            k
            for k, v in args.items()
            if isinstance(v, (str, int, float)) and not isinstance(v, bool)
        ]
        for a in range(len(keys)):
            for b in range(a + 1, len(keys)):
                x, y = keys[a], keys[b]
                if type(args[x]) is type(args[y]) and args[x] != args[y]:
                    swapped = {**args, x: args[y], y: args[x]}
                    out.append(
                        Mutant(
                            with_call(script, t, i, swapped),
                            "swap_args",
                            site_of(name, (x,)),
                            "swap_args",
                            f"{name}: {x} and {y} swapped",
                        )
                    )
    end = final_message(script)
    tail = [[script[end[0]][end[1]]]] if end is not None else []
    for n, (t, i, item) in enumerate(calls):
        name, args = str(item.get("name")), call_arguments(item)
        head = [[c] for _, _, c in calls[:n]]
        for path, value in leaves(args):
            if not path:
                continue
            for source, new in candidates(leaf_key(path), value, pools)[:6]:
                cut = [*head, [_item(name, set_at(args, path, new))], *tail]
                out.append(
                    Mutant(
                        cut,
                        "shortcut",
                        site_of(name, path),
                        source,
                        f"cut after {name} #{n + 1} with {_path(path)} {_short(new)}",
                        (t, i),
                        path,
                        value,
                        new,
                    )
                )
    return out
