"""The options of `reduce run`, one row each. The click options of `run` (and the ones `resume`
and `check` share), the RunConfig dataclass and the keys of batch manifests are all made from
this table, so an option added here is everywhere at once and none can be forgotten in one place."""
from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Callable, TypeVar

import click

from interestingness.predicates import DEFAULT_PREDICATE

from . import passes
from .budget import parse_duration
from .flatten import include_dirs

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Option:
    """One option. With `field`, it is a RunConfig field of its name and can be set in a manifest
    (under `key`, by default its name); without, it only says how this invocation works."""

    name: str                   # click's parameter name
    decls: tuple[str, ...]      # its spellings, as click.option takes them
    help: str
    field: tuple[Any, Any] | None = None  # the RunConfig field's type and default
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
        attrs = {**({"default": self.field[1]} if self.field else {}), **self.attrs}
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

# In the order of `reduce run --help`; RunConfig's fields come in this order too.
RUN: tuple[Option, ...] = (
    Option("script", ("--test",), "Interestingness script (exit 0 = interesting).", (str | None, None),
           {"type": _PATH}, parse=_absolute, key="test", relative=True),
    Option("test_arg", ("--test-arg",), "Pass the candidate's path as the script's last argument (llvm-reduce style).",
           (bool, False), _FLAG),
    Option("jobs", ("-j", "--jobs"), "Tests run in parallel.", (int, 1),
           {"type": click.IntRange(1), "default": os.cpu_count() or 1, **_SHOWN},
           resume="Tests run in parallel [default: as the run had]."),
    Option("output", ("-o", "--output"), "Result file [default: FILE.reduced.EXT].", attrs={"type": _PATH}),
    Option("workdir", ("--workdir",), "The run's state, journal, log and report [default: OUTPUT.work].",
           attrs={"type": _DIRECTORY}),
    Option("force", ("--force",), "Overwrite an existing output file and work directory.", attrs=_FLAG),
    Option("time_budget", ("--time-budget",), "Stop cleanly after this much wall time (8h, 90m, 1h30m).",
           (float | None, None), parse=parse_duration,
           resume="A new total time budget for the run (all sessions)."),
    Option("max_tests", ("--max-tests",), "Stop cleanly after this many oracle tests.", (int | None, None),
           {"type": click.IntRange(1)}, resume="A new total test budget for the run (all sessions)."),
    Option("pass_time_cap", ("--pass-time-cap",),
           "Cut a pass short after this long [default: a quarter of --time-budget, else none].",
           (float | None, None), parse=parse_duration),
    Option("timeout", ("--timeout",), "Seconds per test.", (float, 300.0),
           {"type": click.FloatRange(min=0.1), **_SHOWN}),
    Option("check_repeat", ("--check-repeat",),
           "Fresh tests of the original (all must agree, or the run is refused) and of the result.",
           (int, 2), {"type": click.IntRange(1), **_SHOWN}),
    Option("recheck", ("--recheck/--no-recheck",),
           "Test each interesting candidate again before keeping it [default: on with --test, off with "
           "the built-in oracle, whose compiles are deterministic].", (bool | None, None)),
    Option("allow_empty", ("--allow-empty",), "Let an empty or whitespace-only file be interesting.",
           (bool, False), _FLAG),
    Option("ub_guard", ("--ub-guard/--no-ub-guard",),
           "Built-in oracle: refuse candidates with more -Wuninitialized warnings than the original "
           "(reductions leave uninitialized counters behind, and a test case with undefined behaviour is "
           "no bug report).", (bool, True), _SHOWN),
    Option("init_guard", ("--init-guard/--no-init-guard",),
           "Built-in oracle: keep a candidate only when it is also interesting with every automatic variable "
           "zero- and pattern-initialised (-ftrivial-auto-var-init), so the spill does not depend on reads of "
           "uninitialised memory. Costs two more builds per candidate kept, not per test; off when the original "
           "fails it.", (bool, True), _SHOWN),
    Option("confirm_batch", ("--confirm-batch",),
           "Built-in oracle: confirm (the init guard's builds) the candidates kept in batches of up to this "
           "many, through the newest; a failure is bisected and the run goes back to the last that passes. "
           "Every file written passes. 1 confirms each candidate as it is kept.", (int, 16),
           {"type": click.IntRange(1), **_SHOWN}),
    Option("loop_guard", ("--loop-guard/--no-loop-guard",),
           "Built-in oracle: when the original spills inside a loop (LTO side), so must the result "
           "(metric loop_spill_ops), rather than drift to straight-line code that spills for another reason.",
           (bool, True), _SHOWN),
    Option("format", ("--format/--no-format",),
           "After the reduction, make the result read like code a person wrote: drop empty statements and "
           "unused labels, initialise uninitialised scalars and give constant loop conditions their bound back "
           "(see --initialise), then clang-format it (LLVM style, or your .clang-format); each step kept only "
           "when still interesting.",
           (bool, True), _SHOWN),
    Option("initialise", ("--initialise/--no-initialise",),
           "With --format: initialise uninitialised local scalars and give constant loop conditions their bound "
           "back, each kept only when still interesting [default: on with the built-in oracle, where undefined "
           "behaviour matters in a spill or miscompile report; off with --test, where a diagnostic case only "
           "gets bigger].", (bool | None, None)),
    Option("explain", ("--explain/--no-explain",),
           "Built-in oracle: at the end of a finished reduction, find which compiler passes make the difference "
           "(`reduce explain`: each pass disabled alone in each stage) and write bundle/EXPLAIN.md.", (bool, True),
           _SHOWN),
    Option("prefilter", ("--no-prefilter",), "Test candidates that add parse errors too.", (bool, True),
           {**_FLAG, "flag_value": False}),
    Option("passes", ("--passes",), "Comma-separated passes to run instead of the default schedule "
           "(`reduce passes` lists them).", (list[str] | None, None),
           parse=lambda text: _pass_names(text) or None, comma=True),  # none: the default schedule
    Option("skip_passes", ("--skip-passes",), "Comma-separated passes to take out of the schedule.",
           (list[str], []), {"default": ""}, parse=_pass_names, comma=True),
    Option("replacements", ("--replacements/--no-replacements",),
           "Past the deletion passes' fixpoint, the replacement passes (`reduce passes`) [default: on with --test; "
           "off with the built-in oracle, where on the README's first case they cost tests and took nothing].",
           (bool | None, None)),
    Option("adaptive_sweeps", ("--adaptive-sweeps/--full-sweeps",),
           "After a full sweep of the main passes, run again only those that removed something, until "
           "none does, then a full sweep again.", (bool, False), _SHOWN),
    Option("rename", ("--rename/--no-rename",),
           "shorten identifiers; off by default because names matter in a bug report", (bool, False), _SHOWN),
    Option("backend", ("--backend",),
           "joblib backend; dask runs the tests on a Dask cluster (its workers need the toolchain).",
           (str, "loky"), {"type": click.Choice(["loky", "threading", "dask"]), **_SHOWN}),
    Option("scheduler", ("--scheduler",),
           "Dask scheduler address (tcp://host:8786) for --backend dask [default: a local cluster].",
           (str | None, None)),
    Option("flatten", ("--flatten/--no-flatten",),
           "Inline project headers (found via -I/-iquote and the file's directory) first "
           "[default: on with the built-in oracle, off with --test]. Without it, the project headers are "
           "reduced as files of their own, written to OUTPUT.files/.", (bool | None, None)),
    Option("include_dirs", ("-I", "--include-dir"),
           "A directory of project headers, for --test runs (the built-in oracle takes -I/-iquote from its "
           "clang flags); with --no-flatten, the headers found there are reduced too.", (list[str], []),
           {"multiple": True, "type": _DIRECTORY}, parse=_absolute, relative=True),
    Option("cache", ("--cache/--no-cache",),
           "Keep verdicts in the persistent cache [default: on with the built-in oracle, whose key "
           "covers everything that decides a verdict; off with --test, since a script may read anything].",
           (bool | None, None)),
    Option("cache_dir", ("--cache-dir",), "[default: $XDG_CACHE_HOME/gpu-reduce]", (str | None, None),
           {"type": _PATH}, parse=_absolute),
    Option("cache_max_entries", ("--cache-max-entries",), "0 disables.", (int, 200_000),
           {"type": click.IntRange(0), **_SHOWN}),
    Option("cache_max_bytes", ("--cache-max-bytes",), "0 disables.", (int, 1 << 30),
           {"type": click.IntRange(0), **_SHOWN}),
    Option("keep_artifacts", ("--keep-artifacts",),
           "Keep every test's directory (candidate, build outputs) under this directory; "
           "the persistent cache is then off, so no test is skipped for an earlier run's answer.",
           (str | None, None), {"type": _DIRECTORY}, parse=_absolute, relative=True),
    Option("quiet", ("-q", "--quiet"), "No progress output.", attrs=_FLAG),
    Option("as_json", ("--json",), "Progress and the final summary as JSON lines on stdout.", attrs=_FLAG),
    Option("hip_headers", ("--hip-headers",),
           "HIP headers after your own -I/-isystem ones: a ROCm's (found by clang, or with --rocm-path "
           "among the clang flags), this package's fallback shim, or auto: ROCm when clang finds one.",
           (str, "auto"), {"type": click.Choice(["auto", "rocm", "shim"]), **_SHOWN}),
    Option("clang", ("--clang",), "clang++ to use [default: $REDUCE_CLANG, /usr/lib/llvm-22/bin/clang++, PATH].",
           (str | None, None)),
    Option("kernels", ("--kernel",),
           "Target kernel: mangled name or part of the demangled one [default: one kernel that "
           "shows the effect in the original; see --all-targets]. Two or more --kernel keep all they select.",
           (list[str], []), {"multiple": True}, key="kernel"),
    Option("all_targets", ("--all-targets",),
           "Keep every kernel that shows the effect (or that --kernel selects) a target; by default "
           "a reduction keeps one, the one with the most spill code, and the others become deletable.",
           (bool, False), _FLAG),
    Option("predicate", ("--predicate",), "When a kernel is interesting, over lto.METRIC / nolto.METRIC "
           f"[default: {DEFAULT_PREDICATE}].", (str | None, None)),
)
FIELDS = tuple(o for o in RUN if o.field)
# the built-in oracle's, which `reduce check` takes too
ORACLE = ("hip_headers", "clang", "kernels", "all_targets", "predicate")


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


class _RunConfig:
    """Everything that decides a run; stored in run.json, so `resume` needs nothing else. Its
    fields: what the run is of (file, output and cwd, absolute so a resumed run may start anywhere;
    the compile flags, relative to cwd), then one per row of FIELDS."""

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Any:
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


def _field(default: Any) -> Any:
    """A dataclass field's default; a list one is copied for each instance."""
    return dataclasses.field(default_factory=default.copy) if isinstance(default, list) else default


RunConfig = dataclasses.make_dataclass(
    "RunConfig",
    [("file", str), ("output", str), ("cwd", str), ("flags", list[str], dataclasses.field(default_factory=list)),
     *((o.name, o.field[0], _field(o.field[1])) for o in FIELDS)],
    bases=(_RunConfig,), namespace={"__doc__": _RunConfig.__doc__, "__module__": __name__})

