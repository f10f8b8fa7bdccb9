"""The command line: `reduce FILE ...` (run), `resume`, `report`, `batch`, `check`, `ir` and `explain`.

Commands only parse options; runs.py carries out a run, batch.py a manifest."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Callable

import click

from interestingness.check import format_check, run_check
from interestingness.predicates import DEFAULT_PREDICATE, PredicateError
from interestingness.toolchain import ToolchainError

from . import batch, exits, passes, runs, stopping
from .budget import parse_duration
from .cli_common import Fail, read_input
from .explain_cli import explain
from .files import default_output
from .ir_cli import ir
from .report import write_report
from .workdir import WorkDir, WorkDirError


def _duration(ctx, param, value: str | None) -> float | None:
    try:
        return None if value is None else parse_duration(value)
    except ValueError as e:
        raise click.BadParameter(str(e)) from None


def display_options(f):
    f = click.option("--json", "as_json", is_flag=True, help="Progress and the final summary as JSON lines on stdout.")(f)
    f = click.option("-q", "--quiet", is_flag=True, help="No progress output.")(f)
    return f


def spill_options(f):
    """Options of the built-in spill oracle, shared by `run` and `check`."""
    f = click.option("--predicate", help="When a kernel is interesting, over lto.METRIC / nolto.METRIC "
                     f"[default: {DEFAULT_PREDICATE}].")(f)
    f = click.option("--all-targets", is_flag=True,
                     help="Keep every kernel that shows the effect (or that --kernel selects) a target; by default "
                     "a reduction keeps one, the one with the most spill code, and the others become deletable.")(f)
    f = click.option("--kernel", "kernels", multiple=True,
                     help="Target kernel: mangled name or part of the demangled one [default: one kernel that "
                     "shows the effect in the original; see --all-targets]. Two or more --kernel keep all they select.")(f)
    f = click.option("--clang", help="clang++ to use [default: $REDUCE_CLANG, /usr/lib/llvm-22/bin/clang++, PATH].")(f)
    f = click.option("--hip-headers", type=click.Choice(["auto", "rocm", "shim"]), default="auto", show_default=True,
                     help="HIP headers after your own -I/-isystem ones: a ROCm's (found by clang, or with --rocm-path "
                     "among the clang flags), this package's fallback shim, or auto: ROCm when clang finds one.")(f)
    return f


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
@click.option("--test", "script", type=click.Path(path_type=Path), help="Interestingness script (exit 0 = interesting).")
@click.option("--test-arg", is_flag=True, help="Pass the candidate's path as the script's last argument (llvm-reduce style).")
@click.option("-j", "--jobs", type=click.IntRange(1), default=os.cpu_count() or 1, show_default=True, help="Tests run in parallel.")
@click.option("-o", "--output", type=click.Path(path_type=Path), help="Result file [default: FILE.reduced.EXT].")
@click.option("--workdir", type=click.Path(path_type=Path, file_okay=False),
              help="The run's state, journal, log and report [default: OUTPUT.work].")
@click.option("--force", is_flag=True, help="Overwrite an existing output file and work directory.")
@click.option("--time-budget", callback=_duration, help="Stop cleanly after this much wall time (8h, 90m, 1h30m).")
@click.option("--max-tests", type=click.IntRange(1), help="Stop cleanly after this many oracle tests.")
@click.option("--pass-time-cap", callback=_duration,
              help="Cut a pass short after this long [default: a quarter of --time-budget, else none].")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=300.0, show_default=True, help="Seconds per test.")
@click.option("--check-repeat", type=click.IntRange(1), default=2, show_default=True,
              help="Fresh tests of the original (all must agree, or the run is refused) and of the result.")
@click.option("--recheck/--no-recheck", default=None,
              help="Test each interesting candidate again before keeping it [default: on with --test, off with "
              "the built-in oracle, whose compiles are deterministic].")
@click.option("--allow-empty", is_flag=True, help="Let an empty or whitespace-only file be interesting.")
@click.option("--ub-guard/--no-ub-guard", default=True, show_default=True,
              help="Built-in oracle: refuse candidates with more -Wuninitialized warnings than the original "
              "(reductions leave uninitialized counters behind, and a test case with undefined behaviour is "
              "no bug report).")
@click.option("--init-guard/--no-init-guard", default=True, show_default=True,
              help="Built-in oracle: keep a candidate only when it is also interesting with every automatic variable "
              "zero- and pattern-initialised (-ftrivial-auto-var-init), so the spill does not depend on reads of "
              "uninitialised memory. Costs two more builds per candidate kept, not per test; off when the original fails it.")
@click.option("--loop-guard/--no-loop-guard", default=True, show_default=True,
              help="Built-in oracle: when the original spills inside a loop (LTO side), so must the result "
              "(metric loop_spill_ops), rather than drift to straight-line code that spills for another reason.")
@click.option("--format/--no-format", "format_result", default=True, show_default=True,
              help="After the reduction, make the result read like code a person wrote: initialise uninitialised "
              "scalars, give constant loop conditions their bound back, drop empty statements and unused labels, "
              "then clang-format it (LLVM style, or your .clang-format); each step kept only when still interesting.")
@click.option("--no-prefilter", is_flag=True, help="Test candidates that add parse errors too.")
@click.option("--passes", "pass_names", help="Comma-separated passes to run instead of the default schedule "
              "(`reduce passes` lists them).")
@click.option("--skip-passes", "skip_names", help="Comma-separated passes to take out of the schedule.")
@click.option("--adaptive-sweeps/--full-sweeps", default=False, show_default=True,
              help="After a full sweep of the main passes, run again only those that removed something, until "
              "none does, then a full sweep again.")
@click.option("--rename/--no-rename", default=False, show_default=True,
              help="shorten identifiers; off by default because names matter in a bug report")
@click.option("--backend", type=click.Choice(["loky", "threading", "dask"]), default="loky", show_default=True,
              help="joblib backend; dask runs the tests on a Dask cluster (its workers need the toolchain).")
@click.option("--scheduler", help="Dask scheduler address (tcp://host:8786) for --backend dask [default: a local cluster].")
@click.option("--flatten/--no-flatten", default=None,
              help="Inline project headers (found via -I/-iquote and the file's directory) first "
              "[default: on with the built-in oracle, off with --test]. Without it, the project headers are "
              "reduced as files of their own, written to OUTPUT.files/.")
@click.option("-I", "--include-dir", "include_dirs", multiple=True, type=click.Path(path_type=Path, file_okay=False),
              help="A directory of project headers, for --test runs (the built-in oracle takes -I/-iquote from its "
              "clang flags); with --no-flatten, the headers found there are reduced too.")
@click.option("--cache/--no-cache", "use_cache", default=None,
              help="Keep verdicts in the persistent cache [default: on with the built-in oracle, whose key "
              "covers everything that decides a verdict; off with --test, since a script may read anything].")
@click.option("--cache-dir", type=click.Path(path_type=Path), help="[default: $XDG_CACHE_HOME/gpu-reduce]")
@click.option("--cache-max-entries", type=click.IntRange(0), default=200_000, show_default=True, help="0 disables.")
@click.option("--cache-max-bytes", type=click.IntRange(0), default=1 << 30, show_default=True, help="0 disables.")
@click.option("--keep-artifacts", type=click.Path(path_type=Path, file_okay=False),
              help="Keep every test's directory (candidate, build outputs) under this directory; "
              "the persistent cache is then off, so no test is skipped for an earlier run's answer.")
@display_options
@spill_options
def run(file: Path, flags: tuple[str, ...], script: Path | None, test_arg: bool, jobs: int,
        output: Path | None, workdir: Path | None, force: bool, time_budget: float | None, max_tests: int | None,
        pass_time_cap: float | None, timeout: float, check_repeat: int, recheck: bool | None, allow_empty: bool,
        ub_guard: bool, init_guard: bool, loop_guard: bool, format_result: bool, no_prefilter: bool,
        pass_names: str | None, skip_names: str | None, adaptive_sweeps: bool, rename: bool,
        backend: str, scheduler: str | None, flatten: bool | None, include_dirs: tuple[Path, ...],
        use_cache: bool | None, cache_dir: Path | None,
        cache_max_entries: int, cache_max_bytes: int, keep_artifacts: Path | None, quiet: bool, as_json: bool,
        clang: str | None, kernels: tuple[str, ...], predicate: str | None, hip_headers: str,
        all_targets: bool) -> None:
    """Reduce FILE; the result goes to -o, never over FILE.

    Without --test, the built-in spill-differential oracle decides, compiling FILE with the
    clang FLAGS given after `--`. A run stopped by Ctrl-C, a kill or its budget continues
    with `reduce resume WORKDIR`."""
    if scheduler and backend != "dask":
        raise click.UsageError("--scheduler needs --backend dask")
    if include_dirs and not script:
        raise click.UsageError("--include-dir is for --test runs; give the built-in oracle -I/-iquote after --")
    names = _names(pass_names, "--passes") or None
    skip = _names(skip_names, "--skip-passes")
    output = (output or default_output(file)).absolute()
    if keep_artifacts is not None:
        keep_artifacts.mkdir(parents=True, exist_ok=True)
    config = runs.RunConfig(
        file=str(file.absolute()), output=str(output), cwd=os.getcwd(), flags=list(flags),
        script=str(script.absolute()) if script else None, test_arg=test_arg, jobs=jobs, timeout=timeout,
        prefilter=not no_prefilter, passes=names, rename=rename, skip_passes=skip, adaptive_sweeps=adaptive_sweeps,
        backend=backend, scheduler=scheduler, flatten=flatten,
        cache=use_cache, cache_dir=str(cache_dir.absolute()) if cache_dir else None,
        cache_max_entries=cache_max_entries, cache_max_bytes=cache_max_bytes,
        keep_artifacts=str(keep_artifacts.absolute()) if keep_artifacts else None, clang=clang,
        kernels=list(kernels), predicate=predicate, time_budget=time_budget, max_tests=max_tests,
        pass_time_cap=pass_time_cap, check_repeat=check_repeat, recheck=recheck, allow_empty=allow_empty,
        ub_guard=ub_guard, init_guard=init_guard, loop_guard=loop_guard, format=format_result,
        include_dirs=[str(d.absolute()) for d in include_dirs], hip_headers=hip_headers, all_targets=all_targets)
    workdir = (workdir or runs.default_workdir(output)).absolute()
    _finish(lambda: runs.start(config, workdir, force=force, display=runs.Display(quiet, as_json)))


def _names(text: str | None, option: str) -> list[str]:
    """Pass names from a comma-separated option; an unknown one is a usage error."""
    names = [n.strip() for n in (text or "").split(",") if n.strip()]
    try:
        passes.resolve(names)
    except KeyError as e:
        raise click.BadParameter(str(e.args[0]), param_hint=option) from None
    return names


@main.command("passes")
def passes_command() -> None:
    """The passes in the default schedule's order, each with what it does, then the other ones."""
    click.echo(passes.catalogue())


