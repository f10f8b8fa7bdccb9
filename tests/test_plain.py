"""The plain kernel (reducer/passes/plain.py, the footprint plugin's `plain`): a kernel template's
instantiation printed by clang as a plain `__global__` function, built with clang 22 and the
oracle's own compiler on both sides. No mocks."""
from __future__ import annotations

import re
import shlex

import pytest
from conftest import ROOT, needs_clang22
from test_footprint import compiler, service

from interestingness.compiler.compile import SIDES
from interestingness.oracle.spill import base_name
from reducer.passes import REGISTRY
from reducer.passes.plain import Plain
from reducer.text.edits import apply
from reducer.text.flatten import flatten, include_dirs
from reducer.text.source import Source

pytestmark = needs_clang22

# a kernel template whose launch bounds, `if constexpr`, shared array and callee all depend on
# its arguments, launched from an explicitly instantiated class template (the library shape)
KERNEL = b"""#include <hip/hip_runtime.h>
namespace lib {
struct Cfg { int threads; int tile; __host__ __device__ constexpr int blocks() const { return tile * 2; } };
template <class T, int N> struct Vec {
  T v[N];
  __device__ T sum() const { T s = 0; for (int i = 0; i < N; ++i) s += v[i] * v[i]; return s; }
};
template <int N> __device__ float scale(float x) {
  if constexpr (N > 4) { static_assert(N > 4, "never instantiated"); return x * 3.5f; } else { return x + 1.25f; }
}
template <class T> struct Ops {
  static constexpr int lanes = 3;
  __device__ static T twice(T x) { return x + x; }
  template <bool Wide> __device__ static T run(T x) {
    if constexpr (Wide) { return twice(x) * lanes; } else { static_assert(Wide, "never instantiated"); return x; }
  }
};
template <class T, Cfg C> __global__ void __launch_bounds__(C.threads, 2) kern(T* out, const T* in) {
  __shared__ T stage[C.threads];
  Vec<T, C.tile> v{};
  for (int i = 0; i < C.tile; ++i) v.v[i] = in[threadIdx.x * C.tile + i];
  stage[threadIdx.x] = Ops<T>::template run<(C.tile > 2)>(v.sum());
  __syncthreads();
  if constexpr (C.tile > 2) {
    out[threadIdx.x] = scale<C.tile>(stage[(threadIdx.x + 1) % C.threads]) + C.blocks();
  } else {
    out[threadIdx.x] = stage[0];
  }
}
}
template <class T> struct Launcher {
  static void run(T* out, const T* in) { lib::kern<T, lib::Cfg{128, 4}><<<1, 128>>>(out, in); }
};
template struct Launcher<float>;
"""
KERN = "_ZN3lib4kernIfXtlNS_3CfgELi128ELi4EEEEEvPT_PKS2_"


def kernels(c, text: bytes) -> dict[str, dict]:
    """{side: {kernel: its figures (instructions, VGPRs, launch bound, occupancy, ...)}} of one build."""
    out: dict[str, dict] = {}
    for side in SIDES:
        built = c.compile(side, text)
        assert built.ok, built.message
        out[side] = built.summary.metrics
    return out


def same_kernels(c, original: bytes, kern: str, texts: tuple[bytes, ...], base: str = "kern") -> None:
    """Each of `texts` builds one kernel, named `base`, with the figures of `original`'s `kern` on both sides."""
    before = kernels(c, original)
    for text in texts:
        after = kernels(c, text)
        for side in SIDES:
            (name,) = after[side]
            assert base_name(name) == base and after[side][name] == before[side][kern]


def test_a_kernel_template_becomes_the_plain_kernel_clang_prints(tmp_path):
    c = compiler(tmp_path, ["-std=gnu++20"])
    values = service(c, (KERN,))
    fp = values.footprint(KERNEL, KERNEL)
    assert fp is not None and [p.kernel for p in fp.plain] == [KERN]
    plain = fp.plain[0]
    # what -ast-print loses, written back from the AST: __global__, the evaluated launch bounds,
    # and `if constexpr`: only the taken branch is printed, the other was never instantiated
    assert plain.namespaces == ("lib",) and plain.name == "kern"
    assert "__attribute__((global))" in plain.text and "amdgpu_flat_work_group_size(1, 128)" in plain.text
    assert "amdgpu_waves_per_eu(2)" in plain.text and "__attribute__((shared))" in plain.text
    assert "never instantiated" not in plain.text and "if constexpr" not in plain.text
    src = Source(KERNEL, "cuda", values.bind(lambda probe, part=KERNEL: part + probe))
    step = REGISTRY["plain"]
    (item,) = step.enumerate(src)
    candidate = apply(KERNEL, item)
    # a test the engine would make: it grows the file, within the pass's measure
    assert len(candidate) > len(KERNEL) and step.progresses(src, candidate)
    assert Source(candidate, "cuda").error_count <= Source(KERNEL, "cuda").error_count
    before, after = kernels(c, KERNEL), kernels(c, candidate)
    for side in SIDES:
        (name,) = after[side]
        # the template's instantiation is no longer emitted; the plain kernel has its base name
        assert name != KERN and base_name(name) == "kern" and "kernIf" not in name
        # the same code: every figure, the launch bound of 128 and the instruction count included
        assert after[side][name] == before[side][KERN] and after[side][name]["max_flat_workgroup_size"] == 128
    # the footprint follows the renamed target by its base name, and has nothing left to make plain
    again = values.footprint(candidate, candidate)
    assert again is not None and again.kernels == (name,) and again.plain == ()
    # the launcher now makes no kept kernel exist: `unreached` takes it, the template and the
    # class around it in one candidate, and the kernel's code stays the same
    assert [candidate[b:e] for b, e in again.idle] == [b"template struct Launcher<float>;"]
    plain_src = Source(candidate, "cuda", values.bind(lambda probe, part=candidate: part + probe))
    alone = apply(candidate, [e for i in REGISTRY["unreached"].enumerate(plain_src) for e in i])
    assert b"Launcher" not in alone and b"template <class T, Cfg C>" not in alone and b"kern(" in alone
    assert kernels(c, alone) == after


def printed(definition) -> str:
    """A printed definition as its item declares it: the footprint's aliases it names, then its text."""
    return "".join(a.text + "\n" for a in definition.aliases) + definition.text


def plain_chain(values, text: bytes) -> tuple[int, bytes]:
    """`plain`'s chain on `text` (its level 0, one item): how many templates it makes plain, and the text."""
    src, step = Source(text, "cuda", values.bind(lambda probe, part=text: part + probe)), REGISTRY["plain"]
    (item,) = step.items(src, 0)
    chained = apply(text, item)
    return step.progress(src) - step.progress(Source(chained, "cuda")), chained


def plain_step(values, text: bytes) -> bytes:
    """Every item of `plain` on `text` in one candidate, checked as the engine would before a test:
    within the pass's measure, no more parse errors."""
    src = Source(text, "cuda", values.bind(lambda probe, part=text: part + probe))
    step = REGISTRY["plain"]
    candidate = apply(text, [e for i in step.enumerate(src) for e in i])
    assert step.progresses(src, candidate)
    assert Source(candidate, "cuda").error_count <= src.error_count
    return candidate


def test_the_function_templates_a_plain_kernel_calls_become_plain_too(tmp_path):
    """The next footprint of the plain kernel: a device function template and a class template's
    static member function template it calls, each printed plain under a fresh name, its calls
    rewritten, its template's body `;`; `unreached` then deletes both templates."""
    c = compiler(tmp_path, ["-std=gnu++20"])
    values = service(c, (KERN,))
    kernel = plain_step(values, KERNEL)
    fp = values.footprint(kernel, kernel)
    assert fp is not None and fp.plain == ()
    # and the class template's member `v.sum()`, a free function of its object (tests below)
    assert sorted(x.name for x in fp.callees) == ["::lib::__plain_run", "::lib::__plain_scale", "::lib::__plain_sum"]
    (run,) = (x for x in fp.callees if x.name == "::lib::__plain_run")
    # the static member as a free function: its class's members through the class's name
    assert "__attribute__((device))" in run.text and "::twice(" in run.text and "::lanes" in run.text
    assert "if constexpr" not in run.text and "never instantiated" not in run.text
    callees = plain_step(values, kernel)
    assert b"never instantiated" not in callees and b"__plain_scale(" in callees
    before = kernels(c, KERNEL)
    after = kernels(c, callees)
    for side in SIDES:
        (name,) = after[side]
        # the same code as the template's instantiation: every figure
        assert base_name(name) == "kern" and after[side][name] == before[side][KERN]
    # the static member `twice` that `run` called is next, and `unreached` deletes the two templates
    again = values.footprint(callees, callees)
    assert again is not None and [x.name for x in again.callees] == ["::lib::__plain_twice"] and again.plain == ()
    src = Source(callees, "cuda", values.bind(lambda probe, part=callees: part + probe))
    alone = apply(callees, [e for i in REGISTRY["unreached"].enumerate(src) for e in i])
    assert b"template <bool Wide>" not in alone and b"template <int N>" not in alone
    assert kernels(c, alone) == after


# composable_kernel's shape: a static member template whose body spells types with its class's
# members as template arguments (`Sequence<AK0PerBlock, 256, AK1>`, `Number<NumDTensor>{}`),
# next to a generic lambda, whose `auto` parameter keeps its body a pattern; and a constexpr
# template whose instantiation returns a type that is not literal, with a `const` type argument
# (CK's `BlockwiseGemmXdlops_..._Selector()`)
MEMBERS = b"""#include <hip/hip_runtime.h>
namespace lib {
template <int... Is> struct Seq { static constexpr int size = sizeof...(Is); };
template <int N> struct Num { static constexpr int value = N; };
template <class T> struct Acc { T v; __device__ ~Acc() {} };
template <class D> __device__ constexpr Acc<const D> widen(D x) { return Acc<const D>{x}; }
template <class F, int... Is> __device__ void each(F f, Seq<Is...>) { (f(Num<Is>{}), ...); }
template <class T, int Lanes> struct Gemm {
  static constexpr int Width = Lanes * 2;
  static constexpr auto I1 = Num<1>{};
  template <bool Tail> __device__ static T run(const T* in, const Num<Lanes>& lanes) {
    T acc = 0;
    each([&](auto i) { acc += in[threadIdx.x + i.value * Width] * Num<Width>::value; }, Seq<0, Width, I1.value>{});
    auto n = Num<Width + Lanes>{};
    return acc * static_cast<T>(Seq<Width, 4>::size + n.value + lanes.value);
  }
};
template <class T, int L> __global__ void __launch_bounds__(64) kern(T* out, const T* in) {
  out[threadIdx.x] = Gemm<T, L>::template run<false>(in, Num<L>{}) + widen(Num<L>{}).v.value;
}
}
template <class T> struct Launcher {
  static void run(T* out, const T* in) { lib::kern<T, 4><<<1, 64>>>(out, in); }
};
template struct Launcher<float>;
"""
MEMBERS_KERN = "_ZN3lib4kernIfLi4EEEvPT_PKS1_"


