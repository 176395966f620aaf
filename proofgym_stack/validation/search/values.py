"""The values a policy could put in an argument: what the episode showed it, and the edges.

Pools for one task: the words and numbers the tools printed in the episode, the prompt's, the
schemas' (enum values, property names), and, per argument, the same argument's values across
the sampled tasks (their common prefix: what one string shared by every truth would match,
and the values themselves: another task's truth, well formed, in this task's place).
`candidates` draws from them for one leaf of one argument, with the boundary values of its
type and shortenings of a string; first, the other options of the listing that printed the
honest value (`options.siblings`).
"""

from __future__ import annotations

import datetime
import itertools
import re
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Any

from proofgym_stack.validation.search.calendar import ISO_MOMENT, MONTHS, sequence_options
from proofgym_stack.validation.search.options import (
    MAX_SIBLINGS,
    names_in,
    siblings,
    singled_out,
)

_TOKEN = re.compile(r"[A-Za-z0-9_@.+:/-]{2,40}")
NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w])")

HUGE_INT = 10**12
HUGE_TEXT = "A" * 10_000
#: strings a policy tries where a pattern or a wildcard might be read
WILDCARDS = ("*", "%", ".*", "?")

Candidate = tuple[str, Any]  # (where it came from, the value)


@dataclass
class Pools:
    """What the policy could have seen: tokens and numbers by source, and schema words."""

    outputs: list[str] = field(default_factory=list)
    output_numbers: list[float] = field(default_factory=list)
    prompt: list[str] = field(default_factory=list)
    prompt_numbers: list[float] = field(default_factory=list)
    enums: list[Any] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    #: argument key -> the values its schema description names in quotes ("one of `a`, `b`")
    described: dict[str, list[str]] = field(default_factory=dict)
    #: argument key -> that argument's string values across the sampled tasks' pass controls
    across_tasks: dict[str, list[str]] = field(default_factory=dict)
    #: argument key -> that argument's string values in this task's reference, in order
    within_task: dict[str, list[str]] = field(default_factory=dict)
    #: the prompt as written (the passages a text argument was copied from)
    prompt_text: str = ""
    #: the task's tool schemas (name, parameters), for calls swapped to another tool
    tools: list[dict[str, Any]] = field(default_factory=list)
    #: what honest play's tools printed, whole, and what the observing tools print beside it:
    #: the listings other options are read from
    shown: list[str] = field(default_factory=list)
    #: (tool name, output) for each of those: where each listing came from
    printed: list[tuple[str, str]] = field(default_factory=list)
    #: what the looks print before any action (the free day honest play took still listed):
    #: options to choose from, not what honest play's world printed
    before: list[str] = field(default_factory=list)
    #: tool name -> its description (what the author says the tool is, and any rule on it)
    tool_words: dict[str, str] = field(default_factory=dict)


_QUOTED = re.compile(r"[\"'`]([^\"'`\s][^\"'`]{0,38})[\"'`]")


def quoted(text: str, limit: int = 12) -> list[str]:
    """Distinct values `text` names in quotes or backticks: the allowed values a description
    lists where its schema has no `enum` ("one of `active`, `frozen`")."""
    return list(dict.fromkeys(_QUOTED.findall(text)))[:limit]


def tokens(text: str, limit: int = 40) -> list[str]:
    """Distinct word-like tokens of `text`, in order of first appearance."""
    return list(dict.fromkeys(_TOKEN.findall(text)))[:limit]


def numbers(text: str, limit: int = 20) -> list[float]:
    """Distinct numbers written in `text`."""
    return list(dict.fromkeys(float(m) for m in NUMBER.findall(text)))[:limit]


def same_shape(value: str, text: str, limit: int = 3) -> list[str]:
    """Other values in `text` written as `value` is, digit for digit and letter for letter
    with the same separators (`4:46` for `4:30`, `B-17` for `A-20`), for a value that holds
    a digit and a separator; at most `limit`, in order of appearance."""
    if not re.search(r"\d", value) or not re.search(r"[^\w\s]", value) or len(value) > 24:
        return []
    shape = "".join(
        r"\d" if c.isdigit() else "[A-Za-z]" if c.isalpha() else re.escape(c) for c in value
    )
    found = re.findall(rf"(?<![\w:./-]){shape}(?![\w:/-]|\.\d)", text)
    return [v for v in dict.fromkeys(found) if v != value][:limit]


