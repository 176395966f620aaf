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
    except Exception as exc:
        sentence = operator_fault(exc)
        if sentence is None:  # a bug: its traceback is what a report needs
            raise
        from rich.markup import escape

        from proofgym_stack.console import err

        err.print(f"[red]error:[/red] {escape(sentence)}", soft_wrap=True)
        sys.exit(1)


def operator_fault(exc: BaseException) -> str | None:
    """The sentence for a failure the operator caused and can fix (a full disk, a read-only
    folder, a store that cannot be written), or None for anything else (a bug)."""
    import errno

    from proofgym.rollouts.store import StoreError

    if isinstance(exc, StoreError):
        return str(exc)
    fixable = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOTDIR}
    if isinstance(exc, OSError) and exc.errno in fixable:
        from proofgym.rollouts.safe_files import why_not_written

        where = exc.filename if exc.filename is not None else "a file it needs"
        return (
            f"cannot use {where}: {why_not_written(exc)}; free space, make it writable or name "
            "another path, and run the command again"
        )
    return None


if __name__ == "__main__":
    main()
