"""The rest kept as it was: "every other cue is correct and must stay as it is", "never
change another member's booking".

Where the task's words keep everything but the asked things as it was, a mutant that pays
while changing a record honest play left as it was before any action, a record that names
nothing honest play acted on (another cue, another member's booking), shows a verifier that
never looks at the rest (compared by size, or not compared at all).
"""

from __future__ import annotations

import re

from proofgym_stack.validation.scripts import call_arguments, script_calls
from proofgym_stack.validation.search.tolerance import Played
from proofgym_stack.validation.search.world import differences

_AS_IT_WAS = r"(?:as (?:it|they) (?:is|are|was|were|stands?)|unchanged|untouched|alone|intact)"
_KEEP = re.compile(
    r"\b(?:leave|keep)\b[^.;\n]{0,60}\b(?:other|rest|remaining)\b[^.;\n]{0,60}\b"
    + _AS_IT_WAS
    + r"|\b(?:other|rest|remaining)\b[^.;\n]{0,60}\b(?:must|should|is to|are to)\s+(?:stay|"
    r"remain|be left)\b[^.;\n]{0,30}(?:\b" + _AS_IT_WAS + r"|\bthe same\b)"
    r"|\b(?:never|do not|don't|must not|may not)\s+(?:change|modify|touch|move|alter|edit)\b"
    r"[^.;\n]{0,12}\b(?:any|another|other)\b",
    re.I,
)


def keep_clause(words: str) -> str | None:
    """The words' clause that keeps the rest as it was, or None."""
    m = _KEEP.search(words)
    if m is None:
        return None
    start = max(words.rfind(".", 0, m.start()), words.rfind("\n", 0, m.start())) + 1
    end = min((i for i in (words.find(".", m.end()), words.find("\n", m.end())) if i >= 0),
              default=len(words))  # fmt: skip
    return words[start:end].strip()


#: a world value that holds nothing
_EMPTY = frozenset({"None", "", "[]", "{}", "()", "set()"})


def _bare(value: str) -> str:
    """A world value without the quotes its fingerprint writes a string with."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def _record(path: str) -> str:
    """The record a changed world path belongs to: a list's length (`.x.#`) is the list's;
    a field inside a list's member (`.cues[0].start`) is that member's; any other path is a
    record of its own (`.slots.S1`)."""
    if path.endswith(".#"):
        return path[:-2]
    cut = path.rfind("]")
    return path[: cut + 1] if cut > 0 else path


def _identities(p: Played, words: str) -> set[str]:
    """What honest play acted on, by name: its calls' argument values that the words state or
    the world held before any action (a member, a class id, a cue number), not values it
    worked out (a new time)."""
    held = {_bare(v) for v in p.base.initial.values()} | {
        part for path in p.base.initial for part in re.split(r"[.\[\]]", path) if part
    }
    out = set()
    for _, _, item in script_calls(p.honest.control.script):
        for value in call_arguments(item).values():
            if isinstance(value, bool) or not isinstance(value, (str, int)):
                continue
            text = str(value).strip()
            named = re.search(rf"(?<![\w-]){re.escape(text)}(?![\w-])", words)
            if text and (text in held or named):
                out.add(text)
    return out


def _named(text: str, name: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) is not None


def _listed_with(words: str, key: str, acted: set[str]) -> bool:
    """Whether a sentence or line of the words names `key` beside a thing honest play acted
    on ("docks KX-1, KX-2, KX-3": one of the asked things, not the rest)."""
    return any(
        _named(part, key) and any(_named(part, a) for a in acted)
        for part in re.split(r"\n|(?<=[.;!?])\s+", words)
    )


def rest_changed(p: Played, words: str, ignored: set[str]) -> str | None:
    """Where the words keep the rest as it was: the record honest play left as it was that
    the mutant changed, one naming nothing honest play acted on, as a reason; else None."""
    if p.record is None or not p.base.initial:
        return None
    clause = keep_clause(words)
    if clause is None:
        return None
    world, honest, initial = p.record.world, p.honest.world, p.base.initial
    acted = _identities(p, words)
    for path in sorted(differences(world, honest) - ignored):
        if path not in initial or honest.get(path) != initial[path]:
            continue  # new, or honest play's own work
        if _bare(initial[path]) in _EMPTY:
            continue  # nothing was there (a free slot filled): no other thing's record changed
        record = _record(path)
        inside = [k for k in world if k == record or k.startswith((record + ".", record + "["))]
        # the record's keys (not a list's positions, which are no names), its values now
        # and the value it held
        keys = re.split(r"\.", re.sub(r"\[\d+\]", "", path))
        names = {_bare(world[k]) for k in inside} | {k for k in keys if k}
        names.add(_bare(initial[path]))
        if names & acted:
            continue  # the record of a thing honest play acted on (its own booking)
        own = record.rsplit(".", 1)[-1] if not record.endswith("]") else ""
        if own and _listed_with(words, own, acted):
            continue  # one of the asked things (a dock of the station the van was sent to)
        return (
            f"the task's words keep the rest as it was ({clause!r}); this changed {path}, "
            "which honest play left as it was"
        )
    return None
