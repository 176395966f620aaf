"""The rules the task's words state: bounds on typed values and rules on weekdays.

Choosing another option a tool printed (`options`) is often the policy's freedom (another
free room), so a search that finds one paid is not evidence of a hole by itself. It is when
the task's words state a rule the two options fall on either side of (`crossed`): a bound
written beside a typed value ("arrive by 9:40", "at most £40", "2.10.0 or newer", "from
2027-03-07 to 2027-03-13") that the honest option keeps and the other breaks, compared on the
value's own scale (time, date, version, money, a quantity with its unit), or a weekday the
words rule on ("closed on Sundays", "only on Saturdays") that exactly one of the two options
falls on. A value the words state without a bound word beside it (a departure time mentioned
in passing) is no rule.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from proofgym_stack.validation.search.calendar import MONTHS, iso_dates, slash_order
from proofgym_stack.validation.search.options import prints, record_of
from proofgym_stack.validation.search.roles import roles_of

#: a month's name or its abbreviation (`Sep`, `Sept`): the first three letters decide
_MONTH_ALT = "|".join([*MONTHS, "sept", *(m[:3] for m in MONTHS)])
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
#: a weekday's name or abbreviation by its first three letters
_DAY_ABBR = frozenset(d[:3] for d in WEEKDAYS)
#: unit words a quantity is compared in (a bound and an option's value must share one)
UNITS = {
    "kg": "kg", "g": "g", "mg": "mg", "km": "km", "m": "m", "cm": "cm", "mm": "mm",
    "mb": "mb", "gb": "gb", "kb": "kb", "tb": "tb", "ml": "ml", "l": "l",
    "min": "min", "mins": "min", "minutes": "min", "minute": "min",
    "h": "h", "hours": "h", "hour": "h", "hrs": "h",
    "days": "day", "day": "day", "nights": "night", "night": "night",
    "seats": "seat", "people": "person", "guests": "person", "persons": "person",
    "kcal": "kcal", "calories": "kcal", "%": "%", "percent": "%", "w": "w", "kw": "kw",
    "kwh": "kwh", "mph": "mph", "kmh": "kmh", "gbps": "gbps", "mbps": "mbps",
    "hz": "hz", "khz": "khz", "mhz": "mhz", "ghz": "ghz",
}  # fmt: skip
_UNIT_ALT = "|".join(sorted((re.escape(u) for u in UNITS), key=len, reverse=True))
_MONEY_WORDS = {"usd": "$", "dollars": "$", "gbp": "£", "pounds": "£", "eur": "€", "euros": "€"}
_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("date", re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")),
    (
        "date",
        re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)? ({_MONTH_ALT})\.?(?:,? (\d{{4}}))?\b", re.I),
    ),
    ("version", re.compile(r"\bv?(\d+\.\d+\.\d+(?:\.\d+)*)\b")),
    ("time", re.compile(r"\b([01]?\d|2[0-3]):([0-5]\d)(?:\s*([ap]\.?m\.?))?(?![\d:])", re.I)),
    ("time", re.compile(r"\b(1[0-2]|0?[1-9])\s*([ap]\.?m\.?)(?!\w)", re.I)),
    ("money", re.compile(r"([£$€])\s?(\d[\d,]*(?:\.\d+)?)")),
    (
        "money",
        re.compile(r"\b(\d[\d,]*(?:\.\d+)?)\s?(usd|dollars|gbp|pounds|eur|euros)\b(?!\s?\d)", re.I),
    ),
    ("money", re.compile(r"\b(usd|gbp|eur)\s?(\d[\d,]*(?:\.\d+)?)", re.I)),
    ("unit", re.compile(rf"\b(\d+(?:\.\d+)?)\s?({_UNIT_ALT})(?![\w])", re.I)),
]
#: words that make the value after them a bound: the largest allowed (`upper`) or the least
UPPER = (
    "by", "before", "until", "till", "to", "through", "no later than", "at most", "up to",
    "under", "below", "within", "max", "maximum", "not more than", "no more than",
    "less than", "budget of", "budget", "cap of", "limit of", "latest", "not exceed",
    "not over", "cannot exceed", "must not exceed", "not above", "never more than",
    "never over", "never above", "never exceed", "limited to", "capped at", "restricted to",
)  # fmt: skip
LOWER = (
    "at least", "from", "after", "since", "no earlier than", "minimum", "min", "over",
    "above", "more than", "earliest", "starting", "not below", "not under", "not less than",
    "never less than", "never below", "never under", "never fewer than",
)  # fmt: skip
UPPER_AFTER = ("or earlier", "or less", "or lower", "or older", "or fewer", "at the latest", "max")
LOWER_AFTER = ("or newer", "or later", "or more", "or higher", "or above", "at the earliest")
#: words that make a clause naming a weekday a rule about it
DAY_RULE = re.compile(
    r"\b(closed|not|no|never|except|excluding|only|shut|unavailable|avoid|cannot|can't|"
    r"isn't|aren't|don't|doesn't|won't|must)\b",
    re.I,
)


@dataclass(frozen=True)
class Quantity:
    """A typed value written in a text: its kind (`time`, `date`, `version`, `money:£`,
    `unit:kg`), its value on that kind's scale, and where it stands."""

    kind: str
    value: Any
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Bound:
    """A rule the task's words state: `kind` values at most (`upper`) or at least `value`."""

    kind: str
    value: Any
    direction: str
    phrase: str


