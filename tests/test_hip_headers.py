"""Where HIP headers come from: the user's own first, then a ROCm's, then the fallback shim; and
what a user sees when a compile fails. Real clang on real (small) kernels."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, needs_clang22

from interestingness.compiler.diagnostics import first_error
from interestingness.compiler.hip_headers import SHIM_DIR, WRAPPER
from reducer.text.flatten import flatten, include_dirs

pytestmark = needs_clang22
REDUCE = [sys.executable, "-m", "reducer.cli"]

# A HIP runtime header of the user's own: everything the kernel needs, plus what the shim lacks.
USER_RUNTIME = """#pragma once
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define USERS_OWN_HIP 1
__device__ inline float users_only_helper(float x) { return x * 3.0f; }
"""
KERNEL = """#include <hip/hip_runtime.h>
#if !defined(USERS_OWN_HIP) && !defined(FAKE_ROCM_HIP)
#error "not the HIP headers this test means"
#endif
__global__ void k(float* p) { p[0] = HELPER(p[1]); }
"""


def check(tmp_path, *args):
    r = subprocess.run([*REDUCE, "check", "k.hip", "--json", *args], cwd=tmp_path, capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    return r, (json.loads(r.stdout) if r.stdout.startswith("{") else None)


def test_the_users_own_hip_runtime_wins_over_the_shim(tmp_path):
    (tmp_path / "inc" / "hip").mkdir(parents=True)
    (tmp_path / "inc" / "hip" / "hip_runtime.h").write_text(USER_RUNTIME)
    (tmp_path / "k.hip").write_text(KERNEL.replace("HELPER", "users_only_helper"))
    r, report = check(tmp_path, "--predicate", "lto.instructions > 0", "--", "-Iinc")
    assert r.returncode == 0, r.stdout + r.stderr
    assert report["hip_headers"]["mode"] == "shim"
    # and the shim's stand-in for clang's HIP runtime wrapper, which -nogpuinc leaves out
    wrapper = {"header": str(SHIM_DIR / WRAPPER), "from": "shim"}
    used = sorted(report["hip_headers"]["used"], key=lambda h: h["header"])
    assert used == sorted([{"header": str(tmp_path / "inc/hip/hip_runtime.h"), "from": "yours"}, wrapper],
                          key=lambda h: h["header"])


def test_the_qualifiers_come_before_the_first_line_as_with_clangs_wrapper(tmp_path):
    """clang's HIP runtime wrapper, -include'd by the driver with a ROCm, defines `__device__` &
    co. before the file's first line; library headers use them before any HIP include (hipconv's
    j_to_hnw.hpp). -nogpuinc leaves the wrapper out: the shim's stand-in takes its place."""
    (tmp_path / "k.hip").write_text("__device__ inline int twice(int x) { return 2 * x; }\n"
                                    "#include <hip/hip_runtime.h>\n"
                                    "__global__ void k(int* p) { p[0] = twice(p[1]); }\n")
    r, report = check(tmp_path, "--predicate", "lto.instructions > 0")
    assert r.returncode == 0, r.stdout + r.stderr
    assert report["hip_headers"]["mode"] == "shim" and report["interesting"]
    assert {"header": str(SHIM_DIR / WRAPPER), "from": "shim"} in report["hip_headers"]["used"]


def fake_rocm(root: Path) -> Path:
    """A ROCm tree as clang's --rocm-path sees it: its own hip/hip_runtime.h, no device libraries."""
    (root / "include" / "hip").mkdir(parents=True)
    (root / "include" / "hip" / "hip_runtime.h").write_text(
        USER_RUNTIME.replace("USERS_OWN_HIP", "FAKE_ROCM_HIP").replace("users_only_helper", "rocm_helper"))
    return root


def test_a_rocm_found_by_clang_is_used_in_auto_mode_and_named(tmp_path):
    rocm = fake_rocm(tmp_path / "rocm")
    (tmp_path / "k.hip").write_text(KERNEL.replace("HELPER", "rocm_helper"))
    r, report = check(tmp_path, "--predicate", "lto.instructions > 0", "--", f"--rocm-path={rocm}")
    assert r.returncode == 0, r.stdout + r.stderr
    hip = report["hip_headers"]
    assert hip["mode"] == "rocm" and str(rocm / "include") in hip["description"]
    assert {"header": str(rocm / "include/hip/hip_runtime.h"), "from": "ROCm"} in hip["used"]
    assert all("-nogpuinc" not in c["command"] for c in report["compiles"].values())
    text = subprocess.run([*REDUCE, "check", "k.hip", "--predicate", "lto.instructions > 0", "--",
                           f"--rocm-path={rocm}"], cwd=tmp_path, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}).stdout
    assert f"HIP headers: ROCm's, from {rocm / 'include'}" in text and "(ROCm)" in text
    # the shim is asked for: the fake ROCm's header is not read, so its helper is missing
    r, report = check(tmp_path, "--hip-headers", "shim", "--predicate", "lto.instructions > 0", "--",
                      f"--rocm-path={rocm}")
    assert r.returncode == 5 and report["hip_headers"]["mode"] == "shim"
    assert "not the HIP headers this test means" in report["compiles"]["lto"]["message"]


