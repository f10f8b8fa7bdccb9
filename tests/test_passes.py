"""Each pass on a small input: what its items do when applied."""
import re
import subprocess

from reducer.passes import REGISTRY
from reducer.text.edits import apply
from reducer.text.source import Source

from conftest import CLANG, needs_clang22


def results(pass_name: str, text: bytes, language: str = "cpp", round: int = 0) -> list[bytes]:
    src = Source(text, language)
    return [apply(text, item) for item in REGISTRY[pass_name].items(src, round) or []]


def squash(b: bytes) -> bytes:
    return b" ".join(b.split())


def test_tree_delete_goes_level_by_level():
    text = b"int a;\nvoid f() {\n  int x;\n  x = 1;\n}\n"
    top = results("tree-delete", text)
    assert b"void f() {\n  int x;\n  x = 1;\n}\n" in top  # `int a;` gone with its line
    inner = results("tree-delete", text, round=1)
    assert b"int a;\nvoid f() {\n  x = 1;\n}\n" in inner
    assert REGISTRY["tree-delete"].items(Source(text, "cpp"), 2) is None


def test_tree_delete_handles_pragma_and_members():
    text = b"struct S {\n  int a;\n  int b;\n};\nvoid f() {\n#pragma unroll\n  for (;;) {}\n}\n"
    outs = [squash(r) for r in results("tree-delete", text, round=1)]
    assert b"struct S { int b; }; void f() { #pragma unroll for (;;) {} }" in outs
    assert b"struct S { int a; int b; }; void f() { for (;;) {} }" in outs


def test_tree_delete_in_error_regions():
    text = b"using v4 = __attribute__((ext_vector_type(4))) float;\nint keep;\n"
    assert b"int keep;\n" in results("tree-delete", text, "cuda")


def test_params_removes_call_site_arguments_too():
    text = b"int g(int a, int b) { return b; }\nint h() { return g(1, 2) + g(3, 4); }\n"
    outs = [squash(r) for r in results("params", text)]
    assert b"int g( int b) { return b; } int h() { return g( 2) + g( 4); }" in outs


def test_params_removes_template_arguments_at_uses():
    text = b"template <int N, typename T> T f(T x) { return x; }\nint y = f<3, int>(1);\n"
    outs = [squash(r).replace(b" ", b"") for r in results("params", text)]
    assert b"template<typenameT>Tf(Tx){returnx;}inty=f<int>(1);" in outs


def test_list_elements_and_initializers():
    text = b"int v[] = {1, 2, 3};\nint z = compute(4);\n"
    assert b"int v[] = {1 , 3};\nint z = compute(4);\n" in results("list-elements", text)
    assert b"int v[] = {1, 2, 3};\nint z = compute();\n" in results("list-elements", text)
    assert b"int v[] = {1, 2, 3};\nint z;\n" in results("initializers", text)


def test_hoist_replaces_by_a_part():
    text = b"void f(int c) { if (c) { g(); } int y = (c + 1); }"
    outs = results("hoist", text)
    assert b"void f(int c) { { g(); } int y = (c + 1); }" in outs
    assert b"void f(int c) { if (c) { g(); } int y = c + 1; }" in outs


def test_balanced_modes():
    text = b"x = f(a[1], {2});"
    assert b"x = f;" in results("parens", text)
    assert b"x = f();" in results("parens-contents", text)
    assert b"x = fa[1], {2};" in results("parens-delimiters", text)
    assert b"x = f(a, {2});" in results("brackets", text)


def test_angles_come_from_template_lists_only():
    text = b"bool b = x < y; std::vector<int> v;"
    assert results("angles", text) == [b"bool b = x < y; std::vector v;"]


def test_comments_blank_lines_tokens():
    text = b"int a; // note\n\n\n/* block */\nint   b;\n"
    assert results("comments", text) == [b"int a; \n\n\n/* block */\nint   b;\n",
                                         b"int a; // note\n\n\nint   b;\n"]
    assert any(r == b"int a; // note\n/* block */\nint   b;\n" for r in results("blank", text))
    assert b"int a; // note\n\n\n/* block */\nint   ;\n" in results("tokens", text)
    assert results("lines", b"a\nb\n") == [b"b\n", b"a\n"]


def test_a_token_deleted_between_two_it_touches_never_glues_them():
    """`char*p` without `*` is `char p`, not the name `charp`; `a-b` is `a b`; where nothing would
    glue (`f(a)` without `a`) the token just goes."""
    outs = results("tokens", b"char*p=a-b;f(a);")
    assert b"char p=a-b;f(a);" in outs and b"char*p=a b;f(a);" in outs and b"char*p=a-b;f();" in outs
    assert not any(b"charp" in o or b"ab;" in o for o in outs)


