"""Answers a hostile policy tries first, built from the environment's own controls.

Each attack keeps the reference's actions and changes only what the policy says or passes:
- `hedged_candidates`: the right answer among wrong ones the environment itself recognises as
  wrong (other tasks' answers and the answer's numbers off by one where the answer is one
  short value; in prose, only wrong answers made of what this task showed), paid with the
  right one first and with it last;
- `padded_answer`: the right answer buried in the middle of those wrong ones, repeated to a
  long text;
- `look_alike_unicode`: the answer with every ASCII letter and digit swapped for a look-alike
  (Cyrillic, fullwidth, U+212A KELVIN SIGN), where the truth is in the answer's letters
  (the tasks' answers differ in their letters) and they are graded (other letters in their
  place fail): a verifier of a number is not accused of reading a fullwidth digit as the
  digit it is;
- `plausible_wrong_arguments`: the reference's tool calls with every argument changed to
  another plausible value, then a success claim (a list's members reordered is no change);
- `echoed_observations`: the reference's actions, then, for an answer, what its tools printed
  pasted back whole (no answer written: a dump).

The answer attacks apply only where the answer matters: where the reference's actions with an
empty final message fail. There, each must fail too. No attack needs the author's help.
"""

from __future__ import annotations

import json
import random
import re
import unicodedata
from typing import TYPE_CHECKING, Any

from proofgym.wire.protocol import Task
from proofgym_stack.validation.hedges import in_one_slot
from proofgym_stack.validation.look_alike import look_alike
from proofgym_stack.validation.negatives import CLAIM, prompt_text
from proofgym_stack.validation.scripts import (
    Script,
    call_arguments,
    outcome,
    refused_calls,
    script_calls,
    tool_outputs,
)

if TYPE_CHECKING:
    from proofgym_stack.validation.context import Context

PADDED_CHARS = 6000
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w])")
_WORD = re.compile(r"[a-z0-9]+(?:[.,][0-9]+)*")


def final_text(script: Script) -> str | None:
    """The text of the script's last message, when its last turn ends with one."""
    for item in reversed(script[-1] if script else []):
        if item.get("type") == "message" and isinstance(item.get("content"), str):
            return str(item["content"])
    return None


def with_final(script: Script, text: str) -> Script:
    """The script's actions, ending with `text` as its final message instead of its own."""
    last = script[-1] if script else []
    if last and all(i.get("type") == "message" for i in last):
        return [*script[:-1], [{"type": "message", "content": text}]]
    return [*script, [{"type": "message", "content": text}]]


def actions(script: Script) -> int:
    """How many tool calls the script makes."""
    return sum(1 for turn in script for i in turn if i.get("type") == "function_call")


def _numbers_off_by_one(text: str) -> list[str]:
    out = []
    for m in list(_NUMBER.finditer(text))[:3]:
        for delta in (1, -1):
            value = m.group()
            changed = str(int(value) + delta) if "." not in value else f"{float(value) + delta:g}"
            out.append(text[: m.start()] + changed + text[m.end() :])
    return out


def single_value(text: str) -> bool:
    """Whether an answer is one short value (`Answer: 42`, `Paris.`), where another task's
    answer is a wrong answer a policy could write too; a reply in prose is not."""
    return "\n" not in text.strip() and len(text.strip()) <= 80 and len(text.split()) <= 8


def offered(candidate: str, right: str, seen: str) -> bool:
    """Whether every word or number `candidate` has that `right` lacks was shown on this task
    (its prompt, its tools' outputs): an option of this question, not another task's."""
    mine = set(_WORD.findall(right.lower()))
    extra = [w for w in _WORD.findall(candidate.lower()) if w not in mine]
    shown = set(_WORD.findall(seen.lower()))
    return bool(extra) and all(w in shown for w in extra)


_OPTION_SPLIT = re.compile(r"\s*(?:[,;|]|\bor\b|\.\s)\s*")
#: an item of a listing that can be an option: a few words, no markup
_OPTION = re.compile(r"[\w+\-#°%()'./ ]{1,40}")


