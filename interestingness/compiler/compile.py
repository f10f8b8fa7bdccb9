"""Build one side (full offload LTO, or none) of a candidate to AMDGPU assembly.

Device code only, default offload driver, one fresh temp dir per compile so concurrent tests
never share files. Output-shaping flags from the user are dropped: we decide what is emitted,
and some (`-save-temps`) would silently change the LTO figures.

Two ways to build (`Build`): through the driver, one compile per side, each with its own front
end; or with one shared front end (`Compiler.shared_front_end`): the device cc1 of the LTO side
stops at the bitcode IRGen made (`-disable-llvm-passes`, use-list order kept), and both sides'
pipelines run from it, with the cc1 and lld commands the driver itself would run (`-###`). The
oracle uses the second only once the original builds the same code and figures both ways; so does
`reduce explain`, whose LTO links with options of their own also share one pre-link compile
(`Compiler.pre_link`).
"""
from __future__ import annotations

import errno
import functools
import json
import logging
import os
import re
import shlex
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from dataclasses import replace as dataclasses_replace
from pathlib import Path
from typing import Any, TypeVar

from interestingness.base.bundle import TREE_DIR, Tree, materialise
from interestingness.base.path_flags import INCLUDE_DIRS, path_flag, path_flags
from interestingness.base.plugins import PluginMissing
from interestingness.base.process import run, test_dir
from interestingness.compiler import prefix_pch
from interestingness.compiler.diagnostics import first_error
from interestingness.compiler.hip_headers import HipHeaders, resolve
from interestingness.compiler.ir_memo import IrMemo
from interestingness.compiler.sides import DEFAULT_SIDES, Side
from interestingness.compiler.toolchain import Toolchain
from interestingness.compiler.variants import plugin as variants_plugin
from interestingness.measure.metrics import Summary, summarise

log = logging.getLogger(__name__)
T = TypeVar("T")

