"""The options of `reduce run`, one row each. The table is the RunConfig dataclass: each of its
fields that is an option is declared with `option(...)`, which keeps its spellings, help and the
rest in the field's metadata. The click options of `run` (and the ones `resume` and `check` share)
and the keys of batch manifests are all made from those fields, so an option added here is
everywhere at once and none can be forgotten in one place."""
from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, TypeVar, cast

import click

from interestingness.compiler.sides import parse_side
from interestingness.measure.predicates import DEFAULT_PREDICATE

from .. import passes
from ..engine.budget import parse_duration
from ..text.flatten import include_dirs

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")


@dataclass(frozen=True)
class Option:
    """One option. With `field`, it is a RunConfig field of its name and can be set in a manifest
    (under `key`, by default its name); without, it only says how this invocation works."""

    name: str                   # click's parameter name
    decls: tuple[str, ...]      # its spellings, as click.option takes them
    help: str
    field: bool = False         # a RunConfig field (declared with `option`)
    default: Any = None         # the field's default; click's too unless `attrs` has one
    attrs: dict[str, Any] = dataclasses.field(default_factory=dict)  # click.option's: type, is_flag, ...
    parse: Callable[[Any], Any] | None = None  # a value from the command line -> the field's; ValueError: usage error
    key: str | None = None      # the manifest key, when not the name
    relative: bool = False      # a path, in a manifest relative to the manifest's directory
    comma: bool = False         # several values in one argument, a,b (a manifest may give a list)
    resume: str | None = None   # `reduce resume` may change it; its help there

    @property
    def manifest_key(self) -> str:
        return self.key or self.name

    def click_option(self, resume: bool = False) -> Callable[[F], F]:
        """Its click option; for `resume`, one that changes the stored value only when given."""
        attrs = {**({"default": self.default} if self.field else {}), **self.attrs}
        if resume:
            attrs = {k: v for k, v in attrs.items() if k not in ("default", "show_default")}
        return click.option(*self.decls, self.name, help=self.resume if resume else self.help,
                            callback=self._convert, **attrs)

    def click_param(self) -> click.Option:
        """What click makes of it: its spellings (opts, secondary_opts) and kind (is_flag, multiple)."""
        return click.Option([*self.decls, self.name], **self.attrs)

    def _convert(self, ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        """The command-line value as the field's (several values of an option given repeatedly as a list)."""
        parse = self.parse or (lambda v: v)
        try:
            if param.multiple:
                return [parse(v) for v in value]
            return None if value is None else parse(value)
        except ValueError as e:
            raise click.BadParameter(str(e)) from None


def _absolute(path: Path) -> str:
    return str(path.absolute())


def _side(text: str) -> str:
    """A side spec, checked (interestingness/compiler/sides.py); kept as given."""
    parse_side(text)
    return text


def _pass_names(text: str) -> list[str]:
    """Pass names from a comma-separated option, checked against the registry."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    try:
        passes.resolve(names)
    except KeyError as e:
        raise ValueError(e.args[0]) from None
    return names


_PATH = click.Path(path_type=Path)
_DIRECTORY = click.Path(path_type=Path, file_okay=False)
_SHOWN = {"show_default": True}
_FLAG = {"is_flag": True}
_ROW = "option"  # the metadata key of a field's Option


def option(decls: tuple[str, ...], help: str, default: T, attrs: dict[str, Any] | None = None, *,
           parse: Callable[[Any], Any] | None = None, key: str | None = None, relative: bool = False,
           comma: bool = False, resume: str | None = None) -> T:
    """A RunConfig field that is an option (see Option for the arguments); a list default is
    copied for each instance. Typed as its default, so that the field's annotation is checked."""
    row = Option("", decls, help, True, default, attrs or {}, parse, key, relative, comma, resume)
    if isinstance(default, list):
        return cast(T, dataclasses.field(default_factory=default.copy, metadata={_ROW: row}))
    return dataclasses.field(default=default, metadata={_ROW: row})


@dataclass
class RunConfig:
    """Everything that decides a run; stored in run.json, so `resume` needs nothing else. Its
    fields: what the run is of (file, output and cwd, absolute so a resumed run may start anywhere;
    the compile flags, relative to cwd), then the options, in the order of `reduce run --help`."""

    file: str
    output: str
    cwd: str
    flags: list[str] = dataclasses.field(default_factory=list)
    script: str | None = option(("--test",), "Interestingness script (exit 0 = interesting).", None,
        {"type": _PATH}, parse=_absolute, key="test", relative=True)
    test_arg: bool = option(("--test-arg",),
        "Pass the candidate's path as the script's last argument (llvm-reduce style).", False, _FLAG)
    jobs: int = option(("-j", "--jobs"), "Tests run in parallel.", 1,
        {"type": click.IntRange(1), "default": os.cpu_count() or 1, "show_default": "one per CPU"},
        resume="Tests run in parallel [default: as the run had].")
    time_budget: float | None = option(("--time-budget",), "Stop cleanly after this much wall time (8h, 90m, 1h30m).",
        None, parse=parse_duration,
        resume="A new total time budget for the run (all sessions).")
    max_tests: int | None = option(("--max-tests",), "Stop cleanly after this many oracle tests.", None,
        {"type": click.IntRange(1)}, resume="A new total test budget for the run (all sessions).")
    pass_time_cap: float | None = option(("--pass-time-cap",),
        "Cut a pass short after this long [default: a quarter of --time-budget, else none].",
        None, parse=parse_duration)
    timeout: float = option(("--timeout",), "Seconds per test.", 300.0,
        {"type": click.FloatRange(min=0.1), **_SHOWN})
    check_repeat: int = option(("--check-repeat",),
        "Fresh tests of the original (all must agree, or the run is refused) and of the result.",
        2, {"type": click.IntRange(1), **_SHOWN})
    recheck: bool | None = option(("--recheck/--no-recheck",),
        "Test each interesting candidate again before keeping it [default: on with --test, off with "
        "the built-in oracle, whose compiles are deterministic].", None)
    allow_empty: bool = option(("--allow-empty",), "Let an empty or whitespace-only file be interesting.",
        False, _FLAG)
    ub_guard: bool = option(("--ub-guard/--no-ub-guard",),
        "Built-in oracle: refuse candidates with more -Wuninitialized warnings than the original "
        "(reductions leave uninitialized counters behind, and a test case with undefined behaviour is "
        "no bug report), and, for a candidate about to be kept, one whose target kernel built with clang's "
        "sanitizer checks (array bounds, null, division, shifts, bool/enum loads, unreachable/return; trap "
        "mode, optimised IR) traps on every path, traps for a check the original's never needs, or accesses "
        "memory through null or a constant address more often than the original's.", True, _SHOWN)
    init_guard: bool = option(("--init-guard/--no-init-guard",),
        "Built-in oracle: keep a candidate only when it is also interesting with every automatic variable "
        "zero- and pattern-initialised (-ftrivial-auto-var-init), so the spill does not depend on reads of "
        "uninitialised memory. Costs two more builds per candidate kept, not per test; off when the original "
        "fails it.", True, _SHOWN)
    confirm_batch: int = option(("--confirm-batch",),
        "Built-in oracle: confirm (the init and UB guards' builds) the candidates kept in batches of up to "
        "this many, through the newest; a failure is bisected and the run goes back to the last that passes. "
        "Every file written passes. Within the limit the run picks each batch from its own counts: how often "
        "confirmations refused and how much work a kept step took (1 where guards often refuse, larger on "
        "real-size code). 1 confirms each candidate as it is kept.", 16,
        {"type": click.IntRange(1), **_SHOWN})
    loop_guard: bool = option(("--loop-guard/--no-loop-guard",),
        "Built-in oracle: when the original spills inside a loop (LTO side), so must the result "
        "(metric loop_spill_ops), rather than drift to straight-line code that spills for another reason.",
        True, _SHOWN)
    format: bool = option(("--format/--no-format",),
        "After the reduction, make the result read like code a person wrote: drop empty statements and "
        "unused labels, initialise uninitialised scalars and give constant loop conditions their bound back "
        "(see --initialise), then clang-format it (LLVM style, or your .clang-format); each step kept only "
        "when still interesting.", True, _SHOWN)
    initialise: bool | None = option(("--initialise/--no-initialise",),
        "With --format: initialise uninitialised local scalars and give constant loop conditions their bound "
        "back, each kept only when still interesting [default: on with the built-in oracle, where undefined "
        "behaviour matters in a spill or miscompile report; off with --test, where a diagnostic case only "
        "gets bigger].", None)
    explain: bool = option(("--explain/--no-explain",),
        "Built-in oracle: at the end of a finished reduction, find which compiler passes make the difference "
        "(`reduce explain`: each pass disabled alone in each stage, and the backend options that remove the "
        "spill) and write bundle/EXPLAIN.md.", True,
        _SHOWN)
    explain_budget: float | None = option(("--explain-budget",),
        "With --explain: start no build of the explanation after this much wall time; what it leaves out is "
        "said in EXPLAIN.md [default: what is left of --time-budget, else 30m; never more than what is left].",
        None, parse=parse_duration)
    prefilter: bool = option(("--no-prefilter",), "Test candidates that add parse errors too.", True,
        {**_FLAG, "flag_value": False})
    passes: list[str] | None = option(("--passes",), "Comma-separated passes to run instead of the default schedule "
        "(`reduce passes` lists them).", None,
        parse=lambda text: _pass_names(text) or None, comma=True)  # none: the default schedule
    skip_passes: list[str] = option(("--skip-passes",), "Comma-separated passes to take out of the schedule.",
        [], {"default": ""}, parse=_pass_names, comma=True)
    replacements: bool | None = option(("--replacements/--no-replacements",),
        "Past the deletion passes' fixpoint, the replacement passes (`reduce passes`) [default: on with --test; "
        "off with the built-in oracle, where on the README's first case they cost tests and took nothing].",
        None)
    adaptive_sweeps: bool = option(("--adaptive-sweeps/--full-sweeps",),
        "After a full sweep of the main passes, run again only those that removed something, until "
        "none does, then a full sweep again.", False, _SHOWN)
    rename: bool = option(("--rename/--no-rename",),
        "shorten identifiers; off by default because names matter in a bug report", False, _SHOWN)
    backend: str = option(("--backend",),
        "where tests run: loky (joblib's worker processes), threading, or dask (a Dask cluster; its "
        "workers need the toolchain).",
        "loky", {"type": click.Choice(["loky", "threading", "dask"]), **_SHOWN})
    scheduler: str | None = option(("--scheduler",),
        "Dask scheduler address (tcp://host:8786) for --backend dask [default: a local cluster].",
        None)
    flatten: bool | None = option(("--flatten/--no-flatten",),
        "Inline project headers (found via -I/-iquote and the file's directory) first "
        "[default: on with the built-in oracle, off with --test]. Without it, the project headers are "
        "reduced as files of their own, written to OUTPUT.files/.", None)
    include_dirs: list[str] = option(("-I", "--include-dir"),
        "A directory of project headers, for --test runs (the built-in oracle takes -I/-iquote from its "
        "clang flags); with --no-flatten, the headers found there are reduced too.", [],
        {"multiple": True, "type": _DIRECTORY}, parse=_absolute, relative=True)
    cache: bool | None = option(("--cache/--no-cache",),
        "Keep verdicts in the persistent cache [default: on with the built-in oracle, whose key "
        "covers everything that decides a verdict; off with --test, since a script may read anything].",
        None)
    cache_dir: str | None = option(("--cache-dir",), "[default: $XDG_CACHE_HOME/gpu-reduce]", None,
        {"type": _PATH}, parse=_absolute)
    cache_max_entries: int = option(("--cache-max-entries",),
        "Checked when a run opens the cache and every 64 puts (1/64 of the limit if fewer), "
        "so a run may leave it up to 63 entries over. 0 disables.", 200_000,
        {"type": click.IntRange(0), **_SHOWN})
    cache_max_bytes: int = option(("--cache-max-bytes",),
        "Checked when a run opens the cache and each time it has put 1/64 of the limit, "
        "so a run may leave it that much over. 0 disables.", 1 << 30,
        {"type": click.IntRange(0), **_SHOWN})
    keep_artifacts: str | None = option(("--keep-artifacts",),
        "Keep every test's directory (candidate, build outputs) under this directory; "
        "the persistent cache is then off, so no test is skipped for an earlier run's answer.",
        None, {"type": _DIRECTORY}, parse=_absolute, relative=True)
    hip_headers: str = option(("--hip-headers",),
        "HIP headers after your own -I/-isystem ones: a ROCm's (found by clang, or with --rocm-path "
        "among the clang flags), this package's fallback shim, or auto: ROCm when clang finds one.",
        "auto", {"type": click.Choice(["auto", "rocm", "shim"]), **_SHOWN})
    clang: str | None = option(("--clang",),
        "clang++ to use [default: $REDUCE_CLANG, /usr/lib/llvm-22/bin/clang++, PATH].", None)
    kernels: list[str] = option(("--kernel",),
        "Target kernel: mangled name or part of the demangled one [default: one kernel that "
        "shows the effect in the original; see --all-targets]. Two or more --kernel keep all they select.",
        [], {"multiple": True}, key="kernel")
    all_targets: bool = option(("--all-targets",),
        "Keep every kernel that shows the effect (or that --kernel selects) a target; by default "
        "a reduction keeps one, the one with the most spill code, and the others become deletable.",
        False, _FLAG)
    predicate: str | None = option(("--predicate",), "When a kernel is interesting, over lto.METRIC / nolto.METRIC "
        f"(SIDE.METRIC with --side) [default: {DEFAULT_PREDICATE}].", None)
    sides: list[str] = option(("--side",),
        "Built-in oracle: one of the two builds compared, as one shell-quoted string NAME=lto|nolto "
        "[--clang=PATH] [FLAG...] (full offload LTO or none, this side's own flags and compiler). Give two, "
        "the one that spills first; --predicate names them (by default the built-in predicate, the first "
        "side in lto's place, the second in nolto's) [default: lto=lto against nolto=nolto, one clang].",
        [], {"multiple": True}, parse=_side, key="side")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunConfig:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    @property
    def builtin(self) -> bool:
        return self.script is None

    @property
    def flattens(self) -> bool:
        return self.flatten if self.flatten is not None else self.builtin

    @property
    def initialises(self) -> bool:
        """Whether the finishing hygiene initialises scalars and bounds loops: the option, else
        the oracle's default (on for the built-in one)."""
        return self.initialise if self.initialise is not None else self.builtin

    @property
    def replaces(self) -> bool:
        """Whether the schedule has its replacement stage: the option, else the oracle's default
        (on for scripts)."""
        return self.replacements if self.replacements is not None else not self.builtin

    def header_dirs(self, cwd: Path) -> list[Path]:
        """Where project headers are found: the -I/-iquote directories of the flags (built-in
        oracle) or --include-dir (scripts); the including file's directory comes on top."""
        return include_dirs(self.flags, cwd) + [(cwd / d).resolve() for d in self.include_dirs]


# The options that only say how this invocation works (no RunConfig field), each group shown
# in `reduce run --help` before the field named.
_INVOCATION: dict[str, tuple[Option, ...]] = {
    "time_budget": (
        Option("output", ("-o", "--output"), "Result file [default: FILE.reduced.EXT].", attrs={"type": _PATH}),
        Option("workdir", ("--workdir",), "The run's state, journal, log and report [default: OUTPUT.work].",
               attrs={"type": _DIRECTORY}),
        Option("force", ("--force",), "Overwrite an existing output file and work directory.", attrs=_FLAG),
    ),
    "hip_headers": (
        Option("quiet", ("-q", "--quiet"), "No progress output.", attrs=_FLAG),
        Option("as_json", ("--json",), "Progress and the final summary as JSON lines on stdout.", attrs=_FLAG),
    ),
}

# every RunConfig field that is an option, named as its field
FIELDS = tuple(dataclasses.replace(f.metadata[_ROW], name=f.name) for f in fields(RunConfig) if _ROW in f.metadata)
# all options of `reduce run`, in the order of its --help
RUN: tuple[Option, ...] = tuple(o for f in FIELDS for o in (*_INVOCATION.get(f.name, ()), f))
assert len(RUN) == len(FIELDS) + sum(map(len, _INVOCATION.values())), "an _INVOCATION key is no option field"
# the built-in oracle's, which `reduce check` takes too
ORACLE = ("hip_headers", "clang", "kernels", "all_targets", "predicate", "sides")


def click_options(*names: str) -> Callable[[F], F]:
    """The click options of the rows named (all rows when none is), in the table's order."""
    chosen = [o for o in RUN if not names or o.name in names]

    def apply(f: F) -> F:
        for o in reversed(chosen):
            f = o.click_option()(f)
        return f
    return apply


def resume_options(f: F) -> F:
    """The options `reduce resume` may change the stored values of."""
    for o in reversed([o for o in RUN if o.resume]):
        f = o.click_option(resume=True)(f)
    return f

