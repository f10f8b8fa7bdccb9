"""One device front end per candidate, both sides' pipelines from its bitcode, and the IR memo of
what those pipelines made of a bitcode. Real clang on the README's first case (flattened) and on
small kernels; the memo's own rules without clang."""
import concurrent.futures
import copy
import dataclasses
import multiprocessing
import os
import pickle
import shlex
import signal
from pathlib import Path

import pytest
from conftest import needs_clang22
from kernels import SMALL, pressure

from interestingness.base.process import Completed
from interestingness.compiler import compile as compile_module
from interestingness.compiler.compile import LTO, NOLTO, Compiler, _failure
from interestingness.compiler.ir_memo import IrMemo
from interestingness.oracle.spill import SHARED_FRONT_END, SpillSetup, measure, target_digests

REPO = Path(__file__).resolve().parent.parent
CASE = REPO / "corpora" / "wgrad_tiny_pos"
# a template nobody instantiates: the front end emits nothing for it, so the bitcode is the original's
UNUSED = b"\ntemplate <typename T> __device__ T twice_unused(T x) { return x + x; }\n"


def flattened() -> tuple[bytes, list[str]]:
    from reducer.text.flatten import flatten, include_dirs
    flags = shlex.split((CASE / "flags").read_text())
    text, _ = flatten(CASE / "repro.hip", (CASE / "repro.hip").read_bytes(), include_dirs(flags, REPO))
    return text, flags


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """The oracle a run of wgrad_tiny_pos gets (flattened start file), and that file."""
    text, flags = flattened()
    setup = SpillSetup(CASE / "repro.hip", flags, cwd=REPO, tmp_dir=tmp_path_factory.mktemp("run"))
    return setup, setup.resolve(text), text


def driver_copy(o):
    """The same oracle building each side through the driver."""
    d = copy.copy(o)
    d.compiler = dataclasses.replace(o.compiler, shared_front_end=False)
    d.memo = None
    return d


def fresh_memo(o, directory):
    c = copy.copy(o)
    c.memo = IrMemo(directory)
    return c


@needs_clang22
def test_a_run_adopts_the_shared_front_end_and_a_resumed_run_keeps_it(tiny):
    setup, o, text = tiny
    assert o.compiler.shared_front_end and o.settings()["shared_front_end"] is True
    assert o.compiler.pch  # the two combine: the front end reads the PCH
    assert o.identity()["front_end"] == SHARED_FRONT_END
    assert "front_end" not in driver_copy(o).identity()  # a run without it keeps its old identity
    restored = setup.restore(o.settings(), text)
    assert restored.compiler.shared_front_end and restored.identity() == o.identity()
    assert pickle.loads(pickle.dumps(o)).memo.directory == o.memo.directory


@needs_clang22
def test_shared_builds_give_the_driver_builds_verdicts_on_a_corpus_kernel(tiny):
    _, o, text = tiny
    d = driver_copy(o)
    candidates = {
        "the original": text,
        "no spill with one wave per SIMD": text.replace(b"__launch_bounds__(256, 2)", b"__launch_bounds__(256, 1)"),
        "a compile error": text + b"\nint broken(\n",
        "a new uninitialized use": text + b"\n__device__ int g(int n) { int j; for (; j < n; j++) n--; return n; }\n",
    }
    seen = set()
    for what, content in candidates.items():
        shared, driver = o.test(content), d.test(content)
        # the shared front end stops at the first error, which its message calls fatal
        assert (shared.interesting, shared.reason.replace("fatal error:", "error:")) == \
            (driver.interesting, driver.reason), what
        assert shared.details["kernels"] == driver.details["kernels"], what
        assert shared.details.get("lto_code") == driver.details.get("lto_code"), what
        if shared.interesting:
            for step in range(o.confirm_steps):
                assert o.confirm(content, shared, step).interesting == d.confirm(content, driver, step).interesting
        seen.add(shared.interesting)
    assert seen == {True, False}
    assert "compile error (lto)" in o.test(candidates["a compile error"]).reason
    assert "uninitialized" in o.test(candidates["a new uninitialized use"]).reason
    # the figures of every kernel, both sides, as `reduce check` measures them
    m, s = measure(d.compiler, text), measure(o.compiler, text)
    assert m.metrics == s.metrics
    for side in (LTO, NOLTO):
        kernels = m.kernel_names()
        assert target_digests(m.compiled[side].summary.digests, kernels) == \
            target_digests(s.compiled[side].summary.digests, kernels)


