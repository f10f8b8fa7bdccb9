"""The spill-differential oracle: is the candidate still a kernel that spills under full offload
LTO but not without it?

Each test compiles the LTO side first and evaluates the predicate with the no-LTO side unknown;
only when that leaves the answer open is the no-LTO side compiled (most candidates a reducer
tries lose the spill, so this halves their cost).

An oracle is built whole, in two stages: a `SpillSetup` holds what is known before the original
is seen (compiler, predicate, kernels named, guards asked for), and its `resolve` builds the
original and decides the rest (targets, guard levels, lean shim, PCH, shared front end), or its `restore` takes a
resumed run's recorded decisions without a build. `reduce check` needs only the setup.
"""
from __future__ import annotations

import atexit
import dataclasses
import hashlib
import os
import re
import shutil
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from interestingness.base.bundle import TREE_DIR, Tree
from interestingness.base.verdict import BUILT, COMPILE_ERROR, INFRA, TIMEOUT, Verdict
from interestingness.compiler import prefix_pch, variants
from interestingness.compiler.compile import (
    LTO,
    NOLTO,
    Compiled,
    Compiler,
    FrontEnd,
    SharedFrontEndError,
    prepare_flags,
)
from interestingness.compiler.hip_headers import resolve as resolve_hip_headers
from interestingness.compiler.ir_memo import IrMemo, default_directory
from interestingness.compiler.sides import DEFAULT_SIDES, Side, default_predicate
from interestingness.compiler.toolchain import Toolchain, find_toolchain
from interestingness.measure.metrics import Metrics, demangle, summarise
from interestingness.measure.predicates import Predicate, Value
from interestingness.oracle import ubsan

# 2: a renamed target is still found; 3: the UB guard; 4: verdicts are kept for exact bytes (before,
# for a layout key that let a respacing which changes the tokens share a verdict); 5: a verdict is
# its test's alone, the init guard's confirmation a record of its own (before, a confirmed verdict);
# 6: the UB guard's sanitizer checks, and the original's figures the predicate reads (orig.SIDE.METRIC);
# 7: a kernel's figures cover its call graph (the functions it calls were not counted)
IDENTITY_VERSION = "spill-differential/7"
INIT_MODES = ("zero", "pattern")  # -ftrivial-auto-var-init values of the init guard


class OracleSetupError(ValueError):
    """The original cannot seed a reduction (does not compile, no kernel matches, predicate false)."""


@dataclass(frozen=True)
class Measurement:
    """Both sides of one source: the compiles and, for each side that built, its kernels' metrics."""

    compiled: dict[str, Compiled]
    metrics: dict[str, dict[str, Metrics] | None]

    def kernel_names(self) -> list[str]:
        names: dict[str, None] = {}
        for table in self.metrics.values():
            names.update(dict.fromkeys(table or {}))
        return list(names)


def measure(compiler: Compiler, content: bytes, extra: Sequence[str] = ()) -> Measurement:
    """Both sides of `content` built by `compiler` (no laziness), with `extra` flags."""
    build = compiler.build(content, extra)
    compiled = {side: build.side(side) for side in compiler.side_names}
    metrics = {side: c.summary.metrics if c.ok else None for side, c in compiled.items()}
    return Measurement(compiled, metrics)


