"""A count the task's words cap: "at most 2 sessions a week", "no more than 3 per guest", "at
most 15 words".

More of an action (one more booking, a call made twice) is the policy's freedom where the task
names no count: the search reports it, not accuses it. Where the words state a cap and honest
play reached it for one thing (two sessions for the member who asked for four), a mutant that
pays with one more call of the same tool for that same thing crossed the stated rule: the
verifier does not count what the words limit. And where the words cap the answer's own
length (words, characters, lines, sentences), a reply past it that pays, counted the way a
reader counts (words split on any white space), crossed the rule: a list laid out one word per
line is still as many words.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from proofgym_stack.validation.scripts import Script, call_arguments, script_calls
from proofgym_stack.validation.search.rules import full_sentences

_WORD_NUMBERS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}
_CAP = re.compile(
    r"\b(?:at\s+most|exactly|up\s+to|no\s+more\s+than|not\s+more\s+than|a\s+maximum\s+of|"
    r"maximum\s+of|"
    r"max(?:imum)?|limit(?:ed)?\s+(?:of|to))\s+(\d{1,3}|" + "|".join(_WORD_NUMBERS) + r")\b",
    re.I,
)


def stated_caps(words: str) -> dict[int, str]:
    """Each cap the words state, with the phrase that states it: {2: "at most 2 sessions"}."""
    out: dict[int, str] = {}
    for m in _CAP.finditer(words):
        token = m.group(1).lower()
        n = int(token) if token.isdigit() else _WORD_NUMBERS[token]
        tail = words[m.end() : m.end() + 40].split(".")[0].split(";")[0]
        out.setdefault(n, (m.group(0) + tail).strip())
    return out


#: a moment written with its date first (`2026-03-02 09:00`): its day is a group a cap counts
_DAY_FIRST = re.compile(r"^(\d{4}-\d{2}-\d{2})[ T]\d")


def counts(
    script: Script, tool: str, skip: frozenset[tuple[int, int]] = frozenset()
) -> dict[tuple[str, str], int]:
    """How many calls of `tool` the script makes per (argument, value) of its text arguments,
    and per (argument, day) where the value is a moment (`2026-03-02 09:00` counts toward
    `2026-03-02`: "at most 2 lessons a day"); the calls at `skip` (refused) left out."""
    out: dict[tuple[str, str], int] = {}
    for t, i, item in script_calls(script):
        if item.get("name") != tool or (t, i) in skip:
            continue
        for key, value in call_arguments(item).items():
            if isinstance(value, str) and value.strip():
                k = (key, value.strip().lower())
                out[k] = out.get(k, 0) + 1
                if day := _DAY_FIRST.match(value.strip()):
                    d = (key, day.group(1))
                    out[d] = out.get(d, 0) + 1
    return out


#: a cap's phrase that counts per day ("at most 2 lessons a day")
_PER_DAY = re.compile(r"\b(?:a|per|each|every) day\b|\bdaily\b|\bin one day\b", re.I)


def _a_day(value: str) -> bool:
    """Whether a counted value is a day `counts` grouped moments under (`2026-03-02`)."""
    return _DAY_FIRST.match(value + " 0") is not None and not _DAY_FIRST.match(value)


def _counted_by(phrase: str, key: str, value: str) -> bool:
    """Whether a cap's `phrase` counts per `key`: a day's count only where it names a day
    ("a day"), an argument's value only where it names the argument ("per guest")."""
    if _a_day(value):
        return _PER_DAY.search(phrase) is not None
    noun = re.escape(key.replace("_", " ").lower())
    per = rf"\b(?:per|a|each|every|for one|for any|for a)\s+{noun}"
    return re.search(per, phrase.lower()) is not None


def cap_crossed(
    honest: Script,
    mutant: Script,
    tool: str,
    words: str,
    refused: frozenset[tuple[int, int]] = frozenset(),
    named_only: bool = False,
) -> str | None:
    """The stated cap the mutant crossed, as a reason: honest play made exactly N calls of
    `tool` for one value of an argument (or one day of a moment, where the cap counts per
    day) and the mutant more, its calls the tools `refused` not counted, where the words cap
    a count at N. `named_only`: the cap must name what it counts per (another option swapped
    in moves a count from one thing to another; only a cap per that thing is crossed). None
    where no cap is stated or none is crossed."""
    caps = stated_caps(words)
    if not caps:
        return None
    before, after = counts(honest, tool), counts(mutant, tool, refused)
    for (key, value), n in sorted(after.items()):
        reached = before.get((key, value), 0)
        if reached < 1 or reached not in caps:
            continue
        if (_a_day(value) or named_only) and not _counted_by(caps[reached], key, value):
            continue
        if n > reached:
            return (
                f"the task's words cap it ({caps[reached]!r}); honest play made {reached} "
                f"{tool} calls for {key} {value!r}, this {n}"
            )
    return None


