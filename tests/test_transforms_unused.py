"""unused: declarations whose name occurs nowhere else go, each as one item."""
from itertools import chain

from conftest import needs_clang22
from transforms import PRELUDE, fixpoint, mfma_counts

from reducer.passes import REGISTRY
from reducer.text.edits import apply
from reducer.text.source import Source

TEXT = PRELUDE + b"""#define UNUSED_MACRO(x) (x + 1)
#define USED_MACRO 2
enum Mode { plain, fancy };
enum class Scoped : int { a, b };
struct Helper { int x; };
using Alias = Helper;
typedef int OldAlias;
constexpr int kUsed = 4, kSpare = 5;
__device__ int dead(int v) { return v * 3; }
__device__ int live(int v) { return v * USED_MACRO + kUsed + fancy; }
template <typename T> concept Unneeded = sizeof(T) > 1;
template <typename T> concept Small = sizeof(T) <= 4;
template <Small T> __device__ T dead_template(T v) { return v; }
__global__ void kern(const bf16x8_t* in, f32x4_t* out) {
  f32x4_t c = {};
  c = __builtin_amdgcn_mfma_f32_16x16x32_bf16(in[threadIdx.x], in[threadIdx.x], c, 0, 0, 0);
  out[live(threadIdx.x)] = c;
}
__global__ void unreferenced_kernel(int* p) { p[0] = 1; }
template <int N> __global__ void never_instantiated(int* p) { p[0] = N; }
"""


def removed_all(text: bytes) -> bytes:
    items = REGISTRY["unused"].items(Source(text, "cuda"), 0)
    return apply(text, chain.from_iterable(items))


def test_unused_declarations_go_and_used_ones_and_kernels_stay():
    out = removed_all(TEXT)
    for gone in (b"UNUSED_MACRO", b"Scoped", b"OldAlias", b"Alias", b"dead", b"dead_template", b"never_instantiated"):
        assert gone not in out, gone
    for kept in (b"USED_MACRO", b"enum Mode", b"kUsed", b"live", b"kern", b"unreferenced_kernel"):
        assert kept in out, kept
    assert b"Unneeded" not in out  # C++20 concepts are declarations like any other
    assert b"struct Helper" in out and b"concept Small" in out  # used by Alias, dead_template in this round
    assert b"struct Helper" not in removed_all(out) and b"Small" not in removed_all(out)
    assert Source(out, "cuda").error_count <= Source(TEXT, "cuda").error_count


@needs_clang22
def test_removing_unused_declarations_compiles_and_keeps_the_mfma():
    out = removed_all(removed_all(TEXT))
    assert mfma_counts(out) == mfma_counts(TEXT) == [0, 1]


def test_operators_and_members_a_braced_list_fills_stay():
    """`operator==` is used as `a == b`, which no token names; `why` of an aggregate may be
    filled by `{true, ms, nullptr}`: deleting either never compiles (mfconv_pos, issue 28).
    A member of a class with a constructor, or past the longest positional list, is fair game."""
    text = (b"struct Config { int a, b; friend constexpr bool operator==(const Config&, const Config&) = default; };\n"
            b"struct Result { bool ok; float ms; const char* why; int spare; };\n"
            b"struct Built { Built(int v) : x(v) {} int x; int unused_y; };\n"
            b"bool same(Config p, Config q) { return p == q; }\n"
            b"Result ok(float ms) { return {true, ms, nullptr}; }\n"
            b"int main() { Result r = ok(1); Built b{2}; return r.ok + b.x + same({1, 2}, {3, 4}) + (int)r.ms; }\n")
    deleted = {text[e.start:e.end].strip() for item in REGISTRY["unused"].items(Source(text, "cpp"), 0) for e in item}
    assert deleted == {b"int spare;", b"int unused_y;"}


