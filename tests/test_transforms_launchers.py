"""Launchers as real libraries write them (issue 28): the dispatch, generic lambdas, explicit
instantiations through aliases. Two small inputs of ours with exactly the shapes met: the
issue's (`template void ns::launch_impl<configs[1]>(...)`, a lambda `[&]<DataType DT>() {...}`
called as `typed_launch.template operator()<DataType::bf16>()` in a runtime dtype `if`, `if
constexpr (cfg.is_tf32())`, `__launch_bounds__(cfg.threads(), 1)`, `constexpr auto configs =
make_configs();`) and composable_kernel's (`template float bench::DeviceOp::Invoker::Run(...)`
through `using DeviceOp = ...<..., S<4, 64, 1>>` with `template <index_t... Is> using S = ...`,
`auto launch_kernel = [&](auto has_main_k_block_loop) {...}` called with
`integral_constant<bool, false>{}` in the `else` of a runtime `if`). Each is taken by the
passes a run schedules first (`branches`, `instantiate`, `unused`) to a plain kernel that
builds with the MFMAs of the branch kept."""
from conftest import needs_clang22
from transforms import PRELUDE, fixpoint, mfma_counts

from reducer.passes import REGISTRY
from reducer.passes.instantiate import _expand
from reducer.passes.names import qualified
from reducer.text.edits import apply
from reducer.text.source import Source

ISSUE = PRELUDE + b"""using f16x8_t = __attribute__((ext_vector_type(8))) _Float16;
enum class DataType { f16, bf16 };
struct LaunchParams { DataType input_type; const void* in; f32x4_t* out; int blocks; };
struct KernelConfig {
  int waves, reps;
  bool tf32;
  constexpr int threads() const { return waves * 64; }
  constexpr bool is_tf32() const { return tf32; }
  constexpr int steps() const { return reps * 2; }
};
struct ConfigTable {
  KernelConfig entries[4];
  constexpr const KernelConfig& operator[](int i) const { return entries[i]; }
};
constexpr ConfigTable make_configs() {
  ConfigTable t{};
  for (int i = 0; i < 4; ++i) t.entries[i] = KernelConfig{1 + i % 2, 1 + i, i == 3};
  return t;
}
constexpr auto configs = make_configs();

namespace ns {
template <DataType DT> struct vec_of;
template <> struct vec_of<DataType::bf16> { using type = bf16x8_t; };
template <> struct vec_of<DataType::f16> { using type = f16x8_t; };

template <typename V, KernelConfig cfg>
__global__ __launch_bounds__(cfg.threads(), 1) void mma_kernel(const V* in, f32x4_t* out) {
  f32x4_t acc = {};
#pragma unroll
  for (int s = 0; s < cfg.steps(); ++s) {
    if constexpr (sizeof(V) == 16 && __is_same(V, bf16x8_t))
      acc = __builtin_amdgcn_mfma_f32_16x16x32_bf16(in[threadIdx.x + s * cfg.threads()], in[s], acc, 0, 0, 0);
    else
      acc = __builtin_amdgcn_mfma_f32_16x16x32_f16(in[threadIdx.x + s * cfg.threads()], in[s], acc, 0, 0, 0);
  }
  out[blockIdx.x * cfg.threads() + threadIdx.x] = acc;
}

template <KernelConfig cfg>
void launch_impl(const LaunchParams& par, hipStream_t stream) {
  auto typed_launch = [&]<DataType DT>() {
    using V = typename vec_of<DT>::type;
    if constexpr (cfg.is_tf32()) {
      static_assert(DT == DataType::f16, "tf32 configs take fp16 only");
    } else {
      mma_kernel<V, cfg><<<par.blocks, cfg.threads(), 0, stream>>>(static_cast<const V*>(par.in), par.out);
    }
  };
  if (par.input_type == DataType::bf16)
    typed_launch.template operator()<DataType::bf16>();
  else
    typed_launch.template operator()<DataType::f16>();
}
}  // namespace ns

template void ns::launch_impl<configs[1]>(const LaunchParams&, hipStream_t);
"""