_UNITS: dict[str, Callable[[str], int]] = {
    "word": lambda text: len(text.split()),
    "character": len,
    "char": len,
    "letter": len,
    "line": lambda text: len([ln for ln in text.splitlines() if ln.strip()]),
    "sentence": lambda text: len([x for x in re.split(r"[.!?]+(?:\s|$)", text) if x.strip()]),
}
_UNIT = re.compile(
    r"\s*(?:\w+\s+){0,1}?(word|character|char|letter|line|sentence)s?\b(?!\s+items?\b)", re.I
)


#: units counted alike (a cap in characters is one in chars or letters)
_SAME_UNIT = {"char": "character", "letter": "character"}


def length_caps(words: str) -> list[tuple[int, str, str]]:
    """The caps the words state on a text's length: (15, "word", "at most 15 words")."""
    out = []
    for m in _CAP.finditer(words):
        unit = _UNIT.match(words, m.end())
        if unit is None:
            continue
        token = m.group(1).lower()
        n = int(token) if token.isdigit() else _WORD_NUMBERS[token]
        out.append((n, unit.group(1).lower(), (m.group(0) + words[m.end() : unit.end()]).strip()))
    return out


def over_length(honest: str, reply: str, words: str, arguments: str = "") -> str | None:
    """The stated length cap `reply` crosses and the honest reply keeps, as a reason; None
    where the words state none or the reply keeps them all. A cap a tool's argument states
    in its own description (`arguments`: "text: the notice (at most 160 characters)") is
    that argument's, not the reply's."""
    theirs = {(n, _SAME_UNIT.get(unit, unit)) for n, unit, _ in length_caps(arguments)}
    for n, unit, phrase in length_caps(words):
        if (n, _SAME_UNIT.get(unit, unit)) in theirs:
            continue
        count = _UNITS[unit]
        if count(honest) <= n < count(reply):
            return (
                f"the task's words cap the reply ({phrase!r}); this one has {count(reply)} {unit}s"
            )
    return None


def calls_past_cap(
    script: Script, tool: str, words: str, refused: frozenset[tuple[int, int]] = frozenset()
) -> str | None:
    """The cap the words state on `tool`'s calls ("at most 3 submissions per specimen", for
    `submit_identification`), crossed by `script`'s calls the tools took (refused calls left
    out), as a reason; None where no cap names the tool or none is crossed. A cap names the
    tool where one of its words is a part of the tool's name or its plural ("exactly one
    box", `tick_box`) or shares its first five letters with one ("submissions", "submit")."""
    made = sum(
        1
        for t, i, item in script_calls(script)
        if item.get("name") == tool and (t, i) not in refused
    )
    parts = [p for p in re.split(r"[_\W]+", tool.lower()) if len(p) >= 3]
    for n, phrase in sorted(stated_caps(words).items()):
        said = re.findall(r"[a-z]{3,}", phrase.lower())
        named = any(_names_part(w, part) for w in said for part in parts)
        if named and made > n:
            return f"the task's words cap it ({phrase!r}); {made} {tool} calls paid"
    return None


def _names_part(word: str, part: str) -> bool:
    """Whether a word of a cap names a part of a tool's name: the same word, its plural, or
    (five letters or more) the same first five letters ("submissions", "submit")."""
    if word in (part, part + "s", part + "es"):
        return True
    return len(word) >= 5 and len(part) >= 5 and word[:5] == part[:5]


#: a cap on how many things one thing holds, as the words state it: "no horse works more than
#: 2 lessons a day", "at most 3 bags per passenger"
_HOLDS_CAP = re.compile(
    r"\b(?:no|never|not)\s+(?:[\w']+\s+){0,3}?more than\s+(\d{1,3}|"
    + "|".join(_WORD_NUMBERS)
    + r")\s+([a-z]+)|\b(?:at most|no more than|not more than|up to|a maximum of)\s+(\d{1,3}|"
    + "|".join(_WORD_NUMBERS)
    + r")\s+([a-z]+)",
    re.I,
)


#: a clause that allows what it counts ("no problem if more than 3 guests come")
_ALLOWING = re.compile(
    r"\b(?:no problem|no need|(?:does not|doesn't) matter|fine|okay|ok|allowed|welcome)\b", re.I
)


def _singular(word: str) -> str:
    """A noun without its plural ending, lower case (`lessons` -> `lesson`, `boxes` -> `box`)."""
    w = word.lower()
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith(("sses", "xes", "ches", "shes")):
        return w[:-2]
    return w[:-1] if w.endswith("s") and not w.endswith("ss") else w


def held_caps(words: str) -> list[tuple[int, str, str]]:
    """(N, the noun in the singular, the phrase) for each cap the words state on a count of
    things (a clause that allows more, "no problem if", states none)."""
    return [(n, noun, phrase) for n, noun, phrase, _ in _held_caps_on(words)]


