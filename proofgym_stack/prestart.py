"""What must start before the command line loads: `proofgym up` launches its forking process
here (proofgym_stack.forkstart), so that the services' imports load beside Typer's. Imported
by the console script's entry point and by the command line alike (neither imports the other
for it)."""

from __future__ import annotations

import os


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