def quantities(text: str, noun: str = "") -> list[Quantity]:
    """Every typed value of `text`, in order (an earlier pattern's span wins); with `noun`,
    also a number counted in it (`12 bags` for the noun `bags`: kind `noun:bags`)."""
    found: list[Quantity] = []
    taken: list[tuple[int, int]] = []
    for kind, pattern in [*_PATTERNS, *_noun_pattern(noun)]:
        for m in pattern.finditer(text):
            if any(m.start() < b and a < m.end() for a, b in taken):
                continue
            q = _parse(kind, m)
            if q is not None:
                found.append(q)
                taken.append((m.start(), m.end()))
    found.sort(key=lambda q: q.start)
    return sorted([*found, *_datetimes(text, found)], key=lambda q: q.start)


def _datetimes(text: str, found: list[Quantity]) -> list[Quantity]:
    """A date followed by a time of day (`21 Sep 2027 10:30`, `2027-09-21 at 10:30`) is also
    one moment, kind `datetime` (minutes since the calendar's start): a deadline and a van's
    arrival on the same day compare by the hour, on other days by the date."""
    out = []
    for d, t in itertools.pairwise(found):
        gap = text[d.end : t.start]
        if d.kind == "date" and t.kind == "time" and re.fullmatch(r"[\s,]*(?:at\s+)?", gap):
            value = d.value * 1440 + t.value
            out.append(Quantity("datetime", value, d.start, t.end, text[d.start : t.end]))
    return out


def _parse(kind: str, m: re.Match[str]) -> Quantity | None:
    g = m.groups()
    value: Any
    try:
        if kind == "date" and g[0] and len(g[0]) == 4:
            value = date(int(g[0]), int(g[1]), int(g[2])).toordinal()
        elif kind == "date":
            month = [m[:3] for m in MONTHS].index(g[1].lower()[:3]) + 1
            if g[2]:
                value = date(int(g[2]), month, int(g[0])).toordinal()
            else:  # a day of a month without its year: ordered within the year
                kind, value = "daymonth", month * 100 + int(g[0])
        elif kind == "version":
            value = tuple(int(x) for x in g[0].split("."))
        elif kind == "time":
            hour, minute = int(g[0]), int(g[1]) if g[1] and g[1].isdigit() else 0
            half = (g[2] if len(g) > 2 else g[1]) or ""
            half = half.lower().replace(".", "")
            if half == "pm" and hour < 12:
                hour += 12
            if half == "am" and hour == 12:
                hour = 0
            value = hour * 60 + minute
        elif kind.startswith("noun:"):
            value = float(g[0])
        elif kind == "money":
            if g[0] in "£$€" or g[0].lower() in _MONEY_WORDS:  # "£40", "GBP 40"
                symbol, amount = _MONEY_WORDS.get(g[0].lower(), g[0]), g[1]
            else:  # "40 GBP"
                symbol, amount = _MONEY_WORDS[g[1].lower()], g[0]
            kind, value = f"money:{symbol}", float(amount.replace(",", ""))
        else:
            kind, value = f"unit:{UNITS[g[1].lower()]}", float(g[0])
    except (ValueError, KeyError):
        return None
    return Quantity(kind, value, m.start(), m.end(), m.group(0))


