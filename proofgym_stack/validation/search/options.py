"""The options a listing printed: the other records of the listing an honest value came from.

A tool that lists choices (a timetable, a catalogue, free dates) prints one record per
option: a line, an item of a comma-separated list, or an object of a JSON list. An argument
whose honest value is printed in one record can take the value at the same place in another
record (`siblings`): the choice an honest policy weighs, and the one a greedy policy makes.

Whether choosing one is the policy's freedom is for `rules` to say (the rules the task's
words state about the options).
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_SIBLINGS = 8
#: the slot of a value that is a whole record (an item of a comma-separated list)
WHOLE = "\x00whole"
_TOKEN = re.compile(r"[A-Za-z0-9_@.+:/-]{1,40}")


def records(outputs: list[str]) -> list[list[str]]:
    """Each output's records: the objects of a JSON list (or of a JSON object's values, or
    the entries of the one map of choices a JSON object holds), else its lines, else (one
    line) its items separated by semicolons, else by commas (two separators at least); and,
    where every line is a labelled row of items, all the rows' items as one listing."""
    out: list[list[str]] = []
    for text in outputs:
        parsed = _json(text)
        if parsed is not None:
            out.append(parsed)
            continue
        lines = [line for line in text.splitlines() if line.strip()]
        # three items or more on one line ("08:00-09:30: free; 09:30-11:00: Allen; ..."):
        # one separator is prose ("booked 11:00; confirmation sent")
        for sep in (";", ","):
            if len(lines) == 1 and lines[0].count(sep) >= 2:
                lines = [item.strip() for item in lines[0].split(sep) if item.strip()]
        out.append(lines)
        labelled = all(_ROW_LABEL.match(line) and line.count(",") >= 2 for line in lines)
        if len(lines) >= 2 and labelled:
            # rows of items each under its label ("front row: 1 free, 2 Tibbles, ..."): every
            # row's items, one listing (not a table's columns, which carry no label)
            items = [i.strip() for line in lines for i in _ROW_LABEL.sub("", line).split(",")]
            out.append([i for i in items if i])
    return out


#: a row's label before its items ("front row: ")
_ROW_LABEL = re.compile(r"^\s*[A-Za-z][A-Za-z ]{0,30}:\s+")


def _json(text: str) -> list[str] | None:
    try:
        value = json.loads(text)
    except (ValueError, TypeError):
        return None
    if isinstance(value, dict):
        lists = [v for v in value.values() if isinstance(v, list)]
        if len(lists) == 1:
            value = lists[0]
        elif all(isinstance(v, dict) for v in value.values()):
            value = [{"key": k, **v} for k, v in value.items()]
        elif len(maps := [v for k, v in value.items() if _choices(k, v)]) == 1:
            # one map of choices inside a record ("options": {"A": "2 m", "B": "20 m"}): its
            # entries are the listing, each key an option
            value = [{"key": k, "value": v} for k, v in maps[0].items()]
    if isinstance(value, list) and len(value) >= 2 and all(isinstance(v, dict) for v in value):
        return [json.dumps(v, ensure_ascii=False) for v in value]
    return None


_CHOICE_KEYS = re.compile(r"options?|choices?|answers?|alternatives?", re.I)


def _choices(key: Any, value: Any) -> bool:
    """Whether `value` (under `key`) is a map of at least two choices to plain values: its
    keys labels (`A`, `B`, `1`: at most 3 characters each) or the map named as options (a
    balance's `checking` and `savings`, a `min` and a `max`, are no choices)."""
    if not isinstance(value, dict) or len(value) < 2:
        return False
    values = list(value.values())
    plain = all(isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in values)
    labels = all(len(str(k)) <= 3 for k in value)
    return plain and (labels or _CHOICE_KEYS.fullmatch(str(key)) is not None)


def _object(record: str) -> dict[str, Any] | None:
    if not record.startswith("{"):
        return None
    try:
        value = json.loads(record)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _shape(token: str) -> str:
    """A token's shape: runs of letters as `A`, of digits as `9` (`C123A` is `A9A`)."""
    return re.sub(r"9+", "9", re.sub(r"[A-Za-z]+", "A", re.sub(r"\d", "9", token)))


