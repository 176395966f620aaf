"""A reply judged against the task's words: what it tells, how long it is, what it leaves out.

A changed reply that still pays is the policy's freedom, unless the task's words state a rule
it breaks and honest play's reply keeps: a value told that the words say not to tell (`tell`),
a reply past the length they cap (`stretch`), a value they ask for left out (`withhold`). So
is another printed option chosen in the honest one's place (`broken_rule`), and another action
taken that the words keep from the policy (`forbidden_action`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import replace
from difflib import SequenceMatcher
from functools import partial

from proofgym_stack.validation.negatives import prompt_text
from proofgym_stack.validation.scripts import (
    Script,
    call_arguments,
    final_reply,
    refused_calls,
    script_calls,
)
from proofgym_stack.validation.search.aged import under_age_rule
from proofgym_stack.validation.search.banned import banned_pairing
from proofgym_stack.validation.search.caps import (
    over_length,
    summed_past_cap,
    text_past_length,
    world_past_cap,
)
from proofgym_stack.validation.search.counts import asks_for_a_count
from proofgym_stack.validation.search.fits import does_not_fit
from proofgym_stack.validation.search.forbidden import forbidden_action
from proofgym_stack.validation.search.grades import short_grade
from proofgym_stack.validation.search.in_full import short_of_in_full
from proofgym_stack.validation.search.instead import described_instead, named_instead
from proofgym_stack.validation.search.invariants import below_zero, past_a_bound_in_its_name
from proofgym_stack.validation.search.kept import rest_changed
from proofgym_stack.validation.search.matches import lacks_the_asked
from proofgym_stack.validation.search.mutants import Mutant
from proofgym_stack.validation.search.neighbours import neighbours_repeat
from proofgym_stack.validation.search.objective import chosen_noun, worse_option
from proofgym_stack.validation.search.offsets import lead_broken
from proofgym_stack.validation.search.priced import over_budget
from proofgym_stack.validation.search.ratio import short_of_a_ratio
from proofgym_stack.validation.search.route import wrong_way
from proofgym_stack.validation.search.rules import (
    UNITS,
    bounds,
    clauses,
    crossed,
    marked_off,
    ruled_off,
    stem,
    told_off,
)
from proofgym_stack.validation.search.runs import broken_run
from proofgym_stack.validation.search.scales import below_the_need
from proofgym_stack.validation.search.spans import span_past_a_bound
from proofgym_stack.validation.search.stride import step_past_a_cap
from proofgym_stack.validation.search.tolerance import Played
from proofgym_stack.validation.search.values import described as descriptions
from proofgym_stack.validation.search.values import numbers, tool_properties
from proofgym_stack.validation.search.withheld import asking_clause, still_withheld
from proofgym_stack.validation.search.world import changed


def stated(
    p: Played, words: str, looks: frozenset[str] | set[str] = frozenset()
) -> tuple[str | None, Callable[[Script], bool] | None]:
    """For a reply changed against the task's words, or another action taken: the rule it
    breaks that honest play keeps (a value told that the words say not to tell, a reply
    past the length they cap, a value they ask for left out, an action they keep from the
    policy), and what the shrinker keeps true of it."""
    m = p.mutant
    rule: str | None
    if m.op in ("tool_swap", "undo"):
        found = forbidden_action(p, words, set(looks))
        if found is None:
            return None, None
        tool = found[1]
        return found[0], lambda s: any(item.get("name") == tool for _, _, item in script_calls(s))
    if m.op == "fraction_answer":
        asked = asks_for_a_count(words)
        said = str(m.new)
        why = f"the task asks for a count of whole things ({asked!r}); the reply says {said}"
        return (why if asked else None), lambda s: said in final_reply(s)
    if m.op == "tell":
        told = str(m.new).lower()
        rule = told_off(str(m.new), [t for _, t in p.base.pools.printed], words)
        return rule, lambda s: told in final_reply(s).lower()
    if m.op in ("list_grow", "list_swap_in", "one_more"):  # another entry acted on: a rule?
        added = str(m.new)
        return acted_on_too(p, words), lambda s: any(
            added in json.dumps(item.get("arguments", "")) for _, _, item in script_calls(s)
        )
    if m.op == "withhold":
        clause = asking_clause(str(m.old), words)
        rule = f"the reply leaves out the {m.old} the task asks for ({clause!r})"
        return (rule if clause else None), partial(still_withheld, str(m.new))
    honest = final_reply(p.honest.control.script)
    arguments = " ".join(
        str(v.get("description") or "")
        for t in p.base.pools.tools
        if isinstance(t, dict)
        for v in tool_properties([t], str(t.get("name", ""))).values()
    )
    rule = over_length(honest, final_reply(m.script), words, arguments)
    return rule, lambda s: over_length(honest, final_reply(s), words, arguments) is not None


def acted_on_too(p: Played, words: str) -> str | None:
    """For one more entry of a listing acted on beside honest play's (added to a list, the
    action made once more), where that call took effect: a rule it breaks that the listing
    prints on the entry or the words state of its values (a bound, a file type), or None.
    That the words name honest play's entry and not this one is no rule against acting on
    more."""
    m = p.mutant
    calls = script_calls(m.script)
    at = (
        m.call_at
        if m.op in ("list_grow", "list_swap_in")
        else (m.extra_at or (calls[-1][:2] if calls else None))
    )
    if at is None or at in refused_calls(m.script, p.result) or None in (m.old, m.new):
        return None
    if p.record is None or not changed(p.honest.world, p.record.world):
        return None  # the tool took it without error and did nothing with it
    shown = p.base.pools.shown
    return (
        crossed(m.old, m.new, shown, words)
        or marked_off(m.old, m.new, shown)
        or short_grade(m.old, m.new, shown, words)
        or wrong_file_type(str(m.old), str(m.new), words)
    )


def broken_rule(p: Played, words: str) -> str | None:
    """For another printed option chosen in the honest one's place: the rule the task's
    words (prompt and instructions) state that it breaks and the honest option keeps
    (`options.crossed`; an objective it ranks worse on, `objective`), or None."""
    m = p.mutant
    if m.op not in ("argument", "follow_up") or m.old is None or m.new is None:
        return None
    shown = [*p.base.pools.shown, *p.base.pools.before]
    unit = _unit_of(m.leaf)
    return (
        (unit is not None and crossed(f"{m.old} {unit}", f"{m.new} {unit}", shown, words))
        or crossed(m.old, m.new, shown, words)
        or marked_off(m.old, m.new, shown)
        or worse_option(m.old, m.new, shown, words, chosen_noun(m.leaf))
        or short_grade(m.old, m.new, shown, words)
        or broken_run(p, words)
        or wrong_file_type(str(m.old), str(m.new), words)
        or named_instead(m.old, m.new, words)
        or described_instead(m.old, m.new, shown, words)
        or ruled_off(
            m.old,
            m.new,
            p.base.pools.printed,
            words,
            p.base.pools.tool_words,
            prompt_text(p.base.task),
        )
        or does_not_fit(m.old, m.new, shown, words, prompt_text(p.base.task))
        or below_the_need(m.old, m.new, shown, words, prompt_text(p.base.task))
        or lacks_the_asked(m.old, m.new, shown, words, prompt_text(p.base.task))
        or over_budget(
            p.honest.control.script, m.script, m.site.split(".")[0], shown, words, m.old, m.new
        )
        or banned_pairing(p, words)
        or under_age_rule(p, words)
        or lead_broken(m.old, m.new, str(m.leaf[-1]) if m.leaf else "", shown, words)
    )


def _unit_of(leaf: tuple[str | int, ...] | None) -> str | None:
    """The unit an argument's name gives its bare numbers (`mhz`, `weight_kg`), or None."""
    name = str(leaf[-1]).lower() if leaf else ""
    last = name.rsplit("_", 1)[-1]
    return last if last in UNITS and len(last) > 1 else None


