"""Build one side (full offload LTO, or none) of a candidate to AMDGPU assembly.

Device code only, default offload driver, one fresh temp dir per compile so concurrent tests
never share files. Output-shaping flags from the user are dropped: we decide what is emitted,
and some (`-save-temps`) would silently change the LTO figures.
"""
from __future__ import annotations

import errno
import logging
import os
import re
import shlex
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from interestingness import prefix_pch
from interestingness.bundle import Tree, materialise
from interestingness.diagnostics import first_error
from interestingness.hip_headers import HipHeaders, resolve
from interestingness.path_flags import INCLUDE_DIRS, path_flag, path_flags
from interestingness.process import run, test_dir
from interestingness.toolchain import Toolchain

log = logging.getLogger(__name__)

LTO, NOLTO = "lto", "nolto"
SIDES = (LTO, NOLTO)
ASM_OUT, OBJ_OUT, IR_OUT = "out.s", "out.o", "out.ll"
TREE_DIR = "src"  # a file set's copy, below the compile's directory (paths relative to it in commands)

# Dropped from user flags, with a warning. -save-temps in an LTO build adds -disable-llvm-passes
# to the device pre-link compile (wrong figures); --offload-new-driver runs device LTO even under
# -fno-offload-lto; the rest would change what is emitted or which side is built.
_DROP = {"-c", "-S", "-E", "-###", "-fsyntax-only", "-emit-llvm", "--offload-new-driver",
         "--offload-device-only", "--offload-host-only", "--cuda-device-only", "--cuda-host-only",
         "--no-gpu-bundle-output", "--gpu-bundle-output", "-foffload-lto", "-fno-offload-lto"}
_DROP_PREFIX = "-foffload-lto="
# Options whose path is made absolute: joined (-Idir, --sysroot=dir) or separate (-I dir, --sysroot dir).
_PATH_JOINED = (*INCLUDE_DIRS, "--sysroot=", "--include-directory=", "-resource-dir=")
_PATH_SEPARATE = (*INCLUDE_DIRS, "-include", "-imacros", "-isysroot", "--sysroot", "-resource-dir",
                  "--include-directory")
_OPT_LEVEL = re.compile(r"^-O(\d|s|z|g|fast)?$")
_ARCH = ("--offload-arch", "--cuda-gpu-arch")
# Variables the driver, cc1 or lld read (include paths, option overrides, ROCm/HIP lookup).
_ENV_PREFIXES = ("CLANG", "LLVM", "HIP", "ROCM", "AMD", "CCC_")
_ENV_NAMES = {"CPATH", "CPLUS_INCLUDE_PATH", "C_INCLUDE_PATH", "COMPILER_PATH", "LIBRARY_PATH"}
# Tool died for reasons outside the candidate (the driver reports a killed child this way).
# Front-end warnings of a use of an uninitialized variable (-Wuninitialized and its subgroups):
# reductions create such uses, and a test case with undefined behaviour is no bug report.
UNINITIALIZED = re.compile(r"warning: .*\[-W[\w-]*uninitialized[\w-]*\]")
INFRA_STDERR = re.compile(r"unable to execute command: Killed|out of memory|Cannot allocate memory"
                           r"|std::bad_alloc|No space left on device|Disk quota exceeded")


def compiler_env(environ: Mapping[str, str]) -> dict[str, str]:
    """The part of an environment that can change what the compiler produces."""
    return {k: v for k, v in sorted(environ.items())
            if k.startswith(_ENV_PREFIXES) or k in _ENV_NAMES}