def same_shape(value: str, text: str) -> list[str]:
    """The tokens of `text` shaped like `value` where that shape is an identifier's (letters
    or separators with digits: `CF-7207`, `B12`), in order: the other ids a prompt lists."""
    shape = _shape(value)
    if "9" not in shape or len(shape) < 2 or " " in value:
        return []
    found = [tok.rstrip(".:,") for tok in _TOKEN.findall(text)]
    return list(dict.fromkeys(t for t in found if t != value and _shape(t) == shape))


_LIST_SEP = re.compile(r"\s*(?:,|;|\band\b|\bor\b)\s*")
#: where a clause ends: a stop, colon, question or exclamation mark, unless it stands between
#: two digits (`10:00`, `2.5`: a time or a decimal is one member of a list), or a line's end
_CLAUSE_END = re.compile(r"(?<!\d)[.:!?]|[.:!?](?!\d)|\n")
_NAME = re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+){1,2}\b")


def listed_with(value: str, text: str) -> list[str]:
    """The other members of the list `text` names `value` in ("they asked for: sweetcorn,
    tuna, potatoes and milk"): the clause holding it, split on commas, `and`, `or`, each
    member at most four words."""
    low = value.strip().lower()
    if not low:
        return []
    size = len(low.split())
    for clause in _CLAUSE_END.split(text):
        members = list_members(clause)
        if members and len(members[0].split()) > size:  # "Please invite rosa": the list's start
            members[0] = " ".join(members[0].split()[-size:])
        lows = [m.lower() for m in members]
        if low in lows and len(members) >= 3:
            return [m for m in members if m.lower() != low and len(m.split()) <= 4]
    return []


def list_members(clause: str) -> list[str]:
    """A clause split into the members of the list it gives (on commas, semicolons, `and`,
    `or`)."""
    return [m.strip() for m in _LIST_SEP.split(clause) if m.strip()]


def names_in(text: str) -> list[str]:
    """Runs of two or three capitalised words in `text` (`Kofi Kaur`): the names a person's
    message gives, for a parameter no call of the script filled."""
    return list(dict.fromkeys(_NAME.findall(text)))


def _slot(value: Any, record: str) -> str | int | None:
    """Where `value` stands in `record`: its JSON key, or its token's index; or None."""
    parsed = _object(record)
    if parsed is not None:
        for key, v in parsed.items():
            if v == value or (isinstance(v, (int, float, str)) and str(v) == str(value)):
                return str(key)
        return None
    text = str(value)
    if record.strip().rstrip(".") == text.strip():
        # the whole item of a list ("Lena Vogel", an address a line): its siblings are the
        # other items whatever their shape (hana@teamorbis.io beside eli.lind@orbis.io)
        return WHOLE
    fields = _fields(record)
    if isinstance(value, str) and text.strip() in fields:  # a delimited row's whole field
        return f"{_FIELD}{fields.index(text.strip())}"
    if isinstance(value, str) and " " in text.strip() and _head(record) == text.strip():
        return _HEAD  # a row's label of several words ("Garden Party Tents: seats 120")
    for n, tok in enumerate(_TOKEN.findall(record)):
        if tok.rstrip(".:,") == text:
            return n
    words = text.split()
    toks = [tok.rstrip(".:,") for tok in _TOKEN.findall(record)]
    if 2 <= len(words) <= 4:  # a value of several tokens ("2026-05-19 10:00")
        for n in range(len(toks) - len(words) + 1):
            if toks[n : n + len(words)] == words:
                return f"{_SPAN}{n} {len(words)}"
    if "-" not in text:  # one end of a range printed whole ("11:00-12:30: free")
        for n, piece in enumerate(_pieces(record)):
            if piece == text:
                return f"{_PIECE}{n}"
    return None


#: the mark of a slot that is a run of tokens (`2026-05-19 10:00` in `Tue 2026-05-19 10:00`)
_SPAN = "|span "
#: the mark of a slot that is one end of a range token (`11:00` in `11:00-12:30`)
_PIECE = "|piece "