def test_a_static_members_types_that_name_its_class_members_become_their_values(tmp_path):
    """A static member printed as a free function: the types its body spells with its class's
    members as arguments, which mean nothing outside the class, through aliases of their values;
    the generic lambda becomes a functor with one call operator for its instantiations, the
    member it names through the class's alias. A constexpr instantiation whose type is not
    literal is printed without `constexpr`."""
    c = compiler(tmp_path, ["-std=gnu++20"])
    values = service(c, (MEMBERS_KERN,))
    kernel = plain_step(values, MEMBERS)
    fp = values.footprint(kernel, kernel)
    assert fp is not None
    (run,) = (x for x in fp.callees if x.name == "::lib::__plain_run")
    for written in ("Num<Width>", "Seq<0, Width", "Num<Width + Lanes>", "Seq<Width, 4>"):
        assert written not in run.text
    assert re.search(r"each\(__plain_closure_0\{acc, in\}, __plain_t\d+\{\}\)", run.text)
    # its three instantiations print one body: one call operator
    assert run.text.count("void operator()(auto ") == 1 and "void operator()(__plain_t" not in run.text
    assert "const float *&in;" in run.text
    assert "type-parameter" not in run.text and "::Width" in run.text
    (widen,) = (x for x in fp.callees if x.name == "::lib::__plain_widen")
    assert "constexpr" not in widen.text and "= const " not in widen.text
    callees = plain_step(values, kernel)
    assert b"__plain_run(" in callees
    # the same code as the template's instantiation: every figure
    same_kernels(c, MEMBERS, MEMBERS_KERN, (callees,))


@pytest.mark.parametrize("case", ["wgrad_tiny_pos", "mfconv_pos"])
def test_a_corpus_kernel_becomes_plain_and_keeps_its_code(tmp_path, case):
    """wgrad_tiny: a reduced case; mfconv: library-style code, its kernel behind a macro of
    attributes, a class-type argument with enum members, `#pragma unroll`, member type aliases."""
    directory = ROOT / "corpora" / case
    flags = shlex.split((directory / "flags").read_text())
    text, _ = flatten(directory / "repro.hip", (directory / "repro.hip").read_bytes(), include_dirs(flags, ROOT))
    c = compiler(tmp_path, flags, ROOT)
    before = kernels(c, text)
    # one target: the launcher's first wgrad kernel
    (target, *_) = sorted(k for k in before["lto"] if "wgrad" in k)
    values = service(c, (target,))
    src = Source(text, "cuda", values.bind(lambda probe, part=text: part + probe))
    step = REGISTRY["plain"]
    # the kernel's item first; then those of the class templates' members that plain code
    # (mfconv's non-template device functions) already calls
    item, *_ = step.enumerate(src)
    candidate = apply(text, item)
    assert step.progresses(src, candidate)
    assert Source(candidate, "cuda").error_count <= src.error_count
    after = kernels(c, candidate)
    for side in SIDES:
        (plain,) = (k for k in after[side] if "wgrad" in k)
        # the template's instantiations are emitted no more; the plain kernel has the same code
        assert base_name(plain) == base_name(target) and plain != target
        assert after[side][plain] == before[side][target]


# composable_kernel's shapes past its `Run<false>`: one function template reached with two
# argument lists (`make_dynamic_buffer<Global>` and `<Lds>`), a static member template called
# through an object (`gridwise_gemm_pipeline.template Run<HasMainKBlockLoop>(...)`), a deduced
# return type spelled as another `auto` function's (`integer_least_multiple`, through CK's
# `operator*`), and a generic lambda with a parameter pack, which clang prints as `auto... y`
# written `auto y...` (`concat_tuple_of_reference`)
SHAPES = b"""#include <hip/hip_runtime.h>
namespace lib {
enum class Space { Global, Lds };
template <Space S, class T> struct Buf { T* p; __device__ T get(int i) const { return p[i]; } };
template <Space S, class T> __device__ Buf<S, T> make_buf(T* p) {
  if constexpr (S == Space::Lds) { return Buf<S, T>{p + 1}; } else { return Buf<S, T>{p}; }
}
template <int N> struct Num { static constexpr int value = N; };
template <int A, int B> __device__ constexpr auto times(Num<A>, Num<B>) { return Num<A * B>{}; }
template <class X> __device__ constexpr auto twice(X x) { return times(x, Num<2>{}); }
template <class T> __device__ T total(T x) { return [](auto... y) { return (y + ...); }(x, x * 2); }
template <int N> struct Pipe {
  template <bool Tail> __device__ static float run(const Buf<Space::Global, const float>& g, float* lds) {
    float acc = 0;
    for (int i = 0; i < N; ++i) {
      lds[threadIdx.x] = g.get(threadIdx.x * N + i);
      __syncthreads();
      acc += lds[(threadIdx.x + 1) % 64];
      __syncthreads();
    }
    if constexpr (Tail) { acc *= 2; }
    return acc;
  }
};
template <class T, int N> __global__ void __launch_bounds__(64) kern(T* out, const T* in) {
  __shared__ T stage[65];
  auto g = make_buf<Space::Global>(in);
  auto l = make_buf<Space::Lds>(stage);
  Pipe<N> pipe;
  out[threadIdx.x] = pipe.template run<false>(g, stage) + l.get(threadIdx.x) + twice(Num<N>{}).value + total(in[1]);
}
}
template <class T> struct Launcher {
  static void run(T* out, const T* in) { lib::kern<T, 4><<<1, 64>>>(out, in); }
};
template struct Launcher<float>;
"""
SHAPES_KERN = "_ZN3lib4kernIfLi4EEEvPT_PKS1_"


def test_a_template_with_two_argument_lists_and_a_static_member_called_through_an_object(tmp_path):
    """A template reached with two argument lists is printed twice, under a name each, every call
    rewritten to its own; a static member template called through an object is printed and its
    call (object and all: its evaluation does nothing) rewritten to the name. One item takes
    both of a template's printed forms and its body. A return type deduced from another deduced
    one is printed as the type; a body with a generic lambda's pack is not printed."""
    c = compiler(tmp_path, ["-std=gnu++20"])
    values = service(c, (SHAPES_KERN,))
    kernel = plain_step(values, SHAPES)
    fp = values.footprint(kernel, kernel)
    assert fp is not None
    assert sorted(x.name for x in fp.callees) == ["::lib::__plain_make_buf_1", "::lib::__plain_make_buf_2",
                                                  "::lib::__plain_run", "::lib::__plain_twice"]
    first, second = (x for x in fp.callees if "make_buf" in x.name)
    assert first.body == second.body and "p + 1" in second.text and "p + 1" not in first.text
    src = Source(kernel, "cuda", values.bind(lambda probe, part=kernel: part + probe))
    assert len(REGISTRY["plain"].enumerate(src)) == 3
    (twice,) = (x for x in fp.callees if "twice" in x.name)
    assert "auto" not in twice.text.split("__plain_twice")[0]
    callees = plain_step(values, kernel)
    assert b"pipe." not in callees and b"__plain_run(g, stage)" in callees
    assert b"__plain_make_buf_1(in)" in callees and b"__plain_make_buf_2(stage)" in callees
    before, after = kernels(c, SHAPES), kernels(c, callees)
    for side in SIDES:
        (name,) = after[side]
        # the same code as the template's instantiation: every figure
        assert base_name(name) == "kern" and after[side][name] == before[side][SHAPES_KERN]
    # the next level (`times`, which `twice` calls, and `Buf::get`, which `run` called) is for the
    # next footprint; `unreached` deletes the templates printed
    again = values.footprint(callees, callees)
    assert again is not None and [x.name for x in again.callees] == ["::lib::__plain_get_1", "::lib::__plain_get_2",
                                                                     "::lib::__plain_times"]
    src = Source(callees, "cuda", values.bind(lambda probe, part=callees: part + probe))
    alone = apply(callees, [e for i in REGISTRY["unreached"].enumerate(src) for e in i])
    assert b"template <bool Tail>" not in alone and b"make_buf(T* p)" not in alone
    assert kernels(c, alone) == after


# composable_kernel's transfers: a member template of a class template's specialization called
# through an object (`c.template run<1>(...)`) and a pointer (`p->template twice<2>(...)`), which
# calls its class's members through `this`, written (in a generic lambda, whose call is resolved
# only when it is instantiated) and implicit; a class whose member template reads a private
# member and calls a protected one (a free function could not: its item makes them public); one
# whose member reads a member its base, spelled in a system header, keeps protected, and one
# whose trivial class would become POD once public (both stay templates)
OBJECTS = b"""#include <hip/hip_runtime.h>
#include <sealed.h>
namespace lib {
template <int N> struct Num { static constexpr int value = N; };
template <int... Is> struct Seq {};
template <int... Is> __device__ int count(Seq<Is...>) { return sizeof...(Is); }
template <class T, int N> struct Copy {
  __device__ static constexpr int lanes() { return N; }
  static constexpr int total = lanes() * 2;  // named where no body is: `lanes` keeps its body
  using Lanes = Num<N>;
  using Index = Num<2>;  // depends on nothing: the instantiation keeps the template's type
  T scale;
  int moved;
  template <int Step> __device__ T run(const T* in, int i) const {
    T acc = 0;
    for (int k = 0; k < N; ++k) acc += in[i * N + k] * scale;
    return acc + Step + moved + (Step > 1 ? Lanes{}.value : Index{}.value);
  }
  __device__ void move(int by) { moved += by; }
  template <int Step> __device__ T twice(const T* in) {
    move(Step);
    auto f = [&](auto k) { return this->template run<Step>(in, k.value) * scale; };
    return run<Step>(in, threadIdx.x) + f(Num<1>{});
  }
};
template <class T> class Hidden {
  T secret = 1;  // private, as a `class`'s members are until an access specifier
  static constexpr int base = 2;
public:
  // a default argument the call leaves out; a generic lambda's dependent type whose argument
  // names a static member
  template <int S> __device__ T get(const T* in, Num<S> at = Num<S>{}) const {
    auto f = [&](auto k) { return Num<base + k.value>{}.value; };
    return in[threadIdx.x + at.value] + secret + shift() + f(Num<1>{});
  }
protected:
  __device__ T shift() const { return secret * 2; }
};
template <class T> class Packed {  // trivial, and not POD only because its fields are private
  T lo;
  char tag;
public:
  template <int S> __device__ T low() const { return lo + S + tag; }
};
template <class T> struct Opened : sys::Sealed<T> {  // its base's access is a system header's
  template <int S> __device__ T peek() const { return this->kept + S; }
};
template <class T, int N> __global__ void __launch_bounds__(64) kern(T* out, const T* in) {
  Copy<T, N> c{T(2), 0};
  Copy<T, N>* p = &c;
  Hidden<T> h;
  Opened<T> o;
  Packed<T> k{};
  T a = c.template run<1>(in, threadIdx.x);
  out[threadIdx.x] = a + p->template twice<2>(in) + c.moved + h.template get<0>(in) + count(Seq<1, 2, 3>{}) +
                     Copy<T, N>::total + Copy<T, N>::lanes() + o.template peek<3>() +
                     k.template low<1>();
}
}
template <class T> struct Launcher {
  static void run(T* out, const T* in) { lib::kern<T, 4><<<1, 64>>>(out, in); }
};
template struct Launcher<float>;
"""
OBJECTS_KERN = "_ZN3lib4kernIfLi4EEEvPT_PKS1_"
# a header found through -isystem: not the file under reduction, whose access a candidate cannot change
SEALED = b"""namespace sys {
template <class T> class Sealed {
protected:
  T kept = 3;
};
}
"""


