"""instantiate: a template with one argument list becomes the plain function or class."""
from conftest import needs_clang22
from kernels import PRESSURE
from transforms import PRELUDE, fixpoint, mfma_counts

from interestingness.oracle.spill import SpillSetup, base_name
from reducer.passes import REGISTRY
from reducer.text.edits import apply
from reducer.text.source import Source

KERNEL = PRELUDE + b"""
struct Config {
  int reps, waves;
  int unroll = 1;
  int mfma = 16;
  constexpr int tile() const { return reps * waves * mfma; }
  constexpr int k() const { return mfma == 16 ? 32 : 16; }
};
constexpr Config configs[] = {{1, 1}, {2, 4, .unroll = 0}, {.reps = 3, .waves = 2}};

template <typename Acc> __device__ Acc zero() { return Acc{}; }
template <int N> __device__ f32x4_t step(bf16x8_t a, f32x4_t c) {
  if constexpr (N == 16) return __builtin_amdgcn_mfma_f32_16x16x32_bf16(a, a, c, 0, 0, 0);
  else { static_assert(N == 16, "other shapes"); return c; }  // discarded: must not survive
}
template <Config C> __global__ __launch_bounds__(256, 2) void kern(const bf16x8_t* in, f32x4_t* out) {
  f32x4_t acc = zero<f32x4_t>();
#pragma unroll
  for (int r = 0; r < C.reps * C.waves; ++r) acc = step<C.mfma>(in[threadIdx.x + r * C.tile()], acc);
  if constexpr (C.unroll) out[threadIdx.x] = acc; else out[threadIdx.x + C.k()] = acc;
}
template <Config C> void launch(const bf16x8_t* in, f32x4_t* out) { kern<C><<<1, 256>>>(in, out); }
template void launch<configs[1]>(const bf16x8_t*, f32x4_t*);
"""


def test_instantiation_folds_the_config_and_keeps_the_taken_branch():
    text, steps = fixpoint("instantiate", KERNEL)
    body = text[len(PRELUDE):]
    assert steps == 4 and b"template" not in body, body.decode()  # launch, kern, zero, step
    assert b"r < 8;" in body and b"r * 128]" in body and b"out[threadIdx.x + 32] = acc;" in body
    assert b"static_assert" not in body and b"<<<1, 256>>>" in body
    assert Source(text, "cuda").error_count <= Source(KERNEL, "cuda").error_count


@needs_clang22
def test_instantiation_keeps_the_kernel_mfma_count():
    text, _ = fixpoint("instantiate", KERNEL)
    assert mfma_counts(text) == mfma_counts(KERNEL) == [8]


def test_templates_with_two_argument_lists_or_local_arguments_stay():
    two = KERNEL + b"template void launch<configs[2]>(const bf16x8_t*, f32x4_t*);\n"
    # the template stays; only its explicit instantiations may go, one item each (a focused run
    # targets one kernel: once one instantiation is left, the template can be instantiated)
    items = REGISTRY["instantiate"].items(Source(two, "cuda"), 0)
    assert [two[e.start:e.end] for item in items for e in item if not e.replacement] == [
        b"template void launch<configs[1]>(const bf16x8_t*, f32x4_t*);\n",
        b"template void launch<configs[2]>(const bf16x8_t*, f32x4_t*);\n"] and len(items) == 2
    local = b"template <typename T> T id(T x) { return x; }\nvoid f() { struct L {}; id<L>(L{}); }\n"
    assert REGISTRY["instantiate"].items(Source(local, "cuda"), 0) == []


def test_base_names_of_kernels():
    assert base_name("_ZN7hipconv5cdna412direct_wgrad12wgrad_kernelILNS_6ConfigE0EEEvNS_10ConvParamsE") == "wgrad_kernel"
    assert base_name("_Z5spillPfPKfi") == "spill" and base_name("plain_c_kernel") == "plain_c_kernel"


@needs_clang22
def test_the_oracle_still_finds_an_instantiated_kernel(tmp_path):
    """The instantiated kernel has another mangled name; the oracle must follow it, or no
    reduction could ever take the kernel out of its template."""
    template = ("#define BOUND\n" + PRESSURE.replace("__global__ BOUND void spill(", "template <int N> __global__ BOUND void spill(")
                + "template __global__ void spill<140>(float* __restrict__, const float* __restrict__, int);\n").encode()
    oracle = SpillSetup("k.hip", [], None, "lto.spill_ops > 0 and nolto.spill_ops > 0", tmp_dir=tmp_path,
                        cwd=tmp_path).resolve(template)
    plain, steps = fixpoint("instantiate", template)
    assert steps == 1 and b"template" not in plain
    assert oracle.targets == ("_Z5spillILi140EEvPfPKfi",)
    assert oracle.test(plain).interesting
    assert not oracle.test(plain.replace(b"void spill(", b"void other(")).interesting


