"""The `proofgym` console script: what must start before the command line loads, then it.

`proofgym up` spends most of its start loading the services' imports (proofgym_stack.forkstart
does it once, in a process of its own). That process starts here (proofgym_stack.prestart),
before Typer and the command modules load, so both loads run side by side; every other
command goes straight on.
"""

from __future__ import annotations

import sys

from proofgym_stack.prestart import prestarts, start_early

__all__ = ["main", "prestarts", "start_early"]


def main() -> None:
    """The console script's entry point."""
    start_early(sys.argv)
    from proofgym_stack.cli import main as command_line

    command_line()
