"""The grammar's moves with the environment's other tools: a call made with another tool
instead (`tool_swap`), another tool made after the last call on what an earlier call named
(`undo`), and a tool honest play used made once more on a thing the task's words name and
honest play left alone (`one_more`). `mutants_of` gathers these with `mutants`' own."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from typing import Any

from proofgym_stack.validation.scripts import Script, call_arguments, script_calls
from proofgym_stack.validation.search.across import across_calls_mutants
from proofgym_stack.validation.search.edges import edge_mutants
from proofgym_stack.validation.search.gather import gathered_mutants
from proofgym_stack.validation.search.guesses import guess_mutants
from proofgym_stack.validation.search.injection import injected_mutants
from proofgym_stack.validation.search.left_row import left_row_mutants
from proofgym_stack.validation.search.mutants import (
    Mutant,
    _item,
    _short,
    argument_mutants,
    call_mutants,
    message_mutants,
    replaced,
    site_of,
    told_mutants,
    with_call,
)
from proofgym_stack.validation.search.options import (
    listed_with,
    names_in,
    paired,
    record_of,
    same_shape,
    siblings,
)
from proofgym_stack.validation.search.patterns import pattern_mutants
from proofgym_stack.validation.search.prompt_rows import line_of, other_rows, row_filled
from proofgym_stack.validation.search.reshaped import fraction_mutants, stretched_mutants
from proofgym_stack.validation.search.round_trip import round_trip_mutants
from proofgym_stack.validation.search.rules import role_values
from proofgym_stack.validation.search.unused import follow_on_mutants
from proofgym_stack.validation.search.values import Pools
from proofgym_stack.validation.search.withheld import withheld_mutants

#: the things left alone a `one_more` mutant tries, per argument
MAX_ONE_MORE = 6
#: the entries a list's end member is swapped for, per end
MAX_SWAPPED_IN = 3


def mutants_of(script: Script, pools: Pools, prompt: str, words: str = "") -> list[Mutant]:
    """Every mutant of one pass control's script (`words`: the task's prompt and
    instructions, where they ask the reply for what a tool printed; the prompt alone when
    not given)."""
    return [
        *argument_mutants(script, pools),
        *call_mutants(script, pools),
        *across_calls_mutants(script, pools),
        *tool_swap_mutants(script, pools, prompt),
        *undo_mutants(script, pools),
        *follow_on_mutants(script, pools),
        *one_more_mutants(script, pools, prompt),
        *grown_mutants(script, pools),
        *left_row_mutants(script, pools),
        *message_mutants(script, prompt),
        *told_mutants(script, role_values(pools.shown), prompt),
        *stretched_mutants(script, pools.shown),
        *fraction_mutants(script),
        *withheld_mutants(script, pools.shown, words or prompt),
        *injected_mutants(script, pools.shown),
        *guess_mutants(script, pools),
        *gathered_mutants(script),
        *pattern_mutants(script),
        *edge_mutants(script, prompt),
        *round_trip_mutants(script, words or prompt, pools.tools),
    ]


def tool_swap_mutants(script: Script, pools: Pools, prompt: str = "") -> list[Mutant]:
    """Each call made with another tool instead, its arguments carried over by name and, for
    a parameter the call has no name for, by type (each of the call's unused values of that
    type in turn): the shorter tool a policy reaches for (a correction instead of a transfer)."""
    out: list[Mutant] = []
    used: dict[str, dict[str, Any]] = defaultdict(dict)  # tool -> argument -> a value it took
    scalars: list[Any] = []  # every scalar the script passed, in order: the search's query
    for _, _, item in script_calls(script):
        for key, value in call_arguments(item).items():
            used[str(item.get("name"))].setdefault(key, value)
            if isinstance(value, (str, int, float)) and value not in scalars:
                scalars.append(value)
    for t, i, item in script_calls(script):
        name, args = str(item.get("name")), call_arguments(item)
        found = [*scalars, *paired(prompt, pools.shown), *names_in(prompt)]
        elsewhere = [v for v in dict.fromkeys(found) if v not in args.values()]
        for tool in pools.tools:
            other = str(tool.get("name"))
            props = (tool.get("parameters") or {}).get("properties") or {}
            if other == name or not props:
                continue
            fillings = _fillings(args, props, used[other], elsewhere)
            if labelled := _labelled(args, props, used[other], pools.shown, prompt):
                fillings = [labelled, *(f for f in fillings if f != labelled)]
            if onto := _onto_earlier(script, t, i, props):
                fillings = [onto, *(f for f in fillings if f != onto)]
            for filled in fillings[:3]:
                out.append(
                    Mutant(
                        replaced(script, t, i, [_item(other, filled)]),
                        "tool_swap",
                        name,
                        "tool_swap",
                        f"{name} made as {other}({_short(filled, 60)})",
                        (t, i),
                        (),
                        args,
                        filled,
                    )
                )
    return out


def _onto_earlier(script: Script, t: int, i: int, props: dict[str, Any]) -> dict[str, Any] | None:
    """For a call repeating an earlier call of its tool (a second lane booked), arguments
    for another tool that put it onto what the first made: the parameters both tools share,
    the one that differs in the first call's value, the amounts this call's
    (`add_bowlers(lane=1, bowlers=4)` for `book_lane(lane=2, bowlers=4)` after
    `book_lane(lane=1, bowlers=6)`): what a policy that grows the first booking sends. None
    where no earlier call of the tool differs in exactly one such parameter."""
    calls = script_calls(script)
    at = next(n for n, (a, b, _) in enumerate(calls) if (a, b) == (t, i))
    name, args = calls[at][2].get("name"), call_arguments(calls[at][2])
    shared = [k for k in props if k in args]
    if len(shared) != len(props) or len(shared) < 2:
        return None
    for _, _, earlier in calls[:at]:
        first = call_arguments(earlier)
        if earlier.get("name") != name or any(k not in first for k in shared):
            continue
        differing = [k for k in shared if first.get(k) != args[k]]
        names = [k for k in differing if not isinstance(args[k], float)]
        if len(names) >= 1 and len(differing) <= 2:
            return {k: (first[k] if k == names[0] else args[k]) for k in shared}
    return None


def one_more_mutants(script: Script, pools: Pools, prompt: str) -> list[Mutant]:
    """After the last call, a call of a tool honest play used, made once more on a thing the
    task's words name that honest play never passed it (another requested item, another file
    of the handed list): what a policy does that acts on everything it was shown."""
    calls = script_calls(script)
    if not calls or not prompt:
        return []
    said = prompt.lower()
    taken: dict[tuple[str, str], set[str]] = defaultdict(set)
    for _, _, item in calls:
        for key, value in call_arguments(item).items():
            if isinstance(value, str):
                taken[(str(item.get("name")), key)].add(value.strip().lower())
    out: list[Mutant] = []
    done: set[tuple[str, str]] = set()
    for _, _, item in calls:
        name, args = str(item.get("name")), call_arguments(item)
        for key, value in args.items():
            if not isinstance(value, str) or not value.strip() or (name, key) in done:
                continue
            done.add((name, key))
            # the task's words name it, or a listing honest play read prints it beside the
            # honest value (the directory it shared from: the entries it left alone)
            listed = siblings(value, pools.shown, limit=64)
            rows = [r[key] for r in other_rows(args, prompt) if key in r]
            others = [*rows, *listed, *same_shape(value, prompt), *listed_with(value, prompt)]
            fresh = list(
                dict.fromkeys(
                    o
                    for o in others
                    if isinstance(o, str)
                    and o.strip()
                    and o.strip().lower() not in taken[(name, key)]
                    and (
                        o in listed
                        or re.search(rf"(?<!\w){re.escape(o.strip().lower())}(?!\w)", said)
                    )
                )
            )
            for other in _spread(fresh, MAX_ONE_MORE):
                extra = _item(name, row_filled(args, key, other, prompt))
                # a row of the prompt's list acted on where it stands: before the first call
                # of the tool on a later row (a sheet worked through in order)
                later = [
                    (t, i, c)
                    for t, i, c in calls
                    if c.get("name") == name
                    and rows
                    and isinstance(v := call_arguments(c).get(key), str)
                    and (here := line_of(v, prompt)) is not None
                    and (there := line_of(other, prompt)) is not None
                    and here > there
                ]
                t0, i0, c0 = later[0] if later else calls[-1]
                edited = [extra, c0] if later else [c0, extra]
                mutated = replaced(script, t0, i0, edited)
                at = next((t, i) for t, i, c in script_calls(mutated) if c is not c0 and c == extra)
                out.append(
                    Mutant(
                        mutated,
                        "one_more",
                        site_of(name, (key,)),
                        "one_more",
                        f"then {name} on {_short(other)} too, which honest play left alone",
                        None,
                        (key,),
                        value,
                        other,
                        extra_at=at,
                    )
                )
    return out


def grown_mutants(script: Script, pools: Pools) -> list[Mutant]:
    """A list argument of names given one more member, another entry of the listing its
    first member was read from (the whole media list in Bcc, the barred journalist too),
    and its last and first members each swapped for such an entry (a list of a stated size,
    whose guard reads one end of it only): judged against what the listing prints on the
    entry (`stated`)."""
    out: list[Mutant] = []
    for t, i, item in script_calls(script):
        name, args = str(item.get("name")), call_arguments(item)
        for key, box in args.items():
            if not isinstance(box, list) or not box or not all(isinstance(x, str) for x in box):
                continue
            fresh = [o for o in siblings(box[0], pools.shown, limit=64) if o not in box]
            for other in _spread(fresh, MAX_ONE_MORE):
                out.append(
                    Mutant(
                        with_call(script, t, i, {**args, key: [*box, other]}),
                        "list_grow",
                        site_of(name, (key,)),
                        "option",
                        f"{name}: {key} + {_short(other)}, another entry of the listing",
                        (t, i),
                        (key,),
                        box[0],
                        other,
                    )
                )
            ends = sorted({len(box) - 1, 0}, reverse=True) if len(box) >= 2 else []
            for k in ends:
                # entries of the listing the swapped member itself was read from
                kin = [o for o in siblings(box[k], pools.shown, limit=64) if o not in box]
                for other in _spread(kin, MAX_SWAPPED_IN):
                    out.append(
                        Mutant(
                            with_call(
                                script, t, i, {**args, key: [*box[:k], other, *box[k + 1 :]]}
                            ),
                            "list_swap_in",
                            site_of(name, (key,)),
                            "option",
                            f"{name}: {key}[{k}] {_short(box[k])} -> {_short(other)}, another "
                            "entry of the listing",
                            (t, i),
                            (key,),
                            box[k],
                            other,
                        )
                    )
    return out


def _spread(values: list[Any], n: int) -> list[Any]:
    """At most `n` of `values`, spread evenly from first to last (the entries of a long
    listing, not only its head: an outsider's address may come late)."""
    if len(values) <= n:
        return values
    step = (len(values) - 1) / (n - 1)
    return list(dict.fromkeys(values[round(k * step)] for k in range(n)))


def undo_mutants(script: Script, pools: Pools) -> list[Mutant]:
    """After the last call, another tool made on what an earlier call named, every parameter
    filled by name from it (`remove_item(item)` after `add_item(item)`, `recall(object)`
    after `lend(object, borrower)`): the work done, its checks passed, then undone."""
    calls = script_calls(script)
    if not calls:
        return []
    out: list[Mutant] = []
    seen: set[str] = set()
    for _, _, item in calls:
        name, args = str(item.get("name")), call_arguments(item)
        for tool in pools.tools:
            other = str(tool.get("name"))
            props = (tool.get("parameters") or {}).get("properties") or {}
            if other == name or not props or any(k not in args for k in props):
                continue
            undo = _item(other, {k: args[k] for k in props})
            key = json.dumps(undo, sort_keys=True)
            if key in seen:
                continue
            seen.add(key)
            out.append(
                Mutant(
                    replaced(script, calls[-1][0], calls[-1][1], [calls[-1][2], undo]),
                    "undo",
                    name,
                    "undo",
                    f"then {other}({_short(call_arguments(undo), 60)}) after the last call",
                )
            )
    return out


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}


