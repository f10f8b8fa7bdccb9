"""The replacement passes (replace-calls, replace-types, replace-subtrees): what each proposes on
small examples, that every proposal is smaller and looks up only names in scope where it goes,
and the engine's replacement stage taking a call chain apart (tests/test_schedule.py asks the
schedule directly)."""
from conftest import ROOT, needs_gxx

from interestingness.oracle.script import ScriptOracle
from reducer import passes
from reducer.engine.engine import Engine
from reducer.engine.evaluate import Evaluator
from reducer.engine.schedule import Schedule
from reducer.passes import REGISTRY
from reducer.text.edits import apply
from reducer.text.lexer import count_tokens
from reducer.text.source import Source

# the shape: a generic helper with an accumulator class, where a plain function would do
ACCUM = b"""float to_float(float v) { return v; }
template <typename T> struct Accum {
  T total;
  void add_scaled(T v) { total += v * 2; }
};
float reduce_weighted(const float* x, int n) {
  Accum<float> acc;
  for (int i = 0; i < n; ++i) acc.add_scaled(x[i]);
  return acc.total;
}
"""


def proposals(pass_name: str, text: bytes, language: str = "cpp") -> dict[int, list[tuple[bytes, bytes]]]:
    """Per level: (replaced text, replacement) of each item."""
    src, out, level = Source(text, language), {}, 0
    while (items := REGISTRY[pass_name].items(src, level)) is not None:
        out[level] = [(text[e.start:e.end], e.replacement) for (e,) in items]
        level += 1
    return out


def every_item(pass_name: str, text: bytes, language: str = "cpp"):
    src, level = Source(text, language), 0
    while (items := REGISTRY[pass_name].items(src, level)) is not None:
        yield from items
        level += 1


def test_every_replacement_is_one_edit_and_shrinks_bytes_and_never_grows_tokens():
    for name in passes.REPLACE:
        for text in (ACCUM, CHAIN, TYPES, SCOPES):
            assert proposals(name, text) == proposals(name, bytes(text))  # a function of the text alone
            for item in every_item(name, text):
                assert len(item) == 1
                candidate = apply(text, item)
                assert len(candidate) < len(text), (name, item)
                assert count_tokens(candidate) <= count_tokens(text), (name, item)


def test_a_method_call_becomes_a_call_of_a_free_function_that_takes_its_arguments():
    found = proposals("replace-calls", ACCUM)
    assert (b"acc.add_scaled", b"to_float") in found[0]
    # the free function is the only other function in scope there: members of Accum are not
    assert all(new != b"add_scaled" for level in found.values() for old, new in level if old != b"acc.add_scaled")
    # inside the class, its own members are in scope and free functions too, and nothing that grows
    assert not any(len(new) >= len(old) for level in found.values() for old, new in level)


CHAIN = b"""namespace wire { template <typename T> void to_wire(T); }
struct Timestamp {};
struct Sample { Timestamp at; };
template <typename F> void encode_one(F& f) { wire::to_wire(f); }
template <typename F> struct Record { F field; void encode() { encode_one(field); } };
template <typename F> Record<F> make_record(F f) { return Record<F>{f}; }
void snapshot(Sample& s) { make_record(s.at).encode(); }
"""


def test_a_call_is_made_to_a_function_of_another_namespace_qualified_and_as_many_tokens_only_when_it_frees_a_name():
    found = proposals("replace-calls", CHAIN)
    alternatives = {old: [new for level in found.values() for o, new in level if o == old] for level in found.values()
                    for old, _ in level}
    # make_record is called once: its call may become any shorter function's, the one taking one
    # argument first (to_wire, qualified since snapshot is outside namespace wire)
    assert alternatives[b"make_record"][0] == b"wire::to_wire" if len(b"wire::to_wire") < len(b"make_record") \
        else b"snapshot" in alternatives[b"make_record"]
    assert b"encode_one" in alternatives  # called once, inside Record: to another function
    # `wire::to_wire` is 3 tokens; a plain name in its place is fewer
    assert set(alternatives[b"wire::to_wire"]) <= {b"encode_one", b"snapshot", b"make_record"}


TYPES = b"""struct Shape { int m; };
template <typename T, typename S> struct View { T* p; S s; };
template <typename T> struct Acc { T t; };
template <int N> struct Tile { float v[N]; };
float use(View<float, Shape>& v, int i) {
  Acc<float> a;
  Tile<4> tile;
  return v.p[i] + a.t + tile.v[0];
}
"""


def test_template_arguments_and_declared_types_become_shorter_types_of_the_file():
    found = proposals("replace-types", TYPES)
    flat = [pair for level in found.values() for pair in level]
    assert (b"Shape", b"int") in flat          # frees Shape: its last use
    assert (b"Acc<float>", b"int") in flat     # fewer tokens
    assert not any(old == b"float" and new == b"int" for old, new in flat)  # same tokens, frees nothing
    assert not any(b"N" == new or b"T" == new for _, new in flat)  # N is a value; T is out of scope in `use`
    assert not any(old == b"4" for old, _ in flat)  # a non-type argument is no type


