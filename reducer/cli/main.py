"""The command line: `reduce FILE ...` (run), `resume`, `report`, `batch`, `check`, `ir` and `explain`.

Commands only parse options; run/session.py carries out a run, run/batch.py a manifest."""
from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from interestingness.compiler.sides import SideError, parse_sides
from interestingness.compiler.toolchain import ToolchainError
from interestingness.measure.predicates import PredicateError
from interestingness.tools.check import format_check, run_check

from .. import passes
from ..engine import stopping
from ..run import batch, exits, options, session
from ..run.options import RunConfig
from ..run.report import write_report
from ..run.workdir import WorkDir, WorkDirError
from ..text.files import default_output
from .common import Fail, read_input
from .explain import explain
from .ir import ir


class DefaultGroup(click.Group):
    """`reduce FILE ...` means `reduce run FILE ...`."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = ["run", *args]
        return super().parse_args(ctx, args)


@click.group(cls=DefaultGroup, context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """Reduce a C/C++/HIP test case while it stays interesting.

    \b
    reduce FILE --test SCRIPT      C-Reduce-style script: exit 0 = interesting
    reduce FILE -- CLANG_FLAGS     built-in oracle: spills under full offload LTO only
    reduce resume WORKDIR          continue a stopped or killed run
    reduce report WORKDIR          its Markdown report, JSON summary and plot
    reduce batch MANIFEST.toml     many cases, resumable, with one report
    reduce check FILE -- FLAGS     show the spill metrics of both builds
    reduce bundle WORKDIR          a run's bug report: result, headers, repro.sh
    reduce passes                  the passes and the default schedule
    reduce ir INPUT.bc|INPUT.ll    reduce the IR given to codegen to a lit test llc spills on
    reduce explain FILE -- FLAGS   which compiler passes make the difference (also for .ll/.bc)
    """


main.add_command(ir)
main.add_command(explain)


@main.command("run")
@click.argument("file", type=click.Path(path_type=Path))
@click.argument("flags", nargs=-1, type=click.UNPROCESSED)
@options.click_options()
def run(file: Path, flags: tuple[str, ...], output: Path | None, workdir: Path | None, force: bool, quiet: bool,
        as_json: bool, **values: Any) -> None:
    """Reduce FILE; the result goes to -o, never over FILE.

    Without --test, the built-in spill-differential oracle decides, compiling FILE with the
    clang FLAGS given after `--`. A run stopped by Ctrl-C, a kill or its budget continues
    with `reduce resume WORKDIR`."""
    if values["scheduler"] and values["backend"] != "dask":
        raise click.UsageError("--scheduler needs --backend dask")
    if values["include_dirs"] and not values["script"]:
        raise click.UsageError("--include-dir is for --test runs; give the built-in oracle -I/-iquote after --")
    output = (output or default_output(file)).absolute()
    if values["keep_artifacts"] is not None:
        Path(values["keep_artifacts"]).mkdir(parents=True, exist_ok=True)
    config = RunConfig(file=str(file.absolute()), output=str(output), cwd=os.getcwd(), flags=list(flags), **values)
    workdir = (workdir or session.default_workdir(output)).absolute()
    _finish(lambda: session.start(config, workdir, force=force, display=session.Display(quiet, as_json)))


@main.command("passes")
def passes_command() -> None:
    """The passes in the default schedule's order, each with what it does, then the other ones."""
    click.echo(passes.catalogue())


@main.command("resume")
@click.argument("workdir", type=click.Path(path_type=Path, file_okay=False))
@options.resume_options
@options.click_options("quiet", "as_json")
def resume(workdir: Path, quiet: bool, as_json: bool, **overrides: Any) -> None:
    """Continue a run stopped by Ctrl-C, a kill or its budget: the tests it ran are not run again,
    and it ends with the file an uninterrupted run gives."""
    _finish(lambda: session.resume(workdir.absolute(), display=session.Display(quiet, as_json), **overrides))


@main.command("bundle")
@click.argument("workdir", type=click.Path(path_type=Path, file_okay=False))
def bundle_command(workdir: Path) -> None:
    """(Re)write WORKDIR/bundle/: the result (or the best so far), the headers it needs, repro.sh and
    README.md, a bug report a compiler engineer can run with clang alone."""
    try:
        out = session.bug_report(workdir.absolute())
    except session.RunError as e:
        raise Fail(str(e), e.code) from None
    except (ToolchainError, PredicateError) as e:
        raise Fail(str(e), exits.EXIT_TEST) from None
    click.echo(f"{out}/ (run {out / 'repro.sh'} to build both sides and see the verdict)")


