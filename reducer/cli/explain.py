"""`reduce explain FILE -- FLAGS` / `reduce explain INPUT.ll|INPUT.bc`: which compiler passes make
the difference (interestingness/tools/explain/ does the work; this parses options and shows progress)."""
from __future__ import annotations

import json
import os
import shlex
import sys
import time
from pathlib import Path

import click
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from interestingness.compiler.sides import SideError, parse_sides
from interestingness.compiler.toolchain import ToolchainError
from interestingness.measure.predicates import PredicateError
from interestingness.oracle.ir import BITCODE_MAGIC
from interestingness.tools.explain import ExplainError, explain_file, explain_ir
from interestingness.tools.explain.knobs import KnobError, knob_table
from interestingness.tools.explain.report import render_markdown, write_explain
from interestingness.tools.explain.stages import stage_short, stage_sides

from ..engine.budget import format_seconds, parse_duration
from ..run import options
from ..run.exits import (
    EXIT_INTERRUPTED,
    EXIT_LLC_REJECTS,
    EXIT_NOT_INTERESTING,
    EXIT_NOT_IR,
    EXIT_TEST,
    EXIT_WRONG_TARGET,
)
from .common import Fail, read_input

_EXIT = {"not-interesting": EXIT_NOT_INTERESTING, "toolchain": EXIT_TEST, "not-ir": EXIT_NOT_IR,
         "target": EXIT_WRONG_TARGET, "llc": EXIT_LLC_REJECTS}


class Display:
    """Progress on stderr: a bar per phase on a terminal, else a line per phase and every few
    seconds; the plan of each phase (builds, estimated time) before it starts."""

    def __init__(self, quiet: bool, interval: float = 5.0):
        self.quiet = quiet
        self.console = Console(stderr=True)
        self.live = self.console.is_terminal and not quiet
        self.interval = interval
        self.bar: Progress | None = None
        self.task: TaskID | None = None  # the bar's, with it
        self.last = 0.0

    def __call__(self, kind: str, **info) -> None:
        if self.quiet:
            return
        if kind == "note":
            self.console.print(f"[explain] {info['message']}", highlight=False, markup=False, soft_wrap=True)
        elif kind == "plan":
            stages = info.get("per_stage")
            detail = f" ({', '.join(f'{n} {stage_short(s)}' for s, n in stages.items())})" if stages else ""
            self.console.print(f"[explain] {info['phase']}: {info['builds']} builds{detail}, about "
                               f"{format_seconds(info['estimate'])}", highlight=False, markup=False, soft_wrap=True)
        elif kind == "start":
            self._stop()
            if self.live:
                self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                    TimeElapsedColumn(), TimeRemainingColumn(), console=self.console, transient=True)
                self.bar.start()
                self.task = self.bar.add_task(info["phase"], total=info["total"])
            self.last = time.monotonic()
        elif kind == "advance":
            if self.bar is not None and self.task is not None:
                self.bar.update(self.task, completed=info["done"])
            elif time.monotonic() - self.last >= self.interval or info["done"] == info["total"]:
                self.last = time.monotonic()
                print(f"[explain] {info['phase']}: {info['done']}/{info['total']}", file=sys.stderr, flush=True)

    def _stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None

    def close(self) -> None:
        self._stop()


def _duration(ctx: click.Context, param: click.Parameter, value: str | None) -> float | None:
    try:
        return None if value is None else parse_duration(value)
    except ValueError as e:
        raise click.BadParameter(str(e)) from None


def _names(text: str | None) -> list[str] | None:
    return [n.strip() for n in text.split(",") if n.strip()] if text else None


@click.command("explain")
@click.argument("file", type=click.Path(path_type=Path))
@click.argument("flags", nargs=-1, type=click.UNPROCESSED)
@click.option("-j", "--jobs", type=click.IntRange(1), default=os.cpu_count() or 1, show_default="one per CPU",
              help="Builds run in parallel.")