def _pieces(record: str) -> list[str]:
    """A record's tokens with ranges split at their hyphen (`11:00-12:30:` gives `11:00` and
    `12:30`): a token of two ends of one shape (not a date's three parts, not `A-12`)."""
    out = []
    for tok in _TOKEN.findall(record):
        ends = tok.strip(".:,").split("-")
        if len(ends) == 2 and all(ends) and _shape(ends[0]) == _shape(ends[1]):
            out += ends
        else:
            out.append(tok.strip(".:,"))
    return out


#: the mark of a slot that is a delimited row's field by its place (not a JSON key)
_FIELD = "|field "
#: the mark of a slot that is a row's label, before its colon
_HEAD = "|head"
_LABELLED = re.compile(r"\s*(?:[-*\u2022]\s+|\d{1,3}[.)]\s+)?([^:|\t]{1,60}?)\s*:\s")


def _head(record: str) -> str | None:
    """A row's label: what stands before its first colon ("Garden Party Tents: seats 120,
    £900"), past a bullet or a number; None where there is none."""
    found = _LABELLED.match(record)
    return found.group(1).strip() if found else None


def _fields(record: str) -> list[str]:
    """A row's fields where it is delimited by pipes or tabs; [] otherwise."""
    for sep in (" | ", "\t"):
        if sep in record:
            return [f.strip() for f in record.split(sep)]
    return []


def record_of(value: Any, outputs: list[str]) -> str | None:
    """The first record of `outputs` that prints `value` as one of its fields, a listing's
    row first (an option as the listing shows it, not the echo of a call that chose it)."""
    listings = sorted(records(outputs), key=lambda listing: len(listing) < 2)
    for listing in listings:
        for record in listing:
            if _slot(value, record) is not None:
                return record
    return None


#: JSON keys under which a number is a record's name (not one of its quantities)
_ID_KEY = re.compile(r"(?:^|_)(?:id|code|no|number|ref|key)$", re.I)


def names_its_record(value: Any, record: str) -> bool:
    """Whether `value` is what `record` is known by, not one of its quantities: any text is,
    and a number only as the row's first token or field, after a label word that opens the
    row (`Berth 4 - 12 m`), the whole item, or an object's first key or a key like `id`,
    `slotId` (`stock 1` and `stock 6` are two counts, not two tyres' names)."""
    if isinstance(value, bool):
        return False
    text = str(value).strip()
    if not isinstance(value, int | float) and not re.fullmatch(r"-?\d+(?:\.\d+)?", text):
        return True
    at = _slot(value, record)
    parsed = _object(record)
    if parsed is not None and isinstance(at, str):
        snake = re.sub(r"(?<=[a-z])(?=[A-Z])", "_", at)
        return bool(_ID_KEY.search(snake)) or at == next(iter(parsed), None)
    if at in (0, WHOLE, f"{_FIELD}0"):
        return True
    if at == 1:  # a label word, then the number: `Table 5 | window`, `Room 101, sea view`
        first = _TOKEN.findall(record)[:1]
        return bool(first) and first[0].isalpha()
    return False


def siblings(value: Any, outputs: list[str], limit: int = MAX_SIBLINGS) -> list[Any]:
    """The values other records of the same listing hold where `value`'s record holds it
    (the same JSON key, or a token of the same shape at the same place): the other options a
    policy could choose (at most `MAX_SIBLINGS`)."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)) or value == "":
        return []
    out: list[Any] = []
    for listing in records(outputs):
        if len(listing) < 2:
            continue
        held = [(record, at) for record in listing if (at := _slot(value, record)) is not None]
        if not held:
            continue
        # a range's start before its end: the slot starting at 11:00, not the one ending there
        record, at = min(held, key=lambda h: _piece_rank(h[1]))
        for other in listing:
            new = _field_value(other, at, value) if other != record else None
            if new is not None and new != value and new not in out:
                out.append(new)
    return out[:limit]


def _piece_rank(at: str | int) -> int:
    """Where a slot stands among the places a value was found: a whole token or field first,
    then a range's ends in order."""
    return int(at[len(_PIECE) :]) + 1 if isinstance(at, str) and at.startswith(_PIECE) else 0


def singled_out(value: Any, printed: list[tuple[str, str]]) -> list[Any]:
    """The other options of `value`'s listings that another output prints where it never
    prints `value` (a listing of holds, a team's record naming its mentor): the options the
    tools single out, for better or worse."""
    texts = [text for _, text in printed]
    out: list[Any] = []
    for other in siblings(value, texts, limit=64):
        if any(prints(other, t) and not prints(value, t) for t in texts):
            out.append(other)
    return out


