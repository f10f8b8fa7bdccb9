"""expr-constant: an expression read as a value becomes its folded value, `0` or `1`, outer
expressions first; a variable known to hold a constant becomes that constant at every use."""
from conftest import needs_clang22
from transforms import PRELUDE, fixpoint, mfma_counts

from reducer.passes import REGISTRY
from reducer.text.edits import apply
from reducer.text.source import Source

KERNEL = PRELUDE + b"""
constexpr int kReps = 4;
#if 1 + 1
#endif
template <int N> __device__ int first(int v) { int a[N + 1]; a[0] = v; return a[0]; }
__global__ void kern(const bf16x8_t* in, f32x4_t* out, int n) {
  int lane = threadIdx.x % 64;
  int step = 16 * 2;
  int moved = 3;
  moved += n;
  f32x4_t acc = {};
  for (int r = 0; r < kReps * 1; ++r)
    acc = __builtin_amdgcn_mfma_f32_16x16x32_bf16(in[lane + r * step], in[lane], acc, 0, 0, 0);
  out[lane + first<2 + 2>(moved)] = acc;
}
"""
PASS = REGISTRY["expr-constant"]


def _round(text: bytes, round: int) -> list[tuple[bytes, bytes]]:
    return [(text[e.start:e.end], e.replacement) for item in PASS.items(Source(text, "cuda"), round) for e in item]


def test_outer_expressions_come_first_and_only_values_are_replaced():
    assert _round(KERNEL, 1) == [(b"a[0]", b"0"), (b"threadIdx.x % 64", b"0"), (b"16 * 2", b"32"), (b"r < kReps * 1", b"0"),
                                 (b"__builtin_amdgcn_mfma_f32_16x16x32_bf16(in[lane + r * step], in[lane], acc, 0, 0, 0)", b"0"),
                                 (b"lane + first<2 + 2>(moved)", b"0"), (b"acc", b"0")]
    assert (b"16 * 2", b"1") in _round(KERNEL, 3)  # the third alternative
    assert (b"kReps * 1", b"4") in _round(KERNEL, 4) and (b"lane + r * step", b"0") in _round(KERNEL, 7)
    starts = {e.start for r in range(1, 40) for item in PASS.items(Source(KERNEL, "cuda"), r) or [] for e in item}
    for lvalue_or_constant in (b"moved += n", b"a[0] = v", b"N + 1]", b"2 + 2>", b"1 + 1\n", b"r = 0", b"lane = "):
        assert KERNEL.index(lvalue_or_constant) not in starts, lvalue_or_constant
    assert KERNEL.index(b"a[0]; }") in starts and KERNEL.index(b"moved)]") in starts  # read

def test_every_candidate_shrinks_and_parses():
    errors = Source(KERNEL, "cuda").error_count
    round = 0
    while (items := PASS.items(Source(KERNEL, "cuda"), round)) is not None:
        for item in items:
            new = apply(KERNEL, item)
            assert len(new) < len(KERNEL) and Source(new, "cuda").error_count <= errors, new.decode()
        round += 1
    assert round > 10


def test_a_variable_never_written_becomes_its_value():
    text, steps = fixpoint("expr-constant", KERNEL)
    body = text[len(PRELUDE):]
    assert steps == 1 and b"int step" not in body and b"in[lane + r * 32]" in body, body.decode()
    assert b"int moved = 3;" in body and b"int lane" in body  # written, and not a constant


@needs_clang22
def test_folding_keeps_the_mfma_count_and_zeroing_compiles():
    text, _ = fixpoint("expr-constant", KERNEL)
    folds = [item for r in (1, 4) for item in PASS.items(Source(text, "cuda"), r)
             if item[0].replacement not in (b"0", b"1")]
    folded = apply(text, [e for item in folds for e in item])
    assert b"r < 4;" in folded, folded.decode()
    assert mfma_counts(folded) == mfma_counts(KERNEL) == [4]
    zeroed = apply(text, [e for item in PASS.items(Source(text, "cuda"), 1) for e in item])
    assert b"acc = 0;" in zeroed and mfma_counts(zeroed) == [0]