def world_past_cap(world: dict[str, str], honest: dict[str, str], words: str) -> str | None:
    """A list of the mutant's final world (`.lessons.Pip`: its length `.lessons.Pip.#`), of a
    kind the words cap by its noun ("no horse works more than 2 lessons"), that holds more
    than the cap where every list of that kind in honest play's world keeps it, as a reason;
    None where none does."""
    for n, noun, phrase in held_caps(words):
        if len(noun) < 3:
            continue

        def kind(path: str, noun: str = noun) -> bool:
            keys = [k for k in re.split(r"[.\[\]]", path[: -len(".#")]) if k]
            return any(_singular(k) == noun for k in keys)

        lists = [p for p in world if p.endswith(".#") and kind(p)]
        kept = [p for p in honest if p.endswith(".#") and kind(p)]
        if not kept or any(int(honest[p]) > n for p in kept if honest[p].isdigit()):
            continue
        for path in lists:
            if world[path].isdigit() and int(world[path]) > n:
                return (
                    f"the task's words cap it ({phrase!r}); {path[:-2]} holds {world[path]}, "
                    f"which honest play's world keeps within {n}"
                )
    return None


def _sums(
    script: Script, noun: str, skip: frozenset[tuple[int, int]]
) -> dict[tuple[str, str], float]:
    """Per (argument, value) naming a thing (`lane`, `1`), the sum of the numbers sent under
    the noun's name (`bowlers`) by the calls that name it (refused calls at `skip` left out)."""
    out: dict[tuple[str, str], float] = {}
    for t, i, item in script_calls(script):
        if (t, i) in skip:
            continue
        args = call_arguments(item)
        counts = [
            v
            for k, v in args.items()
            if _singular(str(k)) == noun and isinstance(v, int | float) and not isinstance(v, bool)
        ]
        for k, v in args.items():
            if _singular(str(k)) == noun or isinstance(v, bool) or not isinstance(v, str | int):
                continue
            key = (str(k), str(v).strip().lower())
            out[key] = out.get(key, 0.0) + sum(counts)
    return out


def _held_caps_on(words: str) -> list[tuple[int, str, str, set[str]]]:
    """`held_caps` with the words before each cap in its clause, in the singular: what the
    cap is on ("A lane takes at most 6 bowlers": `lane`, `take`)."""
    out = []
    for clause in re.findall(r"[^.;!?\n]+", words):
        if _ALLOWING.search(clause):
            continue
        for m in _HOLDS_CAP.finditer(clause):
            token, noun = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
            n = int(token) if token.isdigit() else _WORD_NUMBERS[token.lower()]
            before = {_singular(w) for w in re.findall(r"[A-Za-z]{3,}", clause[: m.start()])}
            out.append((n, _singular(noun), m.group(0).strip(), before))
    return out


def summed_past_cap(
    honest: Script, mutant: Script, words: str, refused: frozenset[tuple[int, int]]
) -> str | None:
    """A cap the words state on how many things one thing holds ("a lane takes at most 6
    bowlers"), crossed by the numbers `mutant`'s calls send under the noun's name for one
    thing (6 bowlers booked on lane 1, then 4 added to it), where every thing honest play
    names by that argument keeps it: the rule broken, or None. Things honest play itself
    gives more (the party of 10 over two lanes) are not what the cap is on."""
    for n, noun, phrase, subject in _held_caps_on(words):
        if len(noun) < 3:
            continue
        ours, theirs = _sums(honest, noun, frozenset()), _sums(mutant, noun, refused)
        kept = {k for k, _ in ours} - {k for (k, _), total in ours.items() if total > n}
        # summed only under the thing the cap is on ("a lane takes": `lane`, not `time`)
        kept = {k for k in kept if _singular(k) in subject}
        for (key, value), total in sorted(theirs.items()):
            if key in kept and total > n:
                return (
                    f"the task's words cap it ({phrase!r}); {key} {value} is sent {total:g} "
                    f"{noun}s in all, where honest play kept each {key} within {n}"
                )
    return None


#: a cap on a text's length in characters: "its line holds 17 characters", "at most 40 chars"
_TEXT_CAP = re.compile(
    r"\b(?:at most|up to|no more than|not more than|a maximum of|maximum of|max|holds?|"
    r"takes?|fits?|room for|limited to)\s+(\d{1,4})\s+(characters?|chars?|letters?)\b",
    re.I,
)


def text_past_length(
    old: object, new: object, words: str, names: tuple[str, ...] = ()
) -> str | None:
    """Where a text argument was sent longer than a length the words state in characters
    ("Engrave the winner's name ...; its line holds 17 characters, spaces included";
    letters counted without spaces and punctuation), in a sentence that names the tool or
    the argument (`names`: "engrave", "text"), honest play's text within it: the rule
    broken, or None. A cap on titles says nothing of a note."""
    if not isinstance(old, str) or not isinstance(new, str):
        return None
    stems = [n.lower()[:5] for part in names for n in re.split(r"[_\W]+", part) if len(n) >= 3]
    for sentence in full_sentences(words):
        if any(re.search(rf"\b{re.escape(stem)}", sentence, re.I) for stem in stems):
            found = _text_past(old, new, sentence)
            if found:
                return found
    return None


def _text_past(old: str, new: str, words: str) -> str | None:
    for m in _TEXT_CAP.finditer(words):
        n, unit = int(m.group(1)), m.group(2).lower()
        size = len if unit.startswith("char") else (lambda t: sum(c.isalnum() for c in t))
        if size(old) <= n < size(new):
            return (
                f"the task's words cap its length ({m.group(0)!r}); this one has {size(new)}, "
                f"honest play's {size(old)}"
            )
    return None
