"""Where a device compile's HIP headers come from.

In this order: the user's own (their -I, -isystem and -include come first on the command line, as
in their build); then a real ROCm's, when the toolchain finds one; last this package's fallback
shim, only for what nothing else provides. `auto` takes ROCm when a one-line
`#include <hip/hip_runtime.h>` kernel compiles with the toolchain's own HIP include path (a ROCm
clang, or `--rocm-path` among the user's flags), else the shim.

With ROCm, clang adds ROCm's include directory and device libraries itself, and the shim is
`-idirafter`, behind everything. Without it, `-nogpuinc -nogpulib` keep clang from looking for a
ROCm, and the shim is an `-isystem` directory placed after the user's flags: the user's own
directories still win, and a broken HIP install in /usr/include (Debian's HIP 5.2 headers do not
compile with clang 22) does not. -nogpuinc also leaves out clang's HIP runtime wrapper, which the
driver -include's before the first line (the `__device__` & co. qualifiers): the shim's stand-in
for it is -include'd in its place.
"""
from __future__ import annotations

import hashlib
import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from interestingness.base.process import run
from interestingness.compiler.diagnostics import first_error
from interestingness.compiler.toolchain import Toolchain, ToolchainError, file_sha256

SHIM_DIR = Path(__file__).parent / "shim"
# in place of clang's __clang_hip_runtime_wrapper.h, which -nogpuinc leaves out; found through the
# shim's directory, so that a bug report's copy under include/ is found the same way
WRAPPER = "hip/amd_detail/clang_wrapper.h"
CHOICES = ("auto", "rocm", "shim")
_PROBE = "#include <hip/hip_runtime.h>\n__global__ void probe_kernel() {}\n"
# the user's flags that decide whether and where clang finds a ROCm
_ROCM_FLAGS = ("--rocm-path", "--hip-path", "--rocm-device-lib-path", "--hip-device-lib", "--hip-version",
               "-nogpuinc", "-nogpulib", "--offload-arch", "--cuda-gpu-arch")
# the shim without the host's <cmath> and <cstdlib> (shim/hip/hip_runtime.h)
LEAN_DEFINE = "-D__HIP_SHIM_NO_HOST_STD"
_INCLUDE_DIR = re.compile(r'"-(?:internal-isystem|internal-externc-isystem|isystem|idirafter)" "([^"]+)"')
_DEVICE_LIB = re.compile(r'"-mlink-builtin-bitcode" "([^"]+)"')


@dataclass(frozen=True)
class HipHeaders:
    mode: str                        # "rocm" or "shim"
    before: tuple[str, ...]          # flags placed before the user's
    after: tuple[str, ...]           # flags placed after the user's
    rocm_include: str | None = None  # ROCm's HIP include directory (holds hip/hip_runtime.h)
    device_libs: tuple[tuple[str, str], ...] = ()  # (path, sha256) of the device libraries linked in
    why: str = ""                    # why auto chose this

    def identity(self) -> dict[str, Any]:
        return {"mode": self.mode, "rocm_include": self.rocm_include, "device_libs": dict(self.device_libs),
                "shim_sha256": shim_sha256()}

    @property
    def included(self) -> tuple[str, ...]:
        """The headers its flags -include (`-H` does not list them): the shim's wrapper."""
        return tuple(str(SHIM_DIR / f) for i, f in enumerate(self.before) if i and self.before[i - 1] == "-include")

    @property
    def is_lean(self) -> bool:
        return LEAN_DEFINE in self.after

    def lean(self) -> HipHeaders | None:
        """The shim without the host's <cmath> and <cstdlib>, whose parse every build pays
        (benchmarks/shim_cost.py); None with ROCm's headers, whose own hip_runtime.h is the one read."""
        if self.mode != "shim" or self.is_lean:
            return None
        return replace(self, after=(*self.after, LEAN_DEFINE))

    def describe(self) -> str:
        if self.mode == "rocm":
            libs = f", {len(self.device_libs)} device libraries" if self.device_libs else ", no device libraries"
            return f"ROCm's, from {self.rocm_include}{libs}; the fallback shim after it ({SHIM_DIR})"
        found = "; no ROCm found by clang (--rocm-path=DIR among the flags names one)" if self.why else ""
        lean = ", without the host's <cmath> and <cstdlib> (the original builds the same code without them)" \
            if self.is_lean else ""
        return f"the fallback shim ({SHIM_DIR}), after your include directories{lean}{found}"

    def origin(self, header: str, user_dirs: Sequence[str] = ()) -> str:
        """Who provides `header` (an absolute path read by a compile)."""
        path = os.path.realpath(header)
        for label, roots in (("ROCm", [self.rocm_include] if self.rocm_include else []), ("shim", [str(SHIM_DIR)]),
                             ("yours", user_dirs)):
            if any(_under(path, r) for r in roots):
                return label
        return "system"


