"""The layout key against clang itself: two texts that share a key are the same token stream to
clang's preprocessor (token kinds, spellings and spacing flags after macro expansion), so a
verdict may carry over from one to the other."""
import os
import re
import subprocess
import sys

from conftest import CLANG, ROOT, needs_clang22
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from kernels import SMALL, pressure

from reducer.text.lexer import layout_key

REDUCE = [sys.executable, "-m", "reducer.cli"]

TOKENS = ["a", "b", "x1", "F", "define", "hipError_t", "1", "0x1f", ".5", "5", '"C"', '"s"', "'a'", "+", "-", "/",
          "*", "<", ":", ".", ">", "=", "(", ")", "#", "%", "&", ",", "\\", "\n#define F(x) #x\n", "\n#define F ",
          "\n#define G(a) a##1\n", "F(", "G(", "__LINE__"]
# gaps: blank on one line, one line break, and others a layout-blind normaliser takes for these
BLANK = [" ", "  ", "\t", "/**/", "/* c */", " /* c */ "]
BREAK = ["\n", "\n  ", "  \n", "// c\n", " /* c */\n"]
GAPS = ["", *BLANK, *BREAK, "/*\n*/", "\\\n", "\n\n", "// c \\\n"]
_TOKEN_LINE = re.compile(r"^(\w+) '(.*?)'\t(.*?)\tLoc=<[^:>]*:(\d+)", re.M | re.S)


def token_dump(text: str, tmp_path) -> list[tuple[str, str, list[str], str]]:
    """(kind, spelling, flags, line) of every token clang's preprocessor gives the parser. A
    leading space at the start of a line is no flag of its own (a line break is blank already),
    and UnClean only says that the token's source spelling holds a line splice."""
    source = tmp_path / "t.cpp"
    source.write_text(text)
    err = subprocess.run([str(CLANG), "-cc1", "-dump-tokens", "-x", "c++", "-std=c++20", str(source)],
                         capture_output=True, text=True, timeout=60).stderr
    dump = []
    for kind, spelling, flags, line in _TOKEN_LINE.findall(err):
        marks = set(re.findall(r"\[(StartOfLine|LeadingSpace)\]", flags))
        dump.append((kind, spelling, sorted(marks - {"LeadingSpace"} if "StartOfLine" in marks else marks), line))
    return dump


@st.composite
def respaced_pair(draw):
    """One token stream with two spacings: each gap of the second is one of the same kind as
    the first's, or one time in ten any gap at all."""
    tokens = draw(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=14))
    first, second = [], []
    for _ in tokens:
        gap = draw(st.sampled_from(GAPS))
        same_kind = BLANK if gap in BLANK else BREAK if gap in BREAK else [gap]
        first.append(gap)
        second.append(draw(st.sampled_from(same_kind if draw(st.integers(0, 9)) else GAPS)))
    join = lambda gaps: "".join(g + t for g, t in zip(gaps, tokens))  # noqa: E731
    return join(first), join(second)


@needs_clang22
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(respaced_pair())
def test_equal_layout_keys_mean_equal_clang_token_streams(tmp_path, pair):
    a, b = pair
    assume(a != b and layout_key(a.encode()) == layout_key(b.encode()))
    assert token_dump(a, tmp_path) == token_dump(b, tmp_path), (a, b)


@needs_clang22
def test_the_layout_memo_collisions_seen_in_real_runs_are_told_apart_by_clang_and_by_the_key(tmp_path):
    for a, b in [('extern "C" hipError_t f();', 'extern"C"hipError_t f();'),
                 ("#define F (x) x\nF(1)", "#define F(x) x\nF(1)")]:
        assert token_dump(a, tmp_path) != token_dump(b, tmp_path)
        assert layout_key(a.encode()) != layout_key(b.encode())


# A kernel that declares its own launch API and an object-like macro whose value is in
# parentheses: joining `"C" hipError_t` or `SCALE (2.0f)` breaks it, and a verdict shared through
# a layout key used to accept that broken file without compiling it.
OWN_API = b"""#include <hip/hip_runtime.h>
extern "C" hipError_t myLaunch(const void* f, dim3 grid, dim3 block, void** args);
#define SCALE (2.0f)
""" + pressure(*SMALL).encode().replace(b"a[i] = s;", b"a[i] = s * SCALE;")  # the small spill: cheap builds


@needs_clang22
def test_a_whitespace_pass_never_leaves_a_file_that_does_not_compile(tmp_path):
    (tmp_path / "k.hip").write_bytes(OWN_API)
    predicate = ["--predicate", "lto.spill_ops > 0"]
    r = subprocess.run([*REDUCE, "k.hip", "-o", "out.hip", "-j", "2", "-q", "--passes", "blank,join-lines", "--no-format",
                        "--no-explain",
                        *predicate, "--"], cwd=tmp_path, capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 0, r.stderr
    out = (tmp_path / "out.hip").read_bytes()
    assert len(out) < len(OWN_API) and b'"C" hipError_t' in out and b"SCALE (2.0f)" in out
    check = subprocess.run([*REDUCE, "check", "out.hip", *predicate, "--"], cwd=tmp_path, capture_output=True,
                           text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert check.returncode == 0, check.stdout + check.stderr
