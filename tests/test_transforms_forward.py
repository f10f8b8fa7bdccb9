"""forward: a local initialised once with an expression free of side effects and never written
becomes that expression at every use, and its declaration goes, in one item."""
from conftest import needs_clang22
from transforms import PRELUDE, fixpoint, mfma_counts

from reducer.passes import REGISTRY
from reducer.text.edits import apply
from reducer.text.source import Source

# the shapes the README case's result keeps
KERNEL = PRELUDE + b"""
__device__ void load(const float* dy, int pos, float* rb) {
  for (int i = 0; i < 6; ++i) {
    int v = i;
    rb[i] = dy[pos] + v;
  }
}
__global__ void kern(const bf16x8_t* in, f32x4_t* out, float* dw, int num_stages) {
  int tid = threadIdx.x;
  int lane = tid % 64;
  int p_local = tid;
  int vec0 = tid;
  int pos = p_local;
  f32x4_t acc = {};
  for (int s = 0; s < num_stages; ++s) {
    bool has_next = 1 < num_stages;
    if (has_next)
      acc = __builtin_amdgcn_mfma_f32_16x16x32_bf16(in[pos], in[vec0], acc, 0, 0, 0);
  }
  int ch = lane;
  atomicAdd(dw + ch, acc[0]);
  out[lane] = acc;
  out[lane + 64] = acc;
}
"""
PASS = REGISTRY["forward"]


def _items(text: bytes) -> dict[bytes, list[bytes]]:
    """Each item as the declaration it deletes -> the replacements of its uses."""
    return {text[item[0].start:item[0].end].strip(): [e.replacement for e in item[1:]]
            for item in PASS.items(Source(text, "cuda"), 0)}


def test_each_item_forwards_an_initialiser_and_every_chunk_parses():
    items = _items(KERNEL)
    assert items[b"bool has_next = 1 < num_stages;"] == [b"1 < num_stages"]
    assert items[b"int ch = lane;"] == [b"lane"] and items[b"int v = i;"] == [b"i"]
    # `pos = p_local` and `p_local = tid` clash: one now, the other at the next enumeration
    assert (b"int pos = p_local;" in items) != (b"int p_local = tid;" in items)
    assert b"int lane = tid % 64;" not in items  # clashes with `ch`, which saves more
    found, errors = PASS.items(Source(KERNEL, "cuda"), 0), Source(KERNEL, "cuda").error_count
    for chunk in ([item] for item in found), [found]:
        for part in chunk:
            new = apply(KERNEL, [e for item in part for e in item])
            assert len(new) < len(KERNEL) and Source(new, "cuda").error_count <= errors, new.decode()
    whole = apply(KERNEL, [e for item in found for e in item])
    assert b"if (1 < num_stages)" in whole and b"atomicAdd(dw + lane," in whole, whole.decode()


def test_the_fixpoint_leaves_no_renaming_local():
    text, steps = fixpoint("forward", KERNEL)
    body = text[len(PRELUDE):]
    for gone in (b"pos =", b"p_local", b"vec0", b"has_next", b"ch =", b"int v"):
        assert gone not in body, body.decode()
    # `tid` goes last: with `p_local` and `vec0` gone its three uses no longer outweigh its line
    assert b"in[threadIdx.x], in[threadIdx.x]" in body and b"dy[pos] + i;" in body and steps == 7
    assert b"int lane = threadIdx.x % 64;" in body and b"atomicAdd(dw + lane," in body


def test_an_operator_initialiser_is_parenthesised_inside_an_expression():
    text = b"__device__ void f(int* o, int a, int b) { int s = a + b; o[s * 2] = s; }\n"
    assert _items(text) == {b"int s = a + b;": [b"(a + b)", b"a + b"]}


def test_an_item_that_grows_the_file_is_not_offered():
    text = b"__device__ void f(int* o) { int t = threadIdx.x; o[t] = o[t + 1]; }\n"
    assert _items(text) == {}  # 10 B more at each use, 20 B less of declaration: no smaller
    assert _items(text.replace(b"o[t + 1]", b"1")) == {b"int t = threadIdx.x;": [b"threadIdx.x"]}


def test_a_written_variable_or_a_call_is_not_forwarded():
    for body in (b"int i = 0; i++; o[i] = 1;", b"int x = a; a = 3; o[0] = x;", b"int x = 0; o[x] = 1; x      = a;",
                 b"int x = a; g(&x); o[0] = x;",
                 b"int x = a; o[x] = 1; int* q = &a; *q = 2; o[1] = x;", b"int x = g(&a); o[x] = x;",
                 b"int x = o[a]; o[0] = 5; o[1] = x;", b"int x = a; { int a = o[1]; o[a] = x; }",
                 b"static int x = a; o[0] = x;", b"int x = a; o[0] = [=] { return x; }();",
                 b"auto x = a; g(x); o[0] = x;"):  # an `auto` copy may be passed to a `T&` and moved
        text = b"__device__ int g(int* p);\n__device__ void f(int* o, int a) { " + body + b" }\n"
        assert _items(text) == {}, body
    const = b"__device__ int g(const int& p);\n__device__ void f(int* o, int a) { const auto x = a; o[g(x)] = 1; }\n"
    assert list(_items(const)) == [b"const auto x = a;"]  # a `const` copy binds no `T&`


def test_a_name_in_a_macros_arguments_is_not_forwarded_nor_made_its_value():
    """The macro may paste it anywhere: ck_tile's TO_TUPLE_OF_SEQUENCE puts it in a lambda's
    capture list, where `[a + 1]` does not compile (4 of forward's 16 tests there)."""
    text = (b"#define CAPTURED(x) [x] { return x; }()\n"
            b"__device__ void f(int* o, int a) { int n = a + 1; o[0] = CAPTURED(n); int m = a + 2; o[1] = m; }\n")
    assert list(_items(text)) == [b"int m = a + 2;"]
    constant = b"#define CAPTURED(x) [x] { return x; }()\nconstexpr int n = 4;\nint f() { return CAPTURED(n); }\n"
    assert REGISTRY["constants"].items(Source(constant, "cuda"), 0) == []


def test_only_a_variable_that_reads_as_its_initialiser_is_forwarded():
    """A vector splats, a narrow integer is promoted, a 64-bit one holds what an int expression
    would overflow: only a name may stand for the last."""
    for body in (b"bf16x8_t b = k; return b[0];", b"uint16_t h = k & 0x7fff; return h;",
                 b"uint64_t one = 1; return one << 40;", b"uint64_t s = k * 4096; return s;"):
        text = PRELUDE + b"__device__ long f(int k) { " + body + b" }\n"
        assert _items(text) == {}, body
    text = PRELUDE + b"__device__ long f(int k) { int64_t e = k; return e; }\n"
    assert _items(text) == {b"int64_t e = k;": [b"k"]}


@needs_clang22
def test_forwarding_keeps_the_mfma_count():
    text, _ = fixpoint("forward", KERNEL)
    assert mfma_counts(text) == mfma_counts(KERNEL) == [1]
