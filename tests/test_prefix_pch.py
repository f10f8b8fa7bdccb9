"""The HIP runtime header read from a precompiled header: only where the compiler sees the same
tokens, only when the original builds the same code with it, and never a verdict of its own.
Real clang on small kernels."""
import copy
import dataclasses
import os

import pytest
from conftest import needs_clang22

from interestingness.compiler import prefix_pch
from interestingness.compiler.compile import LTO

KERNEL = """// a comment first, as a flattened file has one
/* and a block
   comment */
#include <hip/hip_runtime.h>
__global__ void k(float* p) { p[threadIdx.x] = p[threadIdx.x + 64] * 2.0f; }
"""


@pytest.mark.parametrize("text, applies", [
    (KERNEL, True),
    ("#include <hip/hip_runtime.h>\n", True),
    ("  #  include <hip/hip_runtime.h>  \r\n", True),
    ("#include \"hip/hip_runtime.h\"\n", False),           # quoted: resolved next to the file first
    ("#define HIP_NO_HALF 1\n#include <hip/hip_runtime.h>\n", False),
    ("#include <cstdint>\n#include <hip/hip_runtime.h>\n", False),
    ("// continued \\\n#include <hip/hip_runtime.h>\n", False),  # the include is part of the comment
    ("#include <hip/hip_runtime.h> // why\n", False),
    ("__global__ void k() {}\n", False),
])
def test_the_pch_applies_only_when_nothing_but_whitespace_and_comments_precede_the_include(text, applies):
    assert prefix_pch.applies(text.encode()) is applies


def oracle(tmp_path, source: str, flags=()):
    from interestingness.oracle.spill import SpillSetup
    (tmp_path / "k.hip").write_text(source)
    return SpillSetup("k.hip", list(flags), predicate="lto.instructions > 0", cwd=tmp_path, hip_headers="shim")


@needs_clang22
def test_candidates_led_by_the_include_read_the_pch_and_get_the_verdicts_of_a_build_without(tmp_path):
    o = oracle(tmp_path, KERNEL).resolve(KERNEL.encode())
    assert o.settings()["pch"] is True
    plain = copy.copy(o)
    plain.compiler = dataclasses.replace(o.compiler, pch=False)
    candidates = {  # what: (text, reads the PCH, interesting)
        "the original": (KERNEL, True, True),
        "a compile error": (KERNEL.replace("2.0f;", "2.0f"), True, False),
        # without its include the candidate does not build, PCH or not: the PCH supplies nothing
        "the include deleted": (KERNEL.replace("#include <hip/hip_runtime.h>", ""), False, False),
        "a macro first": ("#define SCALE 3.0f\n" + KERNEL.replace("2.0f", "SCALE"), False, True),
        # the candidate's own error, which names no PCH file of ours: a verdict, not the machinery's failure
        "an #error about a PCH": (KERNEL + '#error "PCH file: cannot use the precompiled header"\n', True, False),
    }
    for what, (text, uses_pch, interesting) in candidates.items():
        content = text.encode()
        verdict = o.test(content)
        assert verdict.interesting is plain.test(content).interesting is interesting, what
        assert not verdict.infra_failure, what
        assert ("-include-pch" in o.compiler.compile(LTO, content).command) is uses_pch, what
        assert "-include-pch" not in plain.compiler.compile(LTO, content).command


@needs_clang22
def test_an_original_whose_code_changes_with_the_pch_is_built_without_it(tmp_path, monkeypatch):
    """The PCH is built from another file than the candidate: a header whose code depends on the
    main file's name (__BASE_FILE__) compiles differently with it, so the run does not use it.
    The cheaper variants are tried together first, then (when that build differs) each alone."""
    from interestingness.oracle.spill import SpillSetup
    tried: list[tuple[bool, bool, bool]] = []
    builds_the_same = SpillSetup._builds_the_same

    def counted(self, original, m, compiler):
        tried.append((compiler.hip_headers.is_lean, compiler.pch, compiler.shared_front_end))
        return builds_the_same(self, original, m, compiler)

    monkeypatch.setattr(SpillSetup, "_builds_the_same", counted)
    (tmp_path / "inc" / "hip").mkdir(parents=True)
    (tmp_path / "inc" / "hip" / "hip_runtime.h").write_text(
        "#pragma once\n#define __global__ __attribute__((global))\n"
        "constexpr unsigned base_len = sizeof(__BASE_FILE__);\n")
    source = "#include <hip/hip_runtime.h>\n__global__ void k(unsigned* p) { p[0] = base_len; }\n"
    o = oracle(tmp_path, source, ["-Iinc"]).resolve(source.encode())
    assert o.settings()["pch"] is False and o.settings()["shared_front_end"] is True
    # together, then the lean shim, the PCH and the shared front end each alone
    assert tried == [(True, True, True), (True, False, False), (True, True, False), (True, False, True)]
    tried.clear()
    same = oracle(tmp_path, source.replace("base_len", "7u"), ["-Iinc"]).resolve(
        source.replace("base_len", "7u").encode())
    # the same header, nothing depending on the file name: one build decides both
    assert same.settings()["pch"] is True and same.settings()["shared_front_end"] is True
    assert tried == [(True, True, True)]


@needs_clang22
def test_a_pch_that_disappears_is_a_failure_of_the_machinery_and_is_built_again(tmp_path):
    o = oracle(tmp_path, KERNEL).resolve(KERNEL.encode())
    command = o.compiler.compile(LTO, KERNEL.encode()).command
    path = command[command.index("-include-pch") + 2]
    os.replace(path, tmp_path / "moved.pch")
    failed = o.test(KERNEL.encode())
    assert failed.infra_failure and not failed.interesting
    assert o.test(KERNEL.encode()).interesting
