"""`reduce FILE --test SCRIPT` / `reduce FILE -- FLAGS` / `reduce check FILE -- FLAGS` / `reduce ir ...`."""
from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

import click

from interestingness.check import format_check, run_check
from interestingness.predicates import DEFAULT_PREDICATE, PredicateError
from interestingness.script import ScriptError, ScriptOracle
from interestingness.spill import OracleSetupError, SpillOracle
from interestingness.toolchain import ToolchainError

from . import passes
from .cache import VerdictCache, default_cache_dir
from .cli_common import (
    EXIT_INTERRUPTED,
    EXIT_NOT_INTERESTING,
    EXIT_ORIGINAL_TIMEOUT,
    EXIT_TEST,
    Fail,
    check_output,
    read_input,
    stop,
)
from .engine import Engine
from .evaluate import Evaluator
from .files import atomic_write, default_output
from .flatten import flatten, include_dirs
from .ir_cli import ir
from .lexer import count_tokens
from .progress import Progress
from .source import Source, language_for


def spill_options(f):
    """Options of the built-in spill oracle, shared by `run` and `check`."""
    f = click.option("--predicate", help="When a kernel is interesting, over lto.METRIC / nolto.METRIC "
                     f"[default: {DEFAULT_PREDICATE}].")(f)
    f = click.option("--kernel", "kernels", multiple=True,
                     help="Target kernel: mangled name or part of the demangled one [default: every kernel "
                     "that shows the effect in the original].")(f)
    f = click.option("--clang", help="clang++ to use [default: $REDUCE_CLANG, /usr/lib/llvm-22/bin/clang++, PATH].")(f)
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
    reduce check FILE -- FLAGS     show the spill metrics of both builds
    reduce ir INPUT.bc|INPUT.ll    reduce the IR given to codegen to a lit test llc spills on
    """


main.add_command(ir)


@main.command("run")
@click.argument("file", type=click.Path(path_type=Path))
@click.argument("flags", nargs=-1, type=click.UNPROCESSED)
@click.option("--test", "script", type=click.Path(path_type=Path), help="Interestingness script (exit 0 = interesting).")
@click.option("--test-arg", is_flag=True, help="Pass the candidate's path as the script's last argument (llvm-reduce style).")
@click.option("-j", "--jobs", type=click.IntRange(1), default=os.cpu_count() or 1, show_default=True, help="Tests run in parallel.")
@click.option("-o", "--output", type=click.Path(path_type=Path), help="Result file [default: FILE.reduced.EXT].")
@click.option("--force", is_flag=True, help="Overwrite an existing output file.")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=300.0, show_default=True, help="Seconds per test.")
@click.option("--no-prefilter", is_flag=True, help="Test candidates that add parse errors too.")
@click.option("--passes", "pass_names", help="Comma-separated passes to run instead of the default schedule.")
@click.option("--backend", type=click.Choice(["loky", "threading", "dask"]), default="loky", show_default=True,
              help="joblib backend; dask runs the tests on a Dask cluster (its workers need the toolchain).")
@click.option("--scheduler", help="Dask scheduler address (tcp://host:8786) for --backend dask [default: a local cluster].")
@click.option("--flatten/--no-flatten", default=None,
              help="Inline project headers (found via -I/-iquote and the file's directory) first "
              "[default: on with the built-in oracle, off with --test].")
@click.option("--cache/--no-cache", "use_cache", default=None,
              help="Keep verdicts in the persistent cache [default: on with the built-in oracle, whose key "
              "covers everything that decides a verdict; off with --test, since a script may read anything].")
@click.option("--cache-dir", type=click.Path(path_type=Path), help="[default: $XDG_CACHE_HOME/gpu-reduce]")
@click.option("--cache-max-entries", type=click.IntRange(0), default=200_000, show_default=True, help="0 disables.")
@click.option("--cache-max-bytes", type=click.IntRange(0), default=1 << 30, show_default=True, help="0 disables.")
@click.option("--keep-artifacts", type=click.Path(path_type=Path, file_okay=False),
              help="Keep every test's directory (candidate, build outputs) under this directory; "
              "the persistent cache is then off, so no test is skipped for an earlier run's answer.")
@click.option("-q", "--quiet", is_flag=True, help="No progress output.")
@spill_options
def run(file: Path, flags: tuple[str, ...], script: Path | None, test_arg: bool, jobs: int,
        output: Path | None, force: bool, timeout: float, no_prefilter: bool, pass_names: str | None,
        backend: str, scheduler: str | None, flatten: bool | None, use_cache: bool | None, cache_dir: Path | None,
        cache_max_entries: int, cache_max_bytes: int, keep_artifacts: Path | None, quiet: bool,
        clang: str | None, kernels: tuple[str, ...], predicate: str | None) -> None:
    """Reduce FILE; the result goes to -o, never over FILE.

    Without --test, the built-in spill-differential oracle decides, compiling FILE with the
    clang FLAGS given after `--`."""
    if scheduler and backend != "dask":
        raise click.UsageError("--scheduler needs --backend dask")
    signal.signal(signal.SIGTERM, stop)  # a kill from a job scheduler stops like Ctrl-C
    text = read_input(file)
    output = check_output(file, output or default_output(file), force)
    language = language_for(file, text)
    first, main_passes, last = _schedule(pass_names)
    if keep_artifacts is not None:
        keep_artifacts.mkdir(parents=True, exist_ok=True)
        use_cache = False
    tmp_root = Path(tempfile.mkdtemp(prefix="reduce-", dir=keep_artifacts))
    keep = keep_artifacts is not None
    try:
        if script is None:
            _note(quiet, "checking the original: building it with and without full offload LTO...")
            oracle = _spill_oracle(file, flags, text, clang, kernels, predicate, timeout, tmp_root, keep)
            _note(quiet, f"target kernel(s): {', '.join(oracle.targets)}")
        else:
            oracle = _script_oracle(file, flags, script, test_arg, timeout, tmp_root, keep)
        cache = None
        if use_cache if use_cache is not None else script is None:
            cache = VerdictCache(cache_dir or default_cache_dir(), oracle.identity(),
                                 max_entries=cache_max_entries, max_bytes=cache_max_bytes)
        with Evaluator(oracle, jobs, backend, cache, scheduler) as evaluator, \
                Progress(evaluator.counters, quiet=quiet) as progress:
            source = Source(text, language)
            progress.say(f"{file}: {len(text)} bytes, {count_tokens(text)} tokens, language {language}, "
                         f"{source.error_count} parse error node(s)")
            text = _flattened(evaluator, file, text, flags, flatten if flatten is not None else script is None, quiet)
            _check_original(evaluator, text)
            engine = Engine(
                evaluator, language,
                first=first, main=main_passes, last=last, prefilter=not no_prefilter,
                on_accept=lambda content: atomic_write(output, content),
                on_event=progress.event,
            )
            atomic_write(output, text)
            start = time.monotonic()
            try:
                result = engine.reduce(text)
            except KeyboardInterrupt:
                result = engine.best.text
                _summary(progress, file, output, text, result, evaluator, engine, start, stopped=True)
                raise Fail("interrupted: the best result so far is kept", EXIT_INTERRUPTED) from None
            _summary(progress, file, output, text, result, evaluator, engine, start, stopped=False)
    finally:
        if not keep:
            shutil.rmtree(tmp_root, ignore_errors=True)


@main.command("check")
@click.argument("file", type=click.Path(path_type=Path))
@click.argument("flags", nargs=-1, type=click.UNPROCESSED)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable report.")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=300.0, show_default=True, help="Seconds per compile.")
@spill_options
def check(file: Path, flags: tuple[str, ...], as_json: bool, timeout: float, clang: str | None,
          kernels: tuple[str, ...], predicate: str | None) -> None:
    """Build FILE with and without full offload LTO and compare the kernels' metrics.

    Exit status 0 when the predicate holds (interesting), 5 when it does not."""
    read_input(file)
    try:
        report = run_check(file, flags, clang=clang, kernel=list(kernels) or None,
                           predicate=predicate, timeout=timeout)
    except (ToolchainError, PredicateError) as e:
        raise Fail(str(e), EXIT_TEST) from None
    click.echo(json.dumps(report, indent=2) if as_json else format_check(report))
    if not report["interesting"]:
        sys.exit(EXIT_NOT_INTERESTING)


def _note(quiet: bool, message: str) -> None:
    if not quiet:
        click.echo(message, err=True)


def _schedule(pass_names: str | None):
    try:
        if pass_names:
            return [], passes.resolve([n.strip() for n in pass_names.split(",") if n.strip()]), []
        return tuple(passes.resolve(list(names)) for names in (passes.FIRST, passes.MAIN, passes.LAST))
    except KeyError as e:
        raise click.BadParameter(str(e.args[0]), param_hint="--passes") from None


def _script_oracle(file: Path, flags, script, test_arg, timeout, tmp_root, keep):
    if flags:
        raise click.UsageError("compile flags after -- are for the built-in oracle; a --test script gets none")
    try:
        return ScriptOracle.create(script, file.name, timeout=timeout, tmp_root=tmp_root, test_arg=test_arg,
                                   keep_dirs=keep)
    except ScriptError as e:
        raise Fail(str(e), EXIT_TEST) from None


def _spill_oracle(file, flags, text, clang, kernels, predicate, timeout, tmp_root, keep) -> SpillOracle:
    """The built-in oracle, with its target kernels taken from the original."""
    try:
        oracle = SpillOracle(file, flags, clang, predicate or DEFAULT_PREDICATE, list(kernels) or None,
                             timeout, tmp_root, keep_artifacts=keep)
    except (ToolchainError, PredicateError) as e:
        raise Fail(str(e), EXIT_TEST) from None
    try:
        return oracle.resolve_targets(text)
    except OracleSetupError as e:
        raise Fail(f"the original is not interesting: {e}", EXIT_NOT_INTERESTING) from None


def _flattened(evaluator: Evaluator, file: Path, text: bytes, flags, enabled: bool, quiet: bool) -> bytes:
    """The file with its project headers inlined, if that is still interesting; else the file."""
    if not enabled:
        return text
    flat, headers = flatten(file, text, include_dirs(flags, Path.cwd()))
    if not headers:
        return text
    _note(quiet, f"flattened {len(headers)} header(s) into one file of {len(flat)} bytes")
    verdict = evaluator.test(flat)
    if verdict.interesting:
        return flat
    _note(quiet, f"the flattened file is not interesting ({verdict.reason}); reducing the file as it is")
    return text


def _check_original(evaluator: Evaluator, text: bytes) -> None:
    """Say so before reducing anything when the original is not interesting."""
    verdict = evaluator.test(text)
    if verdict.interesting:
        return
    if verdict.reason.startswith("timeout"):
        raise Fail(f"the test times out on the original ({verdict.reason}); raise --timeout", EXIT_ORIGINAL_TIMEOUT)
    tail = verdict.details.get("stderr_tail", "").strip().splitlines()[-3:]
    detail = ("; test said: " + " | ".join(tail)) if tail else ""
    raise Fail(f"the original is not interesting ({verdict.reason}){detail}", EXIT_NOT_INTERESTING)


def _summary(progress: Progress, file: Path, output: Path, original: bytes, result: bytes,
             evaluator: Evaluator, engine: Engine, start: float, stopped: bool) -> None:
    c = evaluator.counters
    state = "stopped" if stopped else "done"
    passes_line = ", ".join(f"{name} -{y.bytes_removed}B/{y.tests}t/{y.seconds:.0f}s"
                            for name, y in sorted(engine.status.per_pass.items(), key=lambda kv: -kv[1].bytes_removed)
                            if y.tests or y.bytes_removed)
    progress.console.print(
        f"{state}: {file} -> {output}\n"
        f"  bytes  {len(original)} -> {len(result)} ({1 - len(result) / max(1, len(original)):.1%} removed)\n"
        f"  tokens {count_tokens(original)} -> {count_tokens(result)}\n"
        f"  tests  {c.tests} run ({c.oracle_seconds:.0f}s of oracle time), {c.memo_hits} answered from memory, "
        f"{c.cache_hits} from the cache, {c.shared_waits} by a test in flight, {c.infra_retries} retried\n"
        f"  wall   {time.monotonic() - start:.1f}s\n"
        f"  passes {passes_line}",
        highlight=False, soft_wrap=True,
    )


if __name__ == "__main__":
    sys.exit(main())
