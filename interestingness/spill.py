"""The spill-differential oracle: is the candidate still a kernel that spills under full offload
LTO but not without it?

Each test compiles the LTO side first and evaluates the predicate with the no-LTO side unknown;
only when that leaves the answer open is the no-LTO side compiled (most candidates a reducer
tries lose the spill, so this halves their cost).
"""
from __future__ import annotations

import copy
import hashlib
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from interestingness.bundle import Tree
from interestingness.compile import LTO, NOLTO, SHIM_DIR, SIDES, TREE_DIR, Compiled, Compiler, prepare_flags
from interestingness.metrics import Metrics, analyse, demangle
from interestingness.predicates import DEFAULT_PREDICATE, Predicate
from interestingness.toolchain import Toolchain, find_toolchain
from interestingness.verdict import Verdict

# 2: a renamed target is still found; 3: the UB guard; 4: verdicts are kept for exact bytes (before,
# for a layout key that let a respacing which changes the tokens share a verdict)
IDENTITY_VERSION = "spill-differential/4"


class OracleSetupError(ValueError):
    """The original cannot seed a reduction (does not compile, no kernel matches, predicate false)."""


@dataclass(frozen=True)
class Measurement:
    """Both sides of one source: the compiles and, for each side that built, its kernels' metrics."""

    compiled: dict[str, Compiled]
    metrics: dict[str, dict[str, Metrics] | None]

    def kernel_names(self) -> list[str]:
        names: dict[str, None] = {}
        for side in SIDES:
            names.update(dict.fromkeys(self.metrics.get(side) or {}))
        return list(names)


