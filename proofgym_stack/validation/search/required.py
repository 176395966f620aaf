"""An argument the task's words require, sent empty.

A free-text argument (a note, a reason) whose content no pass control's change fails is not
graded: another note is the policy's freedom. Sent empty, it is something else where the
words require it ("every closed job carries a close-out note"): the mutant leaves out what
the task asks for, and a verifier that pays it checks the argument's presence the wrong way
(a default `""` taken for a note). Only where a sentence of the words names the argument
with a requiring word; a note the words never ask for may be left out.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from proofgym_stack.validation.scripts import Script, call_arguments, script_calls
from proofgym_stack.validation.search.tolerance import Played
from proofgym_stack.validation.search.world import lost

#: words by which a sentence requires what it names
_REQUIRES = re.compile(
    r"\b(?:every|each|always|must|required|mandatory|carries|carry|needs?|includes?)\b", re.I
)
#: words that free it ("a note is not required", "you may add a note", "optional"), or put
#: it on a condition ("when you need to calculate, use the code tool"), and a sentence about
#: the final reply ("Finish with a short message") asks nothing of a tool
_FREES = re.compile(
    r"\b(?:not|no|never|n't|optional|optionally|may|can|if|when|whenever|unless)\b"
    r"|\b(?:finish|reply|respond|answer)\b",
    re.I,
)


def requiring_clause(key: str, words: str) -> str | None:
    """The sentence of `words` that requires the argument `key` (named as a word, `close_note`
    also as `close note`), or None."""
    spoken = re.escape(key.lower()).replace("_", "[ _-]")
    named = re.compile(rf"(?<![\w-]){spoken}s?(?![\w-])", re.I)
    for sentence in re.split(r"(?<=[.!?;])\s+|\n", words):
        if named.search(sentence) and _REQUIRES.search(sentence) and not _FREES.search(sentence):
            return " ".join(sentence.split())[:120]
    return None


def emptied_required(
    p: Played, words: str, looks: set[str] | frozenset[str] = frozenset()
) -> tuple[str, Callable[[Script], bool]] | None:
    """For a text argument of an action (not a look) sent empty (or blank) where honest play
    wrote prose there (three words or more: a note, not an id or a block's letter), leaving
    the world verify reads otherwise than honest play's: the rule the words state that asks
    for it, and what the shrinker keeps true; or None."""
    m = p.mutant
    if not isinstance(m.old, str) or len(m.old.split()) < 3 or not isinstance(m.new, str):
        return None
    if m.site.split(".")[0] in looks or p.record is None:
        return None
    if not lost(p.record.world, p.honest.world, p.base.ignored):
        return None  # left no trace the verifier could read (code run for a calculation)
    if m.new.strip() or not m.leaf or not isinstance(m.leaf[-1], str):
        return None
    key, tool = m.leaf[-1], m.site.split(".")[0]
    clause = requiring_clause(key, words)
    if clause is None:
        return None

    def still(script: Script) -> bool:
        return any(
            item.get("name") == tool and not str(call_arguments(item).get(key, "x")).strip()
            for _, _, item in script_calls(script)
        )

    return f"the {key} sent empty, where the task asks for one ({clause!r})", still