class SpillSetup:
    """What a spill oracle is built from before the original is seen; `resolve` and `restore`
    build the oracle itself."""

    def __init__(
        self,
        file_name: str | os.PathLike,
        flags: Sequence[str],
        toolchain: Toolchain | str | os.PathLike | None = None,
        predicate: str | None = None,
        kernels: Sequence[str] | None = None,
        timeout: float = 300.0,
        tmp_dir: str | os.PathLike | None = None,
        keep_artifacts: bool = False,
        *,
        cwd: str | os.PathLike | None = None,
        tree: Tree | None = None,
        ub_guard: bool = True,
        hip_headers: str = "auto",
        init_guard: bool = True,
        loop_guard: bool = True,
        sides: tuple[Side, Side] = DEFAULT_SIDES,
    ):
        """`sides`: the two builds compared, the one that spills first (interestingness/compiler/sides.py);
        `predicate` names them (None: the built-in one over them).
        With `tree`, candidates are file sets of it (interestingness.base.bundle): each test
        compiles a copy of the set, with the -I/-iquote directories under the tree's root and the
        main file's directory pointing to their copies, so every header the set holds, found
        through either or relative to the file including it, is read from the candidate.
        The guards are asked for here and applied at the levels the original passes (`resolve`):
        - `ub_guard`: a candidate may not warn of more uninitialized uses than the original;
          reductions love `int i; for (; i < n; ...)`, and a test case with undefined behaviour
          is rejected by the compiler engineers it is meant for. And, confirmed for a candidate
          about to be kept, its target kernels built with clang's sanitizer checks in trap mode
          (interestingness/oracle/ubsan.py) may not trap on every path, trap for a kind of check the
          original's never does, or access memory through null or a constant address more often
          than the original's.
        - `init_guard`: an interesting candidate is built again with every automatic variable
          zero- and pattern-initialised (-ftrivial-auto-var-init). At level "code" the target
          kernels' LTO code must not change: nothing is read before it is written. At level
          "verdict", for an original whose code changes even so, the candidate must stay
          interesting (both sides): its spill does not depend on what an uninitialised read returns.
        - `loop_guard`: a target whose original spills inside a loop must go on doing so (metric
          loop_spill_ops): no drift to a straight-line kernel that spills for another reason."""
        tc = toolchain if isinstance(toolchain, Toolchain) else find_toolchain(toolchain)
        first, second = (dataclasses.replace(s, clang=find_toolchain(s.clang).clang) if s.clang else s
                         for s in sides)  # a side's own compiler located, as the run's is
        sides = (first, second)
        cwd = Path(cwd or os.getcwd())
        source = Path(cwd, file_name)
        effective, self.dropped_flags = prepare_flags(flags, cwd)
        name, source_dir = source.name, os.path.normpath(source.parent)
        if tree is not None:  # the copies first; the originals after them, for files not in the set
            effective = (*tree.rewrite_flags(effective, TREE_DIR), "-iquote" + source_dir)
            name, source_dir = f"{TREE_DIR}/{tree.main}", tree.main_dir_copy(TREE_DIR)
        self.compiler = Compiler(
            toolchain=tc, flags=effective, file_name=name, source_dir=source_dir, timeout=timeout,
            tmp_parent=os.fspath(tmp_dir) if tmp_dir is not None else None,
            keep_artifacts=keep_artifacts, tree=tree, hip=resolve_hip_headers(tc, effective, hip_headers),
            sides=sides,
        )
        self.source = source
        self.predicate = Predicate(predicate or default_predicate(sides), self.compiler.side_names)
        self.kernels = tuple(kernels) if kernels else None
        self.ub_guard, self.init_guard, self.loop_guard = ub_guard, init_guard, loop_guard

    @property
    def toolchain(self) -> Toolchain:
        return self.compiler.toolchain

    def measure(self, content: bytes, extra: Sequence[str] = ()) -> Measurement:
        """Compile both sides (no laziness), with `extra` flags: for seeding and for `reduce check`."""
        return measure(self.compiler, content, extra)

    def match(self, measurement: Measurement, names: Sequence[str]) -> dict[str, list[str]]:
        """{user name: kernels it selects}: the mangled name itself or a demangled substring; a
        mangled name no kernel has selects the kernels of its base name (renamed by a reduction)."""
        kernels = measurement.kernel_names()
        plain = demangle(kernels, self.toolchain)

        def select(n: str) -> list[str]:
            if n in kernels:
                return [n]
            found = [k for k in kernels if n in plain[k]]
            if not found and n.startswith("_Z"):
                found = [k for k in kernels if base_name(k) == base_name(n)]
            return found

        return {n: select(n) for n in names}

    def kernel_verdict(self, measurement: Measurement, kernel: str,
                       original: Mapping[str, Mapping[str, Any] | None] | None = None) -> tuple[bool, str]:
        """(predicate holds, why not) for one kernel with both sides computed. `original`: the
        original's tables of the kernel ({side: metrics}) for the predicate's orig.* names; by
        default the kernel's own (a file checked on its own is its own original)."""
        names = self.compiler.side_names
        lto, nolto = (_kernel(measurement.metrics[s], kernel) for s in names)
        for side, table in zip(names, (lto, nolto)):
            if table is None:
                return False, f"kernel {kernel} missing ({side})"
        predicate = self.predicate.bind(original if original is not None else dict(zip(names, (lto, nolto))))
        if predicate.evaluate(lto, nolto) is True:
            return True, ""
        return False, f"predicate false for {kernel}: {predicate.explain(lto, nolto)}"

    def sanitized(self, content: bytes,
                  compiler: Compiler | None = None) -> tuple[dict[str, ubsan.Profile] | None, str]:
        """({kernel: what the sanitizer checks say of it}, "") from the optimised IR of `content`
        built with them (interestingness/oracle/ubsan.py), or (None, why it did not build)."""
        return _profiles(_sanitized_build(compiler or self.compiler, content))

    def init_differences(self, content: bytes, lto_asm: Sequence[str], kernels: Sequence[str]) -> dict[str, str]:
        """{init mode: what differs, "" if nothing} for each -ftrivial-auto-var-init mode."""
        plain = code_digests(lto_asm, kernels)
        return {mode: init_difference(self.compiler, content, plain, kernels, mode) for mode in INIT_MODES}

    def resolve(self, original: bytes, focus: bool = False) -> SpillOracle:
        """The oracle whose targets are the kernels (named ones, or else all) the predicate holds
        for on `original`; with `focus`, only one of them (`focus_target`), unless the user named
        several. The guards apply at the strictest level the original passes."""
        m = self.measure(original)
        for side, c in m.compiled.items():
            if not c.ok:
                raise OracleSetupError(f"the original does not compile with these flags ({side} side, {c.failure}):\n"
                                       f"{c.message}\nto run that compile by hand: "
                                       f"{self.compiler.by_hand(side, self.source)}")
        available = m.kernel_names()
        if self.kernels:
            candidates: list[str] = []
            for name, found in self.match(m, self.kernels).items():
                if not found:
                    raise OracleSetupError(f"the original is not interesting: no kernel matches {name!r}; kernels: "
                                           f"{', '.join(available)}")
                candidates += [k for k in found if k not in candidates]
        else:
            candidates = available
        verdicts = {k: self.kernel_verdict(m, k) for k in candidates}
        targets = tuple(k for k, (ok, _) in verdicts.items() if ok)
        if not targets:
            why = "; ".join(reason for _, reason in verdicts.values()) or "no kernels in the build"
            raise OracleSetupError(f"the original is not interesting: the predicate holds for none of its kernels: "
                                   f"{why}")
        first = self.compiler.side_names[0]
        interesting, targets = targets, focused(m, targets, len(self.kernels or ()), focus)
        built = m.metrics[first]
        assert built is not None  # both sides of the original compiled (above)
        lto = by_target(built, targets)
        loops = tuple(t for t in targets if self.loop_guard and (lto[t].get("loop_spill_ops") or 0) > 0)
        chosen, shared = self._cheaper_builds(original, m)
        with ThreadPoolExecutor(1) as beside:  # the UB guard's sanitized build needs no other: on a core of its own
            sanitizing = beside.submit(self._sanitizer_level, original,
                                       dataclasses.replace(chosen, shared_front_end=False), targets)
            if shared is None:  # with the PCH when the run has it: the shared front end reads it too
                shared = self._builds_the_same(original, m, dataclasses.replace(chosen, shared_front_end=True))
            chosen = dataclasses.replace(chosen, shared_front_end=shared)
            headers = files_sha256(self.compiler.headers(original))
            figures = {t: {s: by_target(m.metrics[s] or {}, targets).get(t) for s in m.metrics} for t in targets}
            original_figures = {t: self.predicate.bind(figures[t]).original for t in targets}

            def oracle(init_guard: str | bool, guards_off: list[str],
                       sanitized: Mapping[str, ubsan.Profile] | None = None) -> SpillOracle:
                return SpillOracle(chosen, self.predicate, targets, kernels=self.kernels,
                                   uninitialized=m.compiled[first].uninitialized if self.ub_guard else None,
                                   loop_targets=loops, init_guard=init_guard, headers_sha256=headers,
                                   showing_effect=interesting, guards_off=guards_off,
                                   original_figures=original_figures, sanitized=sanitized)

            resolved = oracle("code" if self.init_guard else False, [])
            if self.init_guard:
                plain = code_digests(m.compiled[first].asm, targets)
                failed = resolved._init_failures(original, plain)
                if failed:
                    resolved = oracle("verdict", [f"the init guard compares verdicts only: the original itself "
                                                  f"{failed}"])
                    failed = resolved._init_failures(original, plain)
                if failed:
                    resolved = oracle(False, [*resolved.guards_off,
                                              f"the init guard is off: the original itself {failed}"])
            sanitized, notes, sanitized_build = sanitizing.result()
        resolved = oracle(resolved.init_guard, [*notes, *resolved.guards_off], sanitized)
        if resolved.can_share_guard_front_end() and \
                resolved.guards_agree_at_once(original, m.compiled[first], sanitized_build):
            chosen = dataclasses.replace(chosen, variants=True)
            resolved = oracle(resolved.init_guard, resolved.guards_off, sanitized)
        if self.loop_guard and not loops:
            resolved.guards_off.append("the loop guard is off: the original spills outside loops only")
        return resolved

    def restore(self, settings: Mapping[str, Any], original: bytes) -> SpillOracle:
        """The oracle `resolve` gave a run, from what it decided (`SpillOracle.settings`), with no
        build of the original: a resumed run's. The UB guard's limit is counted again, by a
        syntax-only run of the original."""
        compiler = self.compiler
        if settings.get("lean_shim"):  # (already lean: as it is)
            compiler = dataclasses.replace(compiler, hip=compiler.hip_headers.lean() or compiler.hip)
        headers = files_sha256(self.compiler.headers(original))
        compiler = dataclasses.replace(compiler, pch=settings.get("pch", False),
                                       shared_front_end=settings.get("shared_front_end", False),
                                       variants=settings.get("variants", False) and variants.available())
        sanitized = settings.get("sanitizer") if self.ub_guard else None
        # the predicate the run started with: a default changed since (issue 42's size clause) must
        # not change a resumed run, whose original's figures are those that predicate read
        recorded = settings.get("predicate")
        predicate = self.predicate if recorded is None else Predicate(recorded, self.predicate.sides)
        return SpillOracle(compiler, predicate,
                           settings["targets"], kernels=self.kernels,
                           uninitialized=self.compiler.uninitialized(original) if self.ub_guard else None,
                           loop_targets=settings.get("loop_targets", ()),
                           init_guard=settings.get("init_guard", "code" if self.init_guard else False),
                           headers_sha256=headers, original_figures=settings.get("original_figures", {}),
                           sanitized=None if sanitized is None else
                           {t: ubsan.Profile.from_json(p) for t, p in sanitized.items()})

    def _sanitizer_level(self, original: bytes, compiler: Compiler, targets: Sequence[str]
                         ) -> tuple[dict[str, ubsan.Profile] | None, list[str], Compiled | None]:
        """The UB guard's sanitizer half as the original allows it: the original's profile of
        each target (what a candidate is compared with), or None when the guard is off; what
        the run says at the start (the original builds with undefined behaviour the guard then
        lets a candidate keep, or the checks cannot be built at all); and the build it read."""
        if not self.ub_guard:
            return None, [], None
        built = _sanitized_build(compiler, original)
        found, why = _profiles(built)
        if found is None:
            why = f"the UB guard's sanitizer checks are off: the original does not build with them ({why})"
            return None, [why], built
        profiles = by_target(found, targets)
        missing = [t for t in targets if t not in profiles]
        if missing:
            return None, [f"the UB guard's sanitizer checks are off: no kernel {missing[0]} in their build"], built
        notes = []
        for t in targets:
            p = profiles[t]
            if not p.returns:
                notes.append(f"the UB guard lets a candidate trap on every path, as the original's {t} does with the "
                             f"sanitizer checks ({p.describe()})")
            if p.constant_addresses:
                notes.append(f"the UB guard lets a candidate access memory through null or a constant address "
                             f"{p.constant_addresses} time(s), as the original's {t} does")
        return {t: profiles[t] for t in targets}, notes, built

    def _cheaper_builds(self, original: bytes, m: Measurement) -> tuple[Compiler, bool | None]:
        """The compiler with every cheaper variant of the commands the original allows (the lean
        shim, the prefix PCH) and whether the shared front end is one of them (None: not decided
        yet). All are tried at once first, with the shared front end, the one build that usually
        decides them all (on a real library's TU each of these builds is most of a minute); when
        it differs from the original's, each is tried alone, in turn, as `_builds_the_same` says."""
        lean_hip = self.compiler.hip_headers.lean()
        pch = prefix_pch.applies(original)
        shared = self.compiler.sides == DEFAULT_SIDES  # the shared front end knows the default pair's pipelines only
        every = dataclasses.replace(self.compiler, hip=lean_hip or self.compiler.hip, pch=pch)
        if (lean_hip is not None) + pch + shared >= 2 and \
                self._builds_the_same(original, m, dataclasses.replace(every, shared_front_end=shared)):
            return every, shared
        lean = lean_hip is not None and self._builds_the_same(original, m,
                                                              dataclasses.replace(self.compiler, hip=lean_hip))
        chosen = dataclasses.replace(self.compiler, hip=lean_hip) if lean else self.compiler
        pch = pch and self._builds_the_same(original, m, dataclasses.replace(chosen, pch=True))
        return dataclasses.replace(chosen, pch=pch), (None if shared else False)

    def _builds_the_same(self, original: bytes, m: Measurement, compiler: Compiler) -> bool:
        """Whether the original builds the same code and figures, both sides, with `compiler` as
        with the setup's (`m`). A cheaper variant of the commands is used only then: the shim's
        lean variant (`HipHeaders.lean`, part of the commands, so of the identity: a candidate
        that needs the missing headers fails to build and is refused), the prefix PCH (the same
        tokens, so not part of the identity) or the shared front end (one front end, both sides'
        pipelines from its bitcode: part of the identity). Decided once, from the original
        (notes/oracle.md)."""
        try:
            o = measure(compiler, original)
        except SharedFrontEndError:
            return False
        if not all(c.ok for c in o.compiled.values()) or o.metrics != m.metrics:
            return False
        if any(o.compiled[s].uninitialized != m.compiled[s].uninitialized for s in m.compiled):
            return False  # the UB guard's count: front-end diagnostics must be the same too
        kernels = m.kernel_names()
        return all(target_digests(o.compiled[s].summary.digests, kernels) ==
                   target_digests(m.compiled[s].summary.digests, kernels) for s in m.compiled)