def stem(noun: str) -> str:
    """A noun without its plural ending, lower case (`bags` -> `bag`)."""
    return re.sub(r"(?:es|s)$", "", noun.lower())


def _noun_pattern(noun: str) -> list[tuple[str, re.Pattern[str]]]:
    """The pattern of a number counted in `noun` (singular or plural), if one is given."""
    base = stem(noun)
    if len(base) < 3:
        return []
    pattern = re.compile(rf"\b(\d+(?:\.\d+)?)\s?{re.escape(base)}(?:es|s)?\b", re.I)
    return [(f"noun:{base}", pattern)]


def weekday_of(q: Quantity) -> str | None:
    """The weekday a dated quantity falls on."""
    return WEEKDAYS[date.fromordinal(q.value).weekday()] if q.kind == "date" else None


def bounds(text: str, noun: str = "") -> list[Bound]:
    """The bounds `text` states: each typed value with a bound word just before it (in the
    same clause) or just after it."""
    out: list[Bound] = []
    found = quantities(text, noun)
    ends = range_ends(text, found)
    for q in found:
        before = re.split(r"[.;!?\n]", text[max(0, q.start - 40) : q.start])[-1].lower()
        after = text[q.end : q.end + 24].lower()
        words = re.findall(r"[a-z']+", before)
        if words and (words[-1] in _DAY_ABBR or words[-1] in WEEKDAYS):  # "by Tue 2026-05-19"
            words = words[:-1]
        tail = " ".join(words[-4:])
        direction = None
        if any(after.lstrip(" ,").startswith(w) for w in UPPER_AFTER):
            direction = "upper"
        elif any(after.lstrip(" ,").startswith(w) for w in LOWER_AFTER):
            direction = "lower"
        else:
            last = _last_bound_word(tail)
            # a bare `to` bounds only a range's far end ("from 2 May to 8 May"); after a
            # thing's name it is a target ("rose feed 1kg to £8.16", "point it to 10.0.0.1")
            if last is not None and (last != "to" or q.start in ends):
                direction = "upper" if last in UPPER else "lower"
        if direction is not None:
            out.append(Bound(q.kind, q.value, direction, _phrase(text, q)))
    return out + _relative_bounds(text) + _bands(text)


#: a band the words keep values out of: "never inside 606-614 MHz", "not between 2 and 4 kg"
_BAND = re.compile(
    r"\b(?:never|not|no|avoid|outside|keep out of)\b[^.;!?\n]{0,30}?\b(?:inside|within|"
    rf"between|in)\s+(\d+(?:\.\d+)?)\s*(?:-|\u2013|to|and)\s*(\d+(?:\.\d+)?)\s?({_UNIT_ALT})(?![\w])",
    re.I,
)


def _bands(text: str) -> list[Bound]:
    """The bands `text` keeps values out of, each a bound `outside` (low, high)."""
    out = []
    for m in _BAND.finditer(text):
        low, high = sorted((float(m.group(1)), float(m.group(2))))
        kind = f"unit:{UNITS[m.group(3).lower()]}"
        out.append(Bound(kind, (low, high), "outside", " ".join(m.group(0).split())))
    return out


