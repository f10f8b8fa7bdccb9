from pathlib import Path

from reducer.lexer import count_tokens, tokenize
from reducer.source import Source, language_for

HIP = b"""#include <hip/hip_runtime.h>
template <int N> __global__ __launch_bounds__(256, 2) void k(float* p) { p[threadIdx.x] = N; }
void launch(float* p) { k<4><<<dim3(1), dim3(256), 0, nullptr>>>(p); }
"""


def test_hip_syntax_parses_with_cuda_grammar_but_not_cpp():
    assert Source(HIP, "cuda").error_count == 0
    assert Source(HIP, "cpp").error_count > 0


def test_language_choice():
    assert language_for(Path("k.hip"), b"") == "cuda"
    assert language_for(Path("repro.cpp"), HIP) == "cuda"  # a HIP repro named .cpp
    assert language_for(Path("plain.cpp"), b"int main() {}") == "cpp"
    assert language_for(Path("x.ll"), b"define void @f()") == "text"


def test_ext_vector_attribute_alias_is_an_error_region_not_a_failure():
    src = Source(b"using fp32x4_t = __attribute__((ext_vector_type(4))) float;\nint x;\n", "cuda")
    assert src.error_count > 0
    assert src.root.child_count >= 2


def test_error_count_survives_deep_nesting():
    deep = b"int f() " + b"{" * 5000 + b"}" * 5000
    assert Source(deep, "cpp").error_count == 1  # tree-sitter gives up on nesting this deep
    assert Source(deep[:-1], "cpp").error_count >= 1


def test_tokenizer_covers_every_non_space_byte():
    text = b'int /* c */ x = "a\\"b" + \'c\' + 0x1fULL; // tail\n#define M(a) a##b\n\xff\xfe'
    tokens = tokenize(text)
    gaps = [text[a.end:b.start] for a, b in zip(tokens, tokens[1:])]
    assert tokens[0].start == 0 and tokens[-1].end == len(text)
    assert all(not g.strip() for g in gaps)
    assert [text[t.start:t.end] for t in tokens][:5] == [b"int", b"/* c */", b"x", b"=", b'"a\\"b"']
    assert count_tokens(b"a /* x */ b") == 2


def test_tokenizer_unterminated_comment_and_string():
    assert [t.kind for t in tokenize(b'x /* never closed')] == ["ident", "comment"]
    assert [t.kind for t in tokenize(b'"open\nx')] == ["string", "ident"]


def test_layout_free_is_canonical_and_keeps_lines():
    from reducer.lexer import layout_free

    assert layout_free(b"int  a ;  /* c */") == layout_free(b"int a;") == b"int a ;"
    assert layout_free(b"x /* a\nb */ y") == b"x\ny"  # the comment's line break stays
    assert layout_free(b"#define X  1\nint y;") == b"# define X 1\nint y ;"
    assert layout_free(b"a\n\nb") != layout_free(b"a\nb")
    assert layout_free(b'"a  b"') == b'"a  b"'
