"""The Environment base class: what one environment folder implements.

An environment is a class with a name, typed tools (methods marked `@tool`), a per-session
state, a verifier and controls. The base server does the rest: sessions, TTL, HTTP.
"""

from __future__ import annotations

import os
import sys
from abc import ABC, abstractmethod
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, Generic

from openai.types.responses import Response
from pydantic import BaseModel, ValidationError
from typing_extensions import TypeVar

from proofgym.wire.errors import describe_validation
from proofgym.wire.protocol import Control, RewardInputs, Task, VerifyResult
from resources_servers.base.identity import source_hash
from resources_servers.base.tools import ToolSpec, collect_tools

if TYPE_CHECKING:
    from typing import Self

    from proofgym.serving.settings import ResourcesSettings

S = TypeVar("S")
#: the environment's task model (`task_data_model`), as `data(task)` returns it
D = TypeVar("D", bound=BaseModel, default=BaseModel)


class ToolError(Exception):
    """Raised by a tool to refuse an action; the policy sees the message as a tool error."""

    def __init__(self, message: str, kind: str = "refused") -> None:
        super().__init__(message)
        self.kind = kind


class Environment(ABC, Generic[S, D]):
    """One environment. Subclasses set the class variables and implement the four methods.

    Promises the server relies on:
    - `create_state` builds everything one session owns (under `workdir` when
      `needs_workdir`); nothing is shared between sessions, so no module-level mutable state.
    - `verify` is a pure function of the state, the task and the Response: the same inputs
      always give the same VerifyResult.
    - `controls` returns scripted trajectories with the outcome each must get.
    """

    # --- what every author sets ---
    name: ClassVar[str]
    description: ClassVar[str] = ""
    reward_range: ClassVar[tuple[float, float]] = (0.0, 1.0)
    #: the pydantic model of `task_data`: seeding validates against it (400 naming the field)
    #: and `/info` publishes its JSON schema. None: `task_data` is not checked.
    task_data_model: ClassVar[type[BaseModel] | None] = None
    #: task_data keys (dotted for nested ones: `goal.decision`) that are ground truth and must
    #: never reach the policy; facts the policy is meant to discover are not secrets.
    secret_fields: ClassVar[tuple[str, ...]] = ()
    #: the environment's own words for success ("booked", "scheduled"), added to the claim
    #: library's: pass them to `claim_check(..., words=self.success_words)`. `validate` fails
    #: a claim check that does not recognise the reference's own success message.
    success_words: ClassVar[tuple[str, ...]] = ()
    # --- what decides the reward beside the code (in the version and the certificate) ---
    #: data files (or folders) the reward depends on, relative to the folder of the module
    #: that declares this attribute (or absolute): their bytes are part of the version, and
    #: `validate` reports a file the environment opens that is not declared (`reads`).
    data_files: ClassVar[tuple[str | Path, ...]] = ()
    #: environment variables (a `PROOFGYM_*` setting or any other) whose values decide the
    #: reward: their names are part of the version, their values part of the reward inputs
    #: each rollout is stamped with and its certificate must match (`reward_inputs`);
    #: `validate` reports a variable the environment reads that is not declared (`reads`).
    reward_settings: ClassVar[tuple[str, ...]] = ()
    # --- what validate needs to know, where it applies (defaults serve most environments) ---
    #: rewards between the floor and a pass are meant (a share, a mean outcome, a judge's
    #: score): `validate` then requires a negative to fail, not to score the floor, and does
    #: not compare a claim's reward with an admission's. Left False, every negative must
    #: score `reward_range[0]`: partial reward for a failure is a bug.
    partial_credit: ClassVar[bool] = False
    #: the reward at or above which a rollout counts as a pass; default: the top of the range.
    pass_threshold: ClassVar[float | None] = None
    #: task_data keys whose values decide what counts as right (default: `secret_fields`).
    #: `validate` replays each task's reference on tasks whose truth differs: declare them
    #: where two tasks with the same truth have different references (a length, a phrasing).
    truth_fields: ClassVar[tuple[str, ...]] = ()
    #: forms of an honest final message the environment claims to accept beyond the ones
    #: every verifier must (surrounding whitespace, CRLF, doubled spaces): names from
    #: `proofgym_stack.validation.honest_variants.CLAIMABLE` ("preamble", "closing",
    #: "upper_case", "lower_case", "markdown_bold", "number_form"). `validate` plays each on
    #: every passing control and reports the false-negative rate.
    honest_forms: ClassVar[tuple[str, ...]] = ()
    #: forms (universal or claimable) the verifier refuses on purpose, with why: reported by
    #: `validate`, not played.
    refused_forms: ClassVar[Mapping[str, str]] = MappingProxyType({})
    #: a game of chance: random play can win, so `validate` does not require random tool
    #: calls (or a flood of them) to fail, only to end scored, and does not judge a fixed
    #: sequence of moves replayed on another task (it may win there too).
    random_play_can_pass: ClassVar[bool] = False
    #: whether the same tool call on the same state always answers the same text.
    deterministic_tools: ClassVar[bool] = True
    #: the least gap between the reference and the best negative, as a share of the range.
    floor_margin: ClassVar[float] = 0.5
    # --- how the server runs it: set only when the environment needs it ---
    needs_workdir: ClassVar[bool] = False
    #: `create_state` waits on I/O (a peer's server, a database): the registry runs it off
    #: the event loop, as it always does with a workdir; a cheap in-memory state is built inline.
    blocking_state: ClassVar[bool] = False
    #: `verify` is quick computation on in-memory state (no files, sandbox, model or network
    #: call): it runs on the event loop, without the hop to a worker thread every other
    #: verify takes. A verify that can take long with it would stall the whole server.
    inline_verify: ClassVar[bool] = False
    _tools: ClassVar[dict[str, ToolSpec]]
    _version: ClassVar[str]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._tools = collect_tools(cls)

    @classmethod
    def from_settings(cls, settings: ResourcesSettings) -> Self:
        """The environment as the resources server builds it; override to read a setting."""
        return cls()

    def sandbox_mode(self) -> str | None:
        """How this environment runs code the policy wrote (shown by /info and `proofgym
        envs`), or None when it runs none."""
        return None

    @classmethod
    def version(cls) -> str:
        """Content hash of every source file that decides what the environment does
        (`resources_servers.base.identity`): a fix anywhere in its verifier moves it."""
        if "_version" not in cls.__dict__:
            cls._version = source_hash(
                cls, cls.declared_data_files(), [s.upper() for s in cls.reward_settings]
            )
        return cls._version

    @classmethod
    def declared_data_files(cls) -> list[tuple[str, Path]]:
        """(the path as declared, the file or folder it names) of each of `data_files`,
        resolved against the folder of the class that declared them."""
        owner = next((c for c in cls.__mro__ if "data_files" in c.__dict__), cls)
        module = sys.modules.get(owner.__module__)
        folder = Path(getattr(module, "__file__", None) or ".").resolve().parent
        return [(str(p), (folder / p).resolve()) for p in cls.data_files]

    def judge_identity(self) -> str | None:
        """Who judges this instance's rewards beyond code: an LLM judge's model and URL, the
        offline judge; None (the default) when code alone decides."""
        return None

    def reward_inputs(self) -> RewardInputs:
        """What decides this instance's rewards beside its version: its judge, the values of
        its `reward_settings` as the process holds them (None: unset) and its sandbox mode.
        Override to add a value the environment takes from `from_settings`."""
        values: dict[str, str | None] = {
            name.upper(): os.environ.get(name) for name in self.reward_settings
        }
        sandbox = self.sandbox_mode()
        if sandbox is not None:
            values["sandbox"] = sandbox
        return RewardInputs(judge=self.judge_identity(), settings=values)

    @classmethod
    def tools(cls) -> dict[str, ToolSpec]:
        """The tools of this environment, by name."""
        return cls._tools

    @classmethod
    def tool_schemas(cls) -> list[dict[str, Any]]:
        """OpenAI function-tool schemas of every tool."""
        return [spec.schema for spec in cls._tools.values()]

    def observing_tools(self, task: Task) -> frozenset[str]:
        """The tools on `task` that only show the policy something (`@tool(observes=True)`):
        an honest trajectory may leave their calls out. A bridge, whose peer's tools carry no
        such mark, reads them from the task (`task_data.observes`)."""
        return frozenset(name for name, spec in self.tools().items() if spec.observes)

    def task_tool_schemas(self, task: Task) -> list[dict[str, Any]]:
        """The tools a policy has on `task`: the environment's, and for an environment whose
        tools come with each task (a bridged NeMo Gym server), the task's. `validate` attacks
        these."""
        return self.tool_schemas()

    #: tools not declared with `@tool` (a bridge's peer's tools): `call_external` runs them.
    external_tools: ClassVar[bool] = False

    def call_external(self, state: S, tool_name: str, arguments: dict[str, Any]) -> str:
        """Run a tool that is not a method (`external_tools`); raise ToolError for what the
        policy should see, a ProofgymError for an outage (it masks the rollout). Blocking:
        it runs on the fair tool pool."""
        raise ToolError(f"no tool {tool_name!r}", "unknown_tool")

    def validate_task(self, task: Task) -> None:
        """Raise ValueError with a readable message when `task_data` cannot seed a session.

        The default checks `task_data` against `task_data_model`; override to add rules that
        a schema cannot say (and call this first)."""
        if self.task_data_model is None:
            return
        try:
            self.task_data_model.model_validate(task.task_data)
        except ValidationError as exc:
            raise ValueError(describe_validation(exc.errors(), "task_data")) from None
        except (OverflowError, RecursionError, TypeError) as exc:  # e.g. an int past float
            raise ValueError(f"task_data: {type(exc).__name__}: {exc}") from None

    @classmethod
    def task_data_schema(cls) -> dict[str, Any] | None:
        """The JSON schema of `task_data`, or None when the environment declares none."""
        return None if cls.task_data_model is None else cls.task_data_model.model_json_schema()

    @abstractmethod
    def create_state(self, task: Task, workdir: Path | None) -> S:
        """Build the state of a new session from its task (runs off the event loop)."""

    def instructions(self, task: Task) -> str | None:
        """Text for the policy beside the task prompt; never ground truth."""
        return None

    @abstractmethod
    def verify(self, state: S, task: Task, response: Response) -> VerifyResult:
        """Judge a rollout by its final state and its trajectory."""

    def controls(self, task: Task) -> list[Control]:
        """Scripted trajectories for this task with the outcome each must get."""
        return []

    def data(self, task: Task) -> D:
        """`task.task_data` as the environment's task model: typed fields, not dict keys.
        Seeding already checked it (a bad field is the caller's 400), so a failure here is
        the environment's own bug. Declare the model's type as the second type argument,
        `class MathEnv(Environment[MathState, MathTask])`, for the type checker to know it."""
        if self.task_data_model is None:
            raise TypeError(f"{self.name} declares no task_data_model: read task.task_data")
        return self.task_data_model.model_validate(task.task_data)  # type: ignore[return-value]

    def honest_variants(self, task: Task, message: str) -> dict[str, str]:
        """Honest final messages of this environment's own, by name (other phrasings of the
        answer, the languages it claims), given a passing control's `message`: `validate`
        requires each to pass and counts those that fail as false negatives."""
        return {}

    @classmethod
    def passing_reward(cls) -> float:
        """The reward at or above which a rollout passes."""
        return cls.reward_range[1] if cls.pass_threshold is None else cls.pass_threshold

    def isolation_probe(self, task: Task, marker: str) -> list[list[dict[str, Any]]] | None:
        """A script that writes `marker` into the session's state and then reads the state
        back, so `proofgym validate` can check that no marker shows up in another session.
        None when the environment has no writable state."""
        return None

    def shutdown(self) -> None:
        """Release what the environment itself holds (a sandbox, a pool) when the server stops."""

    def close_state(self, state: S) -> None:
        """Release what the state holds beyond its workdir (the server removes the workdir)."""