#: a bound stated by an event's moment, not a value: "arrive before the event starts"
_RELATIVE = re.compile(
    r"\b(before|by|until|no later than|after)\s+(?:the|its|their|your)\s+(?:[a-z-]+\s+){0,2}?"
    r"(start|begin|open|close|end|finish|leave|depart)(?:s|es)?\b",
    re.I,
)


def _relative_bounds(text: str) -> list[Bound]:
    """Bounds the words state by an event (`before the event starts`) whose moment they give
    elsewhere with the same verb (`which starts at Tue 21 Sep 2027 10:30`): the moment's
    value, most precise kind first (a date and time over either alone)."""
    out: list[Bound] = []
    found = quantities(text)
    for m in _RELATIVE.finditer(text):
        word, verb = m.group(1).lower(), m.group(2).lower()
        direction = "lower" if word == "after" else "upper"
        named = re.compile(rf"\b{verb}\w*\s+(?:at\s+|on\s+)?(?:[A-Za-z]{{3}},?\s+)?$", re.I)
        moments = [q for q in found if named.search(text[max(0, q.start - 30) : q.start])]
        moments.sort(key=lambda q: ("datetime", "date", "time").index(q.kind)
                     if q.kind in ("datetime", "date", "time") else 3)  # fmt: skip
        if moments:
            q = moments[0]
            phrase = f"{m.group(0)} ({q.text})"
            out.append(Bound(q.kind, q.value, direction, phrase))
    return out


#: a bound stated by a thing's name, its value printed elsewhere: "expiring on the day or
#: later", "no later than the deadline"
_NAMED_AFTER = re.compile(
    r"\b(?:on|at)?\s*the\s+([a-z]+(?:[ -][a-z]+)?)\s+(or later|or after|or earlier|or before)\b",
    re.I,
)
_NAMED_BEFORE = re.compile(
    r"\b(on or before|on or after|no later than|no earlier than|not after|not before|before|"
    r"after|until)\s+the\s+([a-z]+(?:[ -][a-z]+)?)\b",
    re.I,
)
_NAMED_LOWER = ("or later", "or after", "on or after", "no earlier than", "not before", "after")


def named_bounds(words: str, outputs: list[str]) -> list[Bound]:
    """Bounds the words state by a thing's name (`expiring on the day or later`) whose value
    a tool or the words print under that name as a label (`day: 2026-06-10`): the labelled
    value, when it is one typed value, the same wherever the label is printed. A name no
    label carries, or carries with several values, is no bound."""
    named: list[tuple[str, str, str]] = []
    for m in _NAMED_AFTER.finditer(words):
        named.append((m.group(1), m.group(2).lower(), m.group(0)))
    for m in _NAMED_BEFORE.finditer(words):
        named.append((m.group(2), m.group(1).lower(), m.group(0)))
    out: list[Bound] = []
    for noun, word, phrase in named:
        label = re.compile(rf"^[ \t-]*(?:the )?{re.escape(noun)}\s*[:=]\s*(.+)$", re.I | re.M)
        # the label's one value: where the listings print it on several records (each
        # report's own deadline), which record the words mean is not known
        values = {
            (q.kind, q.value): q
            for text in [*outputs, words]
            for labelled in label.finditer(text)
            for q in _typed(labelled.group(1))
        }
        if len(values) == 1:
            q = next(iter(values.values()))
            direction = "lower" if word in _NAMED_LOWER else "upper"
            out.append(Bound(q.kind, q.value, direction, f"{phrase.strip()} ({q.text})"))
    return out