class SpillOracle:
    """Implements `interestingness.verdict.Oracle`. Call `resolve_targets(original)` before `test`."""

    ignores_layout = True  # codegen sees tokens and line numbers, not spacing or comments

    def __init__(
        self,
        file_name: str | os.PathLike,
        flags: Sequence[str],
        toolchain: Toolchain | str | os.PathLike | None = None,
        predicate: str = DEFAULT_PREDICATE,
        kernels: Sequence[str] | None = None,
        timeout: float = 300.0,
        tmp_dir: str | os.PathLike | None = None,
        keep_artifacts: bool = False,
        *,
        cwd: str | os.PathLike | None = None,
        tree: Tree | None = None,
        ub_guard: bool = True,
    ):
        """With `tree`, candidates are file sets of it (interestingness.bundle): each test
        compiles a copy of the set, with the -I/-iquote directories under the tree's root and the
        main file's directory pointing to their copies, so every header the set holds, found
        through either or relative to the file including it, is read from the candidate."""
        tc = toolchain if isinstance(toolchain, Toolchain) else find_toolchain(toolchain)
        cwd = Path(cwd or os.getcwd())
        source = Path(cwd, file_name)
        effective, self.dropped_flags = prepare_flags(flags, cwd)
        self.tree = tree
        name, source_dir = source.name, os.path.normpath(source.parent)
        if tree is not None:  # the copies first; the originals after them, for files not in the set
            effective = (*tree.rewrite_flags(effective, TREE_DIR), "-iquote" + source_dir)
            name, source_dir = f"{TREE_DIR}/{tree.main}", tree.main_dir_copy(TREE_DIR)
        self.compiler = Compiler(
            toolchain=tc, flags=effective, file_name=name, source_dir=source_dir, timeout=timeout,
            tmp_parent=os.fspath(tmp_dir) if tmp_dir is not None else None,
            keep_artifacts=keep_artifacts, tree=tree,
        )
        self.predicate = Predicate(predicate)
        self.kernels = tuple(kernels) if kernels else None
        self.targets: tuple[str, ...] | None = None  # mangled names, set by resolve_targets
        # every kernel the predicate holds for on the original (targets are one of them with focus)
        self.interesting: tuple[str, ...] | None = None
        # what the original includes from outside the candidate, set by resolve_targets
        self.headers_sha256: str | None = None
        # With the guard, a candidate may not warn of more uninitialized uses than the original
        # (set by resolve_targets): reductions love `int i; for (; i < n; ...)`, and a test case
        # with undefined behaviour is rejected by the compiler engineers it is meant for.
        self.ub_guard = ub_guard
        self.uninitialized: int | None = None

    @property
    def toolchain(self) -> Toolchain:
        return self.compiler.toolchain

    def identity(self) -> dict[str, Any]:
        return {
            "oracle": IDENTITY_VERSION,
            "toolchain": self.toolchain.identity(),
            "commands": {side: self.compiler.command(side) for side in SIDES},
            "predicate": self.predicate.canonical,
            "kernels": list(self.kernels) if self.kernels else None,
            "targets": list(self.targets) if self.targets is not None else None,
            "shim_sha256": shim_sha256(),
            "headers_sha256": self.headers_sha256,
            "uninitialized_limit": self.uninitialized,
            "env": dict(self.compiler.env),
            "timeout": self.compiler.timeout,
        }

    def measure(self, content: bytes) -> Measurement:
        """Compile both sides (no laziness): for seeding and for `reduce check`."""
        compiled = {side: self.compiler.compile(side, content) for side in SIDES}
        metrics = {side: analyse(c.asm) if c.ok else None for side, c in compiled.items()}
        return Measurement(compiled, metrics)

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

    def kernel_verdict(self, measurement: Measurement, kernel: str) -> tuple[bool, str]:
        """(predicate holds, why not) for one kernel with both sides computed."""
        lto, nolto = (_kernel(measurement.metrics[s], kernel) for s in SIDES)
        for side, table in ((LTO, lto), (NOLTO, nolto)):
            if table is None:
                return False, f"kernel {kernel} missing ({side})"
        if self.predicate.evaluate(lto, nolto) is True:
            return True, ""
        return False, f"predicate false for {kernel}: {self.predicate.explain(lto, nolto)}"

    def resolve_targets(self, original: bytes, focus: bool = False) -> SpillOracle:
        """A copy whose targets are the kernels (named ones, or else all) the predicate holds for;
        with `focus`, only one of them (`focus_target`), unless the user named several."""
        m = self.measure(original)
        for side, c in m.compiled.items():
            if not c.ok:
                raise OracleSetupError(f"the original does not build ({side}, {c.failure}): {c.message}")
        available = m.kernel_names()
        if self.kernels:
            candidates: list[str] = []
            for name, found in self.match(m, self.kernels).items():
                if not found:
                    raise OracleSetupError(f"no kernel matches {name!r}; kernels: {', '.join(available)}")
                candidates += [k for k in found if k not in candidates]
        else:
            candidates = available
        verdicts = {k: self.kernel_verdict(m, k) for k in candidates}
        targets = tuple(k for k, (ok, _) in verdicts.items() if ok)
        if not targets:
            why = "; ".join(reason for _, reason in verdicts.values()) or "no kernels in the build"
            raise OracleSetupError(f"the predicate holds for no kernel of the original: {why}")
        interesting, targets = targets, focused(m, targets, len(self.kernels or ()), focus)
        resolved = self.with_targets(targets, original, m.compiled[LTO].uninitialized)
        resolved.interesting = interesting
        return resolved

    def with_targets(self, targets: Sequence[str], original: bytes, uninitialized: int | None = None) -> SpillOracle:
        """A copy with targets known already (a resumed run's): no build of the original. The UB
        guard's limit is `uninitialized` when a build of the original counted it, else it is
        counted by a syntax-only run."""
        resolved = copy.copy(self)
        resolved.targets = tuple(targets)
        resolved.headers_sha256 = files_sha256(self.compiler.headers(original))
        if self.ub_guard:
            resolved.uninitialized = uninitialized if uninitialized is not None else self.compiler.uninitialized(original)
        return resolved

    def test(self, content: bytes) -> Verdict:
        if self.targets is None:
            raise RuntimeError("SpillOracle.test before resolve_targets(original)")
        start = time.monotonic()
        details: dict[str, Any] = {"compiles": {}, "kernels": {t: {} for t in self.targets}}

        def verdict(interesting: bool, reason: str = "", infra: bool = False) -> Verdict:
            return Verdict(interesting, reason, infra, time.monotonic() - start, details)

        tables: dict[str, dict[str, Metrics] | None] = dict.fromkeys(SIDES)
        for side in SIDES:
            if side == NOLTO and self._decided(tables[LTO]):
                details["compiles"][NOLTO] = {"skipped": True}
                break
            c = self.compiler.compile(side, content)
            details["compiles"][side] = {"seconds": round(c.seconds, 3), "ok": c.ok, "artifacts": c.artifacts}
            if not c.ok:
                what = {"timeout": "timeout", "infra": "infrastructure failure"}.get(c.failure, "compile error")
                return verdict(False, f"{what} ({side}): {c.message}", infra=c.failure == "infra")
            if self.uninitialized is not None and c.uninitialized > self.uninitialized:
                return verdict(False, f"uses an uninitialized variable ({c.uninitialized} warning(s) of "
                                      f"-Wuninitialized, the original has {self.uninitialized})")
            tables[side] = by_target(analyse(c.asm), self.targets)
            for t in self.targets:
                details["kernels"][t][side] = tables[side].get(t)
                if t not in tables[side]:
                    return verdict(False, f"kernel {t} missing ({side})")
        results = {t: self.predicate.evaluate(tables[LTO][t], _kernel(tables[NOLTO], t)) for t in self.targets}
        # name a definitely-false target over one left unknown by the skipped no-LTO side
        failing = [t for t, r in results.items() if r is False] or [t for t, r in results.items() if r is None]
        if failing:
            t = failing[0]
            why = self.predicate.explain(tables[LTO][t], _kernel(tables[NOLTO], t))
            return verdict(False, f"predicate false for {t}: {why}")
        return verdict(True)

    def _decided(self, lto: dict[str, Metrics]) -> bool:
        """Whether the LTO side alone settles the answer: false for one target, or true for all."""
        results = [self.predicate.evaluate(lto[t], None) for t in self.targets]
        return False in results or all(r is True for r in results)


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
    lto = measurement.metrics[LTO] or {}

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


def by_target(table: dict[str, Metrics], targets: Sequence[str]) -> dict[str, Metrics]:
    """The table with each target's figures under the target's name: its kernel is the one of the
    same mangled name, or else the only other kernel with the same base name."""
    out = dict(table)
    for t in targets:
        same = [k for k in table if k not in targets and base_name(k) == base_name(t)]
        if t not in out and len(same) == 1:
            out[t] = table[same[0]]
    return out


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


def shim_sha256() -> str:
    """Hash of every file of the shim include tree (names and contents)."""
    h = hashlib.sha256()
    for p in sorted(SHIM_DIR.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(SHIM_DIR)).encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()
