"""The command line, ``python -m sysrs_ref COMMAND`` (docs/cli.md): one private module per subcommand."""

from sysrs_ref.cli._main import main

__all__ = ["main"]
