"""The footprint (reducer/text/footprint.py, tools/footprint/Footprint.cpp) with clang 22 and the
oracle's own device front end: what the kept kernels reach, read back on real kernels, and the
one candidate that deletes the rest compiling. No mocks."""
from __future__ import annotations

import functools
import os
import shlex
from itertools import chain
from pathlib import Path

import pytest
from conftest import ROOT, needs_clang22

from interestingness.compiler.compile import Compiler, prepare_flags
from interestingness.compiler.toolchain import find_toolchain
from reducer.passes import REGISTRY
from reducer.text import footprint
from reducer.text.edits import Edit, apply
from reducer.text.flatten import flatten, include_dirs
from reducer.text.source import Source
from reducer.text.values import ClangValues

pytestmark = needs_clang22

SMALL = b"""#include <hip/hip_runtime.h>
namespace lib {
struct Unused { int x; };
struct Local { float a, b; };
typedef int my_int;
__device__ int only_discarded(int x) { return x * 3; }
__device__ int helper(int x) { return x + 1; }
__device__ int fwd(int);
template <int N> __device__ int pick(int x) {
  if constexpr (N > 4) { return only_discarded(x); } else { return helper(x); }
}
template <class T> struct Box { T v; __device__ T get() const { return v; } __device__ T other() const { return v; } };
template <class T> struct Acc { __device__ T twice(T) const; __device__ T spare(T) const; };
template <class T> __device__ T Acc<T>::twice(T x) const { return fwd(x) * 2; }
template <class T> __device__ T Acc<T>::spare(T x) const { return x; }
__device__ int fwd(int x) { return x; }
template <int N> __global__ void kern(int* out) {
  Local l{1.f, 2.f};
  Box<my_int> b{3};
  int k = N > 100 ? 1 : 2;
  out[threadIdx.x] = pick<N>(b.get()) + (int)l.a + Acc<int>{}.twice(k);
}
__device__ int other_only(int x) { return x - 1; }
template <int N> __global__ void other_kern(int* out) { out[0] = other_only(N); }
}
void launch_a(int* out) { lib::kern<2><<<1, 64>>>(out); }
void launch_b(int* out) { lib::other_kern<3><<<1, 64>>>(out); }
void host_unrelated() {}
"""
KERN = "_ZN3lib4kernILi2EEEvPi"


def compiler(tmp: Path, flags: list[str], cwd: Path | None = None) -> Compiler:
    """The oracle's compiler (its command line) for a file `t.hip`."""
    prepared, _ = prepare_flags(flags, cwd or tmp)
    return Compiler(find_toolchain(), prepared, "t.hip", str(cwd or tmp), timeout=300)


def service(c: Compiler, kernels: tuple[str, ...] = ()) -> ClangValues:
    """The values service as run/session.py builds it, with the plugin's run."""
    return ClangValues(c.diagnostics, plugin_run=functools.partial(c.plugin_output,
                                                                   flags=footprint.plugin_flags(kernels)))


def reached(fp: footprint.Footprint, text: bytes) -> dict[str, bool]:
    return {e.name: e.reached for e in fp.entries}


def without_unreached(fp: footprint.Footprint, text: bytes) -> bytes:
    """The one candidate the passes try first: every unreached declaration and idle explicit
    instantiation deleted, every branch no instantiation takes emptied."""
    edits = [Edit(e.begin, e.end) for e in fp.unreached()] + [Edit(b, e) for b, e in fp.idle]
    for c in fp.discarded():
        branch = c.orelse if c.value else c.then
        if branch is not None:
            edits.append(Edit(*branch, b"{}"))
    return apply(text, edits)


def compiles(c: Compiler, text: bytes) -> bool:
    stderr = c.diagnostics(text)
    return stderr is not None and "error:" not in stderr


