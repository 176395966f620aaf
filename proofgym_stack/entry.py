"""The `proofgym` console script: what must start before the command line loads, then it.

`proofgym up` spends most of its start loading the services' imports (proofgym_stack.forkstart
does it once, in a process of its own). That process starts here, before Typer and the command
modules load, so both loads run side by side; every other command goes straight on.
"""

from __future__ import annotations

import os
import sys


def prestarts(argv: list[str]) -> bool:
    """Whether `argv` runs `proofgym up` on local processes (not its help, not `--ray`)."""
    return argv[1:2] == ["up"] and not any(
        a in ("--help", "-h") or a.startswith("--ray") for a in argv
    )


def start_early(argv: list[str]) -> None:
    """For `proofgym up`: launch the forking process now (once; see proofgym_stack.forkstart).
    Any other command loads nothing here."""
    if not prestarts(argv):
        return
    from proofgym_stack.forkstart import HANDOVER_ENV, prestart

    if HANDOVER_ENV not in os.environ:
        prestart()


def main() -> None:
    """The console script's entry point."""
    start_early(sys.argv)
    from proofgym_stack.cli import main as command_line

    command_line()
