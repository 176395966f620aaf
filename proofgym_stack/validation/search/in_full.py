"""A payment short of what honest play paid, where the words ask for the whole amount.

"The customer owes the loan plus interest ... release hands the item back once it is paid in
full": honest play pays what is owed, worked out to the penny. A mutant that pays less (a
pound short) and is still paid took the item for less than the words say is owed: the
verifier (or the guard it trusts) works the amount out otherwise, or not at all. An amount
the words ask for only at least ("a minimum payment") is not asked in full, and more than
honest play paid is slack, not a saving.
"""

from __future__ import annotations

import re

from proofgym_stack.validation.search.tolerance import Played

#: an argument that carries money paid
_PAID = re.compile(r"pay|paid|amount|settle|tender|deposit|remit", re.I)
#: words of paying and owing
_PAYING = re.compile(r"\b(?:pa(?:y|id|ys|ying|yment)\w*|owes?|owed|due|settled?)\b", re.I)
#: words that ask for the whole amount
_IN_FULL = re.compile(
    r"\b(?:in full|full amount|whole amount|to the (?:penny|cent)|exact amount|owes?|owed|"
    r"outstanding|balance due|amount due)\b",
    re.I,
)
#: words that ask only for at least an amount, or leave it to the payer
_AT_LEAST = re.compile(
    r"\b(?:at least|minimum payment|part[- ]pay\w*|instal?ments?|any amount|whatever|as much as|"
    r"something toward)\b",
    re.I,
)


def short_of_in_full(p: Played, words: str) -> str | None:
    """For a money amount sent smaller than honest play's and paid: the clause of the words
    that asks for the whole amount, as the rule broken; or None."""
    m = p.mutant
    numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (m.old, m.new))
    # a whole unit short (a pound), not a cent a verifier may round away
    if m.op != "argument" or not numeric or not m.leaf or not m.new <= m.old - 1:
        return None
    if not _PAID.search(str(m.leaf[-1])) or _AT_LEAST.search(words):
        return None
    for clause in re.split(r"(?<=[.;!?])\s+|\n", words):
        # the clause speaks of paying or owing (not another thing's "outstanding goal")
        if _IN_FULL.search(clause) and _PAYING.search(clause):
            said = " ".join(clause.split())[:90]
            return (
                f"{m.new:g} paid where honest play paid {m.old:g}, and the words ask the whole "
                f"amount ({said!r})"
            )
    return None
