"""The oracle a reduction run tests with, built from the run's options: a test script, or the
spill oracle, resolved from builds of the original on a new run and restored from the settings
it recorded on a resumed one. What the run must record comes back with the oracle, and what it
must say goes to `say`, so the reducer never looks inside an oracle."""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from interestingness.base.bundle import Tree
from interestingness.compiler.sides import DEFAULT_SIDES, parse_sides
from interestingness.oracle.script import ScriptError, ScriptOracle
from interestingness.oracle.spill import SpillOracle, SpillSetup
from interestingness.tools.check import check_pair as run_check_pair
from interestingness.tools.check import run_check
from interestingness.tools.explain import ExplainError, explain_file
from interestingness.tools.explain.report import write_explain
from interestingness.tools.explain.stages import ByHand


class OracleOptions(Protocol):
    """The options of a run that decide its oracle (reducer.runs.RunConfig has them all)."""

    file: str
    flags: list[str]
    script: str | None
    test_arg: bool
    timeout: float
    keep_artifacts: str | None
    clang: str | None
    kernels: list[str]
    predicate: str | None
    ub_guard: bool
    init_guard: bool
    loop_guard: bool
    hip_headers: str
    all_targets: bool
    sides: list[str]  # interestingness/compiler/sides.py's specs; none: the default pair


@dataclass(frozen=True)
class Guards:
    """The spill oracle's guards as a run applies them: the UB guard (-Wuninitialized; with
    `sanitizer`, also its sanitizer checks), the init guard's level ("code", "verdict" or False),
    the loop guard, and why a guard the user asked for is off (or what it lets through)."""

    ub: bool
    init: str | bool
    loop: bool
    off: list[str] = field(default_factory=list)
    sanitizer: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"ub": self.ub, "init": self.init, "loop": self.loop, "off": self.off,
                **({"sanitizer": True} if self.sanitizer else {})}  # (absent: a run from before the sanitizer checks)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Guards:
        return cls(data.get("ub", False), data.get("init", False), data.get("loop", False), data.get("off", []),
                   data.get("sanitizer", False))


@dataclass(frozen=True)
class Resolution:
    """What resolving the spill oracle on the original decided, for the run to record: a resumed
    run restores the oracle from `settings` without building anything, and keeps the same
    targets (focus included) and guards."""

    targets: list[str]
    showing_effect: list[str]  # every kernel the predicate holds for; the targets are one of them with focus
    settings: dict[str, Any]
    guards: Guards


@dataclass(frozen=True)
class RunOracle:
    """A run's oracle, with what the run records of it and the compiler its passes may ask."""

    oracle: SpillOracle | ScriptOracle
    resolution: Resolution | None = None  # a new run's spill oracle: what resolving it decided
    # the device front end (the spill oracle's own flags and HIP headers) that the folding passes
    # ask for constant values; a script gives no compiler to ask
    front_end: Callable[[bytes], str | None] | None = None