def test_a_member_template_of_a_class_template_becomes_a_free_function_of_its_object(tmp_path):
    """A non-static member printed as a free function of its object, `this` spelled through it
    (`self.move(2)`, `self.template run<2>(...)` in a generic lambda's functor too, whose member
    `self` refers to the object), every call rewritten
    to pass the object (`__plain_twice(*p, in)`); a member reading a private member becomes one
    too, its item making its class's members public; one reading a member its system header's
    class keeps protected stays a template. One level a footprint, every figure the template's,
    and `unreached` then deletes the member templates."""
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "sealed.h").write_bytes(SEALED)
    c = compiler(tmp_path, ["-std=gnu++20", f"-isystem{tmp_path / 'inc'}"])
    values = service(c, (OBJECTS_KERN,))
    kernel = plain_step(values, OBJECTS)
    fp = values.footprint(kernel, kernel)
    assert fp is not None
    count, twice, get = fp.callees
    # `peek` reads `kept`, protected in a class the file does not spell: the footprint says why
    # it stays a template, and why `lanes` does, which a static member's initialiser names
    assert ("lib::Opened::peek", "its body names `Sealed::kept`, which is not public, in a class whose access is "
            "not spelled in the file") in fp.kept
    assert ("lib::Copy::lanes", "named where no reached body is (an initialiser, a type, code the kernels do not "
            "reach)") in fp.kept
    # `low` reads `Packed`'s private fields, which make that trivial class no POD: public, a
    # class deriving from it would lay its members out in other bytes (Itanium reuses a non-POD's
    # tail padding only)
    assert ("lib::Packed::low", "its body names `Packed::lo`, which is not public, in a trivial class with tail "
            "padding that made public would be POD (a derived class's layout could change)") in fp.kept
    # a pack's size, whose name means nothing in a plain function, as its value
    assert count.name == "::lib::__plain_count" and "((__SIZE_TYPE__)3)" in count.text
    assert twice.name == "::lib::__plain_twice" and "this" not in twice.text
    assert re.search(r"\(__plain_t\d+ &self, const float \*in\)", twice.text) and "self.move(2);" in twice.text
    assert "auto f = __plain_closure_0{self, in};" in twice.text and re.search(r"__plain_t\d+ &self;", twice.text)
    assert "self.template run<2>(in, k.value) * self.scale" in twice.text
    # `get` reads `secret` (private by default) and calls `shift` (protected): its item opens
    # `Hidden`, the `{` of the `class` and its `protected:`, and `twice`'s opens nothing
    assert "self.secret + self.shift()" in get.text and twice.opens == () and count.opens == ()
    # the default argument the call leaves out, and the lambda's type that names `base`, in its
    # functor's call operator for `Num<1>`: `Num<3>`, through its alias
    assert re.search(r"const float \*in, (__plain_t\d+) at = \1\{\}\)", get.text)
    (num3,) = (a.name for a in get.aliases if a.text.endswith("= lib::Num<3>;"))
    assert f"return {num3}{{}}.value;" in get.text and "base" not in get.text
    assert sorted(kernel[b:e] for b, e, _ in get.opens) == [b"protected:", b"{"]
    first = plain_step(values, kernel)
    assert b"__plain_twice(*p, in)" in first and b"__plain_get(h, in)" in first and b"o.template peek<3>()" in first
    assert b"k.template low<1>()" in first
    assert b"class Hidden {public:" in first and b"protected:" not in first.split(b"class Hidden")[1].split(b"};")[0]
    fp = values.footprint(first, first)
    assert fp is not None
    # `run` with its two argument lists, called through `self` (from `twice` and its lambda's
    # instantiation) and through `c`; `move` (a member of the specialization), through `self`;
    # `shift`, protected before `get`'s item, through `get`'s `self`
    assert [x.name for x in fp.callees] == ["::lib::__plain_run_1", "::lib::__plain_run_2", "::lib::__plain_move",
                                            "::lib::__plain_shift"]
    run = fp.callees[0]
    assert re.search(r"\(const __plain_t\d+ &self, const float \*in, int i\)", run.text) and "self.moved" in run.text
    # each item alone is worth a test: `move`'s too, though no template loses its body in it
    src = Source(first, "cuda", values.bind(lambda probe, part=first: part + probe))
    items = REGISTRY["plain"].enumerate(src)
    assert len(items) == 3 and all(REGISTRY["plain"].progresses(src, apply(first, item)) for item in items)
    second = plain_step(values, first)
    assert b"__plain_run_2(c, in, threadIdx.x)" in second and b"__plain_run_1(self, in, k.value)" in second
    assert b"__plain_move(self, 2)" in second and b"__plain_shift(self)" in second
    again = values.footprint(second, second)
    assert again is not None and again.callees == ()
    src = Source(second, "cuda", values.bind(lambda probe, part=second: part + probe))
    alone = apply(second, [e for i in REGISTRY["unreached"].enumerate(src) for e in i])
    assert b"template <int Step>" not in alone and b"T get(" not in alone and b"T peek() const {" in alone
    before = kernels(c, OBJECTS)
    for text in (kernel, first, second, alone):
        after = kernels(c, text)
        for side in SIDES:
            (name,) = after[side]
            # the same code as the template's instantiation: every figure
            assert base_name(name) == "kern" and after[side][name] == before[side][OBJECTS_KERN]


def test_two_members_opening_one_class_make_the_same_edits_which_compose(tmp_path):
    """Two member templates of one class, each reading a private member: each item opens the
    class with the same edits, and the two items together (a chunk) compile, edits.apply keeping
    each edit once."""
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "sealed.h").write_bytes(SEALED)
    c = compiler(tmp_path, ["-std=gnu++20", f"-isystem{tmp_path / 'inc'}"])
    values = service(c, (OBJECTS_KERN,))
    text = OBJECTS.replace(b"protected:", b"template <int S> __device__ T twin(const T* in) const "
                           b"{ return in[S] * secret; }\nprotected:").replace(
                           b"h.template get<0>(in)", b"h.template get<0>(in) + h.template twin<1>(in)")
    kernel = plain_step(values, text)
    src = Source(kernel, "cuda", values.bind(lambda probe, part=kernel: part + probe))
    items = [i for i in REGISTRY["plain"].enumerate(src) if any(e.replacement == b"public:" for e in i)]
    assert len(items) == 2 and {e for e in items[0] if b"public:" in e.replacement} == \
        {e for e in items[1] if b"public:" in e.replacement}
    both = apply(kernel, [*items[0], *items[1]])
    assert both.count(b"public:") == kernel.count(b"public:") + 2
    before, after = kernels(c, text), kernels(c, both)
    for side in SIDES:
        (name,) = after[side]
        assert after[side][name] == before[side][OBJECTS_KERN]


# three levels of the call graph: a kernel template, the function templates it calls (`side`
# printed much longer than `outer`), and the one `outer` calls
CHAIN = b"""#include <hip/hip_runtime.h>
namespace lib {
template <int N> __device__ float inner(float x) { return x * N + 1.0f; }
template <int N> __device__ float outer(float x) { return inner<N + 1>(x) * 2.0f; }
template <int N> __device__ float side(const float* in) {
  float acc = 0.0f;
  for (int i = 0; i < N; ++i) { acc += in[threadIdx.x * N + i] * (i + 1.0f); acc *= 0.5f; acc -= in[i]; }
  for (int i = 0; i < N; ++i) { acc += in[threadIdx.x + i] * (i + 2.0f); acc *= 0.25f; acc += in[N - i]; }
  for (int i = 0; i < N; ++i) { acc -= in[threadIdx.x + 2 * i] * 0.125f; }
  return acc;
}
template <class T, int N> __global__ void __launch_bounds__(64) kern(T* out, const T* in) {
  out[threadIdx.x] = outer<N>(in[threadIdx.x]) + side<N>(in);
}
}
template <class T> struct Launcher {
  static void run(T* out, const T* in) { lib::kern<T, 4><<<1, 64>>>(out, in); }
};
template struct Launcher<float>;
"""
CHAIN_KERN = "_ZN3lib4kernIfLi4EEEvPT_PKS1_"


