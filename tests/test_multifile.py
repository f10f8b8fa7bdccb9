"""Multi-file runs without flattening: the main file and its project headers are reduced as one
file set. Script oracle runs (fast), a resume, and the spill oracle on a real kernel split across
a main file and two headers, compiled with the real clang."""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CLANG, ROOT, needs_clang22, write_script
from kernels import PRESSURE, SMALL

from interestingness.base.bundle import BundleError, Tree, decode, encode, materialise
from reducer.engine.cache import VerdictCache
from reducer.text.fileset import collect

REDUCE = [sys.executable, "-m", "reducer.cli"]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def reduce(*args, cwd: Path):
    return subprocess.run([*REDUCE, *map(str, args)], cwd=cwd, capture_output=True, text=True, env=ENV)


def snapshot(d: Path) -> dict[str, bytes]:
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


# --- the bundle and the file set ---------------------------------------------------------------

def test_bundle_round_trip_and_names_that_would_escape():
    members = [("m.cpp", b"int main;\n"), ("inc/lib/a.h", b""), ("b.h", b"7 x.h\n\0binary")]
    assert decode(encode(members)) == members
    for bad in ("/etc/passwd", "../x.h", "a/../../x.h", "a\nb", "", "./a.h"):
        with pytest.raises(BundleError):
            encode([(bad, b"")])
    with pytest.raises(BundleError):
        decode(encode(members)[:-3])


def test_collect_finds_the_headers_flatten_would_inline_and_keeps_their_layout(tmp_path):
    (tmp_path / "proj" / "inc" / "lib").mkdir(parents=True)
    (tmp_path / "proj" / "src").mkdir()
    (tmp_path / "proj" / "inc" / "lib" / "a.h").write_text('#pragma once\n#include "b.h"\nint a;\n')
    (tmp_path / "proj" / "inc" / "lib" / "b.h").write_text("int b;\n")
    (tmp_path / "proj" / "src" / "local.h").write_text("int local;\n")
    main = tmp_path / "proj" / "src" / "m.cpp"
    text = b'#include <vector>\n#include <lib/a.h>\n#include "local.h"\n'
    main.write_bytes(text)
    tree, data = collect(main, text, [tmp_path / "proj" / "inc", tmp_path / "elsewhere"])
    assert tree == Tree(str(tmp_path / "proj"), "src/m.cpp")
    assert [n for n, _ in decode(data)] == ["src/m.cpp", "inc/lib/a.h", "inc/lib/b.h", "src/local.h"]
    assert decode(data)[0][1] == text
    # the include dirs under the root point to the copies first, the originals follow
    inc = str(tmp_path / "proj" / "inc")
    assert tree.rewrite_flags(["-I", inc, f"-I{tmp_path}/elsewhere", "-isystem/usr/x", "-O2"], "src") == (
        "-Isrc/inc", "-I", inc, f"-I{tmp_path}/elsewhere", "-isystem/usr/x", "-O2")
    copy = tmp_path / "copy"
    assert materialise(copy, data)[0] == copy / "src" / "m.cpp"
    assert (copy / "inc" / "lib" / "b.h").read_text() == "int b;\n"
    assert collect(main, b"#include <vector>\n", [tmp_path / "proj" / "inc"]) is None  # nothing to set apart


# --- script oracle: a real run ------------------------------------------------------------------

MAIN = """#include <stdio.h>
#include <lib/util.h>
#include "local.h"
int main_unused(int a, int b) { return a * b; }
int main(void) {
  int v = keep_in_header(3);
  return v + local_marker;
}
"""
UTIL = """#pragma once
#include "detail.h"
int util_unused_a(int x) { return x + 1; }
int keep_in_header(int x) { return x * 2; }
int util_unused_b(int x) { return x - 1; }
"""
DETAIL = "#ifndef DETAIL_H\n#define DETAIL_H\nstruct Detail { int a; int b; };\nint detail_unused(int q) { return q; }\n#endif\n"
LOCAL = "int local_unused(void) { return 3; }\nint local_marker = 7;\n"
# What the script sees: the main file in its directory, the headers at their relative paths.
SCRIPT = ("grep -q keep_in_header main.c && grep -q 'x \\* 2' inc/lib/util.h && grep -q local_marker local.h "
          "&& grep -q local_marker main.c && test -f inc/lib/detail.h\n")


def script_case(d: Path) -> Path:
    (d / "inc" / "lib").mkdir(parents=True)
    (d / "main.c").write_text(MAIN)
    (d / "inc" / "lib" / "util.h").write_text(UTIL)
    (d / "inc" / "lib" / "detail.h").write_text(DETAIL)
    (d / "local.h").write_text(LOCAL)
    return write_script(d.parent / f"{d.name}-test.sh", SCRIPT)


