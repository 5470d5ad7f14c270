"""One spelling per flag across the commands (`--as`, `-o/--out`, `--guard/--no-guard`),
and the old spellings refused with a message that names the new one.

A spelling a command no longer takes is kept as a hidden option, so that a script that
still uses it fails with "error: --customer is now --as" (exit 2, bad usage) rather than
"No such option", which would leave its user to look for the new name in `--help`.
"""

from __future__ import annotations

import typer
from typer.models import OptionInfo


def renamed(old: str, new: str) -> OptionInfo:  # for an `Annotated` parameter
    """A hidden option `old` that refuses to be used, saying it is now `new`."""

    def refuse(value: object) -> None:
        if value is not None:
            typer.echo(f"error: {old} is now {new}", err=True)
            raise typer.Exit(2)

    return typer.Option(old, hidden=True, is_eager=True, callback=refuse)