def whole_passage(value: str, prompt: str) -> list[str]:
    """Where a text argument is copied from part of a line of the prompt (the seller's
    description, the phone number after it left out): that line from the value on, and the
    whole line: what a policy copying the draft as it is sends."""
    if len(value.strip()) < 8 or value not in prompt:
        return []
    at = prompt.index(value)
    start = prompt.rfind("\n", 0, at) + 1
    end = prompt.find("\n", at)
    end = len(prompt) if end < 0 else end
    out = [prompt[at:end].strip(), prompt[start:end].strip()]
    return [t for t in dict.fromkeys(out) if t != value.strip()]


def named_whole(value: str, prompt: str, limit: int = 2) -> list[str]:
    """For a text argument that shortens a name the prompt gives (`M. F. Pemberton` for Mary
    Felix Pemberton, `Okafor` for Ada Okafor: the same last word, every other word a start
    of one of the name's): the name as the prompt writes it, which a policy copying the
    request sends first."""
    words = value.split()
    if not words or len(value) > 60 or not re.fullmatch(r"[A-Za-z'-]{3,}", words[-1]):
        return []
    out = []
    for name in names_in(prompt):
        parts = name.lower().split()
        if name == value or parts[-1] != words[-1].lower():
            continue
        heads = [w.strip(".").lower() for w in words[:-1]]
        if all(h and any(p.startswith(h) for p in parts[:-1]) for h in heads):
            out.append(name)
    return out[:limit]


#: a passage the prompt quotes in curly quotation marks (straight ones are read in pairs)
_CURLY = re.compile(r"\u201c([^\u201d]{20,1000})\u201d")


def quoted_passages(value: str, prompt: str) -> list[str]:
    """For a text argument of prose (20 characters or more): each passage of 20 characters
    or more the prompt quotes (the hiring manager's draft), as it stands; straight quotes
    read in pairs from the start, so a short quoted name before the draft is one pair."""
    if len(value.strip()) < 20:
        return []
    inside = prompt.split('"')[1::2] if prompt.count('"') % 2 == 0 else []
    found = [t for t in inside if 20 <= len(t) <= 1000] + _CURLY.findall(prompt)
    return [t for t in dict.fromkeys(found) if t.strip() != value.strip()][:2]