def test_rocm_asked_for_but_not_found_is_a_clear_error(tmp_path):
    (tmp_path / "k.hip").write_text(KERNEL)
    r, _ = check(tmp_path, "--hip-headers", "rocm", "--", "--rocm-path=/nonexistent")
    assert r.returncode == 4 and "finds no usable ROCm HIP headers" in r.stderr and "Traceback" not in r.stderr


def test_a_compile_error_shows_its_first_error_and_how_to_rerun_it(tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "bad.h").write_text("#define TWICE 1\n#define TWICE 2\nnot_a_type value;\n")
    (tmp_path / "k.hip").write_text('#include "inc/bad.h"\n__global__ void k(float* p) { p[0] = 1; }\n')
    r = subprocess.run([*REDUCE, "k.hip", "-q", "--no-explain", "--", "-std=c++20"], cwd=tmp_path, capture_output=True,
                       text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 5, r.stderr
    assert "the original does not compile with these flags" in r.stderr
    assert f"In file included from k.hip:1:\n{tmp_path}/inc/bad.h:3:1: error: unknown type name 'not_a_type'" \
        in r.stderr
    assert "macro redefined" not in r.stderr  # a warning came first in stderr; the error is what matters
    rerun = r.stderr.split("to run that compile by hand: ")[1].splitlines()[0]
    by_hand = subprocess.run(["bash", "-c", rerun], cwd=tmp_path, capture_output=True, text=True)
    assert by_hand.returncode != 0 and "unknown type name 'not_a_type'" in by_hand.stderr


def test_first_error_skips_warnings_and_keeps_the_include_trail():
    stderr = ("a.hip:1:9: warning: 'X' macro redefined [-Wmacro-redefined]\n    1 | #define X 2\n      |         ^\n"
              "In file included from a.hip:2:\nIn file included from inc/b.h:1:\ninc/c.h:3:1: error: unknown type "
              "name 'foo'\n    3 | foo x;\n      | ^\ninc/c.h:4:1: note: here\n1 warning and 1 error generated.\n")
    assert first_error(stderr) == ("In file included from a.hip:2:\nIn file included from inc/b.h:1:\n"
                                   "inc/c.h:3:1: error: unknown type name 'foo'\n    3 | foo x;\n      | ^")
    assert first_error("ld.lld: error: undefined symbol: f\n>>> referenced by x\n") == \
        "ld.lld: error: undefined symbol: f\n>>> referenced by x"


def test_a_hip_install_on_the_include_path_is_never_flattened(tmp_path):
    rocm_include = fake_rocm(tmp_path / "rocm") / "include"
    (rocm_include / "hip" / "hip_version.h").write_text("#pragma once\n")
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "util.h").write_text("#pragma once\nint util;\n")
    text = b'#include <hip/hip_runtime.h>\n#include "util.h"\n'
    dirs = include_dirs([f"-I{rocm_include}", "-Iproj"], tmp_path)
    flat, inlined = flatten(tmp_path / "k.hip", text, dirs)
    assert inlined == [(tmp_path / "proj" / "util.h").resolve()]
    assert b"#include <hip/hip_runtime.h>" in flat and b"int util;" in flat


@pytest.mark.parametrize("std", ["-std=c++17", "-std=c++20"])
def test_the_shim_does_not_shadow_a_header_of_the_same_name_in_the_users_isystem(tmp_path, std):
    (tmp_path / "sys" / "hip").mkdir(parents=True)
    (tmp_path / "sys" / "hip" / "hip_runtime.h").write_text(USER_RUNTIME)
    (tmp_path / "k.hip").write_text(KERNEL.replace("HELPER", "users_only_helper"))
    r, report = check(tmp_path, "--predicate", "lto.instructions > 0", "--", std, "-isystem", "sys")
    assert r.returncode == 0, r.stdout + r.stderr
    runtime = [h for h in report["hip_headers"]["used"] if h["header"].endswith("hip_runtime.h")]
    assert runtime == [{"header": str(tmp_path / "sys/hip/hip_runtime.h"), "from": "yours"}]


HOST_STD = """#include <hip/hip_runtime.h>
__global__ void k(float* p) { p[0] = fabsf(p[1]); }
float host_error(float a, float b) { return std::fabs(a - b); }
"""


@pytest.mark.parametrize("host_std", [False, True])
def test_the_shim_leaves_out_the_host_std_headers_only_when_the_original_builds_the_same_without(
        tmp_path, host_std):
    """<cmath> and <cstdlib> cost a third of a small kernel's build: a run whose original builds
    the same code without them tests every candidate without them, and says so in its commands;
    one whose host code calls std::fabs keeps them."""
    from interestingness.compiler.hip_headers import LEAN_DEFINE
    from interestingness.oracle.spill import SpillSetup
    source = (HOST_STD if host_std else HOST_STD.replace("std::fabs(a - b)", "a - b")).encode()
    (tmp_path / "k.hip").write_bytes(source)
    o = SpillSetup("k.hip", [], predicate="lto.instructions > 0", cwd=tmp_path,
                   hip_headers="shim").resolve(source)
    assert o.settings()["lean_shim"] is not host_std
    assert (LEAN_DEFINE in o.compiler.command("lto")) is not host_std
    assert o.test(source).interesting
    resumed = SpillSetup("k.hip", [], predicate="lto.instructions > 0", cwd=tmp_path,
                         hip_headers="shim").restore(o.settings(), source)
    assert resumed.identity() == o.identity()