SCOPES = b"""int g;
int helper(int a) { int local_only = a * 3; return local_only + g; }
int other(int b, int* p) {
  int x = b + 1;
  p[0] = x * b;
  return helper(b) + helper(x);
}
"""


def test_subtrees_look_up_only_names_in_scope_and_what_is_written_takes_only_what_can_be():
    found = proposals("replace-subtrees", SCOPES)
    flat = [pair for level in found.values() for pair in level]
    assert flat
    # nothing of helper's body (`a`, `local_only`) goes into other, nor other's (`x`, `b`) into helper
    body_of_other = SCOPES[SCOPES.index(b"int other"):]
    for old, new in flat:
        names = {b"a", b"local_only"} if old in body_of_other else {b"x", b"b", b"p"}
        assert not set(new.replace(b"(", b" ").replace(b")", b" ").replace(b"*", b" ").split()) & names, (old, new)
    # `p[0] = ...`: the left side only ever becomes something that can be written
    assert all(new.replace(b"_", b"").isalnum() or b"[" in new for old, new in flat if old == b"p[0]")
    # a call's own operands and arguments are hoist's; `0` and `1` are expr-constant's
    assert (b"helper(b)", b"b") not in flat and not any(new in (b"0", b"1") for _, new in flat)
    # an expression of as many tokens only when it frees a name: `x * b` -> `g` fewer tokens, fine
    assert (b"x * b", b"g") in flat


def test_a_statement_becomes_a_smaller_statement_of_the_file():
    text = b"""void log(int);
void f(int v) { log(v); }
void g(int v) { for (int i = 0; i < v; ++i) { log(i); log(i + 1); } }
"""
    flat = [pair for level in proposals("replace-subtrees", text).values() for pair in level]
    assert any(old.startswith(b"{ log(i);") and new == b"log(v);" for old, new in flat)
    assert not any(new in (b"{}", b";") for _, new in flat)  # emptying is deletion's
    # a statement's expression by one without effects (`v * v;`) is the statement deleted: deletion's too
    cube = b"void log(int);\nvoid f(int v) { log(v * v * v); }\n"
    assert not any(old == b"log(v * v * v)" for level in proposals("replace-subtrees", cube).values()
                   for old, _ in level)


@needs_gxx
def test_the_replacement_stage_takes_a_call_chain_apart_and_the_deletions_follow(tmp_path):
    """cxx_diag's test (g++ still says `no matching function for call to 'to_wire(...Timestamp...)'`)
    on a chain deletion cannot shorten: the call in Record::encode is the diagnostic's while
    make_record instantiates it; `make_record(s.at)` made `to_wire(s.at)` is the same diagnostic
    in snapshot, and Record and make_record go."""
    text = b"""template <typename T> void to_wire(T*);
struct Timestamp {};
struct Sample { Timestamp at; };
template <typename F> struct Record { F field; void encode() { to_wire(field); } };
template <typename F> Record<F> make_record(F f) { return Record<F>{f}; }
void snapshot(Sample& s) { make_record(s.at).encode(); }
"""
    oracle = ScriptOracle.create(ROOT / "corpora/cxx_diag/test.sh", "case.cpp", tmp_root=tmp_path)
    main = passes.resolve(list(passes.MAIN))
    results = {}
    for stage in ((), passes.REPLACE):
        with Evaluator(oracle, 2, "threading") as ev:
            engine = Engine(ev, "cpp", Schedule(main=main, replace=passes.resolve(list(stage))))
            results[stage] = engine.reduce(text)
    without, with_stage = results[()], results[passes.REPLACE]
    assert b"Record" in without and b"make_record" in without  # deletion alone keeps the chain
    assert b"Record" not in with_stage and b"make_record" not in with_stage and b"to_wire(s.at)" in with_stage
    assert engine.status.per_pass["replace-calls"].accepted >= 1
    assert count_tokens(with_stage) < count_tokens(without)


def test_on_a_bigger_file_a_replacement_must_promise_a_fiftieth_of_its_tokens():
    """Past the fixpoint an accepted replacement costs a sweep of the main passes; a few tokens
    do not pay for it on a big file, a declaration left unused does."""
    padding = b"".join(b"int pad%d(int v) { return v + %d; }\n" % (i, i) for i in range(40))  # ~480 tokens
    text = padding + b"""int helper(int a, int b) { int t = a * b; t += a; t -= b; return t * 2 + a; }
int two(int x) { return x; }
int f(int x, int b) { return helper(x, b) + x * b; }
"""
    calls = [pair for level in proposals("replace-calls", text).values() for pair in level]
    subtrees = [pair for level in proposals("replace-subtrees", text).values() for pair in level]
    assert (b"helper", b"two") in calls          # helper's ~30 tokens go with its only call
    assert not any(old == b"t * 2" for old, _ in subtrees)  # 2 tokens: not worth a sweep here
    small = proposals("replace-subtrees", text[len(padding):])
    assert any(old == b"t * 2" for level in small.values() for old, _ in level)  # on a small file it is