CK = PRELUDE + b"""namespace ck {
using index_t = int;
template <typename T, T v> struct integral_constant { static constexpr T value = v; };
template <index_t... Is> struct Sequence { static constexpr index_t size = sizeof...(Is); };
struct StreamConfig { hipStream_t stream_id_ = nullptr; int log_level_ = 0; };
namespace tensor_layout { struct NHWGC {}; struct GKYXC {}; }

template <typename... Args, typename F>
float launch_and_time_kernel(const StreamConfig& s, F kernel, dim3 grid, dim3 block, size_t lds, Args... args) {
  kernel<<<grid, block, lds, s.stream_id_>>>(args...);
  return 0.f;
}

template <typename Gemm, bool HasMainKBlockLoop>
__global__ __launch_bounds__(Gemm::BlockSize, 2) void kernel_gemm(const bf16x8_t* a, f32x4_t* c, index_t k) {
  f32x4_t acc = {};
  if constexpr (HasMainKBlockLoop) {
    for (index_t i = 0; i < k; ++i)
      acc = __builtin_amdgcn_mfma_f32_16x16x32_bf16(a[threadIdx.x + i], a[i], acc, 0, 0, 0);
  } else {
#pragma unroll
    for (index_t i = 0; i < Gemm::KPerBlock / 32; ++i)
      acc = __builtin_amdgcn_mfma_f32_16x16x32_bf16(a[threadIdx.x * i], a[i + 1], acc, 0, 0, 0);
  }
  c[blockIdx.x * Gemm::BlockSize + threadIdx.x] = acc;
}

namespace device {
template <typename ALayout, typename BLayout, index_t BlockSize_, index_t KPerBlock_, typename ClusterLengths>
struct DeviceGemmOp {
  static constexpr bool isMultiA = false;
  struct GridwiseGemm {
    static constexpr index_t BlockSize = BlockSize_;
    static constexpr index_t KPerBlock = KPerBlock_ * ClusterLengths::size;
    static constexpr bool CalculateHasMainKBlockLoop(index_t k) { return k > KPerBlock; }
  };
  struct Argument { const bf16x8_t* a; f32x4_t* c; index_t k, blocks; };
  struct Invoker {
    float RunGemm(const Argument& arg, const StreamConfig& stream_config) {
      auto launch_kernel = [&](auto has_main_k_block_loop) {
        constexpr bool has_main_loop = has_main_k_block_loop.value;
        if constexpr (isMultiA) {
          return 0.f;
        } else {
          const auto kernel = kernel_gemm<GridwiseGemm, has_main_loop>;
          return launch_and_time_kernel(stream_config, kernel, dim3(arg.blocks), dim3(BlockSize_), 0, arg.a, arg.c,
                                        arg.k);
        }
      };
      if (GridwiseGemm::CalculateHasMainKBlockLoop(arg.k)) {
        return launch_kernel(integral_constant<bool, true>{});
      } else {
        return launch_kernel(integral_constant<bool, false>{});
      }
    }
    float Run(const Argument& arg, const StreamConfig& stream_config = StreamConfig{}) {
      return RunGemm(arg, stream_config);
    }
  };
};
}  // namespace device
}  // namespace ck

namespace bench {
using namespace ck::tensor_layout;
template <ck::index_t... Is>
using S = ck::Sequence<Is...>;
using DeviceOp = ck::device::DeviceGemmOp<NHWGC, GKYXC, 256, 64, S<4, 64, 1>>;
}  // namespace bench

template float bench::DeviceOp::Invoker::Run(const bench::DeviceOp::Argument&, const ck::StreamConfig&);
"""


def item_touching(pass_name: str, text: bytes, level: int, needle: bytes, values=None):
    """The first item of the pass at `level` whose edits cover `needle`."""
    src = Source(text, "cuda", values.bind(lambda probe: text + probe) if values is not None else None)
    items = REGISTRY[pass_name].items(src, level) or []
    found = [item for item in items if any(needle in text[e.start:e.end] for e in item)]
    assert found, (pass_name, level, needle, len(items))
    return found[0]