def test_the_chain_of_levels_is_one_item_within_the_growth_bound(tmp_path):
    """Level 0 is the chain: a footprint's items applied, the footprint of the result, and so
    on, as one item; level 1 is one footprint's items, for when the oracle refuses the chain.
    A level keeps the items that leave the file within the pass's bound, in order."""
    c = compiler(tmp_path, ["-std=gnu++20"])
    values = service(c, (CHAIN_KERN,))

    def source(text: bytes) -> Source:
        return Source(text, "cuda", values.bind(lambda probe, part=text: part + probe))

    src, step = source(CHAIN), REGISTRY["plain"]
    (kernel_item,) = step.items(src, 1)
    assert step.items(src, 1) == step.enumerate(src) and step.items(src, 2) is None
    (item,) = step.items(src, 0)
    chained = apply(CHAIN, item)
    # the three levels, one after the other, as the engine would take them a test each
    kernel = apply(CHAIN, kernel_item)
    two = plain_step(values, kernel)
    assert chained == plain_step(values, two)
    assert step.progresses(src, chained) and Source(chained, "cuda").error_count <= src.error_count
    # no template keeps a body; each is a plain function, called under its fresh name
    assert step.progress(src) - step.progress(Source(chained, "cuda")) == 4
    assert b"{ return x * N" not in chained and b"{ return inner<N + 1>" not in chained and b"float acc" in chained
    assert b"__plain_outer(in[threadIdx.x])" in chained and b"__plain_inner(x)" in chained
    same_kernels(c, CHAIN, CHAIN_KERN, (chained,))
    # nothing left to chain from the last text: no item at level 0, and none at level 1
    done = source(chained)
    assert step.items(done, 0) == [] and step.items(done, 1) == []

    def bounded(extra: int) -> Plain:
        """The pass with a bound of `extra` bytes a step."""
        return type("Bounded", (Plain,), {"growth": 1e-9, "growth_bytes": extra})()

    # the second level is the largest (`outer` and `side`): a bound it passes takes the chain whole
    largest = max(len(kernel) - len(CHAIN), len(two) - len(kernel), len(chained) - len(two))
    assert largest == len(two) - len(kernel)
    (item,) = bounded(largest).items(src, 0)
    assert apply(CHAIN, item) == chained and bounded(largest).progresses(src, chained)
    # one step's bound over CHAIN would refuse it: the chain is as many steps as templates made plain
    assert not bounded(largest).within_growth(CHAIN, chained)
    # a bound the kernel's level and `outer` fit in and `side` does not: the second level keeps
    # `outer`, the third `inner`, and `side` never fits
    (outer,) = (i for i in step.enumerate(source(kernel)) if any(b"__plain_outer" in e.replacement for e in i))
    with_outer = apply(kernel, outer)
    assert len(with_outer) - len(kernel) <= len(kernel) - len(CHAIN) < len(two) - len(kernel)
    (item,) = bounded(len(kernel) - len(CHAIN)).items(src, 0)
    partial = apply(CHAIN, item)
    (inner,) = (i for i in step.enumerate(source(with_outer)) if any(b"__plain_inner" in e.replacement for e in i))
    assert partial == apply(with_outer, inner) and b"__plain_side" not in partial
    assert b"float side(const float* in) {" in partial and b"__plain_inner(x)" in partial
    assert bounded(len(kernel) - len(CHAIN)).progresses(src, partial)
    # a bound the kernel's level does not fit in: no chain
    assert bounded(len(kernel) - len(CHAIN) - 1).items(src, 0) == []


# composable_kernel's transfers: a class template instantiated with a `const` type argument (from
# a `decltype` of a constexpr object), whose member template builds an object of it, `L{}` and
# `L()`, and names its member, `L::size`, in a `static_assert` too: `const Len<4>{}` is no
# expression, nor `const Len<4>::size`
CONSTARG = b"""#include <hip/hip_runtime.h>
namespace lib {
template <int N> struct Len {
  static constexpr int size = N;
  __device__ constexpr int value() const { return N; }
};
template <class L> struct Copy {
  template <int S> __device__ float run(const float* in) const {
    static_assert(L::size % 2 == 0, "an even length");
    return in[threadIdx.x + L{}.value() * S + L().value() + L::size];
  }
};
template <class T> __global__ void __launch_bounds__(64) kern(T* out, const T* in) {
  constexpr Len<4> len{};
  Copy<decltype(len)> c;
  out[threadIdx.x] = c.template run<2>(in);
}
}
template <class T> struct Launcher {
  static void run(T* out, const T* in) { lib::kern<T><<<1, 64>>>(out, in); }
};
template struct Launcher<float>;
"""
CONSTARG_KERN = "_ZN3lib4kernIfEEvPT_PKS1_"


def test_an_object_of_a_const_type_argument_is_built_through_an_alias_of_the_whole_type(tmp_path):
    """`L{}` with `L` a `const Len<4>`: printed through an alias of the qualified type (`using
    __plain_t2 = const __plain_t1;`, the same type); `L::size` through the unqualified type's alias,
    in the `static_assert` too; it compiles and gives the template's code."""
    c = compiler(tmp_path, ["-std=gnu++20"])
    values = service(c, (CONSTARG_KERN,))
    kernel = plain_step(values, CONSTARG)
    fp = values.footprint(kernel, kernel)
    assert fp is not None
    (run,) = fp.callees
    whole = re.search(r"using (__plain_t\d+) = const (__plain_t\d+);", printed(run))
    assert whole and f"{whole[1]}{{}}.value()" in printed(run) and f"{whole[1]}().value()" in printed(run)
    # the kernel's alias of `Len<4>`, before it in the same namespace
    assert f"using {whole[2]} = lib::Len<4>;" in kernel[:run.at].decode() and "const __plain_t" not in printed(run).split("{", 1)[1]
    assert f"static_assert({whole[2]}::size % 2 == 0, " in printed(run) and f" + {whole[2]}::size]" in printed(run)
    callee = plain_step(values, kernel)
    assert b"__plain_run(c, in)" in callee
    # the same code as the template's instantiation: every figure
    same_kernels(c, CONSTARG, CONSTARG_KERN, (callee,))


# composable_kernel's mfma `run`: a member template taking references to vectors (`const
# half4_t &a`), which clang prints `_Float16 const &a __attribute__((ext_vector_type(4)))`, a
# reference to a scalar
VECTORS = b"""#include <hip/hip_runtime.h>
typedef float vf4 __attribute__((ext_vector_type(4)));
namespace lib {
template <int N> struct Mfma {
  template <class V> __device__ vf4 run(const V& a, V* b, const V c) const { return a * b[0] + c * N; }
};
template <class T> __global__ void __launch_bounds__(64) kern(T* out, const T* in) {
  Mfma<2> m;
  vf4 x = {in[0], in[1], in[2], in[3]}, y = x * 2.0f;
  vf4 r = m.template run<vf4>(x, &y, x);
  out[threadIdx.x] = r.x + r.y * r.z - r.w;
}
}
template <class T> struct Launcher {
  static void run(T* out, const T* in) { lib::kern<T><<<1, 64>>>(out, in); }
};
template struct Launcher<float>;
"""
VECTORS_KERN = "_ZN3lib4kernIfEEvPT_PKS1_"


def test_a_vector_parameter_is_spelled_through_a_typedef_of_its_vector(tmp_path):
    """A reference, a pointer and a value of an `ext_vector_type` as parameters and return type:
    the vector through a typedef (`typedef float __plain_t2 __attribute__((ext_vector_type(4)));`,
    which tree-sitter parses where it does not parse the attribute in `using`), so that `const
    __plain_t2 &a` is a reference to the vector; it compiles and gives the template's code."""
    c = compiler(tmp_path, ["-std=gnu++20"])
    values = service(c, (VECTORS_KERN,))
    kernel = plain_step(values, VECTORS)
    fp = values.footprint(kernel, kernel)
    assert fp is not None
    (run,) = fp.callees
    # declared by the kernel's level (its `m.template run<V>`) or by the callee's
    vectors = re.findall(r"typedef float (__plain_t\d+) __attribute__\(\(ext_vector_type\(4\)\)\);",
                         kernel.decode() + printed(run))
    returned = re.search(r"(__plain_t\d+) __plain_run\(", printed(run))
    parameter = re.search(r"const (__plain_t\d+) &a, \1 \*b, const \1 c\)", printed(run))
    assert returned and parameter and {returned[1], parameter[1]} <= set(vectors)
    callee = plain_step(values, kernel)
    before, after = kernels(c, VECTORS), kernels(c, callee)
    for side in SIDES:
        (name,) = after[side]
        # the same code as the template's instantiation: every figure
        assert base_name(name) == "kern" and after[side][name] == before[side][VECTORS_KERN]


# composable_kernel's copies' `RunRead`: a generic lambda declaring a constexpr local and a local
# alias whose type names it (`using src_elem_op_vec_t = typename vector_type<SrcData,
# elem_op_vec_len>::type;`); hoisted to an alias at namespace scope, it names nothing. A type that
# depends on nothing and names a local and a member of the class (`Vec<width + k>`) is an alias of
# its value, as before (as written, `width` means nothing in a free function)
LOCALS = b"""#include <hip/hip_runtime.h>
namespace lib {
template <int N> struct Num { static constexpr int value = N; };
template <int N> struct Vec { using type = float; static constexpr int n = N; };
template <class F> __device__ void each(F f) { f(Num<1>{}); f(Num<2>{}); }
template <class T> struct Copy {
  T scale;
  static constexpr int width = 4;
  template <int S> __device__ T run(const T* in) const {
    constexpr int k = S + 1;
    Vec<width + k> v;
    T acc = v.n;
    each([&](auto i) {
      constexpr int len = i.value + S;
      using V = typename Vec<len>::type;
      using W = decltype(i);
      acc += V(in[len]) * Vec<len>::n * scale + W::value;
    });
    return acc;
  }
};
template <class T> __global__ void __launch_bounds__(64) kern(T* out, const T* in) {
  Copy<T> c{T(3)};
  out[threadIdx.x] = c.template run<2>(in);
}
}
template <class T> struct Launcher {
  static void run(T* out, const T* in) { lib::kern<T><<<1, 64>>>(out, in); }
};
template struct Launcher<float>;
"""
LOCALS_KERN = "_ZN3lib4kernIfEEvPT_PKS1_"


def test_a_local_alias_naming_a_local_stays_where_it_is(tmp_path):
    """A generic lambda's local aliases whose types name its locals (`Vec<len>`, `decltype(i)`)
    are printed where they stand, in its functor's call operators (`Vec<len>` as each one's
    `Vec<3>` and `Vec<4>`), not as aliases at namespace scope; `Vec<width + k>` through the alias
    of `Vec<7>`; the candidate compiles and gives the template's code."""
    c = compiler(tmp_path, ["-std=gnu++20"])
    values = service(c, (LOCALS_KERN,))
    kernel = plain_step(values, LOCALS)
    fp = values.footprint(kernel, kernel)
    assert fp is not None
    (run,) = fp.callees
    head = printed(run).split("struct __plain_closure_0 {")[0]
    assert "len" not in head and "decltype" not in head
    vec3, vec4 = (next(a.name for a in run.aliases if a.text.endswith(f"= lib::Vec<{n}>;")) for n in (3, 4))
    assert f"using V = typename {vec3}::type;" in run.text and f"using V = typename {vec4}::type;" in run.text
    assert run.text.count("using W = decltype(i);") == 2
    assert re.search(r"using (__plain_t\d+) = lib::Vec<7>;", printed(run)) and "width" not in printed(run)
    callee = plain_step(values, kernel)
    before, after = kernels(c, LOCALS), kernels(c, callee)
    for side in SIDES:
        (name,) = after[side]
        # the same code as the template's instantiation: every figure
        assert base_name(name) == "kern" and after[side][name] == before[side][LOCALS_KERN]


