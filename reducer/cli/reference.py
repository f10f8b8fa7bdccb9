"""The options reference, docs/options.md, made from the command tree itself so that it cannot say
what the commands do not: each subcommand's usage, its description and every option with click's
own help text and default. `reduce run`'s options are rows of the option table (run/options.py),
so for those it adds what only the table knows: the batch manifest key and whether
`reduce resume` may change the stored value.

    python -m reducer.cli.reference > docs/options.md

tests/test_docs.py checks that the committed file is this text."""
from __future__ import annotations

import inspect

import click

from ..run import options
from .main import main

HEADER = """# Options of every command

Generated from the commands (`python -m reducer.cli.reference > docs/options.md`; a test checks
that this file is what that prints, so it is as true as `reduce COMMAND --help`). What the
commands do: [usage.md](usage.md). `reduce run` is what `reduce FILE ...` runs; a batch manifest
(`reduce batch`) sets its options under the keys given here, per case or for all cases.
"""


def reference() -> str:
    """The Markdown text of docs/options.md."""
    ctx = click.Context(main, info_name="reduce")
    names = sorted(main.commands, key=lambda name: (name != "run", name))
    return HEADER + "".join(_command(ctx, main.commands[name]) for name in names)


def _command(parent: click.Context, command: click.Command) -> str:
    ctx = click.Context(command, info_name=command.name, parent=parent)
    usage = " ".join(["reduce", str(command.name), *command.collect_usage_pieces(ctx)])
    about = inspect.cleandoc(command.help or "").split("\n\n")[0].replace("\b\n", "")
    lines = ["", f"## `reduce {command.name}`", "", "```", usage, "```", "", " ".join(about.split()), ""]
    rows = {o.name: o for o in options.RUN} if command.name == "run" else {}
    for param in command.get_params(ctx):
        record = param.get_help_record(ctx) if isinstance(param, click.Option) else None
        if record is None or param is command.get_help_option(ctx):
            continue
        spelling, text = record
        lines.append(f"- `{spelling}`: {text}" + _table_notes(rows.get(param.name or "")))
    return "\n".join(lines).rstrip("\n") + "\n"


def _table_notes(row: options.Option | None) -> str:
    """What the option table adds for a `reduce run` option: its manifest key, and `resume`."""
    if row is None:
        return ""
    notes = [f"manifest key `{row.manifest_key}`"] if row.field else ["this invocation only"]
    if row.resume:
        notes.append("`reduce resume` may change it")
    return " (" + "; ".join(notes) + ".)"


if __name__ == "__main__":
    click.echo(reference(), nl=False)
