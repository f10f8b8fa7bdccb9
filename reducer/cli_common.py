"""What every command shares: distinct exit codes (so scripts can tell why a run did not reduce),
the error that carries one, reading the input, refusing to clobber files, stopping on SIGTERM."""
from __future__ import annotations

from pathlib import Path

import click

EXIT_INPUT = 3            # input file missing, unreadable or would be overwritten
EXIT_TEST = 4             # test script or oracle cannot be set up
EXIT_NOT_INTERESTING = 5  # the original is not interesting
EXIT_ORIGINAL_TIMEOUT = 6  # the test times out on the original
EXIT_NOT_IR = 7           # `reduce ir`: the input is neither LLVM bitcode nor textual IR
EXIT_WRONG_TARGET = 8     # `reduce ir`: the module is for another target than AMDGPU
EXIT_LLC_REJECTS = 9      # `reduce ir`: llc rejects the module
EXIT_INTERRUPTED = 130


class Fail(click.ClickException):
    """A one-line error with its own exit code."""

    def __init__(self, message: str, code: int):
        super().__init__(message)
        self.exit_code = code


def stop(signum, frame) -> None:
    raise KeyboardInterrupt


def read_input(file: Path) -> bytes:
    try:
        return file.read_bytes()
    except FileNotFoundError:
        raise Fail(f"no such file: {file}", EXIT_INPUT) from None
    except IsADirectoryError:
        raise Fail(f"is a directory, not a file: {file}", EXIT_INPUT) from None
    except OSError as e:
        raise Fail(f"cannot read {file}: {e.strerror}", EXIT_INPUT) from None


def check_output(file: Path, output: Path, force: bool) -> Path:
    if output.resolve() == file.resolve():
        raise Fail(f"refusing to write the result over the input file {file}", EXIT_INPUT)
    if output.exists() and not force:
        raise Fail(f"output {output} exists; remove it, choose another -o, or pass --force", EXIT_INPUT)
    if not output.parent.is_dir():
        raise Fail(f"output directory does not exist: {output.parent}", EXIT_INPUT)
    return output
