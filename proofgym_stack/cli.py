"""The `proofgym` command line: one Typer app, its commands in modules by group."""

from __future__ import annotations

import sys

from proofgym_stack import (
    cli_envs,
    cli_interop,
    cli_learn,
    cli_model,
    cli_profile,
    cli_reverify,
    cli_rollouts,
    cli_services,
)
from proofgym_stack.cli_services import vllm_command
from proofgym_stack.console import app
from proofgym_stack.prestart import start_early

__all__ = [
    "app",
    "cli_envs",
    "cli_interop",
    "cli_learn",
    "cli_model",
    "cli_profile",
    "cli_reverify",
    "cli_rollouts",
    "cli_services",
    "main",
    "vllm_command",
]


def main() -> None:
    """The command line (the `proofgym` console script runs it through
    `proofgym_stack.entry.main`)."""
    start_early(sys.argv)  # `python -m proofgym_stack.cli up`, as the console script does
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