def test_a_comment_between_tokens_is_the_space_it_was():
    """As to the preprocessor: `int/**/x` is `int x`, and `+/**/+` stays two `+`."""
    text = b"int/**/x = b/**/+/**/+c; f(/*a*/);\n"
    assert results("comments", text) == [b"int x = b/**/+/**/+c; f(/*a*/);\n", b"int/**/x = b+/**/+c; f(/*a*/);\n",
                                         b"int/**/x = b/**/+ +c; f(/*a*/);\n", b"int/**/x = b/**/+/**/+c; f();\n"]


def test_hip_kernel_syntax_items_stay_parseable():
    text = (b"template <int N> __global__ __launch_bounds__(256, 2) void k(float* p, int n) { p[n] = N; }\n"
            b"void launch(float* p) { k<4><<<1, 256>>>(p, 2); }\n")
    for name in ("params", "tree-delete"):
        for out in results(name, text, "cuda"):
            assert Source(out, "cuda").error_count == 0, out


def test_hoist_unwraps_namespaces_and_templates():
    text = b"namespace n { int a; }\ntemplate <typename T> struct S { T t; };\n"
    outs = results("hoist", text)
    assert b" int a; \ntemplate <typename T> struct S { T t; };\n" in outs
    assert b"namespace n { int a; }\nstruct S { T t; };\n" in outs


def test_rebase_index_drops_the_table_head():
    text = b"constexpr Config configs[] {\n{1},\n{2},\n{3}};\ntemplate void f<configs[2]>();\nint y = configs[2].a;\n"
    assert results("rebase-index", text, "cuda") == [
        b"constexpr Config configs[] {\n{3}};\ntemplate void f<configs[0]>();\nint y = configs[0].a;\n"]
    mixed = text.replace(b"configs[2].a", b"configs[1].a")  # index 1 still used: re-base by 1 only
    assert results("rebase-index", mixed, "cuda") == [
        b"constexpr Config configs[] {\n{2},\n{3}};\ntemplate void f<configs[1]>();\nint y = configs[0].a;\n"]


def test_blank_keeps_lines_join_lines_joins_them_except_preprocessor():
    text = b"#include <a.h>\nint  a ;\nint b = - -c;\n"
    blank = apply(text, [e for item in REGISTRY["blank"].items(Source(text, "cpp"), 0) for e in item])
    assert blank == b"#include<a.h>\nint a;\nint b=- -c;"
    joined = apply(blank, [e for item in REGISTRY["join-lines"].items(Source(blank, "cpp"), 0) for e in item])
    assert joined == b"#include<a.h>\nint a;int b=- -c;"


@needs_clang22
def test_blank_keeps_what_a_line_splice_separates():
    """composable_kernel's `#define GridwiseGemmTemplateParameters  \\` over 17 lines: the blank
    before a splice must keep the name from joining the next line's first token."""
    text = (b"#define PARAMS         \\\n    int, float \\\n        ,char\n#define F \\\n  (x) x\n"
            b"template <class...> struct S {};\nS<PARAMS> s; int y = F(1);\n")
    blank = apply(text, [e for item in REGISTRY["blank"].items(Source(text, "cpp"), 0) for e in item])
    assert blank == b"#define PARAMS \\\nint,float\\\n,char\n#define F \\\n(x)x\ntemplate<class...>struct S{};\nS<PARAMS>s;int y=F(1);"

    def preprocessed(code: bytes) -> list[bytes]:
        out = subprocess.run([str(CLANG), "-E", "-P", "-x", "c++", "-"], input=code, capture_output=True, check=True)
        return [t for t in re.split(rb"(\W)", out.stdout) if t.strip()]
    assert preprocessed(blank) == preprocessed(text)


def test_list_elements_deletes_single_declarators():
    text = b"struct P { int n, c, h; };\nint a = 1, b;\n"
    outs = results("list-elements", text)
    assert b"struct P { int c, h; };\nint a = 1, b;\n" in outs
    assert b"struct P { int n, h; };\nint a = 1, b;\n" in outs
    assert b"struct P { int n, c; };\nint a = 1, b;\n" in outs
    assert b"struct P { int n, c, h; };\nint a = 1;\n" in outs
    tail = [i for i in REGISTRY["list-elements"].items(Source(text, "cpp"), 0)][1:3]
    assert apply(text, [e for item in tail for e in item]) == b"struct P { int n ; };\nint a = 1, b;\n"