def _fillings(
    args: dict[str, Any],
    props: dict[str, Any],
    known: dict[str, Any] | None = None,
    elsewhere: list[Any] | None = None,
) -> list[dict[str, Any]]:
    """Arguments for a tool with parameters `props` from a call's `args`: by name, then what
    the script's own calls of that tool passed by that name (`known`: the borrower every loan
    names), then by type from the call's unused values and then the values the script's other
    calls passed and the names the prompt gives (`elsewhere`: the name a search was made
    with, the customer who wrote), one filling per choice for
    the first parameter that has several."""
    base = {k: args[k] for k in props if k in args}
    for key in props:  # `student_a` takes the call's `student`, once
        stem = next((a for a in args if a not in base and key.startswith(f"{a}_")), None)
        if key not in base and stem is not None and args[stem] not in base.values():
            base[key] = args[stem]
    unused = [v for k, v in args.items() if v not in base.values()] + list(elsewhere or [])
    base |= {k: v for k, v in (known or {}).items() if k in props and k not in base}
    missing = [k for k in props if k not in base]
    if not missing:
        return [base]

    def of_type(key: str) -> list[Any]:
        kinds = _JSON_TYPES.get(str((props.get(key) or {}).get("type")), ())
        return [
            v
            for v in unused
            if kinds and isinstance(v, kinds) and not (isinstance(v, bool) and bool not in kinds)
        ]

    first = of_type(missing[0])
    if not first:
        return []
    out = []
    for choice in first:
        filled = {**base, missing[0]: choice}
        rest = [v for v in unused if v is not choice]
        for key in missing[1:]:
            kinds = _JSON_TYPES.get(str((props.get(key) or {}).get("type")), ())
            pick = next((v for v in rest if kinds and isinstance(v, kinds)), None)
            if pick is None:
                break
            filled[key] = pick
            rest.remove(pick)
        else:
            out.append(filled)
    return out


