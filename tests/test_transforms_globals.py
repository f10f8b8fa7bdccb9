"""global-to-local and local-to-global: a variable moves between file scope and a function only
in the forms that shrink the file."""
from conftest import needs_clang22
from transforms import PRELUDE, fixpoint, mfma_counts

from reducer.passes import REGISTRY
from reducer.text.source import Source

KERNEL = PRELUDE + b"""
static __device__ const int kStride = 64;
__constant__ int kScale[2] = {1, 2};
__device__ int counter = 0;
static __shared__ float tile_buf[64];
constexpr int kTwice = 1;
__device__ int lane(int i) {
  constexpr int kLanes = 64;
  return (i + kTwice) % kLanes;
}
__device__ int row(int i) {
  constexpr int kLanes = 64;
  tile_buf[i % 64] = 1.0f;
  return i / kLanes * kStride * kScale[1] + (int)tile_buf[0];
}
__global__ void kern(const bf16x8_t* in, f32x4_t* out) {
  f32x4_t acc = {};
  acc = __builtin_amdgcn_mfma_f32_16x16x32_bf16(in[lane(threadIdx.x)], in[row(threadIdx.x)], acc, 0, 0, 0);
  counter += 1;
  out[threadIdx.x + counter + kTwice] = acc;
}
"""
MOVED = b"""
__device__ int counter = 0;
constexpr int kTwice = 1;
constexpr int kLanes = 64;
__device__ int lane(int i) {
  return (i + kTwice) % kLanes;
}
__device__ int row(int i) { __shared__ float tile_buf[64]; int kScale[2] = {1, 2}; const int kStride = 64;
  tile_buf[i % 64] = 1.0f;
  return i / kLanes * kStride * kScale[1] + (int)tile_buf[0];
}
"""


def _moved(text: bytes) -> bytes:
    return fixpoint("local-to-global", fixpoint("global-to-local", text)[0])[0]


def test_variables_move_where_that_shrinks_the_file():
    text = _moved(KERNEL)
    assert text[len(PRELUDE):].startswith(MOVED), text.decode()  # `counter` is written, `kTwice` used twice
    assert Source(text, "cuda").error_count <= Source(KERNEL, "cuda").error_count


def test_a_move_of_the_same_size_or_into_shadowing_names_is_not_proposed():
    same_size = b"constexpr int k = 4;\n__device__ int f() { return k; }\n"
    shadowed = b"__device__ const int g = n;\n__device__ const int n = 2;\n__device__ int f(int n) { return g + n; }\n"
    one_copy = b"__device__ int f() { constexpr int k = 4; return k; }\n__device__ int h() { return 4; }\n"
    for text in (same_size, shadowed):
        assert REGISTRY["global-to-local"].items(Source(text, "cuda"), 0) == [], text
    assert REGISTRY["local-to-global"].items(Source(one_copy, "cuda"), 0) == []
    unfoldable = b"__device__ int f(int n) { const int k = n; return k; }\n__device__ int h(int n) { const int k = n; return k; }\n"
    assert REGISTRY["local-to-global"].items(Source(unfoldable, "cuda"), 0) == []


@needs_clang22
def test_moving_keeps_the_kernel_mfma_count():
    assert mfma_counts(_moved(KERNEL)) == mfma_counts(KERNEL) == [1]
