"""The CLI as a user runs it: real scripts, real compilers, exit codes, files left behind."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import CLANG, ROOT, needs_clang22, needs_gxx

REDUCE = [sys.executable, "-m", "reducer.cli"]

CXX_CASE = b"""#include <vector>
// a comment that will go
namespace ns {
struct Widget { int a; int b; double c; void frob(int x, int y) { a = x + y; } };
int helper(int a, int b, int c) { return a * b + c; }
template <typename T, int N> struct Box { T data[N]; T get(int i) const { return data[i]; } };
}
int unused_function(int q) { for (int i = 0; i < q; ++i) { q += i; } return q; }
int main() {
  ns::Widget w{1, 2, 3.0};
  w.frob(1, 2);
  ns::Box<int, 4> box{};
  int v = ns::helper(1, 2, 3) + box.get(0);
  return undeclared_thing(v);
}
"""
GXX_TEST = "LC_ALL=C g++ -fsyntax-only case.cpp 2>&1 | grep -q \"'undeclared_thing' was not declared\"\n"


def reduce(*args, cwd: Path, env=None):
    return subprocess.run([*REDUCE, *map(str, args)], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


def private_tmp(tmp_path: Path) -> dict[str, str]:
    """A TMPDIR of the test's own: other runs on the machine cannot make its check flaky."""
    d = tmp_path / "tmpdir"
    d.mkdir()
    return {"TMPDIR": str(d)}