#: content a site's rules commonly keep out of what the policy writes, by the words naming it
_PHONE = re.compile(r"(?<!\d)\+?\d(?:[ ()-]?\d){8,}(?!\d)")
_CONTENT = (
    (re.compile(r"\bphone|\btelephone|\bmobile number", re.I), _PHONE),
    (re.compile(r"\be-?mail", re.I), re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+")),
    (re.compile(r"\b(?:url|link|website|web address)", re.I), re.compile(r"https?://|\bwww\.")),
)
_NOT_IN = re.compile(
    r"\b(?:must not|never|do not|don't|no|not allowed|forbidden|prohibited|without)\b", re.I
)


def forbidden_content(p: Played, words: str, looks: frozenset[str] = frozenset()) -> str | None:
    """For a text argument written longer than honest play's: content the added part holds
    (a phone number, an e-mail address, a link) that a clause of the task's words keeps out
    ("an ad must not contain a phone number"), or None."""
    m = p.mutant
    if not isinstance(m.old, str) or not isinstance(m.new, str):
        return None
    if typed := wrong_file_type(m.old, m.new, words):
        return typed
    if listed := looked_off(p, words, looks):
        return listed
    added = _added(m.old, m.new)
    if added is None:
        return None
    for clause in clauses(words):
        if not _NOT_IN.search(clause):
            continue
        for named, shape in _CONTENT:
            found = shape.search(added) if named.search(clause) else None
            if found:
                said = clause.strip()[:90]
                return f"it writes {found.group()!r}, which the task's words keep out ({said!r})"
    return None


def other_rules(p: Played, words: str, looks: frozenset[str]) -> str | None:
    """A rule the words state that a paid mutant with another world breaks and honest play
    keeps: one value on two neighbouring slots (`neighbours`), a term a look lists that
    the words keep out (`looked_off`), a list past the count the words cap
    (`caps.world_past_cap`), fewer calls than a ratio the words state asks for
    (`ratio`), a number left below zero where the words ban it or past a bound in its own
    name (`invariants`), a step past the cap the words put on one (`stride`), the numbers
    sent for one thing past what the words let it hold (`caps.summed_past_cap`), a route
    against a one-way link the listing shows (`route`), a text longer than a length the
    words state (`caps.text_past_length`); or None."""
    if p.record is None:
        return None
    return (
        neighbours_repeat(p, words)
        or looked_off(p, words, looks)
        or world_past_cap(p.record.world, p.honest.world, words)
        or short_of_a_ratio(p, words)
        or below_zero(p, words)
        or past_a_bound_in_its_name(p, words)
        or step_past_a_cap(p, words)
        or banned_pairing(p, words)
        or summed_past_cap(
            p.honest.control.script,
            p.mutant.script,
            words,
            frozenset(refused_calls(p.mutant.script, p.result)),
        )
        or wrong_way(p.honest.control.script, p.mutant.script, p.base.pools.shown)
        or text_past_length(
            p.mutant.old,
            p.mutant.new,
            words,
            (p.mutant.site.split(".")[0], str(p.mutant.leaf[-1]) if p.mutant.leaf else ""),
        )
    )


def looked_off(p: Played, words: str, looks: frozenset[str]) -> str | None:
    """For a text value sent in honest play's place or beside it: a term a look lists that
    the words keep out (`listed_term`), or None."""
    m = p.mutant
    if not isinstance(m.old, str) or not isinstance(m.new, str):
        return None
    printed = [(tool, text) for tool, text in p.base.pools.printed if tool in looks]
    # a listing that holds honest play's own value is a catalogue to choose from, not a ban
    printed = [(tool, text) for tool, text in printed if not _a_term_of(m.old, text)]
    return listed_term(m.old, m.new, words, printed)


def _a_term_of(value: str, text: str) -> bool:
    """Whether a listing's `text` holds `value` as one of its terms."""
    terms = (t.strip(' -*\t."[]{}').lower() for t in _TERMS.split(text))
    return value.strip().lower() in terms


#: the separators of a listing's terms ("young, salesman, waitress"; one per line; bullets)
_TERMS = re.compile(r"[\n,;\u2022]+")


def listed_term(old: str, new: str, words: str, printed: list[tuple[str, str]]) -> str | None:
    """A term a look's listing prints (`printed`: the looks' outputs) that a clause of the
    words keeps out by naming the look after its negation ("must not use any term that
    `banned_terms` lists"), written in `new` and not in honest play's `old`; or None. A clause
    that allows only what the look lists ("do not use a title `approved_titles` does not
    list") keeps nothing it lists out."""
    for clause in clauses(words):
        negation = _NOT_IN.search(clause)
        if negation is None or _ALLOWS.search(clause, negation.end()):
            continue
        for tool, text in printed:
            named = {tool, tool.replace("_", " ")}
            after = clause[negation.end() :]
            if not any(re.search(rf"(?<!\w){re.escape(n)}(?!\w)", after, re.I) for n in named):
                continue
            for term in (t.strip(' -*\t."[]{}') for t in _TERMS.split(text)):
                if not 2 <= len(term) <= 40:
                    continue
                shape = re.compile(rf"(?<!\w){re.escape(term)}(?!\w)", re.I)
                if shape.search(new) and not shape.search(old):
                    said = clause.strip()[:90]
                    return (
                        f"writes {term!r}, which `{tool}` lists: the words keep it out ({said!r})"
                    )
    return None


#: a second negation or "only" after the first: the listing is what is allowed
_ALLOWS = re.compile(r"\b(?:only|not|n't|unlisted|except)\b", re.I)


_EXTENSION = re.compile(r"(?<![\w.])\.([a-z][a-z0-9]{1,4})\b", re.I)
_FILE = re.compile(r"^[^\s/\\]+\.([a-z][a-z0-9]{1,4})$", re.I)


def wrong_file_type(old: str, new: str, words: str) -> str | None:
    """For another file chosen beside or instead of honest play's: where a sentence of the
    words allows only some file types by their extensions ("open only PDF (.pdf) and Word
    (.docx) files"), the new file's type (its last extension) is not one of them and the
    honest file's is; or None."""
    a, b = _FILE.match(old.strip()), _FILE.match(new.strip())
    if a is None or b is None or a.group(1).lower() == b.group(1).lower():
        return None
    mine, theirs = a.group(1).lower(), b.group(1).lower()
    for sentence in re.split(r"(?<=[.!?])\s+(?=[A-Z])", words):
        named = {e.lower() for e in _EXTENSION.findall(sentence)}
        if re.search(r"\bonly\b", sentence, re.I):  # the types allowed
            if mine in named and theirs not in named:
                allowed = ", ".join(f".{e}" for e in sorted(named))
                return f"{new} is a .{theirs} file, and the words allow only {allowed}"
        elif (
            re.search(r"\b(?:never|not allowed|no)\b", sentence, re.I)  # the types kept out
            and theirs in named
            and mine not in named
        ):
            return f"{new} is a .{theirs} file, which the words keep out"
    return None


def _added(old: str, new: str) -> str | None:
    """What `new` writes beyond honest `old`: `new` without the runs it copies from `old` (at
    least four characters each); None where it copies less than half of `old`."""
    if old in new:
        return new.replace(old, " ", 1)
    blocks = [b for b in SequenceMatcher(None, new, old).get_matching_blocks() if b.size >= 4]
    if sum(b.size for b in blocks) < len(old) / 2:
        return None
    parts, at = [], 0
    for b in blocks:
        parts.append(new[at : b.a])
        at = b.a + b.size
    return " ".join([*parts, new[at:]])


_MAX_WORDS = re.compile(r"\b(?:at most|no more than|maximum|within|over the limit|up to)\b", re.I)
_MIN_WORDS = re.compile(r"\b(?:at least|no less than|minimum|or more)\b", re.I)
_LIMIT = re.compile(r"\b(?:limit|max(?:imum)?|min(?:imum)?|cap|allowance)\b", re.I)


def past_a_limit(p: Played, words: str) -> str | None:
    """A number past a limit a tool printed (`past_a_printed_limit`) or one the words state
    in the argument's own noun (`past_a_stated_count`), or a thing changed past the words'
    "leave every other one as it is" (`kept.rest_changed`), or a call's span past a length
    the words state (`spans`), or a payment short of the whole amount the words ask for
    (`in_full`), or None."""
    return (
        past_a_printed_limit(p, words)
        or past_a_stated_count(p, words)
        or rest_changed(p, words, p.base.ignored)
        or span_past_a_bound(p, words)
        or short_of_in_full(p, words)
    )


def past_a_stated_count(p: Played, words: str) -> str | None:
    """For a number sent in place of honest play's: the bound the task's words state in
    the argument's own noun ("up to 10 bags per household" for `bags`) that honest play's
    number keeps and the mutant's crosses; or None."""
    m = p.mutant
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (m.old, m.new))
    if not numeric or not m.leaf or m.old == m.new:
        return None
    noun = str(m.leaf[-1])
    for bound in bounds(words, noun):
        if not bound.kind.startswith("noun:"):
            continue
        if bound.direction == "upper" and m.old <= bound.value < m.new:
            return f"{m.new:g} {noun} is past {bound.phrase!r} (honest play: {m.old:g})"
        if bound.direction == "lower" and m.new < bound.value <= m.old:
            return f"{m.new:g} {noun} is short of {bound.phrase!r} (honest play: {m.old:g})"
    return None


