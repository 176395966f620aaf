"""The role a record gives a value: the word printed just before it ("mentor Omar
Haddad", "mentor: Omar Haddad"), or before the colon of a list holding it ("The judge has
excused: Kaur, Grant, Evans"); a capitalised word before a number inside a line is a name
the number is part of ("assigned to Pupil 1"), not a role."""

from __future__ import annotations

import re
from typing import Any

#: words before a value that give it no role
_NO_ROLE = {"with", "from", "that", "this", "have", "been", "were", "your", "into", "then", "than"}


def roles_of(value: Any, texts: list[str], lists: tuple[str, ...] = ()) -> set[str]:
    """The words printed just before `value` (`mentor` in "mentor Omar Haddad", "mentor:
    Omar Haddad"), or before the colon of a list holding it ("excused: Kaur, Grant"): the
    role a record gives it."""
    if isinstance(value, bool) or not isinstance(value, (str, int)) or not str(value).strip():
        return set()
    # the role and the value on one line: the word ending the line above is another record's;
    # a number with a unit after it is a measure of the record (`limit 40%`), not its name
    unit = r"(?!\s*(?:%|[A-Za-z]))" if not isinstance(value, str) else ""
    name = re.escape(str(value).strip())
    pattern = rf"\b([A-Za-z]{{4,}})[ \t]*:?[ \t]+{name}(?![\w-]){unit}"
    # a member of the list after a role and its colon ("The judge has excused: Kaur, Grant")
    listed = (
        rf"\b([A-Za-z]{{4,}})[ \t]*:[ \t]*(?:[^:\n.;]{{1,80}}?(?:,|\band\b)[ \t]*)?{name}(?![\w-])"
    )
    # a name, not a number (locker 1 is no member of a list of pupils); the prompt's lists
    # (`lists`) are read in the list form only: its prose says "the new pupil 1 locker"
    named = isinstance(value, str) and re.search(r"[A-Za-z]", value) is not None
    read = [(text, (pattern, listed) if named else (pattern,)) for text in texts]
    read += [(text, (listed,)) for text in lists if named]
    return {
        m.group(1).lower()
        for text, forms in read
        for found in forms
        for m in re.finditer(found, text)
        if m.group(1).lower() not in _NO_ROLE and not _a_name_of(m, text, value)
    }


def _a_name_of(m: re.Match[str], text: str, value: Any) -> bool:
    """Whether a capitalised word before a number, inside a line, is a name the number is
    part of ("assigned to Pupil 1"), not a role the record gives the number."""
    if isinstance(value, str) and re.search(r"[A-Za-z]", value):
        return False
    line_start = text.rfind("\n", 0, m.start()) + 1
    return m.group(1)[:1].isupper() and bool(text[line_start : m.start()].strip())