def shown_options(right: str, others: list[str], seen: str) -> list[str]:
    """The right answer with its truth (the part other tasks' answers change) swapped for
    each other item of the listing that shows it on this task (`Options: OH-, H2O, H3O+`):
    the question's own options, written in the answer's form."""
    truth = _distinct_part(right, others).strip() if others else ""
    if not truth or len(truth) > 40:
        return []
    out: list[str] = []
    for line in seen.splitlines():
        head, _, listed = line.rpartition(":")
        items = [i.strip(" .") for i in _OPTION_SPLIT.split(listed if head else line)]
        if truth not in items or not 2 <= len(items) <= 12:
            continue
        for item in items:
            if item != truth and _OPTION.fullmatch(item) and len(item.split()) <= 4:
                out.append(right.replace(truth, item))
    return list(dict.fromkeys(o for o in out if o != right))


def shown_all(right: str, seen: str) -> bool:
    """Whether every word and number of the right answer was shown on this task (a question
    that prints its options, `H2O` among `OH-, H2O, H3O+`): its wrong answers are the other
    options shown, not what other tasks answered."""
    words = set(_WORD.findall(right.lower()))
    return bool(words) and words <= set(_WORD.findall(seen.lower()))


def same_form(candidate: str, right: str) -> bool:
    """Whether another task's answer is written in this answer's form: one short value where
    it is one, and the same marks around the words (`<final_answer>`, `\\boxed{}`, brackets):
    a reply to another question in another format is no option of this one, and a candidate
    written outside this answer's slot is no second answer."""
    if single_value(right) and not single_value(candidate):
        return False
    return _marks(candidate) == _marks(right)


def _marks(text: str) -> set[str]:
    """The marks around an answer's words: what is neither a word, a number, nor a space
    (nor a sentence's closing stop or a number's sign)."""
    return set(re.sub(r"[\w.\-+\s]+", "", text))


def shown_to_policy(v: Context, task: Task) -> str:
    """What the policy saw on `task`: the prompt and the reference's tool outputs."""
    reference = v.reference_result(task.task_id)
    outputs = tool_outputs(reference) if reference is not None else []
    return "\n".join([prompt_text(task), *outputs])


def candidates(right: str, others: list[str], rng: random.Random) -> list[str]:
    """Wrong answers of the same form: other tasks' answers and the answer's numbers moved."""
    pool = [o for o in dict.fromkeys(others) if o and o != right] + _numbers_off_by_one(right)
    pool = [c for c in dict.fromkeys(pool) if c != right]
    rng.shuffle(pool)
    return pool[:3]


def _perturbed(value: Any, pool: list[Any]) -> Any:
    choices = [p for p in pool if p != value and type(p) is type(value)]
    if choices:
        return choices[0]
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        return (value[::-1] if value[::-1] != value else value + "x") if value else "x"
    if isinstance(value, list):
        return list(reversed(value)) if len(value) > 1 else []
    if isinstance(value, dict):
        return {k: _perturbed(v, []) for k, v in value.items()}
    return value


def _values(script: Script) -> list[str]:
    """Every argument value of a script's calls, whatever call or name it is under."""
    return sorted(
        json.dumps(v, sort_keys=True)
        for _, _, item in script_calls(script)
        for v in call_arguments(item).values()
    )


def _task_values(data: Any) -> list[Any]:
    """Every scalar leaf of task data."""
    if isinstance(data, dict):
        return [v for x in data.values() for v in _task_values(x)]
    if isinstance(data, list):
        return [v for x in data for v in _task_values(x)]
    return [data]