# two function templates naming one type, printed by two footprints: `second` becomes printable
# once the file loses `dead` (a reduction), and goes after `first`'s printed definition (its
# caller stands in a later block of the namespace than `use_first`). Two aliases of `Vec<float,
# 8>` the second definition must not use: one in another namespace before it (not first in its
# block, which it could otherwise move to file scope), one after it
REUSE = b"""#include <hip/hip_runtime.h>
namespace lib {
using Real = float;
template <class T, int N> struct Vec { T v[N]; };
template <int N> __device__ float first(const Vec<float, N>& a) { return a.v[0] * a.v[N - 1]; }
template <int N> __device__ float second(const Vec<float, N>& a, Vec<Real, 2 * N> b, Vec<float, 2 * N> c) {
  return a.v[1] + b.v[2 * N - 1] * c.v[0];
}
}
namespace lib {
__device__ float use_first(const float* in) { Vec<float, 4> a{{in[0], in[1], in[2], in[3]}}; return first<4>(a); }
}
namespace other { struct Marker {}; using __plain_t7 = lib::Vec<float, 8>; }
namespace lib {
__device__ float use_second(const float* in) {
  Vec<float, 4> a{{in[4], in[5], in[6], in[7]}};
  Vec<Real, 8> b{{in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7]}};
  return second<4>(a, b, Vec<float, 8>{{in[8], in[9]}});
}
__device__ float dead(const float* in) { return second<4>(Vec<float, 4>{}, Vec<Real, 8>{}, Vec<float, 8>{}); }
}
__global__ void __launch_bounds__(64) kern(float* out, const float* in) {
  out[threadIdx.x] = lib::use_first(in + threadIdx.x) - lib::use_second(in + threadIdx.x);
}
namespace lib { using __plain_t8 = Vec<float, 8>; }
"""
REUSE_DEAD = b"__device__ float dead(const float* in) { return second<4>(Vec<float, 4>{}, Vec<Real, 8>{}, Vec<float, 8>{}); }\n"
REUSE_KERN = "_Z4kernPfPKf"


def test_a_later_footprint_reuses_the_aliases_an_earlier_one_printed(tmp_path):
    """The first footprint prints `first` with an alias of `Vec<float, 4>`; once `dead` is gone,
    the second prints `second` after it, which names that type through the same alias and
    declares one alias for `Vec<Real, 8>` and `Vec<float, 8>` (one type), not the one of another
    namespace nor the one after it; the candidate compiles and keeps the kernel's code."""
    c = compiler(tmp_path, ["-std=gnu++20"])
    values = service(c, (REUSE_KERN,))
    fp = values.footprint(REUSE, REUSE)
    assert fp is not None and [x.name for x in fp.callees] == ["::lib::__plain_first"]
    (vec4,) = re.findall(r"using (__plain_t\d+) = lib::Vec<float, 4>;", printed(fp.callees[0]))
    once = plain_step(values, REUSE)
    reduced = once.replace(REUSE_DEAD, b"")
    assert len(reduced) == len(once) - len(REUSE_DEAD)
    fp = values.footprint(reduced, reduced)
    assert fp is not None
    (second,) = fp.callees
    assert second.name == "::lib::__plain_second" and second.at > reduced.index(b"__plain_first(")
    declared = re.findall(r"using (__plain_t\d+) = ([^;]*);", printed(second))
    (vec8,) = (name for name, _ in declared)
    assert [d for _, d in declared] == ["lib::Vec<float, 8>"] and vec8 not in (vec4, "__plain_t7", "__plain_t8")
    assert f"const {vec4} &a, {vec8} b, {vec8} c)" in printed(second)
    callee = plain_step(values, reduced)
    before, after = kernels(c, REUSE), kernels(c, callee)
    for side in SIDES:
        assert after[side][REUSE_KERN] == before[side][REUSE_KERN]


# a template with two argument lists whose printed functions go in two places, the second after
# the first: both name `Vec<float, 4>`
TWO_PLACES = b"""#include <hip/hip_runtime.h>
namespace lib {
template <class T, int N> struct Vec { T v[N]; };
template <int N> __device__ float scaled(const Vec<float, N>& a, const Vec<float, 4>& w) { return a.v[N - 1] * w.v[N]; }
}
namespace lib {
__device__ float use4(const float* in) { Vec<float, 4> a{{in[0], in[1], in[2], in[3]}}; return scaled<4>(a, a); }
}
namespace lib {
__device__ float use2(const float* in) {
  Vec<float, 4> w{{in[4], in[5], in[6], in[7]}};
  return scaled<2>(Vec<float, 2>{{in[0], in[1]}}, w);
}
}
__global__ void __launch_bounds__(64) kern(float* out, const float* in) {
  out[threadIdx.x] = lib::use4(in + threadIdx.x) - lib::use2(in + threadIdx.x);
}
"""


def test_the_second_printed_specialization_reuses_the_first_ones_aliases(tmp_path):
    """One item prints `scaled<4>` before `use4` and `scaled<2>` before `use2`, further on: the
    second names `Vec<float, 4>` through the first's alias and declares only `Vec<float, 2>`'s;
    the candidate compiles and keeps the kernel's code."""
    c = compiler(tmp_path, ["-std=gnu++20"])
    values = service(c, (REUSE_KERN,))
    fp = values.footprint(TWO_PLACES, TWO_PLACES)
    assert fp is not None
    one, two = sorted(fp.callees, key=lambda x: x.at)
    assert (one.name, two.name) == ("::lib::__plain_scaled_1", "::lib::__plain_scaled_2") and one.at < two.at
    (vec4,) = re.findall(r"using (__plain_t\d+) = lib::Vec<float, 4>;", printed(one))
    (vec2,) = re.findall(r"using (__plain_t\d+) = lib::Vec<float, 2>;", printed(two))
    # the second's alias of `Vec<float, 4>` is the first's, where the first goes: one declaration
    assert [(a.name, a.at) for a in two.aliases] == [(vec4, one.at), (vec2, two.at)]
    assert f"(const {vec2} &a, const {vec4} &w)" in two.text
    (item,) = REGISTRY["plain"].enumerate(Source(TWO_PLACES, "cuda", values.bind(lambda probe, part=TWO_PLACES: part + probe)))
    assert apply(TWO_PLACES, item).count(b"= lib::Vec<float, 4>;") == 1
    callee = plain_step(values, TWO_PLACES)
    before, after = kernels(c, TWO_PLACES), kernels(c, callee)
    for side in SIDES:
        assert after[side][REUSE_KERN] == before[side][REUSE_KERN]


# three templates naming one type, each its own item: `f` and `g` go before `use1` (one offset),
# `h` before `use2`; `g` and `h` name `Pair<Vec<float, 4>>`, an alias naming the other
SIBLINGS = b"""#include <hip/hip_runtime.h>
namespace lib {
template <class T, int N> struct Vec { T v[N]; };
template <class A> struct Pair { A a, b; };
template <int N> __device__ float f(const Vec<float, N>& a) { return a.v[0] * a.v[N - 1]; }
template <int N> __device__ float g(const Pair<Vec<float, N>>& p) { return p.a.v[1] - p.b.v[N - 2]; }
template <int N> __device__ float h(Vec<float, N> a, const Pair<Vec<float, N>>& p) { return a.v[2] + p.b.v[0]; }
__device__ float use1(const float* in) {
  Vec<float, 4> a{{in[0], in[1], in[2], in[3]}};
  return f<4>(a) + g<4>(Pair<Vec<float, 4>>{a, a});
}
}
namespace lib {
__device__ float use2(const float* in) {
  Vec<float, 4> a{{in[3], in[2], in[1], in[0]}};
  return h<4>(a, Pair<Vec<float, 4>>{a, a});
}
}
__global__ void __launch_bounds__(64) kern(float* out, const float* in) {
  out[threadIdx.x] = lib::use1(in + threadIdx.x) - lib::use2(in + threadIdx.x);
}
"""


def test_the_items_of_one_level_share_one_declaration_of_an_alias(tmp_path):
    """Three items of one footprint name `Vec<float, 4>`, two of them `Pair<Vec<float, 4>>` too:
    each alias is declared once, where the first definition naming it goes, and each item carries
    the same edit for it; the items compile alone and together in either order (the insertions
    at one offset keep their order: an alias after the one it names, before the definitions),
    declaring each alias once, with the kernel's code."""
    c = compiler(tmp_path, ["-std=gnu++20"])
    values = service(c, (REUSE_KERN,))
    fp = values.footprint(SIBLINGS, SIBLINGS)
    assert fp is not None
    f, g, h = sorted(fp.callees, key=lambda x: x.name)
    assert [x.name for x in (f, g, h)] == ["::lib::__plain_f", "::lib::__plain_g", "::lib::__plain_h"]
    assert f.at == g.at < h.at
    (vec,) = f.aliases
    assert re.fullmatch(r"using __plain_t\d+ = lib::Vec<float, 4>;", vec.text) and vec.at == f.at
    pair = g.aliases[1]
    assert g.aliases == h.aliases == (vec, pair) and pair.text == f"using {pair.name} = lib::Pair<{vec.name}>;"
    assert f"(const {vec.name} &a)" in f.text and f"({vec.name} a, const {pair.name} &p)" in h.text
    src = Source(SIBLINGS, "cuda", values.bind(lambda probe, part=SIBLINGS: part + probe))
    items = REGISTRY["plain"].enumerate(src)
    assert len(items) == 3
    before = kernels(c, SIBLINGS)
    for chunk in ([items[0]], [items[1]], [items[2]], items, items[::-1]):
        candidate = apply(SIBLINGS, [e for i in chunk for e in i])
        assert candidate.count(b"= lib::Vec<float, 4>;") == 1 and candidate.count(b"= lib::Pair<") == (chunk != [items[0]])
        after = kernels(c, candidate)
        for side in SIDES:
            assert after[side][REUSE_KERN] == before[side][REUSE_KERN]


# a kernel template in an unnamed namespace nested in the library's, naming a type of the
# library and one of its own namespace; its callee is in the library's namespace
NESTED = b"""#include <hip/hip_runtime.h>
namespace lib {
template <class T, int N> struct Vec { T v[N]; };
template <int N> __device__ float use(const Vec<float, N>& a) { return a.v[0] * a.v[N - 1]; }
namespace dev { namespace {
struct Tag { int k; };
template <class T> struct Box { T t; };
template <class T, int N> __global__ void __launch_bounds__(64) kern(T* out, const T* in) {
  Vec<T, N> a{};
  Box<Tag> b{};
  a.v[0] = in[0] + b.t.k;
  out[threadIdx.x] = use<N>(a);
}
}}
}
template <class T> struct Launcher {
  static void run(T* out, const T* in) { lib::dev::kern<T, 4><<<1, 64>>>(out, in); }
};
template struct Launcher<float>;
"""
NESTED_KERN = "_ZN3lib3dev12_GLOBAL__N_14kernIfLi4EEEvPT_PKS3_"