def test_what_a_kernel_reaches_is_mapped_back_to_the_text_written(tmp_path):
    c = compiler(tmp_path, ["-std=gnu++20"])
    fp = service(c, (KERN,)).footprint(SMALL, SMALL)
    assert fp is not None and fp.kernels == (KERN,)
    r = reached(fp, SMALL)
    # called only from the `if constexpr` branch kern<2> discards; the branch taken reaches helper
    assert not r["lib::only_discarded"] and r["lib::helper"] and r["lib::pick"]
    # types named only by the kernel's locals and a template argument
    assert r["lib::Local"] and r["lib::my_int"] and r["lib::Box"] and not r["lib::Unused"]
    # members: the one called stays, the other goes; an out-of-line definition is the member's text
    assert r["lib::Box::get"] and not r["lib::Box::other"]
    assert r["lib::Acc::twice"] and not r["lib::Acc::spare"]
    names = [e.name for e in fp.entries]
    assert names.count("lib::Acc::twice") == 2 and all(e.reached for e in fp.entries if e.name == "lib::Acc::twice")
    # a declaration and a definition: both stay
    assert [e.reached for e in fp.entries if e.name == "lib::fwd"] == [True, True]
    # the other kernel, its launcher and host code the kernel does not need
    assert not r["lib::other_kern"] and not r["lib::other_only"] and not r["launch_b"] and not r["host_unrelated"]
    assert r["launch_a"] and r["lib::kern"]
    constexpr_if, ternary = sorted(fp.conditions, key=lambda c: c.begin)
    assert SMALL[constexpr_if.begin:constexpr_if.end].startswith(b"if constexpr (N > 4)")
    assert constexpr_if.kind == "if constexpr" and constexpr_if.value is False and fp.discarded() == [constexpr_if]
    assert SMALL[slice(*constexpr_if.then)] == b"{ return only_discarded(x); }"
    assert ternary.kind == "?:" and ternary.value is False and SMALL[slice(*ternary.orelse)] == b"2"
    smaller = without_unreached(fp, SMALL)
    assert compiles(c, smaller) and b"only_discarded" not in smaller and b"other_kern" not in smaller


def test_every_kernel_is_kept_when_none_is_named_and_a_wrong_name_gives_no_footprint(tmp_path):
    c = compiler(tmp_path, ["-std=gnu++20"])
    fp = service(c).footprint(SMALL, SMALL)
    assert fp is not None and len(fp.kernels) == 2
    r = reached(fp, SMALL)
    assert r["lib::other_kern"] and r["lib::other_only"] and r["launch_b"] and not r["host_unrelated"]
    assert service(c, ("no_such_kernel",)).footprint(SMALL, SMALL) is None


def test_one_run_per_text_and_none_for_a_file_that_does_not_compile(tmp_path):
    c = compiler(tmp_path, ["-std=gnu++20"])
    values = service(c, (KERN,))
    assert values.footprint(SMALL, SMALL) == values.footprint(SMALL, SMALL)
    assert values.stats.runs == 1
    broken = SMALL + b"\nint broken(\n"
    assert values.footprint(broken, broken) is None
    assert values.bind(lambda probe, part=SMALL: part + probe).footprint(SMALL) is not None
    assert values.stats.runs == 2


@pytest.mark.parametrize("case", ["mfconv_pos", "wgrad_tiny_pos"])
def test_a_corpus_case_loses_its_unreached_code_in_one_candidate_that_compiles(tmp_path, case):
    directory = ROOT / "corpora" / case
    flags = shlex.split((directory / "flags").read_text())
    text, _ = flatten(directory / "repro.hip", (directory / "repro.hip").read_bytes(), include_dirs(flags, ROOT))
    c = compiler(tmp_path, flags, ROOT)
    kernels = ("wgrad_xdl_kernel",) if case == "mfconv_pos" else ()
    fp = service(c, kernels).footprint(text, text)
    assert fp is not None
    r = reached(fp, text)
    smaller = without_unreached(fp, text)
    assert compiles(c, smaller)
    if case == "mfconv_pos":  # 130 KB of library headers around two instantiated kernels
        assert r["mfconv::conv::wgrad::wgrad_xdl_kernel"] and r["mfconv::conv::configs"]
        assert not r["mfconv::half_to_float"] and not r["mfconv::type_list"]
        assert len(text) - len(smaller) > 30_000
    else:  # a reduced case: almost everything is the kernel's
        assert r["wgrad_kernel"] and r["Config::lds_stage_bytes"] and not r["to_bf16"]


