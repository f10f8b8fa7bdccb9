"""`reduce ir INPUT.bc|INPUT.ll` / `reduce ir --from-source FILE -- FLAGS`: reduce the IR that goes
into codegen to a small lit test that llc still spills on."""
from __future__ import annotations

import shlex
import shutil
import tempfile
import time
from pathlib import Path
from textwrap import indent

import click
from click.core import ParameterSource

from interestingness.compiler.toolchain import ToolchainError
from interestingness.measure.metrics import METRICS
from interestingness.measure.predicates import PredicateError
from interestingness.oracle.ir import (
    SIDES,
    IrInputError,
    IrOracle,
    find_llvm_tools,
    read_module,
)
from interestingness.oracle.precodegen import PrecodegenError, build_precodegen

from ..engine import stopping
from ..engine.budget import BudgetExhausted
from ..engine.cache import VerdictCache, default_cache_dir
from ..ir.lit import lit_test, verify
from ..ir.passlog import shown
from ..ir.reduce import IrReducer, instruction_count
from ..ir.server import VerdictServer
from ..run import options
from ..run.exits import (
    EXIT_BUDGET,
    EXIT_INTERRUPTED,
    EXIT_LLC_REJECTS,
    EXIT_NOT_INTERESTING,
    EXIT_NOT_IR,
    EXIT_TEST,
    EXIT_WRONG_TARGET,
)
from ..text.files import atomic_write
from .common import Fail, check_output, read_input

DEFAULT_LLVM_REDUCE_FLAGS = "--skip-delta-passes=operands-skip,operands-one,operands-nan"  # notes/ir.md
# what removes instructions, to a fixed point, before the full pass list (notes/ir.md)
DEFAULT_FIRST_PASSES = ("simplify-conditionals-true,simplify-conditionals-false,unreachable-basic-blocks,basic-blocks,"
                        "simplify-cfg,instructions,simplify-instructions,operands-to-args")
_INPUT_EXIT = {"not-ir": EXIT_NOT_IR, "target": EXIT_WRONG_TARGET, "llc": EXIT_LLC_REJECTS,
               "not-interesting": EXIT_NOT_INTERESTING}


@click.command("ir")
@click.argument("args", nargs=-1, type=click.UNPROCESSED, metavar="INPUT | -- CLANG_FLAGS")
@click.option("--from-source", "source", type=click.Path(path_type=Path),
              help="Build this HIP file with full offload LTO and reduce the IR its codegen gets "
                   "(clang flags after --).")
@click.option("-o", "--output", type=click.Path(path_type=Path), help="Result .ll [default: INPUT.reduced.ll].")
@click.option("--force", is_flag=True, help="Overwrite an existing output file.")
@click.option("-j", "--jobs", type=click.IntRange(1), default=2, show_default=True, help="llvm-reduce's -j.")
@click.option("--kernel", help="Target kernel: mangled name or part of the demangled one "
              "[default: the kernel with the most spill code].")
@click.option("--predicate", help="When the target is interesting, over llc.METRIC, alt.METRIC and the original's "
              "figures orig.llc.METRIC, orig.alt.METRIC [default: llc.vgpr_spills >= MIN_SPILLS and llc.spill_ops > 0, "
              "and the original's MFMA count, launch bound (max_flat_workgroup_size), VGPR allocation (vgpr_total, "
              "unless the 256 architectural VGPRs are the ceiling reached), architectural VGPRs (vgpr) and occupancy: "
              "the same budget, reached; a call where the original's kernel calls a function].")
@click.option("--min-spills", type=click.IntRange(1), default=1, show_default=True,
              help="VGPRs that must still spill, for the default predicate.")
@click.option("--mcpu", default="gfx950", show_default=True, help="llc -mcpu.")
@click.option("--llc-flags", default="", help="Extra llc flags, one shell-quoted string (e.g. '-O2 -misched=...').")
@click.option("--alt-flags", help="llc flags of the other side of a differential (alt.* in --predicate); "
              "'' for plain llc.")
@click.option("--llvm-reduce-flags", default=DEFAULT_LLVM_REDUCE_FLAGS, show_default=True,
              help="llvm-reduce flags, one shell-quoted string (e.g. '--delta-passes=instructions,basic-blocks'); "
              "the default skips the delta passes that cost many tests and remove nothing others do not (notes/ir.md).")
@click.option("--first-delta-passes", default=DEFAULT_FIRST_PASSES, show_default=True,
              help="llvm-reduce delta passes run first, by themselves, until they change nothing, before llvm-reduce "
              "with --llvm-reduce-flags: the ones that remove instructions, and operands-to-args, whose kernel "
              "arguments leave the code computing an operand to `instructions`; so a time budget is not spent "
              "on operand passes over code that goes anyway. '' for none; by default none either when "
              "--llvm-reduce-flags names --delta-passes.")
@click.option("--llc", "llc_path", help="llc to use, with the LLVM tools beside it "
              "[default: $REDUCE_LLC, /usr/lib/llvm-22/bin/llc, PATH].")
