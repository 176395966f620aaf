"""What every command shares: the Typer app, the consoles, and the one way to fail."""

from __future__ import annotations

from typing import NoReturn

import typer
from rich.console import Console
from rich.markup import escape

app = typer.Typer(
    help="proofgym: RL environments for LLM agents, with proven rewards.",
    no_args_is_help=True,
    add_completion=False,
    # Plain click help: Rich's help panels cost ~35 ms of imports and rendering on every
    # `--help`, a third of the command's start-up (issue 21: people run it in an edit loop).
    rich_markup_mode=None,
)
console = Console()
err = Console(stderr=True)


def fail(message: str, code: int = 2) -> NoReturn:
    """Print an error a person can act on (as written: brackets are not markup) and exit."""
    err.print(f"[red]error:[/red] {escape(message)}", soft_wrap=True)
    raise typer.Exit(code)