def test_branches_deletes_a_case_or_an_else_whole():
    text = (b"template <class T> int run();\n"
            b"int launch(int t) {\n  switch (t) {\n  case 0: return run<short>();\n  case 1: return run<float>();\n"
            b"  default: return -1;\n  }\n}\n"
            b"int pick(int t) {\n  if (t) return run<short>();\n  else if (t > 1) return run<float>();\n  else return 0;\n}\n")
    outs = results("branches", text)
    assert len(outs) == 4  # three cases (default too) and the outer else, which holds the inner one
    assert b"  case 1: return run<float>();\n" not in outs[1] and b"  case 0: return run<short>();\n" in outs[1]
    assert outs[3].endswith(b"  if (t) return run<short>();\n}\n")
    for out in outs:
        assert Source(out, "cpp").error_count == 0


def test_macros_expands_plain_substitutions_and_deletes_the_define():
    text = (b"#define ATTRS(block, waves) __launch_bounds__(block, waves)\n"
            b"#define HD __host__ __device__\n"
            b"template <typename T>\n__global__ ATTRS(T::threads, 2) void k(T t) { HD_use(); }\n"
            b"HD int f() { return 1; }\n")
    outs = results("macros", text, "cuda")
    assert len(outs) == 2
    attrs = outs[0]
    assert b"#define ATTRS" not in attrs and b"__global__ __launch_bounds__ ( T::threads , 2 ) void k" in attrs
    tree = Source(attrs, "cuda")
    assert tree.error_count < Source(text, "cuda").error_count and tree.root.children[1].type == "template_declaration"
    assert tree.root.children[1].named_children[-1].type == "function_definition"  # the kernel, inside its template
    assert outs[1].endswith(b"__host__ __device__ int f() { return 1; }\n") and b"HD_use" in outs[1]


def test_macros_offers_a_macro_used_in_anothers_body_at_the_next_enumeration():
    """In one chunk both #defines go with the expansion inside the outer body, and the outer's
    uses name a macro no longer defined (ck_tile's CK_TILE_HOST_DEVICE)."""
    text = b"#define HD __host__ __device__\n#define OP(op) HD int f() { return 1 op 2; }\nOP(+)\nHD int g();\n"
    src = Source(text, "cuda")
    items = REGISTRY["macros"].items(src, 0)
    assert len(items) == 1 and b"#define HD" not in apply(text, items[0])
    once = apply(text, items[0])
    (then,) = REGISTRY["macros"].items(Source(once, "cuda"), 0)
    assert squash(apply(once, then)) == b"__host__ __device__ int f ( ) { return 1 + 2 ; } __host__ __device__ int g();"


def test_macros_leaves_what_is_not_plain_substitution():
    text = (b"#define STR(x) #x\n#define CAT(a, b) a##b\n#define V(...) f(__VA_OPT__(,))\n"
            b"#define ON 1\n#if ON\n#endif\n#define TWICE(x) x x\n#define SELF SELF + 1\n#define F(x) (x)\n"
            b"int a = STR(1) + CAT(x, y) + V(1, 2) + ON + SELF + TWICE(1, 2) + F(F(1)) + F;\n")
    assert results("macros", text) == []


def test_macros_expands_a_variadic_launch_wrapper():
    text = (b"#define LAUNCH(kernel, grid, ...) do { kernel<<<grid, 256>>>(__VA_ARGS__); } while (0)\n"
            b"void go(int* p, int n) { LAUNCH(k<4>, 2, p, n); LAUNCH(k<8>, 1); }\n")
    (out,) = results("macros", text, "cuda")
    assert out == b"void go(int* p, int n) { do { k<4> <<< 2 , 256 >>> ( p, n ) ; } while ( 0 ); " \
                  b"do { k<8> <<< 1 , 256 >>> (  ) ; } while ( 0 ); }\n"


def test_macros_expands_one_undefined_after_its_uses_and_deletes_both_directives():
    """mfconv defines its constant operators with `MFCONV_CONSTANT_BINARY_OP(+)`, then #undefs it;
    a name before the #define or after the #undef is not the macro."""
    text = (b"int OP2 = 0;\n#define OP2(op) int f##_x; int g op 1;\n#define OP(op) bool operator op(A, A);\n"
            b"OP(+)\nOP(<)\n#undef OP\nint OP = 3;\n")
    outs = results("macros", text)
    assert outs == [b"int OP2 = 0;\n#define OP2(op) int f##_x; int g op 1;\nbool operator + ( A , A ) ;\n"
                    b"bool operator < ( A , A ) ;\nint OP = 3;\n"]