@main.command("report")
@click.argument("workdir", type=click.Path(path_type=Path, file_okay=False))
def report(workdir: Path) -> None:
    """Write (and print) the Markdown report, JSON summary and size plot of a finished or running run."""
    try:
        wd = WorkDir.open(workdir)
    except WorkDirError as e:
        raise Fail(str(e), exits.EXIT_INPUT) from None
    path = write_report(wd)
    click.echo(path.read_text())
    click.echo(f"(written to {path}, with {path.parent / 'summary.json'})", err=True)


@main.command("batch")
@click.argument("manifest", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--parallel", type=click.IntRange(1), help="Cases run at once [default: the manifest's, else 1].")
@click.option("--out", type=click.Path(path_type=Path, file_okay=False),
              help="Where the cases' work directories and the batch report go [default: MANIFEST.batch].")
@click.option("-q", "--quiet", is_flag=True, help="Only the final report.")
def batch_command(manifest: Path, parallel: int | None, out: Path | None, quiet: bool) -> None:
    """Run the cases of a TOML manifest, continuing past failing ones; run it again to resume."""
    try:
        cases, settings = batch.load(manifest)
    except batch.ManifestError as e:
        raise Fail(str(e), exits.EXIT_INPUT) from None
    out = (out or manifest.with_name(manifest.name + ".batch")).absolute()
    stopping.install()
    try:
        result = batch.run_batch(cases, out, parallel or settings.get("parallel", 1),
                                 echo=(lambda line: None) if quiet else (lambda line: click.echo(line, err=True)))
    except KeyboardInterrupt:
        raise Fail("interrupted: every case kept its best so far; run the same command again to resume",
                   exits.EXIT_INTERRUPTED) from None
    click.echo(result.report.read_text())
    sys.exit(0 if result.all_ok else exits.EXIT_BATCH_FAILED)


@main.command("check")
@click.argument("file", type=click.Path(path_type=Path))
@click.argument("flags", nargs=-1, type=click.UNPROCESSED)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable report.")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=300.0, show_default=True,
              help="Seconds per compile.")
@click.option("--init-guard/--no-init-guard", default=True, show_default=True,
              help="Also build with -ftrivial-auto-var-init=zero and =pattern and show those verdicts.")
@click.option("--ub-guard/--no-ub-guard", default=True, show_default=True,
              help="Also build with the UB guard's sanitizer checks and show what they say of each kernel.")
@click.option("--against", type=click.Path(path_type=Path), default=None,
              help="The original of a reduction (same flags): its figures beside FILE's, the predicate's orig.* "
                   "read from it, and the UB guard's verdict against it.")
@options.click_options(*options.ORACLE)
def check(file: Path, flags: tuple[str, ...], as_json: bool, timeout: float, init_guard: bool, ub_guard: bool,
          against: Path | None, clang: str | None, kernels: tuple[str, ...], predicate: str | None,
          hip_headers: str, all_targets: bool, sides: list[str]) -> None:
    """Build FILE with and without full offload LTO (or the two --side builds) and compare the kernels' metrics.

    Exit status 0 when the predicate holds (interesting), 5 when it does not."""
    read_input(file)
    if against is not None:
        read_input(against)
    try:
        report = run_check(file, flags, clang=clang, kernel=list(kernels) or None,
                           predicate=predicate, timeout=timeout, hip_headers=hip_headers, init_guard=init_guard,
                           ub_guard=ub_guard, focus=not all_targets, against=against, sides=parse_sides(sides))
    except (ToolchainError, PredicateError, SideError) as e:
        raise Fail(str(e), exits.EXIT_TEST) from None
    click.echo(json.dumps(report, indent=2) if as_json else format_check(report))
    if not report["interesting"]:
        sys.exit(exits.EXIT_NOT_INTERESTING)


def _finish(go: Callable[[], int]) -> None:
    """Run to the end and exit with the run's code; a kill from a job scheduler stops like Ctrl-C."""
    stopping.install()
    try:
        code = go()
    except session.RunError as e:
        raise Fail(str(e), e.code) from None
    except KeyboardInterrupt:
        raise Fail("interrupted", exits.EXIT_INTERRUPTED) from None
    if code == exits.EXIT_INTERRUPTED:
        raise Fail("interrupted: the best result so far is kept; continue with `reduce resume`", code)
    sys.exit(code)

