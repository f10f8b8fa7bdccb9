"""Constant values from the compiler (reducer/text/values.py) and the target-kernel focus, with clang 22:
no mocks. Library code builds its config tables in constexpr functions; only the compiler can
fold those, and it answers every question of a pass in one front-end run."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, needs_clang22
from transforms import PRELUDE, fixpoint, mfma_counts

from interestingness.compiler.compile import Compiler, prepare_flags
from interestingness.compiler.toolchain import find_toolchain
from interestingness.oracle.spill import SpillSetup
from interestingness.tools.check import format_check
from reducer.passes import REGISTRY
from reducer.passes.literals import typed
from reducer.text.source import Source
from reducer.text.values import ClangValues, Query, parse_value

pytestmark = needs_clang22

# A table as libraries write it: "spreads" expanded by loops in a constexpr function, designated
# initialisers, nested structs, constexpr member functions. The tree evaluator folds none of it.
GENERATED = PRELUDE + b"""#include <array>
namespace conv {
struct Spread { int waves_m, waves_n; };
struct Tile { int m, n; };
struct Config {
  Spread spread;
  Tile tile;
  int stages = 2;
  bool swizzle = false;
  constexpr int ring_depth() const { return stages * (swizzle ? 2 : 1); }
  constexpr int reps() const { return tile.m / (16 * spread.waves_m); }
};
constexpr Spread kSpreads[] = {{1, 1}, {2, 1}, {2, 2}};
constexpr auto make_configs() {
  std::array<Config, 12> out{};
  int k = 0;
  for (const Spread& s : kSpreads)
    for (int m = 32; m <= 64; m *= 2)
      for (int sw = 0; sw < 2; ++sw)
        out[k++] = Config{.spread = s, .tile = {.m = m * s.waves_m, .n = 32}, .stages = 2 + sw, .swizzle = sw == 1};
  return out;
}
constexpr auto configs = make_configs();

template <Config C> __global__ void kern(const bf16x8_t* in, f32x4_t* out) {
  f32x4_t acc = {};
#pragma unroll
  for (int r = 0; r < C.reps() * C.ring_depth(); ++r)
    acc = __builtin_amdgcn_mfma_f32_16x16x32_bf16(in[threadIdx.x + r * C.tile.m], in[threadIdx.x], acc, 0, 0, 0);
  if constexpr (C.swizzle) out[threadIdx.x ^ 1] = acc; else { static_assert(C.tile.n == 32); out[threadIdx.x] = acc; }
}
template <Config C> void launch(const bf16x8_t* in, f32x4_t* out) { kern<C><<<1, 64>>>(in, out); }
template void launch<configs[9]>(const bf16x8_t*, f32x4_t*);
}
"""


def clang_values(tmp: Path) -> ClangValues:
    """The service as run/session.py builds it, from a compiler with the oracle's command line."""
    flags, _ = prepare_flags(["-std=gnu++20"], tmp)
    return ClangValues(Compiler(find_toolchain(), flags, "t.hip", str(tmp), timeout=120).diagnostics)


def test_a_generated_table_folds_to_the_instantiated_entry(tmp_path):
    values = clang_values(tmp_path)
    text, steps = fixpoint("instantiate", GENERATED, values)
    body = text[len(PRELUDE):]
    # configs[9]: spread {2, 2}, tile.m 32 * 2 = 64, stages 3, swizzle: reps 2, ring_depth 6
    assert steps == 2 and b"template" not in body, body.decode()
    assert b"r < 12;" in body and b"r * 64]" in body and b"out[threadIdx.x ^ 1] = acc;" in body
    assert b"static_assert" not in body and b"kern<<<1, 64>>>" in body
    assert mfma_counts(text) == mfma_counts(GENERATED) == [12]
    # one front-end run per enumeration, however many questions
    assert values.stats.runs <= steps + 1 and values.stats.queries > values.stats.runs
    # nothing refers to the table any more: `unused` takes it, and its generator after it
    out, _ = fixpoint("unused", text)
    assert b"configs" not in out and b"make_configs" not in out and b"kSpreads" not in out
    assert mfma_counts(out) == [12]