def prints(value: Any, text: str) -> bool:
    """Whether `text` prints `value` as a whole token (`305` in "305, 312", not in "3051")."""
    return re.search(rf"(?<![\w.-]){re.escape(str(value).strip())}(?![\w-])", text) is not None


def _field_value(record: str, at: str | int, like: Any) -> Any:
    if at == WHOLE:
        whole = record.strip().rstrip(".")
        if isinstance(like, str):
            return whole if 1 <= len(whole.split()) <= 4 else None
        return _field_value(whole, 0, like) if len(whole.split()) == 1 else None
    if at == _HEAD:
        head = _head(record)
        return head if head and isinstance(like, str) and 1 <= len(head.split()) <= 5 else None
    if isinstance(at, str) and at.startswith(_FIELD):  # the same place of another row
        fields, n = _fields(record), int(at[len(_FIELD) :])
        field = fields[n] if n < len(fields) else ""
        return field if field and isinstance(like, str) and len(field.split()) <= 4 else None
    if isinstance(at, str) and at.startswith(_SPAN):  # the same run of another row's tokens
        n, k = (int(x) for x in at[len(_SPAN) :].split())
        toks = [tok.rstrip(".:,") for tok in _TOKEN.findall(record)][n : n + k]
        shaped = [_shape(t) for t in str(like).split()]
        return " ".join(toks) if [_shape(t) for t in toks] == shaped else None
    if isinstance(at, str) and at.startswith(_PIECE):  # the same end of another row's range
        pieces, n = _pieces(record), int(at[len(_PIECE) :])
        piece = pieces[n] if n < len(pieces) else ""
        if not piece or _shape(piece) != _shape(str(like)):
            return None
        if isinstance(like, int | float) and not isinstance(like, bool):
            try:  # an end of `10-30 kg` for a number is a number
                return int(piece) if isinstance(like, int) else float(piece)
            except ValueError:
                return None
        return piece
    parsed = _object(record)
    if parsed is not None:
        v = parsed.get(at) if isinstance(at, str) else None
        ok = isinstance(v, (str, int, float)) and not isinstance(v, bool)
        return v if ok and isinstance(v, str) == isinstance(like, str) else None
    if not isinstance(at, int):
        return None
    found = _TOKEN.findall(record)
    if at >= len(found):
        return None
    tok = found[at].rstrip(".:,")
    if _shape(tok) != _shape(str(like).rstrip(".:,")):
        return None
    if isinstance(like, (int, float)):
        try:
            return float(tok) if isinstance(like, float) else int(tok)
        except ValueError:
            return None
    return tok


#: a listing's line that pairs a label with a value (`Ben: Wed P2`)
_PAIR_LINE = re.compile(r"^\s*([^:\n]{1,40}?)\s*:\s*(\S.{0,40}?)\s*$", re.M)
#: the most paired things a prompt's values give
MAX_PAIRED = 4


def paired(prompt: str, shown: list[str]) -> list[str]:
    """What a listing pairs with a value the prompt names, where the prompt does not name it
    (the student holding the slot the prompt asks for: `"Ben": "Wed P2"` in a JSON map, or
    `Ben: Wed P2` a line): the other party of the thing asked for, a policy's first guess
    for a tool's second name."""
    pairs: list[tuple[str, str]] = []

    def walk(value: Any, record: bool = False) -> None:
        # a record of a list (`{"name": ..., "slot": ...}`) keys its fields, not things
        if isinstance(value, dict):
            for k, v in value.items():
                if not record and isinstance(v, (str, int)) and not isinstance(v, bool):
                    pairs.append((str(k), str(v)))
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v, record=True)

    for text in shown:
        try:
            walk(json.loads(text))
        except (ValueError, TypeError):
            pairs += [(m.group(1), m.group(2)) for m in _PAIR_LINE.finditer(text)]
    out = [
        label
        for label, value in pairs
        if len(value) >= 3 and prints(value, prompt) and not prints(label, prompt)
    ]
    return list(dict.fromkeys(out))[:MAX_PAIRED]