def test_a_plain_kernels_aliases_are_seen_by_its_callees_in_an_enclosing_namespace(tmp_path):
    """The plain kernel goes at the end of the file in `lib::dev` and an unnamed namespace; its
    aliases stand before, at file scope (a type of the unnamed namespace spelled `lib::dev::Tag`),
    so the next footprint's callee, in `lib`, names `Vec<float, 4>` through the kernel's alias and
    declares none; each step compiles with the template's code."""
    c = compiler(tmp_path, ["-std=gnu++20"])
    values = service(c, (NESTED_KERN,))
    fp = values.footprint(NESTED, NESTED)
    assert fp is not None
    (kern,) = fp.plain
    assert kern.namespaces == ("lib", "dev", "")
    vec, box = kern.aliases
    assert vec.text == f"using {vec.name} = lib::Vec<float, 4>;" and box.text == f"using {box.name} = lib::dev::Box<lib::dev::Tag>;"
    assert vec.at == box.at == len(NESTED) and vec.namespaces == box.namespaces == ()
    kernel = plain_step(values, NESTED)
    fp = values.footprint(kernel, kernel)
    assert fp is not None
    (use,) = fp.callees
    assert use.name == "::lib::__plain_use" and use.aliases == () and f"(const {vec.name} &a)" in use.text
    callee = plain_step(values, kernel)
    same_kernels(c, NESTED, NESTED_KERN, (kernel, callee))


# a plain kernel as an earlier plugin printed it: its aliases inside its block of namespaces,
# before which its callee in `lib` goes
PRINTED_BLOCK = b"""#include <hip/hip_runtime.h>
namespace lib {
template <class T, int N> struct Vec { T v[N]; };
template <class A> struct Pair { A a, b; };
template <int N> __device__ float use(const Pair<Vec<float, N>>& p) { return p.a.v[0] * p.b.v[N - 1]; }
}
namespace lib { namespace dev { 
using __plain_t0 = lib::Vec<float, 4>;
using __plain_t1 = lib::Pair<__plain_t0>;
__global__ void __launch_bounds__(64) kern(float* out, const float* in) {
  __plain_t1 p{};
  p.a.v[0] = in[0];
  p.b.v[3] = in[1];
  out[threadIdx.x] = use<4>(p);
}
}}
"""
PRINTED_BLOCK_KERN = "_ZN3lib3dev4kernEPfPKf"


def test_a_callee_moves_the_aliases_of_its_kernels_block_to_file_scope_to_see_them(tmp_path):
    """The callee goes inside the kernel's block, before the block's aliases: it names
    `Pair<Vec<float, 4>>` through the block's alias, which its item moves to the start of the
    block with the alias it names (deleted where they were); the kernel still sees them, and
    the candidate compiles with the kernel's code."""
    c = compiler(tmp_path, ["-std=gnu++20"])
    values = service(c, (PRINTED_BLOCK_KERN,))
    fp = values.footprint(PRINTED_BLOCK, PRINTED_BLOCK)
    assert fp is not None
    (use,) = fp.callees
    block = PRINTED_BLOCK.index(b"namespace lib { namespace dev")
    assert use.name == "::lib::__plain_use" and block < use.at < PRINTED_BLOCK.index(b"using __plain_t0")
    assert "(const __plain_t1 &p)" in use.text
    t0, t1 = use.aliases
    assert (t0.name, t1.name) == ("__plain_t0", "__plain_t1") and t0.at == t1.at == block
    assert [PRINTED_BLOCK[b:e] for b, e in (t0.moved, t1.moved)] == \
        [b"using __plain_t0 = lib::Vec<float, 4>;", b"using __plain_t1 = lib::Pair<__plain_t0>;"]
    callee = plain_step(values, PRINTED_BLOCK)
    assert callee.count(b"using __plain_t") == 2 and b"\n".join((*(PRINTED_BLOCK[b:e] for b, e in (t0.moved, t1.moved)),
                                                                  b"namespace lib { \n")) in callee
    before, after = kernels(c, PRINTED_BLOCK), kernels(c, callee)
    for side in SIDES:
        assert after[side][PRINTED_BLOCK_KERN] == before[side][PRINTED_BLOCK_KERN]


# ck_tile's shape: a kernel entry with a parameter pack that calls its kernel class's `operator()`
# on a temporary, whose parameter is a type nested in it; the body takes a tile's origin from a
# partitioner's non-const `operator()` by a structured binding, and points at a member type
TILE = b"""#include <hip/hip_runtime.h>
#include <utility>
namespace lib {
template <int M> struct Partitioner {
  int calls = 0;
  __device__ auto operator()() { ++calls; return std::pair<int, int>(blockIdx.x * M, blockIdx.y * M); }
};
struct Store {
  __device__ void operator()(float* out, int i, float v) const { out[i] = v; }
};
template <class T, int M, class E> struct Kernel {
  using DataType = T;
  using Epilogue = std::remove_cvref_t<E>;  // a plain class, as `instantiate` leaves ck_tile's epilogue
  struct Args { const void* in; void* out; int n; };
  __device__ void operator()(Args args) const {
    const auto [i_m, i_n] = Partitioner<M>{}();
    const DataType* in = static_cast<const DataType*>(args.in);
    DataType* out = static_cast<DataType*>(args.out);
    Epilogue{}(out, i_m + threadIdx.x, in[i_n + threadIdx.x] * 2 + args.n);
  }
};
template <int Threads, class K, class... Ts> __global__ __launch_bounds__(Threads, 2) void entry(Ts... ts) { K{}(ts...); }
}
using K = lib::Kernel<float, 64, lib::Store>;
void launch(K::Args a) { lib::entry<64, K><<<1, 64>>>(a); }
"""
TILE_KERN = "_ZN3lib5entryILi64ENS_6KernelIfLi64ENS_5StoreEEEJNS3_4ArgsEEEEvDpT1_"


def test_a_kernel_entry_with_a_pack_and_the_call_operators_it_reaches_become_plain(tmp_path):
    c = compiler(tmp_path, ["-std=gnu++20"])
    values = service(c, (TILE_KERN,))
    kernel = plain_step(values, TILE)
    assert b"void entry(typename __plain_t" in kernel and b"::Args ts)" in kernel
    first = plain_step(values, kernel)  # `Kernel::operator()` on its temporary, a const member
    assert re.search(rb"__plain_call\(const __plain_t\d+ &self, typename __plain_t\d+::Args args\)", first)
    assert b"const auto [i_m, i_n] = " in first and b"const typename __plain_t" in first
    # a member type made a temporary: `typename __plain_t1::Epilogue{}` does not parse in tree-sitter
    assert re.search(rb"using (__plain_t\d+) = typename __plain_t\d+::Epilogue;", first)
    second = plain_step(values, first)  # `Partitioner::operator()`, non-const, on a temporary only
    assert re.search(rb"__plain_call\d\(__plain_t\d+ &&self\)", second) and b"++self.calls" in second
    before = kernels(c, TILE)
    for step in (kernel, first, second):
        after = kernels(c, step)
        for side in SIDES:
            (name,) = after[side]
            assert base_name(name) == "entry" and after[side][name] == before[side][TILE_KERN]


GIVEN_A_LAMBDA = b"""#include <hip/hip_runtime.h>
namespace lib {
template <class T> struct Scale {
  template <class F> __device__ T operator()(T x, const F& f) const { return f(x) * 2; }
  __device__ T operator()(T x) const { return (*this)(x, [](T y) { return y + 1; }); }
};
template <class T> __global__ void kern(T* p) { p[threadIdx.x] = Scale<T>{}(p[threadIdx.x]); }
}
void launch(float* p) { lib::kern<<<1, 64>>>(p); }
"""


def test_a_callee_given_a_lambda_becomes_plain_once_the_lambda_is_a_functor(tmp_path):
    """The member printed plain passes its lambda on as an object of a class printed before it
    (`__plain_closure_0{}`); the next footprint finds the callee given it taking a named type,
    and prints it too."""
    c = compiler(tmp_path, ["-std=gnu++20"])
    kern = "_ZN3lib4kernIfEEvPT_"
    values = service(c, (kern,))
    kernel = plain_step(values, GIVEN_A_LAMBDA)
    first = plain_step(values, kernel)
    assert b"__plain_call(const __plain_t" in first and b"return (self)(x, __plain_closure_0{});" in first
    assert re.search(rb"struct __plain_closure_0 \{\n(constexpr )?__attribute__\(\(host\)\) "
                     rb"__attribute__\(\(device\)\) float operator\(\)\(float y\) const\n", first)
    second = plain_step(values, first)
    assert b"float __plain_call1(const __plain_t0 &self, float x, const lib::__plain_closure_0 &f)" in second
    fp = values.footprint(second, second)
    assert fp is not None and fp.callees == () and fp.kept == ()
    same_kernels(c, GIVEN_A_LAMBDA, kern, (first, second))


# ck_tile's loops over compile-time indices, `static_for<0, N>{}([&](auto i) {...})` calling its
# function with `number<0>` to `number<N - 1>` through its implementation's pack, in a kernel and
# in a member (capturing `this`); and an element-wise lambda a pipeline passes on
STATIC_FOR = b"""#include <hip/hip_runtime.h>
namespace lib {
template <int N> struct number {
  static constexpr int value = N;
  __host__ __device__ constexpr operator int() const { return N; }
};
template <int... Is> struct sequence {};
template <class T, T... Is> struct integers { template <int B> using from = sequence<(B + Is)...>; };
namespace detail {
struct swallow { template <class... Ts> __host__ __device__ constexpr swallow(Ts&&...) {} };
template <class> struct static_for_impl;
template <int... Is> struct static_for_impl<sequence<Is...>> {
  template <class F> __host__ __device__ constexpr void operator()(F f) const { swallow{(f(number<Is>{}), 0)...}; }
};
}
template <int B, int E> struct static_for {
  template <class F> __host__ __device__ constexpr void operator()(F f) const {
    detail::static_for_impl<typename __make_integer_seq<integers, int, E - B>::template from<B>>{}(f);
  }
};
"""
CLOSURES = STATIC_FOR + b"""template <class T, int N> struct Tile {
  T v[N];
  template <class F> __device__ void each(const F& f) const { static_for<0, N>{}([&](auto i) { f(v[i]); }); }
};
template <class T, class F> __device__ T load(const T* p, const F& f) { return f(p[threadIdx.x]); }
template <class T, class F> __device__ T pipeline(const T* p, F f) { return load(p, f) * 2; }
template <class T, int N> __global__ void __launch_bounds__(64) kern(T* out, const T* x, T scale) {
  using V = T;
  constexpr number<1> one{};
  constexpr int K = 2;
  Tile<T, N> acc{};
  static_for<0, N>{}([&](auto i) { acc.v[i] += x[threadIdx.x * N + i.value] * scale * one; });
  T sum = pipeline(x, [scale](T v) { return v * scale + V(K); });
  acc.each([&](T v) { sum += v; });
  out[threadIdx.x] = sum;
}
}
void launch(float* out, const float* x) { lib::kern<float, 4><<<1, 64>>>(out, x, 2.0f); }
"""
CLOSURES_KERN = "_ZN3lib4kernIfLi4EEEvPT_PKS1_S1_"
NO_IDENTIFIER = "its name is no identifier (a conversion, a constructor, `->`, `new`)"
AUTO_OPERATOR = "a call operator with `auto` parameters, printed once for all its instantiations"


