"""conditionals: the compiler says which branch of each #if the device compile takes; that
branch stays, the directives and the other branches go. Then a macro defined in an #ifdef/#else
pair is defined once and `macros` can expand it, so the kernel parses as what clang sees."""
from conftest import needs_clang22
from test_values import clang_values
from transforms import PRELUDE, mfma_counts

from reducer.passes import REGISTRY
from reducer.text.edits import apply
from reducer.text.source import Source

pytestmark = needs_clang22

# Written the way mfconv and Composable Kernel are: attribute macros chosen by #ifdef, arch
# switches, a disabled debug block, an include guard, and `#if` inside a kernel's declaration.
LIBRARY = PRELUDE + b"""#ifndef LIB_CONFIG_HPP
#define LIB_CONFIG_HPP
#ifdef __HIPCC__
#define LIB_HOST_DEVICE inline __host__ __device__
#else
#define LIB_HOST_DEVICE inline
#endif
#if defined(__gfx950__)
#define LIB_MFMA_K 32
#elif defined(__gfx942__)
#define LIB_MFMA_K 16
#else
#error "unsupported target"
#endif
#if 0
LIB_HOST_DEVICE int debug_only() { return undeclared_thing; }
#endif
#ifndef LIB_USE_LAUNCH_BOUNDS
#define LIB_USE_LAUNCH_BOUNDS 1
#endif
#endif
LIB_HOST_DEVICE int scale(int x) { return x * 2; }
LIB_HOST_DEVICE int twice(int x) { return scale(x) + 0; }
template <int N>
__global__ void
#if LIB_USE_LAUNCH_BOUNDS
__launch_bounds__(256, 2)
#endif
    kern(const bf16x8_t* in, f32x4_t* out) {
  f32x4_t acc = {};
  for (int r = 0; r < N * LIB_MFMA_K / 32; ++r)
    acc = __builtin_amdgcn_mfma_f32_16x16x32_bf16(in[threadIdx.x + twice(r)], in[threadIdx.x], acc, 0, 0, 0);
  out[threadIdx.x] = acc;
}
template __global__ void kern<4>(const bf16x8_t*, f32x4_t*);
"""


def applied(pass_name: str, text: bytes, values) -> bytes:
    """All of the pass's items at once, as the engine's first chunk tries them."""
    ask = values.bind(lambda probe, part=text: part + probe)
    items = REGISTRY[pass_name].items(Source(text, "cuda", ask), 0) or []
    return apply(text, [e for item in items for e in item])


def test_the_taken_branches_stay_and_the_macros_then_expand(tmp_path):
    values = clang_values(tmp_path)
    kept = applied("conditionals", LIBRARY, values)
    body = kept[len(PRELUDE):]
    assert b"#if" not in body and b"#else" not in body and b"#endif" not in body and b"#error" not in body
    assert b"#define LIB_HOST_DEVICE inline __host__ __device__\n" in body and b"inline\n" not in body
    assert b"#define LIB_MFMA_K 32\n" in body and b"LIB_MFMA_K 16" not in body and b"debug_only" not in body
    assert b"__global__ void\n__launch_bounds__(256, 2)\n    kern" in body
    assert mfma_counts(kept) == mfma_counts(LIBRARY) == [4]
    # every macro is defined once now: expanded, the kernel parses as the template it is
    expanded = applied("macros", kept, values)
    tree = Source(expanded, "cuda")
    assert b"LIB_HOST_DEVICE" not in expanded and b"LIB_MFMA_K" not in expanded  # unused ones are `unused`'s
    assert tree.error_count == Source(PRELUDE, "cuda").error_count < Source(LIBRARY, "cuda").error_count
    kernel = next(n for n in tree.nodes() if n.type == "template_declaration" and b"kern(" in n.text)
    assert kernel.named_children[-1].type == "function_definition"
    assert b"inline __host__ __device__ int scale" in expanded
    assert mfma_counts(expanded) == [4]
    # and it can be instantiated, which the `#if` in its declaration prevented
    assert REGISTRY["instantiate"].items(Source(LIBRARY, "cuda"), 0) == []
    assert b"template" not in applied("instantiate", expanded, values)[len(PRELUDE):]


def test_without_a_compiler_to_ask_nothing_is_proposed():
    assert REGISTRY["conditionals"].items(Source(LIBRARY, "cuda"), 0) == []