def test_values_come_from_clang_not_the_tree_evaluator(tmp_path):
    """Without the compiler (a script oracle's run) the tree evaluator cannot fold `configs[9]`:
    the kernel takes the argument's text and nothing folds, not even the `if constexpr`. With
    it, every question of the pass is answered in one run."""
    text, _ = fixpoint("instantiate", GENERATED)
    assert b"configs[9].reps() * configs[9].ring_depth()" in text and b"if constexpr (configs[9].swizzle)" in text
    values = clang_values(tmp_path)
    ask = values.bind(lambda probe: GENERATED + probe)
    ns = (b"conv",)
    q = [Query(b"configs[9].ring_depth()", ns), Query(b"sizeof(double)"), Query(b"configs[3].swizzle", ns),
         Query(b"configs[9].tile.m * 2 - 200", ns), Query(b"threadIdx.x"), Query(b"configs[12].stages", ns),
         Query(b"undeclared + 1"), Query(b"(unsigned short)70000"), Query(b"'a' + 1"), Query(b"configs[9]", ns)]
    answers = ask(q)
    assert values.stats.runs == 1
    assert {a.expr: v.text for a, v in answers.items()} == {
        b"configs[9].ring_depth()": b"6", b"sizeof(double)": b"8UL", b"configs[3].swizzle": b"true",
        b"configs[9].tile.m * 2 - 200": b"(-72)", b"(unsigned short)70000": b"((unsigned short)4464)", b"'a' + 1": b"98"}
    # not constant, out of bounds, undeclared: no answer; a class-type value only when asked for one
    assert ask([Query(b"configs[9]", ns, b"Config", structural=True)])[
        Query(b"configs[9]", ns, b"Config", structural=True)].text == b"Config{{2, 2}, {64, 32}, 3, true}"
    assert ask(q) == answers and values.stats.runs == 2  # asked again: from memory


# The argument names its entry by a lookup longer than the entry's literal: the plain function
# gets the literal, which compiles as a template argument and frees the table.
LOOKUP = GENERATED.replace(b"constexpr auto configs = make_configs();\n", b"""constexpr auto configs = make_configs();
constexpr Config config_for_waves_and_tile_m(int waves, int m, bool swizzle) {
  for (const Config& c : configs)
    if (c.spread.waves_m * c.spread.waves_n == waves && c.tile.m == m && c.swizzle == swizzle) return c;
  return configs[0];
}
""").replace(b"launch<configs[9]>", b"launch<config_for_waves_and_tile_m(4, 64, true)>")


def test_a_class_type_argument_becomes_a_structural_literal_that_compiles(tmp_path):
    items = REGISTRY["instantiate"].items(Source(LOOKUP, "cuda", clang_values(tmp_path).bind(lambda p: LOOKUP + p)), 0)
    assert len(items) == 1
    from reducer.text.edits import apply

    text = apply(LOOKUP, items[0])
    assert b"void launch(const bf16x8_t* in, f32x4_t* out) { kern<Config{{2, 2}, {64, 32}, 3, true}><<<1, 64>>>" in text
    assert mfma_counts(text) == [12]
    out, _ = fixpoint("unused", fixpoint("instantiate", text, clang_values(tmp_path))[0])
    assert b"configs" not in out and b"template" not in out[len(PRELUDE):] and mfma_counts(out) == [12]
    # clang prints an enum field as its number, which does not compile back: the literal casts
    # it to the member's enum, and clang prints that back as the same value
    enum = LOOKUP.replace(b"struct Config {", b"enum class Order { row, col };\nstruct Config {").replace(
        b"  bool swizzle = false;", b"  bool swizzle = false;\n  Order order = Order::col;").replace(
        b"launch<config_for_waves_and_tile_m(4, 64, true)>", b"launch<config_for_waves_and_tile_m(2 * 2, 64, true)>")
    values = clang_values(tmp_path)
    items = REGISTRY["instantiate"].items(Source(enum, "cuda", values.bind(lambda p: enum + p)), 0)
    text = apply(enum, items[0])
    assert b"kern<Config{{2, 2}, {64, 32}, 3, true, Order(1)}><<<" in text and mfma_counts(text) == [12]
    assert values.stats.runs == 2  # the answers, then the literal asked back
    # a member whose enum the file names only through an alias: not cast, it does not compile
    # back, and the text stays
    alias = LOOKUP.replace(b"struct Config {", b"enum class Order { row, col };\nusing order_t = Order;\nstruct Config {").replace(
        b"  bool swizzle = false;", b"  bool swizzle = false;\n  order_t order = Order::col;")
    values = clang_values(tmp_path)
    items = REGISTRY["instantiate"].items(Source(alias, "cuda", values.bind(lambda p: alias + p)), 0)
    assert b"kern<config_for_waves_and_tile_m(4, 64, true)><<<" in apply(alias, items[0])
    assert values.stats.runs == 2