def test_static_for_and_element_wise_lambdas_become_functors_and_the_chain_goes_on(tmp_path):
    """Each lambda in a printed body becomes a functor: its captures members (by reference a
    reference, by copy a value; `this` the member `self`), a constant of the kernel a static
    member of its value, a local alias a member alias, one call operator for a generic lambda's
    instantiations that print one body (`auto` for the types they differ in). The callees given
    them are plain at the next level, and so on through `static_for`'s implementation: the chain
    leaves no function template with a body on the kernel's path, and the code is the template's."""
    c = compiler(tmp_path, ["-std=gnu++20"])
    values = service(c, (CLOSURES_KERN,))
    src, step = Source(CLOSURES, "cuda", values.bind(lambda probe, part=CLOSURES: part + probe)), REGISTRY["plain"]
    (item,) = step.items(src, 0)
    chained = apply(CLOSURES, item)
    assert step.progresses(src, chained) and Source(chained, "cuda").error_count <= src.error_count
    # the kernel, `static_for`'s and its implementation's `operator()` (each given two functors),
    # `each`, `load`, `pipeline`: plain
    assert step.progress(src) - step.progress(Source(chained, "cuda")) == 6
    text = chained.decode()
    # `one`, captured by reference (its conversion reads it), is a constant: a static member
    assert re.search(r"struct __plain_closure_0 \{\nstatic constexpr (__plain_t\d+) one = \1\{\};\n__plain_t\d+ &acc;\n"
                     r"const float \*&x;\nfloat &scale;\n", text)
    # its four instantiations print one body: one call operator, `auto` for the type they differ in
    assert len(re.findall(r"void operator\(\)\(auto i\) const\n\{\n    acc.v\[i\] \+= x\[threadIdx.x \* 4 \+ "
                          r"i.value\] \* scale \* one;", text)) == 1
    assert not re.search(r"operator\(\)\(__plain_t\d+ i\)", text)
    # `K`, named without a capture (no odr-use), too; the alias `V`, a member alias
    assert "struct __plain_closure_1 {\nusing V = float;\nstatic constexpr int K = 2;\nfloat scale;\n" in text
    assert "return v * scale + V(K);" in text
    assert re.search(r"struct __plain_closure_3 \{\nconst __plain_t\d+ &self;\n"
                     r"const lib::__plain_closure_2 &f;\n", text)
    assert "::lib::__plain_each(acc, __plain_closure_2{sum});" in text
    assert re.search(r"__plain_call_2\(__plain_t\d+\{\}, __plain_closure_0\{acc, x, scale\}\);", text)
    assert re.search(r"void __plain_call_\d+\(const __plain_t\d+ &self, lib::__plain_closure_3 f\)", text)
    assert "float __plain_load(const float *p, const lib::__plain_closure_1 &f)" in text
    assert "[&]" not in text.split("void launch")[1]
    fp = values.footprint(chained, chained)
    # the functors' call operators stay as printed, not one plain function an instantiation
    assert fp is not None and fp.callees == () and {why for _, why in fp.kept} == {NO_IDENTIFIER, AUTO_OPERATOR}
    same_kernels(c, CLOSURES, CLOSURES_KERN, (chained,))


# a lambda held in a local and captured by another lambda: its closure's type is spelled by its
# functor's name, in the local's type and in the other functor's member
CAPTURED_LAMBDA = STATIC_FOR + b"""template <class T, int N> __global__ void __launch_bounds__(64) kern(T* out, const T* x) {
  T acc = 0;
  auto add = [&](T v) { acc += v; };
  static_for<0, N>{}([&](auto i) { add(x[threadIdx.x * N + i.value]); });
  out[threadIdx.x] = acc;
}
}
void launch(float* out, const float* x) { lib::kern<float, 4><<<1, 64>>>(out, x); }
"""


def test_a_lambda_captured_by_another_is_spelled_by_its_functors_name(tmp_path):
    c = compiler(tmp_path, ["-std=gnu++20"])
    kern = "_ZN3lib4kernIfLi4EEEvPT_PKS1_"
    values = service(c, (kern,))
    kernel = plain_step(values, CAPTURED_LAMBDA)
    assert b"struct __plain_closure_1 {\n__plain_closure_0 &add;\nconst float *&x;\n" in kernel
    assert b"auto add = __plain_closure_0{acc};" in kernel and b"(__plain_closure_1{add, x});" in kernel
    same_kernels(c, CAPTURED_LAMBDA, kern, (kernel,))


# ck_tile's pipeline: a local whose type is dependent in the template (`decltype` of a call on
# an element-wise function) returned by name from a function returning `auto`; clang does not
# construct it in the caller's object in the instantiation (no NRVO), a plain function would
NO_NRVO = b"""#include <hip/hip_runtime.h>
namespace lib {
template <class T, int N> struct Acc { T v[N]; };
template <class T, class F> __device__ auto make(const T* in, F f) {
  auto acc = decltype(f(in)){};
  for (int i = 0; i < 8; ++i) acc.v[i] = in[threadIdx.x + i];
  return acc;
}
template <class T> __global__ void kern(T* out, const T* in) {
  auto a = make(in, [](const T*) { return Acc<T, 8>{}; });
  T s = 0;
  for (int i = 0; i < 8; ++i) s += a.v[i] * i;
  out[threadIdx.x] = s;
}
}
void launch(float* out, const float* in) { lib::kern<<<1, 64>>>(out, in); }
"""


def test_a_local_the_instantiation_returns_without_nrvo_is_returned_as_a_move(tmp_path):
    """On ck_tile's GEMM the pipeline's `c_block_tile` so returned made the kernel 228 VGPRs
    without spills, against the original's 256 and 11 spills."""
    c = compiler(tmp_path, ["-std=gnu++20"])
    kern = "_ZN3lib4kernIfEEvPT_PKS1_"
    values = service(c, (kern,))
    first = plain_step(values, plain_step(values, NO_NRVO))
    assert b"__plain_make(const float *in, lib::__plain_closure_0 f)" in first
    assert b"return static_cast<decltype(f(in)) &&>(acc);" in first
    same_kernels(c, NO_NRVO, kern, (first,))


# lambdas no functor is printed for: an init-capture; a `__shared__` array of the kernel, which
# it names without capturing it and a class outside the kernel would not see; a constant whose
# value prints as no braced list (a constructor's), which a constant expression in it reads
REFUSED = STATIC_FOR + b"""struct Box { int v; __host__ __device__ constexpr Box(int x) : v(x) {} };
template <class T, int N> __global__ void __launch_bounds__(64) kern(T* out, const T* x) {
  T acc[N] = {};
  constexpr Box box{3};
  __shared__ T lds[64];
  lds[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  static_for<0, N>{}([&acc, y = x + threadIdx.x * N](auto i) { acc[i] += y[i.value]; });
  static_for<0, N>{}([&](int i) { acc[i] *= lds[(threadIdx.x + i) % 64]; });
  static_for<0, N>{}([&](auto i) { constexpr int b = box.v; acc[i] += b * box.v; });
  out[threadIdx.x] = acc[0] + acc[N - 1];
}
}
void launch(float* out, const float* x) { lib::kern<float, 4><<<1, 64>>>(out, x); }
"""
REFUSED_KERN = "_ZN3lib4kernIfLi4EEEvPT_PKS1_"


def test_a_lambda_with_an_init_capture_a_shared_array_or_a_constant_that_does_not_print_stays_a_lambda(tmp_path):
    """Printed as written, as before: the callee given it keeps its closure's type and stays a
    template; the code is the template's."""
    c = compiler(tmp_path, ["-std=gnu++20"])
    values = service(c, (REFUSED_KERN,))
    kernel = plain_step(values, REFUSED)
    assert b"__plain_closure" not in kernel
    assert b"[&acc, y = x + threadIdx.x * 4](auto i) {" in kernel and b"acc[i] *= lds[(threadIdx.x + i) % 64];" in kernel
    assert b"constexpr int b = box.v;" in kernel
    fp = values.footprint(kernel, kernel)
    assert fp is not None and fp.callees == ()
    assert [why for name, why in fp.kept if name == "lib::static_for::operator()"] == [
        "not printable: a closure's type, a lambda's parameter pack, parameters of one name, an undeduced return type"]
    same_kernels(c, REFUSED, REFUSED_KERN, (kernel,))


# hipconv's kernels: `__restrict__` pointers to an alias template's type named by a member of the
# config, an object of a class type given as the template argument
RESTRICT = b"""#include <hip/hip_runtime.h>
namespace lib {
enum class DType { F16, F32 };
struct Config { DType type; int tile; };
template <DType D> struct ToTypeImpl;
template <> struct ToTypeImpl<DType::F32> { using type = float; };
template <DType D> using ToType = typename ToTypeImpl<D>::type;
template <Config C>
__global__ void __launch_bounds__(64) kern(ToType<C.type>* __restrict__ out, const ToType<C.type>* __restrict__ in) {
  for (int i = 0; i < C.tile; ++i) out[threadIdx.x * C.tile + i] = in[threadIdx.x + i] * 2;
}
}
void launch(float* out, const float* in) { lib::kern<lib::Config{lib::DType::F32, 4}><<<1, 64>>>(out, in); }
"""


def test_a_restrict_pointer_to_a_type_named_through_the_config_is_spelled_through_its_alias(tmp_path):
    """clang's printer spells the parameter `ToType<Config{1, 4}.type> *__restrict`, the enum's
    member as an integer, which does not compile: hipconv's kernel stayed a template."""
    c = compiler(tmp_path, ["-std=gnu++20"])
    kern = "_ZN3lib4kernIXtlNS_6ConfigELNS_5DTypeE1ELi4EEEEEvPNS_10ToTypeImplIXdtT_4typeEE4typeEPKS5_"
    values = service(c, (kern,))
    plain = plain_step(values, RESTRICT)
    assert b"void kern(typename __plain_t0::type * __restrict out, const typename __plain_t0::type * __restrict in)" \
        in plain
    same_kernels(c, RESTRICT, kern, (plain,))


