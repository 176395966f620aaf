"""The environment author's API: everything an environment imports from proofgym, in one place.

An environment folder imports proofgym only from here (`from resources_servers.sdk import
Environment, tool, Task, ...`): the base class and its tools, the task and verdict types,
the helpers that read a response and script controls, and the verifier library's checks.
These names are the stable API (docs/environments.md lists them with their promises): they
keep their meaning across releases, and when one moves or changes, it keeps working from
here for one release with a DeprecationWarning first. Where each lives inside proofgym
(`proofgym.wire.protocol`, `resources_servers.base`, `resources_servers.verifiers.*`) is
not part of that promise.

It sits between the environments and what they build on: it imports the resources base,
the verifier library and the core, and nothing imports it but environments (the import
contract in pyproject.toml). A few names are prefixed here where the library's name relied on
its module for its meaning (`evaluate_arithmetic`, `SQLiteTable`, `CANARY_PATTERN`).
"""

from typing import TYPE_CHECKING, Any

from openai.types.responses import Response

from proofgym.rollouts.sqltable import Table as SQLiteTable
from proofgym.rollouts.sqltable import connect as connect_sqlite
from proofgym.wire.canary import FILE_GLOB as CANARY_FILE_GLOB
from proofgym.wire.canary import PATTERN as CANARY_PATTERN
from proofgym.wire.errors import SandboxUnavailable
from proofgym.wire.jsonlimits import JSONTooDeep, JSONTooLarge, loads_limited
from proofgym.wire.protocol import Check, Control, Task, VerifyResult
from proofgym.wire.responses import final_message, function_calls
from resources_servers.base.environment import Environment, ToolError
from resources_servers.base.probes import write_then_list
from resources_servers.base.scratch import private_dir
from resources_servers.base.scripts import Turn, call, call_item, say, say_item
from resources_servers.base.tools import tool
from resources_servers.verifiers.answers import (
    exact_answer_check,
    extract_answers,
    length_guard,
    numeric_answer_check,
    parse_number,
)
from resources_servers.verifiers.arithmetic import CalculatorError
from resources_servers.verifiers.arithmetic import evaluate as evaluate_arithmetic
from resources_servers.verifiers.claims import SUCCESS_WORDS, claim_check, claims_success
from resources_servers.verifiers.compose import all_or_nothing, weighted
from resources_servers.verifiers.judge import (
    Criterion,
    Judge,
    JudgeBackend,
    JudgeFailed,
    ModelInterfaceJudge,
    Rubric,
    judged,
)
from resources_servers.verifiers.judge_check import JudgeCase, check_judge
from resources_servers.verifiers.judge_offline import ReferenceOverlapJudge, is_prose, key_terms
from resources_servers.verifiers.state import StateDiff, diff, matches, unchanged_except
from resources_servers.verifiers.statements import figures_check
from resources_servers.verifiers.trajectory import (
    call_limit,
    calls,
    forbidden_arguments,
    forbidden_tools,
    required_before,
)

if TYPE_CHECKING:
    from proofgym.serving.settings import ResourcesSettings
else:

    def __getattr__(name: str) -> Any:
        # The server's settings load the request guard and FastAPI: an environment that
        # names them only in `from_settings` (or nowhere) does not pay for them on import.
        if name == "ResourcesSettings":
            from proofgym.serving.settings import ResourcesSettings

            return ResourcesSettings
        raise AttributeError(f"module 'resources_servers.sdk' has no attribute {name!r}")


# docs/environments.md's table of the stable API lists the same names (a test holds it).
__all__ = [
    "CANARY_FILE_GLOB",
    "CANARY_PATTERN",
    "SUCCESS_WORDS",
    "CalculatorError",
    "Check",
    "Control",
    "Criterion",
    "Environment",
    "JSONTooDeep",
    "JSONTooLarge",
    "Judge",
    "JudgeBackend",
    "JudgeCase",
    "JudgeFailed",
    "ModelInterfaceJudge",
    "ReferenceOverlapJudge",
    "ResourcesSettings",
    "Response",
    "Rubric",
    "SQLiteTable",
    "SandboxUnavailable",
    "StateDiff",
    "Task",
    "ToolError",
    "Turn",
    "VerifyResult",
    "all_or_nothing",
    "call",
    "call_item",
    "call_limit",
    "calls",
    "check_judge",
    "claim_check",
    "claims_success",
    "connect_sqlite",
    "diff",
    "evaluate_arithmetic",
    "exact_answer_check",
    "extract_answers",
    "figures_check",
    "final_message",
    "forbidden_arguments",
    "forbidden_tools",
    "function_calls",
    "is_prose",
    "judged",
    "key_terms",
    "length_guard",
    "loads_limited",
    "matches",
    "numeric_answer_check",
    "parse_number",
    "private_dir",
    "required_before",
    "say",
    "say_item",
    "tool",
    "unchanged_except",
    "weighted",
    "write_then_list",
]
