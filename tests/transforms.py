"""Shared by the transform tests: run a pass to its fixpoint, and build a HIP file for gfx950
with clang 22 (no-LTO side, one compile) to read its kernels' MFMA counts."""
from __future__ import annotations

import tempfile
from pathlib import Path

from interestingness.compiler.compile import NOLTO, Compiler, prepare_flags
from interestingness.compiler.toolchain import find_toolchain
from interestingness.measure.metrics import analyse
from reducer.passes import REGISTRY
from reducer.text.edits import apply
from reducer.text.source import Source

# A small MFMA kernel: C++20 config struct as template argument, a config table, 16x16x32 bf16 MFMAs.
PRELUDE = b"""#include <hip/hip_runtime.h>
using bf16x8_t = __attribute__((ext_vector_type(8))) __bf16;
using f32x4_t = __attribute__((ext_vector_type(4))) float;
"""


def fixpoint(pass_name: str, text: bytes, values=None, level: int = 0) -> tuple[bytes, int]:
    """Apply the first item of `level` the engine would accept (`Pass.progresses`), until there is
    none; the result and the number of items applied. No step may add a parse error. With `values`
    (a reducer.values.ClangValues), the pass asks the compiler for constant values."""
    p, steps = REGISTRY[pass_name], 0
    while True:
        ask = values.bind(lambda probe, text=text: text + probe) if values is not None else None
        src = Source(text, "cuda", ask)
        items = p.items(src, level) or []
        new = next((c for c in (apply(text, item) for item in items) if p.progresses(src, c)), None)
        if new is None:
            return text, steps
        assert Source(new, "cuda").error_count <= Source(text, "cuda").error_count, new.decode()
        text, steps = new, steps + 1


def mfma_counts(text: bytes, flags: tuple[str, ...] = ("-std=gnu++20",)) -> list[int]:
    """Sorted v_mfma counts of the kernels of `text`, built without LTO; fails on a compile error."""
    with tempfile.TemporaryDirectory() as tmp:
        flags, _ = prepare_flags(list(flags), Path(tmp))
        built = Compiler(find_toolchain(), flags, "t.hip", tmp, timeout=120).compile(NOLTO, text)
        assert built.ok, built.message + "\n" + text.decode()
        return sorted(m["mfma"] for m in analyse(built.asm).values())