def test_begin_and_end_stay_while_a_range_based_for_may_call_them():
    """A range-based `for` calls `begin` and `end` without naming them (ck_tile's `map`); with
    no such loop in the file they are as unused as any other name."""
    text = (b"struct Span { const int* p; int n; const int* begin() const { return p; }\n"
            b"  const int* end() const { return p + n; } int size() const { return n; } };\n"
            b"int sum(Span s) { int t = 0; for (int v : s) t += v; return t; }\n"
            b"int main() { int a[2] = {1, 2}; return sum(Span{a, 2}); }\n")
    def deleted(t: bytes) -> list[bytes]:
        return [t[e.start:e.end] for item in REGISTRY["unused"].items(Source(t, "cpp"), 0) for e in item]
    assert deleted(text) == [b"int size() const { return n; }"]
    assert deleted(text.replace(b"for (int v : s) t += v;", b"t = s.p[0];")) == [
        b"const int* begin() const { return p; }", b"const int* end() const { return p + n; }",
        b"int size() const { return n; }"]


def test_a_kernel_printed_as_clang_prints_it_is_a_root():
    """`plain` writes a kernel as clang prints it, `__attribute__((global))`: an entry point like
    one written `__global__` (on ck_tile, 13 tests a run proposed deleting it, each a missing
    kernel)."""
    text = (PRELUDE + b"__device__ int helper(int v) { return v + 1; }\n"
            b"inline __attribute__((global)) __attribute__((amdgpu_waves_per_eu(2))) void kentry(int* p)\n"
            b"{ p[0] = helper(p[1]); }\n")
    deleted = [text[e.start:e.end] for item in REGISTRY["unused"].items(Source(text, "cuda"), 0) for e in item]
    assert not any(b"kentry" in d or b"helper" in d for d in deleted), deleted


def test_a_name_a_macro_pastes_together_is_not_unused():
    """ck_tile's `CK_TILE_TYPE_CONVERT` calls `sname_##_to_##dname_(x)`: `float_to_fp16` is used
    where no token spells it. A name with a pasted piece stays while the macro does; one pasted
    from parameters alone tells nothing and protects nothing."""
    text = (b"float float_to_half(float x) { return x; }\nfloat spare_one(float x) { return x; }\n"
            b"#define CONVERT(d, s) float convert_##s(float x) { return s##_to_##d(x); }\n"
            b"#define GLUE(a, b) a##b\n"
            b"CONVERT(half, float)\nint main() { return (int)convert_float(1.0f); }\n")
    deleted = [text[e.start:e.end] for item in REGISTRY["unused"].items(Source(text, "cpp"), 0) for e in item]
    assert deleted == [b"float spare_one(float x) { return x; }\n", b"#define GLUE(a, b) a##b\n"], deleted


def test_static_asserts_go_and_with_them_what_only_they_used():
    """No code depends on a static_assert; mfconv's `static_assert(select_wgrad_config(...) >= 0)`
    kept the host heuristics, and through them the config table, alive."""
    text = (b"constexpr int table[] = {1, 2, 3};\nconstexpr int pick(int i) { return table[i]; }\n"
            b"static_assert(pick(1) == 2, \"table\");\nstruct S { static_assert(sizeof(int) == 4); int v; };\n"
            b"int main() { S s{1}; static_assert(true); return s.v; }\n")
    out, _ = fixpoint("unused", text)
    assert out == b"struct S {  int v; };\nint main() { S s{1};  return s.v; }\n", out.decode()


def test_a_declaration_split_at_an_unknown_macro_is_not_deleted_in_part():
    """Before `macros` expands it, `HD constexpr long f(int d) const {...}` reads as a member
    `HD constexpr long` and a function `f(int d) const {...}`: deleting the function alone
    leaves `constexpr long;` behind, which never compiles."""
    text = (b"struct D {\n  long_index_t n;\n  HD constexpr long_index_t f(index_t d) const { return n + d; }\n};\n"
            b"int main() { D d{1}; return d.n; }\n")
    src = Source(text, "cpp")
    assert any(n.type == "function_definition" and n.text.startswith(b"f(") for n in src.nodes())
    assert REGISTRY["unused"].items(src, 0) == []