@click.option("--predicate", help="When the target kernel is interesting: over lto.METRIC / nolto.METRIC "
              "(SIDE.METRIC with --side), or for IR "
              "llc.METRIC / alt.METRIC [default: the oracle's without its size clause (lto.instructions <= "
              "orig.lto.instructions: passes are compared, not sizes), or `reduce ir`'s].")
@click.option("--kernel", "kernels", multiple=True, help="Target kernel: mangled name or part of the demangled one "
              "[default: the one a reduction would keep].")
@click.option("--stages", help="The stages whose passes are disabled one at a time: link (the LTO link: LTO "
              "pipeline and codegen in lld), prelink (the LTO side's device compile), nolto (the no-LTO compile); "
              "with two --side of one mode, SIDE.link, SIDE.prelink or SIDE.nolto "
              "[default: the spilling side's stages when it is the first, all of them for the reverse predicate].")
@click.option("--passes", "pass_names", help="Comma-separated pass names: disable only these (as opt-bisect's log "
              "names them); a name no stage runs is skipped with a note.")
@click.option("--dumps/--no-dumps", default=True, show_default=True,
              help="The kernel's IR or MIR just before and after each culprit (-print-before/-print-after).")
@click.option("--search/--no-search", default=True, show_default=True,
              help="Find the execution of each culprit that is enough alone (-opt-bisect intervals).")
@click.option("--knobs", "knob_files", multiple=True, type=click.Path(path_type=Path, dir_okay=False),
              help="A TOML file of more backend options to try on the spilling side, as the shipped table "
              "(interestingness/tools/explain/knobs.toml: [[knob]] name, options, about); a knob of a name already "
              "there replaces it. Repeatable.")
@click.option("--no-knobs", is_flag=True, help="Try no backend options (only the pass ablation).")
@click.option("-o", "--output", type=click.Path(path_type=Path, file_okay=False),
              help="Write EXPLAIN.md, explain.json and the full dumps (dumps/) into this directory; without it "
              "the Markdown goes to stdout.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON on stdout instead.")
@click.option("--workdir", type=click.Path(path_type=Path, file_okay=False),
              help="Where the builds run [default: a temporary directory, removed at the end].")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=300.0, show_default=True, help="Seconds per build.")
@click.option("--time-budget", "time_budget", callback=_duration,
              help="Start no build after this much wall time (90m, 1h30m) but the logs': what is left out (pass "
              "names not ablated, the knobs, where a culprit starts) is said in the output [default: none].")
@click.option("--clang", help="clang++ to use [default: as `reduce run`].")
@click.option("--hip-headers", type=click.Choice(["auto", "rocm", "shim"]), default="auto", show_default=True,
              help="HIP headers after your own, as for `reduce run`.")
@click.option("--llc", "llc_path", help="IR input: llc to use [default: as `reduce ir`].")
@click.option("--mcpu", default="gfx950", show_default=True, help="IR input: llc -mcpu.")
@click.option("--llc-flags", default="", help="IR input: extra llc flags, one shell-quoted string.")
@click.option("--alt-flags", help="IR input: llc flags of the other side of a differential (alt.* in --predicate).")
@click.option("--min-spills", type=click.IntRange(1), default=1, show_default=True,
              help="IR input: VGPRs that must spill, for `reduce ir`'s default predicate.")