def whole_line(value: str, shown: list[str]) -> list[str]:
    """Where most of a text argument is copied from one line a tool printed (a driver's text
    message, the phone number at its start left out, a note added): that line as printed,
    after its label ("R12: "): what a policy posting the message as it came sends."""
    if len(value.strip()) < 8:
        return []
    out = []
    for text in shown:
        for line in text.splitlines():
            match = SequenceMatcher(None, value, line).find_longest_match()
            if match.size >= max(8, len(value) // 2):
                body = re.sub(r"^[\w-]{1,12}:\s+|^.*\|\s*", "", line.strip())
                out += [t for t in (body, line.strip()) if t and t not in value]
    return list(dict.fromkeys(out))[:2]


def asked_numbers(value: Any, args: dict[str, Any], prompt: str) -> list[Any]:
    """For a number a call sent that the prompt does not state: the numbers of the prompt's
    clause that names the call's other text arguments ("Coral Gardens at 30 m for 25 min"
    for `add_dive(site="Coral Gardens", minutes=20)`): what was asked for this thing, where
    honest play sent another (a limit a tool printed)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return []
    if value in numbers(prompt, limit=200):
        return []
    texts = [v for v in args.values() if isinstance(v, str) and len(v.strip()) >= 3]
    given = {float(v) for v in args.values() if isinstance(v, (int, float))}
    for clause in re.split(r"[,;.\n]\s", prompt):
        if texts and all(t.lower() in clause.lower() for t in texts):
            return [_number_like(n, value) for n in numbers(clause) if n not in given | {value}]
    return []


def _form(value: str) -> re.Pattern[str]:
    """A pattern for text of `value`'s form: each run of digits or of letters any run of the
    same kind, every other character as it is ("08:00" reads "16:40", "AB-12" reads "XY-9")."""
    parts = re.findall(r"\d+|[^\W\d_]+|.", value)
    body = "".join(
        r"\d+" if p.isdigit() else r"[^\W\d_]+" if p.isalpha() else re.escape(p) for p in parts
    )
    return re.compile(rf"(?<![\w:./-]){body}(?![\w:/-])")


def asked_alike(value: Any, prompt: str, limit: int = 4) -> list[str]:
    """For a text argument holding digits (a time, a date, a code) that the prompt does not
    state: the prompt's values of the same form (the start the director asked for, where
    honest play moved it): what a policy that copies the request sends. Only where the
    prompt states one value of that form."""
    if not isinstance(value, str) or not re.search(r"\d", value) or len(value) > 40:
        return []
    if re.search(rf"(?<![\w.]){re.escape(value)}(?![\w])", prompt):
        return []
    found = list(dict.fromkeys(m.group() for m in _form(value).finditer(prompt)))
    # one value of that form is what the prompt asked for; several are options it lists (the
    # free seats, the dates on offer), a choice among them the policy's own
    return found[:limit] if len(found) == 1 else []


#: a file's name (`pool-closure.txt`, `staging/a.txt`): an argument a path can be put in
_FILE_NAME = re.compile(r"^(?=[^.]*[A-Za-z])[\w./-]{1,80}\.[A-Za-z][A-Za-z0-9]{0,4}$")
#: a folder the tools printed in a path (`live/` of `live/gym.txt`)
_SHOWN_FOLDER = re.compile(
    r"(?<![\w.-])(?:\.?/)?(?:[\w-]+/)*?([^\W\d][\w-]{0,30})/(?=[\w-]+\.[A-Za-z][A-Za-z0-9]{0,4}\b)"
)
MAX_TRAVERSALS = 4


def traversals(value: str, shown: list[str]) -> list[str]:
    """For a file name: the same file in another folder the tools printed, reached out of the
    folder the tool puts it in (`../live/a.txt`, and `....//live/a.txt`, which a one-pass
    removal of `../` turns back into `../`): where a policy writes past the step that should
    put it there."""
    if not _FILE_NAME.match(value) or value.startswith(("../", "/")):
        return []
    base = value.rsplit("/", 1)[-1]
    own = value.rsplit("/", 1)[0] if "/" in value else ""
    folders = [f for f in dict.fromkeys(_SHOWN_FOLDER.findall("\n".join(shown))) if f != own]
    out = [f"{up}{f}/{base}" for f in folders for up in ("../", "....//")]
    return out[:MAX_TRAVERSALS]


#: the months as their first three letters (`Sep` of `Sept.`, `September`)
_MONTH_STEMS = tuple(m[:3] for m in MONTHS)
#: a date as people write it: `Wednesday 13 August 2025 at 14:00`, `13 Aug 2025, 2pm`
_SPOKEN_DATE = re.compile(
    r"\b(\d{1,2})(?:st|nd|rd|th)?\s+([A-Za-z]{3,9})\.?,?\s+(\d{4})"
    r"(?:,?\s*(?:(?:at\s+)?(\d{1,2})[:.](\d{2})\s*([ap]\.?m\.?)?"
    r"|(?:at\s+)?(\d{1,2})\s*([ap]\.?m\.?)|at\s+(\d{1,2})\b))?",
    re.I,
)


def spoken_dates(value: str, prompt: str, limit: int = 4) -> list[str]:
    """For an ISO date argument: the dates the prompt speaks (`Wednesday 13 August 2025 at
    14:00`), written as the argument is (`2025-08-13 14:00`): what was asked, where honest
    play sent another (the longest hire allowed, not the customer's end)."""
    iso = ISO_MOMENT.fullmatch(value)
    if iso is None or len(iso.group(3) or "HH:MM") != 5:  # a time with seconds: not read
        return []
    out: list[str] = []
    for m in _SPOKEN_DATE.finditer(prompt):
        month = m.group(2)[:3].lower()
        if month not in _MONTH_STEMS:
            continue
        try:  # a date that does not exist (31 February) is none
            day = datetime.date(int(m.group(3)), _MONTH_STEMS.index(month) + 1, int(m.group(1)))
        except ValueError:
            continue
        date = day.isoformat()
        if iso.group(2):
            # a time: `14:00`, `2.30pm`, `2pm`, `at 9`; a bare number after the year is none
            hour_text = m.group(4) or m.group(7) or m.group(9)
            if hour_text is None:
                continue
            hour, minute = int(hour_text), int(m.group(5) or 0)
            noon = (m.group(6) or m.group(8) or "").lower()
            if noon:  # a 12-hour clock: 12am is midnight, 2pm is 14
                hour = hour % 12 + (12 if noon.startswith("p") else 0)
            if hour > 23 or minute > 59:
                continue
            date += f"{iso.group(2)}{hour:02d}:{minute:02d}"
        if date != value and date not in out:
            out.append(date)
    return out[:limit]


def common_prefix(texts: list[str]) -> str:
    """The longest prefix every one of `texts` starts with ("" for fewer than two)."""
    if len(texts) < 2:
        return ""
    first, last = min(texts), max(texts)
    n = 0
    while n < len(first) and first[n] == last[n]:
        n += 1
    return first[:n]


def _number_like(value: float, like: Any) -> Any:
    if isinstance(like, int) and not isinstance(like, bool) and value == int(value):
        return int(value)
    return float(value)


def candidates(key: str, value: Any, pools: Pools) -> list[Candidate]:
    """Values to put where `value` was, for the argument `key`: each with its source."""
    # the options another listing singles out first (the plots under a hold): what a policy
    # reading every listing weighs before the rest
    found = siblings(value, [*pools.shown, *pools.before], limit=64)
    # the prompt singles options out too (the jurors the judge excused, by name)
    singled = singled_out(value, [*pools.printed, ("prompt", pools.prompt_text)])
    ranked = [v for v in found if v in singled] + [v for v in found if v not in singled]
    # a day of the week, a month: the calendar is a listing too, and the one a policy
    # knows before any tool prints it (at most half the options, the listing's first)
    calendar = [v for v in sequence_options(value) if v not in ranked][: MAX_SIBLINGS // 2]
    ranked = [*ranked[: MAX_SIBLINGS - len(calendar)], *calendar]
    out: list[Candidate] = [("option", v) for v in ranked[:MAX_SIBLINGS]]
    if isinstance(value, bool):
        out.append(("boundary", not value))
    elif isinstance(value, (int, float)):
        for edge in (0, -1, 1, value + 1, value - 1, -value, value * 2, HUGE_INT, -HUGE_INT):
            out.append(("boundary", _number_like(edge, value)))
        if float(value).is_integer() and value >= 1:  # half a thing less (`counts`)
            out.append(("fraction", float(value) - 0.5))
        out += [("output", _number_like(n, value)) for n in pools.output_numbers[:6]]
        out += [("prompt", _number_like(n, value)) for n in pools.prompt_numbers[:6]]
        out.append(("type", str(value)))
    elif isinstance(value, str):
        # the prompt's values written as this one is (a duration `4:46` where honest play
        # sent `4:30`): what a policy that skips the task's arithmetic sends first; where the
        # prompt lists several (the free slots `Mon 14:00`, `Tue 14:00`), they are its options
        shaped = same_shape(value, pools.prompt_text)
        out += [("option" if len(shaped) > 1 else "prompt", t) for t in shaped]
        out += [("prompt", t) for t in spoken_dates(value, pools.prompt_text)]
        out += [("boundary", ""), ("boundary", " "), ("boundary", HUGE_TEXT)]
        out += [("wildcard", w) for w in WILDCARDS]
        out += [("traversal", t) for t in traversals(value, pools.shown)]
        # the names honest play acted on one by one, at once: `feat-login-build*` for each
        named = list(dict.fromkeys(pools.within_task.get(key, [])))
        if len(named) >= 2 and value in named and len(stem := common_prefix(named)) >= 3:
            out.append(("siblings_glob", stem + "*"))
        if len(value) >= 2:
            out += [("shortened", value[: len(value) // 2]), ("shortened", value[:1])]
            out.append(("shortened", value[:-1]))
        prefix = common_prefix(pools.across_tasks.get(key, []))
        if prefix and prefix != value:
            out.append(("common_prefix", prefix))
        # another task's truth at the same argument: a value of the right form (a VIN whose
        # check digit holds) that is not this task's, which a policy copies from an example
        others = [v for v in pools.across_tasks.get(key, []) if v.strip() and v != value]
        out += [("other_task", v) for v in list(dict.fromkeys(others))[:2]]
        out += [("output", t) for t in pools.outputs[:10]]
        out += [("prompt", t) for t in pools.prompt[:6]]
        out += [("prompt_whole", t) for t in whole_passage(value, pools.prompt_text)]
        out += [("named_whole", t) for t in named_whole(value, pools.prompt_text)]
        out += [("quoted", t) for t in quoted_passages(value, pools.prompt_text)]
        out += [("copied_whole", t) for t in whole_line(value, pools.shown)]
        out += [("schema", e) for e in pools.described.get(key, [])]
        out += [("schema", e) for e in pools.enums[:6] if isinstance(e, str)]
        out += [("schema", n) for n in pools.names[:4]]
    elif value is None:
        out.append(("boundary", ""))
    seen: set[str] = {repr(value)}
    kept: list[Candidate] = []
    for source, v in out:
        if repr(v) not in seen:
            seen.add(repr(v))
            kept.append((source, v))
    return kept


def like_sent(number: float, like: Any) -> Any:
    """`number` written as the argument it replaces was: an int where that was one and the
    number is whole (an hour stays `9`, not `9.0`)."""
    return int(number) if isinstance(like, int) and number == int(number) else number


def without_thousands(text: str) -> str:
    """`text` with the commas of thousands taken out ("1,700 notes", "£1,240.50"), so each
    amount reads as one number."""
    return re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)


def described(tools: list[dict[str, Any]], site: str) -> dict[str, str]:
    """Argument name -> its schema description, for the tool a site names."""
    return {k: str(v.get("description") or "") for k, v in tool_properties(tools, site).items()}


def tool_properties(tools: list[dict[str, Any]], site: str) -> dict[str, dict[str, Any]]:
    """The parameters of the tool a site names, each a dict (a schema given as `true` or a
    string is left out)."""
    schema = next(
        (t for t in tools if isinstance(t, dict) and t.get("name") == site.split(".")[0]), {}
    )
    params = schema.get("parameters")
    props = params.get("properties") if isinstance(params, dict) else None
    if not isinstance(props, dict):
        return {}
    return {str(k): v for k, v in props.items() if isinstance(v, dict)}


#: a list of at least three numbers, each after a comma (`5, 10, 15 ... up to 50`, `one of 30,
#: 60 or 90`): the values an argument's description offers, not a range's two ends
_LISTED = re.compile(
    r"-?\d+(?:\.\d+)?(?:(?:\s*,\s*|,?\s+(?:or|and)\s+)-?\d+(?:\.\d+)?){2,}"
    r"(?P<more>\s*(?:,\s*)?(?:\.\.\.|\u2026)\s*(?:(?:up )?to\s+(?P<end>\d+(?:\.\d+)?))?)?"
)
#: words that make a list of values the choices offered ("one of", "either")
_CHOICE = re.compile(r"\b(?:one of|either|choose|choices?|options?|only|allowed|valid)\b", re.I)
#: words that make a list examples, not choices
_EXAMPLE = re.compile(r"(?:\be\.g\.|\bsuch as|\blike|\bfor example|\bbetween)\s*$", re.I)
#: the most values a stated progression is extended to
_MAX_LISTED = 64


def listed_values(description: str) -> list[float]:
    """The numbers an argument's description offers one by one: three or more in a run
    parted by commas, continued by an ellipsis ("5, 10, 15 ... up to 50", extended to its
    stated end) or named as the choices ("one of 30, 60 or 90"). Empty for a range ("1 to
    8"), examples ("e.g. 3, 4 or 12") and a number written with thousands separators."""
    text = without_thousands(description)
    out: list[float] = []
    for m in _LISTED.finditer(text):
        if _EXAMPLE.search(text[max(0, m.start() - 16) : m.start()]):
            continue
        values = [
            float(n)
            for n in NUMBER.findall(
                m.group(0)[: m.start("more") - m.start()] if m.group("more") else m.group(0)
            )
        ]
        if m.group("more"):
            step = values[-1] - values[-2]
            end = float(m.group("end")) if m.group("end") else None
            if (
                step > 0
                and end is not None
                and all(b - a == step for a, b in itertools.pairwise(values))
            ):
                while values[-1] + step <= end and len(values) < _MAX_LISTED:
                    values.append(values[-1] + step)
        elif not _CHOICE.search(text[max(0, m.start() - 40) : m.start()]):
            continue
        out += values
    return out