def prepare_flags(user_flags: Sequence[str], cwd: Path) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(flags to use, flags dropped). Relative include-ish paths become absolute against `cwd`,
    since compiles run in a temp dir; gfx950 and -O3 are added only when the user chose none."""
    out: list[str] = []
    dropped: list[str] = []
    args = list(user_flags)
    i = 0
    while i < len(args):
        a = args[i]
        if a in _DROP or a.startswith(_DROP_PREFIX) or "save-temps" in a:  # any form, -Wl,... too
            dropped.append(a)
        elif a.startswith("-X") and i + 1 < len(args) and "save-temps" in args[i + 1]:
            dropped.extend(args[i:i + 2])  # -Xarch_device -save-temps, -Xoffload-linker -save-temps
            i += 1
        elif a == "-o":
            dropped.extend(args[i:i + 2])
            i += 1
        elif a.startswith("-o") and not a.startswith(("-offload", "-objc")):
            dropped.append(a)
        elif (path := path_flag(args, i, _PATH_JOINED, _PATH_SEPARATE)) and path.value is not None:
            out += path.spelled(_absolute(path.value, cwd))
            i += len(path.tokens) - 1
        else:
            out.append(a)
        i += 1
    if not any(a.startswith(_ARCH) for a in out):
        out.insert(0, "--offload-arch=gfx950")
    if not any(_OPT_LEVEL.match(a) for a in out):
        out.insert(1, "-O3")
    for d in dropped:
        log.warning("ignoring user flag %r: the oracle decides what is emitted and how", d)
    return tuple(out), tuple(dropped)


def user_dirs(flags: Sequence[str]) -> list[str]:
    """The -I and -isystem directories of prepared flags (absolute already), in order."""
    return [f.value for f in path_flags(flags, ("-I", "-isystem")) if f.value]


def _absolute(p: str, cwd: Path) -> str:
    if p.startswith("=") or os.path.isabs(p):  # "=dir" is sysroot-relative
        return p
    return os.path.normpath(os.path.join(cwd, p))


@dataclass(frozen=True)
class Compiled:
    """One side's outcome: assembly texts (one per LTO partition) or a failure."""

    side: str
    command: tuple[str, ...]
    seconds: float
    asm: tuple[str, ...] = ()  # with emit="ir": the IR, one text
    failure: str | None = None  # "error" (verdict), "timeout" (verdict), "infra" (retry)
    message: str = ""
    artifacts: str | None = None  # temp dir kept for inspection
    uninitialized: int = 0  # front-end warnings of uninitialized uses (UNINITIALIZED)
    stderr: str = ""  # the compiler's stderr, kept only when asked (compile's keep_stderr)

    @property
    def ok(self) -> bool:
        return self.failure is None