def test_script_run_reduces_the_main_file_and_its_headers_and_touches_none_of_them(tmp_path):
    d = tmp_path / "case"
    d.mkdir()
    test = script_case(d)
    before = snapshot(d)
    r = reduce("main.c", "--test", test, "-I", "inc", "-j", 2, "-q", cwd=d)
    assert r.returncode == 0, r.stderr
    files = d / "main.reduced.c.files"
    assert {k: v for k, v in snapshot(d).items() if not k.startswith("main.reduced.c")} == before  # untouched
    out = snapshot(files)
    assert set(out) == {"main.c", "inc/lib/util.h", "inc/lib/detail.h", "local.h"}
    assert out["main.c"] == (d / "main.reduced.c").read_bytes()
    assert b"keep_in_header" in out["main.c"] and len(out["main.c"]) < len(MAIN) / 3
    assert b"x * 2" in out["inc/lib/util.h"] and b"unused" not in out["inc/lib/util.h"]
    assert out["inc/lib/detail.h"].strip() == b""  # reduced to nothing, but still there
    assert b"local_unused" not in out["local.h"]
    assert "inc/lib/util.h: 163 -> " in r.stdout + r.stderr  # sizes per file, and in total
    summary = json.loads((d / "main.reduced.c.work" / "summary.json").read_text())
    assert [f["file"] for f in summary["files"]] == ["main.c", "inc/lib/util.h", "inc/lib/detail.h", "local.h"]
    assert summary["bytes"]["result"] == sum(len(v) for v in out.values())
    assert summary["bytes"]["original"] == len(MAIN) + len(UTIL) + len(DETAIL) + len(LOCAL)
    assert "| `inc/lib/util.h` | 163 |" in (d / "main.reduced.c.work" / "report.md").read_text()


def test_a_script_that_accepts_a_set_of_empty_files_is_refused(tmp_path):
    """The empty candidate of a file set is every file there, and empty."""
    d = tmp_path / "case"
    d.mkdir()
    script_case(d)
    files_only = write_script(tmp_path / "t.sh", "test -f main.c && test -f inc/lib/detail.h && test -f local.h\n")
    r = reduce("main.c", "--test", files_only, "-I", "inc", "-q", cwd=d)
    assert r.returncode == 5 and "the test accepts an empty file: it is almost certainly broken" in r.stderr
    assert not (d / "main.reduced.c.work").exists() and not (d / "main.reduced.c.files").exists()
    r = reduce("main.c", "--test", files_only, "-I", "inc", "-q", "--allow-empty", cwd=d)
    assert r.returncode == 0, r.stderr
    assert all(not p.read_bytes().strip() for p in (d / "main.reduced.c.files").rglob("*") if p.is_file())


def test_flattening_a_script_run_still_gives_one_file(tmp_path):
    d = tmp_path / "case"
    d.mkdir()
    test = write_script(tmp_path / "t.sh", "grep -q keep_in_header main.c && grep -q local_marker main.c\n")
    script_case(d)
    r = reduce("main.c", "--test", test, "-I", "inc", "--flatten", "-q", cwd=d)
    assert r.returncode == 0, r.stderr
    assert not (d / "main.reduced.c.files").exists()
    assert b"#include" not in (d / "main.reduced.c").read_bytes().replace(b"#include <stdio.h>", b"")


def test_a_stopped_multi_file_run_resumes_to_the_uninterrupted_result(tmp_path):
    ref, run = tmp_path / "ref", tmp_path / "run"
    for d in (ref, run):
        d.mkdir()
    r = reduce("main.c", "--test", script_case(ref), "-I", "inc", "-j", 2, "-q", cwd=ref)
    assert r.returncode == 0, r.stderr
    r = reduce("main.c", "--test", script_case(run), "-I", "inc", "-j", 2, "-q", "--max-tests", 25, cwd=run)
    assert r.returncode == 7, r.stderr
    # the user edits a header meanwhile: the run goes on from the texts it started with
    (run / "inc" / "lib" / "util.h").write_text("int keep_in_header;\n")
    r = reduce("resume", run / "main.reduced.c.work", "--max-tests", 100_000, cwd=run)
    assert r.returncode == 0, r.stderr
    assert "replayed from the journal" in r.stderr
    assert snapshot(run / "main.reduced.c.files") == snapshot(ref / "main.reduced.c.files")
    assert (run / "main.reduced.c").read_bytes() == (ref / "main.reduced.c").read_bytes()


# --- spill oracle: a real kernel in three files -------------------------------------------------

