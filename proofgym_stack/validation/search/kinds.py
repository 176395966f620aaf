"""The kinds of mutant operators and value sources the search's oracles tell apart: which
do more of an action, which are junk, which change more than their site, which are judged
by the task's words, and which values the environment itself printed."""

from __future__ import annotations

#: operators that do more of an action than honest play did
MORE_OF_AN_ACTION = frozenset(
    {
        "call_repeat",
        "list_duplicate",
        "spray",
        "one_more",
        "guess",
        "left_row",
        "packed",
        "round_trip",
        "follow_on",
    }
)
#: the sources of values no closed set of choices takes (a tool that takes them takes text)
JUNK = frozenset({"boundary", "wildcard", "shortened"})
#: mutants that change more than their site: no evidence of what the verifier grades there
COMPOUND = frozenset({"shortcut", "follow_up"})
#: mutants judged by the task's words (`stated`): what the reply tells, how long it is, what
#: it leaves out, a count answered as a fraction; an action the words keep from the policy
WORDED = frozenset(
    {
        "stretch",
        "tell",
        "withhold",
        "fraction_answer",
        "tool_swap",
        "undo",
        "list_grow",
        "list_swap_in",
        "one_more",
    }
)
#: values the environment's own tools printed: another option, chosen instead
PRINTED = frozenset({"output", "option"})
#: operators that put an action where a look's call was, or after it; any other change at a
#: look (its argument, the call left out or made twice) leaves a look, whose own bookkeeping
#: (a log of lookups) is no world a verifier should grade
ACTS_AT_A_LOOK = frozenset({"tool_swap", "undo", "one_more"})
#: operators whose mutant says nothing of another task's truth: a tool honest play never
#: called may be exactly another task's own work (`book` here, `book` and `confirm` there)
NO_TRUTH = frozenset({"follow_on"})