# ck_tile's tile window: a generic lambda in a member of a class template reads a static member
# of a member type through a member alias (`Traits::VectorDimY`)
MEMBER_TRAITS = STATIC_FOR + b"""template <int N> struct window {
  struct load_store_traits { static constexpr int VectorDimY = N / 2; };
  using Traits = load_store_traits;
  float v[N];
  __device__ float load(int k) const {
    float s = 0;
    static_for<0, N>{}([&](auto jj) { s += jj == Traits::VectorDimY ? v[jj] * k : v[jj]; });
    return s;
  }
};
template <int N> __global__ void __launch_bounds__(64) kern(float* out, const float* x) {
  window<N> w{};
  for (int i = 0; i < N; ++i) w.v[i] = x[threadIdx.x * N + i];
  out[threadIdx.x] = w.load(3);
}
}
void launch(float* out, const float* x) { lib::kern<4><<<1, 64>>>(out, x); }
"""


def test_a_static_member_of_a_member_type_is_qualified_without_typename(tmp_path):
    """`typename X::traits::V` is no expression (the chain stopped there on ck_tile): the qualifier
    is the member type without `typename`, and the chain goes on through `static_for`."""
    c = compiler(tmp_path, ["-std=gnu++20"])
    kern = "_ZN3lib4kernILi4EEEvPfPKf"
    values = service(c, (kern,))
    lowered, chained = plain_chain(values, MEMBER_TRAITS)
    assert len(re.findall(rb"s \+= jj == __plain_t\d+::load_store_traits::VectorDimY \? self.v\[jj\] \* k : self.v\[jj\];",
                          chained)) == 1
    # the kernel, `load`, `static_for`'s and its implementation's `operator()`
    assert lowered == 4
    fp = values.footprint(chained, chained)
    assert fp is not None and fp.callees == () and {why for _, why in fp.kept} == {NO_IDENTIFIER, AUTO_OPERATOR}
    same_kernels(c, MEMBER_TRAITS, kern, (chained,))


# operators a plain kernel calls by their signs: a class template's members (`[]`, `+=`) and free
# function templates (binary `+`, unary `-`), one operand holding another's call
OPERATORS = b"""#include <hip/hip_runtime.h>
namespace lib {
template <class T, int N> struct vec {
  T v[N];
  __device__ const T& operator[](int i) const { return v[i]; }
  __device__ T& operator[](int i) { return v[i]; }
  __device__ vec& operator+=(const vec& o) { for (int i = 0; i < N; ++i) v[i] += o.v[i]; return *this; }
};
template <class T, int N> __device__ vec<T, N> operator+(const vec<T, N>& a, const vec<T, N>& b) {
  vec<T, N> r{}; for (int i = 0; i < N; ++i) r.v[i] = a.v[i] + b.v[i]; return r;
}
template <class T, int N> __device__ vec<T, N> operator-(const vec<T, N>& a) {
  vec<T, N> r{}; for (int i = 0; i < N; ++i) r.v[i] = -a.v[i]; return r;
}
template <int N> __global__ void __launch_bounds__(64) kern(float* out, const float* x) {
  vec<float, N> a{}, b{};
  for (int i = 0; i < N; ++i) { a[i] = x[threadIdx.x * N + i]; b[i] = x[i] * 2; }
  b += -a;
  vec<float, N> c = a + b;
  const vec<float, N>& d = c;
  out[threadIdx.x] = d[1] + c[0] + b[N - 1];
}
}
void launch(float* out, const float* x) { lib::kern<4><<<1, 64>>>(out, x); }
"""


def test_operators_called_by_their_signs_become_plain_functions_called_by_name(tmp_path):
    """`a + b` becomes `__plain_operator_plus(a, b)`, `c[0]` `__plain_operator_index(c, 0)` (a
    member's object its `self`). `b += -a` holds the call of `-`: rewritten as it stands, `-a`
    would still name the template whose body goes, so `+=` waits a level."""
    c = compiler(tmp_path, ["-std=gnu++20"])
    kern = "_ZN3lib4kernILi4EEEvPfPKf"
    values = service(c, (kern,))
    second = plain_step(values, plain_step(values, OPERATORS))  # the kernel, then what it calls
    assert b"b += ::lib::__plain_operator_minus(a);" in second
    assert b"__plain_t0 c = ::lib::__plain_operator_plus(a, b);" in second
    assert b"::lib::__plain_operator_index(d, 1) + ::lib::__plain_operator_index1(c, 0)" in second
    assert b"::lib::__plain_operator_index1(a, i) = x[threadIdx.x * 4 + i];" in second
    assert b"__plain_operator_plus_eq" not in second
    lowered, chained = plain_chain(values, OPERATORS)
    assert b"::lib::__plain_operator_plus_eq(b, ::lib::__plain_operator_minus(a));" in chained
    assert re.search(rb"__plain_t0 & __plain_operator_plus_eq\(__plain_t0 &self, const __plain_t0 &o\)", chained)
    assert lowered == 6  # the kernel, `[]` twice, `+=`, `+`, `-`
    fp = values.footprint(chained, chained)
    assert fp is not None and fp.callees == () and fp.kept == ()
    same_kernels(c, OPERATORS, kern, (second, chained))


# ck_tile's `tile.get_thread_buffer()[i]`, `view.get_buffer().get(i)`: a member called through
# an object that is itself a call
THROUGH_CALLS = b"""#include <hip/hip_runtime.h>
namespace lib {
template <int N> struct buffer {
  float v[N];
  __device__ float get(int i) const { return v[i]; }
  __device__ float& operator[](int i) { return v[i]; }
};
template <int N> struct window {
  buffer<N> b;
  __device__ buffer<N>& buf() { return b; }
};
template <int N> __global__ void __launch_bounds__(64) kern(float* out, const float* x) {
  window<N> w{};
  for (int i = 0; i < N; ++i) w.buf()[i] = x[threadIdx.x * N + i];
  out[threadIdx.x] = w.buf().get(1) + w.buf().get(N - 1);
}
}
void launch(float* out, const float* x) { lib::kern<4><<<1, 64>>>(out, x); }
"""


def test_a_member_called_through_an_object_that_is_a_call_becomes_plain_a_level_later(tmp_path):
    """The object's text moves to `self` and is evaluated once, as before: only a static member,
    whose object goes, waits for an object whose evaluation does nothing."""
    c = compiler(tmp_path, ["-std=gnu++20"])
    kern = "_ZN3lib4kernILi4EEEvPfPKf"
    values = service(c, (kern,))
    lowered, chained = plain_chain(values, THROUGH_CALLS)
    assert b"::lib::__plain_operator_index(::lib::__plain_buf(w), i) = x[threadIdx.x * 4 + i];" in chained
    assert b"::lib::__plain_get(::lib::__plain_buf(w), 1) + ::lib::__plain_get(::lib::__plain_buf(w), 4 - 1)" in chained
    # the kernel, `buf`, `get`, `[]`
    assert lowered == 4
    fp = values.footprint(chained, chained)
    assert fp is not None and fp.callees == () and fp.kept == ()
    same_kernels(c, THROUGH_CALLS, kern, (chained,))


# ck_tile's `bit_cast`-like casts: a pointer cast to a pointer to a vector named by a template
# parameter
VECTOR_CASTS = b"""#include <hip/hip_runtime.h>
namespace lib {
template <class T, int N> using ext_vector_t = T __attribute__((ext_vector_type(N)));
template <class V, class T> __device__ V* as(T* p) { return (V*)p; }
template <class V, class T> __device__ const V* cas(const T* p) { return reinterpret_cast<const V*>(p); }
template <int N> __global__ void __launch_bounds__(64) kern(float* out, const float* x) {
  float v[N];
  for (int i = 0; i < N; ++i) v[i] = x[threadIdx.x * N + i];
  out[threadIdx.x] = (*as<ext_vector_t<float, N>>(v))[1] + (*cas<ext_vector_t<float, N>>(x))[2];
}
}
void launch(float* out, const float* x) { lib::kern<4><<<1, 64>>>(out, x); }
"""


def test_a_cast_to_a_pointer_to_a_vector_names_the_vector_through_its_typedef(tmp_path):
    """clang prints the type as `(_Float16 * __attribute__((ext_vector_type(1))))`, a vector of
    pointers, which does not compile (the chain stopped there on ck_tile)."""
    c = compiler(tmp_path, ["-std=gnu++20"])
    kern = "_ZN3lib4kernILi4EEEvPfPKf"
    values = service(c, (kern,))
    lowered, chained = plain_chain(values, VECTOR_CASTS)
    assert b"typedef float __plain_t0 __attribute__((ext_vector_type(4)));" in chained
    assert b"return (__plain_t0 *)p;" in chained and b"return reinterpret_cast<const __plain_t0 *>(p);" in chained
    assert lowered == 3
    same_kernels(c, VECTOR_CASTS, kern, (chained,))


# ck_tile's `vec.template get_as<typename W::DataType>()` and `bool_constant<oob> = {}`
MEMBER_ARGUMENTS = b"""#include <hip/hip_runtime.h>
namespace lib {
template <bool B> struct flag { static constexpr bool value = B; };
template <class T> struct wrap { T x; __device__ wrap(T y) : x(y) {} };
template <class T, int N> struct pack {
  T v[N];
  template <class U> __device__ U as(int i) const { return static_cast<U>(v[i]); }
};
template <class T, int N> struct window {
  using value = wrap<T>;
  pack<T, N> p;
};
template <class W> __device__ float load(const W& w, int i, flag<true> = {}) {
  return w.p.template as<typename W::value>(i).x * 2.0f;
}
template <int N> __global__ void __launch_bounds__(64) kern(float* out, const float* x) {
  window<float, N> w{};
  for (int i = 0; i < N; ++i) w.p.v[i] = x[threadIdx.x * N + i];
  out[threadIdx.x] = load(w, 1);
}
}
void launch(float* out, const float* x) { lib::kern<4><<<1, 64>>>(out, x); }
"""


def test_a_members_template_arguments_and_a_braced_default_print_as_tree_sitter_parses_them(tmp_path):
    """clang spells a member's template argument in full (4 KB of ck_tile's tile window, which
    tree-sitter cannot parse in an expression) and prints `flag<true> = {}`, which it cannot parse
    either: the chain stopped at both on ck_tile (a level's items add no parse error)."""
    c = compiler(tmp_path, ["-std=gnu++20"])
    kern = "_ZN3lib4kernILi4EEEvPfPKf"
    values = service(c, (kern,))
    kernel = plain_step(values, MEMBER_ARGUMENTS)
    fp = values.footprint(kernel, kernel)
    assert fp is not None
    (load,) = (x for x in fp.callees if x.name == "::lib::__plain_load")
    assert re.search(r"w\.p\.template as<__plain_t\d+>\(i\)\.x", load.text)
    assert re.search(r"__plain_t\d+ __plain_unnamed_2 = __plain_t\d+\{\}\)", load.text)
    assert Source(load.text.encode(), "cuda").error_count == 0
    lowered, chained = plain_chain(values, MEMBER_ARGUMENTS)
    assert lowered == 3  # the kernel, `load`, `as`
    same_kernels(c, MEMBER_ARGUMENTS, kern, (chained,))