class SpillOracle:
    """Implements `interestingness.base.verdict.Oracle` for fixed target kernels (mangled names), with
    the guards at fixed levels. `SpillSetup.resolve` or `restore` builds a run's; a test that knows
    its targets already (benchmarks/spill_test.py) builds one directly."""

    ignores_layout = True  # codegen sees tokens and line numbers, not spacing or comments

    def __init__(
        self,
        compiler: Compiler,
        predicate: Predicate,
        targets: Sequence[str],
        *,
        kernels: Sequence[str] | None = None,
        uninitialized: int | None = None,
        loop_targets: Sequence[str] = (),
        init_guard: str | bool = False,
        headers_sha256: str | None = None,
        showing_effect: Sequence[str] = (),
        guards_off: Sequence[str] = (),
        original_figures: Mapping[str, Mapping[str, Value]] | None = None,
        sanitized: Mapping[str, ubsan.Profile] | None = None,
    ):
        """`kernels`: the names the user gave; `uninitialized`: the UB guard's limit (None: no
        guard); `loop_targets`: the targets the loop guard binds; `init_guard`: "code", "verdict"
        or False (`SpillSetup` says what each means); `headers_sha256`: what the original includes
        from outside the candidate; `original_figures`: per target, the original's figures the
        predicate reads ({"nolto.vgpr_total": 252} for orig.nolto.vgpr_total); `sanitized`: per
        target, what the sanitizer checks say of the original (the UB guard's confirmation step;
        None: no such step). `showing_effect` (every kernel the predicate holds for on the
        original; the targets are one of them with focus) and `guards_off` (why a guard the user
        asked for is off, or what it lets through) are what resolving found, for the run to say."""
        self.compiler = compiler
        self.tree = compiler.tree
        self.predicate = predicate
        self.targets = tuple(targets)
        self.kernels = tuple(kernels) if kernels else None
        self.uninitialized = uninitialized
        self.loop_targets = tuple(loop_targets)
        self.init_guard = init_guard
        self.headers_sha256 = headers_sha256
        self.showing_effect = tuple(showing_effect)
        self.guards_off = list(guards_off)
        self.original_figures = {t: dict((original_figures or {}).get(t) or {}) for t in self.targets}
        self._predicates = {t: Predicate(predicate.source, predicate.sides, self.original_figures[t])
                            for t in self.targets}
        self.sanitized = dict(sanitized) if sanitized is not None else None
        # the confirmation steps: the sanitizer build (the cheapest: no codegen), then one per init mode
        self._steps = (("sanitizer", ""),) * (self.sanitized is not None) + tuple(
            ("init", mode) for mode in (INIT_MODES if init_guard else ()))
        # a confirmation costs a test per guard build, however they are built: the batches, and so
        # the candidates a run keeps, are the same with the variants front end as without it
        self._confirm_cost = float(len(self._steps))
        if compiler.variants and self._steps:
            self._steps = (("at once", ""),)
        # the sides' summaries by front-end bitcode, for every process of the run (ir_memo)
        self.memo = _memo(compiler) if compiler.shared_front_end else None

    def predicate_for(self, target: str) -> Predicate:
        """The predicate as it reads for `target`, with the original's figures."""
        return self._predicates[target]

    @property
    def toolchain(self) -> Toolchain:
        return self.compiler.toolchain

    def identity(self) -> dict[str, Any]:
        return {
            "oracle": IDENTITY_VERSION,
            "toolchain": self.toolchain.identity(),
            "commands": {side: self.compiler.command(side) for side in self.compiler.side_names},
            # a side's own compiler (sides.py): its identity too, not only its path
            **({"side_toolchains": {s.name: find_toolchain(s.clang).identity() for s in self.compiler.sides
                                    if s.clang}} if any(s.clang for s in self.compiler.sides) else {}),
            "predicate": self.predicate.canonical,
            "kernels": list(self.kernels) if self.kernels else None,
            "targets": list(self.targets),
            "hip_headers": self.compiler.hip_headers.identity(),
            "headers_sha256": self.headers_sha256,
            "uninitialized_limit": self.uninitialized,
            "sanitizer": None if self.sanitized is None else {
                "checks": list(ubsan.CHECKS), "original": {t: p.to_json() for t, p in self.sanitized.items()}},
            "original_figures": self.original_figures,
            "init_guard": self.init_guard,
            "loop_targets": list(self.loop_targets),
            "env": dict(self.compiler.env),
            "timeout": self.compiler.timeout,
            **({"front_end": SHARED_FRONT_END} if self.compiler.shared_front_end else {}),
            **({"guard_front_end": variants.version()} if self.compiler.variants else {}),
        }

    def settings(self) -> dict[str, Any]:
        """What resolving decided, for `SpillSetup.restore` in a resumed run."""
        return {"targets": list(self.targets), "predicate": self.predicate.source,
                "loop_targets": list(self.loop_targets), "init_guard": self.init_guard,
                "lean_shim": self.compiler.hip_headers.is_lean, "pch": self.compiler.pch,
                "shared_front_end": self.compiler.shared_front_end, "variants": self.compiler.variants,
                "original_figures": self.original_figures,
                "sanitizer": None if self.sanitized is None else {t: p.to_json() for t, p in self.sanitized.items()}}

    def test(self, content: bytes) -> Verdict:
        """The spill differential, with the UB and loop guards. The init guard is `confirm`'s."""
        start = time.monotonic()
        verdict = self._test(content)
        return dataclasses.replace(verdict, seconds=time.monotonic() - start)

    @property
    def confirm_steps(self) -> int:
        """The UB guard's sanitizer build (when on), then the init guard's checks, one per
        -ftrivial-auto-var-init mode (none when it is off); or all of them at once, from one
        front end (`compiler.variants`)."""
        return len(self._steps)

    @property
    def confirm_cost(self) -> float:
        """A confirmation's cost in tests, for the batch size: a test per guard build, from one
        front end too (cheaper, but a run's candidates must not depend on whether the plugin is
        built: a run resumed elsewhere keeps the same ones; with two tests, the README case took
        another path and ended at 2,364 B instead of 1,540)."""
        return self._confirm_cost

    def can_share_guard_front_end(self) -> bool:
        """Whether the guards this oracle confirms with can be built from one front end: the
        shared front end's builds (both sides of the init guard's "verdict" level come from its
        bitcode too)."""
        return bool(self._steps) and self.compiler.shared_front_end

    def guards_agree_at_once(self, original: bytes, plain: Compiled, sanitized: Compiled | None) -> bool:
        """Whether the guard builds from one front end (`compiler.variants`) give `original`
        what the builds with the flags give: the sanitized kernels' IR (`sanitized`'s, the UB
        guard's build of the original, when the guard is on), and with each init mode the
        targets' code and figures of the flags' builds: at the "code" level, those of the plain
        build of the first side (`plain`), as the guard found the flags' builds have (another
        instantiation may read what it never wrote: composable_kernel's other kernel does); at
        the "verdict" level, those of both sides built with the flags, which the tests compare.
        Decided once, from the original, as the shared front end is (SpillSetup._builds_the_same)."""
        fronts = self.compiler.front_end_variants(original, self._variant_settings())
        if not all(f.ok for f in fronts.values()):
            return False
        if self.sanitized is not None:
            new = self.compiler.backend(NOLTO, fronts["ub"], ubsan.flags(), emit="ir")
            if sanitized is None or not (sanitized.ok and new.ok and _same_ir(sanitized.asm[0], new.asm[0])):
                return False
        for mode in INIT_MODES if self.init_guard else ():
            flag = (f"-ftrivial-auto-var-init={mode}",)
            variant = self.compiler.build(original, flag, front_end=fronts[mode])
            if self.init_guard == "code":
                pairs = [(variant.side(self.compiler.side_names[0]), plain)]
            else:
                flagged = self.compiler.build(original, flag)
                pairs = [(variant.side(side), flagged.side(side)) for side in self.compiler.side_names]
            if not all(self._same_targets(a, b) for a, b in pairs):
                return False
        return True

    def _same_targets(self, a: Compiled, b: Compiled) -> bool:
        """Whether two builds of one side both built, with the same front-end diagnostics count
        and the targets' same figures and code."""
        if not (a.ok and b.ok) or a.uninitialized != b.uninitialized:
            return False
        figures = [(by_target(c.summary.metrics, self.targets), target_digests(c.summary.digests, self.targets))
                   for c in (a, b)]
        return all(f.get(t) == g.get(t) for t in self.targets for f, g in zip(*figures))

    def _variant_settings(self) -> dict[str, str]:
        """The variants plugin's settings of the guards: "ub" and one per init mode."""
        settings = {"ub": variants.sanitize_setting(ubsan.CHECKS)} if self.sanitized is not None else {}
        return settings | {mode: variants.init_setting(mode) for mode in (INIT_MODES if self.init_guard else ())}

    def confirm(self, content: bytes, verdict: Verdict, step: int) -> Verdict:
        """Step `step` of the checks of a candidate kept (`verdict` is its interesting `test`;
        without its details, as replayed from a journal, the plain LTO code is built again), paid
        by the candidates kept, at their checkpoints, not by every speculative one that happens to
        be interesting: the UB guard's sanitizer build, or the init guard with one
        -ftrivial-auto-var-init mode (an LTO build; two at level "verdict"). The verdict's details
        give the seconds as a phase ("ub_guard", "init_guard")."""
        start = time.monotonic()
        kind, mode = self._steps[step]
        if kind == "sanitizer":
            return self._sanitizer_verdict(content, start)
        if kind == "at once":
            return self._guards_at_once(content, verdict, start)
        plain, unbuilt = self._plain_code(content, verdict) if self.init_guard == "code" else ({}, None)
        if unbuilt is not None:
            seconds = time.monotonic() - start
            return Verdict(False, f"init guard: the candidate {_does_not_build(unbuilt)}",
                           infra_failure=unbuilt.failure == "infra", seconds=seconds,
                           details={"phases": {"init_guard": seconds}})
        failed = self._init_failure(content, plain, mode)
        seconds = time.monotonic() - start
        return Verdict(not failed, f"init guard: the candidate {failed}" if failed else "",
                       seconds=seconds, details={"phases": {"init_guard": seconds}})

    def _sanitizer_verdict(self, content: bytes, start: float) -> Verdict:
        """The UB guard's sanitizer half: the target kernels, built with the checks
        (interestingness/oracle/ubsan.py), have no undefined behaviour their original has not."""
        c = _sanitized_build(self.compiler, content)
        why = self._sanitizer_failure(c)
        seconds = time.monotonic() - start
        return Verdict(not why, f"UB guard: {why}" if why else "", infra_failure=c.failure == "infra",
                       seconds=seconds, details={"phases": {"ub_guard": seconds}})

    def _sanitizer_failure(self, c: Compiled) -> str:
        """Why the sanitized build `c` fails the UB guard; "" when it passes."""
        assert self.sanitized is not None
        if not c.ok:
            return f"does not build with the sanitizer checks ({c.failure}): {c.message}"
        found = by_target(ubsan.profiles(c.asm[0]), self.targets)
        for t in self.targets:
            if v := ubsan.violation(self.sanitized[t], found.get(t)):
                return f"{t}: {v}"
        return ""

    def _guards_at_once(self, content: bytes, verdict: Verdict, start: float) -> Verdict:
        """Every guard build of a kept candidate from one front end (`compiler.variants`): the
        UB guard's sanitized IR, then the init guard's modes; the first that fails decides. The
        front end's seconds go to the first guard's phase."""
        fronts = self.compiler.front_end_variants(content, self._variant_settings())
        phases: dict[str, float] = {}
        why, infra = "", False
        if self.sanitized is not None:
            c = self.compiler.backend(NOLTO, fronts["ub"], ubsan.flags(), emit="ir") if fronts["ub"].ok else \
                Compiled(NOLTO, fronts["ub"].command, 0.0, failure=fronts["ub"].failure, message=fronts["ub"].message)
            if failed := self._sanitizer_failure(c):
                why, infra = f"UB guard: {failed}", c.failure == "infra"
            phases["ub_guard"] = time.monotonic() - start
        if self.init_guard and not why:
            begun = time.monotonic()
            plain, unbuilt = self._plain_code(content, verdict) if self.init_guard == "code" else ({}, None)
            if unbuilt is not None:
                why, infra = f"init guard: the candidate {_does_not_build(unbuilt)}", unbuilt.failure == "infra"
            for mode in INIT_MODES if unbuilt is None else ():
                if refused := self._init_failure(content, plain, mode, fronts[mode]):
                    why = f"init guard: the candidate {refused}"
                    infra = not fronts[mode].ok and fronts[mode].failure == "infra"
                    break
            phases["init_guard"] = time.monotonic() - begun
        return Verdict(not why, why, infra_failure=infra, seconds=time.monotonic() - start,
                       details={"phases": phases})

    def _plain_code(self, content: bytes, verdict: Verdict) -> tuple[dict[str, list], Compiled | None]:
        """The target kernels' plain LTO code digests of a kept candidate: its verdict's, or built
        again (a verdict replayed from a journal has no details); with the build when it failed."""
        plain = verdict.details.get("lto_code")
        if plain is not None:
            return plain, None
        built = self.compiler.compile(self.compiler.side_names[0], content)
        return (code_digests(built.asm, self.targets), None) if built.ok else ({}, built)

    def _init_failure(self, content: bytes, plain: dict[str, list], mode: str,
                      front_end: FrontEnd | None = None) -> str | None:
        """Why `content` fails the init guard at its level with -ftrivial-auto-var-init=MODE, if
        it does (`plain`: code_digests of its plain LTO build; `front_end`: the mode's bitcode,
        when the variants plugin made it)."""
        if self.init_guard == "code":
            return init_difference(self.compiler, content, plain, self.targets, mode, self.memo, front_end) or None
        if not (v := self._test(content, (f"-ftrivial-auto-var-init={mode}",), front_end)).interesting:
            return f"is not interesting with -ftrivial-auto-var-init={mode}: {v.reason}"
        return None

    def _init_failures(self, content: bytes, plain: dict[str, list]) -> str | None:
        """The first mode's failure, if any."""
        return next((f for mode in INIT_MODES if (f := self._init_failure(content, plain, mode))), None)

    def _test(self, content: bytes, extra: Sequence[str] = (), front_end: FrontEnd | None = None) -> Verdict:
        """The predicate (with the UB and loop guards) on both sides built with `extra` flags
        (from `front_end`'s bitcode when given). An interesting verdict's details hold the target
        kernels' LTO code digests, for `confirm`."""
        details: dict[str, Any] = {"compiles": {}, "kernels": {t: {} for t in self.targets}, "phases": {}}
        build = self.compiler.build(content, extra, self.memo, front_end)
        lto_code: dict[str, list] = {}

        def verdict(interesting: bool, reason: str = "", infra: bool = False, kind: str = BUILT) -> Verdict:
            if build.front_end_seconds:  # the shared front end's, counted in the LTO side's (asked first)
                details["phases"]["front_end"] = build.front_end_seconds
                details["phases"][LTO] -= build.front_end_seconds
            if interesting:
                details["lto_code"] = target_digests(lto_code, self.targets)
            return Verdict(interesting, reason, infra, 0.0, details, kind=INFRA if infra else kind)

        first, second = self.compiler.side_names
        tables: dict[str, dict[str, Metrics] | None] = dict.fromkeys((first, second))
        lto: dict[str, Metrics] = {}  # the first side's (the LTO side's by default), which comes first
        for side in (first, second):
            if side == second and self._decided(lto):
                details["compiles"][second] = {"skipped": True}
                break
            c = build.side(side)
            details["compiles"][side] = {"seconds": round(c.seconds, 3), "ok": c.ok, "artifacts": c.artifacts,
                                         **({"memo": c.memo} if c.memo else {})}
            details["phases"][side] = c.seconds
            if not c.ok:
                what = {"timeout": "timeout", "infra": "infrastructure failure"}.get(c.failure or "", "compile error")
                return verdict(False, f"{what} ({side}): {c.message}", infra=c.failure == "infra",
                               kind=TIMEOUT if c.failure == "timeout" else COMPILE_ERROR)
            if self.uninitialized is not None and c.uninitialized > self.uninitialized:
                return verdict(False, f"uses an uninitialized variable ({c.uninitialized} warning(s) of "
                                      f"-Wuninitialized, the original has {self.uninitialized})")
            lto_code = c.summary.digests if side == first else lto_code
            table = tables[side] = by_target(c.summary.metrics, self.targets)
            if side == first:
                lto = table
            for t in self.targets:
                details["kernels"][t][side] = table.get(t)
                if t not in table:
                    return verdict(False, f"kernel {t} missing ({side})")
                if side == first and t in self.loop_targets and not table[t].get("loop_spill_ops"):
                    return verdict(False, f"loop guard: {t} has no spill code in a loop "
                                          "(the original spills inside one)")
        results = {t: self._predicates[t].evaluate(lto[t], _kernel(tables[second], t)) for t in self.targets}
        # name a definitely-false target over one left unknown by the skipped no-LTO side
        failing = [t for t, r in results.items() if r is False] or [t for t, r in results.items() if r is None]
        if failing:
            t = failing[0]
            why = self._predicates[t].explain(lto[t], _kernel(tables[second], t))
            return verdict(False, f"predicate false for {t}: {why}")
        return verdict(True)

    def _decided(self, lto: dict[str, Metrics]) -> bool:
        """Whether the LTO side alone settles the answer: false for one target, or true for all."""
        results = [self._predicates[t].evaluate(lto[t], None) for t in self.targets]
        return False in results or all(r is True for r in results)