@needs_clang22
def test_one_front_end_run_serves_both_sides(tiny, monkeypatch):
    _, o, text = tiny
    calls = []
    real = Compiler.front_end
    monkeypatch.setattr(Compiler, "front_end", lambda self, *a, **kw: calls.append(1) or real(self, *a, **kw))
    driver_copy(o).test(text)  # through the driver: no shared front end at all
    assert calls == []
    fresh = copy.copy(o)
    fresh.memo = None
    verdict = fresh.test(text)
    assert verdict.interesting and set(verdict.details["compiles"]) == {LTO, NOLTO} and len(calls) == 1


@needs_clang22
def test_a_memo_hit_runs_no_backend_yet_gives_the_same_verdict(tiny, tmp_path, monkeypatch):
    _, o, text = tiny
    o = fresh_memo(o, tmp_path / "memo")
    backends = []
    real = Compiler.backend
    monkeypatch.setattr(Compiler, "backend", lambda self, side, *a, **kw: backends.append(side) or real(self, side, *a, **kw))
    first = o.test(text)
    assert first.interesting and backends == [LTO, NOLTO]
    assert {c["memo"] for c in first.details["compiles"].values()} == {"miss"}
    backends.clear()
    again = o.test(text + UNUSED)  # another text, the same IR
    assert backends == []
    assert {c["memo"] for c in again.details["compiles"].values()} == {"hit"}
    assert (again.interesting, again.reason, again.details["kernels"], again.details["lto_code"]) == \
        (first.interesting, first.reason, first.details["kernels"], first.details["lto_code"])
    # the init guard's builds have bitcode of their own (-ftrivial-auto-var-init changes IRGen), memoised the
    # same way; the confirmation builds the UB guard's IR (not memoised), then each init mode's code
    assert o.confirm_steps == 1
    assert o.confirm(text, first, 0).interesting and backends == [NOLTO, LTO, LTO]
    backends.clear()
    assert o.confirm(text + UNUSED, again, 0).interesting and backends == [NOLTO]
    backends.clear()
    # other IR: built
    other = text.replace(b"__launch_bounds__(256, 2)", b"__launch_bounds__(256, 1)")
    assert o.test(other).details["compiles"][LTO]["memo"] == "miss" and backends == [LTO]


def _test_in_another_process(o, content):
    return o.test(content).details["compiles"]


@needs_clang22
def test_the_memo_is_shared_by_the_processes_of_a_run(tiny, tmp_path):
    _, o, text = tiny
    o = fresh_memo(o, tmp_path / "memo")
    assert o.test(text).interesting
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        compiles = pool.submit(_test_in_another_process, o, text + UNUSED).result()
    assert {c["memo"] for c in compiles.values()} == {"hit"}


@needs_clang22
def test_an_original_built_otherwise_from_the_bitcode_keeps_the_driver(tmp_path, monkeypatch):
    """Adoption is decided from the original: pipelines that give it other code (here the no-LTO
    side's at -O0) leave the run with the driver's builds."""
    source = pressure(*SMALL).encode()  # a real kernel, cheap to build
    (tmp_path / "k.hip").write_bytes(source)

    def setup():
        return SpillSetup("k.hip", [], None, "lto.instructions > 0", cwd=tmp_path, tmp_dir=tmp_path / "t")

    assert setup().resolve(source).compiler.shared_front_end
    real = Compiler.shared_commands

    def at_o0(self, *a, **kw):
        cmds = real(self, *a, **kw)
        (nolto,) = cmds.pipelines[NOLTO]
        return dataclasses.replace(cmds, pipelines={**cmds.pipelines, NOLTO: ((*nolto[:-3], "-O0", *nolto[-3:]),)})

    monkeypatch.setattr(Compiler, "shared_commands", at_o0)
    o = setup().resolve(source)
    assert not o.compiler.shared_front_end and o.memo is None and o.settings()["shared_front_end"] is False