@click.option("--clang", help="clang++ for --from-source [default: as `reduce run`].")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=300.0, show_default=True,
              help="Seconds per llc run.")
@click.option("--cache/--no-cache", "use_cache", default=True, show_default=True,
              help="Keep verdicts in the persistent cache (its key: llc and libLLVM hashes, llc commands, "
              "predicate, target kernel, candidate bytes).")
@click.option("--cache-dir", type=click.Path(path_type=Path), help="[default: $XDG_CACHE_HOME/gpu-reduce]")
@click.option("--cache-max-entries", type=click.IntRange(0), default=200_000, show_default=True,
              help="Checked when a run opens the cache and every 64 puts (1/64 of the limit if fewer), "
              "so a run may leave it up to 63 entries over. 0 disables.")
@click.option("--cache-max-bytes", type=click.IntRange(0), default=1 << 30, show_default=True,
              help="Checked when a run opens the cache and each time it has put 1/64 of the limit, "
              "so a run may leave it that much over. 0 disables.")
@click.option("--undef-guard/--no-undef-guard", default=True, show_default=True,
              help="Refuse candidates with more loads, stores or MFMA calls taking an undef or poison operand than "
              "the original (the IR's counterpart of the source oracle's init guard).")
@click.option("--loop-guard/--no-loop-guard", default=True, show_default=True,
              help="When the original spills inside a loop, so must the result (metric loop_spill_ops).")
@click.option("--budget-guard/--no-budget-guard", default=True, show_default=True,
              help="Refuse, without running llc, candidates whose target kernel's register-budget attributes "
              "(amdgpu-flat-work-group-size, amdgpu-waves-per-eu, amdgpu-num-vgpr, ...) differ from the original's.")
@options.click_options("time_budget")  # the run's option: after it, the best so far as a lit test, exit 7
@click.option("-q", "--quiet", is_flag=True, help="No progress output.")
def ir(args: tuple[str, ...], source: Path | None, output: Path | None, force: bool, jobs: int, kernel: str | None,
       predicate: str | None, min_spills: int, mcpu: str, llc_flags: str, alt_flags: str | None,
       llvm_reduce_flags: str, first_delta_passes: str, llc_path: str | None, clang: str | None, timeout: float,
       use_cache: bool,
       cache_dir: Path | None, cache_max_entries: int, cache_max_bytes: int, undef_guard: bool, loop_guard: bool,
       budget_guard: bool, time_budget: float | None, quiet: bool) -> None:
    """Reduce LLVM IR given to AMDGPU codegen (INPUT.bc or INPUT.ll, e.g. the *.precodegen.bc of
    `-Xoffload-linker --save-temps`) to a small module llc still spills on, written as a lit test
    (RUN: llc ... | FileCheck) that is checked to pass.

    \b
    Exit status: 0 reduced, 3 input unreadable or output exists, 4 tools or predicate unusable,
    5 nothing spills (or the source does not build), 7 time budget used, 11 not LLVM IR or bitcode,
    12 IR for another target, 13 llc rejects the IR, 130 interrupted (after 7 and 130 the best so
    far is written as a lit test)."""
    say = (lambda m: None) if quiet else (lambda m: click.echo(m, err=True))
    if source is None and len(args) != 1:
        raise click.UsageError("give one INPUT (.bc or .ll), or --from-source FILE -- CLANG_FLAGS")
    named = source if source is not None else Path(args[0])
    output = check_output(named, output or named.with_name(f"{named.stem}.reduced.ll"), force)
    stopping.install()
    try:
        tools = find_llvm_tools(llc_path)
        oracle = IrOracle(tools, predicate, kernel, tuple(shlex.split(llc_flags)),
                          None if alt_flags is None else tuple(shlex.split(alt_flags)), cpu=mcpu,
                          min_spills=min_spills, timeout=timeout, undef_guard=undef_guard, loop_guard=loop_guard,
                          budget_guard=budget_guard)
    except (ToolchainError, PredicateError) as e:
        raise Fail(str(e), EXIT_TEST) from None
    start = time.monotonic()
    if source is not None:
        read_input(source)
        say(f"building {source} with full offload LTO and -Xoffload-linker --save-temps...")
        module, text, oracle = _from_source(oracle, source, args, clang, timeout, say)
    else:
        try:
            module, text = read_module(read_input(named), tools)
            oracle = oracle.resolve(module)
        except IrInputError as e:
            raise Fail(f"{named}: {e}", _INPUT_EXIT[e.kind]) from None
    say(f"target kernel: {oracle.target}\npredicate: {oracle.bound_predicate().shown()}\n"
        + (f"budget guard: {', '.join(oracle.budget) or 'the kernel has no budget attributes'}"
           if oracle.budget is not None else "budget guard: off"))
    work = Path(tempfile.mkdtemp(prefix="reduce-ir-"))
    try:
        cache = None
        if use_cache:
            cache = VerdictCache(cache_dir or default_cache_dir(), oracle.identity(),
                                 max_entries=cache_max_entries, max_bytes=cache_max_bytes)
        with VerdictServer(oracle, cache, work) as server:
            flags = tuple(shlex.split(llvm_reduce_flags))
            chosen = any(f.startswith("--delta-passes") for f in flags) and \
                click.get_current_context().get_parameter_source("first_delta_passes") is ParameterSource.DEFAULT
            first = (f"--delta-passes={first_delta_passes}",) if first_delta_passes and not chosen else ()
            reducer = IrReducer(server, work, jobs, flags, say, first_flags=first,
                                time_budget=time_budget, started=start)
            try:
                result = reducer.reduce(module, text, on_best=lambda text: atomic_write(output, text.encode()))
            except (KeyboardInterrupt, BudgetExhausted) as stop:
                result = reducer.stopped()
                failed = _write_lit_test(oracle, result, output, tools, timeout)
                why, code = (str(stop), EXIT_BUDGET) if isinstance(stop, BudgetExhausted) else ("interrupted",
                                                                                               EXIT_INTERRUPTED)
                _summary(say, f"stopped ({why}): {named} -> {output} (the best module so far; lit test "
                         + ("fails)" if failed else "passes with llc and FileCheck)"), result, server, oracle, start)
                raise Fail(f"{why}: the best module so far ({result.steps[-1].instructions} instructions) is in "
                           f"{output}, " + (f"its lit test fails: {failed}" if failed else "as a passing lit test"),
                           code) from None
            failed = _write_lit_test(oracle, result, output, tools, timeout)
            if failed:
                raise Fail(f"the lit test {output} does not pass: {failed}", 1)
            _summary(say, f"done: {named} -> {output} (lit test passes with llc and FileCheck)", result, server,
                     oracle, start)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _write_lit_test(oracle: IrOracle, result, output: Path, tools, timeout: float) -> str | None:
    """Write the result as a lit test from llc's output on it; what fails when lit runs it, if anything."""
    asm = {side: oracle.llc(side, result.module).asm for side in oracle.sides()}
    atomic_write(output, lit_test(oracle, result.text, asm).encode())
    return verify(output, str(Path(tools.llc).parent), timeout)