def _sanitized_build(compiler: Compiler, content: bytes) -> Compiled:
    """The no-LTO side's optimised IR of `content` with the UB guard's sanitizer checks."""
    return compiler.compile(NOLTO, content, emit="ir", extra=ubsan.flags())


def _profiles(c: Compiled) -> tuple[dict[str, ubsan.Profile] | None, str]:
    """What the sanitizer checks say of each kernel of `c` (`_sanitized_build`'s), or (None, why
    it did not build)."""
    if not c.ok:
        return None, f"{c.failure}: {c.message}"
    return ubsan.profiles(c.asm[0]), ""


def init_difference(compiler: Compiler, content: bytes, plain: dict[str, list], kernels: Sequence[str],
                    mode: str, memo: IrMemo | None = None, front_end: FrontEnd | None = None) -> str:
    """"" when the LTO build with -ftrivial-auto-var-init=MODE gives `kernels` exactly the
    instructions of the plain build (`plain`: code_digests). When nothing is read before it is
    written, every initialising store is dead and the code is the same; when it differs, a
    kernel reads an automatic variable before writing it (the undefined value is what the
    optimiser folded). Same code also means the same figures, so the spill differential holds
    with the variables initialised. Otherwise why, to follow "the candidate". `front_end`: the
    mode's front end, when it ran already."""
    flag = f"-ftrivial-auto-var-init={mode}"
    c = compiler.build(content, (flag,), memo, front_end).side(compiler.side_names[0])
    if not c.ok:
        return f"{_does_not_build(c)} (with {flag})"
    other = target_digests(c.summary.digests, kernels)
    changed = [k for k in kernels if other.get(k) != plain.get(k)]
    if not changed:
        return ""
    k = changed[0]
    return (f"reads an automatic variable before writing it: with {flag}, other code for {k} "
            f"({(plain.get(k) or ['', 0])[1]} -> {(other.get(k) or ['', 0])[1]} instructions)")


