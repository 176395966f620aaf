"""What an order costs, as the task's words price it: a budget crossed by another option.

Another option a listing printed (the premium grade for the standard) is the policy's
freedom until the words state a rule it breaks. A budget is such a rule, but the option's
record prints a unit price, not what the order costs: the cost is that price times the
call's own counts (6 bags), summed over the calls of that tool, plus a tax the words state
where they say the listed prices leave it out ("prices exclude VAT (20%)", a price printed
"+ VAT"). Where honest play's cost keeps a budget the words state and the other option's
breaks it, the verifier paid an order the words rule out.
"""

from __future__ import annotations

import re
from typing import Any

from proofgym_stack.validation.scripts import Script, call_arguments, script_calls
from proofgym_stack.validation.search.options import record_of
from proofgym_stack.validation.search.rules import bounds, quantities

#: a tax rate a clause states: "VAT (20%)", "20% VAT", "sales tax of 8.5%"
_RATE = re.compile(
    r"\b(?:vat|gst|sales tax)\b[^.;\n%]{0,20}?(\d{1,2}(?:\.\d+)?)\s?%"
    r"|(\d{1,2}(?:\.\d+)?)\s?%\s*(?:vat|gst|sales tax)\b",
    re.I,
)
#: words that say a listed price leaves the tax out
_NET = re.compile(
    r"\b(?:exclud\w*|excl\.?|ex|before|plus|not including|without)\s+(?:vat|gst|sales tax)\b"
    r"|\+\s*(?:vat|gst|tax)\b",
    re.I,
)
#: words that say a budget holds the tax ("VAT included", "including VAT", "inc. VAT")
_GROSS = re.compile(
    r"\b(?:vat|gst|sales tax|tax)\s+(?:included|inclusive)\b"
    r"|\b(?:includ\w*|incl\.?|inc\.?|with)\s+(?:vat|gst|sales tax|tax)\b",
    re.I,
)
#: an argument that counts things (`bags`, `qty`, `nights`): a plural name or a count's
_COUNT_KEY = re.compile(r"(?:^|_)(?:qty|quantity|count|units|amount|number|n)$|[a-z]{3,}s$", re.I)


def tax_rate(words: str, shown: list[str]) -> float:
    """The tax added to a listed price (0.2 for "prices exclude VAT (20%)"), or 0 where the
    words state no rate or never say the prices leave it out: read from the clause that says
    the prices leave it out, else from a clause stating a rate where a listing prints its
    prices "+ VAT"."""
    clauses = [c for c in re.split(r"[.;\n]\s", words) if c.strip()]
    for clause in clauses:
        if _NET.search(clause) and (found := _RATE.search(clause)):
            return float(found.group(1) or found.group(2)) / 100
    if any(_NET.search(t) for t in shown):
        for clause in clauses:
            if found := _RATE.search(clause):
                return float(found.group(1) or found.group(2)) / 100
    return 0.0


def cost(script: Script, tool: str, shown: list[str], rate: float) -> tuple[float, str] | None:
    """What `script`'s calls of `tool` cost: for each, the money its chosen option's record
    prints times the call's numbers (its counts), the tax added; with the currency. None
    where a call's option prints no price or two calls price in different currencies."""
    total, currency = 0.0, ""
    made = [item for _, _, item in script_calls(script) if item.get("name") == tool]
    if not made:
        return None
    for item in made:
        args = call_arguments(item)
        price = _price(args, shown)
        if price is None or (currency and price[1] != currency):
            return None
        counts = [
            float(v)
            for k, v in args.items()
            if isinstance(v, int) and not isinstance(v, bool) and v > 0 and _COUNT_KEY.search(k)
        ]
        n = 1.0
        for c in counts:
            n *= c
        total += price[0] * n * (1 + rate)
        currency = price[1]
    return total, currency


def _price(args: dict[str, Any], shown: list[str]) -> tuple[float, str] | None:
    """The unit price the record of the call's chosen option prints, with its currency."""
    for value in args.values():
        if not isinstance(value, str) or not value.strip():
            continue
        record = record_of(value, shown)
        money = [q for q in quantities(record or "") if q.kind.startswith("money:")]
        if len(money) == 1:
            return float(money[0].value), money[0].kind
    return None


def over_budget(
    honest: Script, mutant: Script, tool: str, shown: list[str], words: str, old: Any, new: Any
) -> str | None:
    """Where the mutant chose another option (`new` for `old`, both names) of `tool`: the
    budget the words state that its order breaks and honest play's keeps, priced as the
    words price it (tax added where the listed prices leave it out and the budget's own
    clause holds it), as a reason; None where no budget is crossed or an order cannot be
    priced."""
    if not isinstance(old, str) or not isinstance(new, str):
        return None  # another day or another count is no other option's price
    rate = tax_rate(words, shown)
    for bound in bounds(words):
        if not bound.kind.startswith("money:") or bound.direction != "upper":
            continue
        taxed = rate if _GROSS.search(_clause_of(bound.phrase, words)) else 0.0
        ours, theirs = cost(honest, tool, shown, taxed), cost(mutant, tool, shown, taxed)
        if ours is None or theirs is None or not ours[1] == theirs[1] == bound.kind:
            continue
        if ours[0] <= bound.value + 1e-9 < theirs[0] - 1e-9:
            with_tax = f", with {taxed:.0%} tax" if taxed else ""
            return (
                f"the order costs {theirs[0]:.2f}{with_tax}, past {bound.phrase!r} (honest "
                f"play's: {ours[0]:.2f})"
            )
    return None


def _clause_of(phrase: str, words: str) -> str:
    """The sentence of `words` that holds a bound's phrase (where "VAT included" is said)."""
    at = words.find(phrase.strip()[:30])
    if at < 0:
        return phrase
    start = max(words.rfind(". ", 0, at), words.rfind("\n", 0, at)) + 1
    ends = [e for e in (words.find(". ", at + len(phrase)), words.find("\n", at)) if e >= 0]
    return words[start : min(ends) if ends else len(words)]