def test_the_passes_delete_the_unreached_code_in_one_candidate_then_fold_the_conditions(tmp_path):
    c = compiler(tmp_path, ["-std=gnu++20"])
    values = service(c, (KERN,))

    def source(text: bytes) -> Source:
        return Source(text, "cuda", values.bind(lambda probe, part=text: part + probe))

    items = REGISTRY["unreached"].items(source(SMALL), 0)
    assert items is not None and len(items) == 10  # 9 declarations (2 of `spare`), the branch kern<2> discards
    one = apply(SMALL, chain.from_iterable(items))  # the engine's first chunk: all of them
    assert compiles(c, one)
    assert b"only_discarded" not in one and b"spare" not in one and b"host_unrelated" not in one
    assert b"struct Local" in one and b"fwd(int);" in one and b"if constexpr (N > 4) {} else" in one
    assert REGISTRY["unreached"].items(source(one), 0) == []  # all that is left is reached
    folds = REGISTRY["folded"].items(source(one), 0)
    assert folds is not None and len(folds) == 2
    folded = apply(one, chain.from_iterable(folds))
    assert compiles(c, folded) and b"if constexpr" not in folded and b"int k = (2);" in folded
    assert b"{ return helper(x); }" in folded
    assert REGISTRY["unreached"].items(Source(SMALL, "cuda"), 0) == []  # no compiler to ask: nothing



def test_with_the_footprint_branches_leaves_the_else_of_an_if_constexpr_to_folded(tmp_path):
    """The compiler decides `if constexpr`; a blind deletion of its `else { return x; }` mostly
    does not compile (composable_kernel). Without a compiler to ask, branches still proposes it."""
    c = compiler(tmp_path, ["-std=gnu++20"])
    values = service(c, (KERN,))
    constexpr_else = b"else { return helper(x); }"
    blind = REGISTRY["branches"].items(Source(SMALL, "cuda"), 0)
    assert any(constexpr_else not in apply(SMALL, item) for item in blind)
    informed = REGISTRY["branches"].items(Source(SMALL, "cuda", values.bind(lambda probe, part=SMALL: part + probe)), 0)
    assert informed is not None and len(informed) == len(blind) - 1
    assert all(constexpr_else in apply(SMALL, item) for item in informed)

# What composable_kernel's TU taught the plugin (benchmarks/realcode): each of these broke the one
# candidate until the footprint covered it.
LIBRARY = b"""#include <hip/hip_runtime.h>
#include <type_traits>
#define DECLARE_ENV(name) namespace env { struct name { static int get() { return 0; } }; }
DECLARE_ENV(LOGGING)
namespace lib {
__device__ int after_macro() { return 1; }
using int4_t = _BitInt(4);
typedef int int32x4_t __attribute__((ext_vector_type(4)));
typedef int unused_x2_t __attribute__((ext_vector_type(2)));
template <class T> struct is_native { static constexpr bool value = false; };
template <> struct is_native<float> { static constexpr bool value = true; };
template <class T> constexpr bool is_native_type() { return is_native<T>::value; }
template <class T, int N, class E = void> struct vec;
template <class T, int N> struct vec<T, N, std::enable_if_t<is_native_type<T>()>> { using type = T; T v[N]; };
template <int M, class D> struct Map;
template <int M> struct Map<M, void> { int m; __device__ explicit Map(int x) : m(x * M) {} };
template <int M, class D> struct Map : Map<M, void> { using Map<M, void>::Map; };
template <class T> struct Gemm {
  template <bool B> static constexpr auto unpack() { if constexpr (B) return T{}; else return 0; }
  using data_t = decltype(unpack<true>());
  __device__ static data_t run(data_t x) { return Map<4, T>(int(x)).m + x; }
};
extern "C" __device__ int c_only_host(int);
__device__ int spare();
template <class T> __global__ void kern(typename vec<T, 4>::type* out) {
  out[0] = Gemm<T>::run(out[1]) + sizeof(int32x4_t) + after_macro();
}
struct BaseOp { virtual bool supported() const { return false; } virtual int pure() const = 0; virtual ~BaseOp() {} };
template <class T> struct Made : BaseOp { int pure() const override { return 1; } };
template <class T> struct Op : BaseOp {
  static bool check() { return true; }
  bool supported() const override { return check(); }
  int pure() const override { return 0; }
  static void launch(T* p) { Made<T> made; kern<T><<<1, 64>>>(p + made.pure()); }
};
using FloatOp = Op<float>;
}
template void lib::FloatOp::launch(float*);
"""