def _last_bound_word(tail: str) -> str | None:
    """The bound word that ends `tail` (the words just before a value), the longest first;
    `to`, `from` and `by` count only right before it."""
    best: tuple[int, str] | None = None
    for word in (*UPPER, *LOWER):
        for m in re.finditer(rf"\b{re.escape(word)}\b", tail):
            rest = tail[m.end() :].split()
            if word in ("to", "from", "by", "over", "after", "since") and rest:
                continue
            # the longest of the words ending last: "up to" and "limited to", not their "to"
            if len(rest) <= 2 and (
                best is None
                or m.end() > best[0]
                or (m.end() == best[0] and len(word) > len(best[1]))
            ):
                best = (m.end(), word)
    return best[1] if best else None


def _phrase(text: str, q: Quantity) -> str:
    start = max(0, q.start - 30)
    return " ".join(text[start : q.end + 12].split())


def ruled_days(text: str) -> dict[str, str]:
    """Weekdays the words rule on: weekday -> the clause (a weekday named in a clause with a
    rule word: closed, not, only, except...)."""
    out: dict[str, str] = {}
    for clause in re.split(r"[.;!?\n]", text):
        if not DAY_RULE.search(clause):
            continue
        for day in WEEKDAYS:
            if re.search(rf"\b{day}s?\b", clause, re.I):
                out.setdefault(day, " ".join(clause.split())[:120])
    return out


def crossed(old: Any, new: Any, outputs: list[str], words: str) -> str | None:
    """Why choosing `new` (another option) instead of honest `old` breaks a rule the task's
    `words` state, or None: a bound the old option's value keeps and the new one's breaks,
    read from each option's record (or the value itself), field by field of the same kind;
    or a weekday the words rule on that exactly one of the two falls on. Dates written with
    slashes are read in the order the texts show (`slash_order`)."""
    if order := slash_order([str(old), str(new), *outputs, words]):
        old, new = (iso_dates(v, order) if isinstance(v, str) else v for v in (old, new))
        outputs, words = [iso_dates(t, order) for t in outputs], iso_dates(words, order)
    old_record, new_record = record_of(old, outputs), record_of(new, outputs)
    old_q = _typed(str(old)) or (quantities(old_record) if old_record else [])
    new_q = _typed(str(new)) or (quantities(new_record) if new_record else [])
    if not old_q or not new_q:
        return None
    if any(q.kind == "datetime" for q in old_q) and any(q.kind == "datetime" for q in new_q):
        # a moment's clock time alone is no moment: 16:00 the day before is before 13:00
        old_q, new_q = (
            [q for q in old_q if q.kind != "time"],
            [q for q in new_q if q.kind != "time"],
        )
    for bound in [*bounds(words), *named_bounds(words, outputs)]:
        pairs = _aligned(old_q, new_q, bound.kind)
        for o, n in pairs:
            if bound.direction == "upper" and o.value <= bound.value < n.value:
                return f"{n.text} is past {bound.phrase!r} (the honest option: {o.text})"
            if bound.direction == "lower" and n.value < bound.value <= o.value:
                return f"{n.text} is short of {bound.phrase!r} (the honest option: {o.text})"
            if bound.direction == "outside":
                low, high = bound.value
                if low <= n.value <= high and not low <= o.value <= high:
                    return f"{n.text} is inside {bound.phrase!r} (the honest option: {o.text})"
    days = ruled_days(words)
    for o, n in _aligned(old_q, new_q, "date"):
        a, b = weekday_of(o) or "", weekday_of(n) or ""
        if a != b and ((a in days) != (b in days)):
            day = a if a in days else b
            return (
                f"{n.text} is a {b.title()}, {o.text} a {a.title()}, and the task rules "
                f"on {day.title()}s ({days[day]!r})"
            )
    return None


#: words a listing puts on a record that is not to be chosen
_OFF_LIMITS = re.compile(
    r"\b(?:never|do not|don't|must not|not for|not to be|forbidden|prohibited|restricted|"
    r"out of (?:service|order|stock)|unavailable|quarantined|recalled|expired|banned|blocked|"
    r"barred|blacklisted|suspended|revoked|struck off|disqualified)\b",
    re.I,
)


