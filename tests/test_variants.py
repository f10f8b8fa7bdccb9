"""A kept candidate's guard builds from one front end (tools/variants): the plugin's bitcode is
the front end's with each guard's flags, byte for byte, and a confirmation from it refuses and
keeps what the guards built one by one do. Real clang on the README's first case (flattened)."""
import copy
import dataclasses
import subprocess

import pytest
from conftest import needs_clang22
from kernels import pressure_in_a_loop
from test_shared_front_end import CASE, flattened

from interestingness.compiler import variants
from interestingness.compiler.compile import FE_OUT, _in
from interestingness.oracle import ubsan
from interestingness.oracle.spill import INIT_MODES, SpillOracle, SpillSetup

pytestmark = needs_clang22
ZEROING = b"for (int e = 0; e < 16; ++e) acc[im][jn][e] = 0.0f;"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    text, flags = flattened()
    setup = SpillSetup(CASE / "repro.hip", flags, cwd=CASE.parent.parent, tmp_dir=tmp_path_factory.mktemp("run"))
    return setup, setup.resolve(text), text


def one_by_one(o: SpillOracle) -> SpillOracle:
    """The same oracle with a front end per guard build."""
    c = dataclasses.replace(o.compiler, variants=False)
    return SpillOracle(c, o.predicate, o.targets, kernels=o.kernels, uninitialized=o.uninitialized,
                       loop_targets=o.loop_targets, init_guard=o.init_guard, headers_sha256=o.headers_sha256,
                       original_figures=o.original_figures, sanitized=o.sanitized)


def test_a_run_confirms_from_one_front_end_and_a_resumed_run_keeps_it(tiny):
    setup, o, text = tiny
    assert o.compiler.variants and o.settings()["variants"] is True
    old = one_by_one(o)
    assert old.confirm_steps == old.confirm_cost == 3  # the sanitizer build and two init modes
    assert o.confirm_steps == 1 and o.confirm_cost == 3  # the same batches: the same candidates kept
    assert o.identity()["guard_front_end"] == variants.version() and "guard_front_end" not in old.identity()
    restored = setup.restore(o.settings(), text)
    assert restored.compiler.variants and restored.identity() == o.identity()


def test_each_variant_is_the_front_end_run_with_its_flags(tiny, tmp_path):
    """Byte for byte, once the compilation-unit id (the driver derives it from the command line)
    is the plain build's."""
    _, o, text = tiny
    c = o.compiler
    settings = {"ub": variants.sanitize_setting(ubsan.CHECKS),
                **{mode: variants.init_setting(mode) for mode in INIT_MODES}}
    fronts = c.front_end_variants(text, settings)
    flags = {"ub": ubsan.flags(), **{mode: [f"-ftrivial-auto-var-init={mode}"] for mode in INIT_MODES}}
    plain_cuid = next(a for a in c.shared_commands().front_end if a.startswith("-cuid="))
    for name, extra in flags.items():
        work = tmp_path / name
        work.mkdir()
        (work / c.file_name).write_bytes(text)
        cmd = [plain_cuid if a.startswith("-cuid=") else a for a in c.shared_commands(extra).front_end]
        subprocess.run(_in(cmd, work), cwd=work, check=True, capture_output=True)
        assert fronts[name].ok and fronts[name].bitcode == (work / FE_OUT).read_bytes(), name
    assert fronts["ub"].bitcode != fronts["zero"].bitcode != fronts["pattern"].bitcode


def test_the_confirmation_from_one_front_end_decides_as_the_builds_one_by_one(tiny):
    _, o, text = tiny
    old = one_by_one(o)
    assert ZEROING in text
    candidates = {
        "the original": (text, True, ""),
        "an accumulator read before it is written": (text.replace(ZEROING, b";"), False, "init guard: "),
    }
    for what, (content, kept, why) in candidates.items():
        verdict = o.test(content)
        assert verdict.interesting, what  # the test alone keeps it: refusing is the confirmation's
        at_once = o.confirm(content, verdict, 0)
        steps = [old.confirm(content, verdict, s) for s in range(old.confirm_steps)]
        assert at_once.interesting == all(v.interesting for v in steps) == kept, what
        if not kept:
            refusal = next(v for v in steps if not v.interesting)
            assert at_once.reason.startswith(why)
            assert at_once.reason.split(": ", 1)[1] == refusal.reason.split(": ", 1)[1]
        assert set(at_once.details["phases"]) <= {"ub_guard", "init_guard"}


