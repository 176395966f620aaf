"""A count of whole things taken as a fraction: 2.5 packs, 1.5 tickets.

Where an argument counts indivisible things (its name, or its description, says so: `packs`,
`tickets`, `number of seats`) and honest play passes a whole number, the grammar tries half a
thing less (`values.candidates`, source `fraction`). A tool that takes it and a verifier that
pays the world it leaves (2.5 sacks: exactly the need, nothing spare) let a policy buy what
cannot be bought: a count typed as a float. So does a reply that answers "how many full
cartons" with 41.6 (`asks_for_a_count`: the verifier truncated or rounded it into the truth).
"""

from __future__ import annotations

import re
from typing import Any

#: names of indivisible things an argument may count (not servings, doses, units or bars:
#: half a serving, half a tablet, 2.5 insulin units and 1.5 bar of pressure are honest)
_COUNTED = re.compile(
    r"(?:^|_)(?:count|counts|num|number|packs?|packets?|sacks?|bags?|boxes|box|cases?|crates?|"
    r"pallets?|bottles?|cans?|tins?|jars?|cartons?|kegs?|loaves|rolls?|bundles?|tickets?|seats?|"
    r"passes|copies|pieces?|items?|people|persons?|guests?|adults|children|nights?|rooms?|"
    r"beds?|sessions?|slots?|trays?|bales?|sheets?)(?:$|_)",
    re.I,
)
_DESCRIBED = re.compile(r"\b(?:number of|how many|whole)\b", re.I)


def counts_whole_things(key: str, tool: str, schemas: list[dict[str, Any]]) -> bool:
    """Whether argument `key` of `tool` counts indivisible things: its name says so, or its
    description does ("the number of packs"). An argument the schema types `integer` is
    left out: its schema already refuses half a thing."""
    for schema in schemas:
        if schema.get("name") != tool:
            continue
        props = (schema.get("parameters") or {}).get("properties") or {}
        prop = props.get(key) if isinstance(props, dict) else None
        if isinstance(prop, dict):
            if prop.get("type") == "integer":
                return False
            if _DESCRIBED.search(str(prop.get("description") or "")):
                return True
    return bool(_COUNTED.search(key))


_HOW_MANY = re.compile(r"\bhow\s+many((?:\s+[a-z-]+){1,3})", re.I)


def asks_for_a_count(words: str) -> str | None:
    """The phrase in which the task's words ask for a count of indivisible things ("how
    many full cartons"), or None: a question whose answer a fraction cannot be."""
    for m in _HOW_MANY.finditer(words):
        after = m.group(1).split()
        for n, word in enumerate(after):  # "how many full cartons": the noun a word or two on
            if _COUNTED.search(word):
                return " ".join(["how many", *after[: n + 1]])
    return None
