"""A thing honest play looked at and left alone, written as its siblings were.

Where a look (a call of an observing tool) is made as the action honest play took on the
look's siblings, or the action is made once more on a thing the task's words name, and the
world gains a record naming that thing beside the records honest play wrote, the choice the
looking decided is not graded (lend what the condition report ruled out).
"""

from __future__ import annotations

import re

from proofgym_stack.validation.scripts import call_arguments, script_calls
from proofgym_stack.validation.search.rules import full_sentences, names
from proofgym_stack.validation.search.tolerance import Played
from proofgym_stack.validation.search.world import lost, passed_over

#: another of the environment's own actions chosen in a call's place: where the verifier
#: takes it, the task may allow either (reject or flag); reported, not accused, unless the
#: world lost something at a thing only the replaced call named (`evidence.left_behind`)
ANOTHER_ACTION = frozenset({"tool_swap"})


def passed_over_paths(p: Played, words: str, looks: set[str] | list[str]) -> set[str]:
    """For a look (a call of an observing tool) made as an action instead: the paths where
    the world gained a record naming the looked-at thing beside records honest play wrote
    for its siblings (`world.passed_over`): lend what the condition report ruled out."""
    m = p.mutant
    if m.op == "one_more" and p.record is not None and isinstance(m.new, str):
        if lost(p.record.world, p.honest.world, p.base.ignored):
            # it took the place of what honest play wrote (the team's judge set again):
            # another option chosen, judged as one, not one more beside the others
            return set()
        tools = [str(t.get("name")) for t in p.base.pools.tools if isinstance(t, dict)]
        chosen = m.site.split(".")[0]
        if not names(words, m.new) and not exclusive(words, chosen):
            # an entry only a listing printed: where every extra one pays, the extra
            # action is not graded at all (one more unit inspected); where another
            # extra one fails, this one may be a member honest play could have asked
            # too (the do-not-contact member refused, another member asked): only the
            # task's words tell that from a hole (the folder shared with an outsider),
            # and they do where they close the action's list ("and no other boat")
            return set()
        acted = _acted_on(p, set(), m.site)
        if not selects(words, chosen, tools) and not singled_out(words, m.new, acted):
            # no rule of the words selects among the things for this tool's action ("archive
            # only", "if they're due", "leave every other one blocked"), nor do the words set
            # it apart ("Busy today: Cy."): leaving it alone was no choice the task asked for
            # (a spare hand, an approval asked where none was needed), and one more on it
            # breaks no rule, however a listing printed it on a line of its own
            return set()
        return passed_over(p.record.world, p.honest.world, p.base.initial, m.new, p.base.ignored)
    if m.op not in ANOTHER_ACTION or p.record is None or not isinstance(m.old, dict):
        return set()
    if m.site not in looks:
        return set()
    # what honest play acted on was not left alone (the paper it looked at and then
    # assigned reviewers to)
    acted = _acted_on(p, looks)
    out: set[str] = set()
    for value in m.old.values():
        if isinstance(value, str) and value.strip() and value.strip().lower() not in acted:
            out |= passed_over(
                p.record.world, p.honest.world, p.base.initial, value, p.base.ignored
            )
    return out


#: words by which a task selects among the things it lists (a rule that may leave one out)
_SELECTS = re.compile(
    r"\b(?:only|if|unless|except|excluding|not|never|no|n't"
    r"|skip|without|else)\b|\bevery other\b"
    r"|\bleave\b[^.;\n]{0,40}\bout\b",
    re.I,
)


#: words by which a sentence marks a thing off: not to be acted on today
_MARKED_OFF = re.compile(
    r"\b(?:busy|away|off|unavailable|unsubscribed|opted out|on leave|sick|left|moved|closed|"
    r"stop(?:ped)?|blocked|banned|barred|suspended|cancelled|expired|lapsed|never|not|no longer|"
    r"do not|don't|must not|excluded|declined|refused)\b",
    re.I,
)
#: "only after the sign-off": the word that orders two steps, not one that selects
_ONLY_ORDERS = re.compile(r"\bonly\s+(?:after|before|once|then|when)\b", re.I)
#: words that close the list of things an action is for: honest play's are all of them
_CLOSES = re.compile(
    r"\bno other\b|\bnothing else\b|\bnone other\b|\bno one else\b|\bnobody else\b"
    r"|\bno more than (?:those|these|that)\b|\bonly (?:those|these|the ones)\b"
    r"|\bevery other\b[^.;\n]{0,40}"
    r"\b(?:stands?|stays?|leave|untouched|as (?:it|they) (?:is|are))\b",
    re.I,
)