def test_branches_takes_either_side_of_a_dispatch_only():
    """Level 0: the `else` (and cases); level 1: the `then` of an if whose branch names an
    instance (the target may be in the `else`), never of an `if constexpr` or a plain test."""
    items = {level: REGISTRY["branches"].items(Source(ISSUE, "cuda"), level) for level in (0, 1, 2)}
    assert items[2] is None and len(items[1]) == 1
    kept = apply(ISSUE, items[1][0])
    assert b"if (par.input_type" not in kept and b"typed_launch.template operator()<DataType::bf16>" not in kept
    assert b"\n  typed_launch.template operator()<DataType::f16>();\n}" in kept
    ck = REGISTRY["branches"].items(Source(CK, "cuda"), 1)
    assert len(ck) == 1 and b"{\n        return launch_kernel(integral_constant<bool, false>{});\n      }" in apply(CK, ck[0])
    plain = b"int f(int x) { if (x) return g<1>(); return 0; }\nint h(int x) { if (x > 2) return 1; else return 2; }\n"
    assert [apply(plain, i) for i in REGISTRY["branches"].items(Source(plain, "cpp"), 1)] == [
        b"int f(int x) {  return 0; }\nint h(int x) { if (x > 2) return 1; else return 2; }\n"]


def test_a_generic_lambda_is_a_template():
    """`vec_of<DT>` in `[&]<DataType DT>() {...}` names the lambda's parameter: once the
    launcher is plain, it must still wait (it was instantiated with `DT`, which meant nothing)."""
    one = ISSUE.replace(b"  else\n    typed_launch.template operator()<DataType::f16>();\n", b"")
    plain, _ = fixpoint("instantiate", one.replace(b"typed_launch.template operator()", b"typed_launch.operator()")
                        .replace(b"auto typed_launch", b"auto typed_launch2"))  # no lambda plan: it is not called
    assert b"vec_of<DT>" in plain and b"template <DataType DT> struct vec_of;" in plain


@needs_clang22
def test_the_issues_launcher_becomes_a_plain_kernel_for_either_dtype(tmp_path):
    """The fp16 `else` goes (branches, level 0), or else the bf16 `then` (level 1); then
    `instantiate` makes the launcher plain (`if constexpr (cfg.is_tf32())` folded by clang, so
    the fp16-only `static_assert` goes), the lambda called once becomes its body with `DT`
    bound, `vec_of` its specialisation and the kernel plain, launch bounds folded; `unused`
    then deletes the table and its generator."""
    from test_values import clang_values
    values = clang_values(tmp_path)
    for level, needle, mfma in ((0, b"else\n    typed", b"16x16x32_bf16"), (1, b"if (par.input_type", b"16x16x32_f16")):
        text = apply(ISSUE, item_touching("branches", ISSUE, level, needle))
        text, steps = fixpoint("instantiate", text, values)
        body = text[len(PRELUDE):]
        assert b"template" not in body and b"operator()" not in body and b"static_assert" not in body, body.decode()
        assert b"__global__ __launch_bounds__(128, 1) void mma_kernel(const typename vec_of::type* in" in body
        assert b"for (int s = 0; s < 4; ++s)" in body and b"mma_kernel<<<par.blocks, 128, 0, stream>>>" in body
        assert b"configs[" not in body and mfma in body and body.count(b"__builtin_amdgcn_mfma") == 1
        text, _ = fixpoint("unused", text)
        assert b"configs" not in text and b"KernelConfig" not in text
        assert mfma_counts(text) == [4]


@needs_clang22
def test_composable_kernels_launcher_is_taken_through_the_alias(tmp_path):
    """The target kernel is CK's `false` one, in the `else`: the `then` goes (branches, level 1);
    the device op, used once through `using DeviceOp = ...<NHWGC, GKYXC, 256, 64, S<4, 64, 1>>`
    (names of a using-directive, an alias template declared after the class), becomes the plain
    class and the explicit instantiation of its member goes with it; the lambda becomes its
    body with `has_main_k_block_loop.value` folded; the kernel built is the `false` one."""
    from test_values import clang_values
    values = clang_values(tmp_path)
    text = apply(CK, item_touching("branches", CK, 1, b"if (GridwiseGemm"))
    text, _ = fixpoint("instantiate", text, values)
    assert b"struct DeviceGemmOp {" in text and b"static constexpr index_t KPerBlock = 192;" in text, text.decode()
    assert b"using DeviceOp = ck::device::DeviceGemmOp;" in text and b"template float" not in text
    assert b"launch_kernel" not in text and b"{ constexpr bool has_main_loop = false;" in text
    assert b"dim3(256)" in text and mfma_counts(text) == [6]


