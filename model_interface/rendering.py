"""Token-exact prompts: each turn's prompt ids begin with the previous turn's prompt and
generation ids, token for token; only the new messages are rendered and appended.

Past turns are never re-tokenized or re-templated (a history that no longer extends the
previous one is the most reported crash of multi-turn RL). The first prompt of a rollout, or
one whose history carries no token data, is rendered whole with the chat template.
"""

from __future__ import annotations

from typing import Any

from model_interface.backends.scripted import is_model_item
from proofgym.wire.errors import InvalidRequest
from proofgym.wire.responses import TOKEN_FIELDS, message_text, normalize_input

MARK = "\u2063proofgym-assistant-mark\u2063"


def items_to_messages(
    items: list[dict[str, Any]], instructions: str | None
) -> list[dict[str, Any]]:
    """Responses items as chat-template messages (assistant turns with tool_calls)."""
    messages: list[dict[str, Any]] = []
    if instructions:
        messages.append({"role": "system", "content": instructions})
    current: dict[str, Any] | None = None
    for item in items:
        kind = item.get("type", "message")
        if is_model_item(item):
            if current is None:
                current = {"role": "assistant", "content": ""}
                messages.append(current)
            if kind == "reasoning":
                text = "".join(c.get("text", "") for c in item.get("content") or [])
                current["content"] = f"<think>{text}</think>" + current["content"]
            elif kind == "function_call":
                current.setdefault("tool_calls", []).append(
                    {
                        "type": "function",
                        "function": {
                            "name": item.get("name", ""),
                            "arguments": item.get("arguments") or "{}",
                        },
                    }
                )
            else:
                current["content"] += message_text(item)
            continue
        current = None
        if kind == "function_call_output":
            messages.append(
                {
                    "role": "tool",
                    "content": str(item.get("output", "")),
                    "tool_call_id": item.get("call_id"),
                }
            )
        elif kind == "message":
            role = item.get("role", "user")
            messages.append(
                {"role": "system" if role == "developer" else role, "content": message_text(item)}
            )
    return messages


def chat_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """Responses function tools in the form chat templates expect."""
    out = [
        {
            "type": "function",
            "function": {k: t[k] for k in ("name", "description", "parameters") if k in t},
        }
        for t in tools
        if t.get("type") == "function"
    ]
    return out or None


def _token_data(item: dict[str, Any], index: int) -> tuple[list[int], list[int]] | None:
    present = [f for f in TOKEN_FIELDS if f in item]
    if not present:
        return None
    for f in TOKEN_FIELDS:
        value = item.get(f)
        if not isinstance(value, list) or not all(isinstance(v, int | float) for v in value):
            raise InvalidRequest(
                f"input[{index}].{f} must be a list of numbers", kind="invalid_token_data"
            )
    if len(item["generation_token_ids"]) != len(item["generation_log_probs"]):
        raise InvalidRequest(
            f"input[{index}]: generation_token_ids and generation_log_probs differ in length",
            kind="invalid_token_data",
        )
    if not all(isinstance(v, int) for v in item["prompt_token_ids"] + item["generation_token_ids"]):
        raise InvalidRequest(
            f"input[{index}]: token ids must be integers", kind="invalid_token_data"
        )
    return item["prompt_token_ids"], item["generation_token_ids"]


class Renderer:
    """Builds prompt ids with a Hugging Face tokenizer and its chat template."""

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer
        self.eos_id = tokenizer.eos_token_id
        probe = [{"role": "user", "content": "u"}, {"role": "assistant", "content": MARK}]
        self._probe = probe
        rendered = self._render(probe, generation=False)
        at = rendered.rindex(MARK) + len(MARK)
        self._probe_text = rendered
        self._closing = rendered[at:]  # what the template writes after an assistant turn
        self._eos_text = tokenizer.decode([self.eos_id]) if self.eos_id is not None else ""

    def _render(
        self,
        messages: list[dict[str, Any]],
        generation: bool,
        tools: list[dict[str, Any]] | None = None,
    ) -> str:
        text = self.tokenizer.apply_chat_template(
            messages, tools=tools, tokenize=False, add_generation_prompt=generation
        )
        return str(text)

    @property
    def closing(self) -> str:
        """What the template writes after an assistant turn's content (`<|im_end|>\\n`)."""
        return self._closing

    @property
    def eos_text(self) -> str:
        """The end-of-sequence token as text ("" without one)."""
        return self._eos_text

    def render(
        self,
        messages: list[dict[str, Any]],
        generation: bool,
        tools: list[dict[str, Any]] | None = None,
    ) -> str:
        """`messages` as the chat template renders them (with the generation prompt when
        `generation`)."""
        return self._render(messages, generation, tools)

    def encode(self, text: str) -> list[int]:
        """Token ids of `text`, special tokens written in it included, no BOS added."""
        return list(self.tokenizer.encode(text, add_special_tokens=False))

    def prompt(
        self, input_value: Any, instructions: str | None, tools: list[dict[str, Any]]
    ) -> tuple[list[int], bool]:
        """The prompt ids, and whether they extend an earlier turn's ids (append-only)."""
        items = normalize_input(input_value)
        last = None
        for index, item in enumerate(items):
            data = _token_data(item, index)
            if data is not None:
                last = (index, data)
        if last is not None and not any(is_model_item(i) for i in items[last[0] + 1 :]):
            index, (prompt_ids, generation_ids) = last
            new = items_to_messages(items[index + 1 :], None)
            return prompt_ids + generation_ids + self._suffix(new, generation_ids), True
        messages = items_to_messages(items, instructions)
        return self.encode(self._render(messages, True, chat_tools(tools))), False

    def _suffix(self, new: list[dict[str, Any]], generation_ids: list[int]) -> list[int]:
        """Ids of what follows a generated turn: the rest of its closing, the new messages,
        and the generation prompt, rendered by the template on their own."""
        full = self._render(self._probe + new, True)
        if not full.startswith(self._probe_text):
            raise InvalidRequest(
                "the chat template renders earlier turns differently once "
                "more follow; token-exact prompts are impossible with it",
                kind="template_not_append_only",
            )
        closing = self._closing
        if (
            generation_ids
            and generation_ids[-1] == self.eos_id
            and closing.startswith(self._eos_text)
        ):
            closing = closing[len(self._eos_text) :]
        return self.encode(closing + full[len(self._probe_text) :])