# the small kernel (tests/kernels.py's SMALL: spills with a quarter of pressure(140)'s code, each build
# about half the time); N 8 under its bound does not spill
PARAMS = (f"#ifndef PARAMS_H\n#define PARAMS_H\n#define N {SMALL[0]}\n#define BOUND {SMALL[1]}\n"
          "__device__ int params_unused(int q) { return q * 5 + 1; }\n#endif\n")
KERNEL_H = ('#pragma once\n#include "params.h"\n__device__ float pressure_unused(float x) { return x * 0.5f; }\n'
            + PRESSURE.replace("#include <hip/hip_runtime.h>\n", ""))
KERNEL_MAIN = '#include <hip/hip_runtime.h>\n#include "kern/pressure.h"\n__device__ int main_unused(int a) { return a + 41; }\n'
SPILLS = "lto.spill_ops > 0"


def kernel_case(d: Path) -> None:
    (d / "inc" / "kern").mkdir(parents=True)
    (d / "inc" / "kern" / "params.h").write_text(PARAMS)
    (d / "inc" / "kern" / "pressure.h").write_text(KERNEL_H)
    (d / "k.hip").write_text(KERNEL_MAIN)


@needs_clang22
def test_spill_oracle_compiles_the_file_set_and_a_changed_header_is_a_new_key(tmp_path):
    from interestingness.oracle.spill import SpillSetup

    kernel_case(tmp_path)
    tree, data = collect(tmp_path / "k.hip", KERNEL_MAIN.encode(), [tmp_path / "inc"])
    assert [n for n, _ in decode(data)] == ["k.hip", "inc/kern/pressure.h", "inc/kern/params.h"]
    work = tmp_path / "work"
    work.mkdir()

    def oracle():
        return SpillSetup("k.hip", ["-Iinc"], None, SPILLS, tmp_dir=work, cwd=tmp_path, tree=tree)

    o = oracle().resolve(data)
    assert o.test(data).interesting
    members = dict(decode(data))
    calm = encode([(n, t.replace(f"#define N {SMALL[0]}".encode(), b"#define N 8")) for n, t in members.items()])
    assert not o.test(calm).interesting  # the header the compile reads is the candidate's, not the user's
    # the user's header is not read: changing it on disk changes no verdict of a candidate
    (tmp_path / "inc" / "kern" / "params.h").write_text(PARAMS.replace(f"N {SMALL[0]}", "N 8"))
    assert o.test(data).interesting
    # the identity does not depend on a test's temp paths, so a resumed run (a new oracle) matches it
    assert oracle().restore(o.settings(), data).identity() == o.identity()
    cache = VerdictCache(tmp_path / "cache", o.identity())
    cache.put(data, o.test(data))
    assert cache.get(data).interesting
    assert cache.get(calm) is None  # another header content: never the cached verdict


@needs_clang22
def test_spill_run_without_flattening_reduces_the_headers_into_the_output_tree(tmp_path):
    kernel_case(tmp_path)
    before = snapshot(tmp_path)
    cache = tmp_path / "cache"
    args = ["k.hip", "--no-flatten", "--predicate", SPILLS, "--passes", "unused", "-j", 2, "-q",
            "--cache-dir", cache]
    r = reduce(*args, "--no-explain", "--", "-Iinc", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert {k: v for k, v in snapshot(tmp_path).items() if k.startswith(("k.hip", "inc/"))} == before
    out = snapshot(tmp_path / "k.reduced.hip.files")
    assert set(out) == {"k.hip", "inc/kern/pressure.h", "inc/kern/params.h"}
    assert b"main_unused" not in out["k.hip"] and b"pressure_unused" not in out["inc/kern/pressure.h"]
    assert b"params_unused" not in out["inc/kern/params.h"] and b"__global__" in out["inc/kern/pressure.h"]
    report = tmp_path / "k.reduced.hip.work" / "bundle"
    assert snapshot(report / "src") == snapshot(tmp_path / "k.reduced.hip.files")
    assert "-I src/inc" in (report / "README.md").read_text() and " src/k.hip" in (report / "README.md").read_text()
    ran = subprocess.run([str(report / "repro.sh")], capture_output=True, text=True,
                         env={**os.environ, "CLANG": str(CLANG)})
    assert ran.returncode == 0 and "verdict: INTERESTING" in ran.stdout, ran.stdout + ran.stderr
    # the same run again is answered by the cache; with a header changed on disk it is not
    r = reduce(*args, "--force", "--no-explain", "--", "-Iinc", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert int(re.search(r"(\d+) from the cache", r.stderr).group(1)) > 0
    (tmp_path / "inc" / "kern" / "params.h").write_text(PARAMS.replace(f"N {SMALL[0]}", "N 8"))
    r = reduce(*args, "--force", "--no-explain", "--", "-Iinc", cwd=tmp_path)
    assert r.returncode == 5 and "not interesting" in r.stderr, r.stderr