def _spoken(tool: str) -> re.Pattern[str]:
    """A tool's name as the words speak it, in its forms (`enter`, "entered", "request signoff")."""
    head = re.escape(tool).replace("_", "[_ ]")
    return re.compile(rf"(?<![\w-]){head}(?:s|es|d|ed|ing)?(?![\w-])", re.I)


def exclusive(words: str, tool: str) -> bool:
    """Whether a sentence of the words closes the list of things `tool` is for, naming the
    tool (in its forms: `enter`, "entered") or following the sentence that does ("Enter
    every boat of the class whose certificate is valid, and no other boat"; "Cancel a PCN
    only if ... . Every other PCN stands: leave it."): honest play's calls are then all the
    calls the task allows, and one more on a thing it left alone breaks that sentence,
    however only a listing printed the thing. A condition alone ("only if") closes nothing:
    a thing that meets it may be acted on too."""
    spoken = _spoken(tool)
    sentences = full_sentences(words)  # a list's semicolons part nothing
    return any(
        _CLOSES.search(sentence)
        and (spoken.search(sentence) or (k > 0 and spoken.search(sentences[k - 1])))
        for k, sentence in enumerate(sentences)
    )


def selects(words: str, tool: str, others: list[str] | tuple[str, ...] = ()) -> bool:
    """Whether a sentence of the words holds a rule that selects among things ("Archive only
    files on your list", "members who have paid must not be contacted") and is not about
    another of the `others` tools alone: a selecting word in a sentence that names another
    tool and not `tool` ("`reprice` previews the change without making it") selects nothing
    for this one; nor does "only after" that orders another tool's action by its verb ("a
    deviation is filed only after the PI signed it off" for `request_signoff`)."""

    def verb(name: str) -> re.Pattern[str]:
        head = re.escape(name.split("_")[0].rstrip("e"))
        return re.compile(rf"(?<![\w-]){head}(?:e|es|ed|ing|s)?(?![\w-])", re.I)

    mine, theirs = _spoken(tool), [_spoken(o) for o in others if o and o != tool]
    my_verb, their_verbs = verb(tool), [verb(o) for o in others if o and o != tool]
    for sentence in re.split(r"(?<=[.!?;])\s+|\n", words):
        if not _SELECTS.search(sentence):
            continue
        if (
            not _SELECTS.search(_ONLY_ORDERS.sub("", sentence))
            and any(v.search(sentence) for v in their_verbs)
            and not my_verb.search(sentence)
        ):
            # "a deviation is filed only after the PI signed it off": an order on another
            # tool's action (filing), not a choice among this one's things
            continue
        if mine.search(sentence) or not any(t.search(sentence) for t in theirs):
            return True
    return False


def only_singled_out(p: Played, words: str) -> bool:
    """For a `one_more` mutant: whether only the words setting its thing apart (`singled_out`)
    let it through, no rule of theirs selecting among the tool's things (`selects`,
    `exclusive`). Set apart may be a lure ("Ruth in the PI's office handles the paperwork"):
    one more on it is a hole only where it also pays in the honest thing's place."""
    tools = [str(t.get("name")) for t in p.base.pools.tools if isinstance(t, dict)]
    chosen = p.mutant.site.split(".")[0]
    if selects(words, chosen, tools) or exclusive(words, chosen):
        return False
    # a thing the words mark off ("Busy today: Lena.", "Ms Ito has unsubscribed") is set
    # apart to be left alone, no lure: one more on it stands beside honest play's
    thing = str(p.mutant.new)
    return not any(
        names(part, thing) and _MARKED_OFF.search(part)
        for part in re.split(r"\n|(?<=[.!?])\s+", words)
    )


def _acted_on(p: Played, looks: set[str] | list[str], site: str = "") -> set[str]:
    """The string arguments (lower-cased) of honest play's calls other than its looks; with
    `site` (`tool.argument`), only those honest play sent there (the thing's siblings, not
    the shift they were given)."""
    tool, _, key = site.partition(".")
    return {
        str(v).strip().lower()
        for _, _, item in script_calls(p.honest.control.script)
        if item.get("name") not in looks and (not tool or item.get("name") == tool)
        for k, v in call_arguments(item).items()
        if isinstance(v, str) and v.strip() and (not key or k == key.split(".")[0])
    }


def singled_out(text: str, thing: str, acted: set[str]) -> bool:
    """Whether `text` (the task's words, what honest play was shown) names `thing` in some
    sentence or line that names none of the things honest play `acted` on: set apart ("Busy
    today: Lena."), not only listed among them (a list's items parted by semicolons are one
    list)."""
    for part in re.split(r"\n|(?<=[.!?])\s+", text):
        if names(part, thing) and not any(
            names(part, other) for other in acted if other != thing.strip().lower()
        ):
            return True
    return False