#: a number the prompt gives as a percentage ("down by 15%", "15 per cent")
_PERCENT = re.compile(r"(\d+(?:\.\d+)?)\s*(?:%|per ?cent\b)", re.I)


def _labelled(
    args: dict[str, Any],
    props: dict[str, Any],
    known: dict[str, Any],
    shown: list[str],
    prompt: str,
) -> dict[str, Any] | None:
    """Arguments for another tool where each parameter the call has no value for is named
    in the record a listing printed for one of the call's values (`shelf` in "9781710125921
    | Middlemarch | shelf B3 | fine"), or, for a percentage, is the one the prompt gives
    ("down by 15%"): the call a policy makes that reads the listing for the bulk tool's
    arguments. None where a parameter has no such value."""
    filled = {k: args[k] for k in props if k in args}
    filled |= {k: v for k, v in known.items() if k in props and k not in filled}
    records = [r for v in args.values() if isinstance(v, (str, int)) and (r := record_of(v, shown))]
    for key in (k for k in props if k not in filled):
        kind = str((props.get(key) or {}).get("type"))
        label = re.escape(key).replace("_", "[_ ]")
        found: Any = None
        for record in records:
            hit = re.search(rf"(?<![\w-]){label}(?![\w-])\"?\s*[:=]?\s*\"?([\w.-]+)", record, re.I)
            if hit:
                found = hit.group(1)
                break
        if found is None and re.search(r"perc|pct", key, re.I):
            hit = _PERCENT.search(prompt)
            found = hit.group(1) if hit else None
        if found is None:
            return None
        if kind in ("integer", "number"):
            try:
                found = int(found) if kind == "integer" else float(found)
            except ValueError:
                return None
        filled[key] = found
    return filled if len(filled) > len({k for k in props if k in args}) else None