def build(options: OracleOptions, original: bytes, tree: Tree | None, settings: Mapping[str, Any] | None,
          tmp_root: Path, say: Callable[[str], None]) -> RunOracle:
    """The run's oracle for candidates of `original` (file sets of `tree`, if given). With the
    `settings` a new run recorded, the spill oracle is restored without a build; without, the
    original is built to resolve it. Raises ScriptError, ToolchainError or PredicateError when
    the oracle cannot be set up, OracleSetupError when the original cannot seed a reduction."""
    keep = options.keep_artifacts is not None
    file = Path(options.file)
    if options.script is not None:
        if options.flags:
            raise ScriptError("compile flags after -- are for the built-in oracle; a --test script gets none")
        return RunOracle(ScriptOracle.create(Path(options.script), file.name, timeout=options.timeout,
                                             tmp_root=tmp_root, test_arg=options.test_arg, keep_dirs=keep, tree=tree))
    sides = parse_sides(options.sides)
    setup = SpillSetup(file, options.flags, options.clang, options.predicate, options.kernels or None,
                       options.timeout, tmp_root, keep_artifacts=keep, tree=tree, ub_guard=options.ub_guard,
                       hip_headers=options.hip_headers, init_guard=options.init_guard, loop_guard=options.loop_guard,
                       sides=sides)
    if settings:
        oracle = setup.restore(settings, original)
        return RunOracle(oracle, front_end=oracle.compiler.diagnostics)
    say("checking the original: building it with and without full offload LTO..." if sides == DEFAULT_SIDES else
        f"checking the original: building both sides ({', '.join(s.spec() for s in sides)})...")
    oracle = setup.resolve(original, focus=not options.all_targets)
    say(f"target kernel(s): {', '.join(oracle.targets)}")
    if len(oracle.showing_effect) > len(oracle.targets):
        say(f"focus: {len(oracle.showing_effect)} kernels show the effect; the reduction keeps this one and may "
            f"delete the others ({', '.join(k for k in oracle.showing_effect if k not in oracle.targets)}); "
            "--all-targets keeps them all")
    if oracle.compiler.hip_headers.is_lean:
        say("HIP headers: the shim without the host's <cmath> and <cstdlib> (the original builds the same code "
            "without them)")
    if oracle.compiler.pch:
        say("HIP headers: <hip/hip_runtime.h> read from a precompiled header where it leads a candidate (the "
            "original builds the same code with it)")
    if oracle.compiler.shared_front_end:
        say("builds: one device front end per candidate, both sides' pipelines from its bitcode, and what they "
            "made of a bitcode kept for candidates with the same IR (the original builds the same code so)")
    if oracle.compiler.variants:
        say("guards: a kept candidate's guard builds (sanitizer checks, -ftrivial-auto-var-init modes) from one "
            "front end (the original's builds agree with the flags')")
    for why in oracle.guards_off:
        say(f"note: {why}")
    guards = Guards(options.ub_guard, oracle.init_guard, bool(oracle.loop_targets), oracle.guards_off,
                    oracle.sanitized is not None)
    resolution = Resolution(list(oracle.targets), list(oracle.showing_effect), oracle.settings(), guards)
    return RunOracle(oracle, resolution, oracle.compiler.diagnostics)


def check(options: OracleOptions, tree: Tree | None, content: bytes, kernels: Sequence[str],
          against: bytes | None = None) -> dict[str, Any]:
    """`reduce check --json` of `content` (a file set of `tree`, if given) with the run's flags,
    predicate and HIP headers, for `kernels`; with `against`, the run's original, beside it."""
    return run_check(options.file, options.flags, content=content, clang=options.clang, kernel=kernels,
                     predicate=options.predicate, timeout=options.timeout, tree=tree, hip_headers=options.hip_headers,
                     ub_guard=options.ub_guard, against=options.file if against is not None else None,
                     against_content=against, sides=parse_sides(options.sides))


def check_pair(options: OracleOptions, tree: Tree | None, original: bytes, result: bytes,
               kernels: Sequence[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """`check` of a run's original and of its result against it, each built once, side by side."""
    return run_check_pair(options.file, options.flags, result, original, kernels, ub_guard=options.ub_guard,
                          clang=options.clang, predicate=options.predicate, timeout=options.timeout, tree=tree,
                          hip_headers=options.hip_headers, sides=parse_sides(options.sides))


def explain(options: OracleOptions, tree: Tree | None, content: bytes, kernels: Sequence[str], jobs: int,
            bundle: Path, by_hand: ByHand, workdir: Path, say: Callable[[str], None],
            time_budget: float | None = None) -> Path | None:
    """`reduce explain` of a reduction's result (a file set of `tree`, if given), into the bundle's
    EXPLAIN.md: which compiler passes make the difference, the builds written as the bundle has
    them (`by_hand`); no build starts after `time_budget` seconds but the logs'. None, said why,
    when it cannot."""
    say("explaining the result: which compiler passes make the difference (--no-explain skips it"
        + (f", --explain-budget bounds it: {time_budget:.0f} s" if time_budget is not None else "") + ")...")
    try:
        result = explain_file(options.file, options.flags, clang=options.clang, predicate=options.predicate,
                              kernels=list(kernels), jobs=jobs, timeout=options.timeout,
                              hip_headers=options.hip_headers, content=content, tree=tree, workdir=workdir,
                              by_hand=by_hand, sides=parse_sides(options.sides), time_budget=time_budget)
    except ExplainError as e:
        say(f"note: no EXPLAIN.md: {e}")
        return None
    return write_explain(result, bundle)