def test_a_use_packed_against_a_name_keeps_a_space():
    text = b"template <int N> struct Box { int v[N]; };\nvoid f() { Box<3>b; b.v[0] = 1; }\n"
    out, _ = fixpoint("instantiate", text)
    assert out == b"struct Box { int v[3]; };\nvoid f() { Box b; b.v[0] = 1; }\n"


def test_explicit_specialisations_and_order_of_declarations():
    spec = (b"template <int S> struct Mma { static constexpr int m = S; };\n"
            b"template <> struct Mma<32> { static constexpr int m = 32; using acc_t = float; };\n"
            b"template <> struct Mma<16> { static constexpr int m = 16; };\n"
            b"int f() { Mma<32>::acc_t x = Mma<32>::m; return x; }\n")
    out, _ = fixpoint("instantiate", spec)
    assert out == b"struct Mma { static constexpr int m = 32; using acc_t = float; };\nint f() { Mma::acc_t x = Mma::m; return x; }\n"
    # a use spelling a defaulted argument is the specialisation that leaves it out (ck_tile's
    # WarpGemmMfmaDispatcher, as the plugin's plain code names it)
    defaulted = (b"template <int S, bool T = false> struct Mma;\n"
                 b"template <> struct Mma<32> { using acc_t = float; };\n"
                 b"int f() { Mma<32, false>::acc_t x = 1; return x; }\n")
    out, _ = fixpoint("instantiate", defaulted)
    assert out == b"struct Mma { using acc_t = float; };\nint f() { Mma::acc_t x = 1; return x; }\n", out
    later = b"template <typename A> A zero() { return A{}; }\nstruct Late { using Acc = int; };\nint g() { return zero<Late::Acc>(); }\n"
    (item,) = REGISTRY["instantiate"].items(Source(later, "cuda"), 0)  # `Late` is declared after the template:
    assert apply(later, item) == (b"struct Late { using Acc = int; };\nLate::Acc zero() { return Late::Acc{}; }\n"
                                  b"int g() { return zero(); }\n")  # the plain function goes before its use


LINKS = PRELUDE + b"""namespace lib {
template <typename P, typename Q> struct Kernel {
  using Part = P;
  __device__ void operator()(float* o) const { o[threadIdx.x] = Part::size + Q::n; }
};
template <typename S> struct Partitioner { static constexpr int size = S::m; };
struct Shape { static constexpr int m = 4; };
struct Pipe { static constexpr int n = 2; };
}
using K = lib::Kernel<lib::Partitioner<lib::Shape>, lib::Pipe>;
__global__ void k(float* o) { K{}(o); }
"""


@needs_clang22
def test_a_class_whose_arguments_come_later_moves_into_its_namespace_before_the_use():
    """ck_tile's GemmKernel: its header comes before the partitioner and the pipeline it is
    instantiated with. The plain class goes before the alias that uses it, in its namespace
    opened again; the partitioner, used in the kernel's arguments, is the next link (one at a
    time: both would go before the same declaration)."""
    first = REGISTRY["instantiate"].items(Source(LINKS, "cuda"), 0)
    assert len(first) == 1 and b"struct Kernel" in b"".join(e.replacement for e in first[0])
    out, steps = fixpoint("instantiate", LINKS)
    body = out[len(PRELUDE):]
    assert steps == 2 and b"template" not in body, body.decode()
    assert body.index(b"struct Pipe") < body.index(b"struct Partitioner") < body.index(b"struct Kernel") \
        < body.index(b"using K = lib::Kernel;")
    assert mfma_counts(out) == mfma_counts(LINKS)  # it builds


@needs_clang22
def test_unnamed_template_parameters_bind_nothing():
    """`template <int>` (a c120 reduction left `store_acc_tile<1>` behind) and `template <typename>`."""
    text = PRELUDE + (b"template <int> __device__ void put(float* d) { d[0] = 1; }\n"
                      b"template <typename> __device__ void add(float* d) { d[1] += 2; }\n"
                      b"__global__ void k(float* d) { put<1>(d); add<int>(d); }\n")
    out, _ = fixpoint("instantiate", text)
    assert out.endswith(b"__device__ void put(float* d) { d[0] = 1; }\n__device__ void add(float* d) { d[1] += 2; }\n"
                        b"__global__ void k(float* d) { put(d); add(d); }\n")
    assert mfma_counts(out) == mfma_counts(text)  # builds, same kernel


