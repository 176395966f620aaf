"""The reply reshaped: longer than any length the task states, or its count made a fraction.

`stretch` writes every word the tools printed after honest play's reply (joined by spaces,
and one word per line: the layout a word count splitting on spaces alone reads as one word);
`fraction_answer` gives the reply's whole last number as a fraction either side (what
truncating or rounding would take for it). Both are judged by the task's words (`stated`).
"""

from __future__ import annotations

import re

from proofgym_stack.validation.scripts import Script
from proofgym_stack.validation.search.mutants import Mutant, final_message

_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w])")


def stretched_mutants(script: Script, shown: list[str]) -> list[Mutant]:
    """The final message with every word honest play's tools printed after it, joined by
    spaces and laid out one word per line (a list): a reply far past any length the task
    states, in the layout a word count that splits on spaces alone reads as one word."""
    where = final_message(script)
    if where is None or not shown:
        return []
    t, i = where
    text = str(script[t][i].get("content") or "")
    printed = " ".join(shown).split()[:400]
    if not printed:
        return []
    out = []
    for sep, what in ((" ", "spaces"), ("\n", "one word per line")):
        turned = [list(turn) for turn in script]
        turned[t][i] = {"type": "message", "content": text + sep + sep.join(printed)}
        out.append(
            Mutant(
                turned,
                "stretch",
                "message",
                "stretch",
                f"final message + the tools' words ({what})",
            )
        )
    return out


def fraction_mutants(script: Script) -> list[Mutant]:
    """The reply's last number, a whole one, given as a fraction either side (41 as 41.4,
    41.6, 40.6): what truncating or rounding it would take for the whole number."""
    where = final_message(script)
    if where is None:
        return []
    t, i = where
    text = str(script[t][i].get("content") or "")
    numbers = list(_NUMBER.finditer(text))
    last = numbers[-1] if numbers else None
    if last is None or "." in last.group():
        return []
    out = []
    n = int(last.group())
    for new in (f"{n}.4", f"{n}.6", f"{n - 1}.6"):
        turned = [list(turn) for turn in script]
        content = text[: last.start()] + new + text[last.end() :]
        turned[t][i] = {"type": "message", "content": content}
        what = f"final message with its number {n} as {new}"
        out.append(Mutant(turned, "fraction_answer", "message", "fraction", what, new=new))
    return out
