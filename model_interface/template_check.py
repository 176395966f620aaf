"""Is a model's chat template fit for multi-turn RL? Proven turn by turn on real conversations.

Token-exact training needs three things of a tokenizer and its chat template, and every
framework relies on them without a check (drift shows up as a crash, or worse, as silent
training on prompts the model never saw):
- **append-only**: the prompt of each turn is the previous prompt, plus the generation, plus
  only the new messages. `Renderer` builds prompts that way; the check is that the template
  agrees: the whole conversation rendered afresh gives the same text and the same ids. A
  template that renders past turns differently once more follow (one that drops earlier
  reasoning, or renders a tool call one way while it is last and another way later) fails
  here, at the turn where it starts;
- **tool calls round-trip**: the template's rendering of an assistant turn, read back by the
  tool-call parser the model interface uses, is the same calls (names and arguments) and the
  same text;
- **special tokens survive**: the ids of every prompt and generation decode to text that
  encodes back to the same ids (a special token written by the template stays one token).

Each conversation is played by teacher forcing: the generation of each turn is what the
template itself writes for the recorded assistant turn, so no sampling hides a bug.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from model_interface.backends.scripted import is_model_item
from model_interface.hermes import Parser, parse_hermes
from model_interface.rendering import Renderer, chat_tools, items_to_messages
from proofgym.wire.errors import InvalidRequest
from proofgym.wire.responses import normalize_input

#: characters of context shown around a difference
CONTEXT = 60


@dataclass
class Conversation:
    """A recorded rollout: what the policy was first sent, and every output item after."""

    name: str
    input: Any
    instructions: str | None
    tools: list[dict[str, Any]]
    output: list[dict[str, Any]]


@dataclass
class Finding:
    """One check of one turn of one conversation."""

    conversation: str
    turn: int
    check: str  # append_only, tool_calls_round_trip, special_tokens, template
    passed: bool
    detail: str = ""


@dataclass
class TemplateReport:
    """Every finding of a model check, and its verdict."""

    model: str
    findings: list[Finding] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """True when at least one turn was checked and every check passed."""
        return bool(self.findings) and all(f.passed for f in self.findings)

    def failures(self) -> list[Finding]:
        """The findings that failed, in order."""
        return [f for f in self.findings if not f.passed]

    def counts(self) -> dict[str, dict[str, int]]:
        """Per check: how many turns passed and failed."""
        out: dict[str, dict[str, int]] = {}
        for f in self.findings:
            row = out.setdefault(f.check, {"passed": 0, "failed": 0})
            row["passed" if f.passed else "failed"] += 1
        return out

    def to_json(self) -> dict[str, Any]:
        """`{model, passed, counts, failures}` (every failure; passes only counted)."""
        return {
            "model": self.model,
            "passed": self.passed,
            "counts": self.counts(),
            "failures": [asdict(f) for f in self.failures()],
        }


def _where(a: str, b: str) -> str:
    """Where two texts first differ, with context, as `...before[a|b]...`."""
    i = next((k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    start = max(0, i - CONTEXT)
    return (
        f"at character {i}: {a[start:i]!r} then {a[i : i + CONTEXT]!r} (built turn by turn) "
        f"against {b[i : i + CONTEXT]!r} (the whole conversation rendered afresh)"
    )


def _first_id_difference(a: list[int], b: list[int]) -> int:
    return next(
        (k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )


def _calls(items: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    out = []
    for item in items:
        if item.get("type") == "function_call":
            try:
                args = json.loads(item.get("arguments") or "{}")
            except ValueError:
                args = item.get("arguments")
            out.append((str(item.get("name")), args))
    return out


def _turns(
    output: list[dict[str, Any]],
) -> tuple[list[dict[str, Any]], list[tuple[list[dict[str, Any]], list[dict[str, Any]]]]]:
    """`output` as the items before the first model turn, and each model turn (its model
    items) with what followed it before the next (tool outputs)."""
    leading: list[dict[str, Any]] = []
    turns: list[tuple[list[dict[str, Any]], list[dict[str, Any]]]] = []
    for item in output:
        if is_model_item(item):
            if not turns or turns[-1][1]:
                turns.append(([], []))
            turns[-1][0].append(item)
        elif turns:
            turns[-1][1].append(item)
        else:
            leading.append(item)
    return leading, turns


class TemplateChecker:
    """Checks conversations against one tokenizer and its chat template."""

    def __init__(self, tokenizer: Any, parser: Parser = parse_hermes) -> None:
        self.tokenizer = tokenizer
        self.renderer = Renderer(tokenizer)
        self.parser = parser
        self.eos_text = self.renderer.eos_text
        self.closing = self.renderer.closing

    def _render(self, messages: list[dict[str, Any]], generation: bool, tools: Any) -> str:
        return self.renderer.render(messages, generation, tools)

    def _round_trip(self, ids: list[int]) -> int | None:
        """Where `ids` first change when decoded and encoded again; None when they do not."""
        again = self.renderer.encode(self.tokenizer.decode(ids, skip_special_tokens=False))
        return None if again == ids else _first_id_difference(ids, again)

    def _turn(
        self,
        conv: Conversation,
        turn: int,
        items: list[dict[str, Any]],
        run: list[dict[str, Any]],
        prompt: list[int],
        tools: Any,
        note: Any,
    ) -> list[int] | None:
        """Check one assistant turn (round trip of its calls, special tokens); its
        generation ids as the template writes them, or None where the template cannot say."""
        before = self._render(items_to_messages(items, conv.instructions), True, tools)
        whole = self._render(items_to_messages(items + run, conv.instructions), False, tools)
        if not whole.startswith(before):
            note(turn, "template", False,
                 "the assistant turn does not begin where the generation prompt ends: "
                 + _where(before, whole))  # fmt: skip
            return None
        written = whole[len(before) :]
        if not written.endswith(self.closing):
            note(turn, "template", False,
                 f"the assistant turn does not end with the template's closing "
                 f"{self.closing!r}: it ends {written[-CONTEXT:]!r}")  # fmt: skip
            return None
        body = written[: len(written) - len(self.closing)]
        generation = self.renderer.encode(body)
        if self.eos_text and self.closing.startswith(self.eos_text):
            generation.append(self.tokenizer.eos_token_id)
        parsed = self.parser(self.tokenizer.decode(self.renderer.encode(body)))
        want_calls = _calls(run)
        got_calls = [(c.name, json.loads(c.arguments)) for c in parsed.calls]
        want_text = "".join(
            "".join(p.get("text", "") for p in i.get("content") or [])
            for i in run
            if i.get("type") == "message"
        ).strip()
        same = got_calls == want_calls and parsed.content.strip() == want_text
        note(turn, "tool_calls_round_trip", same,
             "" if same else f"the template writes {body[-200:]!r}, which parses back as "
             f"calls {got_calls} and text {parsed.content[:80]!r}; the turn was calls "
             f"{want_calls} and text {want_text[:80]!r}")  # fmt: skip
        where = self._round_trip(prompt)
        what = "prompt"
        if where is None:
            where, what = self._round_trip(generation), "generation"
        note(turn, "special_tokens", where is None,
             "" if where is None else f"the {what}'s ids change when decoded and encoded "
             f"again, from id {where} on")  # fmt: skip
        return generation

    def check(self, conv: Conversation) -> list[Finding]:
        """Every finding of one conversation, turn by turn (see the module)."""
        findings: list[Finding] = []

        def note(turn: int, check: str, ok: bool, detail: str = "") -> None:
            findings.append(Finding(conv.name, turn, check, ok, detail))

        tools = chat_tools(conv.tools)
        leading, turns = _turns(conv.output)
        items = normalize_input(conv.input) + leading
        try:
            prompt, _ = self.renderer.prompt(items, conv.instructions, conv.tools)
        except Exception as exc:  # a template that cannot render the first prompt at all
            note(0, "template", False, f"the first prompt does not render: {exc}"[:500])
            return findings
        for turn, (run, after) in enumerate(turns):
            generation = self._turn(conv, turn, items, run, prompt, tools, note)
            if generation is None:
                return findings
            last = dict(run[-1])
            last.update(
                prompt_token_ids=prompt,
                generation_token_ids=generation,
                generation_log_probs=[0.0] * len(generation),
            )
            items = [*items, *run[:-1], last, *after]
            if turn + 1 == len(turns):
                break  # nothing generated after: no later prompt to prove
            try:
                built, extended = self.renderer.prompt(items, conv.instructions, conv.tools)
            except InvalidRequest as exc:
                note(turn + 1, "append_only", False, str(exc))
                return findings
            fresh_text = self._render(items_to_messages(items, conv.instructions), True, tools)
            fresh = self.renderer.encode(fresh_text)
            if built == fresh and extended:
                note(turn + 1, "append_only", True)
            else:
                built_text = self.tokenizer.decode(built, skip_special_tokens=False)
                if built_text != fresh_text:
                    detail = (
                        "the template renders earlier turns differently once more follow, "
                        + _where(built_text, fresh_text)
                    )
                else:
                    at = _first_id_difference(built, fresh)
                    detail = (
                        f"the same text, tokenized differently from id {at} on (a merge across "
                        "a turn boundary): the prompt built turn by turn is not the one a "
                        "fresh tokenization gives"
                    )
                note(turn + 1, "append_only", False, detail)
            prompt = built
        return findings


def check_template(
    tokenizer: Any,
    conversations: list[Conversation],
    model: str = "",
    parser: Parser = parse_hermes,
) -> TemplateReport:
    """The TemplateReport of `conversations` against `tokenizer` (see the module)."""
    checker = TemplateChecker(tokenizer, parser)
    report = TemplateReport(model=model)
    for conv in conversations:
        report.findings += checker.check(conv)
    return report