def test_printed_values_become_literals():
    assert parse_value("128") == (b"128", 128, False) and parse_value("-3L").text == b"(-3L)"
    assert parse_value("true").number is True and parse_value("'z'").number == 122
    assert parse_value("(unsigned char)'\\xc8'") == (b"((unsigned char)'\\xc8')", 200, False)
    assert parse_value("lib::Kind::B").text == b"lib::Kind::B" and parse_value("(lib::Kind)7").text == b"((lib::Kind)7)"
    assert parse_value("Config{1, {2, true}}").structural
    for inexact in ("1.500000e+00", "Config{1, 2.500000e-01}", "(anonymous namespace)::K::a", "&configs[2]",
                    "-2147483648"):
        assert parse_value(inexact) is None, inexact


def test_enum_members_of_a_literal_are_cast_to_their_enums():
    """What the class definitions in the file say, as written at the scope the literal goes to;
    a member the file types through an alias, and a class with a base, are left as printed."""
    src = Source(b"""namespace a { enum class M { x, y }; namespace b {
enum class mode : int { none, atomic };
struct K { struct F { int y = 1; int x = 1; }; struct L { int w = 2; mode s = mode::atomic; };
  F f{}; M m = M::y; L lb{}; static constexpr int z = 3; int arr[2]; constexpr int q() const { return 1; }
  enum class Order { row, col } order = Order::col; int p, r; };
using m_t = M; struct A { m_t m; }; struct D : F2 { M m; };
}}
namespace p::q { enum class E { e }; struct G { E e; }; }
""", "cpp")
    printed = b"K{{1, 1}, 1, {2, 1}, {3, 4}, 1, 5, (-6)}"
    assert typed(src, printed, (b"a", b"b")) == b"K{{1, 1}, M(1), {2, mode(1)}, {3, 4}, K::Order(1), 5, (-6)}"
    assert typed(src, printed, (b"a", b"c")) == b"K{{1, 1}, M(1), {2, b::mode(1)}, {3, 4}, b::K::Order(1), 5, (-6)}"
    assert typed(src, printed, (b"c",)) == \
        b"K{{1, 1}, a::M(1), {2, a::b::mode(1)}, {3, 4}, a::b::K::Order(1), 5, (-6)}"
    assert typed(src, b"G{0}", (b"p",)) == b"G{q::E(0)}" and typed(src, b"G{0}", (b"p::q",)) == b"G{E(0)}"
    for unchanged in (b"A{1}", b"D{1}", b"K{1, 2, 3, 4, 5, 6, 7, 8}", b"Q{1}"):
        assert typed(src, unchanged, (b"a", b"b")) == unchanged


# Two instantiations of one kernel template show the effect (here: scratch on both sides).
TWO = b"""#include <hip/hip_runtime.h>
template <int W> __global__ void gather(float* a, const float* b, int n) {
  int i = threadIdx.x;
  float p[64];
  for (int j = 0; j < 64; j++) p[j] = b[j * n + i] * W;
  a[i] = p[(int)a[i] & 63];
}
template __global__ void gather<2>(float*, const float*, int);
template __global__ void gather<3>(float*, const float*, int);
"""
SCRATCH = "lto.scratch_ops > 0 and nolto.scratch_ops > 0"


