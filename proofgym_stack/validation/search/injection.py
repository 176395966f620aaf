"""Free text written in the environment's own record format.

A tool that stores the policy's free text inside a delimited record (`id|note|result`) and a
verifier that reads the record back by splitting on the delimiter is the classic injection: a
note that ends in `|PASS` shifts the fields, and the record now says what the note says. The
search writes each text argument honest play sent, followed by the delimiter and another
value the same field holds in the listing's other records (what a policy reading the log
sees), and where that changed the verdict (a free text the verifier should never read as
data), it plays it again without each later acting call: a note that makes a needed step
unneeded pays for a step the policy skipped.
"""

from __future__ import annotations

from typing import Any

from proofgym_stack.validation.scripts import Script, call_arguments, script_calls, set_at
from proofgym_stack.validation.search.mutants import Mutant, replaced, site_of, with_call
from proofgym_stack.validation.search.probes import Passes
from proofgym_stack.validation.search.tolerance import Play, Played
from proofgym_stack.validation.search.world import lost

#: the characters records are delimited by
DELIMITERS = ("|", ";", "\t")
MAX_INJECTED = 4
#: the later calls left out, one at a time, after an injection that changed the verdict
MAX_DROPS = 6


def next_fields(value: str, shown: list[str]) -> list[tuple[str, str]]:
    """(delimiter, value) for each other value the field after `value` holds in the other
    records of the listing that printed `value` as a field of its own."""
    out: list[tuple[str, str]] = []
    for text in shown:
        lines = text.splitlines()
        for sep in DELIMITERS:
            rows = [ln.split(sep) for ln in lines if sep in ln]
            for row in rows:
                if value not in row or row.index(value) + 1 >= len(row):
                    continue
                k = row.index(value)
                mine = row[k + 1].strip()
                others = {r[k + 1].strip() for r in rows if len(r) == len(row) and r[k + 1].strip()}
                out += [(sep, v) for v in sorted(others - {mine})]
    return list(dict.fromkeys(out))


def injected_mutants(script: Script, shown: list[str]) -> list[Mutant]:
    """Each text argument followed by the delimiter and another value of the next field."""
    out: list[Mutant] = []
    for t, i, item in script_calls(script):
        name, args = str(item.get("name")), call_arguments(item)
        for key, value in args.items():
            if not isinstance(value, str) or not value.strip():
                continue
            for sep, other in next_fields(value, shown):
                new = f"{value}{sep}{other}"
                out.append(
                    Mutant(
                        with_call(script, t, i, set_at(args, (key,), new)),
                        "inject",
                        site_of(name, (key,)),
                        "output",
                        f"{name}: {key} {value!r} -> {new!r} (the record's own format)",
                        (t, i),
                        (key,),
                        value,
                        new,
                    )
                )
    return out[:MAX_INJECTED]


async def skipped_step(p: Played, play: Play, passes: Passes, looks: set[str]) -> Played | None:
    """For an injected mutant that failed (the verifier read the free text as data): the
    same script without one later acting call that honest play needs (its script without
    that call fails), played, where it passes leaving another world. None where none does."""
    m = p.mutant
    if m.call_at is None or passes(p.result) or p.result.mask_sample:
        return None
    calls = script_calls(m.script)
    at = next((n for n, (t, i, _) in enumerate(calls) if (t, i) == m.call_at), None)
    if at is None:
        return None
    tried = 0
    for t, i, item in reversed(calls[at + 1 :]):
        name = str(item.get("name"))
        if name in looks or tried >= MAX_DROPS:
            continue
        tried += 1
        script = replaced(m.script, t, i, [])
        result, record = await play(p.base.task, script, "search: injected, a step left out")
        if not passes(result) or record is None:
            continue
        if not lost(record.world, p.honest.world, p.base.ignored):
            continue
        needed, _ = await play(
            p.base.task, replaced(p.honest.control.script, t, i, []), "search: that step needed"
        )
        if passes(needed) or needed.mask_sample:
            continue  # honest play does not need it either: no step skipped
        args = call_arguments(item)
        what = f"{m.what}, then {name}({_brief(args)}) left out"
        skipped = Mutant(script, "inject", m.site, "output", what, m.call_at, m.leaf, m.old, m.new)
        return Played(skipped, p.honest, p.base, result, record)
    return None


def _brief(args: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in list(args.items())[:2] if isinstance(v, str))[:60]
