"""An action the task's words keep from the policy, taken in a call's place or after the last.

A tool the words forbid or give to someone else ("bypass_interlock is for rescue crews
only", "an approving review by a maintainer other than its author"), and a tool the words
say records work not done ("logs a hydrant you could not inspect") taken in place of the
call that did that work: honest play did the work, so a record that it could not be done,
paid as done, is no honest answer.
"""

from __future__ import annotations

import re

from proofgym_stack.validation.scripts import script_calls, tool_outputs
from proofgym_stack.validation.search.rules import clauses
from proofgym_stack.validation.search.tolerance import Played

#: a clause that keeps an action from the policy: forbidden, or someone else's
_KEPT_FROM = re.compile(
    r"\b(?:never|do not|don't|must not|may not|not allowed|forbidden|prohibited|"
    r"for [\w\s]{1,30} only|reserved for|fails the (?:job|task))\b",
    re.I,
)


def _near(spoken: str, clause: str) -> bool:
    """Whether a mark that keeps an action from the policy stands within five words of the
    action's name in `clause` ("Do not move or cancel", "bypass_interlock(lift) is for rescue
    crews only"; not "must not be approved: reject it, or send it back with flag")."""
    for name in re.finditer(rf"\b{spoken}\b", clause, re.I):
        for mark in _KEPT_FROM.finditer(clause):
            between = clause[min(mark.end(), name.end()) : max(mark.start(), name.start())]
            if len(re.findall(r"[\w(),]+", between)) <= 5:
                return True
    return False


def _refused_tools(p: Played) -> set[str]:
    """The tools whose calls the mutant made were all refused (an error): they did nothing."""
    outputs = tool_outputs(p.result)
    calls = [str(item.get("name")) for _, _, item in script_calls(p.mutant.script)]
    done = {name for name, out in zip(calls, outputs, strict=False) if not out.startswith("Error:")}
    return set(calls) - done


def forbidden_action(p: Played, words: str, looks: set[str]) -> tuple[str, str] | None:
    """For another of the environment's actions (not a look) taken in a call's place or
    after the last: the clause of the task's words that keeps that action from the policy
    ("bypass_interlock(lift) is for rescue crews only"), and the action; or None."""
    if p.mutant.op not in ("tool_swap", "undo"):
        return None
    honest = {str(item.get("name")) for _, _, item in script_calls(p.honest.control.script)}
    added = {str(item.get("name")) for _, _, item in script_calls(p.mutant.script)}
    added -= honest | looks | _refused_tools(p)
    for tool in sorted(added):
        spoken = re.escape(tool).replace("_", "[_ ]")
        for clause in clauses(words):
            # one's own approval beside the colleague's breaks no rule: only in place of an
            # action of honest play's does taking it oneself skip the other's part
            instead = p.mutant.op == "tool_swap" and p.mutant.site.split(".")[0] not in looks
            if _near(spoken, clause) or (instead and _someone_else(tool, clause)):
                said = clause.strip()[:90]
                return f"it takes {tool}, which the task's words keep from it ({said!r})", tool
        if p.mutant.op == "tool_swap" and (logged := _logs_not_done(tool, words, p)):
            return (
                f"it takes {tool} in place of {p.mutant.site.split('.')[0]}, which honest play "
                f"did: {tool} logs the work as not done ({logged!r}), and it is paid as done"
            ), tool
    return None


#: words that say a record is of work not done ("logs a hydrant you could not inspect")
_NOT_DONE = re.compile(
    r"\b(?:could not|couldn't|cannot|can't|unable to|failed to|was not|were not|not possible|"
    r"did not|didn't)\b",
    re.I,
)


def _logs_not_done(tool: str, words: str, p: Played) -> str | None:
    """The sentence of the words naming `tool`, or of its description, that says it records
    the very work the replaced call did as not done ("logs a hydrant you could not inspect"
    in place of `record_inspection`): a not-done phrase followed, within three words, by a
    word of the replaced tool's name. None where there is none (a conditional error, "fails
    if the meter was not registered", names no work of the replaced tool)."""
    replaced_tool = p.mutant.site.split(".")[0]
    work = {w.lower()[:5] for w in re.split(r"[_\W]+", replaced_tool) if len(w) >= 4}
    spoken = re.escape(tool).replace("_", "[_ ]")
    described = " ".join(
        str(t.get("description") or "")
        for t in p.base.pools.tools
        if isinstance(t, dict) and t.get("name") == tool
    )
    named = [c for c in clauses(words) if re.search(rf"(?<![\w]){spoken}(?![\w])", c, re.I)]
    for sentence in [*named, described]:
        for m in _NOT_DONE.finditer(sentence):
            after = re.findall(r"[A-Za-z]+", sentence[m.end() :])[:3]
            if any(w.lower()[:5] in work for w in after if len(w) >= 4):
                return sentence.strip()[:90]
    return None


#: a clause that gives an action to someone other than the one who asked for it: separation
#: of duties ("an approving review by a maintainer other than its author")
_SOMEONE_ELSE = re.compile(
    r"\b(?:other than (?:its|the|their|your|his|her) (?:own )?(?:author|requester|submitter|"
    r"owner|creator|applicant|maker|writer)s?|other than (?:you|yourself)|someone else|"
    r"somebody else|not by (?:you|yourself))\b",
    re.I,
)


def _someone_else(tool: str, clause: str) -> bool:
    """Whether `clause` gives the action `tool` names (its first word, as a verb in any of
    its forms: `approve` in "an approving review") to someone other than the one who asked
    for it: the policy, taking it itself, breaks a separation of duties."""
    head = tool.split("_", 1)[0].lower()
    if len(head) < 5 or not _SOMEONE_ELSE.search(clause):
        return False
    # the verb in its forms (`approve`: approves, approved, approving, approval), not any
    # word that starts alike (`request` is not `requester`)
    verb = re.escape(head[:-1] if head.endswith("e") else head)
    return re.search(rf"\b{verb}(?:e|es|ed|ing|al|s)?\b", clause, re.I) is not None