def _does_not_build(c: Compiled) -> str:
    return f"does not build ({c.failure}): {c.message}"


def focused(measurement: Measurement, interesting: Sequence[str], named: int, focus: bool) -> tuple[str, ...]:
    """The targets of a reduction among the kernels that show the effect: all of them without
    `focus` or when the user named several (`named` --kernel options), else one."""
    if focus and named <= 1 and len(interesting) > 1:
        return (focus_target(measurement, interesting),)
    return tuple(interesting)


def focus_target(measurement: Measurement, kernels: Sequence[str]) -> str:
    """The one kernel a reduction keeps when several show the effect (the fp16 and bf16
    instantiations of one template): every later test then compiles the code of one, and the
    others' become deletable. The one with the most spill code under LTO (the strongest effect,
    the least likely to vanish), then the fewest instructions, then the first by name."""
    lto = measurement.metrics[next(iter(measurement.metrics))] or {}  # the first side's

    def key(k: str):
        m = lto.get(k) or {}
        return -(m.get("spill_ops") or 0), -(m.get("vgpr_spills") or 0), m.get("instructions") or 0, k

    return min(kernels, key=key)


def base_name(mangled: str) -> str:
    """`_ZN7hipconv12wgrad_kernelILNS_6ConfigE...EEvNS_10ConvParamsE...` -> `wgrad_kernel`: the
    kernel's own identifier. Reducing renames the mangled symbol (an instantiated template, a
    deleted parameter, an unwrapped namespace); this part survives all of them."""
    if not mangled.startswith("_Z"):
        return mangled
    i, name = 2, mangled
    nested = mangled.startswith("_ZN")
    i += nested
    while i < len(mangled):
        while i < len(mangled) and mangled[i] in "rVKL":  # cv-qualifiers, internal linkage
            i += 1
        m = re.match(r"\d+", mangled[i:])
        if m is None:
            break
        i += len(m.group())
        name, i = mangled[i:i + int(m.group())], i + int(m.group())
        if not nested:
            break
    return name


