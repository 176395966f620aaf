"""Tools are typed Python functions: the JSON schema comes from the signature and docstring."""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar, get_type_hints, overload

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from proofgym.wire.errors import describe_validation

F = TypeVar("F", bound=Callable[..., Any])
TOOL_MARK = "__proofgym_tool__"
INLINE_MARK = "__proofgym_inline__"
OBSERVES_MARK = "__proofgym_observes__"


@overload
def tool(fn: F) -> F: ...


@overload
def tool(*, inline: bool = False, observes: bool = False) -> Callable[[F], F]: ...


def tool(
    fn: F | None = None, *, inline: bool = False, observes: bool = False
) -> F | Callable[[F], F]:
    """Mark an environment method `(self, state, **arguments)` as a tool the policy can call.

    The first line of the docstring is the tool's description; an `Args:` section describes
    each argument. Annotations give the types, defaults make arguments optional.

    A plain `def` tool runs in a worker thread, off the event loop. `@tool(inline=True)` runs
    it on the loop instead: only for work bounded to well under a millisecond (a small file
    read), where the thread hop costs more than the work (bench/RESULTS.md).

    `observes=True` says the tool only shows the policy something: calling it changes nothing
    the verifier reads (a listing, a search, a calculator). `validate` then lets an honest
    trajectory leave it out; every other step of the reference must be needed (removed, the
    reference must lose its reward).
    """

    def mark(f: F) -> F:
        setattr(f, TOOL_MARK, True)
        setattr(f, INLINE_MARK, inline)
        setattr(f, OBSERVES_MARK, observes)
        return f

    return mark(fn) if fn is not None else mark


def _doc_parts(doc: str | None) -> tuple[str, dict[str, str]]:
    """Split a Google-style docstring into its description and per-argument texts."""
    if not doc:
        return "", {}
    text = inspect.cleandoc(doc)
    head, _, rest = text.partition("\nArgs:")
    args: dict[str, str] = {}
    current = None
    for line in rest.splitlines():
        m = re.match(r"^\s{2,}(\w+)(?:\s*\([^)]*\))?:\s*(.*)$", line)
        if m:
            current = m.group(1)
            args[current] = m.group(2).strip()
        elif current and line.strip() and line.startswith("      "):
            args[current] += " " + line.strip()
        elif line.strip() and not line.startswith(" "):
            break
    description = " ".join(head.strip().split("\n\n")[0].split())
    return description, args


def _strip_titles(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: _strip_titles(v) for k, v in schema.items() if k != "title"}
    if isinstance(schema, list):
        return [_strip_titles(v) for v in schema]
    return schema


@dataclass(frozen=True)
class ToolSpec:
    """One tool: its name, its argument model, its OpenAI function-tool schema and its callable."""

    name: str
    description: str
    arguments: type[BaseModel]
    fn: Callable[..., Any]
    is_async: bool
    inline: bool = False
    #: only shows the policy something; the verifier reads nothing it changes (see `tool`)
    observes: bool = False

    @functools.cached_property
    def schema(self) -> dict[str, Any]:
        """The OpenAI Responses function-tool schema of this tool (built once: every seed
        answers it, and building it took 16% of the server's CPU under load)."""
        params = _strip_titles(self.arguments.model_json_schema())
        params.setdefault("properties", {})
        params["additionalProperties"] = False
        return {
            "type": "function",
            "name": self.name,
            "description": self.description,
            "parameters": params,
            "strict": False,
        }

    def parse(self, arguments: Any) -> dict[str, Any]:
        """Validate arguments against the signature; raise ValueError with a readable message."""
        if not isinstance(arguments, dict):
            raise ValueError(f"arguments of {self.name} must be a JSON object")
        try:
            model = self.arguments.model_validate(arguments)
        except ValidationError as exc:
            problems = describe_validation(exc.errors(), "arguments")
            raise ValueError(f"invalid arguments for {self.name}: {problems}") from None
        return {name: getattr(model, name) for name in type(model).model_fields}


def build_spec(fn: Callable[..., Any]) -> ToolSpec:
    """Build the ToolSpec of a method `(self, state, ...)` marked with @tool."""
    description, arg_docs = _doc_parts(fn.__doc__)
    hints = get_type_hints(fn)
    params = list(inspect.signature(fn).parameters.values())[2:]  # skip self and state
    fields: dict[str, Any] = {}
    for p in params:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise TypeError(f"tool {fn.__name__}: *args and **kwargs are not allowed")
        if p.name not in hints:
            raise TypeError(f"tool {fn.__name__}: argument {p.name} needs a type annotation")
        default = ... if p.default is inspect.Parameter.empty else p.default
        fields[p.name] = (hints[p.name], Field(default, description=arg_docs.get(p.name)))
    model = create_model(  # type: ignore[call-overload]
        f"{fn.__name__}_arguments", __config__=ConfigDict(extra="forbid", strict=False), **fields
    )
    return ToolSpec(
        fn.__name__,
        description or fn.__name__,
        model,
        fn,
        inspect.iscoroutinefunction(fn),
        bool(getattr(fn, INLINE_MARK, False)),
        bool(getattr(fn, OBSERVES_MARK, False)),
    )


def collect_tools(cls: type) -> dict[str, ToolSpec]:
    """Every @tool method of an environment class, by name, in definition order."""
    specs: dict[str, ToolSpec] = {}
    for klass in reversed(cls.__mro__):
        for name, value in vars(klass).items():
            if callable(value) and getattr(value, TOOL_MARK, False):
                specs[name] = build_spec(value)
    return specs
