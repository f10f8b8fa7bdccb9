"""aliases and constants: a type alias or an integer constant is replaced at every use by what
it stands for, and its declaration goes, in one item."""
import re
import subprocess

from conftest import CLANG, needs_clang22
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


# composable_kernel after `plain`: the footprint's `__plain_tN` aliases name one another, the
# printed function and the kernel name them, the kernel declares its own; and the library's
# class and function templates around them (member aliases over the class's parameters, used
# outside it or not, a template parameter named like one, a vector typedef, a `typename` before
# an alias used as a qualifier).
CK_SHAPE = b"""namespace ck {
template <int... Is> struct Sequence {};
template <typename... Ts> struct Tuple {};
template <typename T> struct PassThrough {};
template <typename Lengths, bool B> struct UnMerge {};
template <typename Ts, typename Lower, typename Upper, typename Visible, typename Size> struct TensorDescriptor {};
template <int N> struct MultiIndex { int v[N]; };
template <int NTransform, int NDimVisible> struct Adaptor {
  using VisibleIndex = MultiIndex<NDimVisible>;
  using HiddenIndex = MultiIndex<NDimVisible + 1>;
  using Lengths = Sequence<NTransform>;
  VisibleIndex idx;
};
template <typename Desc, typename VisibleIndex> __attribute__((device)) int offset(const Desc&, VisibleIndex) { return 0; }
template <typename A> __attribute__((device)) int transforms(typename A::Lengths l) { return sizeof(l); }
template <typename T> struct Vec {
  typedef T d4_t __attribute__((ext_vector_type(4)));
  d4_t v;
};
template <typename Seq> struct Split { using left_type = Seq; };
template <typename Seq> __attribute__((device)) int left() {
  using split = Split<Seq>;
  constexpr auto l = typename split::left_type{};
  return sizeof(l);
}
using __plain_t0 = ck::Sequence<0>;
using __plain_t1 = ck::Sequence<1, 2>;
using __plain_t2 = ck::Tuple<ck::UnMerge<ck::Tuple<int, int>, false>, ck::PassThrough<int>>;
using __plain_t3 = ck::TensorDescriptor<__plain_t2, ck::Tuple<__plain_t0>, ck::Tuple<__plain_t1, __plain_t1>, __plain_t1, long>;
using __plain_t4 = ck::Tuple<const __plain_t3 &, __plain_t0>;
__attribute__((device)) inline int __plain_Run(const __plain_t3 d, __plain_t4 *t, __plain_t1) { return sizeof(d) + sizeof(t); }
}
__attribute__((global)) void kern(const ck::__plain_t3 a, ck::__plain_t4 *b, float *out) {
  using __plain_t5 = ck::Tuple<ck::__plain_t1, ck::__plain_t3>;
  using __plain_t6 = ck::Tuple<__plain_t5, ck::__plain_t0>;
  __plain_t6 t{};
  ck::Adaptor<1, 2> ad{};
  ck::Adaptor<1, 2>::HiddenIndex hidden{};
  out[0] = sizeof(t) + sizeof(ck::Vec<float>) + ck::__plain_Run(a, b, ck::__plain_t1{}) + ck::offset(a, ad.idx)
      + ck::left<ck::Sequence<1>>() + hidden.v[0] + ck::transforms<ck::Adaptor<1, 2>>({});
}
"""


def _syntax_errors(text: bytes, tmp_path) -> str:
    (tmp_path / "t.hip").write_bytes(text)
    r = subprocess.run([str(CLANG), "-x", "hip", "--offload-arch=gfx950", "-nogpuinc", "-nogpulib", "-std=c++20",
                        "--offload-device-only", "-fsyntax-only", "t.hip"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=60)
    return r.stderr if r.returncode else ""


@needs_clang22
def test_every_chunk_of_nested_aliases_compiles(tmp_path):
    """Level 1's items compose in any chunk ddmin may try (every run of consecutive items): an
    alias whose type names another is offered only when that other is not, since the union
    would delete the other and paste its name back through the first's type."""
    assert not _syntax_errors(CK_SHAPE, tmp_path)
    items = REGISTRY["aliases"].items(Source(CK_SHAPE, "cuda"), 1)
    assert items and len(items) >= 5
    failures = []
    for i in range(len(items)):
        for j in range(i + 1, len(items) + 1):
            chunk = apply(CK_SHAPE, [e for item in items[i:j] for e in item])
            if errors := _syntax_errors(chunk, tmp_path):
                failures.append(f"items {i}..{j - 1}: {errors[:400]}")
    assert not failures, "\n".join(failures)
    # what waited is offered once the aliases it names are gone; what the file would grow by
    # inlining (long types used more than once) is never offered
    text, steps = CK_SHAPE, 0
    while items := REGISTRY["aliases"].items(Source(text, "cuda"), 1):
        assert all(len(apply(text, list(item))) < len(text) for item in items)
        text, steps = apply(text, [e for item in items for e in item]), steps + 1
    left = set(re.findall(rb"using (__plain_t\d+) =", text))
    assert left == {b"__plain_t1", b"__plain_t3", b"__plain_t4"} and steps >= 2, text.decode()
    assert b"  MultiIndex<NDimVisible> idx;" in text and b"typename Desc, typename VisibleIndex>" in text
    assert b"typedef T d4_t __attribute__((ext_vector_type(4)));" in text
    assert b"using HiddenIndex" in text and b"using Lengths" in text  # used outside their class template
    assert b"constexpr auto l = typename Split<Seq>::left_type{};" in text
    assert not _syntax_errors(text, tmp_path)


SHADOWED = b"""template <int... Is> struct seq {};
struct holder { using ids = seq<1>; };
template <class V> struct sorter { using sort = V; using map = typename sort::ids; };
template <class V> struct unique { using sort = sorter<V>; using ids = typename sort::map; };
unique<holder>::ids x;
"""


@needs_clang22
def test_a_member_used_outside_its_class_is_not_inlined_where_a_name_it_spells_means_another_thing(tmp_path):
    """`map`'s type names its class's `sort`; pasted into `unique`, whose `sort` is another type,
    it would name `sorter<holder>::ids`, which does not exist (ck_tile's `sequence_sort`, refused
    by the compiler after every kept chunk of a 30-minute run). The other two aliases go."""
    assert not _syntax_errors(SHADOWED, tmp_path)
    items = REGISTRY["aliases"].items(Source(SHADOWED, "cuda"), 1)
    assert len(items) == 2 and all(b"using map" in apply(SHADOWED, list(i)) for i in items)
    for item in items:
        assert not _syntax_errors(apply(SHADOWED, list(item)), tmp_path)
