"""The IR oracle: does llc, run on a candidate module, still spill in the target kernel?

`reduce ir` reduces the module that goes into codegen under full offload LTO (the
`*.precodegen.bc` that `-Xoffload-linker --save-temps` leaves); `llc -O3` on it gives the build's
own code. A test is one llc run to assembly on stdin/stdout (no temp files), read with the same
METRICS table as the source oracle. There are two sides for differentials: `llc` (the llc flags)
and `alt` (the same llc with other flags). As in the source oracle the predicate is evaluated
with `alt` unknown first, and `alt` is compiled only when that leaves the answer open.
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from interestingness.base.process import Completed, run
from interestingness.base.verdict import NoConfirmation, Verdict
from interestingness.compiler.compile import INFRA_STDERR, compiler_env
from interestingness.compiler.toolchain import ToolchainError, file_sha256, llvm_lib_hashes
from interestingness.measure.metrics import Metrics, analyse, demangle
from interestingness.measure.predicates import Predicate, PredicateError
from interestingness.oracle.ir_budget import Budget, budget_attributes, differences

LLC, ALT = "llc", "alt"
SIDES = (LLC, ALT)
DEFAULT_TRIPLE = "amdgcn-amd-amdhsa"
DEFAULT_CPU = "gfx950"
ENV_LLC = "REDUCE_LLC"
DEFAULT_LLC = "/usr/lib/llvm-22/bin/llc"
IDENTITY_VERSION = "ir-llc/3"  # 2: a kernel's figures cover its call graph; 3: the budget guard, the original's figures
BITCODE_MAGIC = (b"BC\xc0\xde", b"\xde\xc0\x17\x0b")  # raw bitcode, bitcode wrapper
_INFRA_SIGNALS = {signal.SIGKILL, signal.SIGBUS}  # OOM killer, bus error on a full disk
_OPT_LEVEL = re.compile(r"^-O[0-3]$")
_TRIPLE = re.compile(r'^target triple = "([^"]*)"', re.MULTILINE)
_KERNEL_DEFINE = re.compile(r'^define [^@]*\bamdgpu_kernel\b[^@]*@("(?:[^"\\]|\\.)*"|[-\w.$]+)\(', re.MULTILINE)


class IrInputError(ValueError):
    """The input cannot seed a reduction. `kind` says why, for the CLI's exit code:
    "not-ir", "target" (another target), "llc" (llc rejects it), "not-interesting"."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True)
class LlvmTools:
    """llc and the LLVM tools installed beside it (one LLVM build for everything)."""

    llc: str
    opt: str
    llvm_extract: str
    llvm_reduce: str
    llvm_dis: str
    llvm_as: str
    cxxfilt: str  # the name metrics.demangle reads

    def identity(self) -> dict[str, Any]:
        """What makes two llc runs give the same code: the binary and the LLVM libraries it loads
        (Debian's llc is small; codegen lives in libLLVM). Hashing takes a moment: call it once."""
        resolved = Path(self.llc).resolve()
        return {"llc": self.llc, "sha256": file_sha256(resolved), "lib_sha256": dict(llvm_lib_hashes(resolved))}


def find_llvm_tools(llc: str | os.PathLike | None = None) -> LlvmTools:
    """Explicit llc, then $REDUCE_LLC, then Debian's llvm-22, then `llc` on PATH; the other tools
    must sit in the same directory, so that they all are the same LLVM."""
    wanted = [os.fspath(llc)] if llc else [os.environ[ENV_LLC]] if os.environ.get(ENV_LLC) else [DEFAULT_LLC, "llc"]
    found = next((shutil.which(c) for c in wanted if shutil.which(c)), None)
    if found is None:
        raise ToolchainError(f"no llc found ({' or '.join(wanted)})")
    bindir = Path(found).parent
    names = {"opt": "opt", "llvm_extract": "llvm-extract", "llvm_reduce": "llvm-reduce", "llvm_dis": "llvm-dis",
             "llvm_as": "llvm-as", "cxxfilt": "llvm-cxxfilt"}
    missing = [tool for tool in (*names.values(), "FileCheck") if not (bindir / tool).exists()]  # lit runs FileCheck
    if missing:
        raise ToolchainError(f"{', '.join(missing)} not found beside {found} (the llvm-22 and llvm-22-tools "
                             "packages have them)")
    res = run([found, "--version"], cwd=Path("/"), timeout=60)
    if res.returncode != 0 or "amdgcn" not in res.stdout:
        raise ToolchainError(f"{found} was built without the AMDGPU backend (no amdgcn target)")
    return LlvmTools(llc=os.path.abspath(found), **{k: str(bindir / v) for k, v in names.items()})