def wrong_arguments(
    script: Script, pools: dict[tuple[str, str], list[Any]], task_data: dict[str, Any]
) -> list[Script]:
    """Scripts that make the reference's calls with plausible wrong arguments: one with every
    argument changed and a success claim at the end, then, for the reference's last call (the
    one that commits: a read with a wrong path before the right actions is an honest detour),
    one per argument that the task data fixes (its value is a value of the task: a name, a
    slot, an id), with only that argument changed and the reference's own final message.
    Another value is another task's value for the same tool and argument where there is one.
    Free arguments (a reason, a message body) are changed only in the first."""
    fixed = {json.dumps(v) for v in _task_values(task_data)}
    positions = []
    calls = [
        (t, i, item)
        for t, turn in enumerate(script)
        for i, item in enumerate(turn)
        if item.get("type") == "function_call"
    ]
    if calls:  # the last call commits (book, write, send); earlier ones may be honest detours
        t, i, item = calls[-1]
        for key, value in call_arguments(item).items():
            positions.append((t, i, key, json.dumps(value) in fixed))

    def changed(only: tuple[int, int, str] | None, pooled: bool = True) -> Script:
        turns: Script = []
        for t, turn in enumerate(script):
            items = []
            for i, item in enumerate(turn):
                args = call_arguments(item) if item.get("type") == "function_call" else None
                if not args:
                    items.append(item)
                    continue
                new = {
                    k: _perturbed(v, pools.get((item["name"], k), []) if pooled else [])
                    if only is None or only == (t, i, k)
                    else v
                    for k, v in args.items()
                }
                items.append({**item, "arguments": new})
            turns.append(items)
        return turns

    def perturbed(only: tuple[int, int, str] | None) -> Script:
        out = changed(only)
        if out != script and _values(out) == _values(script):
            # the script's own values moved between its calls or arguments (add 1 then 2 is
            # add 2 then 1; add(a, b) is add(b, a)): the same acts, no perturbation of the
            # truth, so a pass would prove nothing; each value moved on its own instead
            out = changed(only, pooled=False)
        return out

    out = []
    every = perturbed(None)
    if every != script:
        calls_only = [[i for i in turn if i.get("type") == "function_call"] for turn in every]
        out.append([*[t for t in calls_only if t], [{"type": "message", "content": CLAIM}]])
    for t, i, key, is_fixed in positions:
        if is_fixed:
            one = perturbed((t, i, key))
            if one != script:
                out.append(one)
    return out[:5]


def argument_pools(scripts: list[Script]) -> dict[tuple[str, str], list[Any]]:
    """Every value each tool's arguments take in `scripts`, by (tool, argument)."""
    pools: dict[tuple[str, str], list[Any]] = {}
    for script in scripts:
        for turn in script:
            for item in turn:
                args = item.get("arguments")
                if item.get("type") == "function_call" and isinstance(args, dict):
                    for k, v in args.items():
                        pools.setdefault((item["name"], k), []).append(v)
    return pools


async def check_answers(v: Context) -> None:
    """Run the four attacks on each sampled task; each must fail where it applies."""
    rng = random.Random(f"{v.seed}:answers")
    refs: dict[str, Script] = {}
    for task in v.tasks:
        control = v.reference(task.task_id)
        if control is not None:
            refs[task.task_id] = control.script
    pools = argument_pools(list(refs.values()))
    answers = {tid: final_text(s) or "" for tid, s in refs.items()}
    found: dict[str, list[str]] = {k: [] for k in _ATTACKS}
    applied: dict[str, int] = dict.fromkeys(_ATTACKS, 0)
    for task in v.tasks:
        script = refs.get(task.task_id)
        if script is None:
            continue
        others = [a for tid, a in answers.items() if tid != task.task_id]
        counted = set()
        attacks = await _attacks(v, task, script, others, pools, rng)
        lasts = {k.removesuffix(LAST): a for k, a in attacks.items() if k.endswith(LAST)}
        for variant, attack in attacks.items():
            if variant.endswith(LAST):
                continue  # played only as the probe of its hedge
            name = variant.split("#")[0]
            if name not in counted:
                applied[name] += 1
                counted.add(name)
            result = await v.run(task, attack, f"attack {variant}", expect="fail")
            if v.passes(result) and name == "plausible_wrong_arguments":
                refused = refused_calls(attack, result)
                strict = await _strict_arguments(v, task, script, attack, refused)
                if not strict:
                    # every changed argument takes many values, or the tools refused every
                    # changed call (the call left out: `steps:each_needed` judges that)
                    continue
                found[name].append(
                    f"{task.task_id}: reward {result.reward:g} for {_describe(attack)} "
                    f"(changed: {'; '.join(strict)})"
                )
            elif v.passes(result) and name == "hedged_candidates":
                again = await v.run(task, lasts[variant], "probe: hedged, the right one last")
                if v.passes(again):
                    said = _describe(attack)
                    found[name].append(f"{task.task_id}: reward {result.reward:g} for {said}")
            elif v.passes(result) or result.mask_sample:
                how = outcome(result)
                found[name].append(f"{task.task_id}: {how} for {_describe(attack)}")
    for name in _ATTACKS:
        problems = found[name]
        if not applied[name]:
            v.not_applicable(f"attack:{name}", _NOT_APPLICABLE[name])
            continue
        detail = (
            "passed: " + "; ".join(problems[:3])
            if problems
            else f"failed on {applied[name]} tasks as it must"
        )
        v.verdict(f"attack:{name}", not problems, detail)