def test_library_idioms_stay_declared_when_the_rest_goes(tmp_path):
    c = compiler(tmp_path, ["-std=gnu++20"])
    assert compiles(c, LIBRARY)
    fp = service(c).footprint(LIBRARY, LIBRARY)
    assert fp is not None
    r = reached(fp, LIBRARY)
    # a partial specialization chosen by a trait: the trait's specializations stay
    assert r["lib::vec"] and r["lib::is_native_type"]
    assert all(e.reached for e in fp.entries if e.name == "lib::is_native")
    # inheriting constructors, a member template named only in an alias, an alias named only by
    # an explicit instantiation
    assert all(e.reached for e in fp.entries if e.name == "lib::Map") and r["lib::Gemm::unpack"] and r["lib::FloatOp"]
    assert not r["lib::int4_t"] and not r["lib::unused_x2_t"] and not r["lib::c_only_host"] and not r["lib::spare"]
    ranges = {e.name: LIBRARY[e.begin:e.end] for e in fp.entries}
    assert ranges["lib::int4_t"] == b"using int4_t = _BitInt(4);"  # clang's range stops at `_BitInt`
    assert ranges["lib::unused_x2_t"].endswith(b"__attribute__((ext_vector_type(2)));")
    assert ranges["lib::c_only_host"] == b'extern "C" __device__ int c_only_host(int);'
    # virtual functions: those of a class template no one makes are never called (Op<float> is
    # only `launch`); a made one's stay, with the pure function they override
    assert not r["lib::Op::supported"] and not r["lib::Op::check"] and not r["lib::Op::pure"]
    assert r["lib::Made::pure"] and r["lib::BaseOp::pure"] and r["lib::BaseOp::supported"]
    # a macro's declaration ends with the invocation, which has no `;` to look for
    assert ranges["env::LOGGING"] == b"DECLARE_ENV(LOGGING)" and not r["env::LOGGING"] and r["lib::after_macro"]
    assert compiles(c, without_unreached(fp, LIBRARY))


TUPLE_LIKE = b"""#include <hip/hip_runtime.h>
#include <type_traits>
#include <utility>
namespace lib {
template <class A, class B> class pair2 {
  A a; B b;
 public:
  __device__ constexpr pair2(A a, B b) : a(a), b(b) {}
  template <int I> __device__ constexpr auto get() const { if constexpr (I == 0) return a; else return b; }
};
template <class T> struct traits;
template <class T> struct traits<pair2<T, T>> { using scalar = T; static constexpr int lanes = 2; };
struct view {
  template <class X, typename std::enable_if<std::is_same_v<typename traits<X>::scalar, int>, bool>::type = false>
  __device__ int load(const X& x) const { const auto& [lo, hi] = x; return lo + hi; }
};
}
namespace std {
template <class A, class B> struct tuple_size<lib::pair2<A, B>> : integral_constant<size_t, 2> {};
template <class A, class B> struct tuple_size<const lib::pair2<A, B>> : integral_constant<size_t, 2> {};
template <class A, class B> struct tuple_element<0, const lib::pair2<A, B>> { using type = const A; };
template <class A, class B> struct tuple_element<1, const lib::pair2<A, B>> { using type = const B; };
}
__global__ void kern(int* out) { out[2] = lib::view{}.load(lib::pair2<int, int>(out[0], out[1])); }
"""