def small_kernel(tmp_path):
    """A real kernel, cheap to build, and its oracle (with the shared front end)."""
    source = pressure(*SMALL).encode()
    (tmp_path / "k.hip").write_bytes(source)
    o = SpillSetup("k.hip", [], None, "lto.instructions > 0", cwd=tmp_path, tmp_dir=tmp_path / "t").resolve(source)
    assert o.compiler.shared_front_end
    return source, o


def with_timeout(o, timeout: float):
    quick = copy.copy(o)
    quick.compiler = dataclasses.replace(o.compiler, timeout=timeout)
    return quick


@needs_clang22
def test_front_end_timeouts_and_keep_artifacts(tmp_path):
    source, o = small_kernel(tmp_path)
    v = with_timeout(o, 0.01).test(source + b"\n")
    assert not v.interesting and not v.infra_failure and v.reason.startswith("timeout (lto)")
    kept = copy.copy(o)
    kept.compiler = dataclasses.replace(o.compiler, keep_artifacts=True)
    kept.memo = None
    v = kept.test(source)
    work = Path(v.details["compiles"][LTO]["artifacts"])
    # one directory per candidate: the source, its bitcode, the LTO pre-link's and the assembly
    assert {"k.hip", "fe.bc", "pre.bc", "out.s.lto.s"} <= {p.name for p in work.iterdir()}


# 62,500 class template instantiations: seconds of Sema, none of them needed to know that a
# candidate with an error before them does not compile
INSTANTIATIONS = b"""
template <int I, int J> struct G { static constexpr long v = (G<I - 1, J>::v + G<I, J - 1>::v) % 1000003; };
template <int J> struct G<0, J> { static constexpr long v = 1; };
template <int I> struct G<I, 0> { static constexpr long v = 1; };
static_assert(G<250, 250>::v != 0);
"""


@needs_clang22
def test_a_candidate_that_does_not_compile_stops_at_its_first_error(tmp_path):
    """The front end stops at a candidate's first error: the verdict is that error at once, not
    the rest of the unit parsed and instantiated, nor typo-corrected. Against the same error
    after the instantiations (what every error cost before), by their ratio: no machine is too
    slow for it."""
    source, o = small_kernel(tmp_path)
    patient = with_timeout(o, 300)
    early = patient.test(source + b"\nint early = undeclared_name;\n" + INSTANTIATIONS)
    late = patient.test(source + INSTANTIATIONS + b"\nint late = undeclared_name;\n")
    for v in (early, late):
        assert not v.interesting and v.reason.startswith("compile error (lto)") and "undeclared_name" in v.reason
        assert "did you mean" not in v.reason
    assert early.seconds * 4 < late.seconds, (early.seconds, late.seconds)


def completed(returncode, stderr="", timed_out=False):
    return Completed(returncode, "", stderr, 0.1, timed_out)


def test_a_crash_of_a_compiler_run_directly_is_a_verdict_a_kill_is_not():
    """The driver reports a crash of its in-process cc1 as an error; a cc1 run directly dies of the signal."""
    assert _failure(completed(-signal.SIGSEGV, "Stack dump:\n"), 10, None)[0] == "error"
    assert _failure(completed(-signal.SIGABRT), 10, None)[0] == "error"
    assert _failure(completed(-signal.SIGKILL), 10, None)[0] == "infra"
    assert _failure(completed(1, "LLVM ERROR: out of memory\n"), 10, None)[0] == "infra"
    assert _failure(completed(None, timed_out=True), 10, None)[0] == "timeout"
    assert _failure(completed(1, "k.hip:1:1: error: nope\n"), 10, None) == ("error", "k.hip:1:1: error: nope")
    assert _failure(completed(1, "fatal error: file '/t/p.pch' not found\n"), 10, "/t/p.pch")[0] == "infra"
    assert _failure(completed(0), 10, None) is None


KEY = '{"pipeline": [["clang", "-cc1"]]}'


