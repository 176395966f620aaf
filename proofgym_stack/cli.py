"""The `proofgym` command line: one Typer app, its commands in modules by group."""

from __future__ import annotations

import sys

from proofgym_stack import (
    cli_envs,
    cli_interop,
    cli_model,
    cli_profile,
    cli_rollouts,
    cli_services,
)
from proofgym_stack.cli_services import vllm_command
from proofgym_stack.console import app

__all__ = [
    "app",
    "cli_envs",
    "cli_interop",
    "cli_model",
    "cli_profile",
    "cli_rollouts",
    "cli_services",
    "main",
    "vllm_command",
]


def main() -> None:
    """Entry point of the console script."""
    if sys.argv[1:2] == ["up"] and not any(
        a in ("--help", "-h") or a.startswith("--ray") for a in sys.argv
    ):
        # The services' imports load in a process of their own while Typer parses and checks
        # the options; the supervisor that `up` becomes takes it over (proofgym_stack.forkstart).
        from proofgym_stack.forkstart import prestart

        prestart()
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
