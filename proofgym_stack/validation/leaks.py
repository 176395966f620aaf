"""Where ground truth shows: every surface the policy sees, in every rollout of a validation.

A secret field's value counts as leaked when it shows in the prompt, the instructions, the
tool schemas, or any tool output or tool error of any rollout (not only the reference's), before
the policy itself has said it: a value the policy wrote and then read back is not a leak. Each
finding names the surface, the rollout and a snippet around the value.

A secret that maps the task's own entities to values (a seating plan: guest -> table, each key
a name the prompt shows) is the pairing, not its values: the tables are the options the prompt
lists. Such a leaf leaks only where it shows beside its key.

A value shows only whole (not as the start of a longer number or of a longer run of the same
kind of words), and not as one member of a list of options the text gives ("Monday through
Sunday", three candidate numbers side by side): the answer among a question's options is
not given away.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from proofgym.wire.jsonlimits import loads_limited
from proofgym.wire.protocol import RunResult, Task
from proofgym.wire.responses import output_items
from proofgym_stack.validation.negatives import prompt_text
from proofgym_stack.validation.search.options import list_members

SNIPPET = 40  # characters shown on each side of a leaked value
#: a value of several words over at most this many distinct characters is a run of symbols
#: (a program's tokens), which a longer run of the same symbols may start with
SYMBOLS = 12
NEAR = 40  # at most this many characters (one clause) between a paired leaf and its key


@dataclass(frozen=True)
class Secret:
    """One leaf of a secret field: its dotted field, its key, its text, and whether it is
    distinctive enough to be searched for on its own."""

    field: str
    key: str
    text: str
    distinctive: bool
    #: the key is one of the task's entities (a name the prompt shows): the secret is the
    #: pairing, and the leaf leaks only beside its key
    paired: bool = False


@dataclass(frozen=True)
class Leak:
    """One place a secret showed."""

    task_id: str
    field: str
    surface: str
    snippet: str
    #: for a tool's output: the call (tool name, its arguments as sent) and what it answered
    call: tuple[str, str] | None = None
    output: str = ""

    def describe(self) -> str:
        """One line for the verdict."""
        return f"{self.task_id}: task_data.{self.field} shows in {self.surface}: …{self.snippet}…"


def _leaves(value: Any, key: str = "") -> list[tuple[str, str, bool]]:
    """The leaf values of a ground-truth field as (key, text, distinctive). Strings of 6
    characters or more and numbers of 5 or more are distinctive: searched for as they are.
    Shorter ones match anything on their own, so they are searched for next to their key."""
    if isinstance(value, dict):
        return [leaf for k, v in value.items() for leaf in _leaves(v, str(k))]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _leaves(v, key)]
    if isinstance(value, str) and value.strip():
        return [(key, value, len(value.strip()) >= 6)]
    if isinstance(value, int | float) and not isinstance(value, bool):
        text = json.dumps(value)
        return [(key, text, len(text) >= 5)]
    return []


def value_at(data: Any, path: str) -> Any:
    """The value at a dotted path (`goal.decision`) of task data, or None."""
    for part in path.split("."):
        data = data.get(part) if isinstance(data, dict) else None
    return data


def secrets_of(task: Task, fields: Iterable[str]) -> list[Secret]:
    """Every leaf of the task's secret fields."""
    found = []
    prompt = prompt_text(task)
    for path in fields:
        value = value_at(task.task_data, path)
        name = path.rsplit(".", 1)[-1]
        for key, text, distinctive in _leaves(value, name):
            paired = (
                isinstance(value, dict)
                and key != name
                and len(key.strip()) >= 2
                and re.search(rf"(?<!\w){re.escape(key.strip())}(?!\w)", prompt) is not None
            )
            found.append(Secret(path, key, text, distinctive, paired))
    return found


def find(text: str, secret: Secret) -> re.Match[str] | None:
    """Where `text` shows the secret: a paired leaf within a few words of its key, in one
    clause; else as it is when distinctive, else as `key: leaf`, `key = leaf` or
    `"key": "leaf"` (any case, any spacing)."""
    if secret.paired:
        key, leaf = re.escape(secret.key.strip()), re.escape(secret.text.strip())
        gap = rf"[^\n.;]{{0,{NEAR}}}?"  # within one clause
        return re.search(rf"(?<!\w)(?:{key}{gap}{leaf}|{leaf}{gap}{key})(?!\w)", text)
    if secret.distinctive:
        for match in re.finditer(re.escape(secret.text), text):
            if _whole(text, match, secret.text) and not _listed(text, match, secret.text):
                return match
        return None
    if not secret.key:
        return None
    words = r"[\s_\-]*".join(re.escape(w) for w in re.split(r"[\s_\-]+", secret.key) if w)
    leaf = re.escape(secret.text.strip())
    return re.search(rf"(?i)\b{words}\b[\"']?\s*[:=]\s*[\"']?{leaf}(?![\w.])", text)


