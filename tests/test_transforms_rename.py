"""rename: each name the file declares becomes the shortest unused one at every occurrence,
except where the file does not own the name. Off by default (`--rename`)."""
import json

from conftest import needs_clang22
from test_cli import reduce
from transforms import PRELUDE, fixpoint, mfma_counts

from reducer import passes
from reducer.engine.schedule import Schedule
from reducer.text.edits import apply
from reducer.text.source import Source

KERNEL = PRELUDE + b"""#define TILE_ROWS 16
#ifndef GUARD_VALUE
#define GUARD_VALUE 1
#endif
namespace detail { struct Tile { int rows; int cols; }; }
template <typename Elem, int kWidth> __device__ Elem pick(const Elem* values, int index) { return values[index % kWidth]; }
__device__ int lane_id() { return threadIdx.x % 64; }
__global__ void my_kernel(const bf16x8_t* input, f32x4_t* output) {
  detail::Tile tile{TILE_ROWS, GUARD_VALUE};
  const char* label = "tile";
  f32x4_t accum = {};
  accum = __builtin_amdgcn_mfma_f32_16x16x32_bf16(pick<bf16x8_t, 4>(input, lane_id()), input[tile.rows], accum, 0, 0, 0);
  output[lane_id() + tile.cols + label[0]] = accum;
}
"""
RENAMED = b"""#include <hip/hip_runtime.h>
using a = __attribute__((ext_vector_type(8))) __bf16;
using b = __attribute__((ext_vector_type(4))) float;
#define g 16
#ifndef GUARD_VALUE
#define GUARD_VALUE 1
#endif
namespace j { struct q { int r; int s; }; }
template <typename k, int l> __device__ k t(const k* m, int o) { return m[o % l]; }
__device__ int c() { return threadIdx.x % 64; }
__global__ void my_kernel(const a* i, b* n) {
  j::q tile{g, GUARD_VALUE};
  const char* p = "tile";
  b e = {};
  e = __builtin_amdgcn_mfma_f32_16x16x32_bf16(t<a, 4>(i, c()), i[tile.r], e, 0, 0, 0);
  n[c() + tile.s + p[0]] = e;
}
"""


def test_names_get_the_shortest_free_names_the_most_used_first():
    items = passes.REGISTRY["rename"].items(Source(KERNEL, "cuda"), 0)
    assert apply(KERNEL, [e for item in items for e in item]) == RENAMED  # items compose: each has its own name
    assert fixpoint("rename", KERNEL)[0] == RENAMED
    # kept: the kernel, a name in a string (`tile`), one in `#ifndef`, the shim's `threadIdx` and `x`


def test_names_the_file_does_not_own_stay():
    text = b"""#include <tile/layout.h>
#define CAT(left, right) left##right
int layout = 1;
int min(int p, int q) { return p < q ? p : q; }
int main() { int CAT(counter, _value) = std::min(1, 2); return __builtin_abs(counter_value) + min(3, 4); }
"""
    renamed = {text[item[0].start:item[0].end] for item in passes.REGISTRY["rename"].items(Source(text, "cuda"), 0)}
    assert renamed == {b"CAT"}  # included, pasted, std-qualified, reserved, `main` and 1-letter names stay


def test_rename_is_registered_but_only_scheduled_on_request():
    assert "rename" in passes.REGISTRY and "rename" not in passes.MAIN
    assert [p.name for p in Schedule.from_registry(None).main] == list(passes.MAIN)
    assert [p.name for p in Schedule.from_registry(None, rename=True).main] == [*passes.MAIN, "rename"]
    assert [p.name for p in Schedule.from_registry(["lines"], rename=True).main] == ["lines", "rename"]


def test_the_cli_flag_reaches_the_run_config(tmp_path, script):
    case = tmp_path / "case.cpp"
    case.write_bytes(b"int counter_value = 41;\nint main() { return counter_value; }\n")
    test = script("grep -q 41 case.cpp\n")
    for flag, kept in (("--rename", False), ("--no-rename", True)):
        out = tmp_path / f"out{flag}.cpp"
        r = reduce(case, "--test", test, "-j", 1, "-q", "--passes", "blank", flag, "-o", out, cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        assert (b"counter_value" in out.read_bytes()) == kept, out.read_bytes()
        assert json.loads((tmp_path / f"out{flag}.cpp.work" / "run.json").read_text())["rename"] == (not kept)


@needs_clang22
def test_renaming_keeps_the_kernel_and_its_mfma_count():
    assert mfma_counts(RENAMED) == mfma_counts(KERNEL) == [1]