def test_focus_keeps_one_target_and_the_others_become_deletable(tmp_path):
    oracle = SpillSetup("k.hip", [], None, SCRATCH, tmp_dir=tmp_path, cwd=tmp_path)
    every = oracle.resolve(TWO)
    focused = oracle.resolve(TWO, focus=True)
    assert len(every.targets) == 2 and focused.showing_effect == every.targets
    assert focused.targets == ("_Z6gatherILi2EEvPfPKfi",)  # equal spill code: the first by name
    # `instantiate` offers each explicit instantiation of a template used with several argument lists
    from reducer.text.edits import apply

    items = REGISTRY["instantiate"].items(Source(TWO, "cuda"), 0)
    assert len(items) == 2
    one = apply(TWO, items[1])
    assert b"gather<3>" not in one and focused.test(one).interesting and not every.test(one).interesting
    # the only instantiation left makes a plain kernel, which the oracle still follows
    plain, _ = fixpoint("instantiate", one)
    assert b"template" not in plain and focused.test(plain).interesting


def test_a_run_targets_one_kernel_and_deletes_the_other(tmp_path):
    (tmp_path / "k.hip").write_bytes(TWO)
    run = [sys.executable, "-m", "reducer.cli", "k.hip", "--passes", "instantiate", "--predicate", SCRATCH, "-j", "1",
           "--no-cache", "--check-repeat", "1", "-q", "--no-explain", "--"]
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(run, cwd=tmp_path, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    result = (tmp_path / "k.reduced.hip").read_bytes()
    assert b"template" not in result and result.count(b"__global__") == 1, result.decode()
    state = json.loads((tmp_path / "k.reduced.hip.work" / "state.json").read_text())
    assert state["targets"] == ["_Z6gatherILi2EEvPfPKfi"] and len(state["showing_effect"]) == 2
    report = (tmp_path / "k.reduced.hip.work" / "report.md").read_text()
    assert "focus: one of the 2 kernels" in report and "constant values from clang" in report
    assert (tmp_path / "k.reduced.hip.work" / "values.jsonl").stat().st_size  # its answers, for a resume's replay
    # `reduce check` names the kernel a reduction targets (with --all-targets: both, as resolve_targets)
    check = [sys.executable, "-m", "reducer.cli", "check", "k.hip", "--predicate", SCRATCH, "--json"]
    shown = json.loads(subprocess.run(check, cwd=tmp_path, capture_output=True, text=True, env=env).stdout)
    assert shown["targets"] == state["targets"] and shown["showing_effect"] == state["showing_effect"]
    text = format_check(shown)
    assert "a reduction targets: void gather<2>(float*, float const*, int)" in text and "--all-targets" in text


def test_answers_are_kept_in_the_verdict_cache(tmp_path):
    """A resumed run replays the engine from the start: its questions are answered from the
    cache, under a key holding the oracle's identity and the probed text, with no front-end run."""
    from reducer.engine.cache import VerdictCache

    identity = {"oracle": "test", "commands": ["clang", "-std=gnu++20"]}
    first = ClangValues(clang_values(tmp_path).front_end, VerdictCache(tmp_path / "c", identity))
    q = [Query(b"configs[9].ring_depth()", (b"conv",)), Query(b"sizeof(long)")]
    answers = first.bind(lambda probe: GENERATED + probe)(q)
    assert first.stats.runs == 1 and len(answers) == 2
    again = ClangValues(lambda text: pytest.fail("no front-end run"), VerdictCache(tmp_path / "c", identity))
    assert again.bind(lambda probe: GENERATED + probe)(q) == answers and again.stats.stored == 1
    other = ClangValues(clang_values(tmp_path).front_end, VerdictCache(tmp_path / "c", {**identity, "commands": []}))
    other.bind(lambda probe: GENERATED + probe)(q)
    assert other.stats.runs == 1  # another oracle identity: another key


def test_only_expressions_that_mean_the_same_at_namespace_scope_are_asked():
    """The probe stands at the end of the file: a name declared by a function, block, class or
    template around the expression would mean something else there."""
    from reducer.passes.folding import closed

    text = (b"namespace n { constexpr int k = 4; struct S { int k; int f() { return k + 1; } };\n"
            b"int g(int configs) { return configs; }\nint h() { return k * 2; }\nint i(int k) { return k * 2; } }\n")
    src = Source(text, "cuda")
    positions = [text.index(b"k + 1"), text.index(b"k * 2"), text.rindex(b"k * 2")]
    nodes = [next(n for n in src.nodes() if n.start_byte == p and n.type == "binary_expression") for p in positions]
    assert [closed(src, n.text, n) for n in nodes] == [False, True, False]  # a member, the constant, a parameter
    assert closed(src, b"configs[2].m", nodes[1])  # `configs` is a parameter of another function only


def test_a_failed_question_gets_the_same_answer_when_the_run_resumes(tmp_path):
    """A front end that fails twice for reasons outside the file (killed, timed out) answers
    nothing. The run's journal keeps that answer: asked again, in this session or in a resumed
    one whose front end works, the question gets nothing again, so the replay enumerates what
    the first session did. The shared cache never keeps the failure; and what the run was
    told is replayed even where the cache has lost it and the front end now fails."""
    from reducer.engine.cache import VerdictCache
    from reducer.run.workdir import WorkDir

    cache = VerdictCache(tmp_path / "c", {"oracle": "test"})
    run = WorkDir.create(tmp_path / "run", {"file": "t.hip"})
    q = [Query(b"configs[9].ring_depth()", (b"conv",)), Query(b"sizeof(long)")]
    killed = ClangValues(lambda text: None, cache, journal=run.values_journal())
    ask = killed.bind(lambda probe: GENERATED + probe)
    assert ask(q) == {} and killed.stats.failures == 2
    assert ask(q) == {} and killed.stats.runs == 2  # this session: from memory
    assert killed.marks(GENERATED) == set() and killed.stats.runs == 4  # the conditionals' question too
    resumed = ClangValues(clang_values(tmp_path).front_end, cache, journal=run.values_journal())
    assert resumed.bind(lambda probe: GENERATED + probe)(q) == {} and resumed.marks(GENERATED) == set()
    assert resumed.stats.runs == 0 and resumed.stats.replayed == 2
    other = ClangValues(clang_values(tmp_path).front_end, cache,
                        journal=WorkDir.create(tmp_path / "other", {"file": "t.hip"}).values_journal())
    answers = other.bind(lambda probe: GENERATED + probe)(q)
    assert len(answers) == 2 and other.stats.runs == 1  # another run asks clang: the failure was not kept
    lost = ClangValues(lambda text: None, None, journal=WorkDir.open(tmp_path / "other").values_journal())
    assert lost.bind(lambda probe: GENERATED + probe)(q) == answers and lost.stats.runs == 0


def test_a_question_asked_ahead_runs_on_a_worker_and_asked_again_takes_that_run(tmp_path):
    """While the engine bets on a text (`ClangValues.ahead`), a question needing a front-end run
    starts it on a worker and raises; asked again once the text is kept, it is answered from that
    run, made once. A run whose worker failed is made again where the question is asked."""
    from concurrent.futures import Future, ThreadPoolExecutor

    real, read = clang_values(tmp_path).front_end, []

    def front_end(text):
        read.append(text)
        return real(text)

    q = [Query(b"configs[9].ring_depth()", (b"conv",)), Query(b"sizeof(long)")]
    values = ClangValues(front_end)
    ask = values.bind(lambda probe: GENERATED + probe)
    with ThreadPoolExecutor(1) as pool, values.ahead(pool.submit):
        for _ in range(2):
            with pytest.raises(LookupError):
                ask(q)
    answers = ask(q)
    assert len(answers) == 2 and len(read) == 1 and (values.stats.ahead, values.stats.ahead_used) == (1, 1)

    def killed(call, *args):
        run: Future = Future()
        run.set_exception(RuntimeError("worker killed"))
        return run

    again = ClangValues(front_end)
    with again.ahead(killed), pytest.raises(LookupError):
        again.bind(lambda probe: GENERATED + probe)(q)
    assert again.bind(lambda probe: GENERATED + probe)(q) == answers and len(read) == 2
