from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

import pytest

from interestingness.base.process import run
from interestingness.compiler.toolchain import DEFAULT_CLANG, ENV_CLANG, ToolchainError, find_toolchain


def test_identity_fields():
    tc = find_toolchain()
    assert tc.clang == DEFAULT_CLANG  # not symlink-resolved: clang++ is the driver's mode
    assert tc.version == run([tc.clang, "--version"], cwd=Path.cwd(), timeout=60).stdout.splitlines()[0]
    assert tc.version.startswith("Debian clang version 22")
    assert tc.commit is None  # Debian's --version names no llvm-project commit
    resolved = Path(tc.clang).resolve()
    assert tc.sha256 == hashlib.sha256(resolved.read_bytes()).hexdigest()
    assert {name for name, _ in tc.lib_sha256} >= {"libLLVM.so.22.1"}  # where the code generator lives
    assert tc.lld and tc.lld_sha256 and re.fullmatch(r"[0-9a-f]{64}", tc.lld_sha256)
    for tool in (tc.readelf, tc.objdump, tc.cxxfilt):
        assert Path(tool).parent == Path(DEFAULT_CLANG).parent
    ident = tc.identity()
    assert {"clang", "version", "commit", "sha256", "affected"} <= set(ident)


def test_not_affected_by_dash_dash_hash(tmp_path):
    """clang-22 here compiles device code straight to an object: no offload LTO by default."""
    tc = find_toolchain()
    assert tc.affected is False
    # the same question asked independently, and the opposite answer under -foffload-lto=full
    cmd = [tc.clang, "-x", "hip", "--offload-arch=gfx950", "-O3", "-nogpuinc", "-nogpulib",
           "--offload-device-only", "-c", "t.hip", "-o", os.devnull, "-###"]
    (tmp_path / "t.hip").write_text("__attribute__((global)) void k() {}\n")
    plain = run(cmd, cwd=tmp_path, timeout=60).stderr
    full = run(cmd + ["-foffload-lto=full"], cwd=tmp_path, timeout=60).stderr
    assert '"-emit-obj"' in plain and '"-flto=full"' not in plain
    assert '"-flto=full"' in full and '"-emit-llvm-bc"' in full


def affected_wrapper(directory: Path) -> Path:
    """A toolchain that defaults to full offload LTO, as a vendor wrapper would (real clang inside)."""
    wrapper = directory / "clang++"
    wrapper.write_text(f'#!/bin/sh\nexec {DEFAULT_CLANG} -foffload-lto=full "$@"\n')
    wrapper.chmod(0o755)
    for tool in ("llvm-readelf", "llvm-objdump", "llvm-cxxfilt"):
        (directory / tool).symlink_to(Path(DEFAULT_CLANG).parent / tool)
    return wrapper


def test_affected_detected(tmp_path):
    tc = find_toolchain(affected_wrapper(tmp_path))
    assert tc.affected is True
    assert tc.readelf == str(tmp_path / "llvm-readelf")  # siblings come from the clang's own dir


def test_lookup_order_and_cache(monkeypatch):
    monkeypatch.setenv(ENV_CLANG, "/usr/lib/llvm-22/bin/clang++-22-does-not-exist")
    with pytest.raises(ToolchainError, match=ENV_CLANG):
        find_toolchain()
    assert find_toolchain(DEFAULT_CLANG).clang == DEFAULT_CLANG  # explicit beats the env var
    monkeypatch.setenv(ENV_CLANG, DEFAULT_CLANG)
    assert find_toolchain() is find_toolchain(DEFAULT_CLANG)  # cached per (path, mtime, size)


def test_missing_clang():
    with pytest.raises(ToolchainError, match="no clang found"):
        find_toolchain("/nonexistent/clang++")


def test_binary_without_amdgpu_target():
    with pytest.raises(ToolchainError, match="AMDGPU"):
        find_toolchain("/bin/true")