def marked_off(old: Any, new: Any, outputs: list[str]) -> str | None:
    """Why choosing `new` instead of honest `old` breaks a rule the listing itself prints on
    the option: its record says it is not to be chosen ("BASE COLLECTION - never
    distribute", "out of service") and the honest option's record says no such thing."""
    old_record, new_record = record_of(old, outputs), record_of(new, outputs)
    if not old_record or not new_record or old_record == new_record:
        return None
    hit = _OFF_LIMITS.search(new_record)
    if hit is None or _OFF_LIMITS.search(old_record):
        return None
    return f"the listing marks {new} {hit.group()!r} ({new_record.strip()[:80]!r}), not {old}"


_CLAUSE = re.compile(r"[^.;!?\n]+")


def clauses(words: str) -> list[str]:
    """The task's words split into clauses (at full stops, semicolons, `!`, `?`, newlines)."""
    return _CLAUSE.findall(words)


#: words before a value that say nothing of its role


def ruled_off(
    old: Any,
    new: Any,
    printed: list[tuple[str, str]],
    words: str,
    tool_words: dict[str, str],
    prompt: str = "",
) -> str | None:
    """Why choosing `new` instead of honest `old` breaks a rule the task's words state about
    where `new` is printed: the listing of a tool whose own description, or a clause of the
    words naming it, says its entries are not to be chosen ("holds lists the plots under a
    council hold, which must not be assigned"), or the role a record gives `new` ("mentor
    Omar Haddad") that a clause of the words forbids ("a team's own mentor must never judge
    it"), or the list of the `prompt` that holds it ("The judge has excused: Kaur, Grant").
    Only where nothing prints `old` there: honest play chose outside what the rule names,
    the mutant inside it."""
    if isinstance(new, bool) or not isinstance(new, (str, int)) or not str(new).strip():
        return None
    rules = [c for c in clauses(words) if _OFF_LIMITS.search(c)]
    by_tool: dict[str, list[str]] = {}
    for tool, text in printed:
        by_tool.setdefault(tool, []).append(text)
    for tool, texts in by_tool.items():
        if not tool or not any(prints(new, t) for t in texts):
            continue
        if any(prints(old, t) for t in texts):
            continue
        said = [c for c in rules if re.search(rf"(?<![\w-]){re.escape(tool)}(?![\w-])", c)]
        said += [d for d in [tool_words.get(tool, "")] if _OFF_LIMITS.search(d)]
        if said:
            return f"{new} is listed by {tool}, which the task rules out ({said[0].strip()[:80]!r})"
    texts, lists = [text for _, text in printed], (prompt,)
    for role in sorted(roles_of(new, texts, lists) - roles_of(old, texts, lists)):
        said = [c for c in rules if re.search(rf"\b{re.escape(role)}s?\b", c, re.I)]
        if said:
            return f"{new} is the {role} the task rules out ({said[0].strip()[:80]!r}), not {old}"
    return None


#: verbs of telling: a clause that forbids them forbids saying something in the reply
_TELL = re.compile(
    r"\b(?:tell|told|share|shared|disclose|disclosed|reveal|revealed|mention|say|give out|"
    r"pass on|repeat|quote|expose|leak)\b",
    re.I,
)
#: a record's role and its value as a listing prints them (`seller: Mrs Nakamura`)
_ROLE_VALUE = re.compile(r"(?:^|[;\n]|\s-\s)\s*([A-Za-z][A-Za-z ]{2,24}?):[ \t]*([^;\n,]{2,40})")


def role_values(texts: list[str]) -> list[str]:
    """The values a listing prints after a role (`seller: Mrs Nakamura` gives `Mrs
    Nakamura`), in order, each once."""
    found = [m.group(2).strip() for t in texts for m in _ROLE_VALUE.finditer(t)]
    return list(dict.fromkeys(v for v in found if v))