def read_module(data: bytes, tools: LlvmTools, timeout: float = 120) -> tuple[bytes, str]:
    """(bitcode, textual IR) of an input given as bitcode or as textual IR, or IrInputError.
    Only parsing is checked here: whether the IR is valid is llc's to say."""
    if data.startswith(BITCODE_MAGIC):
        dis = run([tools.llvm_dis, "-", "-o", "-"], cwd=Path("/"), timeout=timeout, stdin=data)
        if dis.returncode != 0:
            raise IrInputError("not-ir", f"not valid LLVM bitcode: {_first_error(dis.stderr)}")
        bitcode, text = data, dis.stdout
    else:
        asm, assembled = transform([tools.llvm_as, "--disable-verify"], data, timeout)
        if assembled is None:
            raise IrInputError("not-ir", f"neither LLVM bitcode nor textual LLVM IR: {_first_error(asm.stderr)}")
        bitcode, text = assembled, data.decode("utf-8", "replace")
    triple = _TRIPLE.search(text)
    if triple and not triple.group(1).startswith("amdgcn"):
        raise IrInputError("target", f"the module is for {triple.group(1)}, not for AMDGPU (amdgcn)")
    return bitcode, text


def transform(cmd: Sequence[str], data: bytes, timeout: float) -> tuple[Completed, bytes | None]:
    """Run an LLVM tool `cmd IN -o OUT` on `data`: (its run, OUT's bytes or None when it failed).
    Through files, since process.run reads output as text and bitcode is not."""
    with tempfile.TemporaryDirectory(prefix="reduce-ir-") as d:
        Path(d, "in").write_bytes(data)
        res = run([*cmd, "in", "-o", "out"], cwd=Path(d), timeout=timeout)
        out = Path(d, "out")
        return res, out.read_bytes() if res.returncode == 0 and out.exists() else None


def kernel_names(text: str) -> list[str]:
    """Names of the kernels a module's textual IR defines."""
    return [m.group(1).strip('"') for m in _KERNEL_DEFINE.finditer(text)]


# what the default predicate holds at the original's figure: the register budget, reached
BUDGET_METRICS = ("max_flat_workgroup_size", "vgpr_total", "vgpr", "occupancy")
ARCH_VGPR_CEILING = 256  # architectural VGPRs a lane may have on the targets with AGPRs (CDNA)


