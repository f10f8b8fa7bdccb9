"""Find the clang that builds both sides, and pin down exactly which compiler it is.

The identity feeds cache keys: two verdicts may only share a cache entry when the same compiler
(binary *and* the LLVM libraries that do the work, plus the lld that runs device LTO) made them.
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from interestingness.base.process import run

ENV_CLANG = "REDUCE_CLANG"
DEFAULT_CLANG = "/usr/lib/llvm-22/bin/clang++"
_TINY_KERNEL = '__attribute__((global)) void k() {}\n'
_COMMIT = re.compile(r"\((?:https?://|git@)\S+\s+([0-9a-f]{7,40})\)")


class ToolchainError(RuntimeError):
    """The compiler is missing or cannot build AMDGPU device code."""


@dataclass(frozen=True)
class Toolchain:
    clang: str  # as invoked (not symlink-resolved: the driver's mode depends on its name)
    version: str  # first line of --version
    commit: str | None  # LLVM commit when the build records one
    sha256: str  # of the resolved clang binary
    lib_sha256: tuple[tuple[str, str], ...]  # (file name, sha256) of libLLVM*/libclang-cpp* beside it
    lld: str | None
    lld_sha256: str | None  # device LTO code generation runs inside lld
    affected: bool  # driver already runs full offload LTO without -foffload-lto=full
    readelf: str
    objdump: str
    cxxfilt: str

    def identity(self) -> dict[str, Any]:
        return {
            "clang": self.clang,
            "version": self.version,
            "commit": self.commit,
            "sha256": self.sha256,
            "lib_sha256": dict(self.lib_sha256),
            "lld_sha256": self.lld_sha256,
            "affected": self.affected,
        }


_cache: dict[tuple[str, int, int], Toolchain] = {}


def find_toolchain(clang: str | os.PathLike | None = None) -> Toolchain:
    """Explicit path, then $REDUCE_CLANG, then Debian's clang-22, then `clang++` on PATH."""
    path = _locate_clang(clang)
    st = Path(path).resolve().stat()
    key = (str(path), st.st_mtime_ns, st.st_size)
    if key not in _cache:
        _cache[key] = _detect(path)
    return _cache[key]


def _locate_clang(clang: str | os.PathLike | None) -> str:
    if clang is not None:
        candidates, what = [os.fspath(clang)], f"clang {os.fspath(clang)!r}"
    elif os.environ.get(ENV_CLANG):
        candidates, what = [os.environ[ENV_CLANG]], f"${ENV_CLANG}={os.environ[ENV_CLANG]!r}"
    else:
        candidates, what = [DEFAULT_CLANG, "clang++"], f"{DEFAULT_CLANG} or clang++ on PATH"
    for c in candidates:
        found = shutil.which(c)
        if found:
            return os.path.abspath(found)
    raise ToolchainError(f"no clang found ({what})")


def _detect(clang: str) -> Toolchain:
    bindir = Path(clang).parent
    version_out = _checked([clang, "--version"], "clang --version")
    if "amdgcn" not in _checked([clang, "--print-targets"], "clang --print-targets"):
        raise ToolchainError(f"{clang} was built without the AMDGPU backend (no amdgcn target)")
    version = version_out.splitlines()[0].strip()
    commit = _COMMIT.search(version)
    resolved = Path(clang).resolve()
    named = _checked([clang, "-print-prog-name=ld.lld"], "clang -print-prog-name").strip()
    lld = named if os.path.isabs(named) and os.path.exists(named) else None
    return Toolchain(
        clang=clang,
        version=version,
        commit=commit.group(1) if commit else None,
        sha256=file_sha256(resolved),
        lib_sha256=llvm_lib_hashes(resolved),
        lld=lld,
        lld_sha256=file_sha256(Path(lld).resolve()) if lld else None,
        affected=_defaults_to_offload_lto(clang),
        readelf=sibling("llvm-readelf", bindir, resolved.parent),
        objdump=sibling("llvm-objdump", bindir, resolved.parent),
        cxxfilt=sibling("llvm-cxxfilt", bindir, resolved.parent),
    )


def _defaults_to_offload_lto(clang: str) -> bool:
    """True when the device cc1 job of a plain build already emits bitcode for full LTO (-###)."""
    with tempfile.TemporaryDirectory(prefix="reduce-probe-") as tmp:
        Path(tmp, "t.hip").write_text(_TINY_KERNEL)
        cmd = [clang, "-x", "hip", "--offload-arch=gfx950", "-O3", "-nogpuinc", "-nogpulib",
               "--offload-device-only", "-c", "t.hip", "-o", os.devnull, "-###"]
        res = run(cmd, cwd=Path(tmp), timeout=60)
    if res.returncode != 0:
        raise ToolchainError(f"{clang} cannot target gfx950: {res.stderr.strip()[:500]}")
    cc1 = [ln for ln in res.stderr.splitlines() if '"-cc1"' in ln and "amdgcn" in ln]
    if not cc1:
        raise ToolchainError(f"{clang} -### shows no amdgcn device compile job")
    return any('"-flto=full"' in ln or '"-flto"' in ln for ln in cc1)


def _checked(cmd: list[str], what: str) -> str:
    res = run(cmd, cwd=Path("/"), timeout=60)
    if res.returncode != 0:
        raise ToolchainError(f"{what} failed ({res.returncode}): {res.stderr.strip()[:500]}")
    return res.stdout


def sibling(tool: str, *dirs: Path) -> str:
    for d in dirs:
        if (d / tool).exists():
            return str(d / tool)
    found = shutil.which(tool)
    if not found:
        raise ToolchainError(f"{tool} not found next to clang ({', '.join(map(str, dirs))}) nor on PATH")
    return found


def llvm_lib_hashes(resolved_tool: Path) -> tuple[tuple[str, str], ...]:
    """Shared-library builds (Debian, Fedora) keep all of LLVM in these; a static build has none."""
    libdir = resolved_tool.parent.parent / "lib"
    files = {p.resolve() for pat in ("libLLVM*.so*", "libclang-cpp*.so*") for p in libdir.glob(pat)}
    return tuple(sorted((p.name, file_sha256(p)) for p in files if p.is_file()))


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()
