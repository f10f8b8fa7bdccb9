"""inline: a function called once is replaced at its call by its body, and its definition goes."""
from conftest import needs_clang22
from transforms import PRELUDE, fixpoint, mfma_counts

from reducer.passes import REGISTRY
from reducer.text.edits import apply
from reducer.text.source import Source

KERNEL = PRELUDE + b"""
struct Tile { int m0, c0; };
__device__ Tile tile_of(int block, int n) {
  Tile r;
  r.m0 = block % n * 16;
  r.c0 = block / n * 16;
  return r;
}
__device__ int clamp_row_to_the_tensor_height(int r, int n) {
  if (r >= n) return n - 1;
  return r < 0 ? 0 : r;
}
__device__ unsigned scaled(unsigned x, int s) { return x * s + 1; }
__device__ f32x4_t mma(const bf16x8_t* in, int i, f32x4_t c) {
  for (int k = 0; k < 4; ++k)
    c = __builtin_amdgcn_mfma_f32_16x16x32_bf16(in[i + k], in[i + k + 1], c, 0, 0, 0);
  return c;
}
__device__ void store(f32x4_t* dst, f32x4_t v) { dst[threadIdx.x] = v; }
__global__ void kern(const bf16x8_t* in, f32x4_t* out, int n) {
  const Tile t = tile_of(blockIdx.x, n);
  int row = clamp_row_to_the_tensor_height(t.m0 + threadIdx.x, n);
  f32x4_t acc = {};
  acc = mma(in, row + t.c0, acc);
  out[scaled(row, 2)] = acc;
  store(out + n, acc);
}
"""


def test_inlining_removes_every_helper_called_once():
    text, steps = fixpoint("inline", KERNEL)
    body = text[len(PRELUDE):]
    assert steps == 5, body.decode()
    for name in (b"tile_of", b"clamp_row", b"scaled", b"mma", b"store"):
        assert name not in body, name
    assert b"do {" in body and b"{ row = n - 1; break; }" in body  # an early return
    assert b"((unsigned)(((unsigned )(row)) * 2 + 1))" in body  # scaled(): an expression, no cast on an int literal
    assert Source(text, "cuda").error_count <= Source(KERNEL, "cuda").error_count


def test_functions_called_twice_or_recursive_stay():
    twice = KERNEL.replace(b"store(out + n, acc);", b"store(out + n, acc); store(out, acc);")
    outs = REGISTRY["inline"].items(Source(twice, "cuda"), 0)
    assert len(outs) == 4  # all but store
    rec = b"__device__ int f(int n) { return n ? f(n - 1) : 0; }\n__global__ void k(int* p) { p[0] = f(3); }\n"
    assert REGISTRY["inline"].items(Source(rec, "cuda"), 0) == []


@needs_clang22
def test_inlining_keeps_the_kernel_mfma_count():
    text, _ = fixpoint("inline", KERNEL)
    assert mfma_counts(text) == mfma_counts(KERNEL) == [4]


TWICE = PRELUDE + b"""
__device__ int lds_offset(int row, int col) { return row * 64 + col; }
__device__ int swizzled_offset(int row, int col) { return lds_offset(row, col ^ 8); }
__global__ void kern(const bf16x8_t* in, f32x4_t* out) {
  f32x4_t acc = {};
  acc = __builtin_amdgcn_mfma_f32_16x16x32_bf16(in[swizzled_offset(threadIdx.x, 1)], in[swizzled_offset(threadIdx.y, 2)], acc, 0, 0, 0);
  out[threadIdx.x] = acc;
}
"""


def test_a_helper_called_twice_is_inlined_at_both_calls_when_that_shrinks():
    text, steps = fixpoint("inline", TWICE)
    body = text[len(PRELUDE):]
    assert steps == 2 and b"offset" not in body, body.decode()
    # the chain collapses outside in; an argument cast already is not cast again
    assert b"in[((int)(((int)(((int )(threadIdx.x)) * 64 + ((int )(1 ^ 8))))))], in[((int)(((int)(" in body
    assert Source(text, "cuda").error_count <= Source(TWICE, "cuda").error_count


def test_inlining_at_every_call_is_proposed_only_when_it_shrinks():
    square = b"__device__ int sq(int v) { return v * v; }\n__global__ void k(int* p) { p[0] = sq(threadIdx.x); PLUS }\n"
    once, twice = (Source(square.replace(b"PLUS", plus), "cuda") for plus in (b"", b"p[1] = sq(threadIdx.y);"))
    assert len(REGISTRY["inline"].items(once, 0)) == 1  # the only call: whatever the size
    assert REGISTRY["inline"].items(twice, 0) == []  # two copies of the casts outgrow the definition