#: what joins the members of a list of options ("Monday through Sunday", "A, B or C")
_JOIN = r"\s*(?:,|/|\||;|\bor\b|\bthrough\b|\bto\b|\band\b|\u2013)\s*|\s+"
_MEMBER = r"[^\s,;/|()\[\]{}]+"
#: the list member just before a value (and what joins them), and just after it
_BEFORE = re.compile(rf"({_MEMBER})({_JOIN})$")
_WORD_BEFORE = re.compile(r"(\S+)[ \t]+$")
_WORD_AFTER = re.compile(r"[ \t]+(\S+)")
#: how far before a value its list neighbour is looked for: a search anchored at the value
#: over the whole text before it costs the text's length squared, per occurrence (a long
#: reply that says a short secret many times took minutes)
NEIGHBOUR_SPAN = 200
_AFTER = re.compile(rf"({_JOIN})({_MEMBER})")


def _whole(text: str, match: re.Match[str], value: str) -> bool:
    """Whether `match` shows the whole value, not part of a longer one: no letter or digit
    runs on at either end (`23476691.631` inside `23476691.631000` is another number), and
    a value of several words is not the start or the end of a longer run of the same kind
    of words (a program's first tokens are not its result)."""
    start, end = match.start(), match.end()
    glued = (start > 0 and text[start - 1].isalnum() and value[:1].isalnum()) or (
        end < len(text) and text[end].isalnum() and value[-1:].isalnum()
    )
    if glued or (end < len(text) - 1 and text[end] == "." and text[end + 1].isdigit()):
        return False
    alphabet = set(value.replace(" ", ""))
    if " " not in value.strip() or len(alphabet) > SYMBOLS:
        return True  # words of a sentence: a shared letter says nothing
    after = _WORD_AFTER.match(text, end)
    before = _WORD_BEFORE.search(text, max(0, start - NEIGHBOUR_SPAN), start)
    return not any(m and set(m.group(1)) <= alphabet for m in (after, before))


def _shape(word: str) -> str:
    """A word's kind: runs of capitals, small letters and digits (`Monday` is `Aa`, `4.5`
    is `9.9`)."""
    return re.sub(r"[A-Z]+", "A", re.sub(r"[a-z]+", "a", re.sub(r"\d+", "9", word)))


def _listed(text: str, match: re.Match[str], value: str) -> bool:
    """Whether `match` stands as one member of a list of options the text gives: next to
    another value of the same kind, joined as list members are joined (a comma, `or`,
    `through`; numbers also by spaces). The answer among the options a question lists is not
    given away by it ("State the weekday (Monday through Sunday)", "candidates: 23,476,686.046
    23476677.004 23476691.631")."""
    if " " in value.strip():  # a name of several words among others of its kind
        return _listed_words(text, match, value.strip())
    kind = _shape(value).replace(",", "")
    numeric = kind.strip("-") in ("9", "9.9")
    before = _BEFORE.search(text, max(0, match.start() - NEIGHBOUR_SPAN), match.start())
    after = _AFTER.match(text, match.end())
    for found, word, gap in ((before, 1, 2), (after, 2, 1)):
        joint = found.group(gap) if found is not None else ""
        one_a_line = found is not None and "\n" in joint and _lines_alone(text, match, found)
        if found is None or (not joint.strip() and not one_a_line and not numeric):
            continue  # words side by side are a sentence, not a list (one a line is a list)
        neighbour = found.group(word).rstrip(".:")
        if neighbour != value and _shape(neighbour.replace(",", "")) == kind:
            return True
        if neighbour != value and not numeric and _coarse(neighbour) == _coarse(value) != {"a"}:
            return True  # names built alike (`my.met-police.uk` beside `www.bl.uk`)
    return False


def _lines_alone(text: str, match: re.Match[str], neighbour: re.Match[str]) -> bool:
    """Whether the value and its neighbour each fill a line of their own, the neighbour not a
    label (`Answer:` above the answer is no other option)."""

    def line_of(at: int) -> str:
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        return text[start : end if end >= 0 else len(text)].strip()

    near = line_of(neighbour.start() if neighbour.start() < match.start() else neighbour.end() - 1)
    return (
        line_of(match.start()) == match.group().strip()
        and " " not in near
        and not near.endswith(":")
    )


def _coarse(word: str) -> set[str]:
    """What a name is built of, any punctuation as one (`www.bl.uk` and `my.met-police.uk`
    are both small letters and punctuation; plain words are `{"a"}`, which says nothing)."""
    return set(re.sub(r"[^\w\s]", ".", _shape(word)).replace("A", "a")) - {" "}


def _listed_words(text: str, match: re.Match[str], value: str) -> bool:
    """Whether a value of several words is one member of a list the clause around it gives
    ("Students on the list: Jun Reyes, Ezra Price, Gus Vidal"): at least two other members
    of the same kind of words, joined by commas, `and` or `or`."""
    lo = max(0, match.start() - 4 * NEIGHBOUR_SPAN)
    hi = min(len(text), match.end() + 4 * NEIGHBOUR_SPAN)
    start = max(max(text.rfind(c, lo, match.start()) for c in ".:;\n") + 1, lo)
    ends = [i for i in (text.find(c, match.end(), hi) for c in ".;\n") if i >= 0]
    clause = text[start : min(ends) if ends else hi]
    members = list_members(clause)
    kind = _shape(value)
    alike = [m for m in members if m != value and _shape(m) == kind]
    return value in members and len(alike) >= 2