def default_predicate(min_spills: int, differential: bool, original: Metrics) -> str:
    """The kernel still spills (at least `min_spills` VGPRs, with spill code) and still has the
    original's MFMA count, and it spills for the same reason: against the same register budget,
    reached. That is the original's launch bound, its VGPR allocation (`.vgpr_count`, the
    unified file, at the ceiling when it spills), its architectural VGPRs (how the file is
    split between VGPRs and AGPRs) and its occupancy (waves per SIMD); a figure llc cannot
    resolve on the `original` (an indirect call) is left out. Without these, a module whose
    launch bound is gone spills at llc's default of 128 VGPRs, and one whose
    `amdgpu-agpr-alloc` is gone at 128 VGPRs and 128 AGPRs, and both passed. Where the ceiling
    reached is the architectural one (256 VGPRs beside AGPRs that leave the unified file short
    of full: ck_tile's GEMM without LTO, 256 + 240 of 512), the AGPRs' share is not part of the
    budget and the allocation is not held: at the same occupancy it stays above 256, and
    holding it would refuse nearly every deletion (it moves the AGPR count). For a
    differential, the alt side spills at most a quarter as much, as in the source oracle's
    default. When the original's kernel calls a function (the figures are its call graph's), a
    call stays, as the source oracle's default keeps full LTO's (issue 44): a module whose
    callee was folded into the kernel spills elsewhere, perhaps for another reason."""
    text = f"llc.vgpr_spills >= {min_spills} and llc.spill_ops > 0 and llc.mfma == orig.llc.mfma"
    arch_bound = original.get("vgpr") == ARCH_VGPR_CEILING and original.get("vgpr_total") != ARCH_VGPR_CEILING
    text += "".join(f" and llc.{m} == orig.llc.{m}" for m in BUDGET_METRICS
                    if original.get(m) is not None and not (m == "vgpr_total" and arch_bound))
    if original.get("calls"):
        text += " and llc.calls > 0"
    if differential:
        text += (" and alt.spill_ops * 4 <= llc.spill_ops and alt.vgpr_spills * 4 <= llc.vgpr_spills"
                 " and alt.mfma == llc.mfma")
    return text


@dataclass(frozen=True)
class LlcRun:
    side: str
    seconds: float
    metrics: dict[str, Metrics] | None = None  # kernels of the asm, None on failure
    asm: str = ""
    failure: str | None = None  # "error" (verdict), "timeout" (verdict), "infra" (retry)
    message: str = ""

    @property
    def kernels(self) -> dict[str, Metrics]:
        """The kernels' metrics of a run that did not fail."""
        assert self.metrics is not None, f"llc failed: {self.failure}"
        return self.metrics