def past_a_printed_limit(p: Played, words: str) -> str | None:
    """For a number honest play kept at a limit a tool printed ("no-decompression limit at
    30 m: 20 minutes") where the prompt asked for another: the mutant that pays with the
    asked number past it, on the side the task's words keep ("shortened to within it"). None
    where the words state no side, or the number is not such a limit."""
    m = p.mutant
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (m.old, m.new))
    if m.source not in ("prompt", "asked") or not numeric or m.old == m.new:
        return None
    upper, lower = bool(_MAX_WORDS.search(words)), bool(_MIN_WORDS.search(words))
    if upper == lower or not _LIMIT.search(words):
        return None
    if (upper and m.new < m.old) or (lower and m.new > m.old):
        return None  # on the side the limit allows
    for text in p.base.pools.shown:
        for line in text.splitlines():
            if _LIMIT.search(line) and float(m.old) in numbers(line):
                said = line.strip()[:70]
                limit = f"a limit a tool printed ({said!r})"
                return f"honest play kept {m.old:g}, {limit}: {m.new:g} is past it"
    return None


def _unique_clauses(noun: str) -> re.Pattern[str]:
    n = re.escape(noun)
    return re.compile(
        rf"\bno {n}e?s? (?:may|can|should|shall|must|is to)\s+(?:\w+\s+)?"
        rf"(?:two|twice|more than one)"
        rf"|\bone \w+ (?:per|to a|for each) {n}\b"
        rf"|\b(?:each|every) {n} (?:at most |only )?once\b"
        rf"|\b{n}e?s? (?:must|should) (?:all )?(?:be )?(?:differ|distinct|unique)"
        # "each ticket is good for one entry", "a single-use code", "each on their own ticket"
        rf"|\b(?:each|every|a|one) {n}e?s? (?:is |are )?(?:only )?(?:good|valid) (?:only )?"
        # "valid for one year" is a period of validity, not a single use
        rf"for (?:one|a single|1)\b(?!\s+(?:{_PERIODS})s?\b)"
        rf"|\bsingle[- ]use {n}"
        rf"|\b(?:each|every)\b[^.;:]{{0,30}}\b(?:on|with|using) (?:their|his|her|its) own {n}",
        re.I,
    )