@needs_clang22
def test_inlining_at_every_call_keeps_the_kernel_mfma_count():
    text, _ = fixpoint("inline", TWICE)
    assert mfma_counts(text) == mfma_counts(TWICE) == [1]


REFERENCES = PRELUDE + b"""
struct Geometry { int n, c; };
struct Registers { f32x4_t acc[2]; };
__device__ int tile_index(const Geometry&g, int block) { return block % g.n + g.c; }
__device__ void accumulate(const bf16x8_t* in, Registers& r, int i) {
  for (int k = 0; k < 2; ++k)
    r.acc[k] = __builtin_amdgcn_mfma_f32_16x16x32_bf16(in[i + k], in[i], r.acc[k], 0, 0, 0);
}
__global__ void kern(const bf16x8_t* in, f32x4_t* out, Geometry geom) {
  Registers regs = {};
  const int t = tile_index(geom, blockIdx.x);
  accumulate(in, regs, t);
  out[t] = regs.acc[0] + regs.acc[1];
}
"""


def test_helpers_taking_references_are_inlined_with_the_references_bound():
    """Library helpers take `const Geometry&g` and `Registers& r`: the parameter is named
    inside a reference declarator, and binding it as a local reference keeps what it refers to."""
    text, steps = fixpoint("inline", REFERENCES)
    body = text[len(PRELUDE):]
    assert steps == 2 and b"tile_index" not in body and b"accumulate" not in body, body.decode()
    assert b"{ const Geometry&g = geom; int block = blockIdx.x; t = block % g.n + g.c; }" in body
    assert b"{ Registers& r = regs; int i = t;" in body  # writes through `r` still reach `regs`
    assert Source(text, "cuda").error_count <= Source(REFERENCES, "cuda").error_count


@needs_clang22
def test_inlining_helpers_taking_references_keeps_the_kernel_mfma_count():
    text, _ = fixpoint("inline", REFERENCES)
    assert mfma_counts(text) == mfma_counts(REFERENCES) == [2]


ABBREVIATED = PRELUDE + b"""
__device__ auto twice(auto v) { return v * 2; }
[[nodiscard]] __device__ inline unsigned add1(unsigned v) { return v + 1; }
__device__ auto half(int v) -> int { return v / 2; }
__device__ int pick(auto v) { if constexpr (sizeof(v) == 4) return 1; else return 2; }
__global__ void kern(const bf16x8_t* in, f32x4_t* out, int* p) {
  f32x4_t acc = {};
  acc = __builtin_amdgcn_mfma_f32_16x16x32_bf16(in[twice(p[1])], in[add1(p[5])], acc, 0, 0, 0);
  out[half(p[2]) + pick(p[7])] = acc;
}
"""


def test_no_candidate_casts_to_auto():
    """An abbreviated function template (`auto` parameters) or a deduced return type inlined in
    an expression: the argument and the value stand as they are, `(auto)(...)` never compiles.
    A trailing return type is the cast; an attribute is no part of the type; a template with an
    `if constexpr` is not inlined (its discarded branch would be compiled)."""
    items = REGISTRY["inline"].items(Source(ABBREVIATED, "cuda"), 0)
    texts = [apply(ABBREVIATED, item) for item in items]
    kernels = [t.split(b"__global__")[1] for t in texts]
    assert len(texts) == 3 and not any(b"auto" in k or b"[[" in k for k in kernels)
    assert any(b"in[((p[1]) * 2)]" in t for t in texts) and any(b"out[((int)(((int )(p[2])) / 2))" in t for t in texts)
    assert any(b"in[((unsigned)(((unsigned )(p[5])) + 1))]" in t for t in texts)


@needs_clang22
def test_inlined_abbreviated_templates_build():
    text, steps = fixpoint("inline", ABBREVIATED)
    assert steps == 3 and b"pick(p[7])" in text and mfma_counts(text) == mfma_counts(ABBREVIATED) == [1]


DEDUCED = PRELUDE + b"""
__device__ auto scaled(int v) { return v * 3; }
__device__ auto shifted(int v) -> int { int s = v + 1; return s; }
__device__ auto squared(int v) { int t = v * v; return t; }
__device__ constexpr int lanes(int w) { return w * 4; }
__global__ void kern(const bf16x8_t* in, f32x4_t* out, int* p) {
  f32x4_t acc = {};
  auto a = scaled(p[1]);
  const auto b = shifted(p[2]);
  auto c = squared(p[3]);
  constexpr int m = lanes(2);
  static_assert(m == 8);
  acc = __builtin_amdgcn_mfma_f32_16x16x32_bf16(in[a], in[b + c], acc, 0, 0, 0);
  out[threadIdx.x] = acc;
}
"""