def test_without_the_plugin_the_guards_build_one_by_one(tmp_path, monkeypatch):
    text, flags = flattened()
    monkeypatch.setattr(variants, "PLUGIN", tmp_path / "missing.so")
    with pytest.raises(variants.PluginMissing, match="scripts/setup.sh"):
        variants.plugin()
    o = SpillSetup(CASE / "repro.hip", flags, cwd=CASE.parent.parent, tmp_dir=tmp_path).resolve(text)
    assert o.compiler.shared_front_end and not o.compiler.variants and o.confirm_steps == 3
    failed = copy.copy(o).compiler.front_end_variants(text, {"zero": variants.init_setting("zero")})
    assert failed["zero"].failure == "infra" and "not built" in failed["zero"].message


TWO_KERNELS = r"""#include <hip/hip_runtime.h>
__global__ void k(float *out, const float *in) { out[threadIdx.x] = in[threadIdx.x] * 2.0f; }
__global__ void other(float *out, int n) {
  float acc[2];
  if (n > 3) acc[0] = 1.0f;
  out[threadIdx.x] = acc[0];
}
"""


def test_a_kernel_that_is_no_target_may_read_what_it_never_wrote(tmp_path):
    """The guards read the targets only; composable_kernel's other instantiation changes its code
    with -ftrivial-auto-var-init=zero, and that did not keep the variants from the run."""
    (tmp_path / "k.hip").write_text(TWO_KERNELS)
    o = SpillSetup("k.hip", [], predicate="lto.instructions > 0", kernels=["_Z1kPfPKf"], cwd=tmp_path,
                   tmp_dir=tmp_path).resolve(TWO_KERNELS.encode())
    assert o.targets == ("_Z1kPfPKf",) and o.init_guard == "code"
    assert o.compiler.variants and o.confirm_steps == 1
    first = o.compiler.side_names[0]
    plain = o.compiler.compile(first, TWO_KERNELS.encode()).summary.digests
    zero = o.compiler.compile(first, TWO_KERNELS.encode(), extra=["-ftrivial-auto-var-init=zero"]).summary.digests
    assert plain["_Z1kPfPKf"] == zero["_Z1kPfPKf"] and plain["_Z5otherPfi"] != zero["_Z5otherPfi"]


def test_a_candidate_whose_variants_do_not_build_is_refused_for_that(tmp_path):
    """Not for reading an automatic variable: the reason says what happened."""
    (tmp_path / "k.hip").write_text(TWO_KERNELS)
    o = SpillSetup("k.hip", [], predicate="lto.instructions > 0", kernels=["_Z1kPfPKf"], cwd=tmp_path,
                   tmp_dir=tmp_path, ub_guard=False).resolve(TWO_KERNELS.encode())
    assert o.compiler.variants and o.sanitized is None
    verdict = o.test(TWO_KERNELS.encode())
    broken = TWO_KERNELS.replace("* 2.0f;", "* 2.0f").encode()
    refused = o.confirm(broken, verdict, 0)
    assert not refused.interesting and not refused.infra_failure
    assert refused.reason.startswith("init guard: the candidate does not build (error): ")
    assert "-ftrivial-auto-var-init=zero" in refused.reason and "automatic variable" not in refused.reason


def test_the_verdict_level_confirms_from_one_front_end_too(tmp_path):
    """A runtime loop over a private array: -ftrivial-auto-var-init changes the original's code,
    so the init guard compares verdicts, both sides of each mode built from the plugin's bitcode.
    It decides as the flags' whole tests do, and says why in the same words."""
    text = pressure_in_a_loop().encode()
    (tmp_path / "k.hip").write_bytes(text)
    o = SpillSetup("k.hip", [], predicate="lto.spill_ops > 0", cwd=tmp_path, tmp_dir=tmp_path).resolve(text)
    assert o.init_guard == "verdict" and o.compiler.variants and o.confirm_steps == 1 and o.confirm_cost == 3
    old = one_by_one(o)
    fewer = pressure_in_a_loop(True, 40).encode()  # no spill at all: the flags' tests are false too
    for content, kept in ((text, True), (fewer, False)):
        verdict = o.test(text)
        at_once = o.confirm(content, verdict, 0)
        steps = [old.confirm(content, verdict, s) for s in range(old.confirm_steps)]
        assert at_once.interesting == all(v.interesting for v in steps) == kept
        if not kept:
            refusal = next(v for v in steps if not v.interesting)
            assert at_once.reason == refusal.reason
            assert "is not interesting with -ftrivial-auto-var-init=zero: loop guard: " in at_once.reason