_cache: dict[tuple, HipHeaders] = {}


def resolve(toolchain: Toolchain, flags: Sequence[str], choice: str = "auto") -> HipHeaders:
    """The HIP headers of a compile with `flags` (the user's, prepared), by `choice`."""
    if choice not in CHOICES:
        raise ToolchainError(f"--hip-headers must be one of {', '.join(CHOICES)}, not {choice!r}")
    rocm_flags = tuple(f for f in flags if f.startswith(_ROCM_FLAGS))
    key = (toolchain.clang, toolchain.sha256, rocm_flags, choice)
    if key not in _cache:
        _cache[key] = _resolve(toolchain, rocm_flags, choice)
    return _cache[key]


def _resolve(toolchain: Toolchain, rocm_flags: tuple[str, ...], choice: str) -> HipHeaders:
    shim = HipHeaders("shim", ("-nogpuinc", "-nogpulib", "-include", WRAPPER), ("-isystem", str(SHIM_DIR)))
    if choice == "shim":
        return shim
    found, why = _probe(toolchain, rocm_flags)
    if found is not None:
        return found
    if choice == "rocm":
        raise ToolchainError(f"--hip-headers rocm: {toolchain.clang} finds no usable ROCm HIP headers ({why}); "
                             "pass --rocm-path=DIR among the clang flags, or use --hip-headers shim")
    return HipHeaders(shim.mode, shim.before, shim.after, why=why)


def _probe(toolchain: Toolchain, rocm_flags: tuple[str, ...]) -> tuple[HipHeaders | None, str]:
    """ROCm's headers when the probe kernel compiles with them: with the device libraries, or else
    without (then say so); None and the first error line when it does not compile at all."""
    arched = any(f.startswith(("--offload-arch", "--cuda-gpu-arch")) for f in rocm_flags)
    arch = () if arched else ("--offload-arch=gfx950",)
    why = ""
    with tempfile.TemporaryDirectory(prefix="reduce-hip-probe-") as tmp:
        Path(tmp, "probe.hip").write_text(_PROBE)
        for libs in ((), ("-nogpulib",)):
            cmd = [toolchain.clang, "-x", "hip", *arch, *rocm_flags, *libs, "--offload-device-only", "-c",
                   "probe.hip", "-o", os.devnull]
            res = run(cmd, cwd=Path(tmp), timeout=120)
            if res.returncode == 0:
                plan = run([*cmd, "-###"], cwd=Path(tmp), timeout=120).stderr
                include = next((d for d in _INCLUDE_DIR.findall(plan) if Path(d, "hip", "hip_runtime.h").is_file()),
                               None)
                device_libs = tuple((p, file_sha256(Path(p))) for p in sorted(set(_DEVICE_LIB.findall(plan)))
                                    if Path(p).is_file())
                return HipHeaders("rocm", libs, ("-idirafter", str(SHIM_DIR)), include, device_libs), ""
            why = (first_error(res.stderr).splitlines() or [f"exit {res.returncode}"])[0]
    return None, why or "the probe did not compile"


def shim_sha256() -> str:
    """Hash of every file of the shim include tree (names and contents)."""
    h = hashlib.sha256()
    for p in sorted(SHIM_DIR.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(SHIM_DIR)).encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def _under(path: str, root: str) -> bool:
    root = os.path.realpath(root)
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)
