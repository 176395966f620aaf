"""The rest kept as it was: "every other cue is correct and must stay as it is", "never
change another member's booking".

Where the task's words keep everything but the asked things as it was, a mutant that pays
while changing a record honest play left as it was before any action, a record that names
nothing honest play acted on (another cue, another member's booking), shows a verifier that
never looks at the rest (compared by size, or not compared at all).
"""

from __future__ import annotations

import re
from collections import Counter

from proofgym_stack.validation.scripts import call_arguments, script_calls
from proofgym_stack.validation.search.rules import sentences
from proofgym_stack.validation.search.tolerance import Played
from proofgym_stack.validation.search.world import World, differences, records

_AS_IT_WAS = r"(?:as (?:it|they) (?:is|are|was|were|stands?)|unchanged|untouched|alone|intact)"
_KEEP = re.compile(
    r"\b(?:leave|keep)\b[^.;\n]{0,60}\b(?:other|rest|remaining)\b[^.;\n]{0,60}\b"
    + _AS_IT_WAS
    + r"|\b(?:other|rest|remaining)\b[^.;\n]{0,60}\b(?:must|should|is to|are to)\s+(?:stay|"
    r"remain|be left)\b[^.;\n]{0,30}(?:\b" + _AS_IT_WAS + r"|\bthe same\b)"
    r"|\b(?:never|do not|don't|must not|may not)\s+(?:change|modify|touch|move|alter|edit|"
    r"cancel|delete|remove|overwrite|bump|reassign|replace)\b"
    r"[^.;\n]{0,12}\b(?:any|another|other)\b",
    re.I,
)


#: a keep that holds only on a condition
_CONDITIONAL = re.compile(r"\b(?:unless|except|if|unsure|not sure)\b", re.I)


def keep_clause(words: str) -> str | None:
    """The words' clause that keeps the rest as it was, or None."""
    m = _KEEP.search(words)
    if m is None:
        return None
    start = max(words.rfind(".", 0, m.start()), words.rfind("\n", 0, m.start())) + 1
    end = min((i for i in (words.find(".", m.end()), words.find("\n", m.end())) if i >= 0),
              default=len(words))  # fmt: skip
    clause = words[start:end].strip()
    # "do not remove any items unless ...": a keep on a condition keeps nothing whole
    return None if _CONDITIONAL.search(clause) else clause


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
    worked out (a new time), nor a moment (the session it booked, which others share)."""
    held = {_bare(v) for v in p.base.initial.values()} | {
        part for path in p.base.initial for part in re.split(r"[.\[\]]", path) if part
    }
    out = set()
    for _, _, item in script_calls(p.honest.control.script):
        for value in call_arguments(item).values():
            if isinstance(value, bool) or not isinstance(value, (str, int)):
                continue
            text = str(value).strip()
            if text and not _WHEN.search(text) and (text in held or _named(words, text)):
                out.add(text)
    return out


#: a moment (a clock time, a date): when honest play acted, which other records share, not
#: what it acted on
_WHEN = re.compile(
    r"^(?:[A-Za-z]{3,9}\s+)?\d{1,2}:\d{2}(?::\d{2})?$|^\d{4}-\d{2}-\d{2}(?:[ T]\d{1,2}:\d{2})?$"
)


_INDEX = re.compile(r"\[\d+\]")
#: the thing a keep clause protects: the words after "other" or "another"
_KEPT_NOUN = re.compile(
    r"\b(?:other|another|rest of the|remaining)\s+([a-z][\w'-]*(?:\s+[a-z][\w'-]*)?)", re.I
)


def _kept_kinds(clause: str) -> set[str]:
    """The stems of the nouns the clause keeps ("every other cue" -> cue; "another member's
    booking" -> memb, book); empty where it names none (then any record counts)."""
    out = set()
    for m in _KEPT_NOUN.finditer(clause):
        for word in m.group(1).split():
            stem = _stem(word)
            if len(stem) >= 3 and stem not in {"the", "and", "one", "thin", "item"}:
                out.add(stem)
    return out


def _stem(word: str) -> str:
    """A noun's first four letters, its plural and possessive `s` dropped."""
    return re.sub(r"'s$|s$", "", word.lower().lstrip("_"))[:4]


def _of_kind(key: str, kinds: set[str]) -> bool:
    return _stem(key) in kinds


def _keys(path: str) -> list[str]:
    """A world path's keys, a list's positions left out (no names)."""
    return [k for k in re.split(r"\.", _INDEX.sub("", path)) if k]


def _list_of(path: str) -> str:
    """The list a member's path lies in, as `records` names it (`.cues[0].start` -> `.cues[]`)."""
    return path[: _INDEX.search(path).start()] + "[]"  # type: ignore[union-attr]


def _members_moved(world: World, honest: World, initial: World, ignored: set[str]) -> set[str]:
    """The lists in which a member honest play left as it was before any action (read
    whole, as a multiset) is gone from the mutant's world."""
    now, kept, before = records(world, ignored), records(honest, ignored), records(initial, ignored)
    out = set()
    for name, members in kept.items():
        there = Counter(now.get(name, []))
        for member in members:
            if member in before.get(name, []) and there[member] == 0:
                out.add(name)
            there[member] -= 1
    return out


def _named(text: str, name: str) -> bool:
    """Whether `text` holds `name` as written, as a whole word or id."""
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) is not None


def _listed_with(words: str, key: str, acted: set[str]) -> bool:
    """Whether a sentence or line of the words names `key` beside a thing honest play acted
    on ("docks KX-1, KX-2, KX-3": one of the asked things, not the rest)."""
    return any(
        _named(part, key) and any(_named(part, a) for a in acted) for part in sentences(words)
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
    kinds = _kept_kinds(clause)
    moved = _members_moved(world, honest, initial, ignored)
    for path in sorted(differences(world, honest) - ignored):
        if path not in initial or honest.get(path) != initial[path]:
            continue  # new, or honest play's own work
        if _INDEX.search(path) and _list_of(path) not in moved:
            continue  # a list's members only shifted along (another member inserted before)
        if kinds and not any(_of_kind(key, kinds) for key in _keys(path)):
            continue  # not the kind of thing the words keep (a driver's status, not an order)
        if _bare(initial[path]) in _EMPTY:
            continue  # nothing was there (a free slot filled): no other thing's record changed
        record = _record(path)
        inside = [k for k in world if k == record or k.startswith((record + ".", record + "["))]
        # the record's keys (not a list's positions, which are no names), its values now
        # and the value it held
        names = {_bare(world[k]) for k in inside} | set(_keys(path))
        names.add(_bare(initial[path]))
        if names & acted:
            continue  # the record of a thing honest play acted on (its own booking)
        keys = _keys(path)
        own = [k for k in keys[1:] if not _of_kind(k, kinds)] if not record.endswith("]") else []
        if any(_listed_with(words, k, acted) for k in own[:1]):
            continue  # one of the asked things (a dock of the station the van was sent to)
        return (
            f"the task's words keep the rest as it was ({clause!r}); this changed {path}, "
            "which honest play left as it was"
        )
    return None