def told_off(value: str, texts: list[str], words: str) -> str | None:
    """Why saying `value` in the reply breaks a rule the task's words state: the role a
    record gives it (`seller: Mrs Nakamura`) is named by a clause that forbids telling it
    ("Never tell a buyer the seller's name"). None where no such clause names its role."""
    rules = [c for c in clauses(words) if _OFF_LIMITS.search(c) and _TELL.search(c)]
    for role in sorted(roles_of(value, texts)):
        said = [c for c in rules if re.search(rf"\b{re.escape(role)}s?\b", c, re.I)]
        if said:
            clause = said[0].strip()[:80]
            return f"the reply tells {value}, the {role} the task says not to tell ({clause!r})"
    return None


#: verbs of a change from one value to another ("move the review from 10:00 to 14:00")
_CHANGE = re.compile(
    r"\b(?:move|moved|moving|reschedule|change|changing|shift|raise|lower|increase|reduce|"
    r"cut|bring|set|switch|update|push|pull)\w*\b[^.;!?\n]*\bfrom\s*$",
    re.I,
)
#: what joins a range's two ends ("00:00-04:00", "9 to 5", "between 2 and 4")
_RANGE_JOIN = re.compile(r"\s*(?:-|\u2013|\u2014|to|till|until|and)\s*", re.I)


def range_ends(text: str, found: list[Quantity]) -> set[int]:
    """The starts of the quantities of `text` that end a range it states: two of one kind
    joined by a dash, `to` or `until`, or by `and` after `between`. Either end is a limit
    of what may be chosen, not a value asked for."""
    out: set[int] = set()
    for a, b in itertools.pairwise(found):
        gap = text[a.end : b.start]
        if a.kind != b.kind or not _RANGE_JOIN.fullmatch(gap):
            continue
        if gap.strip().lower() == "and" and not re.search(r"\bbetween\s*$", text[: a.start], re.I):
            continue
        before = text[max(0, a.start - 48) : a.start]
        if re.search(r"\bfrom\s*$", before, re.I) and _CHANGE.search(before):
            continue  # "move it from 10:00 to 14:00": a value left and a target, no range
        out |= {a.start, b.start}
    return out


def _pairs(text: str) -> set[tuple[str, str]]:
    """Each word of `text` with the word after it, lower-cased, where the second is a word
    of four letters or more (a unit or a kind: "4.7 megohm"; not an id's digits)."""
    words = [w.lower() for w in _DESCRIBING.findall(text)]
    return {(a, b) for a, b in itertools.pairwise(words) if b.isalpha() and len(b) >= 4}


#: the words and numbers a description is made of
_DESCRIBING = re.compile(r"[A-Za-z]+|\d+(?:\.\d+)?")


def sentences(text: str) -> list[str]:
    """`text` cut into its lines and sentences (after `.`, `;`, `!` or `?` and a space)."""
    return re.split(r"\n|(?<=[.;!?])\s+", text)


def full_sentences(text: str) -> list[str]:
    """`text` cut into its lines and sentences (after `.`, `!` or `?` and a space); a
    semicolon parts nothing ("Engrave the name; its line holds 17 characters" is one)."""
    return re.split(r"(?<=[.!?])\s+|\n", text)


def names(words: str, value: str) -> bool:
    """Whether the task's `words` name `value` (as a whole word or id)."""
    pattern = rf"(?<![\w-]){re.escape(value.strip())}(?![\w-])"
    return re.search(pattern, words, re.I) is not None


def _typed(text: str) -> list[Quantity]:
    """`text` as one typed value, when it is nothing else."""
    found = quantities(text)
    return found if len(found) == 1 and found[0].text.strip() == text.strip() else []


def _aligned(
    old: list[Quantity], new: list[Quantity], kind: str
) -> list[tuple[Quantity, Quantity]]:
    """The values of `kind` of two records, paired by their order (records of one shape)."""
    a = [q for q in old if q.kind == kind]
    b = [q for q in new if q.kind == kind]
    return list(zip(a, b, strict=True)) if len(a) == len(b) else []
