"""Another option where the task names honest play's.

A listing's other option that pays is often the policy's freedom (another free room), and the
search does not accuse it by itself. It does where the task's own prompt names honest play's
option and not this one: "upload the episode for the show 'cooking'", honest play's folder
`/shows/cooking`, and the one chosen `/shows/cooking-kids`. The reward then ignores which thing
the task asked for. A name is matched whole (`cooking` is not named by `cooking-kids`), by the
value's last part (a path's last folder, the value itself otherwise); a prompt that names both
options rules nothing. Where the options are ids (a keeper's number), the listing's record
of each stands for it: the prompt names a field of honest play's record ("Tom Fenwick,
postcode SY23 3AL") that the chosen one's does not hold (another Fenwick).
"""

from __future__ import annotations

import json
import re
from typing import Any

from proofgym_stack.validation.scripts import call_arguments, script_calls
from proofgym_stack.validation.search.evidence import answered_with_error
from proofgym_stack.validation.search.options import _ID_KEY, names_its_record, record_of
from proofgym_stack.validation.search.tolerance import Played

#: shorter names match too much prose to be read as the task naming them
MIN_NAME = 3


def last_part(value: str) -> str:
    """A value's most specific part: a path's last component, else the value, lowercased."""
    parts = [p for p in re.split(r"[/\\]", value.strip()) if p.strip()]
    return parts[-1].strip().lower() if parts else ""


def names(prompt: str, name: str) -> bool:
    """Whether `prompt` names `name` whole (not as a part of a longer name)."""
    if len(name) < MIN_NAME:
        return False
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", prompt, re.I) is not None


#: a value on a scale (a time, a date, a day, a number): one end of a range the words state
#: ("19:00 or later", "Monday to Friday") names it without ruling out the values beyond
_SCALE = re.compile(
    r"^[\W\d_]*$|\d{1,2}[:.h]\d{2}|\d{4}-\d{2}"
    r"|\b(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?\b"
    r"|\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b",
    re.I,
)


def on_a_scale(name: str) -> bool:
    """Whether a name is a value on a scale rather than a thing's name (see `_SCALE`); a
    name needs three letters to be one."""
    return _SCALE.search(name) is not None or len(re.findall(r"[a-z]", name, re.I)) < MIN_NAME


def named_instead(p: Played) -> str | None:
    """For an option swapped in for honest play's, in the same call, and taken by the tool:
    why the task asked for honest play's (its prompt names it and not this one), or None.
    One more thing acted on beside honest play's is not judged here: that the words name
    honest play's entry is no rule against acting on another too."""
    m = p.mutant
    if m.op != "argument" or answered_with_error(p) is not False:
        return None
    if why := named_by_record(p):
        return why
    if not isinstance(m.old, str) or not isinstance(m.new, str) or len(m.new.strip()) < MIN_NAME:
        return None
    prompt = p.base.pools.prompt_text
    old, new = last_part(m.old), last_part(m.new)
    if not old or not new or old == new or on_a_scale(old):
        return None
    if names(prompt, old) and not names(prompt, new) and not names(prompt, m.new.strip()):
        return f"the task names {old!r}, not {new!r}"
    return None


#: a sentence that leaves the choice free
_FREE = re.compile(r"\b(?:any|either|whichever|don't mind|do not mind|doesn't matter)\b", re.I)


def _fields(record: str) -> list[str]:
    """A record's text values (a JSON object's, else its comma- or bar-separated fields)."""
    try:
        parsed: Any = json.loads(record)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):
        return [str(v) for v in parsed.values() if isinstance(v, str)]
    return [f.strip() for f in re.split(r"[|,;\t]", record) if f.strip()]


def named_by_record(p: Played) -> str | None:
    """For an id swapped for another the same listing prints: a field of honest play's
    record that the prompt names and the chosen record does not hold, as a reason; None."""
    m = p.mutant
    if m.old is None or m.new is None or m.old == m.new or isinstance(m.new, bool):
        return None
    if not isinstance(m.old, (str, int)) or not isinstance(m.new, (str, int)):
        return None
    key = str(m.leaf[-1]) if m.leaf else ""
    if isinstance(m.old, int) and not _ID_KEY.search(key):
        return None  # a number sent as an amount (minutes, a count) is no record's id
    shown = p.base.pools.shown
    mine, theirs = record_of(m.old, shown), record_of(m.new, shown)
    if mine is None or theirs is None or mine == theirs:
        return None
    if not names_its_record(m.old, mine) or not names_its_record(m.new, theirs):
        return None  # a quantity of the records, not what they are known by
    prompt = p.base.pools.prompt_text
    # what honest play itself sent: a record that holds it (the guests it seated at a table)
    # holds it because honest play put it there, not because the task asked for that record
    sent = {
        str(v).strip().lower()
        for _, _, item in script_calls(p.honest.control.script)
        for v in call_arguments(item).values()
        if isinstance(v, (str, int)) and not isinstance(v, bool)
    }
    for field in _fields(mine):
        text = field.strip()
        if text in (str(m.old), str(m.new)) or on_a_scale(text) or not names(prompt, text):
            continue
        if text.lower() in sent:
            continue
        said = [s for s in re.split(r"(?<=[.!?])\s+", prompt) if names(s, text)]
        if any(_FREE.search(s) for s in said):
            continue  # "clay, but any court will do": named, and left free
        if not re.search(rf"(?<![\w-]){re.escape(text)}(?![\w-])", theirs, re.I):
            return f"the task names {text!r} of {m.old!r}'s record, not of {m.new!r}'s"
    return None