@main.command("resume")
@click.argument("workdir", type=click.Path(path_type=Path, file_okay=False))
@click.option("-j", "--jobs", type=click.IntRange(1), help="Tests run in parallel [default: as the run had].")
@click.option("--time-budget", callback=_duration, help="A new total time budget for the run (all sessions).")
@click.option("--max-tests", type=click.IntRange(1), help="A new total test budget for the run (all sessions).")
@display_options
def resume(workdir: Path, jobs: int | None, time_budget: float | None, max_tests: int | None, quiet: bool,
           as_json: bool) -> None:
    """Continue a run stopped by Ctrl-C, a kill or its budget: the tests it ran are not run again,
    and it ends with the file an uninterrupted run gives."""
    _finish(lambda: runs.resume(workdir.absolute(), display=runs.Display(quiet, as_json), jobs=jobs,
                                time_budget=time_budget, max_tests=max_tests))


@main.command("bundle")
@click.argument("workdir", type=click.Path(path_type=Path, file_okay=False))
def bundle_command(workdir: Path) -> None:
    """(Re)write WORKDIR/bundle/: the result (or the best so far), the headers it needs, repro.sh and
    README.md, a bug report a compiler engineer can run with clang alone."""
    try:
        out = runs.bug_report(workdir.absolute())
    except runs.RunError as e:
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
@click.option("--timeout", type=click.FloatRange(min=0.1), default=300.0, show_default=True, help="Seconds per compile.")
@click.option("--init-guard/--no-init-guard", default=True, show_default=True,
              help="Also build with -ftrivial-auto-var-init=zero and =pattern and show those verdicts.")
