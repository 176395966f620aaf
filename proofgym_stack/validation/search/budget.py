"""The draw: which of the grammar's mutants the budget plays.

Mutants are drawn in turn from each (operator, site), so that a long list argument's many
leaves cannot crowd out the other operators; inside a group, the values a policy reading the
task tries first come first, then a number one step off. Seeded and reproducible.
"""

from __future__ import annotations

import random
from collections import defaultdict
from typing import Any

from proofgym_stack.validation.search.mutants import Mutant


def within_budget(found: list[Mutant], budget: int, rng: random.Random) -> list[Mutant]:
    """At most `budget` mutants, drawn in turn from each (operator, site) so that a long list
    argument's many leaves cannot crowd out the other operators; seeded."""
    groups: dict[tuple[str, str], list[Mutant]] = defaultdict(list)
    for m in found:
        groups[(m.op, m.site)].append(m)
    order = sorted(groups)
    rng.shuffle(order)
    for key in order:
        rng.shuffle(groups[key])
        groups[key].sort(key=_drawn_first)
    out: list[Mutant] = []
    while len(out) < budget and any(groups.values()):
        for key in order:
            if groups[key] and len(out) < budget:
                out.append(groups[key].pop(0))
    return out


#: the sources drawn first in their group
FIRST = frozenset(
    {
        "schema",
        "option",
        "fraction",
        "other_task",
        "asked",
        "copied_whole",
        "quoted",
        "listing",
    }
)


def _drawn_first(m: Mutant) -> tuple[int, bool]:
    """A mutant's place in its group's draw: the values a schema names, the other options a
    listing printed, half a thing less, another task's truth, what the prompt asked for and
    the printed line a text was copied from, whole, first (what a policy reading them tries
    first); then a number one step off (the move
    that shows a bound's edge); then all a named thing holds (`held`); then the rest."""
    if m.source in FIRST:
        tier = 0
    elif one_step(m.old, m.new):
        tier = 1
    elif m.source == "held":  # all a thing holds, where honest play moved a part
        tier = 2
    else:
        tier = 3
    return tier, not m.first


def one_step(old: Any, new: Any) -> bool:
    """Whether `new` is a number one whole step from the number `old`."""
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (old, new))
    return numbers and abs(float(new) - float(old)) == 1
