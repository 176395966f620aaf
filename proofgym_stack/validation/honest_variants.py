"""Error rates both ways: honest answers a verifier scores 0, and attacks it pays.

**False negatives.** A correct answer scored 0 teaches the policy that right is wrong, and no
negative control can show it. From every passing control of each sampled task (the
reference, the author's alternatives), honest variants of its final message are built, each
stating the same thing in another form, and each must still pass:
- forms every reader accepts (`UNIVERSAL`): the message with surrounding whitespace, with
  CRLF line endings, with its spaces doubled (this one advisory: `ADVISORY_FORMS`);
- forms an environment claims to accept (`Environment.honest_forms`, from `CLAIMABLE`): a
  polite preamble or closing line, the message upper- or lower-cased, its last line in
  Markdown bold, the last number in another form of the same value (`42.0`, `1,234`);
- the environment's own (`Environment.honest_variants(task, message)`: other phrasings, the
  languages it claims).
A form (or one of its own variants, by name) the environment refuses on purpose is declared
with why (`Environment.refused_forms`) and reported, not run. The false-negative rate is the
share of variants run that failed.

**False positives.** Every rollout the validation ran that had to fail (failing controls,
generic negatives, attacks: `expect="fail"` in `Context.run`) and was paid a pass counts;
the rate is their share.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from proofgym_stack.validation.answers import final_text, with_final
from proofgym_stack.validation.scripts import outcome

if TYPE_CHECKING:
    from proofgym_stack.validation.context import Context

Form = Callable[[str], str | None]  # a message in another form; None: does not apply

_LAST_NUMBER = re.compile(r"(?<![\w.,])(-?)(\d+)(?:\.(\d+))?(?![\w.,]?\d)")


def _surrounding_whitespace(text: str) -> str:
    return f"\n  {text}  \n"


def _crlf(text: str) -> str | None:
    return text.replace("\n", "\r\n") if "\n" in text else None


def _doubled_spaces(text: str) -> str | None:
    return re.sub(r"(?<=\S) (?=\S)", "  ", text) if " " in text.strip() else None


def _preamble(text: str) -> str:
    return f"Here is my answer.\n\n{text}"


def _closing(text: str) -> str:
    return f"{text}\n\nLet me know if you need anything else."


# a LaTeX command (`\\boxed`) keeps its case: `\\BOXED` is another word, not a form of it
_COMMAND = re.compile(r"(\\[A-Za-z]+)")


def _cased(text: str, change: Callable[[str], str]) -> str | None:
    parts = _COMMAND.split(text)
    out = "".join(p if i % 2 else change(p) for i, p in enumerate(parts))
    return out if out != text else None


def _upper(text: str) -> str | None:
    return _cased(text, str.upper)


def _lower(text: str) -> str | None:
    return _cased(text, str.lower)


def _bold_last_line(text: str) -> str | None:
    lines = text.rstrip().split("\n")
    if not lines[-1].strip() or "**" in lines[-1]:
        return None
    lines[-1] = f"**{lines[-1].strip()}**"
    return "\n".join(lines)


def _number_form(text: str) -> str | None:
    """The last number written as another form of the same value: an integer with `.0`, or
    with its thousands grouped when it has five digits or more; None without one."""
    found = list(_LAST_NUMBER.finditer(text))
    if not found:
        return None
    m = found[-1]
    sign, whole, fraction = m.group(1), m.group(2), m.group(3)
    if fraction is not None:
        shown = f"{sign}{whole}.{fraction}0"
    elif len(whole) >= 5:
        shown = f"{sign}{int(whole):,}"
    else:
        shown = f"{sign}{whole}.0"
    return text[: m.start()] + shown + text[m.end() :]


#: forms every verifier must accept where the final message is read at all
UNIVERSAL: dict[str, Form] = {
    "surrounding_whitespace": _surrounding_whitespace,
    "crlf_line_endings": _crlf,
    "doubled_spaces": _doubled_spaces,
}
#: universal forms whose refusal is reported, not failed: a policy's sampler almost never
#: writes two spaces between words, so a verifier that reads them as another answer costs it
#: little (audited on NeMo Gym's servers: 0 of 3 such findings mattered); the false-negative
#: rate still counts them
ADVISORY_FORMS = frozenset({"doubled_spaces"})
#: forms an environment may claim (`honest_forms`) where its task makes them honest
CLAIMABLE: dict[str, Form] = {
    "preamble": _preamble,
    "closing": _closing,
    "upper_case": _upper,
    "lower_case": _lower,
    "markdown_bold": _bold_last_line,
    "number_form": _number_form,
}


def forms_of(env: Any) -> dict[str, Form]:
    """The forms `validate` runs on `env`: the universal ones and those it claims, less the
    ones it refuses (a claimed form not in `CLAIMABLE` is the author's error)."""
    claimed = tuple(getattr(env, "honest_forms", ()))
    unknown = [f for f in claimed if f not in CLAIMABLE]
    if unknown:
        raise ValueError(
            f"{env.name}.honest_forms names {', '.join(unknown)}: not a form validate knows "
            f"(known: {', '.join(CLAIMABLE)}); put an environment's own in honest_variants"
        )
    refused = dict(getattr(env, "refused_forms", {}))
    chosen = {**UNIVERSAL, **{f: CLAIMABLE[f] for f in claimed}}
    return {name: form for name, form in chosen.items() if name not in refused}


@dataclass
class ErrorRate:
    """How often a verifier was wrong one way: `wrong` of `judged`."""

    judged: int = 0
    wrong: int = 0

    @property
    def rate(self) -> float | None:
        """`wrong / judged`; None when nothing was judged."""
        return self.wrong / self.judged if self.judged else None

    def to_json(self) -> dict[str, Any]:
        """`{judged, wrong, rate}`."""
        return {"judged": self.judged, "wrong": self.wrong, "rate": self.rate}


def _own_variants(v: Context, task: Any, text: str) -> dict[str, str]:
    hook = getattr(v.env, "honest_variants", None)  # a bridged peer may not define it
    return dict(hook(task, text)) if callable(hook) else {}


async def check_honest_variants(v: Context) -> ErrorRate:
    """Run each honest variant of every passing control's final message; each must pass.
    One verdict per form (n/a where no message could take it, or the environment refuses it),
    and the false-negative rate over all of them."""
    forms = forms_of(v.env)
    refused = dict(getattr(v.env, "refused_forms", {}))
    judged: dict[str, int] = {}
    failed: dict[str, list[str]] = {}
    rate = ErrorRate()
    for task in v.tasks:
        for control in v.controls.get(task.task_id, []):
            original = v.solo.get((task.task_id, control.name))
            if control.expect != "pass" or original is None or not v.passes(original):
                continue
            text = final_text(control.script)
            if not text or not text.strip():
                continue
            variants = {name: form(text) for name, form in forms.items()}
            own = _own_variants(v, task, text)
            variants.update({f"own:{n}": t for n, t in own.items() if n not in refused})
            for name, variant in variants.items():
                if variant is None or variant == text:
                    continue
                kind = "own" if name.startswith("own:") else name
                result = await v.run(
                    task, with_final(control.script, variant), f"honest variant {name}"
                )
                judged[kind] = judged.get(kind, 0) + 1
                rate.judged += 1
                if not v.passes(result):
                    rate.wrong += 1
                    how = outcome(result)
                    failed.setdefault(kind, []).append(
                        f"{task.task_id}/{control.name} {name}: {how} for {variant[-60:]!r}"
                    )
    for kind in [*forms, "own"]:
        name = f"honest_variant:{kind}"
        if not judged.get(kind):
            why = (
                "the environment gives no variants of its own (honest_variants)"
                if kind == "own"
                else "no passing control's final message can take this form"
            )
            v.not_applicable(name, why)
            continue
        problems = failed.get(kind, [])
        if problems and kind in ADVISORY_FORMS:
            v.verdict(name, True, "advisory: refused (rarely written): " + problems[0])
            continue
        v.verdict(
            name,
            not problems,
            "an honest answer failed (a false negative: fix the verifier, or declare the "
            "form in refused_forms with why): " + "; ".join(problems[:3])
            if problems
            else f"{judged[kind]} variants passed",
        )
    for kind, why in sorted(refused.items()):
        v.not_applicable(f"honest_variant:{kind}", f"refused by the environment: {why}")
    return rate


#: the paid rollouts a report shows whole, and how much of each script's text
PAID_SHOWN, PAID_CHARS = 40, 4000


def paid_rollouts(v: Context) -> list[dict[str, Any]]:
    """Every rollout that had to fail and was paid a pass (or masked), whole: what it was
    (its label: the attack, the negative, the control), its task, reward, and the trajectory
    as played (each message's text up to 4,000 characters), so a reader sees all of what a
    verdict's detail shortens. The first 40."""
    out = []
    for result in v.results:
        if v.expected.get(result.rollout_id) != "fail":
            continue
        if not (v.passes(result) or result.mask_sample):
            continue
        script = v.scripts.get(result.rollout_id, [])
        out.append(
            {
                "label": v.labels.get(result.rollout_id, ""),
                "task_id": result.task_id,
                "reward": result.reward,
                "masked": result.mask_sample,
                "script": [[_shown(item) for item in turn] for turn in script],
            }
        )
    return out[:PAID_SHOWN]


def _shown(item: dict[str, Any]) -> dict[str, Any]:
    text = item.get("content") if item.get("type") == "message" else item.get("arguments")
    if isinstance(text, str) and len(text) > PAID_CHARS:
        key = "content" if item.get("type") == "message" else "arguments"
        return {**item, key: text[:PAID_CHARS] + f"... ({len(text)} characters)"}
    return item


def false_positives(v: Context) -> ErrorRate:
    """Among the rollouts that had to fail and were scored (not masked), those paid a pass."""
    rate = ErrorRate()
    for result in v.results:
        if v.expected.get(result.rollout_id) != "fail" or result.mask_sample:
            continue
        rate.judged += 1
        rate.wrong += v.passes(result)
    return rate