def test_the_memo_answers_only_for_the_full_key(tmp_path, monkeypatch):
    memo = IrMemo(tmp_path)
    memo.put(b"BC1", KEY, {"summary": 1})
    assert memo.get(b"BC1", KEY) == {"summary": 1}
    assert memo.get(b"BC2", KEY) is None and memo.get(b"BC1", KEY + " ") is None
    # every key on one digest: a hit still compares the whole key and bitcode
    monkeypatch.setattr(IrMemo, "_path", lambda self, bitcode, key: os.path.join(self.directory, "one.entry"))
    memo.put(b"BC1", KEY, {"summary": 1})
    assert memo.get(b"BC2", KEY) is None and memo.get(b"BC1", KEY[:-1] + "x") is None
    assert memo.get(b"BC1", KEY) == {"summary": 1}
    # a copy in another process (pickled with the oracle) reads the same files
    assert pickle.loads(pickle.dumps(memo)).get(b"BC1", KEY) == {"summary": 1}
    # an entry that cannot be read whole is a miss, never an error
    (tmp_path / "one.entry").write_bytes(b"gpu-reduce ir memo 1\n\0\0")
    assert memo.get(b"BC1", KEY) is None


def test_the_memo_is_bounded_and_keeps_the_recently_used(tmp_path):
    memo = IrMemo(tmp_path, max_bytes=20_000)
    memo.put(b"best" * 500, KEY, {"n": -1})
    for n in range(40):
        memo.put(bytes([n]) * 2000, KEY, {"n": n})
        assert memo.get(b"best" * 500, KEY) == {"n": -1}  # the current best's IR, asked for all along
    sizes = sum(p.stat().st_size for p in tmp_path.glob("*.entry"))
    assert sizes <= 20_000 and memo.get(bytes([39]) * 2000, KEY) == {"n": 39}
    assert memo.get(bytes([0]) * 2000, KEY) is None  # the oldest went
    assert not list(tmp_path.glob(".put-*"))


def test_driver_jobs_are_split_into_the_shared_commands(tmp_path):
    """The commands from the driver's -###: the LTO cc1 stopped at IRGen, its pipelines from the
    bitcode, the no-LTO cc1 from the bitcode; nothing of the probe's directory left in them."""
    if not Path("/usr/lib/llvm-22/bin/clang++").exists():
        pytest.skip("clang-22 not installed")
    setup = SpillSetup("k.hip", ["-std=c++20"], None, "lto.instructions > 0", cwd=tmp_path, hip_headers="shim")
    cmds = setup.compiler.shared_commands()
    fe = cmds.front_end
    assert fe[1] == "-cc1" and fe[-3:] == ("-x", "hip", "k.hip") and "-disable-llvm-passes" in fe
    assert "-emit-llvm-uselists" in fe and "-flto=full" in fe and fe[fe.index("-o") + 1] == compile_module.FE_OUT
    prelink, link = cmds.pipelines[LTO]
    (nolto,) = cmds.pipelines[NOLTO]
    for cmd in (prelink, nolto):
        assert cmd[-3:] == ("-x", "ir", compile_module.FE_OUT) and not any(a.startswith("-std=") for a in cmd)
    assert prelink[prelink.index("-o") + 1] == compile_module.PRE_OUT and compile_module.PRE_OUT in link
    assert link[link.index("-o") + 1] == "out.s" and nolto[nolto.index("-o") + 1] == "out.s"
    for cmd in (fe, prelink, link, nolto):
        assert not any("reduce-jobs-" in a for a in cmd)
    assert any(a == "-fdebug-compilation-dir=" + compile_module.WORK for a in fe)



@needs_clang22
def test_file_sets_build_the_same_with_one_front_end(tmp_path):
    """A multi-file run's candidates are file sets, copied into each front end's directory."""
    from test_multifile import KERNEL_MAIN, SPILLS, collect, kernel_case

    from interestingness.base.bundle import decode, encode

    kernel_case(tmp_path)
    tree, data = collect(tmp_path / "k.hip", KERNEL_MAIN.encode(), [tmp_path / "inc"])
    o = SpillSetup("k.hip", ["-Iinc"], None, SPILLS, tmp_dir=tmp_path / "work", cwd=tmp_path, tree=tree).resolve(data)
    assert o.compiler.shared_front_end
    calm = encode([(n, t.replace(f"#define N {SMALL[0]}".encode(), b"#define N 8")) for n, t in decode(data)])
    d = driver_copy(o)
    for content, interesting in ((data, True), (calm, False)):
        shared, driver = o.test(content), d.test(content)
        assert shared.interesting is driver.interesting is interesting
        assert shared.details["kernels"] == driver.details["kernels"]