@dataclass(frozen=True)
class Compiler:
    toolchain: Toolchain
    flags: tuple[str, ...]  # from prepare_flags
    file_name: str  # candidate is written under the original's name (diagnostics, __FILE__)
    source_dir: str  # original's directory: quoted includes next to it must still resolve
    timeout: float
    tmp_parent: str | None = None
    keep_artifacts: bool = False
    # candidates are file sets (bundles): each compile materialises one under TREE_DIR; file_name
    # is then the main file's path there and the flags point to the copies (SpillOracle does both)
    tree: Tree | None = None
    env: tuple[tuple[str, str], ...] = field(default_factory=lambda: tuple(compiler_env(os.environ).items()))
    hip: HipHeaders | None = None  # where the HIP headers come from; None: resolved from the flags (`auto`)
    # read `#include <hip/hip_runtime.h>` from a PCH where it leads the candidate (prefix_pch); the
    # oracle sets it once the original builds the same code with it
    pch: bool = False

    def __post_init__(self) -> None:
        if self.hip is None:
            object.__setattr__(self, "hip", resolve(self.toolchain, self.flags))

    def command(self, side: str, emit: str = "asm", extra: Sequence[str] = ()) -> list[str]:
        """The exact clang command for one side; `emit` is "asm" (what the oracle reads), "obj",
        "precodegen" (LTO only: the asm plus the linker's save-temps, among them the IR that
        goes into codegen, out.s.0.5.precodegen.bc; the driver's -save-temps would change the build),
        or "ir" (no-LTO only: the optimised IR, no codegen; the UB guard's sanitized build)."""
        if emit == "obj":
            output = ["-c", "-o", OBJ_OUT]
        elif emit == "precodegen" and side == LTO:
            output = ["-c", "-Xoffload-linker", "--lto-emit-asm", "-Xoffload-linker", "--save-temps", "-o", ASM_OUT]
        elif emit == "ir" and side == LTO:
            raise ValueError("optimised IR is the no-LTO side's (the LTO side's comes out of the link)")
        elif side == LTO:  # the asm comes out of the device link step: out.s.lto[.N].s
            output = ["-c", "-Xoffload-linker", "--lto-emit-asm", "-o", ASM_OUT]
        elif emit == "precodegen":
            raise ValueError("precodegen bitcode exists on the LTO side only")
        elif emit == "ir":
            output = ["-S", "-emit-llvm", "-o", IR_OUT]
        else:
            output = ["-S", "-o", ASM_OUT]
        return [*self._device_compile(side), *extra, *output, _operand(self.file_name)]

    def _device_compile(self, side: str) -> list[str]:
        if side == LTO:
            mode = [] if self.toolchain.affected else ["-foffload-lto=full"]
        elif side == NOLTO:
            mode = ["-fno-offload-lto"]
        else:
            raise ValueError(f"unknown side {side!r}")
        return [self.toolchain.clang, "-x", "hip", *self.hip.before, f"-iquote{self.source_dir}",
                "-fno-crash-diagnostics", "-Wuninitialized", *self.flags, *self.hip.after, *mode,
                "--offload-device-only", "--no-gpu-bundle-output"]

    def by_hand(self, side: str, source: str | os.PathLike) -> str:
        """A shell line that runs one side's compile on `source` the way the oracle does (for a
        file set, in a directory holding its copy under TREE_DIR)."""
        if self.tree is not None:
            return f"(in a directory holding the file set under {TREE_DIR}/) {shlex.join(self.command(side))}"
        return f'cd "$(mktemp -d)" && {shlex.join([*self.command(side)[:-1], os.path.abspath(source)])}'

    def compile(self, side: str, content: bytes, emit: str = "asm", extra: Sequence[str] = (),
                keep_stderr: bool = False, passes: Sequence[str] = ()) -> Compiled:
        """One side's build of `content`; `extra` flags go after every other flag but the output's.
        `passes`: flags that steer only the optimisation pipeline (`-mllvm` options of cc1 or of the
        LTO link, for `reduce explain`), after `extra`; unlike `extra` they leave the PCH's command
        alone, since they cannot change how a header parses. `keep_stderr` keeps the compiler's
        stderr in the result (opt-bisect's log, IR dumps)."""
        env = {k: v for k, v in os.environ.items() if k not in compiler_env(os.environ)} | dict(self.env)
        pch = self._pch(side, extra, content, env)
        cmd = self.command(side, emit, [*extra, *passes, *pch])
        try:
            work = test_dir(f"reduce-{side}-", self.tmp_parent)
        except OSError as e:
            return Compiled(side, tuple(cmd), 0.0, failure="infra", message=f"temp dir: {e}")
        try:
            self._write(work, content)
            # the compiler's own temp files go into the test's directory and are removed with it
            res = run(cmd, cwd=work, timeout=self.timeout, env=env | {"TMPDIR": str(work)})
            kept = str(work) if self.keep_artifacts else None
            if res.timed_out:
                return Compiled(side, tuple(cmd), res.seconds, failure="timeout",
                                message=f"timeout after {self.timeout:g}s", artifacts=kept)
            # clang names our PCH when it cannot use it (gone, or its header changed since): not the candidate's fault
            if pch and res.returncode != 0 and pch[-1] in res.stderr:
                prefix_pch.forget(pch[-1])
                return Compiled(side, tuple(cmd), res.seconds, failure="infra", message=_first_lines(res.stderr))
            if res.killed_by_signal or INFRA_STDERR.search(res.stderr):
                why = f"signal {res.killed_by_signal}" if res.killed_by_signal else _first_lines(res.stderr)
                return Compiled(side, tuple(cmd), res.seconds, failure="infra", message=why, artifacts=kept)
            if res.returncode != 0:
                return Compiled(side, tuple(cmd), res.seconds, failure="error",
                                message=first_error(res.stderr), artifacts=kept,
                                stderr=res.stderr if keep_stderr else "")
            files = ([work / IR_OUT] if (work / IR_OUT).exists() else []) if emit == "ir" else _asm_files(work, side)
            if not files:
                return Compiled(side, tuple(cmd), res.seconds, failure="error",
                                message=f"no output produced (looked for {IR_OUT if emit == 'ir' else ASM_OUT + '*'})",
                                artifacts=kept)
            asm = tuple(f.read_text(errors="replace") for f in files)
            return Compiled(side, tuple(cmd), res.seconds, asm=asm, artifacts=kept,
                            uninitialized=len(UNINITIALIZED.findall(res.stderr)),
                            stderr=res.stderr if keep_stderr else "")
        except OSError as e:
            if e.errno in (errno.ENOSPC, errno.EDQUOT, errno.ENOMEM, errno.EMFILE):
                return Compiled(side, tuple(cmd), 0.0, failure="infra", message=str(e))
            raise
        finally:
            if not self.keep_artifacts:
                shutil.rmtree(work, ignore_errors=True)

    def _pch(self, side: str, extra: Sequence[str], content: bytes, env: dict[str, str]) -> list[str]:
        """The flags that read the HIP runtime header from a PCH, when it leads `content`."""
        if not self.pch or self.tree is not None or not prefix_pch.applies(content):
            return []
        return prefix_pch.flags([*self._device_compile(side), *extra], env, self.tmp_parent)

    def uninitialized(self, content: bytes) -> int:
        """Front-end warnings of uninitialized uses in `content` (a syntax-only compile)."""
        return len(UNINITIALIZED.findall(self._front_end(content, "-fsyntax-only")))

    def headers(self, content: bytes) -> list[str]:
        """Every header the device compile of `content` reads (`-E -H`), for cache keys: a changed
        header must change the key of a candidate that still includes it."""
        stderr = self._front_end(content, "-E", "-H", "-o", os.devnull)
        found = {line.lstrip(".").strip() for line in stderr.splitlines() if _HEADER_LINE.match(line)}
        # a file set's own headers are read from its copy by relative paths: they are in the candidate
        return sorted(h for h in found if self.tree is None or os.path.isabs(h))

    def diagnostics(self, content: bytes) -> str | None:
        """Every error of a syntax-only device front-end run on `content` (no warnings, no source
        snippets, no error limit), or None when the run failed for reasons outside the content (a
        signal, a timeout, out of memory). reducer/values.py reads constant values from them."""
        res = self._front_end_run(content, "-fsyntax-only", "-ferror-limit=0", "-Wno-fatal-errors", "-w",
                                   "-fno-caret-diagnostics", "-fno-color-diagnostics", "-fdiagnostics-format=clang")
        if res.timed_out or res.killed_by_signal or INFRA_STDERR.search(res.stderr):
            return None
        return res.stderr

    def _front_end(self, content: bytes, *args: str) -> str:
        """stderr of the device front end run with `args` on `content`, in a temp dir of its own."""
        return self._front_end_run(content, *args).stderr

    def _front_end_run(self, content: bytes, *args: str):
        cmd = [*self._device_compile(NOLTO), *args, _operand(self.file_name)]
        with tempfile.TemporaryDirectory(prefix="reduce-fe-", dir=self.tmp_parent) as d:
            self._write(Path(d), content)
            return run(cmd, cwd=Path(d), timeout=self.timeout,
                       env=dict(self.env) | {"PATH": os.environ.get("PATH", "")})

    def _write(self, work: Path, content: bytes) -> None:
        if self.tree is None:
            (work / self.file_name).write_bytes(content)
        else:
            materialise(work / TREE_DIR, content)


_HEADER_LINE = re.compile(r"^\.+ ")


def _operand(file_name: str) -> str:
    """A file name clang cannot take for an option (`-x.hip` is one)."""
    return f"./{file_name}" if file_name.startswith("-") else file_name


def _asm_files(work: Path, side: str) -> list[Path]:
    """No-LTO: out.s. LTO: lld writes one file per partition, out.s.lto.s, out.s.lto.1.s, ..."""
    if side == NOLTO:
        return [work / ASM_OUT] if (work / ASM_OUT).exists() else []
    return sorted(work.glob(f"{ASM_OUT}.lto*.s"))


def _first_lines(text: str, n: int = 8) -> str:
    return "\n".join(text.strip().splitlines()[:n])