def test_a_namespace_qualifier_is_not_a_local_name():
    """`conv::configs[1]` looks up the namespace `conv`, never a local variable `conv` elsewhere
    (real code has both: `const auto conv = problem.conv();`)."""
    text = (b"namespace conv { struct C { int n; }; constexpr C configs[] = {{1}, {2}}; }\n"
            b"int use() { int conv = 3; return conv; }\n"
            b"template <conv::C K> int launch() { return K.n; }\n"
            b"template int launch<conv::configs[1]>();\n")
    items = REGISTRY["instantiate"].items(Source(text, "cpp"), 0)
    assert len(items) == 1
    out = apply(text, items[0])
    assert b"template" not in out and b"int launch()" in out, out.decode()


CHAIN = PRELUDE + b"""
enum class shape { m16 = 16, m32 = 32 };
struct kernel_config {
  struct { int m, n; } rep;
  shape mfma;
  int unroll;
  constexpr int tile() const { return rep.m * rep.n * int(mfma); }
};
namespace conv { constexpr kernel_config configs[] = {{{1, 1}, shape::m32, 1}, {{2, 2}, shape::m16, 1}}; }
template <typename T, kernel_config C> struct pipeline_shape {
  static constexpr int reps = C.rep.m * C.rep.n;
  using vec_t = T __attribute__((ext_vector_type(8)));
};
template <typename T, kernel_config C>
using acc_tile_t = f32x4_t[C.rep.m][C.rep.n];
template <typename T, kernel_config C> __device__ f32x4_t step(const T* in, f32x4_t acc) {
  using S = pipeline_shape<T, C>;
  return __builtin_amdgcn_mfma_f32_16x16x32_bf16(*(const typename S::vec_t*)in, *(const typename S::vec_t*)in, acc, 0, 0, 0);
}
template <typename T, kernel_config C> __global__ __launch_bounds__(256, 2) void kern(const T* in, f32x4_t* out) {
  using S = pipeline_shape<T, C>;
  acc_tile_t<T, C> acc = {};
#pragma unroll
  for (int r = 0; r < S::reps; ++r) acc[0][0] = step<T, C>(in + r * C.tile(), acc[0][0]);
  if constexpr (C.unroll) out[threadIdx.x] = acc[0][0]; else out[0] = acc[0][0];
  out[1] = step<T, C>(in, out[1]); out[2] = step<T, C>(in + 8, out[2]);
  out[3] = step<T, C>(in + 16, out[3]); out[4] = step<T, C>(in + 24, out[4]);
}
void launch(const __bf16* in, f32x4_t* out) { kern<__bf16, conv::configs[1]><<<1, 256>>>(in, out); }
"""


@needs_clang22
def test_a_chain_of_templates_on_a_config_instantiates_to_the_end(tmp_path):
    """Real code passes the config down (`pipeline_shape<T, C>`, `step<T, C>`): the kernel's body
    declares `C` once (copying the entry into every use would grow the item), as its structural
    literal with the enum member cast (clang prints it as a number), the next link resolves that
    local constant, an alias template of an array type stays an alias, and a step that grows the
    file by a little is still taken, a template being gone. At the end nothing is a template,
    nothing refers to the table and the kernel has the same MFMAs."""
    from test_values import clang_values
    text, _ = fixpoint("instantiate", CHAIN, clang_values(tmp_path))
    body = text[len(PRELUDE):]
    assert b"template" not in body, body.decode()
    assert b"constexpr kernel_config C = kernel_config{{2, 2}, shape(16), 1};" in body
    assert b"conv::configs" not in body and mfma_counts(text) == mfma_counts(CHAIN) == [8]


def test_an_alias_declared_after_the_template_is_read_through():
    """A library's kernel is instantiated from the user's file, with `using PassThrough = ...;`
    after the library's headers: the alias is replaced by what it names, declared before."""
    text = (b"namespace lib { struct Pass {}; template <typename Op> int apply(Op op) { return sizeof(op); } }\n"
            b"using PT = lib::Pass;\nint go() { return lib::apply<PT>(PT{}); }\n")
    out, steps = fixpoint("instantiate", text)
    assert steps == 1 and b"template" not in out and b"int apply(lib::Pass op)" in out, out.decode()
    assert b"lib::apply(PT{})" in out