V = TypeVar("V")


def by_target(table: dict[str, V], targets: Sequence[str]) -> dict[str, V]:
    """The table with each target's figures under the target's name: its kernel is the one of the
    same mangled name, or else the only other kernel with the same base name."""
    out = dict(table)
    for t in targets:
        same = [k for k in table if k not in targets and base_name(k) == base_name(t)]
        if t not in out and len(same) == 1:
            out[t] = table[same[0]]
    return out


def code_digests(asm: Sequence[str], kernels: Sequence[str]) -> dict[str, list]:
    """{kernel: [sha256 of its instructions, how many]}: enough to tell whether two builds gave a
    kernel the same code, small enough to travel in a verdict's details."""
    return target_digests(summarise(asm).digests, kernels)


def target_digests(digests: dict[str, list], kernels: Sequence[str]) -> dict[str, list]:
    """`code_digests` from a build's summary (metrics.Summary.digests)."""
    table = by_target(digests, kernels)
    return {k: table[k] for k in kernels if k in table}


SHARED_FRONT_END = "shared-front-end/1"  # in the identity of an oracle that builds this way
_CUID = re.compile(r"__hip_cuid_[0-9a-f]+")
_LOCAL = re.compile(r'%(?:[-\w.$]+|"[^"]*")')
_BLOCK = re.compile(r"^([-\w.$]+):")