NONSENSE = "zq-not-a-value"
#: the key suffix of a hedge with the right answer last (the probe of the one with it first)
LAST = "@last"


def _same_members(a: Any, b: Any) -> bool:
    """Whether two lists hold the same members (as JSON), in whatever order."""
    if not isinstance(a, list) or not isinstance(b, list):
        return False
    return sorted(json.dumps(x, sort_keys=True) for x in a) == sorted(
        json.dumps(x, sort_keys=True) for x in b
    )


def _between(a: float, b: float) -> list[Any]:
    """A few values strictly between `a` and `b` (whole numbers for whole numbers)."""
    lo, hi = sorted((a, b))
    if isinstance(a, int) and isinstance(b, int):
        inside = list(range(int(lo) + 1, int(hi)))
        return inside[:: max(1, len(inside) // 3)][:3]
    return [lo + (hi - lo) * f for f in (0.25, 0.5, 0.75)]


async def _strict_arguments(
    v: Context, task: Task, reference: Script, attack: Script, refused: set[tuple[int, int]]
) -> list[str]:
    """The arguments the attack changed that the verifier holds to one value (`name: old ->
    new`): a nonsense value in their place fails, and, for a number, some value between the
    right one and the attack's fails too. A free argument (not a task's value) that takes any
    value is not graded, nor a number whose every value between the two passes (a free slot,
    a tolerance). A value the task fixed (a name, a message) that the verifier ignores stays
    accused. Arguments of `observes` tools are never accused (a lookup changes nothing), nor
    those of a call the tool refused (it took no effect: as good as left out)."""
    strict = []
    fixed = {json.dumps(x) for x in _task_values(task.task_data)}
    observing = v.env.observing_tools(task)
    for t, i, item in script_calls(reference):
        if t >= len(attack) or i >= len(attack[t]):
            continue
        if item.get("name") in observing or (t, i) in refused:
            continue  # a lookup, or a refused call, changes nothing a verifier should grade
        old, new = call_arguments(item), call_arguments(attack[t][i])
        for key, value in old.items():
            if key not in new or new[key] == value:
                continue
            tries: list[Any] = []
            between: list[Any] = []
            if isinstance(value, bool):
                tries = [not value]
            elif isinstance(value, int | float) and isinstance(new[key], int | float):
                tries = [value + 7919]
                between = _between(value, new[key])
            elif isinstance(value, str) and json.dumps(value) not in fixed:
                tries = [NONSENSE]  # free text (a title, a note) may be ungraded on purpose
            elif isinstance(value, list) and _same_members(value, new[key]):
                continue  # the same members in another order: no other answer
            elif isinstance(value, list) and json.dumps(value) not in fixed:
                tries = [[]]
            held = True  # a value the task fixed, ignored by the verifier, stays accused
            for other in tries:
                if other == new[key]:
                    continue
                turns = [list(turn) for turn in reference]
                turns[t][i] = {**item, "arguments": {**old, key: other}}
                probe = await v.run(task, turns, "probe: is this argument held to one value?")
                if v.passes(probe):
                    held = False
                    break
            if held and between:  # a number: wrong only if the values between fail
                held = False
                for other in between:
                    turns = [list(turn) for turn in reference]
                    turns[t][i] = {**item, "arguments": {**old, key: other}}
                    probe = await v.run(task, turns, "probe: a value between the two")
                    if not v.passes(probe):
                        held = True
                        break
            elif held and isinstance(value, int | float) and not isinstance(value, bool):
                held = abs(new[key] - value) > 1  # whole numbers side by side: one range
            if held:
                was, now = json.dumps(value)[:40], json.dumps(new[key])[:40]
                strict.append(f"{item.get('name')}.{key}: {was} -> {now}")
    return strict


def _describe(script: Script) -> str:
    """The script's calls and final message, shortened, for a verdict."""
    parts = [
        f"{i['name']}({json.dumps(i.get('arguments'))[:60]})"
        for turn in script
        for i in turn
        if i.get("type") == "function_call"
    ]
    said = final_text(script)
    if said is not None:
        parts.append(repr(said[:60]))
    return " then ".join(parts)[:200]


_ATTACKS = (
    "echoed_observations",
    "hedged_candidates",
    "padded_answer",
    "look_alike_unicode",
    "plausible_wrong_arguments",
)
_NOT_APPLICABLE = {
    "echoed_observations": "the final message does not decide the reward, no tool printed "
    "anything, or the answer relays what one printed (a sentence, one record's values)",
    "hedged_candidates": "the final message does not decide the reward, or no wrong answer "
    "was recognised",
    "padded_answer": "the final message does not decide the reward, or no wrong answer "
    "was recognised",
    "look_alike_unicode": "the final message does not decide the reward",
    "plausible_wrong_arguments": "the reference passes no argument to change",
}


async def _attacks(
    v: Context,
    task: Task,
    script: Script,
    others: list[str],
    pools: dict[tuple[str, str], list[Any]],
    rng: random.Random,
) -> dict[str, Script]:
    attacks: dict[str, Script] = {}
    for n, broken in enumerate(wrong_arguments(script, pools, task.task_data)):
        attacks["plausible_wrong_arguments" + (f"#{n}" if n else "")] = broken
    right = final_text(script)
    if not right or not right.strip():
        return attacks
    silent = await v.run(task, with_final(script, ""), "probe: the reference, silent")
    if v.passes(silent):
        return attacks  # the answer does not decide the reward here
    reference = v.reference_result(task.task_id)
    shown = [o for o in tool_outputs(reference) if o.strip()] if reference is not None else []
    said = " ".join(right.split()).rstrip(".")
    relayed = len(said.split()) >= 3 and said in " ".join(" ".join(shown).split())
    if shown and not relayed and not _one_record(right, shown, prompt_text(task)):
        # the tools' outputs pasted back whole (a relayed sentence or record is the answer)
        attacks["echoed_observations"] = with_final(script, "\n".join(shown))
    wrong = []
    seen = shown_to_policy(v, task)
    for candidate in [*candidates(right, others, rng), *shown_options(right, others, seen)[:3]]:
        # another task's reply is a wrong answer here only where it is an option of this
        # question: shown on this task where the right one is (a question that prints its
        # options), in this answer's form, and never another task's whole reply in prose
        must_be_shown = (
            not single_value(right) or not same_form(candidate, right) or shown_all(right, seen)
        )
        if must_be_shown and not offered(candidate, right, seen):
            continue
        result = await v.run(task, with_final(script, candidate), "probe: a wrong answer")
        if not v.passes(result) and not result.mask_sample:
            wrong.append(candidate)
    if wrong:
        # the right one first; judged again with it last (a first- or last-answer rule reads
        # one answer: honest), see `check_answers`
        attacks["hedged_candidates"] = with_final(script, "\n".join([right, *wrong]))
        attacks["hedged_candidates" + LAST] = with_final(script, "\n".join([*wrong, right]))
        one = in_one_slot(right, wrong)
        if one is not None:
            # every candidate in the one slot ("Answer: BACD"), judged again with the right
            # one last: a first- or last-value rule reads one of them (honest)
            attacks["hedged_candidates#one"] = with_final(script, one[0])
            attacks["hedged_candidates#one" + LAST] = with_final(script, one[1])
        # buried: wrong answers before and after it, so neither a first- nor a last-answer
        # rule (each reads one answer: honest) finds it; only a verifier taking any line does
        half: list[str] = []
        while sum(map(len, half)) < PADDED_CHARS // 2:
            half += wrong
        attacks["padded_answer"] = with_final(script, "\n".join([*half, right, *half]))
    # a variant that changes nothing ("[]" has no letter) is the right answer, no attack; and
    # none in compatibility forms alone (fullwidth letters): NFKC folds them back to the
    # answer, a normalisation an honest grader may make (the third peer audit's string_match
    # false alarm); the look-alike keeps letters NFKC leaves alone (Cyrillic)
    if (
        _letters_carry_truth(right, others)
        and unicodedata.normalize("NFKC", look_alike(right)) != right
        and await _letters_graded(v, task, script, right)
    ):
        attacks["look_alike_unicode"] = with_final(script, look_alike(right))
    return attacks


_VALUE = re.compile(r"\w*\d(?:[\w.-]*\w)?")  # a value: a token with a digit


def _one_record(right: str, shown: list[str], prompt: str) -> bool:
    """Whether the tools printed one record (two lines at most) holding every value the answer
    states (`locker 95, PIN 4480`) and none that neither it nor the prompt states: pasting it
    back tells what the answer tells (a card in full, where it gives the last four, is more)."""
    values = set(_VALUE.findall(right))
    lines = [line for out in shown for line in out.splitlines() if line.strip()]
    if not values or len(lines) > 2:
        return False
    told = values | set(_VALUE.findall(prompt))
    return any(values <= set(_VALUE.findall(x)) <= told for x in lines)


def _letters(text: str) -> str:
    return "".join(c.lower() for c in text if c.isascii() and c.isalpha())


def _letters_carry_truth(right: str, others: list[str]) -> bool:
    """Whether the answer's truth is in its letters: its letters differ from another task's
    answer's (a word, a name). Where every task's answer has the same letters (`Answer: 12
    g`), the truth is in the digits, and a digit's compatibility form (fullwidth) is the same
    number to a reader: a look-alike attacks nothing the truth is in."""
    known = [o for o in others if o and o.strip()]
    if not known:
        return True
    if not any(c.isascii() and c.isalpha() for c in _distinct_part(right, known)):
        return False  # the letters are the format every answer shares ("Final Answer: []")
    return any(_letters(o) != _letters(right) for o in known)


def _distinct_part(right: str, others: list[str]) -> str:
    """`right` less the text every answer shares at its start and at its end (`Final Answer:
    [` and `]`): where the truth is."""
    texts = [right, *others]
    start = 0
    while start < len(right) and all(len(t) > start and t[start] == right[start] for t in texts):
        start += 1
    end = 0
    while end < len(right) - start and all(
        len(t) > end and t[-1 - end] == right[-1 - end] for t in texts
    ):
        end += 1
    return right[start : len(right) - end]


def other_letters(text: str) -> str:
    """`text` with every ASCII letter replaced by another ASCII letter (digits kept)."""
    return "".join(
        chr((ord(c.lower()) - ord("a") + 13) % 26 + ord("a")) if c.isascii() and c.isalpha() else c
        for c in text
    )


async def _letters_graded(v: Context, task: Task, script: Script, right: str) -> bool:
    """Whether the answer's letters decide the reward: swapped for other ones, they fail.
    Where they do not (only the number is read), a look-alike swaps nothing that is graded
    but digits, and a fullwidth digit is the same digit to a reader (NFKC folds it): no
    accusation."""
    if not any(c.isascii() and c.isalpha() for c in right):
        return False  # digits alone: a fullwidth digit is the digit
    changed = other_letters(right)
    result = await v.run(task, with_final(script, changed), "probe: other letters")
    return not v.passes(result)