def _from_source(oracle: IrOracle, source: Path, flags, clang, timeout, say) -> tuple[bytes, str, IrOracle]:
    """The precodegen module of the LTO partition holding the spilling kernel, checked against the
    LTO build's own figures."""
    try:
        built = build_precodegen(source, flags, clang, timeout)
    except ToolchainError as e:
        raise Fail(str(e), EXIT_TEST) from None
    except PrecodegenError as e:
        raise Fail(str(e), EXIT_NOT_INTERESTING) from None
    found, why = [], []
    for n, bitcode in enumerate(built.partitions):
        try:
            module, text = read_module(bitcode, oracle.tools)
            resolved = oracle.resolve(module)
        except IrInputError as e:
            why.append(f"partition {n}: {e}")
            continue
        assert resolved.target is not None  # resolve() chose it
        found.append((resolved.llc(SIDES[0], module).kernels[resolved.target], module, text, resolved, resolved.target))
    if not found:
        raise Fail("llc on the build's precodegen IR does not reproduce a spill: " + "; ".join(why),
                   EXIT_NOT_INTERESTING)
    figures, module, text, resolved, target = max(found, key=lambda f: f[0]["spill_ops"] or 0)
    lto = built.lto.get(target, {})
    differ = [f"{m.name} {lto.get(m.name)} (LTO build) vs {figures[m.name]} (llc)" for m in METRICS
              if lto.get(m.name) != figures[m.name]]
    say(f"precodegen IR: {len(built.partitions)} partition(s), {instruction_count(text)} instructions in the "
        "chosen one; "
        + ("llc reproduces the LTO build's figures exactly" if not differ else "llc differs from the LTO build: "
           + ", ".join(differ)))
    return module, text, resolved


def _summary(say, headline: str, result, server: VerdictServer, oracle: IrOracle, start: float) -> None:
    """The figures of a run, after its end or a stop alike."""
    if any(p.tests for p in result.delta_passes):
        say("llvm-reduce's passes that ran tests:\n" + indent(shown(result.delta_passes), "  "))
    c = server.counters
    held = ", ".join(f"{name.split('.', 1)[1]} {value}" for name, value in oracle.bound_predicate().original.items())
    steps = "; ".join(f"{s.name} {s.instructions} ({s.tests} tests, {s.seconds:.1f}s{', ' + s.note if s.note else ''})"
                      for s in result.steps)
    say(f"{headline}\n"
        f"  instructions {result.steps[0].instructions} -> {result.steps[-1].instructions}\n"
        f"  steps  {steps}\n"
        f"  tests  {c.tests} run ({c.oracle_seconds:.0f}s of llc time), {c.memo_hits} answered from memory, "
        f"{c.cache_hits} from the cache\n"
        f"  held   the original's {held or 'figures: none (the predicate reads none)'}"
        + (f"; budget attributes {', '.join(oracle.budget) or '(none)'}" if oracle.budget is not None else "") + "\n"
        f"  wall   {time.monotonic() - start:.1f}s")
