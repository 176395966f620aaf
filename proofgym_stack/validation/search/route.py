"""A route ridden the wrong way down a one-way link the listing shows.

A listing of links between places (`Market Cross -> Bell Yard: 180 m (one-way)`, `Depot <->
Bell Yard: 220 m`) is a directed graph: an arrow one way is a link that may only be taken
that way. Where honest play sends a route (a list of places) whose every step is a link the
listing shows in its direction, a paid mutant whose route takes a step only the reverse link
allows (a stop left out, so Bell Yard goes straight to Market Cross) rode against the
direction the listing states: the verifier reads the links as undirected.
"""

from __future__ import annotations

import itertools
import re

from proofgym_stack.validation.scripts import Script, call_arguments, script_calls

#: a listing's line naming a link: `A -> B`, `A <-> B`, `A <- B` (or arrows), then its details
_LINK = re.compile(
    r"^\s*(?:[-*\u2022]\s+)?(?P<a>[^\n:<>\u2192\u2190\u2194]{1,40}?)\s*"
    r"(?P<arrow><-->|<->|<--|-->|<=>|->|=>|<-|\u2192|\u2190|\u2194)\s*"
    r"(?P<b>[^\n:(),;<>\u2192\u2190\u2194]{1,40}?)\s*(?=[:(),;]|$)",
    re.M,
)
_BOTH = {"<->", "<-->", "<=>", "\u2194"}
_BACK = {"<-", "<--", "\u2190"}


def links(shown: list[str]) -> set[tuple[str, str]]:
    """The directed links the listings show, by lower-case names: both ways for a two-way
    arrow, one way for a one-way one."""
    out: set[tuple[str, str]] = set()
    for text in shown:
        for m in _LINK.finditer(text):
            a, b, arrow = (
                m.group("a").strip().lower(),
                m.group("b").strip().lower(),
                m.group("arrow"),
            )
            if arrow in _BOTH:
                out |= {(a, b), (b, a)}
            elif arrow in _BACK:
                out.add((b, a))
            else:
                out.add((a, b))
    return out


def _routes(script: Script) -> list[list[str]]:
    """The list arguments of `script`'s calls made of two or more names."""
    out = []
    for _, _, item in script_calls(script):
        for value in call_arguments(item).values():
            if (
                isinstance(value, list)
                and len(value) >= 2
                and all(isinstance(v, str) for v in value)
            ):
                out.append([v.strip().lower() for v in value])
    return out


def wrong_way(honest: Script, mutant: Script, shown: list[str]) -> str | None:
    """A step of the mutant's route that only a link the other way allows, where every step
    of honest play's routes is a link in its direction: the reason, or None."""
    graph = links(shown)
    ours = _routes(honest)
    if not graph or not ours:
        return None
    if any((a, b) not in graph for route in ours for a, b in itertools.pairwise(route)):
        return None  # honest play's route is not read off this listing
    for route in _routes(mutant):
        for a, b in itertools.pairwise(route):
            if (a, b) not in graph and (b, a) in graph:
                return (
                    f"the route goes {a} to {b}, where the listing shows the link only the other "
                    f"way ({b} -> {a}), and honest play's every step follows a link's direction"
                )
    return None