_PERIODS = "second|minute|hour|day|night|week|month|year|season|term|session"


def _nouns(key: str, described: str) -> list[str]:
    """The argument's own noun (`code`) and the nouns its description names in a possessive
    ("the ticket's barcode": `ticket`, `barcode`): what the value is of; stemmed, at most
    four. Other words of a description name what the value relates to ("room where the
    session is held"), not what it holds."""
    words = [key.split(".")[0].split("_")[-1]]
    for owner, owned in re.findall(r"\b([A-Za-z]{3,})'s\s+([A-Za-z]{3,})", described):
        words += [owner, owned]
    out = [stem(w.lower()) for w in words]
    return [n for n in dict.fromkeys(out) if len(n) >= 3][:4]


def used_twice(m: Mutant, honest: Script, words: str, described: str = "") -> str | None:
    """For values given in turn over a tool's calls: one used twice where a clause of the
    words keeps each to one ("no desk may hold two candidates", "one candidate per desk",
    "each ticket is good for one entry", naming the argument or what its description says
    it holds) and honest play used none twice; or None."""
    tool, _, key = m.site.partition(".")

    def values(script: Script) -> list[str]:
        return [
            str(call_arguments(item).get(key))
            for _, _, item in script_calls(script)
            if item.get("name") == tool
        ]

    mine, theirs = values(m.script), values(honest)
    if len(set(mine)) == len(mine) or len(set(theirs)) < len(theirs):
        return None
    for noun in _nouns(key, described):
        rule = _unique_clauses(noun)
        for clause in clauses(words):
            if rule.search(clause):
                return f"a {noun} used twice, which the words keep to one ({clause.strip()[:90]!r})"
    return None


def reused(
    p: Played, words: str, looks: frozenset[str] | set[str] = frozenset()
) -> tuple[str, Callable[[Script], bool]] | None:
    """For one value given in turn over a tool's calls (`same_value`, alternated), whatever
    world it left: the rule of the words it breaks (`used_twice`), and what the shrinker
    keeps true of it, or None. A ticket scanned for two people where each is good for one entry pays
    on a gate that never marks it used, and leaves the same world as honest play."""
    m = p.mutant
    tool, _, key = m.site.partition(".")
    if tool in looks:
        return None  # a look made twice on one thing takes nothing twice
    described = descriptions(p.base.pools.tools, m.site).get(key, "")
    honest = p.honest.control.script
    rule = used_twice(m, honest, words, described)
    if rule is None:
        return None
    return rule, lambda s: used_twice(replace(m, script=s), honest, words, described) is not None
