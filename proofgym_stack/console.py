"""What every command shares: the Typer app, the consoles, and the one way to fail."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NoReturn

import typer

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

app = typer.Typer(
    help="proofgym: RL environments for LLM agents, with proven rewards.",
    no_args_is_help=True,
    add_completion=False,
    # Plain click help: Rich's help panels cost ~35 ms of imports and rendering on every
    # `--help`, a third of the command's start-up (issue 21: people run it in an edit loop).
    rich_markup_mode=None,
)


class LazyConsole:
    """A rich `Console`, made (and rich.console loaded: a fifth of `proofgym --help`'s start)
    the first time a command prints. Everything asked of it is the console's; `.real` is the
    console itself, for rich objects that take one (`Progress(console=err.real)`)."""

    def __init__(self, stderr: bool = False) -> None:
        self._stderr = stderr
        self._made: Console | None = None

    @property
    def real(self) -> Console:
        """The console (made now if it was not yet)."""
        if self._made is None:
            from rich.console import Console

            self._made = Console(stderr=self._stderr)
        return self._made

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


console = LazyConsole()
err = LazyConsole(stderr=True)


def fail(message: str, code: int = 2) -> NoReturn:
    """Print an error a person can act on (as written: brackets are not markup) and exit."""
    from rich.markup import escape

    err.print(f"[red]error:[/red] {escape(message)}", soft_wrap=True)
    raise typer.Exit(code)


def new_table(*columns: Any, **options: Any) -> Table:
    """A rich `Table`; rich.table loads on first use, so `--help` and the commands that print
    no table do without it (a tenth of `proofgym --help`'s start)."""
    from rich.table import Table

    return Table(*columns, **options)
