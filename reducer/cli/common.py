"""What every command shares: the error that carries an exit code, and the input/output checks of
run/session.py as command-line errors."""
from __future__ import annotations

from pathlib import Path

import click

from ..run import session


class Fail(click.ClickException):
    """A one-line error with its own exit code (reducer/run/exits.py)."""

    def __init__(self, message: str, code: int):
        super().__init__(message)
        # click declares exit_code a class variable, but reads it from the exception it catches
        self.exit_code = code  # type: ignore[misc]


def read_input(file: Path) -> bytes:
    try:
        return session.read_input(file)
    except session.RunError as e:
        raise Fail(str(e), e.code) from None


def check_output(file: Path, output: Path, force: bool) -> Path:
    try:
        session.check_output(file, output, force)
    except session.RunError as e:
        raise Fail(str(e), e.code) from None
    return output