def _snippet(text: str, match: re.Match[str]) -> str:
    start, end = max(0, match.start() - SNIPPET), min(len(text), match.end() + SNIPPET)
    return " ".join(text[start:end].split())


def first_leak(
    text: str, secrets: list[Secret], said: str, surface: str, task_id: str
) -> Leak | None:
    """The first secret `text` shows that the policy had not itself said (`said`)."""
    for secret in secrets:
        match = find(text, secret)
        if match is not None and find(said, secret) is None:
            return Leak(task_id, secret.field, surface, _snippet(text, match))
    return None


def _argument_texts(arguments: Any) -> list[str]:
    """The strings inside a call's arguments as the policy wrote them (a file's lines with
    their newlines, not JSON's escapes), so a tool echoing them is not taken for a leak."""
    try:  # bounded: a policy's arguments may nest 10,000 deep
        value = loads_limited(arguments) if isinstance(arguments, str) else arguments
    except (ValueError, RecursionError):
        return []
    out: list[str] = []
    stack = [value]
    while stack and len(out) < 200:
        v = stack.pop()
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, dict):
            stack += list(v.values())
        elif isinstance(v, list):
            stack += v
    return out


def tool_outputs_in_order(result: RunResult) -> Iterator[tuple[str, str, str, str]]:
    """(tool name, output, what the policy had said before it, the call's arguments) for each
    tool output of a rollout, errors included."""
    names: dict[str, str] = {}
    arguments: dict[str, str] = {}
    said: list[str] = []
    for item in output_items(result.response):
        kind = item.get("type")
        if kind == "function_call":
            names[str(item.get("call_id"))] = str(item.get("name"))
            arguments[str(item.get("call_id"))] = str(item.get("arguments") or "{}")
            said.append(str(item.get("arguments") or ""))
            said += _argument_texts(item.get("arguments"))  # as written, not JSON-escaped
        elif kind == "message":
            said.append(json.dumps(item.get("content"), ensure_ascii=False))
        elif kind == "function_call_output":
            name = names.get(str(item.get("call_id")), "a tool")
            args = arguments.get(str(item.get("call_id")), "{}")
            yield name, str(item.get("output", "")), "\n".join(said), args


def rollout_leaks(
    result: RunResult,
    secrets: list[Secret],
    label: str,
    discovered_by: set[tuple[str, str, str]] | frozenset[tuple[str, str, str]] = frozenset(),
) -> list[Leak]:
    """Leaks in the tool outputs and errors of one rollout (`label` names it). A secret of
    `discovered_by` ((field, leaf key, tool): a fact to discover, `discovered`) is not
    searched for in that tool's outputs; it still is in its errors."""
    leaks = []
    for i, (name, output, said, args) in enumerate(tool_outputs_in_order(result), 1):
        kind = "error" if output.startswith("Error") else "output"
        kept = [
            s for s in secrets if kind == "error" or (s.field, s.key, name) not in discovered_by
        ]
        leak = first_leak(output, kept, said, f"{label}, {name} {kind} #{i}", result.task_id)
        if leak is not None:
            leaks.append(replace(leak, call=(name, args), output=output))
    return leaks


def discovered(result: RunResult | None, secrets: list[Secret]) -> set[tuple[str, str, str]]:
    """(secret field, leaf key, tool) for each secret honest play itself reads from a tool's
    output and sends on whole, as an argument's value, in a later call (a ticket's barcode
    `lookup` prints, scanned with `admit`): what that tool prints of that leaf is a fact
    the task means the policy to discover through its tools, which the author's guide says
    is no secret. Only distinctive values (a barcode, not `yes`), read from outputs that are
    no errors."""
    if result is None:
        return set()
    seen: dict[str, str] = {}  # value -> the tool that printed it
    out: set[tuple[str, str, str]] = set()
    for name, output, _, args in tool_outputs_in_order(result):
        sent = _sent_values(args)
        for secret in secrets:
            text = secret.text.strip()
            if secret.distinctive and text in seen and text in sent:
                out.add((secret.field, secret.key, seen[text]))
        if not output.startswith("Error"):
            for secret in secrets:
                if secret.distinctive and find(output, secret):
                    seen.setdefault(secret.text.strip(), name)
    return out


def _sent_values(arguments: str) -> set[str]:
    """Every scalar of a call's arguments (JSON), as text, stripped: the values sent whole."""
    try:
        value = loads_limited(arguments)
    except (ValueError, RecursionError):
        return set()
    out: set[str] = set()
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            stack += list(v.values())
        elif isinstance(v, list):
            stack += v
        elif v is not None and not isinstance(v, bool):
            out.add(str(v).strip())
    return out