@dataclass(frozen=True)
class IrOracle(NoConfirmation):
    """Implements `interestingness.base.verdict.Oracle` on module bytes. `resolve(original)` picks the
    target kernel, and takes the original's figures the predicate reads (`orig.llc.METRIC`) and
    its budget attributes, before any `test`."""

    tools: LlvmTools
    predicate: str | None = None  # None: default_predicate, made concrete by resolve
    kernel: str | None = None  # what the user asked for: mangled or part of the demangled name
    flags: tuple[str, ...] = ()  # extra llc flags
    alt_flags: tuple[str, ...] | None = None  # the other side of a differential
    cpu: str = DEFAULT_CPU
    triple: str = DEFAULT_TRIPLE
    min_spills: int = 1
    timeout: float = 300.0
    # guards (as the source oracle's): no more undef/poison operands of loads, stores and MFMAs than
    # the original (the IR has no -ftrivial-auto-var-init), and spill code that stays in a loop;
    # the budget guard: the target's register-budget attributes stay the original's (ir_budget.py)
    undef_guard: bool = True
    loop_guard: bool = True
    budget_guard: bool = True
    target: str | None = None  # mangled, set by resolve
    original: dict[str, Metrics | None] | None = None  # set by resolve: the target's figures per side
    budget: Budget | None = None  # set by resolve, with budget_guard: the original's budget attributes
    undef_limit: int | None = None  # set by resolve, with undef_guard
    needs_loop: bool = False  # set by resolve: the original spills inside a loop
    ignores_layout = False  # candidates are bitcode
    tree = None  # one module

    def __post_init__(self):
        if self.predicate:
            names = Predicate(self.predicate, SIDES).names  # PredicateError when not in the language
            if self.alt_flags is None and any(n.startswith(f"{ALT}.") for n in names):
                raise PredicateError(f"the predicate reads {ALT}.* metrics but no alt llc flags are given")

    @property
    def differential(self) -> bool:
        return self.alt_flags is not None

    def command(self, side: str) -> list[str]:
        """llc reading the module on stdin and writing assembly to stdout."""
        flags = self.flags if side == LLC else self.alt_flags or ()
        level = [] if any(_OPT_LEVEL.match(f) for f in flags) else ["-O3"]
        return [self.tools.llc, f"-mtriple={self.triple}", f"-mcpu={self.cpu}", *level, *flags, "-o", "-", "-"]

    def identity(self) -> dict[str, Any]:
        return {
            "oracle": IDENTITY_VERSION,
            "llc": self.tools.identity(),
            "commands": {side: self.command(side) for side in self.sides()},
            "predicate": Predicate(self.predicate, SIDES).canonical if self.predicate else None,
            "original": self.bound_predicate().original if self.predicate else None,
            "target": self.target,
            "budget": self.budget,
            "undef_limit": self.undef_limit,
            "needs_loop": self.needs_loop,
            "env": compiler_env(os.environ),
            "timeout": self.timeout,
        }

    def sides(self) -> tuple[str, ...]:
        return SIDES if self.differential else (LLC,)

    def bound_predicate(self) -> Predicate:
        """The predicate reading the original's figures for its orig.* names."""
        assert self.predicate is not None, "resolve() gives the predicate"
        return Predicate(self.predicate, SIDES).bind(self.original)

    def llc(self, side: str, content: bytes) -> LlcRun:
        try:
            res = run(self.command(side), cwd=Path("/"), timeout=self.timeout, stdin=content, fork_server=True)
        except OSError as e:
            return LlcRun(side, 0.0, failure="infra", message=str(e))
        if res.timed_out:
            return LlcRun(side, res.seconds, failure="timeout", message=f"timeout after {self.timeout:g}s")
        if res.killed_by_signal in _INFRA_SIGNALS or INFRA_STDERR.search(res.stderr):
            return LlcRun(side, res.seconds, failure="infra", message=_first_error(res.stderr) or "killed")
        if res.returncode != 0:
            crash = f"crashed (signal {res.killed_by_signal}): " if res.killed_by_signal else ""
            return LlcRun(side, res.seconds, failure="error", message=crash + _first_error(res.stderr))
        return LlcRun(side, res.seconds, analyse([res.stdout]), res.stdout)

    def resolve(self, original: bytes) -> IrOracle:
        """A copy with its target kernel (and, for the default predicate, the kernel's MFMA count)
        taken from the original; IrInputError when llc rejects it or nothing is interesting."""
        runs = {side: self.llc(side, original) for side in self.sides()}
        for side, r in runs.items():
            if r.failure:
                raise IrInputError("llc", f"llc rejects the module ({side} side, {r.failure}): {r.message}")
        kernels = list(runs[LLC].kernels)
        if not kernels:
            raise IrInputError("not-interesting", "llc's output has no kernel (no amdgpu_kernel function)")
        if self.kernel:
            plain = demangle(kernels, self.tools)
            chosen = [k for k in kernels if k == self.kernel or self.kernel in plain[k]]
            if len(chosen) != 1:
                what = "no kernel" if not chosen else f"{len(chosen)} kernels ({', '.join(chosen)})"
                raise IrInputError("not-interesting", f"{what} match {self.kernel!r}; kernels: {', '.join(kernels)}")
            kernels = chosen
        holds: list[tuple[int, int, str, str]] = []
        why: list[str] = []
        for k in kernels:
            first = runs[LLC].kernels[k]
            tables = [first, runs[ALT].kernels.get(k) if ALT in runs else None]
            wanted = self.predicate or default_predicate(self.min_spills, self.differential, first)
            predicate = Predicate(wanted, SIDES).bind(dict(zip(SIDES, tables)))  # this kernel as the original
            if tables[1] is None and self.differential:
                why.append(f"kernel {k} missing ({ALT})")
            elif predicate.evaluate(*tables) is True:
                holds.append((first["spill_ops"] or 0, -len(holds), k, predicate.source))
            else:
                why.append(f"{k}: {predicate.explain(*tables)}")
        if not holds:
            raise IrInputError("not-interesting", "the predicate holds for no kernel (does it spill?): "
                               + "; ".join(why))
        _, _, target, source = max(holds)  # the kernel with the most spill code
        text = self._text(original)
        limit = undef_operands(text) if self.undef_guard else None
        loops = self.loop_guard and bool(runs[LLC].kernels[target].get("loop_spill_ops"))
        budget = (budget_attributes(text, target) or {}) if self.budget_guard else None
        return replace(self, target=target, predicate=source, undef_limit=limit, needs_loop=loops,
                       original={side: runs[side].kernels.get(target) for side in runs}, budget=budget)

    def _text(self, module: bytes) -> str:
        res = run([self.tools.llvm_dis, "-", "-o", "-"], cwd=Path("/"), timeout=self.timeout, stdin=module)
        return res.stdout if res.returncode == 0 else module.decode("utf-8", "replace")

    def test(self, content: bytes) -> Verdict:
        if self.target is None or self.predicate is None:
            raise RuntimeError("IrOracle.test before resolve(original)")
        start = time.monotonic()
        predicate = self.bound_predicate()
        details: dict[str, Any] = {"llc": {}}
        tables: dict[str, Metrics | None] = dict.fromkeys(SIDES)

        def verdict(interesting: bool, reason: str = "", infra: bool = False) -> Verdict:
            return Verdict(interesting, reason, infra, time.monotonic() - start, details)

        text = None
        if self.budget is not None:  # a check of the module's attributes: decided without llc
            if content.startswith(BITCODE_MAGIC):
                dis = run([self.tools.llvm_dis, "-", "-o", "-"], cwd=Path("/"), timeout=self.timeout, stdin=content)
                if dis.timed_out or dis.killed_by_signal in _INFRA_SIGNALS or INFRA_STDERR.search(dis.stderr):
                    return verdict(False, f"infrastructure failure (llvm-dis): {_first_error(dis.stderr)}", infra=True)
                if dis.returncode != 0:
                    return verdict(False, f"llvm-dis rejects the module: {_first_error(dis.stderr)}")
                text = dis.stdout
            else:  # textual IR, which llc reads too
                text = content.decode("utf-8", "replace")
            if changed := differences(self.budget, budget_attributes(text, self.target)):
                return verdict(False, f"budget guard: {self.target}'s register budget is not the original's ("
                                      + "; ".join(changed) + ")")
        for side in self.sides():
            if side == ALT and predicate.evaluate(tables[LLC], None) is not None:
                details["llc"][ALT] = {"skipped": True}
                break
            r = self.llc(side, content)
            details["llc"][side] = {"seconds": round(r.seconds, 3), "ok": r.failure is None}
            if r.failure:
                what = {"timeout": "timeout", "infra": "infrastructure failure"}.get(r.failure, "llc error")
                return verdict(False, f"{what} ({side}): {r.message}", infra=r.failure == "infra")
            table = tables[side] = details["llc"][side]["metrics"] = r.kernels.get(self.target)
            if table is None:
                return verdict(False, f"kernel {self.target} missing ({side})")
            if side == LLC and self.needs_loop and not table.get("loop_spill_ops"):
                return verdict(False, f"loop guard: {self.target} has no spill code in a loop "
                                      "(the original spills inside one)")
        if predicate.evaluate(tables[LLC], tables[ALT]) is True:
            if self.undef_limit is not None and (n := undef_operands(text or self._text(content))) > self.undef_limit:
                return verdict(False, f"undef guard: {n} loads, stores or MFMAs take an undef or poison operand "
                                      f"(the original has {self.undef_limit})")
            return verdict(True)
        return verdict(False, f"predicate false for {self.target}: {predicate.explain(tables[LLC], tables[ALT])}")


_UNDEF_USE = re.compile(r"^\s*(?:%\S+ = )?(?:load|store|(?:tail )?call .*@llvm\.amdgcn\.mfma)\b.*\b(?:undef|poison)\b",
                        re.M)


def undef_operands(text: str) -> int:
    """Loads, stores and MFMA calls with an undef or poison operand in a module's textual IR:
    what a reduction leaves where a value was deleted, and what the optimiser may fold away."""
    return len(_UNDEF_USE.findall(text))


def _first_error(stderr: str, n: int = 3) -> str:
    lines = [ln.strip() for ln in stderr.strip().splitlines() if ln.strip()]
    errors = [ln for ln in lines if "error" in ln.lower()] or lines
    return " | ".join(errors[:n])