@needs_gxx
@pytest.mark.parametrize("jobs", [1, 2])
def test_reduces_cxx_with_gxx_script(tmp_path, script, jobs):
    case = tmp_path / "case.cpp"
    case.write_bytes(CXX_CASE)
    test = script(GXX_TEST)
    env = private_tmp(tmp_path)
    r = reduce(case, "--test", test, "-j", jobs, cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    out = (tmp_path / "case.reduced.cpp").read_bytes()
    assert case.read_bytes() == CXX_CASE  # the input is never touched
    assert b"undeclared_thing" in out and len(out) < 60
    assert not any(Path(env["TMPDIR"]).iterdir())  # no temp dirs left behind
    assert "tests" in r.stderr and "bytes" in r.stderr


@needs_gxx
def test_j1_and_j2_give_byte_identical_results(tmp_path, script):
    test = script(GXX_TEST)
    outs = []
    for jobs in (1, 2):
        d = tmp_path / f"j{jobs}"
        d.mkdir()
        (d / "case.cpp").write_bytes(CXX_CASE)
        r = reduce("case.cpp", "--test", test, "-j", jobs, "-q", cwd=d)
        assert r.returncode == 0, r.stderr
        outs.append((d / "case.reduced.cpp").read_bytes())
    assert outs[0] == outs[1]


@needs_clang22
def test_hip_reduction_keeps_kernels_parseable(tmp_path, script):
    from reducer.text.source import Source

    kernel = tmp_path / "k.hip"
    kernel.write_text("""#include <hip/hip_runtime.h>
__device__ float scale(float x, float s) { return x * s; }
__device__ int unused_helper(int a) { return a + 1; }
template <int N>
__global__ __launch_bounds__(256, 2) void saxpy(float* y, const float* x, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  #pragma unroll
  for (int k = 0; k < N; ++k) y[i * N + k] = scale(x[i * N + k], a) + y[i * N + k];
}
__global__ void other(int* p) { p[threadIdx.x] = 7; }
void launch(float* y, const float* x, hipStream_t s) { saxpy<4><<<dim3(16), dim3(256), 0, s>>>(y, x, 2.0f); }
""")
    shim = ROOT / "interestingness" / "compiler" / "shim"
    device = (f"{CLANG} -x hip --offload-arch=gfx950 -O3 -nogpuinc -nogpulib -I{shim} -fno-offload-lto "
              "--offload-device-only --no-gpu-bundle-output")
    # the header precompiled, as the built-in oracle does (interestingness/compiler/prefix_pch.py): its
    # parse was most of each of the ~250 tests' 0.5 s
    (tmp_path / "prefix.hip").write_text("#include <hip/hip_runtime.h>\n")
    pch = tmp_path / "hip.pch"
    subprocess.run([*device.split(), "-fsyntax-only", "-Xclang", "-emit-pch", "-Xclang", "-o", "-Xclang", str(pch),
                    "prefix.hip"], cwd=tmp_path, check=True)
    test = script(
        f"{device} -Xclang -include-pch -Xclang {pch} -S k.hip -o k.s 2>/dev/null || exit 1\n"
        "grep -q v_fma_f32 k.s || grep -q v_fmac_f32 k.s\n")
    r = reduce("k.hip", "--test", test, "-j", 2, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    out = (tmp_path / "k.reduced.hip").read_bytes()
    assert b"__global__" in out and Source(out, "cuda").error_count == 0
    assert b"unused_helper" not in out and b"other" not in out


def test_missing_input(tmp_path, script):
    r = reduce("nope.cpp", "--test", script("exit 0\n"), cwd=tmp_path)
    assert r.returncode == 3 and "no such file" in r.stderr and "Traceback" not in r.stderr


def test_script_missing_or_not_executable(tmp_path):
    (tmp_path / "a.cpp").write_text("int x;\n")
    r = reduce("a.cpp", "--test", "missing.sh", cwd=tmp_path)
    assert r.returncode == 4 and "not found" in r.stderr
    (tmp_path / "t.sh").write_text("exit 0\n")
    r = reduce("a.cpp", "--test", "t.sh", cwd=tmp_path)
    assert r.returncode == 4 and "not executable" in r.stderr


def test_original_not_interesting_is_said_before_reducing(tmp_path, script):
    (tmp_path / "a.cpp").write_text("int x;\n")
    r = reduce("a.cpp", "--test", script("echo 'no bug here' >&2; exit 1\n"), cwd=tmp_path)
    assert r.returncode == 5 and "not interesting" in r.stderr and "no bug here" in r.stderr
    assert not (tmp_path / "a.reduced.cpp").exists()


def test_original_timing_out(tmp_path, script):
    (tmp_path / "a.cpp").write_text("int x;\n")
    r = reduce("a.cpp", "--test", script("sleep 30\n"), "--timeout", "0.5", cwd=tmp_path)
    assert r.returncode == 6 and "times out" in r.stderr


def test_existing_output_is_not_overwritten(tmp_path, script):
    (tmp_path / "a.cpp").write_text("int x;\n")
    (tmp_path / "a.reduced.cpp").write_text("precious\n")
    r = reduce("a.cpp", "--test", script("exit 0\n"), cwd=tmp_path)
    assert r.returncode == 3 and "exists" in r.stderr
    assert (tmp_path / "a.reduced.cpp").read_text() == "precious\n"
    r = reduce("a.cpp", "--test", script("exit 0\n"), "-o", "a.cpp", cwd=tmp_path)
    assert r.returncode == 3 and (tmp_path / "a.cpp").read_text() == "int x;\n"


def test_test_arg_style_gets_the_candidate_path(tmp_path, script):
    (tmp_path / "a.cpp").write_text("int keep_me;\nint drop_me;\n")
    r = reduce("a.cpp", "--test", script('grep -q keep_me "$1"\n'), "--test-arg", "-q", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "a.reduced.cpp").read_text().strip() in ("keep_me", "keep_me;")


KERNEL = """#include <hip/hip_runtime.h>
typedef float f4 __attribute__((ext_vector_type(4)));
__device__ int unused_helper(int a) { return a * 3; }
__global__ __launch_bounds__(256, 2) void k(float* p, const float* a) {
  f4 acc = {0, 0, 0, 0};
  __shared__ float lds[256];
  lds[threadIdx.x] = a[blockIdx.x];
  __syncthreads();
  for (int i = 0; i < 64; ++i) acc = __builtin_amdgcn_mfma_f32_4x4x1f32(lds[i], a[i + 1], acc, 0, 0, 0);
  p[threadIdx.x + blockDim.x * blockIdx.y] = acc[0];
}
__global__ __launch_bounds__(128) void k2(float* p) { p[threadIdx.x] = 1; }
void launch(float* p, const float* a, hipStream_t s) { k<<<dim3(4), dim3(256), 0, s>>>(p, a); }
"""


@needs_clang22
def test_builtin_oracle_reduces_with_a_user_predicate(tmp_path):
    (tmp_path / "k.hip").write_text(KERNEL)
    # two passes that delete what the assertions look for: the rest of the default schedule shows nothing more here
    r = reduce("k.hip", "--no-explain", "--predicate", "lto.mfma >= 64 and nolto.mfma >= 64", "--kernel", "k(",
               "-j", 2, "-q", "--passes", "unreached,unused", "--", "-std=gnu++20", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    out = (tmp_path / "k.reduced.hip").read_text()
    assert "mfma" in out and "unused_helper" not in out and "k2" not in out
    workdir = tmp_path / "k.reduced.hip.work"
    bundle = (workdir / "bundle" / "README.md").read_text()  # ready for a bug report: both commands, figures
    assert (workdir / "bundle" / "k.hip").read_text() == out and (workdir / "bundle" / "repro.sh").exists()
    assert "-fno-offload-lto" in bundle and "--lto-emit-asm" in bundle and "`: holds." in bundle
    report = (workdir / "report.md").read_text()
    assert "## Kernel metrics" in report and "| v_mfma |" in report
    assert "guards: a kept candidate's guard builds (sanitizer checks, -ftrivial-auto-var-init modes) from one " \
        "front end" in (workdir / "log.txt").read_text()
    check = reduce("check", "k.reduced.hip", "--json", "--predicate", "lto.mfma >= 64 and nolto.mfma >= 64",
                   "--", "-std=gnu++20", cwd=tmp_path)
    assert check.returncode == 0, check.stderr
    assert json.loads(check.stdout)["interesting"] is True


@needs_clang22
def test_builtin_oracle_refuses_an_original_without_the_effect(tmp_path):
    (tmp_path / "k.hip").write_text(KERNEL)
    r = reduce("k.hip", "--no-explain", "--", "-std=gnu++20", cwd=tmp_path)
    assert r.returncode == 5 and "predicate false" in r.stderr
    r = reduce("check", "k.hip", "--", "-std=gnu++20", cwd=tmp_path)
    assert r.returncode == 5 and "verdict: not interesting" in r.stdout


def test_bad_predicate_is_a_clear_error(tmp_path):
    (tmp_path / "k.hip").write_text(KERNEL)
    r = reduce("check", "k.hip", "--predicate", "__import__('os').system('true')", cwd=tmp_path)
    assert r.returncode == 4 and "Traceback" not in r.stderr


@needs_gxx
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_or_term_keeps_the_best_so_far_and_leaves_no_temp_dirs(tmp_path, script, sig):
    """The signal is sent by a test of the run itself, once the result has shrunk, and that test
    then keeps the run waiting on it: it arrives mid-run, during a parallel batch, every time."""
    case = tmp_path / "case.cpp"
    case.write_bytes(CXX_CASE)
    out, pid_file, sent = tmp_path / "case.reduced.cpp", tmp_path / "reduce.pid", tmp_path / "sent"
    test = script(f'if [ -s {pid_file} ] && [ "$(stat -c %s {out})" -lt {len(CXX_CASE)} ] && mkdir {sent} 2>/dev/null; '
                  f'then kill -{sig.name[3:]} "$(cat {pid_file})"; sleep 1; fi\n' + GXX_TEST)
    env = private_tmp(tmp_path)
    proc = subprocess.Popen([*REDUCE, "case.cpp", "--test", str(test), "-j", "2"], cwd=tmp_path,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT), **env})
    pid_file.write_text(str(proc.pid))
    _, err = proc.communicate(timeout=120)
    assert sent.exists(), err
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    kept = out.read_bytes()
    assert len(kept) < len(CXX_CASE) and b"undeclared_thing" in kept
    time.sleep(0.5)
    assert not any(Path(env["TMPDIR"]).iterdir())


@needs_clang22
def test_reducing_a_positive_corpus_case_keeps_it_interesting(tmp_path):
    """Flatten the quick case's headers into its repro, reduce (comments, instantiation and unused
    declarations only, to stay within the suite's time), and `reduce check` the standalone result."""
    case = ROOT / "corpora" / "wgrad_quick_pos"
    flags = (case / "flags").read_text().split()
    out = tmp_path / "quick.hip"
    r = reduce(case / "repro.hip", "-o", out, "-j", 2, "-q", "--no-explain", "--passes", "comments,instantiate,unused",
               "--", *flags, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    reduced = out.read_text()
    assert "#include \"" not in reduced and "quick/" not in reduced  # one standalone file
    assert "template void launch_wgrad" not in reduced  # the instantiation became plain code
    assert len(reduced) < 10_000  # the flattened file is 12 KB
    check = reduce("check", out, "--json", "--", *flags, cwd=ROOT)
    assert check.returncode == 0, check.stdout + check.stderr
    report = json.loads(check.stdout)
    assert report["interesting"] and any(k["lto"]["vgpr_spills"] > 0 for k in report["kernels"])


@needs_gxx
def test_dask_cluster_gives_the_local_result(tmp_path, script):
    from dask.distributed import LocalCluster

    test = script(GXX_TEST)
    (tmp_path / "case.cpp").write_bytes(CXX_CASE)
    local = reduce("case.cpp", "--test", test, "-j", 1, "-q", "-o", "local.cpp", cwd=tmp_path)
    assert local.returncode == 0, local.stderr
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        r = reduce("case.cpp", "--test", test, "-j", 2, "-q", "-o", "dask.cpp",
                   "--backend", "dask", "--scheduler", cluster.scheduler_address, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "dask.cpp").read_bytes() == (tmp_path / "local.cpp").read_bytes()


def test_keep_artifacts_keeps_test_dirs_and_bypasses_the_cache(tmp_path, script):
    (tmp_path / "a.cpp").write_text("int keep_me;\nint drop_me;\n")
    test = script("grep -q keep_me a.cpp\n")
    cache = tmp_path / "cache"
    r = reduce("a.cpp", "--test", test, "--cache", "--cache-dir", cache, "-q", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = reduce("a.cpp", "--test", test, "--cache", "--cache-dir", cache, "--force", "-q",
               "--keep-artifacts", "kept", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "0 from the cache" in r.stderr
    assert len(list((tmp_path / "kept").glob("reduce-*/test-*/a.cpp"))) >= 2