def test_what_sema_checks_without_a_trace_in_the_ast_stays(tmp_path):
    """ck_tile's idioms: a structured binding of a tuple-like class asks `std::tuple_size` of it
    (the AST keeps `get` and `tuple_element` only), and a SFINAE signature looks a member up in
    a trait's specialization (`typename traits<X>::scalar`) that no instantiated code names."""
    c = compiler(tmp_path, ["-std=gnu++20"])
    assert compiles(c, TUPLE_LIKE)
    fp = service(c).footprint(TUPLE_LIKE, TUPLE_LIKE)
    assert fp is not None
    sizes = [TUPLE_LIKE[e.begin:e.end] for e in fp.entries if e.name == "std::tuple_size" and e.reached]
    assert sizes == [b"template <class A, class B> struct tuple_size<const lib::pair2<A, B>> : "
                     b"integral_constant<size_t, 2> {};"]
    member = {TUPLE_LIKE[e.begin:e.end]: e.reached for e in fp.entries if e.name.startswith("lib::traits<")}
    assert member == {b"using scalar = T;": True, b"static constexpr int lanes = 2;": False}
    assert compiles(c, without_unreached(fp, TUPLE_LIKE))


def test_a_missing_or_stale_plugin_names_the_setup_command(tmp_path, monkeypatch):
    monkeypatch.setattr(footprint, "PLUGIN", tmp_path / "footprint.so")
    with pytest.raises(footprint.PluginMissing, match="bash scripts/setup.sh"):
        footprint.plugin_flags()
    (tmp_path / "footprint.so").write_bytes(b"")
    os.utime(tmp_path / "footprint.so", (0, 0))
    with pytest.raises(footprint.PluginMissing, match="older than Footprint.cpp: run `bash scripts/setup.sh`"):
        footprint.plugin_flags()


# composable_kernel's launcher: the kernel is named in a generic lambda of a member that the
# explicitly instantiated member calls as `this->RunGemm` (a member access, no DeclRefExpr)
INVOKER = b"""#include <hip/hip_runtime.h>
#include <type_traits>
namespace lib {
template <class T, bool Loop> __global__ void kern(T* out) { out[threadIdx.x] = Loop ? 2 : 1; }
template <class T> float launch_and_time(void (*k)(T*), T* out) { k<<<1, 64>>>(out); return 0.f; }
template <class T> struct DeviceOp {
  struct Argument { T* out; int k; };
  struct Invoker {
    float RunGemm(const Argument& arg) {
      auto launch_kernel = [&](auto has_loop) {
        constexpr bool loop = decltype(has_loop)::value;
        const auto kernel = kern<T, loop>;
        return launch_and_time(kernel, arg.out);
      };
      if (arg.k > 4) return launch_kernel(std::integral_constant<bool, true>{});
      return launch_kernel(std::integral_constant<bool, false>{});
    }
    float Run(const Argument& arg) { return RunGemm(arg); }
  };
};
}
namespace bench { using Op = lib::DeviceOp<float>; }
template float bench::Op::Invoker::Run(const bench::Op::Argument&);
"""


def test_an_explicit_instantiation_that_launches_through_a_member_call_stays(tmp_path):
    c = compiler(tmp_path, ["-std=gnu++20"])
    fp = service(c).footprint(INVOKER, INVOKER)
    assert fp is not None and len(fp.kernels) == 2
    # Run reaches the kernels through `this->RunGemm`: it is a root, not idle
    assert fp.idle == ()
    r = reached(fp, INVOKER)
    assert r["lib::kern"] and r["lib::launch_and_time"] and r["lib::DeviceOp"]
    alone = without_unreached(fp, INVOKER)
    assert compiles(c, alone) and b"template float bench::Op::Invoker::Run" in alone