def _same_ir(a: str, b: str) -> bool:
    """Whether two modules' IR texts are the same but for their names (an IR read from bitcode
    keeps the optimiser's value names, a build from source discards them), comments and the
    compilation-unit id the driver derives from the command line."""
    return _canonical(a) == _canonical(b)


def _canonical(ir: str) -> list[str]:
    """`ir`'s lines with the module's name and comments left out, the unit id blanked, and each
    function's local names (values, blocks) numbered in order of appearance."""
    out: list[str] = []
    names: dict[str, str] = {}

    def local(name: str) -> str:
        return names.setdefault(name, f"%{len(names)}")

    for line in ir.splitlines():
        if line.startswith(("; ModuleID", "source_filename")):
            continue
        if line.startswith("define "):
            names = {}
        line = _CUID.sub("__hip_cuid_", line.split(";", 1)[0].rstrip())
        line = _LOCAL.sub(lambda m: local(m.group(0)), _BLOCK.sub(r"%\1:", line))
        if line:
            out.append(line)
    return out


def _memo(compiler: Compiler) -> IrMemo:
    """The IR memo of an oracle: in the run's temp dir (its processes share it), else in a new
    directory that the process creating it removes at exit."""
    directory = default_directory(compiler.tmp_parent)
    if compiler.tmp_parent is None:
        atexit.register(shutil.rmtree, directory, True)
    return IrMemo(directory)


def _kernel(table: dict[str, Metrics] | None, name: str) -> Metrics | None:
    return None if table is None else table.get(name)


def files_sha256(paths: Sequence[str]) -> str:
    """Names and contents of files (candidates only lose includes, so the original's set covers them)."""
    h = hashlib.sha256()
    for p in sorted(paths):
        h.update(p.encode() + b"\0")
        try:
            h.update(Path(p).read_bytes() + b"\0")
        except OSError:
            h.update(b"<unreadable>\0")
    return h.hexdigest()