@options.click_options("sides")
@click.option("-q", "--quiet", is_flag=True, help="No progress output.")
def explain(file: Path, flags: tuple[str, ...], jobs: int, predicate: str | None, kernels: tuple[str, ...],
            stages: str, pass_names: str | None, dumps: bool, search: bool, knob_files: tuple[Path, ...],
            no_knobs: bool, output: Path | None, as_json: bool,
            workdir: Path | None, timeout: float, time_budget: float | None, clang: str | None, hip_headers: str,
            llc_path: str | None,
            mcpu: str, llc_flags: str, alt_flags: str | None, min_spills: int, sides: list[str], quiet: bool) -> None:
    """Which compiler passes make FILE's spill differential: both pipelines side by side, each pass
    disabled alone in each stage with the target kernel's figures, the culprits (without them the
    predicate no longer holds, the MFMA count kept), each culprit's IR or MIR just before and after,
    and the backend options (scheduler, register allocator) that remove the spill, each with its build.

    \b
    reduce explain FILE [options] -- CLANG_FLAGS       HIP source, the spill-differential oracle
    reduce explain FILE --side A=.. --side B=.. -- ..  two other builds, as `reduce --side`
    reduce explain INPUT.ll|INPUT.bc [options]         LLVM IR through llc (a `reduce ir` lit test too)

    \b
    Exit status: 0 explained, 3 input unreadable, 4 toolchain or predicate unusable, 5 the file is
    not interesting (with the verdict's reason), 11-13 as `reduce ir` for IR input, 130 interrupted."""
    content = read_input(file)
    ir_input = file.suffix in (".ll", ".bc") or content.startswith(BITCODE_MAGIC)
    try:
        pair = parse_sides(sides)
    except SideError as e:
        raise Fail(str(e), EXIT_TEST) from None
    stage_list = _names(stages) or None
    known = stage_sides(pair)
    unknown = [s for s in stage_list or () if s not in known]
    if unknown:
        raise click.BadParameter(f"unknown stage(s) {', '.join(unknown)}; stages: {', '.join(known)}",
                                 param_hint="--stages")
    if ir_input and sides:
        raise click.UsageError("LLVM IR input takes no --side (the other llc build goes in --alt-flags)")
    if ir_input and flags:
        raise click.UsageError("LLVM IR input takes no clang flags (llc's go in --llc-flags)")
    if ir_input and len(kernels) > 1:
        raise click.UsageError("LLVM IR input takes one --kernel")
    try:
        knobs = [] if no_knobs else knob_table(knob_files)
    except KnobError as e:
        raise click.BadParameter(str(e), param_hint="--knobs") from None
    display = Display(quiet)
    start = time.monotonic()
    try:
        if ir_input:
            result = explain_ir(file, predicate=predicate, kernel=kernels[0] if kernels else None,
                                llc_flags=shlex.split(llc_flags), alt_flags=None if alt_flags is None else
                                shlex.split(alt_flags), mcpu=mcpu, min_spills=min_spills, llc=llc_path, jobs=jobs,
                                passes=_names(pass_names), dumps=dumps, search=search, timeout=timeout,
                                workdir=workdir, progress=display, knobs=knobs, time_budget=time_budget)
        else:
            result = explain_file(file, flags, clang=clang, predicate=predicate, kernels=list(kernels), jobs=jobs,
                                  stages=stage_list, passes=_names(pass_names), dumps=dumps, search=search,
                                  timeout=timeout, hip_headers=hip_headers, workdir=workdir, progress=display,
                                  knobs=knobs, sides=pair, time_budget=time_budget)
    except ExplainError as e:
        display.close()
        raise Fail(f"{file}: {e}", _EXIT.get(e.kind, 2)) from None
    except (ToolchainError, PredicateError) as e:
        display.close()
        raise Fail(str(e), EXIT_TEST) from None
    except KeyboardInterrupt:
        display.close()
        raise Fail("interrupted", EXIT_INTERRUPTED) from None
    display.close()
    if output is not None:
        md = write_explain(result, output)
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=1))
    elif output is None:
        click.echo(render_markdown(result), nl=False)
    if not quiet:
        culprits = ", ".join(f"{stage_short(c.stage)} {c.name}" for c in result.culprits) or "none"
        recover = ", ".join(k.name for k in result.knobs if k.outcome in ("removes", "recovers")) or "none"
        diff = result.sides_diff
        cause = "" if diff is None else "; the sides differ by " + " and ".join(diff.differ or ["nothing"]) + (
            f"; flags that move the spill: {', '.join(diff.cause)}" if diff.cause else "")
        click.echo(f"[explain] {result.builds} builds in {time.monotonic() - start:.0f} s at -j {jobs}{cause}; "
                   f"culprits: {culprits}; knobs that recover it: {recover}"
                   + (f"; written to {md}" if output is not None else ""), err=True)

