"""aliases and constants: a type alias or an integer constant is replaced at every use by what
it stands for, and its declaration goes, in one item."""
from conftest import needs_clang22
from transforms import PRELUDE, fixpoint, mfma_counts

from reducer.passes import REGISTRY
from reducer.text.edits import apply
from reducer.text.source import Source

KERNEL = PRELUDE + b"""
typedef unsigned idx_t;
constexpr int kReps = 2 * 2;
struct MfmaShape { using acc_t = f32x4_t; static constexpr int k = 32; };
struct Shape { using Mma = MfmaShape; static constexpr int kTileK = kReps * 8; };
__global__ void kern(const bf16x8_t* in, f32x4_t* out) {
  using S = Shape;
  const idx_t lane = threadIdx.x % 64;
  const unsigned stride = S::kTileK / 4;
  typename S::Mma::acc_t acc = {};
  for (int r = 0; r < kReps; ++r)
    acc = __builtin_amdgcn_mfma_f32_16x16x32_bf16(in[lane + r * stride], in[lane], acc, 0, 0, 0);
  out[lane + S::Mma::k] = acc;
}
__global__ void other(int* p) { using S = int; S x = 1; p[0] = x; }
"""


def test_alias_inlining_names_the_type_at_every_use():
    text, steps = fixpoint("aliases", KERNEL, level=1)
    body = text[len(PRELUDE):]
    assert b"using S" not in body and b"typedef" not in body and b"using Mma" not in body, body.decode()
    assert b"  f32x4_t acc = {};" in body and b"Shape::kTileK / 4" in body and b"lane + MfmaShape::k]" in body
    assert b"int x = 1;" in body  # the other kernel's local S is another alias
    assert b"const unsigned lane" in body and steps == 5
    assert Source(text, "cuda").error_count <= Source(KERNEL, "cuda").error_count


def test_constants_fold_to_literals_of_their_type():
    text, _ = fixpoint("constants", KERNEL)
    body = text[len(PRELUDE):]
    assert b"kReps" not in body and b"kTileK" not in body and b"stride" not in body, body.decode()
    assert b"r < 4;" in body and b"r * 8u]" in body and b"S::Mma::k]" not in body and b"+ 32]" in body


def test_a_constant_whose_value_is_unknown_stays():
    text = b"__device__ int f(int n) { const int m = n * 2; return m; }\n"
    assert REGISTRY["constants"].items(Source(text, "cuda"), 0) == []


@needs_clang22
def test_aliases_and_constants_keep_the_kernel_mfma_count():
    text, _ = fixpoint("constants", fixpoint("aliases", KERNEL, level=1)[0])
    assert mfma_counts(text) == mfma_counts(KERNEL) == [0, 4]


MERGE = PRELUDE + b"""
namespace lib {
template <int N> struct Vec { float v[N]; };
using __plain_t0 = Vec<4>;
__device__ float first(__plain_t0 a) { return a.v[0]; }
}
namespace lib {
using __plain_t1 = Vec<4>;
__device__ float second(__plain_t1 a) { return a.v[1]; }
}
namespace other { using __plain_t2 = lib::Vec<4>; }
__global__ void kern(float* out, const float* in) {
  lib::__plain_t1 x{};
  x.v[0] = in[threadIdx.x];
  out[threadIdx.x] = lib::first(x) + lib::second(x) + (float)sizeof(other::__plain_t2);
}
"""


@needs_clang22
def test_aliases_of_one_type_in_one_namespace_merge_into_the_first():
    """Level 0: a later alias spelled as an earlier one in the same namespaces goes and its uses
    take the earlier name, qualifier kept; one in another namespace stays."""
    items = REGISTRY["aliases"].items(Source(MERGE, "cuda"), 0)
    assert items is not None and len(items) == 1
    merged = apply(MERGE, items[0])
    assert b"__plain_t1" not in merged and b"lib::__plain_t0 x{};" in merged
    assert b"second(__plain_t0 a)" in merged and b"using __plain_t2 = lib::Vec<4>;" in merged
    assert len(merged) < len(MERGE) and mfma_counts(merged) == [0]  # it builds
    assert REGISTRY["aliases"].items(Source(merged, "cuda"), 0) == []