def test_lambda_instantiation_needs_one_call_that_means_the_same():
    """Called twice, called from another lambda, with an init-capture, or with a name of its
    body declared again before the call: the lambda stays."""
    base = (b"struct tag { int v; };\nint f(int x) {\n  auto g = [&]<int K>(auto t) { return K + x; };\n"
            b"  CALL\n}\n")
    inst = REGISTRY["instantiate"]
    once = base.replace(b"CALL", b"return g.template operator()<3>(tag{1});")
    item = inst.items(Source(once, "cpp"), 0)
    # the unused argument (no effect) goes with the parameter nothing names any more
    assert len(item) == 1 and apply(once, item[0]).endswith(b"int f(int x) {\n  { return 3 + x; }\n}\n")
    used = once.replace(b"K + x", b"K + x + t.v")
    assert apply(used, inst.items(Source(used, "cpp"), 0)[0]).endswith(
        b"int f(int x) {\n  { auto t = tag{1}; return 3 + x + t.v; }\n}\n")
    for call in (b"g.template operator()<3>(tag{1}); return g.template operator()<4>(tag{1});",
                 b"auto h = [&] { return g.template operator()<3>(tag{1}); }; return h();",
                 b"{ int x = 2; return g.template operator()<3>(tag{1}); }"):
        assert inst.items(Source(base.replace(b"CALL", call), "cpp"), 0) == [], call
    # a static_assert on the parameters holds where the call goes; under an `if constexpr`
    # left unfolded it may be in a branch the call discarded, and would be checked once bound
    asserted = once.replace(b"return K + x;", b"static_assert(K > 2); return K + x;")
    assert len(inst.items(Source(asserted, "cpp"), 0)) == 1
    launcher = ISSUE.replace(b"  else\n    typed_launch.template operator()<DataType::f16>();\n", b"")
    lambdas = [i for i in inst.items(Source(launcher, "cuda"), 0)
               if any(launcher[e.start:e.end].strip().startswith(b"auto typed_launch") for e in i)]
    assert lambdas == []  # `cfg` is not bound yet: `if constexpr (cfg.is_tf32())` holds the static_assert
    for lam in (b"[y = x]", b"[&]<int K>(auto t) mutable"):
        assert inst.items(Source(once.replace(b"[&]<int K>(auto t)" if b"<" in lam else b"[&]", lam), "cpp"), 0) == []


def test_alias_templates_and_namespaces_in_arguments():
    aliases = {b"S": ([(b"Is", True, False)], b"ck::Sequence<Is...>"),
               b"P": ([(b"T", False, True), (b"N", False, False)], b"Pair<T, N * 2>")}
    assert _expand(b"ck::Tuple<S<4, 64, 1>, S<>, P<int, 3 + 1>, S<1, (2 > 1), 3>>", aliases) == \
        b"ck::Tuple<ck::Sequence<4, 64, 1>, ck::Sequence<>, Pair<int, (3 + 1) * 2>, ck::Sequence<1, (2 > 1), 3>>"
    assert _expand(b"S<X<P<int,1>>>", aliases) == b"ck::Sequence<X<Pair<int, 1 * 2>>>"
    text = (b"namespace a { struct T {}; int v; namespace b { int v; } }\nnamespace c { struct T {}; }\n"
            b"namespace a::b { void f(); }\n")
    src = Source(text, "cpp")
    # written in a::b, read in c: `v` meant a::b::v, `T` a::T (c has its own)
    assert qualified(src, b"X<T, v>", (b"c",), len(text), (b"a", b"b")) == b"X< ::a::T, ::a::b::v>"
    assert qualified(src, b"X<T, v>", (b"a", b"b"), len(text), (b"a", b"b")) == b"X<T, v>"
    assert qualified(src, b"v", (b"c",), 10, (b"a",)) is None  # declared after the place it would go
    # `%::` is the digraph `%:` then `:`, `:::` is `::` then `:`
    assert qualified(src, b"x%v ? v : v", (b"c",), len(text), (b"a", b"b")) == \
        b"x% ::a::b::v ? ::a::b::v : ::a::b::v"


def test_a_qualified_use_of_an_alias_loses_its_global_qualifier():
    """`W<::m::bf16_t>` (qualified by `instantiate`) must not become `W<::__bf16>`."""
    text = b"namespace m { using bf16_t = __bf16; }\nnamespace m::c { template <typename T> struct W {}; W<::m::bf16_t> w; }\n"
    items = REGISTRY["aliases"].items(Source(text, "cpp"), 1)
    assert [apply(text, i) for i in items] == [b"namespace m {  }\nnamespace m::c { template <typename T> struct W {}; W<__bf16> w; }\n"]