LTO, NOLTO = "lto", "nolto"
SIDES = (LTO, NOLTO)
ASM_OUT, OBJ_OUT, IR_OUT = "out.s", "out.o", "out.ll"

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
    # with the shared front end: the commands run from its bitcode (`command` is the driver's
    # build they stand for), and whether the IR memo answered ("hit": no backend ran) or not ("miss")
    pipeline: tuple[tuple[str, ...], ...] = ()
    memo: str | None = None
    analysed: Summary | None = None  # the summary, when it came from the IR memo (then no `asm`)

    @property
    def ok(self) -> bool:
        return self.failure is None

    @functools.cached_property
    def summary(self) -> Summary:
        """Every kernel's figures and code digest (metrics.summarise of `asm`)."""
        return self.analysed if self.analysed is not None else summarise(self.asm)


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
    # one device front end per candidate, both sides' pipelines from its bitcode (`Build`); the
    # oracle sets it once the original builds the same code and figures with it
    shared_front_end: bool = False
    # the confirmation's builds (sanitizer checks, -ftrivial-auto-var-init modes) from one parse
    # (`front_end_variants`); the oracle sets it once the original's come out the same so
    variants: bool = False
    # the two builds compared (interestingness/compiler/sides.py); a side is asked for by its name
    sides: tuple[Side, Side] = DEFAULT_SIDES

    def __post_init__(self) -> None:
        if self.hip is None:
            object.__setattr__(self, "hip", resolve(self.toolchain, self.flags))

    @property
    def side_names(self) -> tuple[str, str]:
        return self.sides[0].name, self.sides[1].name

    def side(self, name: str) -> Side:
        """The side of that name; `lto` and `nolto` also name the plain modes when no side is
        called so (the UB guard's sanitized build and the syntax-only runs are no-LTO builds)."""
        found = [s for s in (*self.sides, *DEFAULT_SIDES) if s.name == name]
        if not found:
            raise ValueError(f"unknown side {name!r}")
        return found[0]

    @property
    def hip_headers(self) -> HipHeaders:
        """`hip`, which construction resolves when it is not given."""
        assert self.hip is not None
        return self.hip

    def command(self, side: str, emit: str = "asm", extra: Sequence[str] = ()) -> list[str]:
        """The exact clang command for one side; `emit` is "asm" (what the oracle reads), "obj",
        "precodegen" (LTO only: the asm plus the linker's save-temps, among them the IR that
        goes into codegen, out.s.0.5.precodegen.bc; the driver's -save-temps would change the build),
        or "ir" (no-LTO only: the optimised IR, no codegen; the UB guard's sanitized build)."""
        lto = self.side(side).lto
        if emit == "obj":
            output = ["-c", "-o", OBJ_OUT]
        elif emit == "precodegen" and lto:
            output = ["-c", "-Xoffload-linker", "--lto-emit-asm", "-Xoffload-linker", "--save-temps", "-o", ASM_OUT]
        elif emit == "ir" and lto:
            raise ValueError("optimised IR is the no-LTO side's (the LTO side's comes out of the link)")
        elif lto:  # the asm comes out of the device link step: out.s.lto[.N].s
            output = ["-c", "-Xoffload-linker", "--lto-emit-asm", "-o", ASM_OUT]
        elif emit == "precodegen":
            raise ValueError("precodegen bitcode exists on the LTO side only")
        elif emit == "ir":
            output = ["-S", "-emit-llvm", "-o", IR_OUT]
        else:
            output = ["-S", "-o", ASM_OUT]
        return [*self._device_compile(side), *extra, *output, _operand(self.file_name)]

    def _device_compile(self, side: str) -> list[str]:
        s = self.side(side)
        if s.lto:  # a toolchain that does full offload LTO by default needs no flag; another clang may
            mode = [] if self.toolchain.affected and s.clang is None else ["-foffload-lto=full"]
        else:
            mode = ["-fno-offload-lto"]
        return [s.clang or self.toolchain.clang, "-x", "hip", *self.hip_headers.before, f"-iquote{self.source_dir}",
                "-fno-crash-diagnostics", "-Wuninitialized", *self.flags, *self.hip_headers.after, *mode, *s.flags,
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
        env = self._env()
        pch = self._pch(side, extra, content, env)
        cmd = self.command(side, emit, [*extra, *passes, *pch])
        try:
            work = test_dir(f"reduce-{side}-", self.tmp_parent)
        except OSError as e:
            return Compiled(side, tuple(cmd), 0.0, failure="infra", message=f"temp dir: {e}")
        try:
            self._write(work, content)
            # the compiler's own temp files go into the test's directory and are removed with it
            res = run(cmd, cwd=work, timeout=self.timeout, env=env | {"TMPDIR": str(work)}, fork_server=True)
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
            files = ([work / IR_OUT] if (work / IR_OUT).exists() else []) if emit == "ir" else \
                _asm_files(work, self.side(side).lto)
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

    def build(self, content: bytes, extra: Sequence[str] = (), memo: IrMemo | None = None,
              front_end: FrontEnd | None = None) -> Build:
        """The builds of `content` with `extra` flags, each side on first ask (`Build.side`);
        from `front_end`'s bitcode when given (a variant of `front_end_variants`)."""
        return Build(self, content, tuple(extra), memo, front_end)

    def _env(self) -> dict[str, str]:
        return {k: v for k, v in os.environ.items() if k not in compiler_env(os.environ)} | dict(self.env)

    def front_end(self, content: bytes, extra: Sequence[str] = ()) -> FrontEnd:
        """The shared front end's run on `content`: the LTO side's device cc1, stopped at IRGen's
        bitcode. Its diagnostics are the candidate's (errors, -Wuninitialized warnings)."""
        env = self._env()
        pch = self._pch(LTO, extra, content, env)
        start = time.monotonic()
        try:
            cmd = self.shared_commands(extra, pch).front_end
        except SharedFrontEndError as e:
            return FrontEnd(b"", time.monotonic() - start, (), failure="infra", message=str(e))
        return self._run_cc1(cmd, content, pch, env, "reduce-fe-", lambda work, res, kept: FrontEnd(
            (work / FE_OUT).read_bytes(), res.seconds, cmd, uninitialized=len(UNINITIALIZED.findall(res.stderr)),
            artifacts=kept))

    def front_end_variants(self, content: bytes, settings: Mapping[str, str]) -> dict[str, FrontEnd]:
        """The shared front end's bitcode of `content` for each of `settings` ({name: the
        variants plugin's setting, `init=zero`, `sanitize=CHECK,...`}), from one parse: the
        run's own output is syntax-only, each variant is IRGen again after Sema
        (tools/variants). A failure is every name's."""
        env = self._env()
        pch = self._pch(LTO, (), content, env)
        start = time.monotonic()
        try:
            cmd = list(self.shared_commands((), pch).front_end)
            plugin = variants_plugin()
        except (SharedFrontEndError, PluginMissing) as e:
            return dict.fromkeys(settings, FrontEnd(b"", time.monotonic() - start, (), failure="infra", message=str(e)))
        i = cmd.index("-o")
        cmd[i:i + 2] = ["-load", str(plugin), "-add-plugin", "variants",
                        *(a for name, s in settings.items() for a in ("-plugin-arg-variants", f"{WORK}/{name}.bc={s}"))]
        cmd[cmd.index("-emit-llvm-bc")] = "-fsyntax-only"
        out = self._run_cc1(tuple(cmd), content, pch, env, "reduce-variants-", lambda work, res, kept: {
            name: FrontEnd((work / f"{name}.bc").read_bytes(), res.seconds if k == 0 else 0.0, tuple(cmd),
                           uninitialized=len(UNINITIALIZED.findall(res.stderr)))
            for k, name in enumerate(settings)})
        return dict.fromkeys(settings, out) if isinstance(out, FrontEnd) else out

    def pre_link(self, front_end: FrontEnd, extra: Sequence[str] = ()) -> FrontEnd:
        """The LTO side's pre-link bitcode (PRE_OUT) made from the front end's with `extra`: made
        once, it serves every LTO link whose options leave that compile as it was (`backend`'s
        `pre_link`: `reduce explain`'s link stage). Its seconds count the front end's too: a link
        from it has what the whole build would have left of the timeout."""
        try:
            cmd = self.shared_commands(extra).pipelines[LTO][0]
        except SharedFrontEndError as e:
            return FrontEnd(b"", 0.0, (), failure="infra", message=str(e))
        return self._run_cc1(cmd, front_end.bitcode, (), self._env(), "reduce-pre-", lambda work, res, kept: FrontEnd(
            (work / PRE_OUT).read_bytes(), front_end.seconds + res.seconds, cmd, uninitialized=front_end.uninitialized,
            artifacts=kept), bitcode=True)

    def _run_cc1(self, cmd: tuple[str, ...], content: bytes, pch: Sequence[str], env: dict[str, str],
                 prefix: str, read: Callable[[Path, Any, str | None], T], bitcode: bool = False) -> T | FrontEnd:
        """Run a device cc1 `cmd` on `content` (the source, or with `bitcode` the front end's
        bitcode, FE_OUT) in a test directory of its own; `read(work, result, artifacts)` gives what
        a run that succeeded made, a failure is a FrontEnd that says which (our PCH that clang
        could not use is forgotten: infra, not the candidate's fault)."""
        try:
            work = test_dir(prefix, self.tmp_parent)
        except OSError as e:
            return FrontEnd(b"", 0.0, cmd, failure="infra", message=f"temp dir: {e}")
        try:
            if bitcode:
                (work / FE_OUT).write_bytes(content)
            else:
                self._write(work, content)
            res = run(_in(cmd, work), cwd=work, timeout=self.timeout, env=env | {"TMPDIR": str(work)}, fork_server=True)
            kept = str(work) if self.keep_artifacts else None
            failed = _failure(res, self.timeout, pch[-1] if pch else None)
            if failed is not None:
                if failed[0] == "infra" and pch and pch[-1] in res.stderr:
                    prefix_pch.forget(pch[-1])
                return FrontEnd(b"", res.seconds, cmd, failure=failed[0], message=failed[1], artifacts=kept)
            return read(work, res, kept)
        except OSError as e:
            if e.errno in (errno.ENOSPC, errno.EDQUOT, errno.ENOMEM, errno.EMFILE, errno.ENOENT):
                return FrontEnd(b"", 0.0, cmd, failure="infra", message=str(e))
            raise
        finally:
            if not self.keep_artifacts:
                shutil.rmtree(work, ignore_errors=True)

    def backend(self, side: str, front_end: FrontEnd, extra: Sequence[str] = (), emit: str = "asm",
                keep_stderr: bool = False, pre_link: FrontEnd | None = None, passes: Sequence[str] = ()) -> Compiled:
        """`side` built from the front end's bitcode, with the pipelines the driver would run
        after it (`shared_commands`), within what the front end left of the timeout; with
        emit="ir", the no-LTO side's optimised IR (the UB guard's build: `command`'s "ir").
        `passes`: as `compile`'s, after `extra`; the driver is asked where they land once per
        shape of them (`_placed`), not once per build. `pre_link` (this front end's `pre_link`):
        the LTO side starts from its bitcode when the options leave the pre-link compile's command
        as it was (options of the link only), else that compile runs. `keep_stderr`: as
        `compile`'s. With `keep_artifacts`, in the front end's directory: one directory per
        candidate and flags."""
        env = self._env()
        driver = tuple(self.command(side, emit, extra=[*extra, *passes]))
        start = time.monotonic()
        try:
            pipeline = self._placed(side, extra, passes) if emit == "asm" else \
                (self._ir_pipeline([*extra, *passes]),)
        except SharedFrontEndError as e:
            return Compiled(side, driver, time.monotonic() - start, failure="infra", message=str(e))
        source, source_file = front_end, FE_OUT
        if pre_link is not None and pre_link.ok and side == LTO and emit == "asm" and \
                _same_unit(pipeline[0], pre_link.command):
            source, source_file, pipeline = pre_link, PRE_OUT, pipeline[1:]
        try:
            work = Path(front_end.artifacts) if front_end.artifacts else test_dir(f"reduce-{side}-", self.tmp_parent)
        except OSError as e:
            return Compiled(side, driver, 0.0, failure="infra", message=f"temp dir: {e}", pipeline=pipeline)
        seconds = 0.0
        stderr: list[str] = []
        try:
            if source is pre_link or not front_end.artifacts:
                (work / source_file).write_bytes(source.bitcode)
            kept = str(work) if self.keep_artifacts else None
            for cmd in pipeline:
                left = self.timeout - source.seconds - seconds
                if left <= 0:
                    return Compiled(side, driver, seconds, failure="timeout",
                                    message=f"timeout after {self.timeout:g}s", artifacts=kept, pipeline=pipeline)
                res = run(_in(cmd, work), cwd=work, timeout=left, env=env | {"TMPDIR": str(work)}, fork_server=True)
                seconds += res.seconds
                stderr.append(res.stderr)
                failed = _failure(res, self.timeout, None)
                if failed is not None:
                    return Compiled(side, driver, seconds, failure=failed[0], message=failed[1], artifacts=kept,
                                    pipeline=pipeline, stderr="".join(stderr) if keep_stderr else "")
            files = _asm_files(work, self.side(side).lto) if emit == "asm" else \
                [work / IR_OUT] if (work / IR_OUT).exists() else []
            if not files:
                return Compiled(side, driver, seconds, failure="error", artifacts=kept, pipeline=pipeline,
                                message=f"no output produced (looked for {ASM_OUT if emit == 'asm' else IR_OUT}*)")
            asm = tuple(f.read_text(errors="replace") for f in files)
            return Compiled(side, driver, seconds, asm=asm, artifacts=kept, pipeline=pipeline,
                            uninitialized=front_end.uninitialized, stderr="".join(stderr) if keep_stderr else "")
        except OSError as e:
            if e.errno in (errno.ENOSPC, errno.EDQUOT, errno.ENOMEM, errno.EMFILE):
                return Compiled(side, driver, seconds, failure="infra", message=str(e), pipeline=pipeline)
            raise
        finally:
            if not self.keep_artifacts:
                shutil.rmtree(work, ignore_errors=True)

    def _placed(self, side: str, extra: Sequence[str], passes: Sequence[str]) -> tuple[tuple[str, ...], ...]:
        """`side`'s pipeline from FE_OUT with `extra` and `passes`, from the driver's jobs for
        `passes` with each -mllvm value a placeholder: the driver hands such values on as they are,
        so builds that differ only in them (`reduce explain`'s hundreds) share one `-###`. The
        cc1's unit id is then the placeholders' (`_same_unit`: a compile from bitcode ignores it)."""
        shape, values = _shape(passes)
        commands = self.shared_commands([*extra, *shape])
        jobs = (commands.front_end, *(cmd for pipeline in commands.pipelines.values() for cmd in pipeline))
        if {int(m[1]) for job in jobs for a in job for m in _PLACEHOLDER.finditer(a)} != set(range(len(values))):
            raise SharedFrontEndError("the driver did not hand every -mllvm value on as it is")
        return tuple(tuple(_PLACEHOLDER.sub(lambda m: values[int(m[1])], a) for a in cmd)
                     for cmd in commands.pipelines[side])

    def shared_commands(self, extra: Sequence[str] = (), pch: Sequence[str] = ()) -> SharedCommands:
        """The shared front end's command (with the PCH flags `pch`) and each side's pipeline
        from its bitcode, derived from the cc1 and lld jobs the driver prints (`-###`) for the
        side's compile with `extra`. Paths into the build's directory are written `WORK`."""
        env = self._env()
        lto = driver_jobs(self.command(LTO, extra=extra), env, self.file_name, self.tmp_parent)
        nolto = driver_jobs(self.command(NOLTO, extra=extra), env, self.file_name, self.tmp_parent)
        operand = _operand(self.file_name)
        if len(lto) != 2 or len(nolto) != 1 or not all(_is_cc1(j[0], operand) for j in (lto, nolto)):
            raise SharedFrontEndError(f"unexpected driver jobs: {len(lto)} for the LTO side, {len(nolto)} without LTO")
        (cc1, lld), (cc1_nolto,) = lto, nolto
        if not _same_program(cc1[0], self.toolchain.clang):
            # a wrapper script: running the cc1 it prints would bypass whatever the wrapper does
            raise SharedFrontEndError(f"{self.toolchain.clang} runs {cc1[0]}: "
                                      "a wrapper the shared front end would bypass")
        if "-emit-llvm-bc" not in cc1 or "-o" not in lld:
            raise SharedFrontEndError("the LTO side's device compile does not emit bitcode for a link")
        intermediate = _value(cc1, "-o")
        if intermediate not in lld or _value(lld, "-o") != ASM_OUT:
            raise SharedFrontEndError("the LTO link does not read the device compile's bitcode")
        front_end = cc1
        if pch:  # the PCH's path is this process's: the unit's id must not depend on it (it names a symbol)
            with_pch = driver_jobs(self.command(LTO, extra=[*extra, *pch]), env, self.file_name, self.tmp_parent)
            if len(with_pch) != 2 or not _is_cc1(with_pch[0], operand):
                raise SharedFrontEndError("unexpected driver jobs with the PCH")
            front_end = tuple(_value_replaced(with_pch[0], "-cuid=", _prefixed(cc1, "-cuid=")))
        front_end = _with_output(front_end, FE_OUT)
        i = front_end.index("-o")
        front_end = (*front_end[:i], *[f for f in _FRONT_END_ONLY if f not in front_end], *front_end[i:])
        prelink = _with_output(_from_ir(cc1), PRE_OUT)
        link = tuple(PRE_OUT if a == intermediate else a for a in lld)
        return SharedCommands(tuple(front_end), {LTO: (prelink, link), NOLTO: (_from_ir(cc1_nolto),)})

    def _ir_pipeline(self, extra: Sequence[str]) -> tuple[str, ...]:
        """The no-LTO side's optimised-IR build (`command`'s "ir") from FE_OUT."""
        jobs = driver_jobs(self.command(NOLTO, "ir", extra), self._env(), self.file_name, self.tmp_parent)
        if len(jobs) != 1 or not _is_cc1(jobs[0], _operand(self.file_name)):
            raise SharedFrontEndError(f"unexpected driver jobs: {len(jobs)} for the no-LTO side's IR")
        return _from_ir(jobs[0])

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
        found.update(self.hip_headers.included)
        # a file set's own headers are read from its copy by relative paths: they are in the candidate
        return sorted(h for h in found if self.tree is None or os.path.isabs(h))

    def diagnostics(self, content: bytes) -> str | None:
        """Every error of a syntax-only device front-end run on `content` (no warnings, no source
        snippets, no error limit), or None when the run failed for reasons outside the content (a
        signal, a timeout, out of memory). reducer/text/values.py reads constant values from them."""
        res = self._front_end_run(content, "-fsyntax-only", "-ferror-limit=0", "-Wno-fatal-errors", "-w",
                                   "-fno-caret-diagnostics", "-fno-color-diagnostics", "-fdiagnostics-format=clang")
        if res.timed_out or res.killed_by_signal or INFRA_STDERR.search(res.stderr):
            return None
        return res.stderr

    def plugin_output(self, content: bytes, flags: Sequence[str]) -> str | None:
        """What a plugin loaded by `flags` prints on stdout in a syntax-only device front-end run of
        `content` (reducer/text/footprint.py's), or None when the run failed for reasons outside
        the content."""
        res = self._front_end_run(content, "-fsyntax-only", "-w", *flags)
        if res.timed_out or res.killed_by_signal or INFRA_STDERR.search(res.stderr):
            return None
        return res.stdout

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

FE_OUT, PRE_OUT = "fe.bc", "pre.bc"  # the shared front end's bitcode; the LTO pre-link's
WORK = "\0WORK"  # in shared_commands: the build's own directory, replaced by it when run
# IRGen's module, uses in their order; and a candidate that does not compile stops at its first
# error, without spelling suggestions: the verdict is the same (a compile error, the same first
# one), but clang would go on through the rest of the unit, instantiating templates and
# typo-correcting each undeclared name against the whole scope (on a 258 KB ck_tile TU an error
# at line 1,429 cost 6.7 s of a 7.4 s parse; stopped there, 0.4 s).
_FRONT_END_ONLY = ("-disable-llvm-passes", "-emit-llvm-uselists", "-Wfatal-errors", "-fno-spell-checking")
# Signals a compiler dies of when it crashes: the driver reports those of its in-process cc1 as
# an error (a verdict); a cc1 run directly dies of them. Others (SIGKILL) are the machine's.
_CRASH_SIGNALS = {signal.SIGSEGV, signal.SIGABRT, signal.SIGILL, signal.SIGBUS, signal.SIGFPE, signal.SIGTRAP}


class SharedFrontEndError(RuntimeError):
    """The driver's jobs are not the ones the shared front end knows how to split."""


@dataclass(frozen=True)
class FrontEnd:
    """One shared front-end run: the bitcode, or why there is none."""

    bitcode: bytes
    seconds: float
    command: tuple[str, ...]
    failure: str | None = None  # as Compiled's
    message: str = ""
    uninitialized: int = 0
    artifacts: str | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None


@dataclass(frozen=True)
class SharedCommands:
    """The shared front end's command and, per side, the commands that build it from FE_OUT."""

    front_end: tuple[str, ...]
    pipelines: dict[str, tuple[tuple[str, ...], ...]]


class Build:
    """The builds of one candidate (with extra flags), each side on its first ask.

    Through the driver a side is one compile. With the compiler's shared front end, the front
    end runs once, on the first ask, and gives the candidate's diagnostics to both sides; each
    side then runs its pipelines from the bitcode, or, when `memo` holds a build of the same
    bitcode by the same pipelines, takes that build's summary without running them."""

    def __init__(self, compiler: Compiler, content: bytes, extra: tuple[str, ...] = (), memo: IrMemo | None = None,
                 front_end: FrontEnd | None = None):
        self.compiler, self.content, self.extra, self.memo = compiler, content, extra, memo
        self._front_end = front_end  # given: its seconds are counted where it ran
        self._given = front_end is not None
        self._sides: dict[str, Compiled] = {}

    def side(self, side: str) -> Compiled:
        if side not in self._sides:
            if self.compiler.shared_front_end or self._front_end is not None:
                self._sides[side] = self._shared(side)
            else:
                self._sides[side] = self.compiler.compile(side, self.content, extra=self.extra)
        return self._sides[side]

    @property
    def front_end_seconds(self) -> float:
        return self._front_end.seconds if self._front_end is not None and not self._given else 0.0

    def _shared(self, side: str) -> Compiled:
        first = self._front_end is None
        if self._front_end is None:
            self._front_end = self.compiler.front_end(self.content, self.extra)
        fe = self._front_end
        fe_seconds = fe.seconds if first else 0.0  # a side's seconds: the front end's go to the first
        if not fe.ok:
            return Compiled(side, fe.command, fe_seconds, failure=fe.failure, message=fe.message,
                            artifacts=fe.artifacts, uninitialized=fe.uninitialized)
        key = None
        if self.memo is not None:
            try:
                key = self._memo_key(side)
            except SharedFrontEndError:
                key = None
        hit = self.memo.get(fe.bitcode, key) if self.memo is not None and key is not None else None
        if hit is not None and not (isinstance(hit.get("summary"), dict) or hit.get("failure") == "error"):
            hit = None  # not an entry this code wrote: build
        if hit is not None:
            if fe.seconds + hit.get("seconds", 0.0) > self.compiler.timeout:  # as that build would have
                return Compiled(side, fe.command, fe_seconds, failure="timeout", memo="hit",
                                message=f"timeout after {self.compiler.timeout:g}s (the IR's build took "
                                        f"{hit.get('seconds', 0.0):g}s after a front end of {fe.seconds:.3g}s)")
            return Compiled(side, tuple(self.compiler.command(side, extra=self.extra)), fe_seconds,
                            failure=hit.get("failure"), message=hit.get("message", ""),
                            uninitialized=fe.uninitialized, memo="hit",
                            analysed=Summary.from_json(hit["summary"]) if "summary" in hit else None)
        c = self.compiler.backend(side, fe, self.extra)
        c = dataclasses_replace(c, seconds=c.seconds + fe_seconds, memo="miss" if key is not None else None)
        if self.memo is not None and key is not None and (c.ok or c.failure == "error"):  # deterministic only
            value: dict[str, Any] = {"seconds": round(c.seconds - fe_seconds, 3)}
            value.update({"summary": c.summary.to_json()} if c.ok else {"failure": c.failure, "message": c.message})
            self.memo.put(fe.bitcode, key, value)
        return c

    def _memo_key(self, side: str) -> str:
        """Everything but the bitcode that decides what `side`'s pipelines make of it."""
        c = self.compiler
        # 2: summaries whose figures cover each kernel's call graph
        return json.dumps({"memo": "shared-front-end/2", "side": side,
                           "pipeline": c.shared_commands(self.extra).pipelines[side],
                           "toolchain": c.toolchain.identity(), "env": dict(c.env)}, sort_keys=True)


_jobs_lock = threading.Lock()
_jobs: dict[tuple, tuple[tuple[str, ...], ...]] = {}


@functools.lru_cache(maxsize=8)
def _same_program(ran: str, named: str) -> bool:
    """Whether the driver's job `ran` is the compiler the user `named` (not one a wrapper runs)."""
    return os.path.realpath(ran) == os.path.realpath(shutil.which(named) or named)


def driver_jobs(command: Sequence[str], env: Mapping[str, str], file_name: str,
                tmp_parent: str | None) -> tuple[tuple[str, ...], ...]:
    """The jobs (argument lists) the driver runs for `command` (its `-###`), with paths into the
    directory it runs in written WORK; once per process and command."""
    key = (tuple(command), tuple(sorted(env.items())), file_name)
    with _jobs_lock:
        if key in _jobs:
            return _jobs[key]
    probe = test_dir("reduce-jobs-", tmp_parent)
    try:
        (probe / file_name).parent.mkdir(parents=True, exist_ok=True)
        (probe / file_name).write_bytes(b"")
        res = run([*command, "-###"], cwd=probe, timeout=60, env=dict(env) | {"TMPDIR": str(probe)})
        if res.returncode != 0:
            raise SharedFrontEndError(f"the driver's -### failed: {_first_lines(res.stderr)}")
        here = str(probe)
        jobs = tuple(tuple(_relocated(a, here) for a in shlex.split(line))
                     for line in res.stderr.splitlines() if line.startswith(' "'))
    finally:
        shutil.rmtree(probe, ignore_errors=True)
    with _jobs_lock:
        _jobs[key] = jobs
    return jobs


def _relocated(arg: str, here: str) -> str:
    return arg.replace(here, WORK) if here in arg else arg


def _in(cmd: Sequence[str], work: Path) -> list[str]:
    return [a.replace(WORK, str(work)) for a in cmd]


def _is_cc1(job: Sequence[str], operand: str) -> bool:
    return len(job) > 4 and job[1] == "-cc1" and job[-3] == "-x" and job[-1] == operand


def _value(job: Sequence[str], option: str) -> str | None:
    return job[job.index(option) + 1] if option in job[:-1] else None


def _prefixed(job: Sequence[str], prefix: str) -> str | None:
    return next((a for a in job if a.startswith(prefix)), None)


def _value_replaced(job: Sequence[str], prefix: str, replacement: str | None) -> list[str]:
    if replacement is None:
        return list(job)
    return [replacement if a.startswith(prefix) else a for a in job]


_PLACEHOLDER = re.compile(r"REDUCE_PASS_OPTION_(\d+)_")


def _shape(passes: Sequence[str]) -> tuple[list[str], list[str]]:
    """`passes` with each -mllvm value (`-Xclang -mllvm -Xclang V`, `-Xoffload-linker -mllvm=V`) a
    placeholder, and those values in order."""
    shape: list[str] = []
    values: list[str] = []
    for i, a in enumerate(passes):
        cc1 = i >= 3 and list(passes[i - 3:i]) == ["-Xclang", "-mllvm", "-Xclang"]
        if cc1 or a.startswith("-mllvm="):
            shape.append(("" if cc1 else "-mllvm=") + f"REDUCE_PASS_OPTION_{len(values)}_")
            values.append(a if cc1 else a.removeprefix("-mllvm="))
        else:
            shape.append(a)
    return shape, values


def _same_unit(a: Sequence[str], b: Sequence[str]) -> bool:
    """The same command but for the unit's id (-cuid=): the driver derives it from the whole
    command line, a link's options included; it names a symbol IRGen emits, so a compile from
    bitcode does not read it."""
    return _value_replaced(a, "-cuid=", "-cuid=") == _value_replaced(b, "-cuid=", "-cuid=")


def _with_output(job: Sequence[str], output: str) -> tuple[str, ...]:
    i = list(job).index("-o")
    return (*job[:i + 1], output, *job[i + 2:])


# cc1 options that name the front end's inputs: the bitcode has read them already (device
# libraries are linked into it; a language standard is refused with IR input)
_DROP_WITH_VALUE = ("-mlink-builtin-bitcode", "-mlink-bitcode-file", "-include-pch", "-include")
_DROP_JOINED = ("-std=",)


def _from_ir(job: Sequence[str]) -> tuple[str, ...]:
    """A device cc1 job reading FE_OUT as IR instead of the source."""
    out: list[str] = []
    args = list(job[:-3])
    i = 0
    while i < len(args):
        if args[i] in _DROP_WITH_VALUE:
            i += 2
            continue
        if not args[i].startswith(_DROP_JOINED):
            out.append(args[i])
        i += 1
    return (*out, "-x", "ir", FE_OUT)


def _failure(res, timeout: float, pch: str | None) -> tuple[str, str] | None:
    """(failure, message) of one run of a cc1 or lld, None when it succeeded."""
    if res.timed_out:
        return "timeout", f"timeout after {timeout:g}s"
    if pch and res.returncode != 0 and pch in res.stderr:
        return "infra", _first_lines(res.stderr)
    sig = res.killed_by_signal
    if (sig and sig not in _CRASH_SIGNALS) or INFRA_STDERR.search(res.stderr):
        return "infra", f"signal {sig}" if sig and sig not in _CRASH_SIGNALS else _first_lines(res.stderr)
    if sig:
        return "error", f"the compiler crashed (signal {sig}): {first_error(res.stderr) or _first_lines(res.stderr)}"
    if res.returncode != 0:
        return "error", first_error(res.stderr)
    return None


def _operand(file_name: str) -> str:
    """A file name clang cannot take for an option (`-x.hip` is one)."""
    return f"./{file_name}" if file_name.startswith("-") else file_name


def _asm_files(work: Path, lto: bool) -> list[Path]:
    """No-LTO: out.s. LTO: lld writes one file per partition, out.s.lto.s, out.s.lto.1.s, ..."""
    if not lto:
        return [work / ASM_OUT] if (work / ASM_OUT).exists() else []
    return sorted(work.glob(f"{ASM_OUT}.lto*.s"))


def _first_lines(text: str, n: int = 8) -> str:
    return "\n".join(text.strip().splitlines()[:n])