def test_a_deduced_local_takes_the_callees_return_type_or_its_value():
    """`auto x = f(a);` becomes `T x;` and the body, which needs a type: the callee's return type
    where it says one (a trailing one here), not a reference; else, for a body that is one
    `return e;`, `auto x = e';`; else no candidate. `auto x;` never compiles. A `constexpr` one is
    only ever inlined as an expression."""
    items = REGISTRY["inline"].items(Source(DEDUCED, "cuda"), 0)
    texts = [apply(DEDUCED, item) for item in items]
    assert len(texts) == 3 and not any(b"auto a;" in t or b"auto c;" in t or b"auto b;" in t for t in texts)
    assert any(b"constexpr int m = ((int)(2 * 4));" in t for t in texts), texts  # a constant stays one
    assert any(b"int b;\n{ int v = p[2]; int s = v + 1; b = s; }" in t for t in texts), texts
    assert any(b"auto a = (((int )(p[1])) * 3);" in t for t in texts), texts


@needs_clang22
def test_an_inlined_deduced_local_builds():
    text, steps = fixpoint("inline", DEDUCED)
    assert steps == 3 and mfma_counts(text) == mfma_counts(DEDUCED) == [1]


NESTED = PRELUDE + b"""
__device__ int inner(int v) { return v * 3 + 1; }
__device__ int outer(int v) { int w = inner(v); return w - 2; }
__device__ int apart(int v) { return v ^ 5; }
__global__ void kern(const bf16x8_t* in, f32x4_t* out, int* p) {
  f32x4_t acc = {};
  int a = outer(p[1]);
  int b = apart(p[2]);
  acc = __builtin_amdgcn_mfma_f32_16x16x32_bf16(in[a], in[b], acc, 0, 0, 0);
  out[threadIdx.x] = acc;
}
"""


@needs_clang22
def test_items_that_clash_are_a_level_apart_and_each_level_composes():
    """`inner` is called inside `outer`, which its own item inlines and deletes: the two clash,
    and the one later in the file goes a level down. All of level 0 in one chunk builds (with
    `outer`'s item beside them, `inner`'s call would be copied with `outer`'s old body and
    `inner` deleted); after it, `outer` is at level 0."""
    p = REGISTRY["inline"]
    level0, level1 = p.items(Source(NESTED, "cuda"), 0), p.items(Source(NESTED, "cuda"), 1)
    assert len(level0) == 2 and len(level1) == 1 and p.items(Source(NESTED, "cuda"), 2) is None
    together = apply(NESTED, [e for item in level0 for e in item])
    assert b"inner" not in together and b"apart" not in together and b"int outer(" in together
    assert mfma_counts(together) == [1]
    assert len(p.items(Source(together, "cuda"), 0)) == 1 and p.items(Source(together, "cuda"), 1) is None
    broken = apply(NESTED, [e for item in level0 + level1 for e in item])  # the levels as one
    assert b"int inner(" not in broken and b"inner(" in broken


NAMESPACES = PRELUDE + b"""
namespace lib {
namespace conv {
constexpr int table[] = {1, 2, 3};
struct Geo { int n; };
__device__ int lookup(const Geo& geo, int i) { int bias = 1; return table[i % 3] * geo.n + bias; }
}
namespace host {
constexpr int table[] = {7};
__global__ void kern(const bf16x8_t* in, f32x4_t* out, conv::Geo g) {
  f32x4_t acc = {};
  int r = conv::lookup(g, threadIdx.x);
  acc = __builtin_amdgcn_mfma_f32_16x16x32_bf16(in[r], in[table[0]], acc, 0, 0, 0);
  out[threadIdx.x] = acc;
}
}
}
"""


def test_a_body_inlined_in_another_namespace_names_what_it_named():
    """`table` in `conv::lookup` is `conv::table`; at the call, in `host`, it would be
    `host::table` (or nothing): the inlined body says `::lib::conv::table`, and `Geo` likewise."""
    items = REGISTRY["inline"].items(Source(NAMESPACES, "cuda"), 0)
    assert len(items) == 1
    out = apply(NAMESPACES, items[0])
    assert b"{ const ::lib::conv::Geo& geo = g; int i = threadIdx.x; int bias = 1; " \
           b"r = ::lib::conv::table[i % 3] * geo.n + bias; }" in out, out.decode()


@needs_clang22
def test_a_body_inlined_in_another_namespace_builds():
    text, steps = fixpoint("inline", NAMESPACES)
    assert steps == 1 and mfma_counts(text) == mfma_counts(NAMESPACES) == [1]