@spill_options
def check(file: Path, flags: tuple[str, ...], as_json: bool, timeout: float, init_guard: bool, clang: str | None,
          kernels: tuple[str, ...], predicate: str | None, hip_headers: str, all_targets: bool) -> None:
    """Build FILE with and without full offload LTO and compare the kernels' metrics.

    Exit status 0 when the predicate holds (interesting), 5 when it does not."""
    read_input(file)
    try:
        report = run_check(file, flags, clang=clang, kernel=list(kernels) or None,
                           predicate=predicate, timeout=timeout, hip_headers=hip_headers, init_guard=init_guard,
                           focus=not all_targets)
    except (ToolchainError, PredicateError) as e:
        raise Fail(str(e), exits.EXIT_TEST) from None
    click.echo(json.dumps(report, indent=2) if as_json else format_check(report))
    if not report["interesting"]:
        sys.exit(exits.EXIT_NOT_INTERESTING)


def _finish(go: Callable[[], int]) -> None:
    """Run to the end and exit with the run's code; a kill from a job scheduler stops like Ctrl-C."""
    stopping.install()
    try:
        code = go()
    except runs.RunError as e:
        raise Fail(str(e), e.code) from None
    except KeyboardInterrupt:
        raise Fail("interrupted", exits.EXIT_INTERRUPTED) from None
    if code == exits.EXIT_INTERRUPTED:
        raise Fail("interrupted: the best result so far is kept; continue with `reduce resume`", code)
    sys.exit(code)


if __name__ == "__main__":
    sys.exit(main())
